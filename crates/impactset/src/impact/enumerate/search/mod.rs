//! The depth-first search over contact modes of [`StepEnumerator`]
//! (docs/model.md#5b1-the-contact-mode-search): root filter, search nodes
//! with pruning and forward checking (`node_lp.rs` the joint test of a
//! node's inequalities), leaves rebuilt into full solutions (`rebuild.rs`)
//! and kept one per `Δv` (`solutions.rs`), the Lemke solves that complete a
//! search cut short (`fallback.rs`), and the widened steps searched as
//! twinned ones (`widened.rs`). The tableaux it prunes with are those of a
//! [`Tableaux`] (`tableaux/`).

pub(crate) mod domains;
pub(crate) mod fallback;
pub(crate) mod keep;
pub(crate) mod node_lp;
mod rebuild;
pub(crate) mod scratch;
pub(crate) mod widened;

use crate::impact::enumerate::tableaux::reduced::{Reduced, StepData, ToleranceScales, low_bits};
use crate::impact::enumerate::tableaux::{At, Fixing, Tableaux};
use crate::impact::enumerate::{ACCEPT, StepEnumerator};
use crate::problem::ContactOperators;
use node_lp::NodeAt;
use scratch::{Scratch, Search};

/// Most rounds of the root filter (a second round, with the hulls of the
/// first, prunes a little more but costs more than it saves on the timed
/// cases).
const ROOT_ROUNDS: usize = 1;

impl StepEnumerator {
    /// The root filter, then the depth-first search, on the tableaux the
    /// enumerator keeps.
    pub(crate) fn search(&mut self, ops: &ContactOperators, sc: &mut Scratch) {
        // (Taken out for the search and put back: a pointer moved.)
        match std::mem::take(&mut sc.search) {
            Search::Recorded(mut tableaux) => {
                self.search_with(ops, sc, &mut *tableaux);
                sc.search = Search::Recorded(tableaux);
            }
            Search::Direct(mut tableaux) => {
                self.search_with(ops, sc, &mut *tableaux);
                sc.search = Search::Direct(tableaux);
            }
            Search::None => unreachable!("a search without buffers"),
        }
    }

    /// The root filter, then the depth-first search.
    ///
    /// The root filter tests each mode of each contact alone (every other
    /// contact free) and shrinks each contact's admissible set to the hull of
    /// its surviving modes; it repeats while that tightens something (at most
    /// [`ROOT_ROUNDS`] rounds).
    fn search_with<T: Tableaux>(&mut self, ops: &ContactOperators, sc: &mut Scratch, tab: &mut T) {
        let red = &self.reduced;
        let m = red.m;
        let dom = &mut sc.domains;
        dom.hull[..m].iter_mut().for_each(|h| *h = u64::MAX);
        tab.start(red, &self.step_data(&sc.u, &sc.caps, &dom.hull[..m]));
        // The bounds read only the vertices' bits.
        let vertices = low_bits(1 + red.directions.len());
        for _ in 0..ROOT_ROUNDS {
            let step = self.step_data(&sc.u, &sc.caps, &dom.hull[..m]);
            let mut changed = false;
            for i in 0..m {
                let mut count = 0;
                let mut hull = 0;
                for (k, mode) in red.table.of(i).iter().enumerate() {
                    let g = red.table.start[i] + k;
                    if !sc.bound.allowed[g] {
                        // No solution has this mode (`bound.rs`).
                        continue;
                    }
                    if tab.root_may_hold(red, i, k, g, sc.caps[i], &step) {
                        dom.allowed[i * dom.max_modes + count] = g;
                        count += 1;
                        hull |= mode.vertices;
                    }
                }
                dom.allowed_count[i] = count;
                changed |= hull != dom.hull[i];
                dom.next_hull[i] = hull;
            }
            let same = |(now, next): (&u64, &u64)| (now ^ next) & vertices == 0;
            dom.first_level_bounds_kept = dom.hull[..m].iter().zip(&dom.next_hull).skip(1).all(same);
            dom.hull[..m].copy_from_slice(&dom.next_hull);
            if !changed {
                break;
            }
        }
        self.descend(ops, sc, tab, Node { depth: 0, equations: 0, deferred: 0 });
    }

    /// Fixes contact `node.depth`'s mode in turn and descends.
    ///
    /// `node.equations` counts the mode equations of the contacts fixed so far
    /// (more than `rank W` makes every leaf below singular). `node.deferred` holds
    /// the fixed contacts whose mode block was singular at its turn: they stay
    /// free variables of the tableau (bounded by the hull of their mode), their
    /// own inequalities are not tested, and leaves below them are solved
    /// directly (a last contact's singular block with none deferred before
    /// makes the whole tuple singular: it is skipped). With at least two
    /// contacts left free, a surviving node also filters the modes of the
    /// free contacts after the next (forward checking, see
    /// [`filter_free_modes`]).
    fn descend<T: Tableaux>(&mut self, ops: &ContactOperators, sc: &mut Scratch, tab: &mut T, node: Node) {
        let m = self.reduced.m;
        if node.depth == m {
            self.leaf(ops, sc, tab, node.deferred == 0);
        } else if node.depth + 1 == m {
            self.fix_level::<T, true>(ops, sc, tab, node);
        } else {
            self.fix_level::<T, false>(ops, sc, tab, node);
        }
    }

