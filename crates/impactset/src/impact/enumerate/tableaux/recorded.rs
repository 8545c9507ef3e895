//! The search's tableaux from fixed-mode records kept per mode prefix from
//! step to step (`tableaux/records/`): a step computes only the constant column of
//! each tableau and reads the bounds' other terms from the records.

use super::records::{Child, FixedCache, Slot};
use super::reduced::{Reduced, StepData, low_bits};
use super::{At, Fixing, Tableaux};
use crate::impact::enumerate::{EnumeratorOptions, PRUNE};

/// The records and the constants of one enumerator's search.
#[derive(Clone, Debug)]
pub(crate) struct Recorded {
    /// The fixed-mode records (see `tableaux/records/`).
    cache: FixedCache,
    /// The constant column of the tableau at each search level (`2D`
    /// entries per level; level 0 the root's).
    consts: Vec<f64>,
    /// The record of each level's tableau.
    slots: Vec<Slot>,
    /// The record of the node just fixed.
    node: Slot,
    /// The constants of the root filter's tableaux of contact 0, per mode:
    /// the search's first level reuses them.
    root_consts: Vec<f64>,
    /// The constants of a forward-checking probe (and of the root filter's
    /// tableaux of contacts other than 0).
    probe_consts: Vec<f64>,
    /// The solved mode equations of the last fix.
    e: [f64; 3],
}

impl Recorded {
    /// The search's buffers for `red`, its records holding at most
    /// `options.tuning.cache_bytes`.
    pub fn new(red: &Reduced, options: &EnumeratorOptions) -> Self {
        let (m, dim) = (red.m, red.dim);
        let first_modes = if m == 0 { 0 } else { red.table.of(0).len() };
        Recorded {
            cache: FixedCache::new(red, options.tuning.cache_bytes),
            consts: vec![0.0; (m + 1) * 2 * dim],
            slots: vec![FixedCache::root(); m + 1],
            node: FixedCache::root(),
            root_consts: vec![0.0; first_modes * 2 * dim],
            probe_consts: vec![0.0; 2 * dim],
            e: [0.0; 3],
        }
    }

    /// Whether the records filled their store in the last enumeration.
    #[cfg(test)]
    pub fn is_full(&self) -> bool {
        self.cache.is_full()
    }
}

impl Tableaux for Recorded {
    fn start(&mut self, red: &Reduced, step: &StepData) {
        self.cache.start();
        // Every pruning test's slack (the step's scales are fixed).
        self.cache.set_slacks(red, step, PRUNE);
        // The root's constants: x = 0, u⁺ = u.
        let root = &mut self.consts[..2 * red.dim];
        root[..red.dim].iter_mut().for_each(|v| *v = 0.0);
        root[red.dim..].copy_from_slice(step.u);
        self.slots[0] = FixedCache::root();
    }

    #[inline(always)]
    fn root_may_hold(&mut self, red: &Reduced, i: usize, k: usize, g: usize, cap: f64, step: &StepData) -> bool {
        let rows2 = 2 * red.dim;
        let mode = &red.table.modes[g];
        // (The root has no fixed contact: no choice is read.)
        let child = Child {
            parent: FixedCache::root(),
            contact: i,
            global: g,
            tableau: i == 0 && red.m > 1,
            scratch: red.m + 1,
        };
        let slot = self.cache.child(red, child, &[]);
        let rec = self.cache.get(slot);
        // Only contact i's rows are read, except for contact 0's constants:
        // the search's first level fixes the same modes on the same root
        // and reuses them.
        let (rows, dst) = if i == 0 {
            (low_bits(red.m), &mut self.root_consts[k * rows2..(k + 1) * rows2])
        } else {
            (1 << i, &mut self.probe_consts[..])
        };
        if rec.regular {
            let src = &self.consts[..rows2];
            FixedCache::constants(red, rec, i, mode, cap, src, dst, rows, &mut self.e, false);
        }
        !rec.regular || self.cache.own_may_hold(red, rec, i, mode, dst, step)
    }

