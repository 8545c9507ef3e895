//! Sampling the post-impact set (docs/model.md §5): Algorithm 1 (one sample) and
//! Algorithm 2 (the set, in parallel), with the random streams of §7.

mod baselines;
mod elastic;
mod extremes;
mod extremes_query;
mod flat;
mod json;
mod options;
mod pilot;
mod restitution;
mod sample;
mod schedule;
mod set;
mod workspace;

pub use crate::stream;
pub use baselines::{SIMULTANEOUS_RUNS, sequential_with_restitution, simultaneous_with_restitution};
#[cfg(all(test, feature = "gpu"))]
pub(crate) use elastic::ELASTIC_ENUMERATION_CONTACTS;
pub use extremes::{
    ANCHOR_INDEX, Anchor, EXTREMES_SELECTION, Extreme, ExtremesOptions, MAX_ANCHORS, Origin, SEARCH_INDEX,
    SearchControl, anchor_orders, anchor_outcomes, anchors, extremes, extremes_from, extremes_with, random_directions,
    replay,
};
pub use extremes_query::{
    DirectionNameError, DirectionSpecError, MAX_EXTREMES_BUDGET, MAX_EXTREMES_DIRECTIONS, check_budget,
    check_direction_count, check_direction_names, parse_direction,
};
pub use flat::FlatSamples;
pub use json::finite_or_string;
pub use options::{DEFAULT_SAMPLES, MAX_STEPS, MAX_THREADS, OptionsError, SamplerOptions};
pub use pilot::{
    MIN_STEPS, PILOT_BUDGET, PILOT_CAP, PILOT_FIRST_CAP, PILOT_SAMPLES, PilotCancelled, StepCap, default_steps,
    default_steps_with,
};
pub use restitution::{
    CORRECTIONS, CoarseExpansion, EXPANSION_RESOLUTION, GUARD_ROUNDS, WORK_TOL, coarse_expansion, default_step_size,
    expansion_step_size, impulse_for_work,
};
pub use sample::{
    DEFAULT_TRAJECTORIES, LcpFailure, Sample, StepRecord, Trajectory, first_trajectories, sample_one, sample_trajectory,
};
pub(crate) use sample::{SampleWorkspace, run_sample};
pub use schedule::{
    CAP_FLOOR, CAP_ONE, Schedule, UnknownSchedule, extreme_cap, finish_step, hold_steps, ordered_rate, renormalize,
};
#[cfg(feature = "gpu")]
pub(crate) use set::samples_at;
pub use set::{
    DEFAULT_CHUNK, DEFAULT_CHUNK_BYTES, SampleSet, SetTally, chunks, default_chunk, sample_set, sample_set_chunks,
    sample_set_with_progress,
};
pub(crate) use set::{in_pool, sample_range};
