//! The extremes check of a sampled set (docs/model.md §6): how far the
//! ordered anchors and the directed search's outcomes (§5d) lie from it.
//!
//! The held-out certificate measures coverage under the sampling law; the
//! extremes of the set carry almost no sampling measure, so a net can pass
//! the certificate and still fall short of them. Every outcome measured
//! here is a certified member of the set, so its distance to the net is a
//! lower bound on the net's true covering radius.

use serde::Serialize;

use super::{Embedding, Figure, NearestIndex, PointCloud, velocity_norm};
use crate::sampling::{
    ExtremesOptions, MAX_ANCHORS, OptionsError, anchors, check_budget, extremes_from, in_pool, random_directions,
};
use crate::{ImpactProblem, SamplerOptions, sample_set};

/// How much the check searches. Cheap by default: it runs next to every
/// ε report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtremesGapOptions {
    /// Ordered anchors, at most (default 24: every order of up to four
    /// contacts, else 24 seeded random orders).
    pub anchors: usize,
    /// Seeded random directions searched, uniform on the unit sphere of the
    /// energy norm (default 4, at most
    /// [`MAX_EXTREMES_DIRECTIONS`](crate::sampling::MAX_EXTREMES_DIRECTIONS)).
    pub directions: usize,
    /// Samples of the law, from index 0, that seed the search (default 256).
    pub samples: usize,
    /// Schedules the search evaluates per direction (default 256, at most
    /// [`MAX_EXTREMES_BUDGET`](crate::sampling::MAX_EXTREMES_BUDGET)).
    pub budget: usize,
}

impl Default for ExtremesGapOptions {
    fn default() -> Self {
        ExtremesGapOptions { anchors: 24, directions: 4, samples: 256, budget: 256 }
    }
}

/// The distance from the anchors and search outcomes to a set.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExtremesGap {
    /// Accepted anchors measured.
    pub anchors: usize,
    /// Directions searched.
    pub directions: usize,
    /// Schedules per direction.
    pub budget: usize,
    /// The largest distance from one of those outcomes to the nearest point
    /// of the set, in the metric and relative to `‖v⁻‖` (`NaN` with no
    /// outcome, `∞` for an empty set).
    pub gap: Figure,
    /// Which outcome lies farthest: `anchor A, B, C` (its contact order) or
    /// `search, random direction j`.
    pub farthest: String,
}

/// The extremes check of `net` (a set of `problem`, embedded with
/// `embedding`): the ordered anchors and a search in seeded random
/// directions under `options` (its seed, step size, step cap, rule and
/// law; `samples` and `first_index` are the check's).
///
/// Errors: those of [`SamplerOptions::validate`], and `check`'s fields
/// (`directions`, `budget`, `anchors`) beyond their limits.
pub fn extremes_gap(
    problem: &ImpactProblem,
    options: &SamplerOptions,
    embedding: &Embedding,
    net: &PointCloud,
    check: &ExtremesGapOptions,
) -> Result<ExtremesGap, OptionsError> {
    let options = &SamplerOptions { samples: check.samples.max(1), first_index: 0, ..options.clone() };
    options.validate(problem)?;
    check_budget(check.budget)?;
    if check.anchors > MAX_ANCHORS {
        let why = format!("at most {MAX_ANCHORS} ordered anchors");
        return Err(OptionsError { field: "anchors", value: check.anchors.to_string(), why });
    }
    let directions = random_directions(problem, check.directions, options.seed)?;
    let seeds = sample_set(problem, options);
    let search = ExtremesOptions { budget: check.budget, ..ExtremesOptions::default() };
    let (anchors, found) = in_pool(options.threads, || {
        let anchors = anchors(problem, options, check.anchors);
        let found = extremes_from(problem, options, &directions, &search, &seeds.samples, &anchors);
        (anchors, found)
    });
    let names: Vec<&str> = problem.contacts().iter().map(|c| c.name.as_str()).collect();
    let accepted: Vec<_> = anchors.iter().filter(|a| a.trajectory.sample.accepted).collect();
    let outcomes = accepted
        .iter()
        .map(|a| {
            let order: Vec<&str> = a.order.iter().map(|&i| names[i]).collect();
            (format!("anchor {}", order.join(", ")), a.trajectory.sample.v_plus.as_slice())
        })
        .chain(
            found
                .iter()
                .enumerate()
                .filter(|(_, e)| !e.v_plus.is_empty())
                .map(|(j, e)| (format!("search, random direction {j}"), e.v_plus.as_slice())),
        );
    let index = NearestIndex::new(net);
    let (mut gap, mut farthest) = (f64::NAN, String::new());
    for (label, v) in outcomes {
        let d = index.nearest(&embedding.apply(v)).map_or(f64::INFINITY, |(_, d)| d);
        if gap.is_nan() || d > gap {
            (gap, farthest) = (d, label);
        }
    }
    let scale = velocity_norm(problem, embedding);
    Ok(ExtremesGap {
        anchors: accepted.len(),
        directions: directions.len(),
        budget: check.budget,
        gap: Figure { absolute: gap, relative: if scale > 0.0 { gap / scale } else { f64::NAN } },
        farthest,
    })
}
