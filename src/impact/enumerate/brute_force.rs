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

use nalgebra::{DMatrix, DVector};

use crate::problem::ContactOperators;

/// Largest LCP size enumerated.
pub(crate) const MAX_ENUMERATED: usize = 20;

/// Every basic solution `(z, Δv)` of `w = A_R z + b`, one per distinct `Δv`
/// (relative tolerance `10⁻⁹`), in index-set order.
pub(crate) fn solutions(ops: &ContactOperators, b: &[f64]) -> Vec<(Vec<f64>, DVector<f64>)> {
    let n = ops.layout().size();
    assert!(n <= MAX_ENUMERATED, "step LCP of size {n} is too large to enumerate");
    let a = DMatrix::from_row_slice(n, n, &ops.step_matrix);
    let scale = b.iter().fold(f64::MIN_POSITIVE, |s, x| s.max(x.abs()));
    let tol = 1e-10 * scale;
    let impulses = ops.layout().impulses();
    let mut out: Vec<(Vec<f64>, DVector<f64>)> = Vec::new();
    let mut z = vec![0.0; n];
    for mask in 0u32..(1 << n) {
        let basic: Vec<usize> = (0..n).filter(|j| mask & (1 << j) != 0).collect();
        z.iter_mut().for_each(|x| *x = 0.0);
        if !basic.is_empty() {
            let sub = DMatrix::from_fn(basic.len(), basic.len(), |r, c| a[(basic[r], basic[c])]);
            let rhs = DVector::from_fn(basic.len(), |r, _| -b[basic[r]]);
            let Some(x) = sub.lu().solve(&rhs) else { continue };
            if x.iter().any(|v| !v.is_finite()) {
                continue;
            }
            for (k, &j) in basic.iter().enumerate() {
                z[j] = x[k];
            }
        }
        let feasible = (0..n).all(|i| {
            let wi = b[i] + (0..n).map(|j| a[(i, j)] * z[j]).sum::<f64>();
            z[i] >= -tol && wi >= -tol
        });
        if !feasible {
            continue;
        }
        let lambda = DVector::from_iterator(impulses.len(), z[impulses.clone()].iter().copied());
        let dv = &ops.minv_jt * lambda;
        let close = |(_, other): &(Vec<f64>, DVector<f64>)| {
            (other - &dv).amax() <= 1e-9 * other.amax().max(dv.amax()).max(scale * 1e-3)
        };
        if out.iter().any(close) {
            continue;
        }
        out.push((z.iter().map(|x| x.max(0.0)).collect(), dv));
    }
    out
}
