//! The search's tableaux computed from their parents', for problems whose
//! fixed-mode records (`tableaux/records/`) would not fit their store (many contacts
//! with many modes: the records of deep nodes would be computed step after
//! step and not kept). Probes compute only the rows and columns their bounds
//! read, and the root filter's tableaux are kept apart from their constants
//! when they fit.

use std::ops::Range;

use super::eliminate::Columns;
use super::reduced::{Reduced, StepData, low_bits};
use super::{At, Fixing, Tableaux};
use crate::impact::enumerate::PRUNE;

/// The most entries (`f64`) of the root filter's tableaux the direct search
/// keeps from step to step (2 MiB).
const ROOT_CACHE_LIMIT: usize = 1 << 18;

/// The tableaux of one enumerator's search.
#[derive(Clone, Debug)]
pub(crate) struct Direct {
    /// The tableau at each search level (level 0 the root's).
    tableaux: Vec<f64>,
    /// A tableau for forward checking, and the runs of columns its probes
    /// compute.
    probe: Vec<f64>,
    probe_cols: Vec<Range<usize>>,
    /// The root tableau with one contact fixed in one mode, per global mode
    /// index (the root filter's; contact 0's are reused by the search's
    /// first level), and whether that mode's block was regular. With
    /// `root_cached` every mode's tableau is kept, its columns other than
    /// the constants (which depend on `W` and the mode alone) computed once,
    /// when the enumerator is built; otherwise only contact 0's are kept and
    /// each is computed in full on every step.
    root_fixed: Vec<f64>,
    root_regular: Vec<bool>,
    root_cached: bool,
    /// The columns of the node just fixed.
    node_from: usize,
    node_constants_only: bool,
    /// The solved mode equations of the last fix and its block.
    eq: Vec<f64>,
    r: Vec<f64>,
}

impl Direct {
    /// The search's buffers for `red`.
    pub fn new(red: &Reduced) -> Self {
        let (m, len) = (red.m, red.tableau_len());
        let first_modes = if m == 0 { 0 } else { red.table.of(0).len() };
        let root_cached = red.table.modes.len() * len <= ROOT_CACHE_LIMIT;
        let root_modes = if root_cached { red.table.modes.len() } else { first_modes };
        let mut direct = Direct {
            tableaux: vec![0.0; (m + 1) * len],
            probe: vec![0.0; len],
            probe_cols: Vec::with_capacity(m),
            root_fixed: vec![0.0; root_modes * len],
            root_regular: vec![false; root_modes],
            root_cached,
            node_from: 0,
            node_constants_only: false,
            eq: vec![0.0; 3 * red.stride()],
            r: vec![0.0; 9],
        };
        if root_cached {
            direct.cache_root_tableaux(red);
        }
        direct
    }

    /// Computes every root-filter tableau once ([`Direct::root_fixed`]):
    /// its columns other than the constants do not depend on `u` or the caps
    /// (taken as zero here), so each step needs only its constants.
    fn cache_root_tableaux(&mut self, red: &Reduced) {
        let len = red.tableau_len();
        let root = &mut self.tableaux[..len];
        red.init_tableau(&vec![0.0; red.dim], root);
        let all = low_bits(red.m);
        for (g, mode) in red.table.modes.iter().enumerate() {
            let i = red.table.start.partition_point(|&start| start <= g) - 1;
            let tab = &mut self.root_fixed[g * len..(g + 1) * len];
            self.root_regular[g] =
                red.fix(root, tab, i, mode, 0.0, all, Columns::From(0), &mut self.eq, &mut self.r, false);
        }
    }

    /// The columns of the node just fixed.
    fn node_columns(&self) -> Columns<'static> {
        if self.node_constants_only { Columns::Constant } else { Columns::From(self.node_from) }
    }
}

impl Tableaux for Direct {
    fn start(&mut self, red: &Reduced, step: &StepData) {
        red.init_tableau(step.u, &mut self.tableaux[..red.tableau_len()]);
    }

    #[inline(always)]
    fn root_may_hold(&mut self, red: &Reduced, i: usize, k: usize, g: usize, cap: f64, step: &StepData) -> bool {
        let len = red.tableau_len();
        let all = low_bits(red.m);
        let mode = &red.table.modes[g];
        let (root, rest) = self.tableaux.split_at_mut(len);
        let (eq, r) = (&mut self.eq, &mut self.r);
        // Only contact i's rows are read, except for contact 0's tableaux:
        // the search's first level fixes the same modes on the same root and
        // reuses them.
        let rows = if i == 0 { all } else { 1 << i };
        let (tab, fixed) = if self.root_cached {
            let tab = &mut self.root_fixed[g * len..(g + 1) * len];
            let fixed = self.root_regular[g] && red.fix(root, tab, i, mode, cap, rows, Columns::Constant, eq, r, false);
            (&*tab, fixed)
        } else {
            let tab = if i == 0 { &mut self.root_fixed[k * len..(k + 1) * len] } else { &mut rest[..len] };
            let fixed = red.fix(root, tab, i, mode, cap, rows, Columns::From(0), eq, r, false);
            if i == 0 {
                self.root_regular[k] = fixed;
            }
            (&*tab, fixed)
        };
        !fixed || red.may_hold(tab, i, mode, all & !(1 << i), step, PRUNE)
    }

