//! The depth-first mode search of [`StepEnumerator`]: root filter, search
//! nodes with pruning and forward checking, leaves (see the module docs of
//! `enumerate` and `tableau.rs` for the tableau and the bounds).

use super::cache::FixedCache;
use super::tableau::{Reduced, StepData, StepScales, low_bits};
use super::{ACCEPT, PRUNE, ROOT_ROUNDS, Scratch, StepEnumerator};
use crate::problem::ContactOperators;

impl StepEnumerator {
    /// The root filter, then the depth-first search.
    ///
    /// The root filter tests each mode of each contact alone (every other
    /// contact free) and shrinks each contact's admissible set to the hull of
    /// its surviving modes; it repeats while that tightens something (at most
    /// [`ROOT_ROUNDS`] rounds).
    pub(super) fn search(&mut self, ops: &ContactOperators, sc: &mut Scratch) {
        if !sc.cached {
            return self.search_direct(ops, sc);
        }
        let red = &self.reduced;
        let rows2 = 2 * red.dim;
        let all = low_bits(red.m);
        sc.cache.start();
        // Every pruning test's slack (the step's scales are fixed).
        sc.cache.set_slacks(red, &self.step_data(&sc.u, &sc.caps, &sc.hull[..red.m]), PRUNE);
        sc.hull[..red.m].iter_mut().for_each(|h| *h = u64::MAX);
        // The root's constants: x = 0, u⁺ = u.
        let root = &mut sc.consts[..rows2];
        root[..red.dim].iter_mut().for_each(|v| *v = 0.0);
        root[red.dim..].copy_from_slice(&sc.u);
        sc.slots[0] = FixedCache::root();
        for _ in 0..ROOT_ROUNDS {
            let step = self.step_data(&sc.u, &sc.caps, &sc.hull[..red.m]);
            let mut changed = false;
            for i in 0..red.m {
                let mut count = 0;
                let mut hull = 0;
                for (k, mode) in red.table.of(i).iter().enumerate() {
                    let g = red.table.start[i] + k;
                    if !sc.bound.allowed[g] {
                        // No solution has this mode (`bound.rs`).
                        continue;
                    }
                    let slot =
                        sc.cache.child(red, FixedCache::root(), i, g, &sc.choice, i == 0 && red.m > 1, red.m + 1);
                    let rec = sc.cache.get(slot);
                    // Only contact i's rows are read, except for contact 0's
                    // constants: the search's first level fixes the same
                    // modes on the same root and reuses them.
                    let (rows, dst) = if i == 0 {
                        (all, &mut sc.root_consts[k * rows2..(k + 1) * rows2])
                    } else {
                        (1 << i, &mut sc.probe_consts[..])
                    };
                    if rec.regular {
                        let src = &sc.consts[..rows2];
                        FixedCache::constants(red, rec, i, mode, sc.caps[i], src, dst, rows, &mut sc.e, false);
                    }
                    let keep = !rec.regular || sc.cache.own_may_hold(red, rec, i, mode, dst, &step);
                    if keep {
                        sc.allowed[i * sc.max_modes + count] = red.table.start[i] + k;
                        count += 1;
                        hull |= mode.vertices;
                    }
                }
                sc.allowed_count[i] = count;
                changed |= hull != sc.hull[i];
                sc.next_hull[i] = hull;
            }
            // The bounds read only the vertices' bits.
            let vertices = sc.cache.every_vertex();
            let same = |(now, next): (&u64, &u64)| (now ^ next) & vertices == 0;
            sc.first_level_bounds_kept = sc.hull[1..red.m].iter().zip(&sc.next_hull[1..]).all(same);
            sc.hull[..red.m].copy_from_slice(&sc.next_hull);
            if !changed {
                break;
            }
        }
        self.descend(ops, sc, 0, 0, 0);
    }

    /// Fixes contact `depth`'s mode in turn and descends.
    ///
    /// `equations` counts the mode equations of the contacts fixed so far
    /// (more than `rank W` makes every leaf below singular). `deferred` holds
    /// the fixed contacts whose mode block was singular at its turn: they stay
    /// free variables of the tableau (bounded by the hull of their mode), their
    /// own inequalities are not tested, and leaves below them are solved
    /// directly. With at least two contacts left free, a surviving node also
    /// filters the free contacts' modes (forward checking, see
    /// [`filter_free_modes`]).
    fn descend(&mut self, ops: &ContactOperators, sc: &mut Scratch, depth: usize, equations: usize, deferred: u64) {
        let m = self.reduced.m;
        if depth == m {
            self.leaf(ops, sc, deferred == 0);
        } else if depth + 1 == m {
            self.fix_level::<true>(ops, sc, depth, equations, deferred);
        } else {
            self.fix_level::<false>(ops, sc, depth, equations, deferred);
        }
    }

