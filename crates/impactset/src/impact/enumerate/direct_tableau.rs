//! The tableau algebra of the direct search (`direct.rs`): fixing a mode on
//! only the rows and columns a node or probe reads, and the bounds read from
//! a whole tableau (`tableau.rs` has the elimination and the module docs).

use super::gauss::solve_in_place;
use super::modes::Mode;
use super::tableau::{Reduced, StepData, low_bits, substitute};

impl Reduced {
    /// [`fix`](Self::fix) restricted to the entries a forward-checking probe
    /// reads: the rows of the contacts in the bit set `rows` (which must hold
    /// `i`) and, of those, only the constant column and the columns `cols`
    /// (increasing, none of contact `i`'s; `cols` ends with the constant
    /// column `D`). The columns of the elimination are independent (pivots
    /// are chosen on `R` alone), so every entry written equals the one
    /// [`fix`](Self::fix) computes, bit for bit; nothing else of `dst` is
    /// meaningful. `eq` needs `3·(D + 1)` entries, `r` 9. `resume` as in
    /// [`fix`](Self::fix).
    #[allow(clippy::too_many_arguments)]
    pub fn fix_probe(
        &self,
        src: &[f64],
        dst: &mut [f64],
        i: usize,
        mode: &Mode,
        cap: f64,
        rows: u64,
        cols: &[usize],
        eq: &mut [f64],
        r: &mut [f64],
        resume: bool,
    ) -> bool {
        debug_assert!(resume || rows & (1 << i) != 0, "the rows of the contact fixed");
        debug_assert_eq!(cols.last(), Some(&self.dim), "the constant column last");
        match self.s {
            2 => self.fix_probe_s::<2>(src, dst, i, mode, cap, rows, cols, eq, r, resume),
            3 => self.fix_probe_s::<3>(src, dst, i, mode, cap, rows, cols, eq, r, resume),
            s => unreachable!("{s} reduced coordinates per contact"),
        }
    }

    /// [`fix_probe`](Self::fix_probe) for `s = S`.
    #[allow(clippy::too_many_arguments)]
    fn fix_probe_s<const S: usize>(
        &self,
        src: &[f64],
        dst: &mut [f64],
        i: usize,
        mode: &Mode,
        cap: f64,
        rows: u64,
        cols: &[usize],
        eq: &mut [f64],
        r: &mut [f64],
        resume: bool,
    ) -> bool {
        let (dim, st, q) = (self.dim, self.stride(), mode.params);
        let l0 = i * S;
        let (free_cols, _) = cols.split_at(cols.len() - 1);
        self.for_rows(rows, |row| {
            let (src, dst) = (&src[row * st..(row + 1) * st], &mut dst[row * st..(row + 1) * st]);
            let (konst, y) = substitute::<S>(&src[l0..l0 + S], src[dim], mode, cap);
            for &c in free_cols {
                dst[c] = src[c];
            }
            dst[dim] = konst;
            for c in 0..S {
                dst[l0 + c] = if c < q { y[c] } else { 0.0 };
            }
        });
        if q == 0 {
            return true;
        }
        // The equations C u⁺_i = 0 as in `fix_s`, on the columns `cols` only
        // (stride `w`), and R from contact i's own columns.
        let w = cols.len();
        if !resume {
            for k in 0..q {
                let e = &mut eq[k * w..(k + 1) * w];
                e.iter_mut().for_each(|v| *v = 0.0);
                let mut own = [0.0; 3];
                for c in 0..S {
                    let ck = mode.rows[k][c];
                    if ck != 0.0 {
                        let urow = &dst[(dim + l0 + c) * st..(dim + l0 + c + 1) * st];
                        e.iter_mut().zip(cols).for_each(|(v, &col)| *v -= ck * urow[col]);
                        for (v, u) in own.iter_mut().zip(&urow[l0..l0 + q]) {
                            *v -= ck * u;
                        }
                    }
                }
                for kk in 0..q {
                    r[k * q + kk] = -own[kk];
                }
            }
            if !solve_in_place(r, q, eq, w, self.singular) {
                return false;
            }
        }
        self.for_rows(rows, |row| {
            let row = &mut dst[row * st..(row + 1) * st];
            let mut a = [0.0; 3];
            a[..q].copy_from_slice(&row[l0..l0 + q]);
            if a.iter().all(|&v| v == 0.0) {
                return;
            }
            // Per column, the terms in the order of `fix_s` (k ascending).
            for (idx, &col) in cols.iter().enumerate() {
                let mut v = row[col];
                for (k, &ak) in a.iter().enumerate().take(q) {
                    if ak != 0.0 {
                        v += ak * eq[k * w + idx];
                    }
                }
                row[col] = v;
            }
        });
        true
    }

