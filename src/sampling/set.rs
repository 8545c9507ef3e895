//! Algorithm 2: the post-impact set, sampled in parallel.

use rayon::prelude::*;

use super::sample::{SampleWorkspace, run_sample};
use super::{Sample, SamplerOptions, stream};
use crate::ImpactProblem;

/// Largest number of samples per parallel work item (and per progress report).
const MAX_CHUNK: usize = 1024;

/// Samples per work item: at most [`MAX_CHUNK`], and small enough that every
/// thread gets several items (load balance for expensive samples).
fn chunk_size(total: usize) -> usize {
    (total / (8 * rayon::current_num_threads())).clamp(1, MAX_CHUNK)
}

/// The samples of one run, in index order.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SampleSet {
    /// Generalized velocities per sample, `n`.
    pub n: usize,
    /// Every sample, accepted or not, ordered by index.
    pub samples: Vec<Sample>,
}

impl SampleSet {
    /// The accepted samples.
    pub fn accepted(&self) -> impl Iterator<Item = &Sample> {
        self.samples.iter().filter(|s| s.accepted)
    }

    /// How many samples were accepted.
    pub fn accepted_count(&self) -> usize {
        self.accepted().count()
    }

    /// Samples that did not terminate within the step cap.
    pub fn rejected_unterminated(&self) -> usize {
        self.samples.iter().filter(|s| !s.terminated).count()
    }

    /// Samples that terminated but had a residual above tolerance.
    pub fn rejected_residual(&self) -> usize {
        self.samples.iter().filter(|s| s.terminated && !s.accepted).count()
    }

    /// Total LCP steps divided by samples.
    pub fn mean_steps(&self) -> f64 {
        let total: u64 = self.samples.iter().map(|s| s.steps as u64).sum();
        total as f64 / self.samples.len().max(1) as f64
    }

    /// The largest residual violation over all samples.
    pub fn max_residual(&self) -> f64 {
        self.samples.iter().map(|s| s.max_residual).fold(0.0, f64::max)
    }

    /// The largest `E⁺/E⁻` over all samples (0 when `E⁻ = 0`).
    pub fn max_energy_ratio(&self) -> f64 {
        self.samples
            .iter()
            .filter(|s| s.energy_before > 0.0)
            .map(|s| s.energy_after / s.energy_before)
            .fold(0.0, f64::max)
    }

    /// Total steps where `all` selection fell back to Lemke solves.
    pub fn fallback_steps(&self) -> u64 {
        self.samples.iter().map(|s| s.fallback_steps as u64).sum()
    }

    /// The accepted `v⁺` as a row-major `accepted × n` array.
    pub fn accepted_velocities(&self) -> Vec<f64> {
        self.accepted().flat_map(|s| s.v_plus.iter().copied()).collect()
    }
}

/// Algorithm 2 (model.md §5): samples `first_index .. first_index + samples`
/// in parallel. Each sample depends only on the seed and its index, so the
/// result is bit-identical for any thread count.
pub fn sample_set(problem: &ImpactProblem, options: &SamplerOptions) -> SampleSet {
    sample_set_with_progress(problem, options, &|_| {})
}

/// [`sample_set`], calling `progress(k)` each time `k` more samples are done.
pub fn sample_set_with_progress(
    problem: &ImpactProblem,
    options: &SamplerOptions,
    progress: &(dyn Fn(usize) + Sync),
) -> SampleSet {
    let key = stream::stream_key(options.seed);
    let first = options.first_index;
    let total = options.samples;
    let run = || -> Vec<Sample> {
        let chunk = chunk_size(total);
        let chunks: Vec<Vec<Sample>> = (0..total.div_ceil(chunk))
            .into_par_iter()
            .map_init(
                || SampleWorkspace::new(problem),
                |ws, c| {
                    let range = c * chunk..((c + 1) * chunk).min(total);
                    let len = range.len();
                    let out: Vec<Sample> =
                        range.map(|i| run_sample(problem, options, &key, first + i as u64, ws, None)).collect();
                    progress(len);
                    out
                },
            )
            .collect();
        chunks.into_iter().flatten().collect()
    };
    let samples = match options.threads {
        Some(t) => match rayon::ThreadPoolBuilder::new().num_threads(t).build() {
            Ok(pool) => pool.install(run),
            Err(_) => run(),
        },
        None => run(),
    };
    SampleSet { n: problem.n(), samples }
}
