//! The fixed-mode cache: what a search node needs of its tableau, kept per
//! mode prefix across the steps of one problem.
//!
//! A node's tableau, apart from its constant column, depends on `W` and on
//! the modes fixed so far only, not on the contact velocities `u` or the caps
//! (the elimination's columns are independent, and its pivots are chosen on
//! the mode block alone, `eliminate.rs`). Fixing contact `i` in a mode on a
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
//! [`EnumeratorOptions::cache_bytes`](crate::impact::enumerate::EnumeratorOptions::cache_bytes);
//! once full, further nodes are computed into per-level scratch records and
//! not kept, and the next enumeration starts from an empty tree.

use super::eliminate::Columns;
use super::gauss::{solve_len, solve_plan};
use super::reduced::{Reduced, StepData, low_bits};

mod step;

/// No child recorded.
const NONE: u32 = u32::MAX;

/// Contact `i` fixed in one mode on a node's tableau (see the module docs).
/// Its numbers lie in one run of `f64` (in the tree's store, or in a
/// scratch record's own): what solving `R` needs ([`solve_plan`]), then
/// per tableau row the shift and `y_0..y_q` (stride `1 + q`), then the
/// bounds' values: per check (contact `i` first when regular, then the
/// parent's eliminated contacts, highest first), inequality, free contact
/// `j` (ascending) and direction `k`, `a_0 + μ_j d_kᵀ a_t`, `a` the
/// inequality's coefficients on `x_j` (its value at the vertex
/// `h p_j (1, μ_j d_k)` per unit cap), each free contact's values followed
/// by their largest and least with the origin's `0` (the bound over the
/// whole set, for either sign of the cap).
#[derive(Clone, Debug, Default)]
pub(crate) struct Fixed {
    /// Whether the mode block `R` was regular (otherwise the contact is
    /// deferred: the tableau is the parent's, the contact stays free).
    pub regular: bool,
    /// `q`, the mode's parameters.
    q: usize,
    /// The contacts free in the bounds (the parent's free ones, less `i`
    /// when regular).
    free: u64,
    /// The fixed and eliminated contacts: the parent's, and the node's
    /// (the parent's and `i` when regular).
    parent_eliminated: u64,
    eliminated: u64,
    /// Where the record's numbers start in the tree's store, and how many.
    at: usize,
    len: usize,
    /// Where, among them, the bounds' values start, and those of the
    /// parent's eliminated contacts.
    own_at: usize,
    others_at: usize,
    /// The tableau (constant column zero), when the node's children are
    /// computed from it; empty otherwise.
    tableau: Vec<f64>,
    /// Per global mode, the record of that mode fixed on this tableau
    /// ([`NONE`]: not yet); empty when not in the tree or without tableau.
    children: Vec<u32>,
}

impl Fixed {
    /// Bytes of the record's own buffers.
    fn bytes(&self) -> usize {
        8 * self.tableau.capacity() + 4 * self.children.capacity()
    }
}

/// A record and its numbers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct View<'a> {
    pub regular: bool,
    q: usize,
    free: u64,
    parent_eliminated: u64,
    data: &'a [f64],
    own_at: usize,
    others_at: usize,
}

/// Where a record is: in the tree, or in a scratch record (level `1..=m`
/// of the search, `m + 1` for probes). One word with a scratch bit, so that
/// each node writes and reads it whole (docs/performance.md has why).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot(u32);

/// The bit of a [`Slot`] that marks a scratch record.
const SCRATCH: u32 = 1 << 31;

/// A [`Slot`] decoded.
enum Place {
    Tree(usize),
    Scratch(usize),
}

impl Slot {
    /// Record `k` of the tree.
    fn tree(k: usize) -> Slot {
        debug_assert!(k < SCRATCH as usize);
        Slot(k as u32)
    }

    /// Scratch record `k`.
    fn scratch(k: usize) -> Slot {
        debug_assert!(k < SCRATCH as usize);
        Slot(SCRATCH | k as u32)
    }

    #[inline(always)]
    fn place(self) -> Place {
        if self.0 & SCRATCH == 0 { Place::Tree(self.0 as usize) } else { Place::Scratch((self.0 & !SCRATCH) as usize) }
    }
}

/// One inequality `a_xᵀ x_i + a_uᵀ u⁺_i + a₀ h p_i ≥ 0` as the bounds read
/// it: `a₀`, the step's pruning slack, and its nonzero terms as
/// (coefficient, tableau row), in [`Inequality::terms`]' order.
///
/// [`Inequality::terms`]: crate::impact::enumerate::modes::Inequality::terms
#[derive(Clone, Copy, Debug, Default)]
struct Bound {
    a0: f64,
    slack: f64,
    count: usize,
    terms: [(f64, u32); 6],
}

