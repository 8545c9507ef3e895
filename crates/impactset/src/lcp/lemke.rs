//! Lemke's complementary pivoting algorithm with a lexicographic ratio test.
//!
//! Solves `w = A z + q ≥ 0, z ≥ 0, zᵀw = 0` for a dense `N × N` matrix `A`.
//!
//! The tableau is the one of Siconos' `lcp_lexicolemke` written for
//! `[I | −A | −d] x = q`, stored row-major with `2N + 2` columns:
//!
//! ```text
//! column   0 .. N       N .. 2N      2N       2N+1
//!          w_0..w_{N−1} z_0..z_{N−1} z₀ (art.) right-hand side
//! ```
//!
//! After a sequence of pivots the tableau holds `B⁻¹[I | −A | −d | q]` for the
//! current basis `B`; the basic variable of row `i` has value `rhs_i`, and the
//! `w` columns hold `B⁻¹`, which the lexicographic ratio test reads to break
//! ties. With that rule no basis repeats, so the algorithm terminates on
//! degenerate problems (Cottle, Pang & Stone 1992, §4.4–4.9): either at a
//! solution (the artificial `z₀` leaves the basis) or on a secondary ray. For
//! copositive-plus `A`, such as the Routh step matrix, a ray proves that the
//! LCP is infeasible; the step LCP is always feasible, so Lemke solves it.
//!
//! `shaders/lemke.wgsl` implements the same tableau, pivot rule and function
//! names; keep the two alike.

use std::cmp::Ordering;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

use super::eta::{EtaFile, EtaOutcome, LcpData, default_eta_limit};
use super::memo::MemoKey;
use super::pivot::{Tolerances, compare_tied, complement, z0_leaves};
use super::{LcpError, LcpResidual};

/// Options of [`LemkeWorkspace::solve`]. Every field has a problem-scaled default.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LemkeOptions {
    /// Pivot tolerance: entries of the entering column at most this large are
    /// treated as zero, and lexicographic ratios closer than this tie.
    /// Default (`None`): `10 · N · max(1, ‖A‖∞) · ε_f64`.
    pub pivot_tolerance: Option<f64>,
    /// Relative tolerance within which two ratios of the lexicographic test
    /// tie (`|x − y| ≤ tie · max(1, |x|, |y|)`). Default (`None`): `1e-11`,
    /// well above the round-off a few pivots accumulate.
    pub tie_tolerance: Option<f64>,
    /// Hard cap on pivots. Default (`None`): `max(10 000, 50 N)`, enough for
    /// Murty's exponential example (`2^N − 1` pivots) up to `N = 13` and for
    /// tridiagonal problems (up to `15 N` pivots at `N = 100`).
    pub max_pivots: Option<usize>,
    /// A solution whose residual [violation](LcpResidual::violation)
    /// exceeds this is flagged ([`LcpSolution::within_tolerance`] is
    /// `false`): on ill-conditioned matrices the pivots can end at a basis
    /// whose `z` is far from a solution. Default (`None`): `1e-6`.
    pub residual_tolerance: Option<f64>,
}

/// Default of [`LemkeOptions::residual_tolerance`].
pub const DEFAULT_RESIDUAL_TOLERANCE: f64 = 1e-6;

/// Default of [`LemkeOptions::tie_tolerance`].
pub const DEFAULT_TIE_TOLERANCE: f64 = 1e-11;

impl LemkeOptions {
    /// The pivot cap for an LCP of size `n`.
    pub fn pivot_cap(&self, n: usize) -> usize {
        self.max_pivots.unwrap_or((50 * n).max(10_000))
    }

    /// These options with the pivot tolerance resolved for the `n × n`
    /// matrix `a` (the default when unset): solves of LCPs that share `A`
    /// (every Routh step of one problem) then skip computing `‖A‖∞`, with
    /// the same result.
    pub fn resolved_for(self, a: &[f64], n: usize) -> Self {
        LemkeOptions { pivot_tolerance: Some(self.pivot_tolerance.unwrap_or_else(|| default_tolerance(a, n))), ..self }
    }
}

