//! The depth-first mode search computing every node's tableau from its
//! parent's, for problems whose fixed-mode records (`cache/`) would not
//! fit their store (many contacts with many modes: the records of deep
//! nodes would be computed step after step and not kept). It visits the same
//! nodes, with the same bounds and the same constants bit for bit, as
//! `depth_first.rs`; probes compute only the rows and columns their bounds
//! read, and the root filter's tableaux are kept apart from their constants.

use super::depth_first::Node;
use super::tableau::{Reduced, StepData, StepScales, low_bits};
use super::{PRUNE, ROOT_ROUNDS, Scratch, StepEnumerator};
use crate::problem::ContactOperators;

impl StepEnumerator {
    /// The root filter, then the depth-first search.
    ///
    /// The root filter tests each mode of each contact alone (every other
    /// contact free) and shrinks each contact's admissible set to the hull of
    /// its surviving modes; it repeats while that tightens something (at most
    /// [`ROOT_ROUNDS`] rounds).
    pub(super) fn search_direct(&mut self, ops: &ContactOperators, sc: &mut Scratch) {
        let red = &self.reduced;
        let len = red.tableau_len();
        let all = low_bits(red.m);
        sc.hull[..red.m].iter_mut().for_each(|h| *h = u64::MAX);
        let (root, rest) = sc.tableaux.split_at_mut(len);
        let (eq, r) = (&mut sc.eq, &mut sc.r);
        red.init_tableau(&sc.u, root);
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
                    // Only contact i's rows are read, except for contact 0's
                    // tableaux: the search's first level fixes the same modes
                    // on the same root and reuses them.
                    let rows = if i == 0 { all } else { 1 << i };
                    let (tab, fixed) = if sc.root_cached {
                        let tab = &mut sc.root_fixed[g * len..(g + 1) * len];
                        let fixed =
                            sc.root_regular[g] && red.fix_constants(root, tab, i, mode, sc.caps[i], rows, eq, r, false);
                        (&*tab, fixed)
                    } else {
                        let tab = if i == 0 { &mut sc.root_fixed[k * len..(k + 1) * len] } else { &mut rest[..len] };
                        let fixed = red.fix(root, tab, 0, i, mode, sc.caps[i], rows, eq, r, false);
                        if i == 0 {
                            sc.root_regular[k] = fixed;
                        }
                        (&*tab, fixed)
                    };
                    let keep = !fixed || red.may_hold(tab, i, mode, all & !(1 << i), &step, PRUNE);
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
            sc.hull[..red.m].copy_from_slice(&sc.next_hull);
            if !changed {
                break;
            }
        }
        self.descend_direct(ops, sc, 0, 0, 0);
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
    /// [`filter_free_modes_direct`]).
    fn descend_direct(
        &mut self,
        ops: &ContactOperators,
        sc: &mut Scratch,
        depth: usize,
        equations: usize,
        deferred: u64,
    ) {
        let red = &self.reduced;
        let m = red.m;
        if depth == m {
            if deferred == 0 {
                // The leaf reads the constants of the last level.
                let (len, st, dim) = (red.tableau_len(), red.stride(), red.dim);
                let tab = &sc.tableaux[m * len..(m + 1) * len];
                for r in 0..dim {
                    sc.consts[2 * m * dim + r] = tab[r * st + dim];
                }
            }
            self.leaf(ops, sc, deferred == 0);
            return;
        }
        let (len, s, mm) = (red.tableau_len(), red.s, sc.max_modes);
        let next = depth + 1;
        let unfixed = low_bits(m) & !low_bits(next);
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
            // The next level's domains and hulls start as this level's.
            sc.hull.copy_within(depth * m..next * m, next * m);
            let (parent, child) = sc.tableaux[depth * len..(depth + 2) * len].split_at_mut(len);
            let from = (depth * s).min(deferred.trailing_zeros() as usize * s);
            let mut deferred_here = deferred;
            // Below the first level, the contact just fixed gets its rows
            // first: it is the likeliest to fail, and the other rows are
            // computed only when it may hold.
            let constants_only = next == m && deferred == 0;
            let fixed = if depth == 0 {
                // Computed by the root filter (same tableau, mode and cap).
                let k = global - red.table.start[0];
                child.copy_from_slice(&sc.root_fixed[k * len..(k + 1) * len]);
                sc.root_regular[k]
            } else if constants_only {
                // Nothing stays free: only the constants are read below.
                red.fix_constants(parent, child, depth, mode, sc.caps[depth], 1 << depth, &mut sc.eq, &mut sc.r, false)
            } else {
                red.fix(parent, child, from, depth, mode, sc.caps[depth], 1 << depth, &mut sc.eq, &mut sc.r, false)
            };
            if !fixed {
                child.copy_from_slice(parent);
                deferred_here |= 1 << depth;
                sc.hull[next * m + depth] = mode.vertices;
            }
            let free = unfixed | deferred_here;
            let step = self.step_data(&sc.u, &sc.caps, &sc.hull[next * m..(next + 1) * m]);
            let others_hold = |child: &[f64]| {
                (0..depth).rev().filter(|&i| deferred_here & (1 << i) == 0).all(|i| {
                    let mode = &red.table.modes[sc.choice[i]];
                    red.may_hold(child, i, mode, free, &step, PRUNE)
                })
            };
            let feasible = if depth == 0 || !fixed {
                (!fixed || red.may_hold(child, depth, mode, free, &step, PRUNE)) && others_hold(child)
            } else {
                red.may_hold(child, depth, mode, free, &step, PRUNE) && {
                    let (rest, cap) = (low_bits(m) & !(1 << depth), sc.caps[depth]);
                    let (eq, r) = (&mut sc.eq, &mut sc.r);
                    if constants_only {
                        red.fix_constants(parent, child, depth, mode, cap, rest, eq, r, true);
                    } else {
                        red.fix(parent, child, from, depth, mode, cap, rest, eq, r, true);
                    }
                    others_hold(child)
                }
            };
            if !feasible {
                continue;
            }
            let mut filtered = false;
            if m - next >= 2 {
                filtered = true;
                let budget = self.options.node_budget;
                let node = Node { depth, equations, deferred: deferred_here };
                let alive = filter_free_modes_direct(red, sc, node, step.scales(), &mut self.nodes, budget);
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
            self.descend_direct(ops, sc, next, equations, deferred_here);
            if !self.exhaustive {
                return;
            }
        }
    }
}

