//! What a batch computes per state: sampler settings, support directions,
//! the ε split, the baselines and whether the sets are kept.

use super::ReachError;
use crate::analysis::ModeOptions;
use crate::{Dimension, ImpactProblem, SamplerOptions};

/// A linear functional `cᵀv⁺` whose largest and smallest value over each
/// state's set the table reports (columns `<name>_max`, `<name>_min`).
#[derive(Clone, Debug, PartialEq)]
pub struct Direction {
    /// Column stem: letters, digits and `_`.
    pub name: String,
    /// What `c` is.
    pub kind: DirectionKind,
}

/// The vector `c` of a [`Direction`], resolved per state (contact rows may
/// differ between the problems of a batch).
#[derive(Clone, Debug, PartialEq)]
pub enum DirectionKind {
    /// Generalized velocity `i`: `c = e_i`.
    Coordinate(usize),
    /// Contact `i`'s normal velocity: `c = (Jn)_i`.
    Normal(usize),
    /// Tangent row `row` (0, or 0 and 1 in space) of contact `contact`:
    /// `c = (Jt)_(contact·t + row)`.
    Tangent {
        /// Contact index.
        contact: usize,
        /// Tangent row within the contact.
        row: usize,
    },
    /// A given `c` of length `n`.
    Vector(Vec<f64>),
}

impl Direction {
    /// The default directions of a problem's sizes: every coordinate
    /// (`v0`, `v1`, …), then every contact's post-impact normal and
    /// tangential velocity (`A_normal`, `A_tangent`; spatial `A_tangent1`,
    /// `A_tangent2`), contact names made column-safe ([`column_name`]).
    pub fn defaults(problem: &ImpactProblem) -> Vec<Direction> {
        let mut out: Vec<Direction> =
            (0..problem.n()).map(|i| Direction { name: format!("v{i}"), kind: DirectionKind::Coordinate(i) }).collect();
        for (i, c) in problem.contacts().iter().enumerate() {
            let stem = column_name(&c.name);
            out.push(Direction { name: format!("{stem}_normal"), kind: DirectionKind::Normal(i) });
            match problem.dimension() {
                Dimension::Planar => out.push(Direction {
                    name: format!("{stem}_tangent"),
                    kind: DirectionKind::Tangent { contact: i, row: 0 },
                }),
                Dimension::Spatial => {
                    for row in 0..2 {
                        out.push(Direction {
                            name: format!("{stem}_tangent{}", row + 1),
                            kind: DirectionKind::Tangent { contact: i, row },
                        });
                    }
                }
            }
        }
        out
    }

    /// `c` for `problem`.
    pub fn vector(&self, problem: &ImpactProblem) -> Vec<f64> {
        self.vector_in(problem, None)
    }

    /// `c` for `problem`, whose contact `order[i]` is the batch's contact
    /// `i` (`None`: the same places).
    pub(crate) fn vector_in(&self, problem: &ImpactProblem, order: Option<&[usize]>) -> Vec<f64> {
        let ops = problem.operators();
        let at = |i: usize| order.map_or(i, |o| o[i]);
        match &self.kind {
            DirectionKind::Coordinate(i) => (0..problem.n()).map(|j| if j == *i { 1.0 } else { 0.0 }).collect(),
            DirectionKind::Normal(i) => ops.jn.row(at(*i)).iter().copied().collect(),
            DirectionKind::Tangent { contact, row } => {
                let t = problem.dimension().tangents();
                ops.jt.row(at(*contact) * t + row).iter().copied().collect()
            }
            DirectionKind::Vector(c) => c.clone(),
        }
    }

    /// Checks the direction against a problem's sizes.
    pub(crate) fn check(&self, problem: &ImpactProblem) -> Result<(), ReachError> {
        let bad = |why: String| Err(ReachError::Direction { name: self.name.clone(), why });
        if self.name.is_empty() || !self.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return bad("a name is letters, digits and _".into());
        }
        let (n, m, t) = (problem.n(), problem.m(), problem.dimension().tangents());
        match &self.kind {
            DirectionKind::Coordinate(i) if *i >= n => bad(format!("coordinate {i} of n = {n}")),
            DirectionKind::Normal(i) if *i >= m => bad(format!("contact {i} of m = {m}")),
            DirectionKind::Tangent { contact, row } if *contact >= m || *row >= t => {
                bad(format!("tangent {row} of contact {contact} (m = {m}, {t} tangent rows)"))
            }
            DirectionKind::Vector(c) if c.len() != n => bad(format!("{} entries, n = {n}", c.len())),
            DirectionKind::Vector(c) if c.iter().any(|x| !x.is_finite()) => bad("an entry is not finite".into()),
            _ => Ok(()),
        }
    }
}

/// A name made safe as a column stem: every character other than ASCII
/// letters, digits and `_` becomes `_` (`"left foot"` → `left_foot`).
pub fn column_name(name: &str) -> String {
    let s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if s.is_empty() { "_".into() } else { s }
}

/// Settings of a batch. Every field has a documented default.
#[derive(Clone, Debug, PartialEq)]
pub struct ReachOptions {
    /// Algorithm 2 per state: `samples` per state (default 256), `steps`,
    /// `step_size` (`Some`: every state; `None`: each state's own, else its
    /// docs/model.md §11 default), `seed` (the batch seed, see
    /// [`state_seed`](super::state_seed)), `selection` and the tolerances.
    /// `first_index` and `threads` are not used (every state samples
    /// `0 .. samples`; the backend owns the threads).
    pub sampler: SamplerOptions,
    /// Support directions (default `None`: [`Direction::defaults`]).
    pub directions: Option<Vec<Direction>>,
    /// Distances of the simultaneous and sequential outcomes to each set
    /// (default `true`; the simultaneous enumeration costs `2^(m(2+d))`
    /// small solves per state).
    pub baselines: bool,
    /// Hand each state's accepted `v⁺` to the caller (default `false`).
    pub keep_sets: bool,
    /// The ε split: accepted samples with index `i ≡ heldout_every − 1
    /// (mod heldout_every)` are held out, the others form the net whose
    /// covering radius they estimate (default 4: a quarter held out; at
    /// least 2).
    pub heldout_every: u64,
    /// Confidence `1 − δ` of the held-out certificate (default
    /// [`DEFAULT_DELTA`](crate::analysis::DEFAULT_DELTA), `δ = 0.05`).
    pub delta: f64,
    /// Contact-mode tolerances (default [`ModeOptions::default`]).
    pub modes: ModeOptions,
    /// The directed search per state (default `None`: off): a column
    /// `<direction>_extreme` per direction and `extremes_gap`
    /// (docs/model.md §12, "Extremes").
    pub extremes: Option<super::ReachExtremes>,
    /// Samples in flight at once on the CPU (default 2¹⁶): states are run in
    /// windows of about this many samples, so memory does not grow with the
    /// number of states. Results do not depend on it.
    pub window_samples: usize,
}

impl ReachOptions {
    /// The default [`heldout_every`](Self::heldout_every): a quarter of the
    /// samples held out.
    pub const DEFAULT_HELDOUT_EVERY: u64 = 4;
}

impl Default for ReachOptions {
    fn default() -> Self {
        ReachOptions {
            sampler: SamplerOptions { samples: 256, ..SamplerOptions::default() },
            directions: None,
            baselines: true,
            keep_sets: false,
            heldout_every: ReachOptions::DEFAULT_HELDOUT_EVERY,
            delta: crate::analysis::DEFAULT_DELTA,
            modes: ModeOptions::default(),
            extremes: None,
            window_samples: 1 << 16,
        }
    }
}