/// A solution found by [`LemkeWorkspace::solve`], borrowed from the workspace.
#[derive(Clone, Copy, Debug)]
pub struct LcpSolution<'a> {
    /// The solution `z`.
    pub z: &'a [f64],
    /// `w = A z + q`, recomputed from the data.
    pub w: &'a [f64],
    /// Pivots performed (0 when `q ≥ 0`).
    pub pivots: usize,
    /// The residual of `z`, computed by the solver itself.
    pub residual: LcpResidual,
    /// Whether the residual's violation is within
    /// [`LemkeOptions::residual_tolerance`]. A solution outside it is no
    /// solution; callers must not accept it.
    pub within_tolerance: bool,
}

/// Reusable storage for Lemke's algorithm: no allocation per solve once
/// sized.
///
/// ```
/// use impactset::lcp::{LemkeOptions, LemkeWorkspace};
///
/// // w = A z + q with A = [[2, 1], [1, 2]], q = [−5, −6]: z = [4/3, 7/3], w = 0.
/// let a = [2.0, 1.0, 1.0, 2.0];
/// let mut ws = LemkeWorkspace::new(2);
/// let sol = ws.solve(&a, &[-5.0, -6.0], &LemkeOptions::default())?;
/// assert!((sol.z[0] - 4.0 / 3.0).abs() < 1e-12 && (sol.z[1] - 7.0 / 3.0).abs() < 1e-12);
/// assert!(sol.residual.violation() < 1e-12);
/// # Ok::<(), impactset::lcp::LcpError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct LemkeWorkspace {
    n: usize,
    tableau: Vec<f64>,
    basis: Vec<usize>,
    z: Vec<f64>,
    w: Vec<f64>,
    /// The product form of the first pivots (see [`EtaFile`]).
    etas: EtaFile,
    /// Pivots done in product form before the tableau is built.
    eta_limit: usize,
    /// The last matrix [`LemkeWorkspace::solve_covered`] was given, with its
    /// transpose.
    last_matrix: LcpMatrix,
}

/// An LCP matrix `A` kept with its transpose, for many solves that share it
/// (every step LCP of one problem): Lemke's initial columns and the residual
/// then read columns of `A` contiguously. The results are those of
/// [`LemkeWorkspace::solve_covered`] with the row-major `A`, bit for bit.
#[derive(Clone, Debug, Default)]
pub struct LcpMatrix {
    /// Unique to the matrix (its clones share it): solves with the same
    /// identity share the columns their paths met (see `memo`). 0: empty.
    id: u64,
    n: usize,
    /// Row-major.
    a: Vec<f64>,
    /// Column-major (`Aᵀ` row-major).
    at: Vec<f64>,
}

impl LcpMatrix {
    /// `A` from its `n × n` entries in row-major order.
    pub fn from_row_major(n: usize, a: &[f64]) -> Result<Self, LcpError> {
        if a.len() != n * n {
            return Err(LcpError::Size { expected: n * n, got: a.len() });
        }
        let at = (0..n * n).map(|k| a[(k % n) * n + k / n]).collect();
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        Ok(LcpMatrix { id: NEXT_ID.fetch_add(1, AtomicOrdering::Relaxed), n, a: a.to_vec(), at })
    }

    /// The size `N`.
    pub fn size(&self) -> usize {
        self.n
    }

    /// The entries, row-major.
    pub fn row_major(&self) -> &[f64] {
        &self.a
    }

    /// The entries, column-major (`Aᵀ` row-major).
    pub(crate) fn column_major(&self) -> &[f64] {
        &self.at
    }

    /// Whether this is the row-major `a`, bit for bit.
    fn is(&self, a: &[f64]) -> bool {
        // One pass without early exit, so that it runs on whole vectors.
        self.a.len() == a.len() && self.a.iter().zip(a).fold(0, |d, (x, y)| d | (x.to_bits() ^ y.to_bits())) == 0
    }
}

impl PartialEq for LcpMatrix {
    /// Equal entries (whatever their identity).
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n && self.a == other.a
    }
}

impl LemkeWorkspace {
    /// A workspace for LCPs of size `n` (it grows if given a larger one).
    pub fn new(n: usize) -> Self {
        let mut ws = LemkeWorkspace::default();
        ws.resize(n);
        ws
    }