/// Forward checking at a surviving node: every admissible mode of every
/// unfixed contact `j` is fixed alone on the node's tableau (into the probe
/// tableau, only the entries the bounds read: [`Reduced::fix_probe`]) and kept
/// when `j`'s inequalities and those of every fixed, eliminated contact may
/// still hold (and the mode equations so far, those of the fixed contacts plus
/// `j`'s, do not exceed `rank W`). A mode whose block is singular is kept.
/// Writes the next level's domains and hulls; returns `false` as soon as a
/// contact has no mode left (or the budget is spent: each probe adds one to
/// `nodes`).
fn filter_free_modes_direct(
    red: &Reduced,
    sc: &mut Scratch,
    node: Node,
    StepScales { velocity: velocity_scale, impulse: impulse_scale, normal: normal_scale }: StepScales,
    nodes: &mut usize,
    budget: usize,
) -> bool {
    let Node { depth, equations, deferred } = node;
    let Scratch {
        tableaux,
        probe,
        probe_cols,
        allowed,
        allowed_count,
        hull,
        node_hull,
        eq,
        r,
        u,
        caps,
        choice,
        max_modes,
        ..
    } = sc;
    let (m, len, mm, next) = (red.m, red.tableau_len(), *max_modes, depth + 1);
    let child = &tableaux[next * len..(next + 1) * len];
    let hull_next = &mut hull[next * m..(next + 1) * m];
    // Bounds use the node's hulls, before filtering.
    node_hull.copy_from_slice(hull_next);
    let step = StepData { u, caps, hull: node_hull, velocity_scale, impulse_scale, normal_scale };
    let free = (low_bits(m) & !low_bits(next)) | deferred;
    // The rows read: those of the probed contact and of the fixed,
    // eliminated contacts.
    let rows = low_bits(next) & !deferred;
    for (j, next_hull) in hull_next.iter_mut().enumerate().take(m).skip(next) {
        let (mut count, mut vertices) = (0, 0);
        let others = free & !(1 << j);
        // The columns the probes' bounds read: the other free contacts' and
        // the constant.
        probe_cols.clear();
        let mut rest = others;
        while rest != 0 {
            let c = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            probe_cols.extend(c * red.s..(c + 1) * red.s);
        }
        probe_cols.push(red.dim);
        for b in 0..allowed_count[depth * m + j] {
            let g = allowed[(depth * m + j) * mm + b];
            *nodes += 1;
            let mode_j = &red.table.modes[g];
            let probe = &mut probe[..len];
            // Contact j's rows first; the fixed contacts' only when j's
            // inequalities may hold.
            let keep = equations + mode_j.params <= red.rank
                && (!red.fix_probe(child, probe, j, mode_j, caps[j], 1 << j, probe_cols, eq, r, false)
                    || (red.may_hold(probe, j, mode_j, others, &step, PRUNE)
                        && red.fix_probe(child, probe, j, mode_j, caps[j], rows, probe_cols, eq, r, true)
                        && (0..=depth).rev().filter(|&i| deferred & (1 << i) == 0).all(|i| {
                            let mode = &red.table.modes[choice[i]];
                            red.may_hold(probe, i, mode, others, &step, PRUNE)
                        })));
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
