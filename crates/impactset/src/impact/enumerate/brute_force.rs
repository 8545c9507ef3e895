//! The test oracle: every solution of a step LCP by enumeration of
//! complementary index sets.
//!
//! For each index set `α ⊆ {0..N}` the candidate is `z_α = −A_αα⁻¹ b_α`,
//! `z_ᾱ = 0`; it is a solution when `z ≥ 0` and `w = A z + b ≥ 0`. Solutions
//! are kept once per distinct velocity change `Δv = M⁻¹Jᵀλ`.
//!
//! Cost: `2^N` small linear solves (nalgebra LU), so only for tiny LCPs
//! (`N ≤ 20`). This is the former `Selection::All` implementation, kept as the
//! independent reference the mode enumerator is tested against.

use nalgebra::DVector;

use crate::lcp::basic_solutions;
use crate::problem::ContactOperators;

/// Largest LCP size enumerated.
pub(crate) const MAX_ENUMERATED: usize = 20;

/// Every basic solution `(z, Δv)` of `w = A_R z + b`, one per distinct `Δv`
/// (relative tolerance `10⁻⁹`), in index-set order.
pub(crate) fn solutions(ops: &ContactOperators, b: &[f64]) -> Vec<(Vec<f64>, DVector<f64>)> {
    let n = ops.layout().size();
    assert!(n <= MAX_ENUMERATED, "step LCP of size {n} is too large to enumerate");
    let scale = b.iter().fold(f64::MIN_POSITIVE, |s, x| s.max(x.abs()));
    let impulses = ops.layout().impulses();
    let mut out: Vec<(Vec<f64>, DVector<f64>)> = Vec::new();
    for z in basic_solutions(&ops.step_matrix, b, 1e-10, &vec![scale; n]) {
        let lambda = DVector::from_iterator(impulses.len(), z[impulses.clone()].iter().copied());
        let dv = &ops.minv_jt * lambda;
        let close = |(_, other): &(Vec<f64>, DVector<f64>)| {
            (other - &dv).amax() <= 1e-9 * other.amax().max(dv.amax()).max(scale * 1e-3)
        };
        if out.iter().any(close) {
            continue;
        }
        out.push((z, dv));
    }
    out
}
