//! The buffers of one [`StepEnumerator`](super::StepEnumerator): sized once
//! per problem, reused by every enumeration (nothing is allocated per step).

use super::bound::Bound;
use super::cache::{FixedCache, Slot};
use super::tableau::{self, Reduced};
use super::{EnumeratorOptions, ROOT_CACHE_LIMIT, RecordPolicy};

/// Buffers of one enumeration.
#[derive(Clone, Debug, Default)]
pub(super) struct Scratch {
    /// The bound a Lemke solution puts on the step's solutions (`bound.rs`).
    pub(super) bound: Bound,
    pub(super) u: Vec<f64>,
    pub(super) caps: Vec<f64>,
    /// The constant column of the tableau at each search depth
    /// (`2D` entries per level; level 0 the root's).
    pub(super) consts: Vec<f64>,
    /// The record of each level's tableau.
    pub(super) slots: Vec<Slot>,
    /// The fixed-mode records (see `cache/`).
    pub(super) cache: FixedCache,
    /// The solved mode equations of the last fix.
    pub(super) e: [f64; 3],
    /// Whether the search keeps fixed-mode records (`cache/`); otherwise
    /// it computes every tableau from its parent's (`direct.rs`) with the
    /// buffers below.
    pub(super) cached: bool,
    pub(super) tableaux: Vec<f64>,
    pub(super) eq: Vec<f64>,
    pub(super) r: Vec<f64>,
    /// A tableau for forward checking, and the columns a probe computes.
    pub(super) probe: Vec<f64>,
    pub(super) probe_cols: Vec<usize>,
    /// The root tableau with one contact fixed in one mode, per global mode
    /// index (the root filter's; contact 0's are reused by the search's
    /// first level), and whether that mode's block was regular. With
    /// `root_cached` every mode's tableau is kept, its columns other than
    /// the constants (which depend on `W` and the mode alone) computed once,
    /// when the enumerator is built; otherwise only contact 0's are kept and
    /// each is computed in full on every step.
    pub(super) root_fixed: Vec<f64>,
    pub(super) root_regular: Vec<bool>,
    pub(super) root_cached: bool,
    /// Modes still admissible at each search depth `l` (level 0: after the
    /// root filter): contact `i`'s are
    /// `allowed[(l·m + i)·max_modes..][..allowed_count[l·m + i]]`.
    pub(super) allowed: Vec<usize>,
    pub(super) allowed_count: Vec<usize>,
    pub(super) max_modes: usize,
    /// Per level and contact, the union of [`modes::Mode::vertices`] over its
    /// allowed modes.
    pub(super) hull: Vec<u64>,
    /// The constants of a forward-checking probe (and of the root
    /// filter's tableaux of contacts other than 0).
    pub(super) probe_consts: Vec<f64>,
    /// The constants of the root filter's tableaux of contact 0, per mode:
    /// the search's first level reuses them.
    pub(super) root_consts: Vec<f64>,
    /// The hulls of the node being forward-checked.
    pub(super) node_hull: Vec<u64>,
    pub(super) next_hull: Vec<u64>,
    /// Whether the root filter's last round bounded every contact but 0
    /// by the hulls the first level reads (the same vertices): its own
    /// bounds then hold at the first level as they did in the filter.
    pub(super) first_level_bounds_kept: bool,
    pub(super) choice: Vec<usize>,
    pub(super) x: Vec<f64>,
    pub(super) up: Vec<f64>,
    pub(super) mat: Vec<f64>,
    pub(super) rhs: Vec<f64>,
    pub(super) u0: Vec<f64>,
    pub(super) z: Vec<f64>,
    pub(super) dv: Vec<f64>,
    pub(super) cover: Vec<f64>,
}

/// Bytes of the fixed-mode records of every search node of `red` (an upper
/// estimate: probes share most of them).
fn tree_estimate(red: &Reduced) -> f64 {
    let (dim, modes) = (red.dim as f64, red.table.modes.len() as f64);
    let leaf = 8.0 * (6.0 * dim + 9.0 + 32.0) + 128.0;
    let inner = leaf + 8.0 * red.tableau_len() as f64 + 4.0 * modes;
    let (mut nodes, mut bytes) = (1.0, 0.0);
    for i in 0..red.m {
        nodes *= red.table.of(i).len() as f64;
        bytes += nodes * if i + 1 < red.m { inner } else { leaf };
    }
    bytes
}

