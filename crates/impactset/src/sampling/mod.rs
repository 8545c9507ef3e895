//! Sampling the post-impact set (model.md §5): Algorithm 1 (one sample) and
//! Algorithm 2 (the set, in parallel), with the random streams of §7.

mod options;
mod sample;
mod set;
pub mod stream;

pub use options::SamplerOptions;
pub use sample::{Sample, StepRecord, Trajectory, first_trajectories, sample_one, sample_trajectory};
pub(crate) use set::sample_range;
pub use set::{DEFAULT_CHUNK, SampleSet, SetTally, chunks, sample_set, sample_set_chunks, sample_set_with_progress};