    fn resize(&mut self, n: usize) {
        if self.n != n || self.tableau.is_empty() {
            self.n = n;
            self.tableau = vec![0.0; n * (2 * n + 2)];
            self.basis = vec![0; n];
            self.z = vec![0.0; n];
            self.w = vec![0.0; n];
            self.eta_limit = default_eta_limit(n);
            self.etas = EtaFile::new(n, self.eta_limit);
        }
    }

    /// Marks in `basic` (size `n`) the `z_j` that are basic at the last
    /// solution (the final complementary basis: `A` on them is regular,
    /// `z_j ≥ 0`, zero where degenerate).
    pub fn basic_z(&self, basic: &mut [bool]) {
        let n = self.n;
        basic.iter_mut().for_each(|b| *b = false);
        for &b in &self.basis[..n] {
            if (n..2 * n).contains(&b) {
                basic[b - n] = true;
            }
        }
    }

    /// Sets how many pivots run in product form before the dense tableau is
    /// built (at least 1; default `N`). Results do not depend on it; it
    /// exists to measure the two phases.
    #[doc(hidden)]
    pub fn set_product_form_limit(&mut self, limit: usize) {
        self.eta_limit = limit.max(1);
        self.etas = EtaFile::new(self.n, self.eta_limit);
    }

    /// Solves the LCP `(A, q)` with covering vector `d = 1` and the natural
    /// lexicographic column order (deterministic).
    pub fn solve(&mut self, a: &[f64], q: &[f64], options: &LemkeOptions) -> Result<LcpSolution<'_>, LcpError> {
        self.solve_covered(a, q, None, 0, options)
    }

    /// Solves the LCP `(A, q)`, `A` row-major `N × N`.
    ///
    /// `cover` is the covering vector `d > 0` of the artificial variable
    /// (`None`: all ones); `lex_offset` rotates the order in which the
    /// lexicographic test reads the columns of `B⁻¹` (column
    /// `(lex_offset + j) mod N` is read `j`-th), which decides ties. Different
    /// covering vectors and orders can reach different solutions when the
    /// LCP has several (docs/model.md §5b).
    pub fn solve_covered(
        &mut self,
        a: &[f64],
        q: &[f64],
        cover: Option<&[f64]>,
        lex_offset: usize,
        options: &LemkeOptions,
    ) -> Result<LcpSolution<'_>, LcpError> {
        if !self.last_matrix.is(a) {
            self.last_matrix = LcpMatrix::from_row_major(q.len(), a)?;
        }
        let matrix = std::mem::take(&mut self.last_matrix);
        let outcome = self
            .solve_matrix(&matrix, q, cover, lex_offset, options)
            .map(|s| (s.pivots, s.residual, s.within_tolerance));
        self.last_matrix = matrix;
        let (pivots, residual, within_tolerance) = outcome?;
        Ok(LcpSolution { z: &self.z, w: &self.w, pivots, residual, within_tolerance })
    }

    /// [`LemkeWorkspace::solve_covered`] for a matrix prepared once for many
    /// solves: the same results, without checking whether `A` changed.
    pub fn solve_matrix(
        &mut self,
        matrix: &LcpMatrix,
        q: &[f64],
        cover: Option<&[f64]>,
        lex_offset: usize,
        options: &LemkeOptions,
    ) -> Result<LcpSolution<'_>, LcpError> {
        let n = q.len();
        let (a, at) = (&matrix.a[..], &matrix.at[..]);
        if matrix.n != n {
            return Err(LcpError::Size { expected: n * n, got: a.len() });
        }
        if let Some(d) = cover
            && d.len() != n
        {
            return Err(LcpError::CoverSize { expected: n, got: d.len() });
        }
        self.resize(n);
        let tol = Tolerances {
            pivot: options.pivot_tolerance.unwrap_or_else(|| default_tolerance(a, n)),
            tie: options.tie_tolerance.unwrap_or(DEFAULT_TIE_TOLERANCE),
        };
        let cap = options.pivot_cap(n);
        let offset = lex_offset % n.max(1);
        let pivots = if q.iter().all(|&x| x >= 0.0) {
            self.z.iter_mut().for_each(|z| *z = 0.0);
            // The initial basis, every `w` (what [`basic_z`](Self::basic_z) reads).
            self.basis.iter_mut().enumerate().for_each(|(i, b)| *b = i);
            0
        } else {
            let problem = LcpData { at, q, cover };
            // Solves with covering vector 1 share the columns of their paths.
            let memo =
                cover.is_none().then_some(MemoKey { matrix: matrix.id, offset, tie_tolerance: tol.tie.to_bits() });
            let (pivots, dense) =
                match self.etas.run(problem, &mut self.basis, offset, tol, cap, self.eta_limit, memo)? {
                    EtaOutcome::Solved(pivots) => (pivots, false),
                    EtaOutcome::Continue { pivots, z0_row, entering } => {
                        self.etas.build_tableau(problem, &mut self.tableau);
                        let state = PathState { pivots, z0_row, entering };
                        (run_pivots(&mut self.tableau, &mut self.basis, n, offset, tol, cap, state)?, true)
                    }
                };
            extract_solution(&self.tableau, &self.etas, &self.basis, n, dense, &mut self.z);
            pivots
        };
        let residual = LcpResidual::compute_transposed(at, q, &self.z, &mut self.w);
        let within_tolerance = residual.violation() <= options.residual_tolerance.unwrap_or(DEFAULT_RESIDUAL_TOLERANCE);
        Ok(LcpSolution { z: &self.z, w: &self.w, pivots, residual, within_tolerance })
    }
}

