//! Sampling the post-impact set (docs/model.md §5): Algorithm 1 (one sample) and
//! Algorithm 2 (the set, in parallel), with the random streams of §7.

mod flat;
mod json;
mod options;
mod pilot;
mod sample;
mod set;

pub use crate::stream;
pub use flat::FlatSamples;
pub use json::finite_or_string;
pub use options::{MAX_STEPS, MAX_THREADS, OptionsError, SamplerOptions};
pub use pilot::{MIN_STEPS, PILOT_CAP, PILOT_SAMPLES, StepCap, default_steps};
pub use sample::{LcpFailure, Sample, StepRecord, Trajectory, first_trajectories, sample_one, sample_trajectory};
pub(crate) use sample::{SampleWorkspace, run_sample};
pub(crate) use set::sample_range;
pub use set::{
    DEFAULT_CHUNK, DEFAULT_CHUNK_BYTES, SampleSet, SetTally, chunks, default_chunk, sample_set, sample_set_chunks,
    sample_set_with_progress,
};
