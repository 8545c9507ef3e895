//! Fixing a contact's mode on a tableau: the block elimination of
//! `tableaux/reduced.rs`, written once for every search, over the rows and columns
//! its caller reads.
//!
//! Fixing contact `i` in a mode substitutes `x_i = cap x₀ + G y` in every
//! row and eliminates `y` with the mode's `q` equations `C u⁺_i = 0`,
//! solved as `R e = −C u⁺_i` column by column. Every row is updated on its
//! own and every column of the equations is solved on its own (the pivots
//! are chosen on `R` alone, `gauss.rs`), so an entry of the tableau is the
//! same bit for bit whichever other rows and columns are computed with it:
//! the searches compute only what their bounds read.

use std::ops::Range;

use super::gauss::solve_in_place;
use super::reduced::{Reduced, low_bits};
use crate::impact::enumerate::modes::Mode;

/// The columns of a tableau row an elimination writes, besides the constant
/// column (always written).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Columns<'a> {
    /// The whole row from column `from` on: the columns before it (of the
    /// contacts eliminated before) are neither read nor written, so no later
    /// elimination may read them either. The fixed contact's columns become
    /// zero.
    From(usize),
    /// These runs of columns, none of the fixed contact's (whose entries in
    /// the result are then meaningless).
    Runs(&'a [Range<usize>]),
    /// The constants alone (the other columns of the result are left as
    /// they are).
    Constant,
}

impl Reduced {
    /// Fixes contact `i` in `mode` (cap `cap`) on the tableau `src`, writing
    /// the rows of the contacts in the bit set `rows` (their `x` and `u⁺`
    /// rows), on the columns `cols`, to `dst`. Returns `false` when the
    /// mode's block `R = C W⁽ˡ⁾ G` is singular (`dst` is then unusable).
    /// `eq` needs `3·(D + 1)` entries, `r` 9.
    ///
    /// With `resume`, the equations are taken as solved by a previous call
    /// on the same `src`, contact, mode, cap and columns (which returned
    /// `true`; `eq` untouched since), and only the rows `rows` are written:
    /// a search writes the rows of the contact it tests first and the
    /// others only when that contact's inequalities may hold.
    #[allow(clippy::too_many_arguments)]
    pub fn fix(
        &self,
        src: &[f64],
        dst: &mut [f64],
        i: usize,
        mode: &Mode,
        cap: f64,
        rows: u64,
        cols: Columns<'_>,
        eq: &mut [f64],
        r: &mut [f64],
        resume: bool,
    ) -> bool {
        // Compiled per number of reduced coordinates and of parameters, so
        // the per-row loops unroll.
        let args = (src, dst, i, mode, cap, rows, cols, eq, r, resume);
        match (self.s, mode.params) {
            (2, 0) => self.fix_sq::<2, 0>(args),
            (2, 1) => self.fix_sq::<2, 1>(args),
            (2, 2) => self.fix_sq::<2, 2>(args),
            (3, 0) => self.fix_sq::<3, 0>(args),
            (3, 1) => self.fix_sq::<3, 1>(args),
            (3, 2) => self.fix_sq::<3, 2>(args),
            (3, 3) => self.fix_sq::<3, 3>(args),
            (s, q) => unreachable!("{q} parameters of {s} reduced coordinates"),
        }
    }

