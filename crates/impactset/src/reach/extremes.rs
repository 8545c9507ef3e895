//! The worst case per state (docs/model.md §12, "Extremes"): the directed
//! search of §5d in each support direction, seeded by the state's own
//! samples and ordered anchors, and the extremes check (how far those
//! outcomes lie from the sampled set).

use serde::{Deserialize, Serialize};

use crate::sampling::{EXTREMES_SELECTION, ExtremesOptions, anchors, extremes_from};
use crate::{ImpactProblem, Sample, SamplerOptions, Selection};

/// Settings of the per-state search (columns `<direction>_extreme` and
/// `extremes_gap`). It runs once per state, so the defaults are small.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReachExtremes {
    /// Schedules the cross-entropy search evaluates per direction and state
    /// (default 256; 0: the state's best samples and its anchors only).
    pub budget: usize,
    /// Ordered anchors per state, at most (default 24: every order of up to
    /// four contacts, else 24 seeded random orders).
    pub anchors: usize,
}

impl Default for ReachExtremes {
    fn default() -> Self {
        ReachExtremes { budget: 256, anchors: 24 }
    }
}

/// The rule the search evaluates schedules with: under `all` the search's
/// rule ([`EXTREMES_SELECTION`], one Lemke solve a step: its step solutions
/// are among those `all` enumerates, so its outcomes are members of the
/// same set), else the batch's own.
pub fn search_selection(batch: Selection) -> Selection {
    match batch {
        Selection::All => EXTREMES_SELECTION,
        other => other,
    }
}

/// What the search found for one state.
pub(crate) struct StateExtremes {
    /// Per direction, the larger of the sampled support and the search's
    /// best `cᵀv⁺` (`NaN` when neither exists).
    pub values: Vec<f64>,
    /// The largest energy-norm distance from an accepted anchor or a
    /// direction's best outcome to the set (`∞` for an empty set, `NaN`
    /// with no such outcome).
    pub gap: f64,
}

/// The search of one state: `options` are the state's own (its seed and
/// step size), `samples` all its samples in index order, `support_max` its
/// sampled supports, `distance` the energy-norm distance of a `v⁺` to the
/// state's set.
pub(crate) fn state_extremes(
    problem: &ImpactProblem,
    options: &SamplerOptions,
    samples: &[Sample],
    directions: &[Vec<f64>],
    support_max: &[f64],
    settings: &ReachExtremes,
    distance: impl Fn(&[f64]) -> f64,
) -> StateExtremes {
    let options = &SamplerOptions { selection: search_selection(options.selection), ..options.clone() };
    let anchors = anchors(problem, options, settings.anchors);
    let search = ExtremesOptions { budget: settings.budget, ..ExtremesOptions::default() };
    let found = extremes_from(problem, options, directions, &search, samples, &anchors);
    let values = found
        .iter()
        .zip(support_max)
        .map(|(e, &sampled)| {
            let best = sampled.max(e.value);
            if best.is_finite() { best } else { f64::NAN }
        })
        .collect();
    let outcomes = anchors
        .iter()
        .filter(|a| a.trajectory.sample.accepted)
        .map(|a| a.trajectory.sample.v_plus.as_slice())
        .chain(found.iter().filter(|e| !e.v_plus.is_empty()).map(|e| e.v_plus.as_slice()));
    let gap = outcomes.map(distance).fold(f64::NAN, f64::max);
    StateExtremes { values, gap }
}