impl Scratch {
    /// The buffers of an enumerator for `reduced` (`size` LCP unknowns,
    /// `n` velocities); without `searchable`, those of the fallback alone.
    pub(super) fn new(reduced: &Reduced, options: &EnumeratorOptions, searchable: bool, size: usize, n: usize) -> Self {
        let (m, dim) = (reduced.m, reduced.dim);
        let max_modes = (0..m).map(|i| reduced.table.of(i).len()).max().unwrap_or(0);
        let first_modes = if m == 0 { 0 } else { reduced.table.of(0).len() };
        // The records are kept when the whole tree of search nodes (at most
        // Π modes per level) would fit twice the store: `cache_bytes` bounds
        // what is kept, the estimate only decides whether keeping pays (the
        // deep nodes of four spatial contacts could not be kept, and
        // computing records that are not kept costs more than the direct
        // search).
        let cached = options.cache_bytes > 0
            && (options.records == RecordPolicy::Always || tree_estimate(reduced) <= 2.0 * options.cache_bytes as f64);
        let root_cached = !cached && reduced.table.modes.len() * reduced.tableau_len() <= ROOT_CACHE_LIMIT;
        let root_modes = if root_cached { reduced.table.modes.len() } else { first_modes };
        let mut scratch = if !searchable {
            Scratch {
                u: vec![0.0; dim],
                caps: vec![0.0; m],
                z: vec![0.0; size],
                dv: vec![0.0; n],
                cover: vec![0.0; size],
                ..Scratch::default()
            }
        } else {
            Scratch {
                bound: Bound::new(reduced),
                u: vec![0.0; dim],
                caps: vec![0.0; m],
                consts: vec![0.0; (m + 1) * 2 * dim],
                slots: vec![FixedCache::root(); m + 1],
                cache: if cached { FixedCache::new(reduced, options.cache_bytes) } else { FixedCache::default() },
                e: [0.0; 3],
                cached,
                tableaux: if cached { Vec::new() } else { vec![0.0; (m + 1) * reduced.tableau_len()] },
                eq: if cached { Vec::new() } else { vec![0.0; 3 * reduced.stride()] },
                r: vec![0.0; 9],
                probe: if cached { Vec::new() } else { vec![0.0; reduced.tableau_len()] },
                probe_cols: Vec::with_capacity(dim + 1),
                root_fixed: if cached { Vec::new() } else { vec![0.0; root_modes * reduced.tableau_len()] },
                root_regular: vec![false; root_modes],
                root_cached,
                allowed: vec![0; (m + 1) * m * max_modes],
                allowed_count: vec![0; (m + 1) * m],
                max_modes,
                hull: vec![u64::MAX; (m + 1) * m],
                probe_consts: vec![0.0; 2 * dim],
                root_consts: vec![0.0; first_modes * 2 * dim],
                node_hull: vec![0; m],
                next_hull: vec![u64::MAX; m],
                first_level_bounds_kept: false,
                choice: vec![0; m],
                x: vec![0.0; dim],
                up: vec![0.0; dim],
                mat: vec![0.0; dim * dim],
                rhs: vec![0.0; dim],
                u0: vec![0.0; dim],
                z: vec![0.0; size],
                dv: vec![0.0; n],
                cover: vec![0.0; size],
            }
        };
        if searchable && root_cached {
            scratch.cache_root_tableaux(reduced);
        }
        scratch
    }

    /// Contacts `next..m` keep at level `next` the admissible modes they had
    /// at level `depth` (no filter ran in between).
    pub(super) fn inherit_allowed(&mut self, depth: usize, next: usize, m: usize) {
        let mm = self.max_modes;
        for j in next..m {
            let count = self.allowed_count[depth * m + j];
            self.allowed_count[next * m + j] = count;
            self.allowed.copy_within((depth * m + j) * mm..(depth * m + j) * mm + count, (next * m + j) * mm);
        }
    }

    /// Computes every root-filter tableau once ([`Scratch::root_fixed`]):
    /// its columns other than the constants do not depend on `u` or the caps
    /// (taken as zero here), so each step needs only its constants.
    fn cache_root_tableaux(&mut self, red: &Reduced) {
        let len = red.tableau_len();
        let root = &mut self.tableaux[..len];
        red.init_tableau(&vec![0.0; red.dim], root);
        for (g, mode) in red.table.modes.iter().enumerate() {
            let i = red.table.start.partition_point(|&start| start <= g) - 1;
            let tab = &mut self.root_fixed[g * len..(g + 1) * len];
            self.root_regular[g] =
                red.fix(root, tab, 0, i, mode, 0.0, tableau::low_bits(red.m), &mut self.eq, &mut self.r, false);
        }
    }
}
