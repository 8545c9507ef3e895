//! The fixed-mode cache: what a search node needs of its tableau, kept per
//! mode prefix across the steps of one problem.
//!
//! A node's tableau, apart from its constant column, depends on `W` and on
//! the modes fixed so far only, not on the contact velocities `u` or the caps
//! (the elimination's columns are independent, and its pivots are chosen on
//! the mode block alone, `tableau.rs`). Fixing contact `i` in a mode on a
//! node's tableau is therefore recorded once, as a [`Fixed`]: per tableau row
//! the substitution's shift and coefficients `y` (the constant becomes
//! `c + cap · shift + Σ_k y_k e_k`), the mode block `R` (`e` solves
//! `R e = −C u⁺_i` on the constants), and, for every inequality the node
//! tests, the per-vertex values whose maximum over the admissible hull
//! bounds a free contact's term. A step then computes the constant column
//! alone, with the same operations in the same order as the whole
//! elimination: every constant and every bound is the same bit for bit.
//!
//! Records form a tree (children indexed by global mode: the search's next
//! contact and the forward-checking probes of the others) whose root is the
//! tableau `u⁺ = u + W x`. The tree holds at most
//! [`EnumeratorOptions::cache_bytes`](super::EnumeratorOptions::cache_bytes);
//! once full, further nodes are computed into per-level scratch records and
//! not kept, and the next enumeration starts from an empty tree.

use super::gauss::solve_in_place;
use super::modes::Mode;
use super::tableau::{Reduced, StepData, low_bits};

/// No child recorded.
const NONE: u32 = u32::MAX;

/// Contact `i` fixed in one mode on a node's tableau (see the module docs).
#[derive(Clone, Debug, Default)]
pub(super) struct Fixed {
    /// Whether the mode block `R` was regular (otherwise the contact is
    /// deferred: the tableau is the parent's, the contact stays free).
    pub regular: bool,
    /// `q`, the mode's parameters.
    q: usize,
    /// `R`, row-major `q × q`.
    r: [f64; 9],
    /// Per tableau row: the shift, then `y_0..y_q` (stride `1 + q`).
    rows: Vec<f64>,
    /// The contacts free in the bounds (the parent's free ones, less `i`
    /// when regular).
    free: u64,
    /// The contacts fixed and eliminated (the parent's, and `i` when
    /// regular).
    eliminated: u64,
    /// The contacts whose inequalities the node tests, in order, with their
    /// global mode and the offset of their values in `bounds`: `i` first
    /// when regular, then the parent's eliminated contacts, highest first.
    checks: Vec<(usize, usize, usize)>,
    /// Per check, inequality, free contact `j` (ascending) and direction
    /// `k`: `a_0 + μ_j d_kᵀ a_t`, `a` the inequality's coefficients on `x_j`
    /// (its value at the vertex `h p_j (1, μ_j d_k)` per unit cap).
    bounds: Vec<f64>,
    /// The tableau (constant column zero), when the node's children are
    /// computed from it; empty otherwise.
    tableau: Vec<f64>,
    /// Per global mode, the record of that mode fixed on this tableau
    /// ([`NONE`]: not yet); empty when not in the tree or without tableau.
    children: Vec<u32>,
}

impl Fixed {
    fn bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + 8 * (self.rows.capacity() + self.bounds.capacity() + self.tableau.capacity())
            + 4 * self.children.capacity()
            + std::mem::size_of::<(usize, usize, usize)>() * self.checks.capacity()
    }

    /// The checks of the parent's eliminated contacts (all but the first
    /// when regular).
    pub fn other_checks(&self) -> std::ops::Range<usize> {
        usize::from(self.regular)..self.checks.len()
    }
}

/// Where a record is: in the tree, or in a scratch record (level `1..=m`
/// of the search, `m + 1` for probes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Slot {
    Tree(u32),
    Scratch(usize),
}

