//! The simultaneous impact law of Anitescu & Potra (docs/model.md §2), the classic
//! baseline, with every distinct post-impact velocity it admits.

use nalgebra::DVector;

use crate::ImpactProblem;
use crate::lcp::{LemkeOptions, LemkeWorkspace, basic_solutions};
use crate::problem::ContactOperators;

use super::definition::solves_definition;
use super::impulse_bound::normal_impulse_bound;
use super::outcome::{ImpactOutcome, SimultaneousOutcomes, SolutionMethod};
use super::{MAX_SEARCH_CONTACTS, StepEnumerator};

/// Largest simultaneous LCP whose complementary index sets are enumerated
/// (`2^N` small solves); larger ones get the Lemke solution only.
pub const MAX_ENUMERATED_SIMULTANEOUS: usize = 20;

/// Covering vectors tried, after `1`, when Lemke's solve of a simultaneous
/// LCP too large to enumerate ends off a solution (docs/model.md §2).
pub const LEMKE_RETRIES: u64 = 16;

/// The LCP of docs/model.md §2 restricted to `contacts`, for pre-impact `v`:
/// unknowns `[λn; λD; γ]` of those contacts, `A` row-major.
pub(crate) fn simultaneous_lcp(ops: &ContactOperators, contacts: &[usize], v: &DVector<f64>) -> (Vec<f64>, Vec<f64>) {
    let (m, d) = (ops.m, ops.d);
    let k = contacts.len();
    let size = k * (2 + d);
    // Rows of J (and of the Delassus matrix) for the chosen contacts, in LCP order.
    let rows: Vec<usize> =
        contacts.iter().copied().chain(contacts.iter().flat_map(|&i| (0..d).map(move |j| m + i * d + j))).collect();
    let mut a = vec![0.0; size * size];
    for (r, &jr) in rows.iter().enumerate() {
        for (c, &jc) in rows.iter().enumerate() {
            a[r * size + c] = ops.delassus[(jr, jc)];
        }
    }
    for (local, &i) in contacts.iter().enumerate() {
        let gamma = k + k * d + local;
        a[gamma * size + local] = ops.friction[i];
        for j in 0..d {
            let lambda_d = k + local * d + j;
            a[lambda_d * size + gamma] = 1.0;
            a[gamma * size + lambda_d] = -1.0;
        }
    }
    let u = &ops.j * v;
    let mut b = vec![0.0; size];
    for (r, &jr) in rows.iter().enumerate() {
        b[r] = u[jr];
    }
    (a, b)
}

/// `v + M⁻¹ J_Cᵀ [λn; λD]` for the impulses of an LCP over `contacts`.
pub(crate) fn apply_impulse(ops: &ContactOperators, contacts: &[usize], z: &[f64], v: &DVector<f64>) -> DVector<f64> {
    let (m, d) = (ops.m, ops.d);
    let k = contacts.len();
    let mut out = v.clone();
    for (local, &i) in contacts.iter().enumerate() {
        out.axpy(z[local], &ops.minv_jt.column(i), 1.0);
        for j in 0..d {
            out.axpy(z[k + local * d + j], &ops.minv_jt.column(m + i * d + j), 1.0);
        }
    }
    out
}

