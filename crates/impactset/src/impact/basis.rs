//! A step LCP's solution continued on its support (docs/model.md §4b, "How
//! much to push"): where the right-hand side `b_R` moves and the solution's
//! support `S = {k : z_k > 0}` stays, the solution moves with it as
//! `z_S = −A_SS⁻¹ b_S`, `z = 0` off `S` (`S`: the basic `z` of a Lemke
//! solution, whose `A_SS` is regular, or the positive `z` of another). The step with restitution uses it
//! twice: for the response of the normal impulses to the prescribed ones,
//! and to take the step at corrected prescribed impulses without solving
//! the LCP again where the support is still a solution there.

/// The support of one step-LCP solution and `A_R`'s LU factors on it
/// (partial pivoting), reused across steps.
#[derive(Clone, Debug, Default)]
pub struct StepBasis {
    /// `S`, in increasing order.
    support: Vec<usize>,
    /// `L` and `U` of `P A_SS`, row-major, `|S| × |S|`.
    lu: Vec<f64>,
    /// Row `r` of `P A_SS` is row `pivots[r]` of `A_SS`.
    pivots: Vec<usize>,
    /// Scratch: the right-hand side on `S`.
    rhs: Vec<f64>,
}

/// A pivot below this fraction of its matrix's largest entry is taken as
/// zero: the support's `A_SS` is singular (the continuation is then not
/// taken), or a coupled correction's Jacobian is.
pub(crate) const SINGULAR: f64 = 1e-12;

impl StepBasis {
    /// Factors `A_SS` for the support `S = {k : support[k]}` (`a`: `A_R`,
    /// row-major, `size × size`). Returns whether `A_SS` is regular.
    pub fn factor(&mut self, a: &[f64], size: usize, support: &[bool]) -> bool {
        let (n, largest) = self.gather(a, size, support);
        self.pivots.clear();
        self.pivots.extend(0..n);
        lu_in_place(&mut self.lu, n, &mut self.pivots, SINGULAR * largest)
    }

    /// `S` and `A_SS` (row-major, into `lu`); returns `|S|` and `A_SS`'s
    /// largest entry in magnitude.
    fn gather(&mut self, a: &[f64], size: usize, support: &[bool]) -> (usize, f64) {
        self.support.clear();
        self.support.extend((0..size).filter(|&k| support[k]));
        self.lu.clear();
        for &r in &self.support {
            self.lu.extend(self.support.iter().map(|&c| a[r * size + c]));
        }
        (self.support.len(), self.lu.iter().fold(0.0f64, |s, x| s.max(x.abs())))
    }

    /// Completes a support whose `A_SS` is singular with degenerate
    /// indices (`z_k = 0 = w_k`, which a complementary basis may hold either
    /// way): each in turn is added where it lowers `|S| − rank A_SS`, until
    /// that is 0 or none is left. An enumerated solution's positive `z`
    /// alone can miss what its basis needs: two corners of a box on the
    /// floor have the same tangent row, and the friction of the one sliding
    /// at the cone's limit needs its `γ` (at 0) in the support.
    pub fn complete(&mut self, a: &[f64], size: usize, support: &mut [bool], degenerate: &[bool]) {
        let mut deficit = self.deficit(a, size, support);
        for k in 0..size {
            if deficit == 0 {
                break;
            }
            if degenerate[k] && !support[k] {
                support[k] = true;
                let d = self.deficit(a, size, support);
                if d < deficit {
                    deficit = d;
                } else {
                    support[k] = false;
                }
            }
        }
    }

    /// `|S| − rank A_SS` (Gaussian elimination with full pivoting, a pivot
    /// at most [`SINGULAR`] of the largest entry taken as zero).
    fn deficit(&mut self, a: &[f64], size: usize, support: &[bool]) -> usize {
        let (n, largest) = self.gather(a, size, support);
        let lu = &mut self.lu;
        let floor = SINGULAR * largest;
        let mut rank = 0;
        while rank < n {
            let (mut best, mut at) = (0.0, (rank, rank));
            for r in rank..n {
                for c in rank..n {
                    if lu[r * n + c].abs() > best {
                        (best, at) = (lu[r * n + c].abs(), (r, c));
                    }
                }
            }
            if best <= floor {
                break;
            }
            for c in 0..n {
                lu.swap(rank * n + c, at.0 * n + c);
            }
            for r in 0..n {
                lu.swap(r * n + rank, r * n + at.1);
            }
            let p = lu[rank * n + rank];
            for r in rank + 1..n {
                let f = lu[r * n + rank] / p;
                for c in rank..n {
                    lu[r * n + c] -= f * lu[rank * n + c];
                }
            }
            rank += 1;
        }
        n - rank
    }

