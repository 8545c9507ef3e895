//! The modes each contact may still take, per level of the depth-first
//! search (contacts `0..l` fixed at level `l`), and the mode of each fixed
//! contact.

use crate::impact::enumerate::tableaux::reduced::Reduced;

/// The search's domains, per level `l` (contacts `0..l` fixed; level 0:
/// after the root filter).
#[derive(Clone, Debug, Default)]
pub(crate) struct Domains {
    /// Contact `i`'s admissible modes at level `l` are
    /// `allowed[(l·m + i)·max_modes..][..allowed_count[l·m + i]]`.
    pub allowed: Vec<usize>,
    pub allowed_count: Vec<usize>,
    pub max_modes: usize,
    /// Per level and contact, the union of [`Mode::vertices`](crate::impact::enumerate::modes::Mode::vertices) over its
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