/// Every distinct post-impact velocity of the simultaneous LCP (docs/model.md §2).
///
/// The LCP `w = A z + b ≥ 0 ⊥ z ≥ 0` with `z = [λn; λD; γ]` can have several
/// solutions; each is a legitimate prediction. Where the contacts can be
/// separated (`normal_impulse_bound`), every solution is a solution of one
/// Routh step whose caps no solution reaches, and the step's contact-mode
/// search finds them all ([`SolutionMethod::Enumerated`], or
/// [`SolutionMethod::Searched`] when it ran out of budget). Otherwise, or
/// when the search kept nothing, up to [`MAX_ENUMERATED_SIMULTANEOUS`]
/// unknowns every complementary index set is solved (`2^N` small systems),
/// and beyond, or when that kept nothing, the Lemke solution alone
/// ([`SolutionMethod::Lemke`]). Every candidate passes the acceptance check
/// (`accepted`) before it is listed; when no
/// method yields one, the method is [`SolutionMethod::Failed`] and
/// [`SimultaneousOutcomes::failure`] says why.
pub fn simultaneous(problem: &ImpactProblem) -> SimultaneousOutcomes {
    if problem.has_restitution() {
        return crate::sampling::simultaneous_with_restitution(problem);
    }
    let ops = problem.operators();
    let contacts: Vec<usize> = (0..ops.m).collect();
    let mut why: Vec<String> = Vec::new();
    let mut found: Option<(SolutionMethod, Vec<Vec<f64>>)> = None;
    if let Some(bound) = (ops.m <= MAX_SEARCH_CONTACTS).then(|| normal_impulse_bound(problem)).flatten() {
        let (method, candidates) = search(problem, bound);
        let kept = accepted(problem, candidates);
        if kept.is_empty() {
            why.push("the contact-mode search found no solution that passes the acceptance check".into());
        } else {
            found = Some((method, kept));
        }
    }
    let (a, b) = simultaneous_lcp(ops, &contacts, problem.velocity());
    if found.is_none() && b.len() <= MAX_ENUMERATED_SIMULTANEOUS {
        let kept = accepted(problem, enumerate_solutions(problem, &a, &b));
        if kept.is_empty() {
            why.push("no complementary index set gave a solution that passes the acceptance check".into());
        } else {
            found = Some((SolutionMethod::Enumerated, kept));
        }
    }
    if found.is_none() {
        match lemke_outcome(problem, &a, &b) {
            Ok(lambda) => found = Some((SolutionMethod::Lemke, vec![lambda])),
            Err(e) => why.push(e),
        }
    }
    let Some((method, impulses)) = found else {
        return SimultaneousOutcomes {
            method: SolutionMethod::Failed,
            outcomes: Vec::new(),
            impulses: Vec::new(),
            failure: Some(why.join("; ")),
        };
    };
    let count = impulses.len();
    let outcomes = impulses
        .iter()
        .enumerate()
        .map(|(k, lambda)| {
            let v = apply_impulse(ops, &contacts, lambda, problem.velocity());
            ImpactOutcome::new(problem, format!("simultaneous {}/{count}", k + 1), v)
        })
        .collect();
    SimultaneousOutcomes { method, outcomes, impulses, failure: None }
}

/// The candidates `λ = [λn; λD]` that pass the acceptance check
/// ([`solves_definition`], and no energy gained: `E(v⁺) ≤ (1 + 10⁻⁹) E(v⁻)`),
/// one per distinct `v⁺`: taken in order of their round-off
/// `ρ = K ε ‖|v⁻| + |M⁻¹Jᵀ| |λ|‖_M` (the smallest impulses first), a `v⁺`
/// within `10⁻⁹ ‖v⁻‖_M + ρ + ρ'` of a kept one is the same outcome. The
/// approach test of [`is_admissible`] is the definition's, with the
/// round-off of `Jn v⁺` allowed.
fn accepted(problem: &ImpactProblem, candidates: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
    let ops = problem.operators();
    let contacts: Vec<usize> = (0..ops.m).collect();
    let scale = problem.energy_norm(problem.velocity()).max(f64::MIN_POSITIVE);
    let energy = problem.kinetic_energy(problem.velocity());
    let terms = (ops.n + 1 + ops.m + ops.m * ops.d) as f64;
    let mut passed: Vec<(f64, DVector<f64>, Vec<f64>)> = candidates
        .into_iter()
        .filter(|lambda| solves_definition(problem, lambda))
        .map(|lambda| {
            let v = apply_impulse(ops, &contacts, &lambda, problem.velocity());
            let size = problem.velocity().abs() + ops.minv_jt.abs() * DVector::from_column_slice(&lambda).abs();
            (terms * f64::EPSILON * problem.energy_norm(&size), v, lambda)
        })
        .filter(|(_, v, _)| problem.kinetic_energy(v) <= (1.0 + OUTCOME_TOLERANCE) * energy)
        .collect();
    passed.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut kept: Vec<(f64, DVector<f64>, Vec<f64>)> = Vec::new();
    for (rho, v, lambda) in passed {
        if !kept.iter().any(|(r, k, _)| problem.energy_norm(&(k - &v)) <= 1e-9 * scale + rho + r) {
            kept.push((rho, v, lambda));
        }
    }
    kept.into_iter().map(|(_, _, lambda)| lambda).collect()
}

/// Every solution of the simultaneous LCP as the solutions of one Routh
/// step (docs/model.md §2): with every cap `h = 2Λ` above the bound `Λ` on
/// `Σ λn` ([`normal_impulse_bound`]), no step solution takes its cap, so
/// `σ = 0` and the step LCP is the simultaneous LCP; the contact-mode
/// enumerator (§5b) lists one solution per distinct `Δv`. Returns their
/// impulses `[λn; λD]` (for the acceptance check) and whether the search
/// was exhaustive ([`SolutionMethod::Enumerated`]) or ran out of budget
/// ([`SolutionMethod::Searched`]).
fn search(problem: &ImpactProblem, bound: f64) -> (SolutionMethod, Vec<Vec<f64>>) {
    let ops = problem.operators();
    let layout = ops.layout();
    let (m, size) = (ops.m, layout.size());
    let cap = 2.0 * bound;
    let u = &ops.j * problem.velocity();
    let mut b = vec![0.0; size];
    b[..m].fill(cap);
    b[m..size - m].copy_from_slice(u.as_slice());
    let mut enumerator = StepEnumerator::new(ops);
    let count = enumerator.enumerate(ops, &b);
    let impulses = (0..count)
        .map(|k| enumerator.solution(k)[layout.impulses()].to_vec())
        // A capped contact would contradict the bound: such a vertex is
        // round-off of a degenerate mode system, not a solution.
        .filter(|lambda| lambda.iter().take(m).all(|&l| l < 0.5 * cap))
        .collect();
    let method = if enumerator.exhaustive() { SolutionMethod::Enumerated } else { SolutionMethod::Searched };
    (method, impulses)
}

