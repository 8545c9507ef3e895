//! What the depth-first search (`depth_first.rs`) keeps per level, and what it
//! asks of the tableaux it prunes with. Two implementations give the same
//! tableau constants and the same bounds bit for bit: `recorded.rs` replays
//! fixed-mode records kept from step to step (`cache/`), `direct.rs`
//! computes every tableau from its parent's.

use super::tableau::{Reduced, StepData};

/// The tableaux of a search: the root's, one per search level (contacts
/// `0..l` fixed at level `l`) and a probe's (forward checking). A node at
/// `depth` fixes contact `depth` on level `depth`'s tableau into level
/// `depth + 1`'s. Calls on a node come in the order of the search: `fix`,
/// then `defer` (a singular block), or the bounds and `complete`.
pub(super) trait Tableaux {
    /// Sets up the root tableau of the step (`x = 0`, `u⁺ = u`).
    fn start(&mut self, red: &Reduced, step: &StepData);

    /// The root filter's test: whether contact `i`'s mode `k` (global mode
    /// `g`) may hold with every other contact free (a singular block
    /// passes). Contact 0's fixes are kept for the first search level.
    fn root_may_hold(&mut self, red: &Reduced, i: usize, k: usize, g: usize, cap: f64, step: &StepData) -> bool;

    /// Fixes contact `depth` in the global mode `g` at a node whose fixed
    /// contacts `deferred` were singular, writing the rows of contact
    /// `depth` (all of them at the first level); `LAST`: `depth = m − 1`.
    /// Returns whether the mode's block was regular.
    #[allow(clippy::too_many_arguments)]
    fn fix<const LAST: bool>(
        &mut self,
        red: &Reduced,
        depth: usize,
        g: usize,
        cap: f64,
        deferred: u64,
        choice: &[usize],
    ) -> bool;

    /// After a singular [`fix`](Self::fix): the node's tableau is its
    /// parent's.
    fn defer(&mut self, red: &Reduced, depth: usize);

    /// Writes the rows of the contacts in the bit set `rows` of the node
    /// just fixed in the global mode `g` (its contact's rows were written
    /// by [`fix`](Self::fix)).
    fn complete(&mut self, red: &Reduced, depth: usize, g: usize, cap: f64, rows: u64);

    /// Whether contact `depth`'s inequalities (in the global mode `g`) may
    /// hold at the node just fixed, the contacts `free` free.
    fn own_may_hold(&self, red: &Reduced, depth: usize, g: usize, free: u64, step: &StepData) -> bool;

    /// Whether the inequalities of every fixed contact before `at.depth`
    /// not in `at.deferred` may hold at the node just fixed.
    fn others_may_hold(&self, red: &Reduced, at: At, choice: &[usize], step: &StepData) -> bool;

    /// Forward checking of one contact begins: its probes test with the
    /// contacts `free` free.
    fn probes_with(&mut self, _red: &Reduced, _free: u64) {}

    /// Forward checking from the node `at` (its tableau at level
    /// `at.depth + 1`): whether contact `j` may still take the global mode
    /// `g` (cap `cap`), contact `j`'s inequalities and those of the
    /// eliminated contacts tested with the contacts `at.free` free (a
    /// singular block passes). Calls for one `j` come together, after
    /// [`probes_with`](Self::probes_with) with the same `at.free`.
    #[allow(clippy::too_many_arguments)]
    fn probe(&mut self, red: &Reduced, at: At, j: usize, g: usize, cap: f64, choice: &[usize], step: &StepData)
    -> bool;

    /// The impulses of the leaf at level `m` (with no contact deferred).
    fn leaf_impulses(&self, red: &Reduced, x: &mut [f64]);

    /// The whole tableau of the node just fixed at `depth` (level
    /// `depth + 1`), for the joint test of its inequalities (`node_lp.rs`);
    /// `None` where the tableaux are kept as records, which hold only what
    /// the bounds read.
    fn node_tableau(&self, _red: &Reduced, _depth: usize) -> Option<&[f64]> {
        None
    }
}

/// Where bounds are tested: the search node at `depth` (contacts
/// `0..=depth` fixed, those in `deferred` singular and still free), with the
/// contacts `free` free.
#[derive(Clone, Copy, Debug)]
pub(super) struct At {
    pub depth: usize,
    pub deferred: u64,
    pub free: u64,
}

/// The search's domains, per level `l` (contacts `0..l` fixed; level 0:
/// after the root filter).
#[derive(Clone, Debug, Default)]
pub(super) struct Domains {
    /// Contact `i`'s admissible modes at level `l` are
    /// `allowed[(l·m + i)·max_modes..][..allowed_count[l·m + i]]`.
    pub allowed: Vec<usize>,
    pub allowed_count: Vec<usize>,
    pub max_modes: usize,
    /// Per level and contact, the union of [`Mode::vertices`](super::modes::Mode::vertices) over its
    /// allowed modes.
    pub hull: Vec<u64>,
    /// The hulls of the node being forward-checked, and the hulls a filter
    /// is building.
    pub node_hull: Vec<u64>,
    pub next_hull: Vec<u64>,
    /// Whether the root filter bounded every contact but 0 by the hulls
    /// the first level reads (the same vertices): its tests of contact 0
    /// then hold at the first level as they did in the filter.
    pub first_level_bounds_kept: bool,
    /// The global mode of each fixed contact.
    pub choice: Vec<usize>,
}

impl Domains {
    /// The domains of a search over `red`.
    pub fn new(red: &Reduced) -> Self {
        let m = red.m;
        let max_modes = (0..m).map(|i| red.table.of(i).len()).max().unwrap_or(0);
        Domains {
            allowed: vec![0; (m + 1) * m * max_modes],
            allowed_count: vec![0; (m + 1) * m],
            max_modes,
            hull: vec![u64::MAX; (m + 1) * m],
            node_hull: vec![0; m],
            next_hull: vec![u64::MAX; m],
            first_level_bounds_kept: false,
            choice: vec![0; m],
        }
    }

    /// Contacts `next..m` keep at level `next` the admissible modes they had
    /// at level `depth` (no filter ran in between).
    #[inline]
    pub fn inherit_allowed(&mut self, depth: usize, next: usize, m: usize) {
        (next..m).for_each(|j| self.inherit_allowed_of(depth, next, m, j));
    }

    /// [`inherit_allowed`](Self::inherit_allowed) for contact `j` alone.
    pub fn inherit_allowed_of(&mut self, depth: usize, next: usize, m: usize, j: usize) {
        let mm = self.max_modes;
        let count = self.allowed_count[depth * m + j];
        self.allowed_count[next * m + j] = count;
        self.allowed.copy_within((depth * m + j) * mm..(depth * m + j) * mm + count, (next * m + j) * mm);
    }
}