    /// [`descend`](Self::descend) at `depth < m`; `LAST`: `depth = m − 1`
    /// (its nodes are leaves), compiled apart so that the most frequent
    /// nodes run without the branches of the levels above.
    #[inline(never)]
    fn fix_level<const LAST: bool>(
        &mut self,
        ops: &ContactOperators,
        sc: &mut Scratch,
        depth: usize,
        equations: usize,
        deferred: u64,
    ) {
        let red = &self.reduced;
        let m = red.m;
        let (rows2, mm) = (2 * red.dim, sc.max_modes);
        let next = depth + 1;
        debug_assert_eq!(LAST, next == m);
        let all = low_bits(m);
        // (Read once: the loop's stores could alias them for the compiler.)
        let (parent_slot, cap) = (sc.slots[depth], sc.caps[depth]);
        for a in 0..sc.allowed_count[depth * m + depth] {
            let global = sc.allowed[(depth * m + depth) * mm + a];
            if self.settled() {
                return;
            }
            self.nodes += 1;
            if self.nodes > self.options.node_budget {
                self.exhaustive = false;
                return;
            }
            let red = &self.reduced;
            let mode = &red.table.modes[global];
            let equations = equations + mode.params;
            if equations > red.rank {
                // rank(C W G) ≤ rank(W): every leaf below is singular.
                continue;
            }
            sc.choice[depth] = global;
            let slot = sc.cache.child(red, parent_slot, depth, global, &sc.choice, !LAST, next);
            if !LAST {
                // (Read by the forward checks and the level below.)
                sc.slots[next] = slot;
            }
            let rec = sc.cache.get(slot);
            // The next level's domains and hulls start as this level's. The
            // last level reads its hulls only for contacts its bounds leave
            // free.
            if !LAST || !rec.regular || rec.free() != 0 {
                for j in 0..m {
                    sc.hull[next * m + j] = sc.hull[depth * m + j];
                }
            }
            let (parent, child) = sc.consts[depth * rows2..(depth + 2) * rows2].split_at_mut(rows2);
            let mut deferred_here = deferred;
            let fixed = rec.regular;
            // Below the first level, the contact just fixed gets its rows
            // first: it is the likeliest to fail, and the other rows are
            // computed only when it may hold.
            if depth == 0 {
                // Computed by the root filter (same tableau, mode and cap).
                let k = global - red.table.start[0];
                child.copy_from_slice(&sc.root_consts[k * rows2..(k + 1) * rows2]);
            } else if fixed {
                FixedCache::constants(red, rec, depth, mode, cap, parent, child, 1 << depth, &mut sc.e, false);
            }
            if !fixed {
                child.copy_from_slice(parent);
                deferred_here |= 1 << depth;
                sc.hull[next * m + depth] = mode.vertices;
            }
            let step = self.step_data(&sc.u, &sc.caps, &sc.hull[next * m..(next + 1) * m]);
            let cache = &sc.cache;
            let others_hold = |child: &[f64]| cache.others_may_hold(red, rec, &sc.choice, child, &step);
            let feasible = if depth == 0 || !fixed {
                // At the first level a kept mode passed the root filter's
                // test of the same constants, and unchanged bounds repeat it.
                let own_held = depth == 0 && sc.first_level_bounds_kept;
                (!fixed || own_held || cache.own_may_hold(red, rec, depth, mode, child, &step)) && others_hold(child)
            } else {
                cache.own_may_hold(red, rec, depth, mode, child, &step) && {
                    let rest = all & !(1 << depth);
                    FixedCache::constants(red, rec, depth, mode, cap, parent, child, rest, &mut sc.e, true);
                    others_hold(child)
                }
            };
            if !feasible {
                continue;
            }
            if LAST {
                self.leaf(ops, sc, deferred_here == 0);
                continue;
            }
            let mut filtered = false;
            if m - next >= 2 {
                filtered = true;
                let budget = self.options.node_budget;
                let node = Node { depth, equations, deferred: deferred_here };
                let alive = filter_free_modes(red, sc, node, step.scales(), &mut self.nodes, budget);
                if self.nodes > budget {
                    self.exhaustive = false;
                    return;
                }
                if !alive {
                    continue;
                }
            }
            if !filtered {
                sc.inherit_allowed(depth, next, m);
            }
            self.descend(ops, sc, next, equations, deferred_here);
            if !self.exhaustive {
                return;
            }
        }
    }