    /// [`descend`](Self::descend) at `depth < m`; `LAST`: `depth = m − 1`
    /// (its nodes are leaves), compiled apart so that the most frequent
    /// nodes run without the branches of the levels above.
    #[inline(never)]
    fn fix_level<T: Tableaux, const LAST: bool>(
        &mut self,
        ops: &ContactOperators,
        sc: &mut Scratch,
        tab: &mut T,
        node: Node,
    ) {
        let Node { depth, equations, deferred } = node;
        let m = self.reduced.m;
        let mm = sc.domains.max_modes;
        let next = depth + 1;
        debug_assert_eq!(LAST, next == m);
        let unfixed = low_bits(m) & !low_bits(next);
        let cap = sc.caps[depth];
        for a in 0..sc.domains.allowed_count[depth * m + depth] {
            let global = sc.domains.allowed[(depth * m + depth) * mm + a];
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
            let dom = &mut sc.domains;
            dom.choice[depth] = global;
            let fixed = tab.fix::<LAST>(red, Fixing { contact: depth, global, cap }, deferred, &dom.choice);
            if LAST && !fixed && deferred == 0 {
                // Every block before was regular, so the tuple's system,
                // whose determinant is the product of its blocks', is
                // singular: its leaf would not solve (docs/model.md#5b1-the-contact-mode-search).
                continue;
            }
            // The next level's domains and hulls start as this level's. The
            // last level reads its hulls only for contacts left free: the
            // deferred ones (a singular last block with none deferred was
            // skipped above).
            if !LAST || deferred != 0 {
                for j in 0..m {
                    dom.hull[next * m + j] = dom.hull[depth * m + j];
                }
            }
            let mut deferred_here = deferred;
            if !fixed {
                tab.defer(red, depth);
                deferred_here |= 1 << depth;
                dom.hull[next * m + depth] = mode.vertices;
            }
            let free = unfixed | deferred_here;
            let step = self.step_data(&sc.u, &sc.caps, &dom.hull[next * m..(next + 1) * m]);
            let at = At { depth, deferred: deferred_here, free };
            let others_hold = |tab: &T| tab.others_may_hold(red, at, &dom.choice, &step);
            // Below the first level, the contact just fixed gets its rows
            // first: it is the likeliest to fail, and the other rows are
            // computed only when it may hold.
            let feasible = if depth == 0 || !fixed {
                // At the first level a kept mode passed the root filter's
                // test of the same tableau, and unchanged bounds repeat it.
                let own_held = depth == 0 && dom.first_level_bounds_kept;
                (!fixed || own_held || tab.own_may_hold(red, depth, global, free, &step)) && others_hold(tab)
            } else {
                tab.own_may_hold(red, depth, global, free, &step) && {
                    tab.complete(red, depth, global, cap, low_bits(m) & !(1 << depth));
                    others_hold(tab)
                }
            };
            if !feasible {
                continue;
            }
            if LAST {
                self.leaf(ops, sc, tab, deferred_here == 0);
                continue;
            }
            // With at least two contacts left free, the fixed contacts'
            // inequalities are tested together too (`node_lp.rs`).
            if depth + 3 <= m
                && let Some(tab) = tab.node_tableau(red, depth)
            {
                let node = NodeAt { tab, depth, deferred: deferred_here, free, choice: &dom.choice };
                if !sc.node_lp.feasible(red, node, &step) {
                    continue;
                }
            }
            let scales = step.scales;
            let mut filtered = false;
            if m - next >= 2 {
                filtered = true;
                let budget = self.options.node_budget;
                let node = Node { depth, equations, deferred: deferred_here };
                let alive = filter_free_modes(red, sc, tab, node, scales, &mut self.nodes, budget);
                if self.nodes > budget {
                    self.exhaustive = false;
                    return;
                }
                if !alive {
                    continue;
                }
            }
            if !filtered {
                sc.domains.inherit_allowed(depth, next, m);
            }
            self.descend(ops, sc, tab, Node { depth: next, equations, deferred: deferred_here });
            if !self.exhaustive {
                return;
            }
        }
    }

