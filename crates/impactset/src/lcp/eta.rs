//! Lemke's first pivots in product form: the same arithmetic as the dense
//! tableau of [`super::lemke`], done only where it is read.
//!
//! Every column of the tableau evolves on its own: a Gauss–Jordan pivot on
//! `(r, e)` scales row `r` by `1/t_re` and subtracts `t_ie` times it from
//! every other row `i` with `t_ie ≠ 0`, so column `c` after `k` pivots is a
//! function of its initial entries and of the entering columns of those `k`
//! pivots alone (the *eta file*). Lemke reads, per pivot, only the
//! right-hand side and the entering column, and the columns of `B⁻¹` only
//! when ratios tie. This module keeps the right-hand side up to date and
//! rebuilds any other column on demand by replaying the eta file, operation
//! for operation as the dense pivot does it, so every value read is the one
//! the dense tableau holds (up to the sign of zeros, which no test reads and
//! no nonzero value inherits). A path of `k` pivots costs about `k²N/2`
//! multiply–subtracts this way instead of `k·N(2N + 2)`; past
//! [`default_eta_limit`] pivots the solver builds the dense tableau from the
//! eta file and goes on there.

use std::cmp::Ordering;

#[cfg(target_arch = "x86_64")]
use super::avx2;
use super::memo::{MemoKey, PathMemo};
use super::pivot::{Tolerances, clearly_extreme, compare_tied, complement, z0_or_least};
use super::{ANY_SIZE, LcpError, size};

/// Pivots done in product form before a solve switches to the dense
/// tableau: `N`, where replaying the eta file for one column costs about what
/// a dense pivot does.
pub(super) fn default_eta_limit(n: usize) -> usize {
    n.max(2)
}

/// The data of one LCP: `Aᵀ` (`A` column-major), `q` and the covering
/// vector.
#[derive(Clone, Copy)]
pub(super) struct LcpData<'a> {
    pub(super) at: &'a [f64],
    pub(super) q: &'a [f64],
    pub(super) cover: Option<&'a [f64]>,
}

/// How the product-form phase ended.
pub(super) enum EtaOutcome {
    /// `z₀` left the basis after this many pivots; the solution is in
    /// [`EtaFile::rhs`].
    Solved(usize),
    /// The limit was reached: go on in the dense tableau.
    Continue {
        /// Pivots done.
        pivots: usize,
        /// The row where `z₀` entered.
        z0_row: usize,
        /// The next entering variable.
        entering: usize,
    },
}

/// The eta file of the pivots so far, the current right-hand side and
/// scratch columns (all sized once per `N`).
#[derive(Clone, Debug, Default)]
pub(super) struct EtaFile {
    n: usize,
    /// The pivots so far.
    pivots: Pivots,
    /// The current right-hand side.
    pub(super) rhs: Vec<f64>,
    /// The current entering column.
    col: Vec<f64>,
    /// `rhs_i / col_i` of every row (read only where `col_i` is a pivot).
    ratio: Vec<f64>,
    /// Columns of `B⁻¹` rebuilt at the current pivot (column `c` at `c·N`).
    binv: Vec<f64>,
    /// The pivot (`epoch`) each column of `binv` was rebuilt at.
    binv_epoch: Vec<u64>,
    /// Counts pivots over all solves: a `binv` column is current when its
    /// epoch is this.
    epoch: u64,
    /// The row where `w_c` is basic, or [`NONBASIC`]: the tableau column of
    /// a basic variable is the unit vector of its row, so the lexicographic
    /// test reads such `B⁻¹` columns without rebuilding them.
    w_row: Vec<usize>,
    /// Columns met along earlier paths of the same LCP (see [`PathMemo`]).
    memo: PathMemo,
    /// The memo's node of the current basis, when the solve uses the memo.
    node: Option<u32>,
}

/// [`EtaFile::w_row`] of a nonbasic `w_c`.
const NONBASIC: usize = usize::MAX;

/// The recorded pivots (the eta file proper), apart from the columns they
/// rebuild so that both can be borrowed at once.
#[derive(Clone, Debug, Default)]
struct Pivots {
    n: usize,
    /// Pivots recorded.
    len: usize,
    /// Pivot row of each pivot.
    rows: Vec<usize>,
    /// Entering variable of each pivot (tableau column number).
    vars: Vec<usize>,
    /// `1 / t_re` of each pivot.
    inv: Vec<f64>,
    /// The entering column before each pivot, `N` entries per pivot.
    cols: Vec<f64>,
}

