//! How far a candidate solution of a step LCP is from solving it, in the
//! step's own units (docs/model.md §4, §10): the one measure by which `all`
//! judges an enumerated solution, the sampler a step and the GPU its
//! `step_residual`.

use crate::lcp::{LcpMatrix, LcpResidual};
use crate::problem::operators::StepLayout;

/// The units the step LCP's unknowns are measured in: residuals are judged
/// relative to them (docs/model.md §4: `σ`, `γ` and `w_λ` are velocities; `λn`,
/// `λD` and `w_σ`, `w_γ` are impulses).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepScales {
    /// Velocity scale: the problem's [`velocity_scale`](crate::ImpactProblem::velocity_scale).
    pub velocity: f64,
    /// Impulse scale: the step size `h`.
    pub impulse: f64,
}

/// Solutions of the `all` enumeration whose step violation exceeds this are
/// dropped before the pick: true solutions sit at round-off (≈1e-15), while a
/// mode system solved near a degenerate boundary can pass the enumerator's
/// own checks with violations of 1e-7.
pub const ENUMERATED_VIOLATION: f64 = 1e-10;

/// The violation of a step-LCP candidate `z` with `w = A_R z + b_R`, in the
/// problem's units: `max(0, −z_i/[z_i], −w_i/[w_i], |z_i w_i|/(V·I))` where
/// `[·]` is `V` for velocities (`σ`, `γ`, `w_n`, `w_D`) and `I` for impulses
/// (`λn`, `λD`, `w_σ`, `w_γ`). Every product `z_i w_i` is an impulse times a
/// velocity. The GPU's `step_residual` computes the same.
pub fn step_violation(layout: StepLayout, z: &[f64], w: &[f64], scales: StepScales) -> f64 {
    let (velocity, impulse) = (scales.velocity, scales.impulse);
    let size = layout.size();
    let m = layout.m;
    let product = velocity * impulse;
    // The rows in order, block by block: `σ` (velocities), `λn` and `λD`
    // (impulses), `γ` (velocities).
    let block = |violation: f64, rows: std::ops::Range<usize>, zu: f64, wu: f64| {
        z[rows.clone()]
            .iter()
            .zip(&w[rows])
            .fold(violation, |v, (&zi, &wi)| v.max(-zi / zu).max(-wi / wu).max((zi * wi).abs() / product))
    };
    let violation = block(0.0, 0..m, velocity, impulse);
    let violation = block(violation, m..size - m, impulse, velocity);
    block(violation, size - m..size, velocity, impulse)
}

/// [`step_violation`] of `z` as a solution of the step LCP
/// `w = A_R z + b` (`w` written), as `all` judges an enumerated solution.
pub(crate) fn solution_violation(
    a_r: &LcpMatrix,
    b: &[f64],
    z: &[f64],
    w: &mut [f64],
    layout: StepLayout,
    scales: StepScales,
) -> f64 {
    LcpResidual::compute_transposed(a_r.column_major(), b, z, w);
    step_violation(layout, z, w, scales)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The violation row by row, straight from its definition.
    fn violation_by_rows(layout: StepLayout, z: &[f64], w: &[f64], scales: StepScales) -> f64 {
        let (size, m) = (layout.size(), layout.m);
        let mut violation: f64 = 0.0;
        for i in 0..size {
            let velocity_unknown = i < m || i >= size - m;
            let (zu, wu) =
                if velocity_unknown { (scales.velocity, scales.impulse) } else { (scales.impulse, scales.velocity) };
            violation =
                violation.max(-z[i] / zu).max(-w[i] / wu).max((z[i] * w[i]).abs() / (scales.velocity * scales.impulse));
        }
        violation
    }

    #[test]
    fn step_violation_weighs_each_block_in_its_units() {
        let layout = StepLayout { m: 2, d: 2 };
        let scales = StepScales { velocity: 4.0, impulse: 0.5 };
        let mut z = vec![0.0; layout.size()];
        let mut w = vec![0.0; layout.size()];
        // A negative normal impulse is measured in impulses, a negative slip
        // rate in velocities, a complementarity product in both.
        z[2] = -0.25;
        assert_eq!(step_violation(layout, &z, &w, scales), 0.5);
        z[2] = 0.0;
        z[9] = -2.0;
        assert_eq!(step_violation(layout, &z, &w, scales), 0.5);
        z[9] = 0.0;
        w[0] = -0.125;
        assert_eq!(step_violation(layout, &z, &w, scales), 0.25);
        w[0] = 0.0;
        (z[4], w[4]) = (1.0, 3.0);
        assert_eq!(step_violation(layout, &z, &w, scales), 1.5);
    }

    #[test]
    fn step_violation_is_the_row_by_row_definition_bit_for_bit() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for (m, d) in [(1, 2), (2, 2), (5, 2), (2, 8), (4, 8)] {
            let layout = StepLayout { m, d };
            for _ in 0..200 {
                let scales = StepScales { velocity: rng.random_range(0.1..10.0), impulse: rng.random_range(0.01..1.0) };
                let mut draw = || match rng.random_range(0..4) {
                    0 => 0.0,
                    1 => -0.0,
                    _ => rng.random_range(-1e-12..1.0),
                };
                let z: Vec<f64> = (0..layout.size()).map(|_| draw()).collect();
                let w: Vec<f64> = (0..layout.size()).map(|_| draw()).collect();
                let (fast, reference) =
                    (step_violation(layout, &z, &w, scales), violation_by_rows(layout, &z, &w, scales));
                assert_eq!(fast.to_bits(), reference.to_bits(), "m = {m}, d = {d}");
            }
        }
    }
}