    /// [`fix`](Self::fix) for `s = S`, `q = Q`.
    #[allow(clippy::type_complexity)]
    #[inline(always)]
    fn fix_sq<const S: usize, const Q: usize>(
        &self,
        (src, dst, i, mode, cap, rows, cols, eq, r, resume): (
            &[f64],
            &mut [f64],
            usize,
            &Mode,
            f64,
            u64,
            Columns<'_>,
            &mut [f64],
            &mut [f64],
            bool,
        ),
    ) -> bool {
        let (dim, st) = (self.dim, self.stride());
        let l0 = i * S;
        let whole;
        let runs: &[Range<usize>] = match cols {
            Columns::From(from) => {
                debug_assert!(from <= l0, "the fixed contact is not eliminated");
                whole = [from..l0, l0 + S..dim];
                &whole
            }
            Columns::Runs(runs) => runs,
            Columns::Constant => &[],
        };
        // The equations' columns: the runs', then the constant.
        let w = if Q > 0 { runs.iter().map(|run| run.len()).sum::<usize>() + 1 } else { 0 };
        // Contact i's u⁺ rows after the substitution (the equations' rows).
        let mut own = [(0.0, [0.0; 3]); S];
        let solve = Q > 0 && !resume;
        if solve {
            for (c, o) in own.iter_mut().enumerate() {
                let row = &src[(dim + l0 + c) * st..][..st];
                *o = substitute::<S>(&row[l0..l0 + S], row[dim], mode, cap);
            }
            // C u⁺_i = 0 written as R y = −(the rest): −C applied to the
            // rest, and R from the coefficients of y.
            for k in 0..Q {
                let e = &mut eq[k * w..(k + 1) * w];
                e.iter_mut().for_each(|v| *v = 0.0);
                let mut block = [0.0; 3];
                for (c, &(konst, y)) in own.iter().enumerate() {
                    let ck = mode.rows[k][c];
                    if ck != 0.0 {
                        let urow = &src[(dim + l0 + c) * st..][..st];
                        let mut at = 0;
                        for run in runs {
                            let part = e[at..at + run.len()].iter_mut().zip(&urow[run.clone()]);
                            part.for_each(|(v, u)| *v -= ck * u);
                            at += run.len();
                        }
                        e[w - 1] -= ck * konst;
                        for kk in 0..Q {
                            block[kk] -= ck * y[kk];
                        }
                    }
                }
                for kk in 0..Q {
                    r[k * Q + kk] = -block[kk];
                }
            }
            if !solve_in_place(r, Q, eq, w, self.singular) {
                return false;
            }
        }
        // Each row: the substitution, then Σ_k y_k e_k per column (k
        // ascending, zero y_k skipped).
        self.for_rows(rows, |row| {
            let (src, dst) = (&src[row * st..][..st], &mut dst[row * st..][..st]);
            let (mut konst, y) = match row.checked_sub(dim + l0) {
                Some(c) if solve && c < S => own[c],
                _ => substitute::<S>(&src[l0..l0 + S], src[dim], mode, cap),
            };
            // One pass per nonzero y_k over the run: each entry still adds
            // its terms in the order k = 0, 1, …, so it is the same bit for
            // bit as a sum taken entry by entry, and each pass vectorizes.
            let mut at = 0;
            for run in runs {
                let len = run.len();
                let out = &mut dst[run.clone()];
                out.copy_from_slice(&src[run.clone()]);
                for (k, &yk) in y.iter().enumerate().take(Q) {
                    if yk != 0.0 {
                        let e = &eq[k * w + at..][..len];
                        out.iter_mut().zip(e).for_each(|(v, &ek)| *v += yk * ek);
                    }
                }
                at += len;
            }
            for (k, &yk) in y.iter().enumerate().take(Q) {
                if yk != 0.0 {
                    konst += yk * eq[k * w + w - 1];
                }
            }
            dst[dim] = konst;
            if let Columns::From(_) = cols {
                dst[l0..l0 + S].iter_mut().for_each(|v| *v = 0.0);
            }
        });
        true
    }

    /// Calls `f` on each tableau row of the contacts in the bit set `rows`:
    /// their `x` rows, then their `u⁺` rows.
    #[inline(always)]
    fn for_rows(&self, rows: u64, mut f: impl FnMut(usize)) {
        let (s, dim) = (self.s, self.dim);
        let rows = rows & low_bits(self.m);
        for half in [0, dim] {
            let mut rest = rows;
            while rest != 0 {
                let c = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                for a in 0..s {
                    f(half + c * s + a);
                }
            }
        }
    }

    /// The substitution `x_i = cap x₀ + G y` on one row of contact `i`'s
    /// columns `row` (`s` entries): the shift per unit cap (the row's
    /// constant becomes `konst + cap · shift`) and the coefficients of `y`,
    /// as [`fix`](Self::fix) computes them.
    pub fn substitution(&self, row: &[f64], mode: &Mode) -> (f64, [f64; 3]) {
        match self.s {
            2 => substitution::<2>(row, mode),
            3 => substitution::<3>(row, mode),
            s => unreachable!("{s} reduced coordinates per contact"),
        }
    }
}

/// The substitution `x_i = cap x₀ + G y` on one row, given its `S` entries
/// in contact `i`'s columns and its constant: the row's new constant
/// `konst + cap · (row_i · x₀)` and the coefficients of `y`.
#[inline(always)]
fn substitute<const S: usize>(row: &[f64], konst: f64, mode: &Mode, cap: f64) -> (f64, [f64; 3]) {
    let (shift, y) = substitution::<S>(row, mode);
    (konst + cap * shift, y)
}

/// [`substitute`]'s shift `row_i · x₀` and coefficients of `y`.
#[inline(always)]
fn substitution<const S: usize>(row: &[f64], mode: &Mode) -> (f64, [f64; 3]) {
    let q = mode.params;
    let mut shift = 0.0;
    let mut y = [0.0; 3];
    for c in 0..S {
        let a = row[c];
        if a != 0.0 {
            shift += a * mode.offset[c];
            for (yk, g) in y.iter_mut().zip(&mode.basis).take(q) {
                *yk += a * g[c];
            }
        }
    }
    (shift, y)
}
