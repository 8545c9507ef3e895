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
use super::pivot::{Tolerances, compare_tied, complement};
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
/// (a secondary ray) when no entry exceeds the pivot tolerance. When the row
/// of `z₀` ties for the minimum ratio, it leaves: that ends the path at a
/// solution (the usual rule; it also keeps round-off from turning a
/// degenerate tie into a wrong, non-lexicographic choice).
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
    let (a0, ab) = (t[z0_row * stride + e], t[best * stride + e]);
    if best != z0_row && a0 > tol.pivot {
        let ratio = |row: usize, a: f64| t[row * stride + 2 * n + 1] / a;
        if compare_tied(ratio(z0_row, a0), ratio(best, ab), tol.tie) == Ordering::Equal {
            return Some(z0_row);
        }
    }
    Some(best)
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
mod tests {
    use super::*;

    #[test]
    fn nonnegative_q_gives_zero_without_pivots() {
        let mut ws = LemkeWorkspace::new(2);
        let sol = ws.solve(&[1.0, 0.0, 0.0, 1.0], &[1.0, 0.0], &LemkeOptions::default()).unwrap();
        assert_eq!(sol.z, &[0.0, 0.0]);
        assert_eq!(sol.pivots, 0);
    }

    #[test]
    fn infeasible_lcp_ends_on_a_ray() {
        // w = −z − 1 can never be ≥ 0.
        let mut ws = LemkeWorkspace::new(1);
        let err = ws.solve(&[-1.0], &[-1.0], &LemkeOptions::default()).unwrap_err();
        assert!(matches!(err, LcpError::Ray { .. }));
        // A copositive-plus (PSD) matrix with an infeasible q: w1 = z2 − 1, w2 = −z1 − 1.
        let err = ws.solve(&[0.0, 1.0, -1.0, 0.0], &[-1.0, -1.0], &LemkeOptions::default()).unwrap_err();
        assert!(matches!(err, LcpError::Ray { .. }));
    }

    #[test]
    fn pivot_cap_is_enforced() {
        let mut ws = LemkeWorkspace::new(2);
        let options = LemkeOptions { max_pivots: Some(1), ..Default::default() };
        let err = ws.solve(&[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0], &options).unwrap_err();
        assert_eq!(err, LcpError::PivotLimit { pivots: 1 });
    }

    #[test]
    fn degenerate_problem_terminates() {
        // PSD and singular, q with ties and a zero: every ratio test ties.
        let a = [1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0];
        let q = [-1.0, -1.0, 0.0];
        let mut ws = LemkeWorkspace::new(3);
        let sol = ws.solve(&a, &q, &LemkeOptions::default()).unwrap();
        assert!(sol.residual.violation() < 1e-12, "{:?}", sol.residual);
    }

    /// The right-hand side `[h·p; J v; 0]` of a step LCP of scene `s` at a
    /// random velocity `v ∈ [−1, 1]ⁿ`, with caps `p` in quarters.
    fn random_step_rhs(s: &crate::Scene, rng: &mut impl rand::Rng) -> Vec<f64> {
        let ops = s.problem.operators();
        let size = ops.layout().size();
        let v = nalgebra::DVector::from_fn(ops.n, |_, _| rng.random_range(-1.0..1.0));
        let u = &ops.j * v;
        let mut b = vec![0.0; size];
        for x in &mut b[..ops.m] {
            *x = s.step_size * f64::from(rng.random_range(0u8..4)) / 4.0;
        }
        b[ops.m..size - ops.m].copy_from_slice(u.as_slice());
        b
    }

    /// The dense path of `(a, q, cover, offset)`: `z` (as bits) and pivots.
    fn dense_reference(
        a: &[f64],
        q: &[f64],
        cover: Option<&[f64]>,
        offset: usize,
    ) -> Result<(Vec<u64>, usize), LcpError> {
        let n = q.len();
        let mut t = vec![0.0; n * (2 * n + 2)];
        let mut basis = vec![0; n];
        let tol = Tolerances { pivot: default_tolerance(a, n), tie: DEFAULT_TIE_TOLERANCE };
        let cap = LemkeOptions::default().pivot_cap(n);
        let at: Vec<f64> = (0..n * n).map(|k| a[(k % n) * n + k / n]).collect();
        let p = LcpData { at: &at, q, cover };
        let pivots = solve_dense(&mut t, &mut basis, p, offset, tol, cap)?;
        let mut z = vec![0.0; n];
        extract_solution(&t, &EtaFile::default(), &basis, n, true, &mut z);
        Ok((z.iter().map(|x| x.to_bits()).collect(), pivots))
    }