/// The Lemke solution `[λn; λD]` of the simultaneous LCP `(A, b)` that
/// passes the acceptance check: covering vector `1` first, then
/// [`LEMKE_RETRIES`] covering vectors with entries in `[1, 2)` from a fixed
/// stream (the same on every run), until a solve ends at one. On degenerate
/// LCPs (several coplanar contacts: `W` of rank 6 among 40 unknowns)
/// covering vector `1` can end off a solution where others do not.
/// Errors: why none did.
fn lemke_outcome(problem: &ImpactProblem, a: &[f64], b: &[f64]) -> Result<Vec<f64>, String> {
    use rand::{Rng, SeedableRng};
    let ops = problem.operators();
    let size = b.len();
    let impulses = ops.m + ops.m * ops.d;
    let mut ws = LemkeWorkspace::new(size);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    let mut last = String::new();
    for attempt in 0..=LEMKE_RETRIES {
        let cover: Option<Vec<f64>> = (attempt > 0).then(|| (0..size).map(|_| rng.random_range(1.0..2.0)).collect());
        match ws.solve_covered(a, b, cover.as_deref(), 0, &LemkeOptions::default()) {
            Ok(sol) if sol.within_tolerance => {
                let lambda = sol.z[..impulses].to_vec();
                if !accepted(problem, vec![lambda.clone()]).is_empty() {
                    return Ok(lambda);
                }
                last = "its solution fails the acceptance check".into();
            }
            Ok(sol) => last = format!("it ended off a solution (violation {:.1e})", sol.residual.violation()),
            Err(e) => last = e.to_string(),
        }
    }
    Err(format!(
        "no Lemke solve of the simultaneous LCP (size {size}) ended at a solution that passes the acceptance check \
         with covering vector 1 or {LEMKE_RETRIES} others; the last: {last}"
    ))
}

/// Relative tolerance of the simultaneous LCP's solutions (each row to
/// this share of its own terms, [`basic_solutions`]) and of the checks of
/// [`is_admissible`].
pub const OUTCOME_TOLERANCE: f64 = 1e-9;

/// The impulses `[λn; λD]` of every basic solution of `(A, b)`
/// ([`basic_solutions`]), each row held to
/// [`OUTCOME_TOLERANCE`] of its own terms and of its unit: the velocity
/// scale `s` for the `λn` and `λD` rows (contact velocities), the impulse
/// `s / max_r W_rr` ([`ContactOperators::largest_mobility`]) for the `γ`
/// rows (friction-cone impulses). Both are unchanged by the units of mass, so
/// the same outcomes are found in kilograms or grams.
fn enumerate_solutions(problem: &ImpactProblem, a: &[f64], b: &[f64]) -> Vec<Vec<f64>> {
    let ops = problem.operators();
    let velocity = problem.velocity_scale();
    let largest = ops.largest_mobility();
    let impulse = if largest > 0.0 { velocity / largest } else { velocity };
    let rows = b.len();
    let floor: Vec<f64> = (0..rows).map(|r| if r < rows - ops.m { velocity } else { impulse }).collect();
    let impulses = ops.m + ops.m * ops.d;
    basic_solutions(a, b, OUTCOME_TOLERANCE, &floor).into_iter().map(|z| z[..impulses].to_vec()).collect()
}

/// Whether `v⁺` is a possible outcome of an impact on `problem`: no contact
/// still approaching, `(Jn v⁺)_i ≥ −10⁻⁹ s` (`s` the velocity scale, which
/// does not change with the units of mass), and no kinetic energy gained,
/// `E(v⁺) ≤ (1 + 10⁻⁹) E(v⁻)` (docs/model.md §2). Every baseline outcome
/// that claims to have ended the impact passes this before it is returned.
pub fn is_admissible(problem: &ImpactProblem, v_plus: &DVector<f64>) -> bool {
    let approaching = -OUTCOME_TOLERANCE * problem.velocity_scale();
    let energy = problem.kinetic_energy(v_plus);
    problem.normal_velocities(v_plus).iter().all(|&u| u >= approaching)
        && energy <= (1.0 + OUTCOME_TOLERANCE) * problem.kinetic_energy(problem.velocity())
}