    /// `z` with `z_S = −A_SS⁻¹ b_S` and zero off `S`, for the right-hand
    /// side `b` (`size`) of the last [`factor`](Self::factor).
    pub fn solve(&mut self, b: &[f64], z: &mut [f64]) {
        let n = self.support.len();
        self.rhs.clear();
        self.rhs.extend(self.pivots.iter().map(|&r| -b[self.support[r]]));
        lu_solve(&self.lu, n, &mut self.rhs);
        z.fill(0.0);
        for (&k, &x) in self.support.iter().zip(&self.rhs) {
            z[k] = x;
        }
    }
}

/// Gaussian elimination with partial pivoting of the `n × n` row-major
/// matrix `a` into its `L` (unit lower, below the diagonal) and `U` factors;
/// `pivots` (`0..n` on entry) records the row order. Returns `false` when a
/// pivot is at most `singular` in magnitude.
pub(crate) fn lu_in_place(a: &mut [f64], n: usize, pivots: &mut [usize], singular: f64) -> bool {
    for k in 0..n {
        let (mut best, mut at) = (a[k * n + k].abs(), k);
        for r in k + 1..n {
            if a[r * n + k].abs() > best {
                (best, at) = (a[r * n + k].abs(), r);
            }
        }
        if best.is_nan() || best <= singular {
            return false;
        }
        if at != k {
            for c in 0..n {
                a.swap(k * n + c, at * n + c);
            }
            pivots.swap(k, at);
        }
        let p = a[k * n + k];
        for r in k + 1..n {
            let f = a[r * n + k] / p;
            a[r * n + k] = f;
            if f != 0.0 {
                for c in k + 1..n {
                    a[r * n + c] -= f * a[k * n + c];
                }
            }
        }
    }
    true
}

/// Solves `L U x = y` in place (`y` already in the pivots' row order).
pub(crate) fn lu_solve(lu: &[f64], n: usize, y: &mut [f64]) {
    for r in 0..n {
        let s: f64 = (0..r).map(|c| lu[r * n + c] * y[c]).sum();
        y[r] -= s;
    }
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|c| lu[r * n + c] * y[c]).sum();
        y[r] = (y[r] - s) / lu[r * n + r];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn the_factors_solve_the_system_they_were_made_of() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for n in 1..9 {
            let a: Vec<f64> = (0..n * n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let x: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let y: Vec<f64> = (0..n).map(|r| (0..n).map(|c| a[r * n + c] * x[c]).sum()).collect();
            let mut lu = a.clone();
            let mut pivots: Vec<usize> = (0..n).collect();
            assert!(lu_in_place(&mut lu, n, &mut pivots, 1e-14));
            let mut solved: Vec<f64> = pivots.iter().map(|&r| y[r]).collect();
            lu_solve(&lu, n, &mut solved);
            for (s, x) in solved.iter().zip(&x) {
                assert!((s - x).abs() < 1e-9, "n = {n}: {s} against {x}");
            }
        }
        // A singular matrix is reported, not divided by.
        let mut singular = vec![1.0, 2.0, 2.0, 4.0];
        assert!(!lu_in_place(&mut singular, 2, &mut [0, 1], 1e-12));
    }

    #[test]
    fn a_singular_support_is_completed_by_the_degenerate_index_it_needs() {
        // Unknowns 0 and 1 share a row and a column (two corners' identical
        // tangent rows); index 3 (say the sliding corner's γ, at 0) couples
        // to 1 alone and makes the support regular; index 2 (a zero row and
        // column), tried first, would not, and stays out.
        let a = [
            1.0, 1.0, 0.0, 0.0, //
            1.0, 1.0, 0.0, 1.0, //
            0.0, 0.0, 0.0, 0.0, //
            0.0, -1.0, 0.0, 0.0,
        ];
        let mut basis = StepBasis::default();
        let mut support = [true, true, false, false];
        assert!(!basis.factor(&a, 4, &support));
        basis.complete(&a, 4, &mut support, &[false, false, true, true]);
        assert_eq!(support, [true, true, false, true]);
        assert!(basis.factor(&a, 4, &support));
    }

    #[test]
    fn the_solution_on_a_support_solves_the_lcp_there() {
        // w = A z + b with A = [[2, 1], [1, 2]], b = (−2, 1): the solution
        // z = (1, 0), w = (0, 2); moving b to (−4, 1) keeps the support and
        // gives z = (2, 0), w = (0, 3), as A's first column says.
        let a = [2.0, 1.0, 1.0, 2.0];
        let mut basis = StepBasis::default();
        assert!(basis.factor(&a, 2, &[true, false]));
        let mut z = [0.0; 2];
        basis.solve(&[-4.0, 1.0], &mut z);
        assert_eq!(z, [2.0, 0.0]);
        let w1 = a[2] * z[0] + a[3] * z[1] + 1.0;
        assert_eq!(w1, 3.0);
    }
}
