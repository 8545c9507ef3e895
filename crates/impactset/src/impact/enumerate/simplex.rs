//! The enumerator's one dense simplex tableau, pivoted by Bland's rule (the
//! first improving column; among the rows of least ratio, the one whose
//! basic variable has the least index), which keeps it from cycling.
//!
//! Two programs run on it, both small (a few dozen rows and columns):
//! a search node's joint test of its inequalities (phase one alone,
//! `search/node_lp.rs`) and the combined rows and representatives of
//! friction's linear form ([`minimize`], two phases,
//! `certificates/linear_form/`). Each states its own threshold of zero and
//! its own pivot limit.

/// A tableau: `rows` constraint rows, then the objective row (reduced costs
/// and, in the last column, minus the objective's value); `width` columns
/// each, the right-hand side last. `basis[r]` is row `r`'s basic column.
#[derive(Clone, Debug, Default)]
pub(super) struct Simplex {
    pub tab: Vec<f64>,
    pub basis: Vec<usize>,
    rows: usize,
    width: usize,
}

impl Simplex {
    /// Starts a tableau of `rows` constraint rows (and the objective row)
    /// and `width` columns, every entry zero and no basis.
    pub fn reset(&mut self, rows: usize, width: usize) {
        self.tab.clear();
        self.tab.resize((rows + 1) * width, 0.0);
        self.basis.clear();
        (self.rows, self.width) = (rows, width);
    }

    /// Constraint row `r` (`r = rows`: the objective row).
    pub fn row_mut(&mut self, r: usize) -> &mut [f64] {
        &mut self.tab[r * self.width..(r + 1) * self.width]
    }

    /// Constraint row `r` and the objective row.
    pub fn row_and_objective(&mut self, r: usize) -> (&mut [f64], &mut [f64]) {
        let (above, objective) = self.tab.split_at_mut(self.rows * self.width);
        (&mut above[r * self.width..(r + 1) * self.width], objective)
    }

    /// The objective row.
    pub fn objective(&self) -> &[f64] {
        &self.tab[self.rows * self.width..]
    }

    /// The right-hand side of row `r`.
    pub fn rhs(&self, r: usize) -> f64 {
        self.tab[r * self.width + self.width - 1]
    }

    /// Bland's entering column: the first of `0..eligible` whose reduced
    /// cost is below `−tiny`; `None` at an optimum.
    pub fn entering(&self, eligible: usize, tiny: f64) -> Option<usize> {
        let obj = self.objective();
        (0..eligible).find(|&c| obj[c] < -tiny)
    }

    /// Bland's leaving row for column `enter`: the least ratio over the rows
    /// whose pivot exceeds `tiny`, ties to the least basic index; `None`
    /// where no row bounds the column.
    pub fn leaving(&self, enter: usize, tiny: f64) -> Option<usize> {
        let (width, rhs) = (self.width, self.width - 1);
        let mut leave: Option<(usize, f64)> = None;
        for r in 0..self.rows {
            let p = self.tab[r * width + enter];
            if p > tiny {
                let ratio = self.tab[r * width + rhs] / p;
                let better = match leave {
                    None => true,
                    Some((l, best)) => ratio < best || (ratio == best && self.basis[r] < self.basis[l]),
                };
                if better {
                    leave = Some((r, ratio));
                }
            }
        }
        leave.map(|(r, _)| r)
    }

    /// Makes column `c` basic in row `r`. Compiled for AVX2 where the
    /// processor has it (the same operations, so the same bits: no fused
    /// multiply-add).
    pub fn pivot(&mut self, r: usize, c: usize) {
        #[cfg(target_arch = "x86_64")]
        if crate::lcp::avx2() {
            // SAFETY: the processor has AVX2.
            return unsafe { self.pivot_avx2(r, c) };
        }
        self.pivot_body(r, c)
    }

    /// [`Simplex::pivot`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn pivot_avx2(&mut self, r: usize, c: usize) {
        self.pivot_body(r, c)
    }

    #[inline(always)]
    fn pivot_body(&mut self, r: usize, c: usize) {
        let width = self.width;
        let p = self.tab[r * width + c];
        let (before, rest) = self.tab.split_at_mut(r * width);
        let (row, after) = rest.split_at_mut(width);
        row.iter_mut().for_each(|v| *v /= p);
        // The rows after `r` end with the objective row.
        for other in before.chunks_exact_mut(width).chain(after.chunks_exact_mut(width)) {
            let f = other[c];
            if f != 0.0 {
                other.iter_mut().zip(row.iter()).for_each(|(o, &v)| *o -= f * v);
            }
        }
        self.basis[r] = c;
    }
}

/// Pivots at most this many times in all in [`minimize`] (a few equations:
/// far more than either phase takes).
const MINIMIZE_PIVOTS: usize = 500;

/// A reduced cost, a ratio's pivot or a phase-one residual at most this
/// (relative to the problem's entries) counts as zero in [`minimize`].
const MINIMIZE_TINY: f64 = 1e-11;