    /// [`fix`](Self::fix) computing only the constant column, of the rows of
    /// the contacts in the bit set `rows` (which must hold `i`); the columns
    /// before `from` are zero as in [`fix`](Self::fix). Used where the other
    /// columns are not read (the last contact with none deferred: the leaf's
    /// `x` and the bounds of [`may_hold`](Self::may_hold) with nothing free),
    /// or already hold what [`fix`](Self::fix) writes there (they depend on
    /// `W` and the modes only, not on `u` or the caps: the root filter's
    /// tableaux). The columns of the elimination are independent (pivots are
    /// chosen on `R` alone), so every constant equals the one
    /// [`fix`](Self::fix) computes, bit for bit. Reads the tableau `src`,
    /// writes the constants of `dst` (`false`: singular, `dst` unusable).
    /// `eq` needs 3 entries (it keeps the solved equations), `r` 9. `resume`
    /// as in [`fix`](Self::fix).
    #[allow(clippy::too_many_arguments)]
    pub fn fix_constants(
        &self,
        src: &[f64],
        dst: &mut [f64],
        i: usize,
        mode: &Mode,
        cap: f64,
        rows: u64,
        eq: &mut [f64],
        r: &mut [f64],
        resume: bool,
    ) -> bool {
        debug_assert!(resume || rows & (1 << i) != 0, "the rows of the contact fixed");
        // Compiled per number of reduced coordinates, so the per-row loops unroll.
        match self.s {
            2 => self.fix_constants_s::<2>(src, dst, i, mode, cap, rows, eq, r, resume),
            3 => self.fix_constants_s::<3>(src, dst, i, mode, cap, rows, eq, r, resume),
            s => unreachable!("{s} reduced coordinates per contact"),
        }
    }

    /// [`fix_constants`](Self::fix_constants) for `s = S`.
    #[allow(clippy::too_many_arguments)]
    fn fix_constants_s<const S: usize>(
        &self,
        src: &[f64],
        dst: &mut [f64],
        i: usize,
        mode: &Mode,
        cap: f64,
        rows: u64,
        eq: &mut [f64],
        r: &mut [f64],
        resume: bool,
    ) -> bool {
        let (dim, st, q) = (self.dim, self.stride(), mode.params);
        let l0 = i * S;
        if q == 0 {
            self.for_rows(rows, |row| {
                let src = &src[row * st..(row + 1) * st];
                dst[row * st + dim] = substitute::<S>(&src[l0..l0 + S], src[dim], mode, cap).0;
            });
            return true;
        }
        if !resume {
            // The equations C u⁺_i = 0 on contact i's columns and the constant.
            let mut own = [(0.0, [0.0; 3]); 3];
            for (c, o) in own.iter_mut().enumerate().take(S) {
                let row = &src[(dim + l0 + c) * st..(dim + l0 + c + 1) * st];
                *o = substitute::<S>(&row[l0..l0 + S], row[dim], mode, cap);
            }
            let rhs = &mut eq[..q];
            for k in 0..q {
                let (mut e, mut e_const) = ([0.0; 3], 0.0);
                for (c, &(konst, y)) in own.iter().enumerate().take(S) {
                    let ck = mode.rows[k][c];
                    if ck != 0.0 {
                        for kk in 0..q {
                            e[kk] -= ck * y[kk];
                        }
                        e_const -= ck * konst;
                    }
                }
                for kk in 0..q {
                    r[k * q + kk] = -e[kk];
                }
                rhs[k] = e_const;
            }
            if !solve_in_place(r, q, rhs, 1, self.singular) {
                return false;
            }
        }
        let rhs = &eq[..q];
        self.for_rows(rows, |row| {
            let src = &src[row * st..(row + 1) * st];
            let (mut konst, y) = substitute::<S>(&src[l0..l0 + S], src[dim], mode, cap);
            for (&yk, &e) in y.iter().zip(rhs) {
                if yk != 0.0 {
                    konst += yk * e;
                }
            }
            dst[row * st + dim] = konst;
        });
        true
    }