/// Solves one LCP with a fresh workspace/// Solves one LCP with a fresh workspace (convenient, allocates): returns `z`
/// and its residual.
pub fn solve_lcp(a: &[f64], q: &[f64]) -> Result<(Vec<f64>, LcpResidual), LcpError> {
    let mut ws = LemkeWorkspace::new(q.len());
    let sol = ws.solve(a, q, &LemkeOptions::default())?;
    Ok((sol.z.to_vec(), sol.residual))
}

/// `10 · N · max(1, ‖A‖∞) · ε`.
fn default_tolerance(a: &[f64], n: usize) -> f64 {
    super::norms::pivot_tolerance(a, n, 10.0, f64::EPSILON)
}

/// Fills `[I | −A | −d | q]` (from `Aᵀ`) and the initial basis `w`.
#[cfg(test)]
fn init_tableau(t: &mut [f64], basis: &mut [usize], at: &[f64], q: &[f64], cover: Option<&[f64]>) {
    let n = q.len();
    let stride = 2 * n + 2;
    for i in 0..n {
        let row = &mut t[i * stride..(i + 1) * stride];
        row[..n].iter_mut().for_each(|x| *x = 0.0);
        row[i] = 1.0;
        for j in 0..n {
            row[n + j] = -at[j * n + i];
        }
        row[2 * n] = -cover.map_or(1.0, |d| d[i]);
        row[2 * n + 1] = q[i];
        basis[i] = i;
    }
}