impl EtaFile {
    pub(super) fn new(n: usize, limit: usize) -> Self {
        EtaFile {
            n,
            pivots: Pivots {
                n,
                len: 0,
                rows: vec![0; limit],
                vars: vec![0; limit],
                inv: vec![0.0; limit],
                cols: vec![0.0; limit * n],
            },
            rhs: vec![0.0; n],
            col: vec![0.0; n],
            ratio: vec![0.0; n],
            binv: vec![0.0; n * n],
            binv_epoch: vec![0; n],
            epoch: 0,
            w_row: vec![NONBASIC; n],
            memo: PathMemo::default(),
            node: None,
        }
    }

    /// Lemke's path from the basis `w` for at most `limit` pivots, with the
    /// rules of the dense solver (`run_pivots`). With a `memo` key, the
    /// columns are read from (and added to) the memo of solves under that
    /// key.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run(
        &mut self,
        p: LcpData,
        basis: &mut [usize],
        offset: usize,
        tol: Tolerances,
        cap: usize,
        limit: usize,
        memo: Option<MemoKey>,
    ) -> Result<EtaOutcome, LcpError> {
        let path = Path { p, offset, tol };
        match memo {
            Some(key) => {
                self.node = Some(self.memo.start(key, self.n));
                with_size!(self.n, N => self.run_sized::<N, true>(path, basis, cap, limit))
            }
            None => {
                self.node = None;
                with_size!(self.n, N => self.run_sized::<N, false>(path, basis, cap, limit))
            }
        }
    }

    /// [`EtaFile::run`] for size `N` ([`ANY_SIZE`]: `self.n`), with the memo
    /// when `MEMO` (compiled apart, so that solves without it pay nothing
    /// for it).
    fn run_sized<const N: usize, const MEMO: bool>(
        &mut self,
        path: Path,
        basis: &mut [usize],
        cap: usize,
        limit: usize,
    ) -> Result<EtaOutcome, LcpError> {
        let n = size::<N>(self.n);
        let z0 = 2 * n;
        self.pivots.len = 0;
        self.rhs.copy_from_slice(path.p.q);
        for (i, (b, w)) in basis.iter_mut().zip(&mut self.w_row).enumerate() {
            *b = i;
            *w = i;
        }
        // z₀ enters at the lexicographic maximum of (q_i, e_i)/(−d_i).
        initial_column(path.p, z0, &mut self.col);
        self.start_pivot();
        self.compute_ratios::<N>();
        // As in `leaving_row`, solves under the memo skip the shortcut.
        let clear = if MEMO { None } else { clearly_extreme::<false>(&self.col[..n], &self.ratio[..n], path.tol) };
        let z0_row = clear.unwrap_or_else(|| {
            let mut z0_row = 0;
            for i in 1..n {
                if self.lex_compare::<N, MEMO>(path, i, z0_row) == Ordering::Greater {
                    z0_row = i;
                }
            }
            z0_row
        });
        self.push::<N>(z0_row, z0);
        if MEMO {
            self.advance_node(z0_row);
        }
        let mut entering = complement(basis[z0_row], n);
        self.w_row[basis[z0_row]] = NONBASIC;
        basis[z0_row] = z0;
        let mut pivots = 1;
        loop {
            if pivots >= cap {
                return Err(LcpError::PivotLimit { pivots });
            }
            if pivots >= limit {
                return Ok(EtaOutcome::Continue { pivots, z0_row, entering });
            }
            match self.node.filter(|_| MEMO).and_then(|node| self.memo.entering(node)) {
                Some(kept) => self.col[..n].copy_from_slice(&kept[..n]),
                None => {
                    self.pivots.column::<N>(path.p, entering, &mut self.col);
                    if let Some(node) = self.node.filter(|_| MEMO) {
                        self.memo.keep_entering(node, &self.col);
                    }
                }
            }
            self.start_pivot();
            let r = self.leaving_row::<N, MEMO>(path, z0_row).ok_or(LcpError::Ray { pivots })?;
            self.push::<N>(r, entering);
            if MEMO {
                self.advance_node(r);
            }
            pivots += 1;
            let leaving = basis[r];
            basis[r] = entering;
            if leaving < n {
                self.w_row[leaving] = NONBASIC;
            }
            if entering < n {
                self.w_row[entering] = r;
            }
            if leaving == z0 {
                return Ok(EtaOutcome::Solved(pivots));
            }
            entering = complement(leaving, n);
        }
    }

    /// Writes the dense tableau `B⁻¹[I | −A | −d | q]` of the current basis.
    pub(super) fn build_tableau(&self, p: LcpData, t: &mut [f64]) {
        let n = self.n;
        let stride = 2 * n + 2;
        let mut x = vec![0.0; n];
        for v in 0..=2 * n {
            self.pivots.column::<ANY_SIZE>(p, v, &mut x);
            for (i, &xi) in x.iter().enumerate() {
                t[i * stride + v] = xi;
            }
        }
        for (i, &r) in self.rhs.iter().enumerate() {
            t[i * stride + 2 * n + 1] = r;
        }
    }

    /// Moves the memo's node along a pivot on row `r`.
    fn advance_node(&mut self, r: usize) {
        if let Some(node) = self.node {
            self.node = Some(self.memo.child(node, r));
        }
    }

    /// Forgets the `B⁻¹` columns of the previous pivot.
    fn start_pivot(&mut self) {
        self.epoch += 1;
    }

    /// Records the pivot on `(r, entering)` with the current entering column
    /// and updates the right-hand side exactly as the dense pivot does.
    fn push<const N: usize>(&mut self, r: usize, var: usize) {
        let n = size::<N>(self.n);
        let col = &self.col[..n];
        let inv = 1.0 / col[r];
        let pivots = &mut self.pivots;
        let k = pivots.len;
        pivots.rows[k] = r;
        pivots.vars[k] = var;
        pivots.inv[k] = inv;
        pivots.cols[k * n..(k + 1) * n].copy_from_slice(col);
        pivots.len += 1;
        let rhs = &mut self.rhs[..n];
        let xr = rhs[r] * inv;
        // Rows with `f_i = 0` keep their value as it is (the sign of a zero
        // right-hand side reaches `z`); row `r` is overwritten below.
        for (x, &fi) in rhs.iter_mut().zip(col) {
            if fi != 0.0 {
                *x -= fi * xr;
            }
        }
        rhs[r] = xr;
    }

    /// Column `c` of `B⁻¹` (the tableau's `w_c` column), rebuilt once per pivot.
    fn binv_column<const N: usize, const MEMO: bool>(&mut self, p: LcpData, c: usize) -> usize {
        let n = size::<N>(self.n);
        if self.binv_epoch[c] != self.epoch {
            let x = &mut self.binv[c * n..(c + 1) * n];
            match self.node.filter(|_| MEMO).and_then(|node| self.memo.binv(node, c)) {
                Some(kept) => x.copy_from_slice(&kept[..n]),
                None => {
                    self.pivots.column::<N>(p, c, x);
                    if let Some(node) = self.node.filter(|_| MEMO) {
                        self.memo.keep_binv(node, c, x);
                    }
                }
            }
            self.binv_epoch[c] = self.epoch;
        }
        c * n
    }

    /// The dense solver's `lex_compare` of rows `i` and `k` for the current
    /// entering column, from `ratio` and the `B⁻¹` columns.
    fn lex_compare<const N: usize, const MEMO: bool>(&mut self, path: Path, i: usize, k: usize) -> Ordering {
        match compare_tied(self.ratio[i], self.ratio[k], path.tol.tie) {
            Ordering::Equal => self.lex_tie::<N, MEMO>(path, i, k),
            first => first,
        }
    }

    /// [`EtaFile::lex_compare`] of rows whose ratios tie: the `B⁻¹` columns
    /// from `offset` on decide.
    fn lex_tie<const N: usize, const MEMO: bool>(&mut self, path: Path, i: usize, k: usize) -> Ordering {
        let Some(node) = self.node.filter(|_| MEMO) else {
            return self.lex_tie_columns::<N, MEMO>(path, i, k);
        };
        match self.memo.tie(node, i, k) {
            Some(o) => o,
            None => {
                let o = self.lex_tie_columns::<N, MEMO>(path, i, k);
                self.memo.keep_tie(node, i, k, o);
                o
            }
        }
    }

    /// [`EtaFile::lex_tie`] from the `B⁻¹` columns.
    fn lex_tie_columns<const N: usize, const MEMO: bool>(&mut self, path: Path, i: usize, k: usize) -> Ordering {
        let n = size::<N>(self.n);
        let (ai, ak) = (self.col[i], self.col[k]);
        let mut next = path.offset;
        for _ in 0..n {
            // Column `offset + j (mod N)` at the `j`-th turn.
            let c = next;
            next = if c + 1 == n { 0 } else { c + 1 };
            let (xi, xk) = match self.w_row[c] {
                NONBASIC => {
                    let at = self.binv_column::<N, MEMO>(path.p, c);
                    (self.binv[at + i], self.binv[at + k])
                }
                // The unit column of row `row`: zeros in rows `i` and `k`
                // tie.
                row if row != i && row != k => continue,
                row => (f64::from(u8::from(row == i)), f64::from(u8::from(row == k))),
            };
            if xi == 0.0 && xk == 0.0 {
                continue;
            }
            let o = compare_tied(xi / ai, xk / ak, path.tol.tie);
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }

    /// `ratio` of the current entering column: every row's at once,
    /// independent divisions that overlap.
    fn compute_ratios<const N: usize>(&mut self) {
        let n = size::<N>(self.n);
        for ((ratio, &x), &a) in self.ratio[..n].iter_mut().zip(&self.rhs[..n]).zip(&self.col[..n]) {
            *ratio = x / a;
        }
    }

    /// The dense solver's `leaving_row`.
    fn leaving_row<const N: usize, const MEMO: bool>(&mut self, path: Path, z0_row: usize) -> Option<usize> {
        let n = size::<N>(self.n);
        let tol = path.tol;
        self.compute_ratios::<N>();
        // When one ratio is clearly least, the scan below would pick its row
        // and meet neither a tie nor `z₀`'s rule: take it without the scan,
        // whose branches follow the data and are mispredicted often. Solves
        // under the memo follow paths met before, whose branches the
        // processor predicts well; they skip this.
        if !MEMO && let Some(least) = clearly_extreme::<true>(&self.col[..n], &self.ratio[..n], tol) {
            return Some(z0_or_least(&self.col[..n], &self.rhs[..n], least, z0_row, tol));
        }
        let mut best: Option<(usize, f64)> = None;
        for i in 0..n {
            if self.col[i] > tol.pivot {
                let ratio = self.ratio[i];
                let replace = match best {
                    None => true,
                    Some((b, best_ratio)) => match compare_tied(ratio, best_ratio, tol.tie) {
                        Ordering::Equal => self.lex_tie::<N, MEMO>(path, i, b) == Ordering::Less,
                        o => o == Ordering::Less,
                    },
                };
                if replace {
                    best = Some((i, ratio));
                }
            }
        }
        let (best, _) = best?;
        Some(z0_or_least(&self.col[..n], &self.rhs[..n], best, z0_row, tol))
    }
}

