//! What a step computes from the records: the constants of a node's
//! tableau and the pruning bounds over them, with the operations of the
//! whole elimination (`Reduced::fix`) in the same order, bit for bit.

use super::{FixedCache, View};
use crate::impact::enumerate::modes::Mode;
use crate::impact::enumerate::tableaux::gauss::{apply_2, solve_in_place, solve_len};
use crate::impact::enumerate::tableaux::reduced::{Reduced, StepData, low_bits};

impl FixedCache {
    /// The constants of the rows of the contacts in the bit set `rows`, of
    /// the tableau `rec` fixes (contact `i` in `mode`, cap `cap`), from the
    /// parent's constants `src` (`2D` entries, one per row) into `dst`. Each
    /// equals the constant of the whole elimination
    /// ([`Reduced::fix`]) bit for bit. `e` keeps the solved equations: with
    /// `resume`, a previous call on the same record and constants (whose
    /// `rows` held `i`) solved them.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn constants(
        red: &Reduced,
        rec: View<'_>,
        i: usize,
        mode: &Mode,
        cap: f64,
        src: &[f64],
        dst: &mut [f64],
        rows: u64,
        e: &mut [f64; 3],
        resume: bool,
    ) {
        // Compiled per number of reduced coordinates and of parameters, so
        // the per-row loops unroll.
        let args = (red, rec, i, mode, cap, src, dst, rows, e, resume);
        match (red.s, rec.q) {
            (2, 0) => Self::constants_sq::<2, 0>(args),
            (2, 1) => Self::constants_sq::<2, 1>(args),
            (2, 2) => Self::constants_sq::<2, 2>(args),
            (3, 0) => Self::constants_sq::<3, 0>(args),
            (3, 1) => Self::constants_sq::<3, 1>(args),
            (3, 2) => Self::constants_sq::<3, 2>(args),
            (3, 3) => Self::constants_sq::<3, 3>(args),
            (s, q) => unreachable!("{q} parameters of {s} reduced coordinates"),
        }
    }

    /// [`constants`](Self::constants) for `s = S`, `q = Q`.
    #[allow(clippy::type_complexity)]
    #[inline(always)]
    fn constants_sq<const S: usize, const Q: usize>(
        (red, rec, i, mode, cap, src, dst, rows, e, resume): (
            &Reduced,
            View<'_>,
            usize,
            &Mode,
            f64,
            &[f64],
            &mut [f64],
            u64,
            &mut [f64; 3],
            bool,
        ),
    ) {
        let dim = red.dim;
        let stride = 1 + Q;
        let l0 = i * S;
        let (plan, data) = rec.data.split_at(solve_len(Q));
        let data = &data[..2 * dim * stride];
        if Q > 0 && !resume {
            // The equations C u⁺_i = 0 on the constants, solved with R.
            let mut own = [0.0; S];
            for (c, o) in own.iter_mut().enumerate() {
                let row = dim + l0 + c;
                *o = src[row] + cap * data[row * stride];
            }
            for (ek, ck) in e.iter_mut().zip(&mode.rows).take(Q) {
                let mut v = 0.0;
                for (&c, &o) in ck.iter().zip(&own) {
                    if c != 0.0 {
                        v -= c * o;
                    }
                }
                *ek = v;
            }
            match Q {
                1 => e[0] *= plan[0],
                2 => (e[0], e[1]) = apply_2(plan, e[0], e[1]),
                _ => {
                    let mut r = [0.0; 9];
                    r[..Q * Q].copy_from_slice(plan);
                    let solved = solve_in_place(&mut r, Q, &mut e[..Q], 1, red.singular);
                    debug_assert!(solved, "a regular record's block");
                }
            }
        }
        debug_assert_eq!(rows & !low_bits(red.m), 0, "rows of contacts beyond m");
        for half in [0, dim] {
            let mut rest = rows;
            while rest != 0 {
                let c = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                // Contact c's S rows in this half, one slice each.
                let first = half + c * S;
                let data = data[first * stride..][..S * stride].chunks_exact(stride);
                for ((data, &src), dst) in data.zip(&src[first..][..S]).zip(&mut dst[first..][..S]) {
                    let mut konst = src + cap * data[0];
                    for k in 0..Q {
                        let yk = data[1 + k];
                        if yk != 0.0 {
                            konst += yk * e[k];
                        }
                    }
                    *dst = konst;
                }
            }
        }
    }

    /// Whether every inequality of contact `i` (fixed in `mode`, the record
    /// `rec`'s own contact) can still hold for some free impulses in the
    /// hulls of `step`, within the slack [`set_slacks`](Self::set_slacks)
    /// gave each inequality, given the node's constants `consts` (the same
    /// test as bounding each free contact's term by its maximum over the
    /// hull's vertices, bit for bit).
    #[inline(always)]
    pub fn own_may_hold(
        &self,
        red: &Reduced,
        rec: View<'_>,
        i: usize,
        mode: &Mode,
        consts: &[f64],
        step: &StepData,
    ) -> bool {
        debug_assert!(rec.regular);
        self.check(red, rec.free, &rec.data[rec.own_at..], i, mode, consts, step).is_some()
    }

    /// [`own_may_hold`](Self::own_may_hold) for the parent's eliminated
    /// contacts (`choice` the global modes of the path), highest first.
    #[inline(always)]
    pub fn others_may_hold(
        &self,
        red: &Reduced,
        rec: View<'_>,
        choice: &[usize],
        consts: &[f64],
        step: &StepData,
    ) -> bool {
        let mut values = &rec.data[rec.others_at..];
        let mut rest = rec.parent_eliminated;
        while rest != 0 {
            let c = 63 - rest.leading_zeros() as usize;
            rest &= !(1 << c);
            match self.check(red, rec.free, values, c, &red.table.modes[choice[c]], consts, step) {
                Some(later) => values = later,
                None => return false,
            }
        }
        true
    }

    /// The bounds of contact `i`'s inequalities (in `mode`) from the values
    /// `values`: the values after them, or `None` when one cannot hold.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn check<'v>(
        &self,
        red: &Reduced,
        free: u64,
        mut values: &'v [f64],
        i: usize,
        mode: &Mode,
        consts: &[f64],
        step: &StepData,
    ) -> Option<&'v [f64]> {
        let (d, every_vertex) = (red.directions.len(), self.every_vertex);
        let cap_i = step.caps[i];
        for bound in &self.bounds[mode.first_inequality..mode.end_inequality] {
            let terms = bound.terms.iter().take(bound.count);
            let mut upper = terms.fold(0.0, |v, &(a, row)| v + a * consts[row as usize]);
            upper += bound.a0 * cap_i;
            let mut rest = free;
            while rest != 0 {
                let j = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let (cap, hull) = (step.caps[j], step.hull[j]);
                let (here, later) = values.split_at(d + 2);
                values = later;
                upper += if hull & every_vertex == every_vertex {
                    // Over the origin and every vertex: the extreme value
                    // scaled, equal to the largest scaled value (rounding
                    // is monotone; the sign of a zero aside, which the
                    // test below cannot see).
                    cap * if cap >= 0.0 { here[d] } else { here[d + 1] }
                } else {
                    let mut best = if hull & 1 != 0 { 0.0 } else { f64::NEG_INFINITY };
                    for (kk, &v) in here[..d].iter().enumerate() {
                        if hull & (1 << (1 + kk)) != 0 {
                            best = best.max(cap * v);
                        }
                    }
                    best
                };
            }
            if upper < -bound.slack {
                return None;
            }
        }
        Some(values)
    }
}