    /// A complete mode tuple: its solution, checked, rebuilt and deduplicated.
    fn leaf<T: Tableaux>(&mut self, ops: &ContactOperators, sc: &mut Scratch, tab: &T, exact: bool) {
        let red = &self.reduced;
        let (dim, m) = (red.dim, red.m);
        let choice = &sc.domains.choice;
        let mut step = self.step_data(&sc.u, &sc.caps, &sc.domains.hull[..m]);
        let lf = &mut sc.leaf;
        let mut solved = false;
        if exact {
            tab.leaf_impulses(red, &mut lf.x);
            let terms = red.leaf_velocity(&sc.u, &lf.x, &mut lf.up);
            step.scales.velocity = red.leaf_velocity_scale(&step, terms);
            solved = red.equation_residual(choice, &lf.up, &step) <= ACCEPT;
        }
        if !solved {
            if !red.solve_leaf(choice, &step, lf) {
                return;
            }
            let terms = red.leaf_velocity(&sc.u, &lf.x, &mut lf.up);
            step.scales.velocity = red.leaf_velocity_scale(&step, terms);
            if red.equation_residual(choice, &lf.up, &step) > ACCEPT {
                return;
            }
        }
        if !red.inequalities_hold(choice, &lf.x, &lf.up, &step, ACCEPT) {
            return;
        }
        let normal_scale = step.scales.normal;
        self.rebuild(ops, sc);
        let x = &sc.leaf.x[..dim];
        for (r, dv) in sc.dv.iter_mut().enumerate() {
            let row = &self.full.dv_map[r * dim..][..dim];
            *dv = (0..dim).map(|c| row[c] * x[c]).sum();
        }
        self.keep(ops, &sc.z, &sc.dv, normal_scale);
    }
}

/// A search node at `depth`: the search descends to it to fix contact
/// `depth` (contacts `0..depth` fixed); forward checking reads it once that
/// contact is fixed (the tableau at level `depth + 1`).
#[derive(Clone, Copy, Debug)]
struct Node {
    depth: usize,
    /// Mode equations of the fixed contacts.
    equations: usize,
    /// Fixed contacts not eliminated (singular block), still free columns.
    deferred: u64,
}

/// Forward checking at a surviving node: every admissible mode of every
/// unfixed contact `j` after the next one is fixed alone on the node's
/// tableau (only the entries the bounds read: contact `j`'s rows and those
/// of the fixed, eliminated contacts) and kept when `j`'s inequalities and
/// those of every fixed, eliminated contact may still hold (and the mode
/// equations so far, those of the fixed contacts plus `j`'s, do not exceed
/// `rank W`). A mode whose block is singular is kept. Writes the next
/// level's domains and hulls; returns `false` as soon as a contact has no
/// mode left (or the budget is spent: each probe adds one to `nodes`).
///
/// The next contact keeps its domain: the next level fixes each of its modes
/// and tests the same inequalities on hulls at least as narrow, so probing
/// it first would test each mode twice (its hull is read only while it is
/// free, by these probes, which take the node's hulls).
fn filter_free_modes<T: Tableaux>(
    red: &Reduced,
    sc: &mut Scratch,
    tab: &mut T,
    node: Node,
    scales: ToleranceScales,
    nodes: &mut usize,
    budget: usize,
) -> bool {
    let Node { depth, equations, deferred } = node;
    let dom = &mut sc.domains;
    let (m, mm, next) = (red.m, dom.max_modes, depth + 1);
    dom.inherit_allowed_of(depth, next, m, next);
    let hull_next = &mut dom.hull[next * m..(next + 1) * m];
    // Bounds use the node's hulls, before filtering.
    dom.node_hull.copy_from_slice(hull_next);
    let (u, caps, hull) = (&sc.u[..], &sc.caps[..], &dom.node_hull[..]);
    let step = StepData { u, caps, hull, scales };
    let free = (low_bits(m) & !low_bits(next)) | deferred;
    for (j, next_hull) in hull_next.iter_mut().enumerate().take(m).skip(next + 1) {
        let (mut count, mut vertices) = (0, 0);
        let others = free & !(1 << j);
        tab.probes_with(red, others);
        for b in 0..dom.allowed_count[depth * m + j] {
            let g = dom.allowed[(depth * m + j) * mm + b];
            *nodes += 1;
            let mode_j = &red.table.modes[g];
            let keep = equations + mode_j.params <= red.rank
                && tab.probe(
                    red,
                    At { depth, deferred, free: others },
                    Fixing { contact: j, global: g, cap: caps[j] },
                    &dom.choice,
                    &step,
                );
            if keep {
                dom.allowed[(next * m + j) * mm + count] = g;
                count += 1;
                vertices |= mode_j.vertices;
            }
        }
        dom.allowed_count[next * m + j] = count;
        *next_hull = vertices;
        if count == 0 || *nodes > budget {
            return false;
        }
    }
    true
}
