//! Whether impulses `λ = [λn; λD]` and the outcome they give,
//! `v⁺ = v⁻ + M⁻¹Jᵀλ`, solve the simultaneous LCP, judged from its
//! definition (docs/model.md §2, "The acceptance check"): the check every
//! simultaneous outcome passes before it is listed, whichever method found it.

use nalgebra::DVector;

use crate::ImpactProblem;

/// Relative tolerance `τ` of the acceptance check: a velocity condition
/// holds to `τ s`, an impulse condition to `τ` of the contact's impulses
/// (docs/model.md §2).
pub const DEFINITION_TOLERANCE: f64 = 1e-9;

/// How far `λ` (length `m + m·d`, the §2 layout) and `v⁺ = v⁻ + M⁻¹Jᵀλ`
/// are from solving the simultaneous LCP, as a multiple of what each
/// condition is allowed: at most 1 for a solution (docs/model.md §2).
///
/// With `u = J v⁺`, `γ_i = max(0, −min_k (JD v⁺)_ik)` (the slip speed along
/// the direction most opposed to the slip), `P` the largest single-contact
/// plastic impulse and, per row, `e_r` the round-off of computing `u_r`:
///
/// * impulses nonnegative: `λn_i ≥ −τP/(1 + μ_i)`, `λD_ik ≥ −τP`;
/// * no contact approaching: `un_i ≥ −(τs + e_i)`;
/// * a pushing contact does not separate: `(1 + μ_i) λn_i ≤ τP` or
///   `|un_i| ≤ τs + e_i` (a normal impulse counts as zero only with the
///   friction it allows: at `μ = 10¹²` a `λn` of `10⁻¹³ P` carries an
///   impulse of `0.1 P`);
/// * friction only along the directions most opposed to the slip:
///   `λD_ik ≤ τP` or `(JD v⁺)_ik + γ_i ≤ τs + e_ik`;
/// * in the cone: `Σ_k λD_ik − μ_i λn_i ≤ τ (Σ_k λD_ik + μ_i λn_i + P)`;
/// * on its boundary when slipping: `γ_i ≤ τs + e` or
///   `μ_i λn_i − Σ_k λD_ik ≤ τ (Σ_k λD_ik + μ_i λn_i + P)`.
///
/// `e_r = K ε (|J_r| a)` with `a = |v⁻| + |M⁻¹Jᵀ| |λ|` (entrywise), `ε` the
/// unit round-off and `K` the number of terms summed into `u_r`: Higham's
/// bound on the rounding of the two products, so a solution whose impulses
/// cancel in `v⁺` (an ill-conditioned `M`) is not refused for its
/// round-off, while one off by more than that is. An outcome whose
/// round-off `e_r` exceeds [`ROUNDOFF_LIMIT`]` · s` is not determined by
/// its impulses and gets an infinite violation.
pub fn definition_violation(problem: &ImpactProblem, lambda: &[f64]) -> f64 {
    let ops = problem.operators();
    let (m, d, n) = (ops.m, ops.d, ops.n);
    assert_eq!(lambda.len(), m + m * d, "λ = [λn; λD]");
    let tau = DEFINITION_TOLERANCE;
    let s = problem.velocity_scale();
    let p = 2.0 * problem.default_step_size();
    let lam = DVector::from_column_slice(lambda);
    let v = problem.velocity() + &ops.minv_jt * &lam;
    let u = &ops.j * &v;
    let a = problem.velocity().abs() + ops.minv_jt.abs() * lam.abs();
    let terms = (n + 1 + lambda.len()) as f64;
    let roundoff = (ops.j.abs() * a) * (terms * f64::EPSILON / 2.0);
    let velocity = |r: usize| tau * s + roundoff[r];
    // Not determined to ROUNDOFF_LIMIT: infinitely far from verified.
    let mut worst: f64 = if roundoff.amax() > ROUNDOFF_LIMIT * s { f64::INFINITY } else { 0.0 };
    for i in 0..m {
        let mu = ops.friction[i];
        let zero_n = tau * p / (1.0 + mu);
        let ln = lambda[i];
        worst = worst.max(-ln / zero_n).max(-u[i] / velocity(i));
        worst = worst.max((ln / zero_n).min(u[i].abs() / velocity(i)));
        let rows = m + i * d..m + (i + 1) * d;
        let (k_min, min) =
            rows.clone().map(|r| (r, u[r])).fold((m, f64::INFINITY), |b, x| if x.1 < b.1 { x } else { b });
        let gamma = (-min).max(0.0);
        let mut friction = 0.0;
        for r in rows {
            let ld = lambda[r];
            friction += ld;
            worst = worst.max(-ld / (tau * p));
            // (JD v⁺)_ik + γ_i, with the round-off of both rows.
            let slack = (u[r] + gamma).abs() / (velocity(r) + if gamma > 0.0 { roundoff[k_min] } else { 0.0 });
            worst = worst.max((ld / (tau * p)).min(slack));
        }
        let cone = tau * (friction + mu * ln + p);
        worst = worst.max((friction - mu * ln) / cone);
        let slipping = if d > 0 { gamma / velocity(k_min) } else { 0.0 };
        worst = worst.max(slipping.min((mu * ln - friction) / cone));
    }
    worst
}

/// The largest round-off of a contact velocity `u_r = (J v⁺)_r` (the
/// bound `e_r` of [`definition_violation`]) with which an outcome is
/// determined, relative to the velocity scale: beyond, `v⁺` is not known
/// from its impulses to `10⁻⁶ s` (impulses about `10⁹` times those its
/// velocity change needs, which cancel: a wedged body squeezed without
/// bound, or opposed friction impulses in a cone of `μ = 10¹²`).
pub const ROUNDOFF_LIMIT: f64 = 1e-6;

/// Whether `λ` passes [`definition_violation`].
pub fn solves_definition(problem: &ImpactProblem, lambda: &[f64]) -> bool {
    definition_violation(problem, lambda) <= 1.0
}