/// A record asked of [`FixedCache::child`]: contact `contact` fixed in the
/// global mode `global` on the node `parent`; `tableau`: the record's
/// children will be needed (it keeps its tableau); `scratch`: the scratch
/// record it is computed into where the tree cannot hold it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Child {
    pub parent: Slot,
    pub contact: usize,
    pub global: usize,
    pub tableau: bool,
    pub scratch: usize,
}

/// The tree of [`Fixed`] records of one enumerator (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct FixedCache {
    /// Records (`tree[0]` is the root).
    tree: Vec<Fixed>,
    /// The numbers of the records in the tree, one run each.
    store: Vec<f64>,
    bytes: usize,
    limit: usize,
    full: bool,
    scratch: Vec<Fixed>,
    /// The numbers of each scratch record.
    scratch_data: Vec<Vec<f64>>,
    /// Per (global) inequality, what its test reads, in one place.
    bounds: Vec<Bound>,
    /// The hull bits of the origin and every vertex.
    every_vertex: u64,
    /// A buffer for a record's numbers.
    buf: Vec<f64>,
    work: Work,
}

/// The buffers of a record's computation: a tableau for records kept
/// without one, and the elimination's (`eq`: `3·(D + 1)`, `r`: 9).
#[derive(Clone, Debug, Default)]
struct Work {
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
        let mut bounds = vec![Bound::default(); red.table.inequalities.len()];
        for i in 0..red.m {
            for mode in red.table.of(i) {
                let range = mode.first_inequality..mode.end_inequality;
                for (bound, ineq) in bounds[range.clone()].iter_mut().zip(&red.table.inequalities[range]) {
                    bound.a0 = ineq.a0;
                    bound.count = ineq.term_count;
                    for (term, &(a, index)) in bound.terms.iter_mut().zip(ineq.terms()) {
                        // x_i's coordinates, then u⁺_i's.
                        let at = if index < red.s { index } else { red.dim + index - red.s };
                        *term = (a, (i * red.s + at) as u32);
                    }
                }
            }
        }
        FixedCache {
            bounds,
            every_vertex: low_bits(1 + red.directions.len()),
            tree: vec![root],
            store: Vec::new(),
            bytes,
            limit,
            full: false,
            scratch: vec![Fixed::default(); red.m + 2],
            scratch_data: vec![Vec::new(); red.m + 2],
            buf: Vec::new(),
            work: Work { tmp: vec![0.0; red.tableau_len()], eq: vec![0.0; 3 * red.stride()], r: vec![0.0; 9] },
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
        Slot::tree(0)
    }

    /// Empties the tree if it filled up during the last enumeration.
    pub fn start(&mut self) {
        if self.full {
            self.full = false;
            self.tree.truncate(1);
            self.store.clear();
            self.bytes = self.tree[0].bytes();
            self.tree[0].children.iter_mut().for_each(|c| *c = NONE);
        }
    }

    /// Sets every inequality's pruning slack for the step `step`
    /// ([`StepData::slack`] with `rel`).
    pub fn set_slacks(&mut self, red: &Reduced, step: &StepData, rel: f64) {
        for (bound, ineq) in self.bounds.iter_mut().zip(&red.table.inequalities) {
            bound.slack = step.slack(ineq, rel);
        }
    }

    /// Bytes held: the records' buffers, the store and the record list.
    fn total(&self) -> usize {
        self.bytes + 8 * self.store.capacity() + std::mem::size_of::<Fixed>() * self.tree.capacity()
    }