    /// A complete mode tuple: its solution, checked, rebuilt and deduplicated.
    pub(super) fn leaf(&mut self, ops: &ContactOperators, sc: &mut Scratch, exact: bool) {
        let red = &self.reduced;
        let (dim, m) = (red.dim, red.m);
        let mut step = self.step_data(&sc.u, &sc.caps, &sc.hull[..m]);
        let mut solved = false;
        if exact {
            sc.x.copy_from_slice(&sc.consts[2 * m * dim..2 * m * dim + dim]);
            let terms = red.leaf_velocity(&sc.u, &sc.x, &mut sc.up);
            step.velocity_scale = red.leaf_velocity_scale(&step, terms);
            solved = red.equation_residual(&sc.choice, &sc.up, &step) <= ACCEPT;
        }
        if !solved {
            if !red.solve_leaf(&sc.choice, &step, &mut sc.mat, &mut sc.rhs, &mut sc.u0, &mut sc.x) {
                return;
            }
            let terms = red.leaf_velocity(&sc.u, &sc.x, &mut sc.up);
            step.velocity_scale = red.leaf_velocity_scale(&step, terms);
            if red.equation_residual(&sc.choice, &sc.up, &step) > ACCEPT {
                return;
            }
        }
        if !red.inequalities_hold(&sc.choice, &sc.x, &sc.up, &step, ACCEPT) {
            return;
        }
        let normal_scale = step.normal_scale;
        self.rebuild(ops, sc);
        let x = &sc.x[..dim];
        for (r, dv) in sc.dv.iter_mut().enumerate() {
            let row = &self.dv_map[r * dim..][..dim];
            *dv = (0..dim).map(|c| row[c] * x[c]).sum();
        }
        self.keep(&sc.z, &sc.dv, normal_scale);
    }
}

/// A search node: contacts `0..=depth` fixed, the tableau at level
/// `depth + 1`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Node {
    pub depth: usize,
    /// Mode equations of the fixed contacts.
    pub equations: usize,
    /// Fixed contacts not eliminated (singular block), still free columns.
    pub deferred: u64,
}

/// Forward checking at a surviving node: every admissible mode of every
/// unfixed contact `j` is fixed alone on the node's tableau (only the
/// constants the bounds read are computed, into the probe's: contact `j`'s
/// rows and those of the fixed, eliminated contacts) and kept when `j`'s
/// inequalities and those of every fixed, eliminated contact may still hold
/// (and the mode equations so far, those of the fixed contacts plus `j`'s,
/// do not exceed `rank W`). A mode whose block is singular is kept.
/// Writes the next level's domains and hulls; returns `false` as soon as a
/// contact has no mode left (or the budget is spent: each probe adds one to
/// `nodes`).
fn filter_free_modes(
    red: &Reduced,
    sc: &mut Scratch,
    node: Node,
    StepScales { velocity: velocity_scale, impulse: impulse_scale, normal: normal_scale }: StepScales,
    nodes: &mut usize,
    budget: usize,
) -> bool {
    let Node { depth, equations, deferred } = node;
    let Scratch {
        consts,
        probe_consts,
        slots,
        cache,
        allowed,
        allowed_count,
        hull,
        node_hull,
        e,
        u,
        caps,
        choice,
        max_modes,
        ..
    } = sc;
    let (m, rows2, mm, next) = (red.m, 2 * red.dim, *max_modes, depth + 1);
    let node_consts = &consts[next * rows2..(next + 1) * rows2];
    let hull_next = &mut hull[next * m..(next + 1) * m];
    // Bounds use the node's hulls, before filtering.
    node_hull.copy_from_slice(hull_next);
    let step = StepData { u, caps, hull: node_hull, velocity_scale, impulse_scale, normal_scale };
    // The rows read: those of the probed contact and of the fixed,
    // eliminated contacts.
    let rows = low_bits(next) & !deferred;
    for (j, next_hull) in hull_next.iter_mut().enumerate().take(m).skip(next) {
        let (mut count, mut vertices) = (0, 0);
        for b in 0..allowed_count[depth * m + j] {
            let g = allowed[(depth * m + j) * mm + b];
            *nodes += 1;
            let mode_j = &red.table.modes[g];
            // Contact j's rows first; the fixed contacts' only when j's
            // inequalities may hold.
            let keep = equations + mode_j.params <= red.rank && {
                let slot = cache.child(red, slots[next], j, g, choice, false, m + 1);
                let rec = cache.get(slot);
                !rec.regular || {
                    let probe = &mut probe_consts[..];
                    FixedCache::constants(red, rec, j, mode_j, caps[j], node_consts, probe, 1 << j, e, false);
                    cache.own_may_hold(red, rec, j, mode_j, probe, &step) && {
                        FixedCache::constants(red, rec, j, mode_j, caps[j], node_consts, probe, rows, e, true);
                        cache.others_may_hold(red, rec, choice, probe, &step)
                    }
                }
            };
            if keep {
                allowed[(next * m + j) * mm + count] = g;
                count += 1;
                vertices |= mode_j.vertices;
            }
        }
        allowed_count[next * m + j] = count;
        *next_hull = vertices;
        if count == 0 || *nodes > budget {
            return false;
        }
    }
    true
}
