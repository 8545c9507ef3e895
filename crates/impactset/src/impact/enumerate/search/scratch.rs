//! The buffers of one [`StepEnumerator`](crate::impact::enumerate::StepEnumerator): sized once
//! per problem, reused by every enumeration (nothing is allocated per step).

use super::domains::Domains;
use super::node_lp::NodeLp;
use crate::impact::enumerate::EnumeratorOptions;
use crate::impact::enumerate::certificates::bound::Bound;
use crate::impact::enumerate::tableaux::direct::Direct;
use crate::impact::enumerate::tableaux::recorded::Recorded;
use crate::impact::enumerate::tableaux::reduced::{Leaf, Reduced};

/// Buffers of one enumeration.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    /// The bound a Lemke solution puts on the step's solutions (`bound.rs`).
    pub(crate) bound: Bound,
    /// The step: contact velocities `u` (`D`) and caps `h p` (`m`).
    pub(crate) u: Vec<f64>,
    pub(crate) caps: Vec<f64>,
    /// A full LCP solution (Lemke's, a leaf's rebuilt, the fallback's) and
    /// its velocity change; the fallback's covering vector.
    pub(crate) z: Vec<f64>,
    pub(crate) dv: Vec<f64>,
    /// Lemke's solution in `z` misses the step by more than round-off
    /// (`keep.rs`).
    pub(crate) lemke_off: bool,
    pub(crate) cover: Vec<f64>,
    /// The search's admissible modes per level (`search/mod.rs`).
    pub(crate) domains: Domains,
    /// A leaf's solution.
    pub(crate) leaf: Leaf,
    /// The tableaux the search prunes with.
    pub(crate) search: Search,
    /// The joint test of a node's inequalities (`node_lp.rs`).
    pub(crate) node_lp: NodeLp,
}

/// How the search computes its tableaux (`tableaux/mod.rs`).
#[derive(Clone, Debug, Default)]
pub(crate) enum Search {
    /// No search: more than [`MAX_SEARCH_CONTACTS`](crate::impact::enumerate::MAX_SEARCH_CONTACTS)
    /// contacts, or while a search runs.
    #[default]
    None,
    /// From fixed-mode records kept from step to step (`recorded.rs`).
    Recorded(Box<Recorded>),
    /// Each from its parent's (`direct.rs`).
    Direct(Box<Direct>),
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
    pub(crate) fn new(reduced: &Reduced, options: &EnumeratorOptions, searchable: bool, size: usize, n: usize) -> Self {
        let (m, dim) = (reduced.m, reduced.dim);
        let step = Scratch {
            u: vec![0.0; dim],
            caps: vec![0.0; m],
            z: vec![0.0; size],
            dv: vec![0.0; n],
            cover: vec![0.0; size],
            ..Scratch::default()
        };
        if !searchable {
            return step;
        }
        // The records are kept when the whole tree of search nodes (at most
        // Π modes per level) would fit twice the store: `cache_bytes` bounds
        // what is kept, the estimate only decides whether keeping pays (the
        // deep nodes of four spatial contacts could not be kept, and
        // computing records that are not kept costs more than the direct
        // search).
        let tuning = options.tuning;
        #[cfg(test)]
        let fits = tuning.record_always || tree_estimate(reduced) <= 2.0 * tuning.cache_bytes as f64;
        #[cfg(not(test))]
        let fits = tree_estimate(reduced) <= 2.0 * tuning.cache_bytes as f64;
        let recorded = tuning.cache_bytes > 0 && fits;
        Scratch {
            bound: Bound::new(reduced),
            domains: Domains::new(reduced),
            leaf: Leaf {
                x: vec![0.0; dim],
                up: vec![0.0; dim],
                mat: vec![0.0; dim * dim],
                rhs: vec![0.0; dim],
                u0: vec![0.0; dim],
            },
            search: if recorded {
                Search::Recorded(Box::new(Recorded::new(reduced, options)))
            } else {
                Search::Direct(Box::new(Direct::new(reduced)))
            },
            ..step
        }
    }
}