/// The tree of [`Fixed`] records of one enumerator (see the module docs).
#[derive(Clone, Debug, Default)]
pub(super) struct FixedCache {
    /// Records in use are `tree[..used]` (`tree[0]` is the root); the rest
    /// keep their buffers for reuse.
    tree: Vec<Fixed>,
    used: usize,
    bytes: usize,
    limit: usize,
    full: bool,
    scratch: Vec<Fixed>,
    /// Per (global) inequality, the tableau rows of its terms
    /// ([`Inequality::terms`](super::modes::Inequality::terms)).
    term_rows: Vec<[u32; 6]>,
    /// A tableau buffer for records kept without one.
    tmp: Vec<f64>,
    eq: Vec<f64>,
    r: Vec<f64>,
}

impl FixedCache {
    /// The cache of `red`, holding at most `limit` bytes.
    pub fn new(red: &Reduced, limit: usize) -> Self {
        let mut root = Fixed {
            regular: true,
            free: low_bits(red.m),
            tableau: vec![0.0; red.tableau_len()],
            children: vec![NONE; red.table.modes.len()],
            ..Fixed::default()
        };
        red.init_tableau(&vec![0.0; red.dim], &mut root.tableau);
        let bytes = root.bytes();
        let mut term_rows = vec![[0; 6]; red.table.inequalities.len()];
        for i in 0..red.m {
            for mode in red.table.of(i) {
                for g in mode.first_inequality..mode.end_inequality {
                    for (row, &(_, index)) in term_rows[g].iter_mut().zip(red.table.inequalities[g].terms()) {
                        // x_i's coordinates, then u⁺_i's.
                        let at = if index < red.s { index } else { red.dim + index - red.s };
                        *row = (i * red.s + at) as u32;
                    }
                }
            }
        }
        FixedCache {
            term_rows,
            tree: vec![root],
            used: 1,
            bytes,
            limit,
            full: false,
            scratch: vec![Fixed::default(); red.m + 2],
            tmp: vec![0.0; red.tableau_len()],
            eq: vec![0.0; 3 * red.stride()],
            r: vec![0.0; 9],
        }
    }

    /// Whether the tree filled up (it is emptied at the next
    /// [`start`](Self::start)).
    #[cfg(test)]
    pub fn is_full(&self) -> bool {
        self.full
    }

    /// The root's slot.
    pub fn root() -> Slot {
        Slot::Tree(0)
    }

    /// Empties the tree if it filled up during the last enumeration.
    pub fn start(&mut self) {
        if self.full {
            self.full = false;
            self.used = 1;
            self.bytes = self.tree[0].bytes();
            self.tree[0].children.iter_mut().for_each(|c| *c = NONE);
        }
    }

    /// The record in `slot`.
    #[inline]
    pub fn get(&self, slot: Slot) -> &Fixed {
        match slot {
            Slot::Tree(k) => &self.tree[k as usize],
            Slot::Scratch(k) => &self.scratch[k],
        }
    }

