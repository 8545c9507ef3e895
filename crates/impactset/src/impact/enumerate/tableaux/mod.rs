//! The tableaux the depth-first search prunes with
//! (docs/model.md#5b1-the-contact-mode-search): the
//! reduced step and its tableau algebra (`reduced.rs`, `eliminate.rs`,
//! `gauss.rs`), and what the search asks of them ([`Tableaux`]). Two
//! implementations give the same tableau constants and the same bounds bit
//! for bit: `recorded.rs` replays fixed-mode records kept from step to step
//! (`records/`), `direct.rs` computes every tableau from its parent's
//! (`direct_bounds.rs` its bounds).

pub(crate) mod direct;
mod direct_bounds;
mod eliminate;
mod gauss;
pub(crate) mod recorded;
mod records;
pub(crate) mod reduced;

use reduced::{Reduced, StepData};

/// The tableaux of a search: the root's, one per search level (contacts
/// `0..l` fixed at level `l`) and a probe's (forward checking). A node at
/// `depth` fixes contact `depth` on level `depth`'s tableau into level
/// `depth + 1`'s. Calls on a node come in the order of the search: `fix`,
/// then `defer` (a singular block), or the bounds and `complete`.
pub(crate) trait Tableaux {
    /// Sets up the root tableau of the step (`x = 0`, `u⁺ = u`).
    fn start(&mut self, red: &Reduced, step: &StepData);

    /// The root filter's test: whether contact `i`'s mode `k` (global mode
    /// `g`) may hold with every other contact free (a singular block
    /// passes). Contact 0's fixes are kept for the first search level.
    fn root_may_hold(&mut self, red: &Reduced, i: usize, k: usize, g: usize, cap: f64, step: &StepData) -> bool;

    /// Fixes `mode` (its contact is the node's depth) at a node whose
    /// fixed contacts `deferred` were singular, writing the rows of that
    /// contact (all of them at the first level); `LAST`: the last contact.
    /// Returns whether the mode's block was regular.
    fn fix<const LAST: bool>(&mut self, red: &Reduced, mode: Fixing, deferred: u64, choice: &[usize]) -> bool;

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
    /// `at.depth + 1`): whether a free contact may still take `mode`, its
    /// inequalities and those of the eliminated contacts tested with the
    /// contacts `at.free` free (a singular block passes). Calls for one
    /// contact come together, after [`probes_with`](Self::probes_with) with
    /// the same `at.free`.
    fn probe(&mut self, red: &Reduced, at: At, mode: Fixing, choice: &[usize], step: &StepData) -> bool;

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

/// A mode to fix: contact `contact` in the global mode `global`, at its cap
/// `h p`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fixing {
    pub contact: usize,
    pub global: usize,
    pub cap: f64,
}

/// Where bounds are tested: the search node at `depth` (contacts
/// `0..=depth` fixed, those in `deferred` singular and still free), with the
/// contacts `free` free.
#[derive(Clone, Copy, Debug)]
pub(crate) struct At {
    pub depth: usize,
    pub deferred: u64,
    pub free: u64,
}
