//! Every basic solution of a small LCP, by enumeration of complementary
//! index sets.

use nalgebra::{DMatrix, DVector};

/// Every solution of `w = A z + q ≥ 0, z ≥ 0, zᵀw = 0` whose basis is a
/// nonsingular complementary index set, in index-set order (bit `j` of the
/// set's number says `z_j` is basic), with repeats.
///
/// For each `α ⊆ {0..N}` the candidate is `z_α = −A_αα⁻¹ q_α`, `z_ᾱ = 0`
/// (so `w_α = 0` and complementarity holds by construction); it is kept when
/// `z ≥ −tol` and `w ≥ −tol`, with `z` clamped at 0. Every vertex of the
/// solution set is found; a segment of solutions appears through its
/// endpoints. Cost: `2^N` small LU solves, so for `N ≤ 20` or so.
///
/// ```
/// use impactset::lcp::basic_solutions;
///
/// // w₁ = z₂ − 1, w₂ = z₁ − 1 (A = [[0, 1], [1, 0]], q = (−1, −1)) has the
/// // single solution z = (1, 1).
/// let z = basic_solutions(&[0.0, 1.0, 1.0, 0.0], &[-1.0, -1.0], 1e-12);
/// assert_eq!(z, vec![vec![1.0, 1.0]]);
/// ```
pub fn basic_solutions(a: &[f64], q: &[f64], tol: f64) -> Vec<Vec<f64>> {
    let n = q.len();
    assert!(n < 64, "an LCP of size {n} has too many index sets to enumerate");
    let mut found = Vec::new();
    let mut basic = Vec::with_capacity(n);
    let mut z = vec![0.0; n];
    for mask in 0u64..(1u64 << n) {
        basic.clear();
        basic.extend((0..n).filter(|j| mask & (1 << j) != 0));
        z.iter_mut().for_each(|x| *x = 0.0);
        if !basic.is_empty() {
            let sub = DMatrix::from_fn(basic.len(), basic.len(), |r, c| a[basic[r] * n + basic[c]]);
            let rhs = DVector::from_fn(basic.len(), |r, _| -q[basic[r]]);
            let Some(x) = sub.lu().solve(&rhs) else { continue };
            if x.iter().any(|v| !v.is_finite()) {
                continue;
            }
            for (k, &j) in basic.iter().enumerate() {
                z[j] = x[k];
            }
        }
        let feasible = (0..n).all(|i| {
            let wi = q[i] + (0..n).map(|j| a[i * n + j] * z[j]).sum::<f64>();
            z[i] >= -tol && wi >= -tol
        });
        if feasible {
            found.push(z.iter().map(|x| x.max(0.0)).collect());
        }
    }
    found
}