    /// The record of contact `i` fixed in the global mode `g` on the node
    /// `parent`, computed when not in the tree (into the tree while it has
    /// room and `parent` is in it, else into the scratch record `scratch`).
    /// `choice` holds the global modes of the parent's eliminated contacts;
    /// `tableau`: the record's children will be needed (it keeps its
    /// tableau).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn child(
        &mut self,
        red: &Reduced,
        parent: Slot,
        i: usize,
        g: usize,
        choice: &[usize],
        tableau: bool,
        scratch: usize,
    ) -> Slot {
        // The common case first: in the tree, with what is needed.
        if let Slot::Tree(p) = parent {
            let k = self.tree[p as usize].children[g];
            if k != NONE && !(tableau && self.tree[k as usize].tableau.is_empty()) {
                return Slot::Tree(k);
            }
        }
        self.child_slow(red, parent, i, g, choice, tableau, scratch)
    }

    /// [`child`](Self::child) when the record is not in the tree or lacks
    /// its tableau.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn child_slow(
        &mut self,
        red: &Reduced,
        parent: Slot,
        i: usize,
        g: usize,
        choice: &[usize],
        tableau: bool,
        scratch: usize,
    ) -> Slot {
        if let Slot::Tree(p) = parent {
            let k = self.tree[p as usize].children[g];
            if k != NONE {
                if tableau && self.tree[k as usize].tableau.is_empty() {
                    let (head, tail) = self.tree.split_at_mut(k as usize);
                    let child = &mut tail[0];
                    let before = child.bytes();
                    child.tableau.resize(red.tableau_len(), 0.0);
                    child.children.resize(red.table.modes.len(), NONE);
                    Self::compute_tableau(red, &head[p as usize], i, g, &mut child.tableau, &mut self.eq, &mut self.r);
                    self.bytes += child.bytes() - before;
                    self.full |= self.bytes > self.limit;
                }
                return Slot::Tree(k);
            }
            if !self.full {
                let k = self.used;
                if k == self.tree.len() {
                    self.tree.push(Fixed::default());
                }
                self.used += 1;
                let (head, tail) = self.tree.split_at_mut(k);
                let rec = &mut tail[0];
                Self::compute(
                    red,
                    &head[p as usize],
                    i,
                    g,
                    choice,
                    tableau,
                    rec,
                    &mut self.tmp,
                    &mut self.eq,
                    &mut self.r,
                );
                self.tree[p as usize].children[g] = k as u32;
                self.bytes += self.tree[k].bytes();
                self.full = self.bytes > self.limit;
                return Slot::Tree(k as u32);
            }
        }
        let mut rec = std::mem::take(&mut self.scratch[scratch]);
        let parent = match parent {
            Slot::Tree(p) => &self.tree[p as usize],
            Slot::Scratch(k) => &self.scratch[k],
        };
        Self::compute(red, parent, i, g, choice, tableau, &mut rec, &mut self.tmp, &mut self.eq, &mut self.r);
        rec.children.clear();
        self.scratch[scratch] = rec;
        Slot::Scratch(scratch)
    }

    /// The tableau of contact `i` fixed in mode `g` on `parent`'s (its
    /// constant column zero).
    fn compute_tableau(
        red: &Reduced,
        parent: &Fixed,
        i: usize,
        g: usize,
        tab: &mut [f64],
        eq: &mut [f64],
        r: &mut [f64],
    ) -> bool {
        let mode = &red.table.modes[g];
        // The parent's eliminated contacts' columns are zero.
        let from = (!parent.eliminated).trailing_zeros() as usize * red.s;
        let regular = red.fix(&parent.tableau, tab, from, i, mode, 0.0, low_bits(red.m), eq, r, false);
        if !regular {
            tab.copy_from_slice(&parent.tableau);
        }
        regular
    }

    /// Computes the record of contact `i` fixed in mode `g` on `parent`.
    #[allow(clippy::too_many_arguments)]
    fn compute(
        red: &Reduced,
        parent: &Fixed,
        i: usize,
        g: usize,
        choice: &[usize],
        keep_tableau: bool,
        rec: &mut Fixed,
        tmp: &mut Vec<f64>,
        eq: &mut [f64],
        r: &mut [f64],
    ) {
        let (len, st, dim, s) = (red.tableau_len(), red.stride(), red.dim, red.s);
        let mode = &red.table.modes[g];
        let q = mode.params;
        if keep_tableau {
            rec.tableau.resize(len, 0.0);
            rec.children.clear();
            rec.children.resize(red.table.modes.len(), NONE);
        } else {
            rec.tableau.clear();
            rec.children.clear();
        }
        let tab = if keep_tableau { &mut rec.tableau[..] } else { &mut tmp[..len] };
        let regular = Self::compute_tableau(red, parent, i, g, tab, eq, r);
        rec.regular = regular;
        rec.q = q;
        // The substitution of each row, from the parent's tableau.
        let l0 = i * s;
        rec.rows.clear();
        for row in 0..2 * dim {
            let src = &parent.tableau[row * st + l0..row * st + l0 + s];
            let (shift, y) = red.substitution(src, mode);
            rec.rows.push(shift);
            rec.rows.extend_from_slice(&y[..q]);
        }
        // R as the elimination builds it: −C applied to contact i's u⁺ rows'
        // coefficients of y, negated.
        rec.r = [0.0; 9];
        for k in 0..q {
            let mut e = [0.0; 3];
            for c in 0..s {
                let ck = mode.rows[k][c];
                if ck != 0.0 {
                    let y = &rec.rows[(dim + l0 + c) * (1 + q) + 1..][..q];
                    for kk in 0..q {
                        e[kk] -= ck * y[kk];
                    }
                }
            }
            for kk in 0..q {
                rec.r[k * q + kk] = -e[kk];
            }
        }
        rec.free = if regular { parent.free & !(1 << i) } else { parent.free };
        rec.eliminated = if regular { parent.eliminated | (1 << i) } else { parent.eliminated };
        rec.checks.clear();
        rec.bounds.clear();
        if regular {
            rec.checks.push((i, g, 0));
        }
        let mut rest = parent.eliminated;
        while rest != 0 {
            let c = 63 - rest.leading_zeros() as usize;
            rest &= !(1 << c);
            rec.checks.push((c, choice[c], 0));
        }
        for check in &mut rec.checks {
            check.2 = rec.bounds.len();
            red.bound_values(tab, check.0, &red.table.modes[check.1], rec.free, &mut rec.bounds);
        }
    }

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
        rec: &Fixed,
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
            &Fixed,
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
        let data = &rec.rows[..2 * dim * stride];
        if Q > 0 && !resume {
            // The equations C u⁺_i = 0 on the constants, solved with R.
            let mut own = [0.0; S];
            for (c, o) in own.iter_mut().enumerate() {
                let row = dim + l0 + c;
                *o = src[row] + cap * data[row * stride];
            }
            for k in 0..Q {
                let mut v = 0.0;
                for (c, &o) in own.iter().enumerate() {
                    let ck = mode.rows[k][c];
                    if ck != 0.0 {
                        v -= ck * o;
                    }
                }
                e[k] = v;
            }
            let mut r = rec.r;
            let solved = solve_in_place(&mut r, Q, &mut e[..Q], 1, red.singular);
            debug_assert!(solved, "a regular record's block");
        }
        let rows = rows & low_bits(red.m);
        for half in [0, dim] {
            let mut rest = rows;
            while rest != 0 {
                let c = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                for a in 0..S {
                    let row = half + c * S + a;
                    let data = &data[row * stride..][..stride];
                    let mut konst = src[row] + cap * data[0];
                    for k in 0..Q {
                        let yk = data[1 + k];
                        if yk != 0.0 {
                            konst += yk * e[k];
                        }
                    }
                    dst[row] = konst;
                }
            }
        }
    }

    /// Whether every inequality of check `k` of `rec` can still hold for
    /// some free impulses in the hulls of `step`, within the slack
    /// `slack[g]` of each (global) inequality `g`, given the node's
    /// constants `consts` (the same test as bounding each free contact's
    /// term by its maximum over the hull's vertices, bit for bit).
    #[inline(always)]
    pub fn may_hold(
        &self,
        red: &Reduced,
        rec: &Fixed,
        k: usize,
        consts: &[f64],
        step: &StepData,
        slack: &[f64],
    ) -> bool {
        let (i, g, at) = rec.checks[k];
        let mode = &red.table.modes[g];
        let d = red.directions.len();
        let mut values = &rec.bounds[at..];
        let range = mode.first_inequality..mode.end_inequality;
        for ((ineq, rows), &slack) in
            red.table.inequalities[range.clone()].iter().zip(&self.term_rows[range.clone()]).zip(&slack[range])
        {
            let mut upper = ineq.terms().iter().zip(rows).fold(0.0, |v, (&(a, _), &row)| v + a * consts[row as usize]);
            upper += ineq.a0 * step.caps[i];
            let mut rest = rec.free;
            while rest != 0 {
                let j = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let (cap, hull) = (step.caps[j], step.hull[j]);
                let (here, later) = values.split_at(d);
                let mut best = if hull & 1 != 0 { 0.0 } else { f64::NEG_INFINITY };
                for (kk, &v) in here.iter().enumerate() {
                    if hull & (1 << (1 + kk)) != 0 {
                        best = best.max(cap * v);
                    }
                }
                values = later;
                upper += best;
            }
            if upper < -slack {
                return false;
            }
        }
        true
    }
}
