//! The bounds the direct search (`direct.rs`) reads from a whole tableau
//! (`tableaux/reduced.rs` has the module docs, `eliminate.rs` the elimination).

use super::reduced::{Reduced, StepData, low_bits};
use crate::impact::enumerate::modes::{Inequality, Mode};

impl Reduced {
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

    /// Where the terms of contact `i`'s inequality `ineq` live in a tableau:
    /// per term its coefficient and the offset of its row (`x_i`'s rows, then
    /// `u⁺_i`'s), the first [`term_count`](crate::impact::enumerate::modes::Inequality::term_count) used.
    #[inline(always)]
    pub fn inequality_rows(&self, i: usize, ineq: &Inequality) -> [(f64, usize); 6] {
        let (s, st) = (self.s, self.stride());
        let (x_rows, u_rows) = (i * s * st, (self.dim + i * s - s) * st);
        let mut terms = [(0.0, 0usize); 6];
        for (term, &(a, index)) in terms.iter_mut().zip(ineq.terms()) {
            *term = (a, if index < s { x_rows + index * st } else { u_rows + index * st });
        }
        terms
    }

    /// Whether every inequality of contact `i` (fixed in `mode` on `tab`) can
    /// still hold for some free impulses `x_j ∈ S_j` (restricted to the hull
    /// [`StepData::hull`]), `j` in the bit set
    /// `free`, within `rel` (see [`StepData::slack`]). Only the constant
    /// column and the free contacts' columns of the inequality's rows are
    /// read. Compiled for AVX2 where the processor has it (the same
    /// operations, so the same bits: no fused multiply-add).
    pub fn may_hold(&self, tab: &[f64], i: usize, mode: &Mode, free: u64, step: &StepData, rel: f64) -> bool {
        #[cfg(target_arch = "x86_64")]
        if crate::lcp::avx2() {
            // SAFETY: the processor has AVX2.
            return unsafe { self.may_hold_avx2(tab, i, mode, free, step, rel) };
        }
        self.may_hold_any(tab, i, mode, free, step, rel)
    }

    /// [`may_hold`](Self::may_hold) compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn may_hold_avx2(&self, tab: &[f64], i: usize, mode: &Mode, free: u64, step: &StepData, rel: f64) -> bool {
        self.may_hold_any(tab, i, mode, free, step, rel)
    }

    #[inline(always)]
    fn may_hold_any(&self, tab: &[f64], i: usize, mode: &Mode, free: u64, step: &StepData, rel: f64) -> bool {
        // Compiled per number of reduced coordinates, so the per-column loops
        // unroll.
        match self.s {
            2 => self.may_hold_s::<2>(tab, i, mode, free, step, rel),
            3 => self.may_hold_s::<3>(tab, i, mode, free, step, rel),
            s => unreachable!("{s} reduced coordinates per contact"),
        }
    }

    /// [`may_hold`](Self::may_hold) for `s = S`.
    #[inline(always)]
    fn may_hold_s<const S: usize>(
        &self,
        tab: &[f64],
        i: usize,
        mode: &Mode,
        free: u64,
        step: &StepData,
        rel: f64,
    ) -> bool {
        let dim = self.dim;
        let free = free & low_bits(self.m);
        let tab = &tab[..self.tableau_len()];
        for ineq in self.table.inequalities_of(mode) {
            // Column `col` of the combination of tableau rows: only the
            // constant and the free contacts' columns are read.
            let terms = self.inequality_rows(i, ineq);
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