    #[inline(always)]
    fn fix<const LAST: bool>(&mut self, red: &Reduced, mode: Fixing, _deferred: u64, choice: &[usize]) -> bool {
        let Fixing { contact: depth, global: g, cap } = mode;
        let (rows2, next) = (2 * red.dim, depth + 1);
        let child = Child { parent: self.slots[depth], contact: depth, global: g, tableau: !LAST, scratch: next };
        let slot = self.cache.child(red, child, choice);
        self.node = slot;
        if !LAST {
            // (Read by the forward checks and the level below.)
            self.slots[next] = slot;
        }
        let rec = self.cache.get(slot);
        let (parent, child) = self.consts[depth * rows2..(depth + 2) * rows2].split_at_mut(rows2);
        if depth == 0 {
            // Computed by the root filter (same tableau, mode and cap).
            let k = g - red.table.start[0];
            child.copy_from_slice(&self.root_consts[k * rows2..(k + 1) * rows2]);
        } else if rec.regular {
            let mode = &red.table.modes[g];
            FixedCache::constants(red, rec, depth, mode, cap, parent, child, 1 << depth, &mut self.e, false);
        }
        rec.regular
    }

    #[inline(always)]
    fn defer(&mut self, red: &Reduced, depth: usize) {
        let rows2 = 2 * red.dim;
        self.consts.copy_within(depth * rows2..(depth + 1) * rows2, (depth + 1) * rows2);
    }

    #[inline(always)]
    fn complete(&mut self, red: &Reduced, depth: usize, g: usize, cap: f64, rows: u64) {
        let rows2 = 2 * red.dim;
        let rec = self.cache.get(self.node);
        let (parent, child) = self.consts[depth * rows2..(depth + 2) * rows2].split_at_mut(rows2);
        let mode = &red.table.modes[g];
        FixedCache::constants(red, rec, depth, mode, cap, parent, child, rows, &mut self.e, true);
    }

    #[inline(always)]
    fn own_may_hold(&self, red: &Reduced, depth: usize, g: usize, _free: u64, step: &StepData) -> bool {
        let rows2 = 2 * red.dim;
        let child = &self.consts[(depth + 1) * rows2..(depth + 2) * rows2];
        let rec = self.cache.get(self.node);
        self.cache.own_may_hold(red, rec, depth, &red.table.modes[g], child, step)
    }

    #[inline(always)]
    fn others_may_hold(&self, red: &Reduced, at: At, choice: &[usize], step: &StepData) -> bool {
        let rows2 = 2 * red.dim;
        let child = &self.consts[(at.depth + 1) * rows2..(at.depth + 2) * rows2];
        // The record knows its eliminated contacts and free ones.
        self.cache.others_may_hold(red, self.cache.get(self.node), choice, child, step)
    }

    #[inline(always)]
    fn probe(&mut self, red: &Reduced, at: At, mode: Fixing, choice: &[usize], step: &StepData) -> bool {
        let Fixing { contact: j, global: g, cap } = mode;
        let (m, rows2, next) = (red.m, 2 * red.dim, at.depth + 1);
        let mode = &red.table.modes[g];
        let node_consts = &self.consts[next * rows2..(next + 1) * rows2];
        let child = Child { parent: self.slots[next], contact: j, global: g, tableau: false, scratch: m + 1 };
        let slot = self.cache.child(red, child, choice);
        let rec = self.cache.get(slot);
        let (probe, e) = (&mut self.probe_consts[..], &mut self.e);
        // Contact j's rows first; the fixed, eliminated contacts' only when
        // j's inequalities may hold.
        !rec.regular || {
            FixedCache::constants(red, rec, j, mode, cap, node_consts, probe, 1 << j, e, false);
            self.cache.own_may_hold(red, rec, j, mode, probe, step) && {
                let rows = low_bits(next) & !at.deferred;
                FixedCache::constants(red, rec, j, mode, cap, node_consts, probe, rows, e, true);
                self.cache.others_may_hold(red, rec, choice, probe, step)
            }
        }
    }

    fn leaf_impulses(&self, red: &Reduced, x: &mut [f64]) {
        let (m, dim) = (red.m, red.dim);
        x.copy_from_slice(&self.consts[2 * m * dim..2 * m * dim + dim]);
    }
}