    #[inline(always)]
    fn fix<const LAST: bool>(&mut self, red: &Reduced, mode: Fixing, deferred: u64, _choice: &[usize]) -> bool {
        let Fixing { contact: depth, global: g, cap } = mode;
        let len = red.tableau_len();
        let mode = &red.table.modes[g];
        let (parent, child) = self.tableaux[depth * len..(depth + 2) * len].split_at_mut(len);
        // The contacts eliminated so far have zero columns; with none
        // deferred at the last level, only the constants are read below.
        self.node_from = (depth * red.s).min(deferred.trailing_zeros() as usize * red.s);
        self.node_constants_only = LAST && deferred == 0;
        if depth == 0 {
            // Computed by the root filter (same tableau, mode and cap).
            let k = g - red.table.start[0];
            child.copy_from_slice(&self.root_fixed[k * len..(k + 1) * len]);
            return self.root_regular[k];
        }
        let cols = if self.node_constants_only { Columns::Constant } else { Columns::From(self.node_from) };
        red.fix(parent, child, depth, mode, cap, 1 << depth, cols, &mut self.eq, &mut self.r, false)
    }

    #[inline(always)]
    fn defer(&mut self, red: &Reduced, depth: usize) {
        let len = red.tableau_len();
        self.tableaux.copy_within(depth * len..(depth + 1) * len, (depth + 1) * len);
    }

    #[inline(always)]
    fn complete(&mut self, red: &Reduced, depth: usize, g: usize, cap: f64, rows: u64) {
        let len = red.tableau_len();
        let mode = &red.table.modes[g];
        let cols = self.node_columns();
        let (parent, child) = self.tableaux[depth * len..(depth + 2) * len].split_at_mut(len);
        red.fix(parent, child, depth, mode, cap, rows, cols, &mut self.eq, &mut self.r, true);
    }

    #[inline(always)]
    fn own_may_hold(&self, red: &Reduced, depth: usize, g: usize, free: u64, step: &StepData) -> bool {
        let len = red.tableau_len();
        let child = &self.tableaux[(depth + 1) * len..(depth + 2) * len];
        red.may_hold(child, depth, &red.table.modes[g], free, step, PRUNE)
    }

    #[inline(always)]
    fn others_may_hold(&self, red: &Reduced, at: At, choice: &[usize], step: &StepData) -> bool {
        let len = red.tableau_len();
        let child = &self.tableaux[(at.depth + 1) * len..(at.depth + 2) * len];
        (0..at.depth).rev().filter(|&i| at.deferred & (1 << i) == 0).all(|i| {
            let mode = &red.table.modes[choice[i]];
            red.may_hold(child, i, mode, at.free, step, PRUNE)
        })
    }

    fn node_tableau(&self, red: &Reduced, depth: usize) -> Option<&[f64]> {
        let len = red.tableau_len();
        Some(&self.tableaux[(depth + 1) * len..(depth + 2) * len])
    }

    fn probes_with(&mut self, red: &Reduced, free: u64) {
        // The columns the probes' bounds read: the free contacts' (one run
        // per contact) and the constant.
        self.probe_cols.clear();
        let mut rest = free & low_bits(red.m);
        while rest != 0 {
            let c = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            self.probe_cols.push(c * red.s..(c + 1) * red.s);
        }
    }

    #[inline(always)]
    fn probe(&mut self, red: &Reduced, at: At, mode: Fixing, choice: &[usize], step: &StepData) -> bool {
        let Fixing { contact: j, global: g, cap } = mode;
        let (len, next, deferred, free) = (red.tableau_len(), at.depth + 1, at.deferred, at.free);
        let mode_j = &red.table.modes[g];
        let child = &self.tableaux[next * len..(next + 1) * len];
        let (probe, eq, r) = (&mut self.probe[..len], &mut self.eq, &mut self.r);
        let cols = Columns::Runs(&self.probe_cols);
        // Contact j's rows first; the fixed, eliminated contacts' only when
        // j's inequalities may hold.
        let rows = low_bits(next) & !deferred;
        !red.fix(child, probe, j, mode_j, cap, 1 << j, cols, eq, r, false)
            || (red.may_hold(probe, j, mode_j, free, step, PRUNE)
                && red.fix(child, probe, j, mode_j, cap, rows, cols, eq, r, true)
                && (0..next).rev().filter(|&i| deferred & (1 << i) == 0).all(|i| {
                    let mode = &red.table.modes[choice[i]];
                    red.may_hold(probe, i, mode, free, step, PRUNE)
                }))
    }

    fn leaf_impulses(&self, red: &Reduced, x: &mut [f64]) {
        let (m, len, st, dim) = (red.m, red.tableau_len(), red.stride(), red.dim);
        let tab = &self.tableaux[m * len..(m + 1) * len];
        for (r, x) in x[..dim].iter_mut().enumerate() {
            *x = tab[r * st + dim];
        }
    }
}