/// `y ≥ 0` with `A y = b` (`a`: `rows × cols`, row-major) minimizing `cᵀy`,
/// or `None` where phase one finds no feasible point (within
/// [`MINIMIZE_TINY`] of the largest `|b|`) or the pivots run out. An
/// unbounded objective returns the feasible vertex reached.
///
/// Only feasibility matters to friction's linear form: any `y ≥ 0` gives a
/// valid row, and its caller measures what `A y` misses of `b` itself. The
/// optimum only makes the row tight.
pub(super) fn minimize(a: &[f64], rows: usize, cols: usize, b: &[f64], c: &[f64]) -> Option<Vec<f64>> {
    debug_assert_eq!(a.len(), rows * cols);
    // Columns: the unknowns, one artificial per row, the right-hand side.
    let width = cols + rows + 1;
    let mut lp = Simplex::default();
    lp.reset(rows, width);
    let scale = a.iter().chain(b).fold(0.0f64, |m, x| m.max(x.abs())).max(f64::MIN_POSITIVE);
    let tiny = MINIMIZE_TINY * scale;
    for r in 0..rows {
        let sign = if b[r] < 0.0 { -1.0 } else { 1.0 };
        let row = lp.row_mut(r);
        for j in 0..cols {
            row[j] = sign * a[r * cols + j];
        }
        row[cols + r] = 1.0;
        row[width - 1] = sign * b[r];
    }
    lp.basis.extend(cols..cols + rows);
    // Phase one: minimize the artificials' sum (objective row = −Σ rows).
    for r in 0..rows {
        let (row, obj) = lp.row_and_objective(r);
        for j in 0..width {
            if !(cols..cols + rows).contains(&j) {
                obj[j] -= row[j];
            }
        }
    }
    let mut pivots = 0;
    if !run(&mut lp, cols + rows, tiny, &mut pivots) {
        return None;
    }
    if -lp.objective()[width - 1] > tiny {
        return None;
    }
    // Artificials left in the basis at zero: pivot them out where a column
    // of the unknowns can take their place (else the row is redundant).
    for r in 0..rows {
        if lp.basis[r] >= cols {
            if let Some(j) = (0..cols).find(|&j| lp.tab[r * width + j].abs() > tiny) {
                lp.pivot(r, j);
            }
        }
    }
    // Phase two: the objective row from `c`, reduced by the basis.
    let obj = lp.row_mut(rows);
    obj.fill(0.0);
    obj[..cols].copy_from_slice(&c[..cols]);
    for r in 0..rows {
        let k = lp.basis[r];
        if k < cols && c[k] != 0.0 {
            let f = c[k];
            let (row, obj) = lp.row_and_objective(r);
            for j in 0..width {
                obj[j] -= f * row[j];
            }
        }
    }
    // Artificials never re-enter (`cols` columns eligible).
    run(&mut lp, cols, tiny, &mut pivots);
    let mut y = vec![0.0; cols];
    for r in 0..rows {
        if lp.basis[r] < cols {
            y[lp.basis[r]] = lp.rhs(r).max(0.0);
        }
    }
    Some(y)
}

/// Pivots by Bland's rule among the first `eligible` columns until no
/// reduced cost is negative (`true`), the objective is unbounded (`true`:
/// the vertex stays) or the pivots run out (`false`).
fn run(lp: &mut Simplex, eligible: usize, tiny: f64, pivots: &mut usize) -> bool {
    loop {
        let Some(enter) = lp.entering(eligible, tiny) else {
            return true;
        };
        let Some(r) = lp.leaving(enter, tiny) else {
            return true;
        };
        *pivots += 1;
        if *pivots > MINIMIZE_PIVOTS {
            return false;
        }
        lp.pivot(r, enter);
    }
}

#[cfg(test)]
mod tests {
    use super::minimize;

    #[test]
    fn finds_the_least_cost_combination() {
        // y₀ + y₁ + y₂ = 1, y₀ − y₁ = 0: the cheapest is y₂ = 1 when it
        // costs less than y₀ = y₁ = ½.
        let a = [1.0, 1.0, 1.0, 1.0, -1.0, 0.0];
        let y = minimize(&a, 2, 3, &[1.0, 0.0], &[1.0, 1.0, 0.5]).expect("feasible");
        assert!((y[2] - 1.0).abs() < 1e-14 && y[0].abs() < 1e-14 && y[1].abs() < 1e-14);
        let y = minimize(&a, 2, 3, &[1.0, 0.0], &[1.0, 1.0, 3.0]).expect("feasible");
        assert!((y[0] - 0.5).abs() < 1e-14 && (y[1] - 0.5).abs() < 1e-14 && y[2].abs() < 1e-14);
    }

    #[test]
    fn says_when_no_nonnegative_combination_exists() {
        // y₀ + y₁ = −1 has no solution with y ≥ 0.
        assert!(minimize(&[1.0, 1.0], 1, 2, &[-1.0], &[1.0, 1.0]).is_none());
    }

    #[test]
    fn keeps_redundant_rows() {
        // Two copies of one equation, negative right-hand side.
        let a = [-1.0, -2.0, -1.0, -2.0];
        let y = minimize(&a, 2, 2, &[-2.0, -2.0], &[1.0, 1.0]).expect("feasible");
        assert!((y[0] + 2.0 * y[1] - 2.0).abs() < 1e-14);
        assert!((y[0] + y[1] - 1.0).abs() < 1e-14, "the cheaper vertex: y₁ = 1");
    }
}