/// What stays fixed along one path: the data, the order of the `B⁻¹`
/// columns and the tolerances.
#[derive(Clone, Copy)]
struct Path<'a> {
    p: LcpData<'a>,
    offset: usize,
    tol: Tolerances,
}

impl Pivots {
    /// Column `v` of the current tableau (`v < 2N + 1`; not the right-hand
    /// side): its initial entries, or the unit column of the last pivot it
    /// entered at, carried through the later pivots. Compiled for AVX2
    /// where the processor has it (see `avx2`).
    #[inline(never)]
    fn column<const N: usize>(&self, p: LcpData, v: usize, x: &mut [f64]) {
        #[cfg(target_arch = "x86_64")]
        if avx2() {
            // SAFETY: the processor has AVX2.
            return unsafe { self.column_avx2::<N>(p, v, x) };
        }
        self.column_body::<N>(p, v, x)
    }

    /// [`Pivots::column`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn column_avx2<const N: usize>(&self, p: LcpData, v: usize, x: &mut [f64]) {
        self.column_body::<N>(p, v, x)
    }

    #[inline(always)]
    fn column_body<const N: usize>(&self, p: LcpData, v: usize, x: &mut [f64]) {
        let n = size::<N>(self.n);
        let x = &mut x[..n];
        let start = match self.vars[..self.len].iter().rposition(|&u| u == v) {
            Some(k) => {
                x.fill(0.0);
                x[self.rows[k]] = 1.0;
                k + 1
            }
            None => {
                initial_column(p, v, x);
                0
            }
        };
        let etas = self.rows[start..self.len].iter().zip(&self.inv[start..self.len]);
        for ((&r, &inv), f) in etas.zip(self.cols[start * n..self.len * n].chunks_exact(n)) {
            let xr = x[r] * inv;
            if xr != 0.0 {
                // Where the dense pivot skips `f_i = 0`, this subtracts a
                // zero: the same value up to the sign of a zero. Row `r` is
                // overwritten below.
                for (xi, &fi) in x.iter_mut().zip(f) {
                    *xi -= fi * xr;
                }
            }
            x[r] = xr;
        }
    }
}

/// Column `v` of `[I | −A | −d]`.
#[inline(always)]
fn initial_column(p: LcpData, v: usize, x: &mut [f64]) {
    let n = x.len();
    if v < n {
        x.iter_mut().for_each(|e| *e = 0.0);
        x[v] = 1.0;
    } else if v < 2 * n {
        let column = &p.at[(v - n) * n..(v - n + 1) * n];
        for (e, &a) in x.iter_mut().zip(column) {
            *e = -a;
        }
    } else {
        match p.cover {
            Some(d) => {
                for (e, &di) in x.iter_mut().zip(d) {
                    *e = -di;
                }
            }
            None => x.fill(-1.0),
        }
    }
}