/// Lexicographic comparison of rows `i` and `k` for entering column `e`:
/// compares `(rhs, B⁻¹ row)` divided by the row's entry in column `e`, the
/// `B⁻¹` columns read from `offset` on. Values within the tie tolerance tie.
fn lex_compare(t: &[f64], n: usize, i: usize, k: usize, e: usize, offset: usize, tie: f64) -> Ordering {
    let stride = 2 * n + 2;
    let (ri, rk) = (&t[i * stride..(i + 1) * stride], &t[k * stride..(k + 1) * stride]);
    let (ai, ak) = (ri[e], rk[e]);
    let first = compare_tied(ri[2 * n + 1] / ai, rk[2 * n + 1] / ak, tie);
    if first != Ordering::Equal {
        return first;
    }
    for j in 0..n {
        let c = (offset + j) % n;
        let o = compare_tied(ri[c] / ai, rk[c] / ak, tie);
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// The row where `z₀` enters: the lexicographic minimum of `(q_i, e_i)/d_i`,
/// i.e. the maximum of the rows divided by their (negative) `z₀` entry.
#[cfg(test)]
fn first_leaving_row(t: &[f64], n: usize, offset: usize, tol: Tolerances) -> usize {
    let e = 2 * n;
    let mut best = 0;
    for i in 1..n {
        if lex_compare(t, n, i, best, e, offset, tol.tie) == Ordering::Greater {
            best = i;
        }
    }
    best
}

/// The lexicographic minimum-ratio row for entering column `e`, or `None`
/// (a secondary ray) when no entry exceeds the pivot tolerance. `z₀`'s row
/// leaves instead where [`z0_leaves`] says so: that ends the path at a
/// solution (the usual rule when the ratios tie; it also keeps round-off
/// from turning a degenerate tie into a wrong, non-lexicographic choice).
fn leaving_row(t: &[f64], n: usize, e: usize, z0_row: usize, offset: usize, tol: Tolerances) -> Option<usize> {
    let stride = 2 * n + 2;
    let mut best: Option<usize> = None;
    for i in 0..n {
        if t[i * stride + e] > tol.pivot {
            best = match best {
                Some(b) if lex_compare(t, n, i, b, e, offset, tol.tie) != Ordering::Less => Some(b),
                _ => Some(i),
            };
        }
    }
    let best = best?;
    let entry = |i: usize| (t[i * stride + e], t[i * stride + 2 * n + 1]);
    Some(if z0_leaves(n, best, z0_row, tol, entry) { z0_row } else { best })
}

/// Gauss–Jordan pivot on `(r, e)`.
fn pivot(t: &mut [f64], n: usize, r: usize, e: usize) {
    let stride = 2 * n + 2;
    let (head, rest) = t.split_at_mut(r * stride);
    let (row_r, tail) = rest.split_at_mut(stride);
    let inv = 1.0 / row_r[e];
    row_r.iter_mut().for_each(|x| *x *= inv);
    row_r[e] = 1.0;
    for row in head.chunks_exact_mut(stride).chain(tail.chunks_exact_mut(stride)) {
        let f = row[e];
        if f != 0.0 {
            row.iter_mut().zip(row_r.iter()).for_each(|(x, y)| *x -= f * y);
            row[e] = 0.0;
        }
    }
}

/// Where a path stands: pivots done, the row where `z₀` entered and the
/// next entering variable.
#[derive(Clone, Copy, Debug)]
struct PathState {
    pivots: usize,
    z0_row: usize,
    entering: usize,
}

/// Complementary pivoting in the dense tableau from `state` until `z₀` leaves.
fn run_pivots(
    t: &mut [f64],
    basis: &mut [usize],
    n: usize,
    offset: usize,
    tol: Tolerances,
    cap: usize,
    state: PathState,
) -> Result<usize, LcpError> {
    let z0 = 2 * n;
    let PathState { mut pivots, z0_row, mut entering } = state;
    loop {
        if pivots >= cap {
            return Err(LcpError::PivotLimit { pivots });
        }
        let r = leaving_row(t, n, entering, z0_row, offset, tol).ok_or(LcpError::Ray { pivots })?;
        pivot(t, n, r, entering);
        pivots += 1;
        let leaving = basis[r];
        basis[r] = entering;
        if leaving == z0 {
            return Ok(pivots);
        }
        entering = complement(leaving, n);
    }
}

/// The whole path in the dense tableau, from the initial basis (the
/// reference the product-form phase is tested against).
#[cfg(test)]
fn solve_dense(
    t: &mut [f64],
    basis: &mut [usize],
    p: LcpData,
    offset: usize,
    tol: Tolerances,
    cap: usize,
) -> Result<usize, LcpError> {
    let n = p.q.len();
    init_tableau(t, basis, p.at, p.q, p.cover);
    let z0 = 2 * n;
    let z0_row = first_leaving_row(t, n, offset, tol);
    pivot(t, n, z0_row, z0);
    let entering = complement(basis[z0_row], n);
    basis[z0_row] = z0;
    run_pivots(t, basis, n, offset, tol, cap, PathState { pivots: 1, z0_row, entering })
}

/// Reads `z` off the final basis (basic `z_j` = its row's right-hand side,
/// clamped at 0 against round-off; non-basic `z_j` = 0): from the dense
/// tableau when the path went on there, else from the eta file's right-hand
/// side.
fn extract_solution(t: &[f64], etas: &EtaFile, basis: &[usize], n: usize, dense: bool, z: &mut [f64]) {
    let stride = 2 * n + 2;
    z.iter_mut().for_each(|x| *x = 0.0);
    for (i, &b) in basis.iter().enumerate() {
        if (n..2 * n).contains(&b) {
            let rhs = if dense { t[i * stride + 2 * n + 1] } else { etas.rhs[i] };
            z[b - n] = rhs.max(0.0);
        }
    }
}

#[cfg(test)]
#[path = "lemke_tests.rs"]
mod tests;
