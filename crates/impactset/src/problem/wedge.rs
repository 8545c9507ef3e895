//! Wedged contacts (docs/model.md §4b, "Wedged contacts"): a contact that no
//! velocity separates while every other contact stays closed or separates.
//!
//! Contact `i` can separate alone when some velocity `ξ` (within the
//! bilateral constraints) has `Jn ξ ≥ 0` and `(Jn ξ)_i > 0`. The least-norm
//! such `ξ` with `(Jn ξ)_i ≥ 1` solves the convex quadratic program
//! `min ½ ξᵀ M ξ  s.t.  Jn ξ ≥ e_i`, whose solution is `ξ = M̃⁻¹ Jnᵀ y` with
//! `y` a solution of the LCP `w = W_nn y − e_i ≥ 0 ⊥ y ≥ 0`. `W_nn` is
//! positive semidefinite, so Lemke's method finds `y` when the program is
//! feasible and ends on a ray when it is not; a `y` is kept only when
//! `W_nn y` checks out from the data. By Farkas' lemma no such `ξ` exists
//! exactly when `−Jn_i` is a non-negative combination of the other normal
//! rows: any push of contact `i` drives another contact into approach.

use crate::lcp::{LemkeOptions, LemkeWorkspace};

use super::ImpactProblem;

/// Relative slack of the check of `W_nn y ≥ e_i`: each row within this of
/// the size of its own terms (the round-off of a Lemke solve of a
/// well-posed program is far below it).
const CHECK: f64 = 1e-9;

/// The contacts with restitution (`e_i > 0`) that no velocity separates
/// without another contact approaching, in contact order.
pub(super) fn wedged_with_restitution(problem: &ImpactProblem) -> Vec<usize> {
    let ops = problem.operators();
    let m = ops.m;
    let elastic: Vec<usize> = (0..m).filter(|&i| problem.contacts()[i].restitution > 0.0).collect();
    if elastic.is_empty() {
        return Vec::new();
    }
    // `W_nn` over its largest diagonal entry (Lemke's tolerances have
    // absolute floors); `y` scales by the same factor, the test not at all.
    let scale = (0..m).map(|i| ops.delassus[(i, i)]).fold(0.0, f64::max);
    let w: Vec<f64> = (0..m * m).map(|k| ops.delassus[(k / m, k % m)] / scale).collect();
    let mut lemke = LemkeWorkspace::new(m);
    let mut q = vec![0.0; m];
    elastic
        .into_iter()
        .filter(|&i| {
            q.fill(0.0);
            q[i] = -1.0;
            match lemke.solve(&w, &q, &LemkeOptions::default()) {
                Ok(solution) => !separates(&w, solution.z, i),
                Err(_) => true,
            }
        })
        .collect()
}

/// Whether `y` has `W y ≥ e_i`, each row to [`CHECK`] of its terms.
fn separates(w: &[f64], y: &[f64], i: usize) -> bool {
    let m = y.len();
    (0..m).all(|r| {
        let row = &w[r * m..(r + 1) * m];
        let value: f64 = row.iter().zip(y).map(|(a, b)| a * b).sum();
        let size: f64 = row.iter().zip(y).map(|(a, b)| (a * b).abs()).sum();
        let target = if r == i { 1.0 } else { 0.0 };
        value >= target - CHECK * (size + target)
    })
}