    /// The record in `slot`.
    #[inline(always)]
    pub fn get(&self, slot: Slot) -> View<'_> {
        let (rec, data) = match slot.place() {
            Place::Tree(k) => {
                let rec = &self.tree[k];
                (rec, &self.store[rec.at..rec.at + rec.len])
            }
            Place::Scratch(k) => (&self.scratch[k], &self.scratch_data[k][..]),
        };
        View {
            regular: rec.regular,
            q: rec.q,
            free: rec.free,
            parent_eliminated: rec.parent_eliminated,
            data,
            own_at: rec.own_at,
            others_at: rec.others_at,
        }
    }

    /// The record `child` asks for, computed when not in the tree (into
    /// the tree while it has room and its parent is in it, else into its
    /// scratch record). `choice` holds the global modes of the parent's
    /// eliminated contacts.
    #[inline(always)]
    pub fn child(&mut self, red: &Reduced, child: Child, choice: &[usize]) -> Slot {
        // The common case first: in the tree, with what is needed.
        if let Place::Tree(p) = child.parent.place() {
            let k = self.tree[p].children[child.global];
            if k != NONE && !(child.tableau && self.tree[k as usize].tableau.is_empty()) {
                return Slot::tree(k as usize);
            }
        }
        self.child_slow(red, child, choice)
    }

    /// [`child`](Self::child) when the record is not in the tree or lacks
    /// its tableau.
    #[inline(never)]
    fn child_slow(&mut self, red: &Reduced, child: Child, choice: &[usize]) -> Slot {
        let Child { parent, contact: i, global: g, scratch, .. } = child;
        if let Place::Tree(p) = parent.place() {
            let k = self.tree[p].children[g];
            if k != NONE {
                // In the tree without its tableau.
                let (head, tail) = self.tree.split_at_mut(k as usize);
                let child = &mut tail[0];
                let before = child.bytes();
                child.tableau.resize(red.tableau_len(), 0.0);
                child.children.resize(red.table.modes.len(), NONE);
                Self::compute_tableau(red, &head[p], i, g, &mut child.tableau, &mut self.work.eq, &mut self.work.r);
                self.bytes += child.bytes() - before;
                self.full |= self.total() > self.limit;
                return Slot::tree(k as usize);
            }
            // (A slot numbers at most 2³¹ records: past that the tree is full.)
            self.full |= self.tree.len() >= SCRATCH as usize;
            if !self.full {
                let k = self.tree.len();
                let mut rec = Fixed::default();
                let parent = &self.tree[p];
                Self::compute(red, parent, child, choice, &mut rec, &mut self.buf, &mut self.work);
                rec.at = self.store.len();
                rec.len = self.buf.len();
                self.store.extend_from_slice(&self.buf);
                self.bytes += rec.bytes();
                self.tree.push(rec);
                self.tree[p].children[g] = k as u32;
                self.full = self.total() > self.limit;
                return Slot::tree(k);
            }
        }
        let mut rec = std::mem::take(&mut self.scratch[scratch]);
        let mut data = std::mem::take(&mut self.scratch_data[scratch]);
        let parent = match parent.place() {
            Place::Tree(p) => &self.tree[p],
            Place::Scratch(k) => &self.scratch[k],
        };
        Self::compute(red, parent, child, choice, &mut rec, &mut data, &mut self.work);
        rec.children.clear();
        rec.len = data.len();
        self.scratch[scratch] = rec;
        self.scratch_data[scratch] = data;
        Slot::scratch(scratch)
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
        let regular = red.fix(&parent.tableau, tab, i, mode, 0.0, low_bits(red.m), Columns::From(from), eq, r, false);
        if !regular {
            tab.copy_from_slice(&parent.tableau);
        }
        regular
    }

    /// Computes the record `child` asks for on `parent`; its numbers into
    /// `data`.
    fn compute(
        red: &Reduced,
        parent: &Fixed,
        child: Child,
        choice: &[usize],
        rec: &mut Fixed,
        data: &mut Vec<f64>,
        work: &mut Work,
    ) {
        let Child { contact: i, global: g, tableau: keep_tableau, .. } = child;
        let Work { tmp, eq, r } = work;
        let (len, st, dim, s) = (red.tableau_len(), red.stride(), red.dim, red.s);
        let mode = &red.table.modes[g];
        let q = mode.params;
        rec.children.clear();
        if keep_tableau {
            rec.tableau.resize(len, 0.0);
            rec.children.resize(red.table.modes.len(), NONE);
        } else {
            rec.tableau.clear();
        }
        let tab = if keep_tableau { &mut rec.tableau[..] } else { &mut tmp[..len] };
        let regular = Self::compute_tableau(red, parent, i, g, tab, eq, r);
        rec.regular = regular;
        rec.q = q;
        let parent_eliminated = parent.eliminated;
        rec.parent_eliminated = parent_eliminated;
        rec.eliminated = if regular { parent_eliminated | (1 << i) } else { parent_eliminated };
        // The substitution of each row, from the parent's tableau, after
        // room for the block's solve.
        let head = solve_len(q);
        data.clear();
        data.resize(head, 0.0);
        let l0 = i * s;
        for row in 0..2 * dim {
            let src = &parent.tableau[row * st + l0..row * st + l0 + s];
            let (shift, y) = red.substitution(src, mode);
            data.push(shift);
            data.extend_from_slice(&y[..q]);
        }
        // R as the elimination builds it: −C applied to contact i's u⁺ rows'
        // coefficients of y, negated.
        let mut block = [0.0; 9];
        for k in 0..q {
            let mut e = [0.0; 3];
            for c in 0..s {
                let ck = mode.rows[k][c];
                if ck != 0.0 {
                    let at = head + (dim + l0 + c) * (1 + q) + 1;
                    for kk in 0..q {
                        e[kk] -= ck * data[at + kk];
                    }
                }
            }
            for kk in 0..q {
                block[k * q + kk] = -e[kk];
            }
        }
        solve_plan(&block, q, red.singular, &mut data[..head]);
        rec.free = if regular { parent.free & !(1 << i) } else { parent.free };
        rec.own_at = data.len();
        if regular {
            red.bound_values(tab, i, mode, rec.free, data);
        }
        rec.others_at = data.len();
        let mut rest = parent_eliminated;
        while rest != 0 {
            let c = 63 - rest.leading_zeros() as usize;
            rest &= !(1 << c);
            red.bound_values(tab, c, &red.table.modes[choice[c]], rec.free, data);
        }
    }
}