    /// The largest value of `aᵀ x_j` over the hull of the vertices `hull`
    /// of `S_j` (see the module docs and [`Mode::vertices`]).
    /// `T` is the number of tangents `t`.
    #[inline(always)]
    fn max_over_hull<const T: usize>(&self, j: usize, a: &[f64; 3], cap: f64, hull: u64) -> f64 {
        debug_assert_eq!(T, self.t);
        let mu = self.friction[j];
        let mut best = if hull & 1 != 0 { 0.0 } else { f64::NEG_INFINITY };
        for (k, dk) in self.directions.iter().enumerate() {
            if hull & (1 << (1 + k)) != 0 {
                let along: f64 = (0..T).map(|c| a[1 + c] * dk[c]).sum();
                best = best.max(cap * (a[0] + mu * along));
            }
        }
        best
    }

    /// Whether every inequality of contact `i` (fixed in `mode` on `tab`) can
    /// still hold for some free impulses `x_j ∈ S_j` (restricted to the hull
    /// [`StepData::hull`]), `j` in the bit set
    /// `free`, within `rel` (see [`StepData::slack`]). Only the constant
    /// column and the free contacts' columns of the inequality's rows are
    /// read.
    pub fn may_hold(&self, tab: &[f64], i: usize, mode: &Mode, free: u64, step: &StepData, rel: f64) -> bool {
        // Compiled per number of reduced coordinates, so the per-column loops
        // unroll.
        match self.s {
            2 => self.may_hold_s::<2>(tab, i, mode, free, step, rel),
            3 => self.may_hold_s::<3>(tab, i, mode, free, step, rel),
            s => unreachable!("{s} reduced coordinates per contact"),
        }
    }

    /// [`may_hold`](Self::may_hold) for `s = S`.
    fn may_hold_s<const S: usize>(
        &self,
        tab: &[f64],
        i: usize,
        mode: &Mode,
        free: u64,
        step: &StepData,
        rel: f64,
    ) -> bool {
        let (dim, st) = (self.dim, self.stride());
        let free = free & low_bits(self.m);
        let tab = &tab[..self.tableau_len()];
        let (x_rows, u_rows) = (i * S * st, (dim + i * S - S) * st);
        for ineq in self.table.inequalities_of(mode) {
            // Column `col` of the combination of tableau rows (x_i then u⁺_i
            // per coordinate): only the constant and the free contacts'
            // columns are read.
            let mut terms = [(0.0, 0usize); 6];
            for (term, &(a, index)) in terms.iter_mut().zip(ineq.terms()) {
                *term = (a, if index < S { x_rows + index * st } else { u_rows + index * st });
            }
            let terms = &terms[..ineq.term_count];
            let column = |col: usize| terms.iter().fold(0.0, |v, &(a, row)| v + a * tab[row + col]);
            let mut upper = column(dim) + ineq.a0 * step.caps[i];
            let mut rest = free;
            while rest != 0 {
                let j = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let mut a = [0.0; 3];
                for (c, v) in a.iter_mut().enumerate().take(S) {
                    *v = column(j * S + c);
                }
                upper += match S {
                    2 => self.max_over_hull::<1>(j, &a, step.caps[j], step.hull[j]),
                    _ => self.max_over_hull::<2>(j, &a, step.caps[j], step.hull[j]),
                };
            }
            if upper < -step.slack(ineq, rel) {
                return false;
            }
        }
        true
    }
}
