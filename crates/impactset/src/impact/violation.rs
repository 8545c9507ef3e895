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
