//! Every basic solution of a small LCP, by enumeration of complementary
//! index sets.

use nalgebra::{DMatrix, DVector};

/// Every solution of `w = A z + q ≥ 0, z ≥ 0, zᵀw = 0` whose basis is a
/// nonsingular complementary index set, in index-set order (bit `j` of the
/// set's number says `z_j` is basic), with repeats.
///
/// For each `α ⊆ {0..N}` the candidate is `z_α = −A_αα⁻¹ q_α`, `z_ᾱ = 0`,
/// with `z` clamped at 0. It is kept when, with `w = A z + q` recomputed
/// from the clamped `z`, every row holds to `rel_tol` of the size of its
/// own terms `r_i = |q_i| + Σ_j |A_ij| z_j` plus the row's `floor_i` (a
/// size in the row's own unit below which a value counts as 0):
///
/// ```text
/// w_i ≥ −rel_tol · (r_i + floor_i)  for every i,
/// |w_i| ≤ rel_tol · (r_i + floor_i)  where z_i > 0
/// ```
///
/// The `r_i` term is the componentwise backward error of the solve, so with
/// floors in the rows' units the test does not depend on units: scaling a
/// row of `A`, `q` and its floor, or a column of `A` and its unknown, keeps
/// the same candidates (one absolute tolerance would accept a clamped
/// `z_j = −10⁻⁷` whose column is `10⁶`, so a `w` that is off by `0.1`).
/// Every vertex of the solution set is found; a segment of solutions
/// appears through its endpoints. Cost: `2^N` small LU solves, so for
/// `N ≤ 20` or so.
///
/// ```
/// use impactset::lcp::basic_solutions;
///
/// // w₁ = z₂ − 1, w₂ = z₁ − 1 (A = [[0, 1], [1, 0]], q = (−1, −1)) has the
/// // single solution z = (1, 1).
/// let z = basic_solutions(&[0.0, 1.0, 1.0, 0.0], &[-1.0, -1.0], 1e-12, &[1.0, 1.0]);
/// assert_eq!(z, vec![vec![1.0, 1.0]]);
/// ```
pub fn basic_solutions(a: &[f64], q: &[f64], rel_tol: f64, floor: &[f64]) -> Vec<Vec<f64>> {
    let n = q.len();
    assert_eq!(floor.len(), n, "one floor per row");
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
                z[j] = x[k].max(0.0);
            }
        }
        if holds(a, q, &z, rel_tol, floor) {
            found.push(z.clone());
        }
    }
    found
}

/// Whether `z ≥ 0` solves the LCP to `rel_tol` of each row's terms
/// ([`basic_solutions`]).
fn holds(a: &[f64], q: &[f64], z: &[f64], rel_tol: f64, floor: &[f64]) -> bool {
    let n = q.len();
    (0..n).all(|i| {
        let row = &a[i * n..(i + 1) * n];
        let (w, size) = row
            .iter()
            .zip(z)
            .fold((q[i], q[i].abs()), |(w, size), (&aij, &zj)| (w + aij * zj, size + (aij * zj).abs()));
        let tol = rel_tol * (size + floor[i]);
        w >= -tol && (z[i] == 0.0 || w.abs() <= tol)
    })
}