    /// The product-form phase (with its switch to the dense tableau at every
    /// possible pivot) gives the dense solver's pivots and `z`, bit for bit:
    /// on step LCPs of the paper scenes along random velocities and caps, and
    /// on small integer LCPs full of ties (the lexicographic test decides).
    /// On a processor with AVX2 the product form's column replays run
    /// compiled for it and the dense reference does not, so this also checks
    /// that the two builds agree.
    #[test]
    fn product_form_matches_the_dense_tableau_bit_for_bit() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut cases: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
        for id in ["rocking-block", "compass-gait", "box-wall", "ramone", "disk-stack"] {
            let s = crate::scene::builtin(id).unwrap();
            let ops = s.problem.operators();
            for _ in 0..60 {
                let mut b = random_step_rhs(&s, &mut rng);
                if rng.random_bool(0.3) {
                    b[ops.m] = 0.0;
                }
                cases.push((ops.step_matrix.clone(), b));
            }
        }
        // Every size the product form is compiled for (`with_size!`) and a few others.
        for n in [5, 10, 11, 15, 20, 22, 25, 8] {
            for _ in 0..12 {
                let a: Vec<f64> = (0..n * n).map(|_| f64::from(rng.random_range(-1i8..3))).collect();
                let q: Vec<f64> = (0..n).map(|_| f64::from(rng.random_range(-2i8..2))).collect();
                cases.push((a, q));
            }
        }
        for _ in 0..400 {
            let n = rng.random_range(1..7);
            let a: Vec<f64> = (0..n * n).map(|_| f64::from(rng.random_range(-2i8..3))).collect();
            let q: Vec<f64> = (0..n).map(|_| f64::from(rng.random_range(-2i8..2))).collect();
            cases.push((a, q));
        }
        let mut compared = 0;
        for (a, q) in &cases {
            let n = q.len();
            let cover: Vec<f64> = (0..n).map(|_| 1.0 / 64.0 + f64::from(rng.random_range(0u8..8)) / 8.0).collect();
            let offset = rng.random_range(0..n);
            for (cover, offset) in [(None, 0), (Some(&cover[..]), offset)] {
                let reference = dense_reference(a, q, cover, offset);
                for limit in [2, 3, 5, n.max(2), 1000] {
                    let mut ws = LemkeWorkspace::new(n);
                    ws.eta_limit = limit;
                    ws.etas = EtaFile::new(n, limit);
                    let got = ws
                        .solve_covered(a, q, cover, offset, &LemkeOptions::default())
                        .map(|s| (s.z.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), s.pivots));
                    let reference = if q.iter().all(|&x| x >= 0.0) { Ok((vec![0; n], 0)) } else { reference.clone() };
                    assert_eq!(got, reference, "A = {a:?}, q = {q:?}, cover {cover:?}, offset {offset}, limit {limit}");
                    compared += 1;
                }
            }
        }
        assert!(compared > 3000);
    }

    /// Murty's matrix (lower triangular, 1 on the diagonal, 2 below) with
    /// `q = −1`: a P-matrix, so the LCP has exactly one solution, `z = e₀`
    /// (`w_i = 2 − 1` below the first row), and Lemke needs `2^N − 1` pivots
    /// (Murty 1978), past the old cap of `max(100, 10 N)` from `N = 7`.
    #[test]
    fn murty_problem_is_solved_to_its_unique_solution() {
        for n in 7..=12 {
            let a: Vec<f64> = (0..n * n)
                .map(|k| match (k / n, k % n) {
                    (i, j) if i == j => 1.0,
                    (i, j) if i > j => 2.0,
                    _ => 0.0,
                })
                .collect();
            let q = vec![-1.0; n];
            let mut ws = LemkeWorkspace::new(n);
            let sol = ws.solve(&a, &q, &LemkeOptions::default()).unwrap_or_else(|e| panic!("N = {n}: {e}"));
            let mut expected = vec![0.0; n];
            expected[0] = 1.0;
            assert_eq!(sol.z, &expected[..], "N = {n}");
            assert!(sol.within_tolerance && sol.pivots > 10 * n, "N = {n}: {} pivots", sol.pivots);
        }
    }

    /// Tridiagonal `tridiag(−1, 2, −1)` of size 100 (symmetric positive
    /// definite: one solution) with patterned and random right-hand sides.
    #[test]
    fn tridiagonal_100_is_solved() {
        use rand::{Rng, SeedableRng};
        let n = 100;
        let a: Vec<f64> = (0..n * n)
            .map(|k| match (k / n) as isize - (k % n) as isize {
                0 => 2.0,
                1 | -1 => -1.0,
                _ => 0.0,
            })
            .collect();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut longest = 0;
        for trial in 0..40 {
            let q: Vec<f64> = (0..n)
                .map(|i| match trial {
                    0 => {
                        if i % 2 == 0 {
                            -1.0
                        } else {
                            1.0
                        }
                    }
                    1 => (i as f64 * 0.37).sin(),
                    2 => -(i as f64) / n as f64 + 0.5,
                    3 => (i as f64) / n as f64 - 0.5,
                    4 => {
                        if i % 3 == 0 {
                            1.0
                        } else {
                            -1.0
                        }
                    }
                    5 => -1.0,
                    _ => rng.random_range(-1.0..1.0),
                })
                .collect();
            let mut ws = LemkeWorkspace::new(n);
            let sol = ws.solve(&a, &q, &LemkeOptions::default()).unwrap();
            assert!(sol.within_tolerance && sol.residual.violation() < 1e-9, "{:?}", sol.residual);
            longest = longest.max(sol.pivots);
        }
        assert!(longest >= n, "{longest}");
        // Paths of up to 15 N pivots are met on such problems; the default cap leaves room.
        assert!(LemkeOptions::default().pivot_cap(n) >= 15 * n);
    }

    /// Ill-conditioned LCPs (`A = Q diag(σ) Qᵀ + skew`, `σ` from 1 down to
    /// 1e-17, `Q` a random rotation): some paths end at a point that is no
    /// solution. The result flags exactly those, by its own residual.
    #[test]
    fn ill_conditioned_solution_is_flagged() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
        let n = 8;
        let mut flagged = 0;
        for _ in 0..400 {
            let g = nalgebra::DMatrix::from_fn(n, n, |_, _| rng.random_range(-1.0..1.0));
            let q_rot = g.qr().q();
            let sigma = nalgebra::DVector::from_fn(n, |i, _| 10f64.powf(-17.0 * i as f64 / (n - 1) as f64));
            let skew = nalgebra::DMatrix::from_fn(n, n, |i, j| {
                if i < j {
                    1e-9 * (i + j) as f64
                } else if i > j {
                    -1e-9 * (i + j) as f64
                } else {
                    0.0
                }
            });
            let m = &q_rot * nalgebra::DMatrix::from_diagonal(&sigma) * q_rot.transpose() + skew;
            let a: Vec<f64> = m.transpose().iter().copied().collect();
            let q: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let mut ws = LemkeWorkspace::new(n);
            if let Ok(sol) = ws.solve(&a, &q, &LemkeOptions::default()) {
                assert_eq!(sol.within_tolerance, sol.residual.violation() <= DEFAULT_RESIDUAL_TOLERANCE);
                if !sol.within_tolerance {
                    flagged += 1;
                }
            }
        }
        assert!(flagged > 0, "no ill-conditioned path ended off a solution");
    }

    /// One workspace solving LCPs whose matrices change between solves (so
    /// the transpose it keeps goes stale), and prepared matrices, give bit
    /// for bit what a fresh workspace gives for each.
    #[test]
    fn changed_and_prepared_matrices_solve_as_fresh() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(23);
        let mut ws = LemkeWorkspace::new(3);
        for k in 0..60 {
            let n = [3, 5, 10][k % 3];
            // Positive definite plus skew: every LCP has a solution.
            let g: Vec<f64> = (0..n * n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let a: Vec<f64> = (0..n * n)
                .map(|e| {
                    let (i, j) = (e / n, e % n);
                    (0..n).map(|l| g[i * n + l] * g[j * n + l]).sum::<f64>() + if i == j { 0.1 } else { 0.0 }
                })
                .collect();
            let q: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let cover: Vec<f64> = (0..n).map(|_| rng.random_range(0.5..1.5)).collect();
            let options = LemkeOptions::default();
            let bits = |s: LcpSolution| (s.z.iter().chain(s.w).map(|x| x.to_bits()).collect::<Vec<_>>(), s.pivots);
            let fresh = bits(LemkeWorkspace::new(n).solve_covered(&a, &q, Some(&cover), k, &options).unwrap());
            assert_eq!(bits(ws.solve_covered(&a, &q, Some(&cover), k, &options).unwrap()), fresh);
            let matrix = LcpMatrix::from_row_major(n, &a).unwrap();
            assert_eq!(matrix.row_major(), &a[..]);
            assert_eq!(bits(ws.solve_matrix(&matrix, &q, Some(&cover), k, &options).unwrap()), fresh);
        }
        assert!(LcpMatrix::from_row_major(3, &[1.0; 8]).is_err());
    }

    /// One workspace solving many LCPs with covering vector 1 (whose paths
    /// it keeps, see `memo`) gives bit for bit what a fresh workspace gives
    /// for each: step LCPs of the paper scenes along random velocities and
    /// caps, with the column order, the matrix and the tolerances changing
    /// now and then (each change starts the kept paths anew), and small
    /// integer LCPs full of ties.
    #[test]
    fn kept_paths_solve_as_fresh() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
        let bits = |s: Result<LcpSolution, LcpError>| {
            s.map(|s| (s.z.iter().chain(s.w).map(|x| x.to_bits()).collect::<Vec<_>>(), s.pivots))
        };
        let mut ws = LemkeWorkspace::new(1);
        let mut solved = 0;
        for id in ["rocking-block", "compass-gait", "box-wall", "ramone", "disk-stack", "cube-flat"] {
            let s = crate::scene::builtin(id).unwrap();
            let ops = s.problem.operators();
            let size = ops.layout().size();
            let matrix = LcpMatrix::from_row_major(size, &ops.step_matrix).unwrap();
            for k in 0..400 {
                let b = random_step_rhs(&s, &mut rng);
                let offset = if k % 50 < 40 { 0 } else { k % 7 };
                let options = if k % 100 < 90 {
                    LemkeOptions::default()
                } else {
                    LemkeOptions { tie_tolerance: Some(1e-9), ..Default::default() }
                };
                let fresh = bits(LemkeWorkspace::new(size).solve_covered(&ops.step_matrix, &b, None, offset, &options));
                assert_eq!(bits(ws.solve_matrix(&matrix, &b, None, offset, &options)), fresh, "{id}, LCP {k}");
                solved += 1;
            }
        }
        for n in [3, 4, 6] {
            let a: Vec<f64> = (0..n * n).map(|_| f64::from(rng.random_range(-1i8..3))).collect();
            let matrix = LcpMatrix::from_row_major(n, &a).unwrap();
            for _ in 0..300 {
                let q: Vec<f64> = (0..n).map(|_| f64::from(rng.random_range(-2i8..2))).collect();
                let fresh = bits(LemkeWorkspace::new(n).solve(&a, &q, &LemkeOptions::default()));
                assert_eq!(
                    bits(ws.solve_matrix(&matrix, &q, None, 0, &LemkeOptions::default())),
                    fresh,
                    "A = {a:?}, q = {q:?}"
                );
                solved += 1;
            }
        }
        assert_eq!(solved, 6 * 400 + 3 * 300);
    }

    #[test]
    fn size_mismatch_is_an_error() {
        let mut ws = LemkeWorkspace::new(2);
        assert!(matches!(ws.solve(&[1.0], &[1.0, 2.0], &LemkeOptions::default()), Err(LcpError::Size { .. })));
        // A covering vector of the wrong length is named as such.
        let a = [2.0, 1.0, 1.0, 2.0];
        let e = ws.solve_covered(&a, &[-1.0, -1.0], Some(&[1.0]), 0, &LemkeOptions::default()).unwrap_err();
        assert_eq!(e, LcpError::CoverSize { expected: 2, got: 1 });
    }
}
