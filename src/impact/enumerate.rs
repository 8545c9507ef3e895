//! Every solution of a step LCP, by enumeration of complementary index sets.
//!
//! For each index set `α ⊆ {0..N}` the candidate is `z_α = −A_αα⁻¹ b_α`,
//! `z_ᾱ = 0`; it is a solution when `z ≥ 0` and `w = A z + b ≥ 0`. Solutions
//! are kept once per distinct velocity change `Δv = M⁻¹Jᵀλ`.
//!
//! Cost: `2^N` small linear solves, so only for tiny LCPs (`N ≤ 20`).

use nalgebra::{DMatrix, DVector};

use crate::problem::ContactOperators;

/// Largest LCP size enumerated.
pub const MAX_ENUMERATED: usize = 20;

/// Enumerates the solutions of step LCPs of one problem.
#[derive(Clone, Debug)]
pub struct StepEnumerator {
    size: usize,
    solutions: Vec<f64>,
    changes: Vec<DVector<f64>>,
}

impl StepEnumerator {
    /// An enumerator for the step LCPs of `ops`.
    pub fn new(ops: &ContactOperators) -> Self {
        StepEnumerator { size: ops.layout().size(), solutions: Vec::new(), changes: Vec::new() }
    }

    /// Finds every solution of `w = A_R z + b`, one per distinct velocity
    /// change, in a fixed order; returns how many.
    pub fn enumerate(&mut self, ops: &ContactOperators, b: &[f64]) -> usize {
        let n = self.size;
        assert!(n <= MAX_ENUMERATED, "step LCP of size {n} is too large to enumerate");
        self.solutions.clear();
        self.changes.clear();
        let a = DMatrix::from_row_slice(n, n, &ops.step_matrix);
        let scale = b.iter().fold(1.0f64, |s, x| s.max(x.abs()));
        let tol = 1e-10 * scale;
        let impulses = ops.layout().impulses();
        let mut z = vec![0.0; n];
        for mask in 0u32..(1 << n) {
            let basic: Vec<usize> = (0..n).filter(|j| mask & (1 << j) != 0).collect();
            z.iter_mut().for_each(|x| *x = 0.0);
            if !basic.is_empty() {
                let sub = DMatrix::from_fn(basic.len(), basic.len(), |r, c| a[(basic[r], basic[c])]);
                let rhs = DVector::from_fn(basic.len(), |r, _| -b[basic[r]]);
                let Some(x) = sub.lu().solve(&rhs) else { continue };
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
            let close = |other: &DVector<f64>| (other - &dv).amax() <= 1e-9 * (1.0 + dv.amax());
            if self.changes.iter().any(close) {
                continue;
            }
            self.changes.push(dv);
            self.solutions.extend(z.iter().map(|x| x.max(0.0)));
        }
        self.changes.len()
    }

    /// Solution `k` of the last enumeration (`N` entries).
    pub fn solution(&self, k: usize) -> &[f64] {
        &self.solutions[k * self.size..(k + 1) * self.size]
    }
}
