//! Algorithm 2: the post-impact set, sampled in parallel.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::sample::{LcpFailure, SampleWorkspace, run_sample};
use super::{Sample, SamplerOptions};
use crate::ImpactProblem;
use crate::stream;

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

    /// Samples that did not terminate: out of steps, or stopped by a
    /// failed step LCP.
    pub fn rejected_unterminated(&self) -> usize {
        self.tally().rejected_unterminated()
    }

    /// Samples that terminated but had a residual above tolerance.
    pub fn rejected_residual(&self) -> usize {
        self.tally().rejected_residual()
    }

    /// Total LCP steps divided by samples.
    pub fn mean_steps(&self) -> f64 {
        self.tally().mean_steps()
    }

    /// The largest residual violation over all samples.
    pub fn max_residual(&self) -> f64 {
        self.tally().max_residual
    }

    /// The largest `E⁺/E⁻` over the accepted samples (0 when `E⁻ = 0`).
    pub fn max_energy_ratio(&self) -> f64 {
        self.tally().max_energy_ratio
    }

    /// Total steps where `all` selection fell back to Lemke solves.
    pub fn fallback_steps(&self) -> u64 {
        self.tally().fallback_steps
    }

    /// The accepted `v⁺` as a row-major `accepted × n` array.
    pub fn accepted_velocities(&self) -> Vec<f64> {
        self.accepted().flat_map(|s| s.v_plus.iter().copied()).collect()
    }

    /// The run's counts and extremes ([`SetTally`] of every sample).
    pub fn tally(&self) -> SetTally {
        let mut tally = SetTally::default();
        tally.add(self);
        tally
    }
}

/// Counts and extremes of a run, accumulated chunk by chunk: what a summary
/// needs without holding the samples (see [`sample_set_chunks`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct SetTally {
    /// Samples seen.
    pub samples: usize,
    /// Accepted samples.
    pub accepted: usize,
    /// Samples that terminated.
    pub terminated: usize,
    /// LCP steps over all samples.
    pub steps: u64,
    /// The largest residual violation.
    pub max_residual: f64,
    /// The largest `E⁺/E⁻` of the accepted samples with `E⁻ > 0` (a rejected
    /// sample's `v` is not an outcome).
    pub max_energy_ratio: f64,
    /// Steps where `all` fell back to Lemke solves.
    pub fallback_steps: u64,
    /// `all`: steps certified unique (docs/model.md §5b).
    pub certified_steps: u64,
    /// Samples whose expansion the energy guard cut (restitution,
    /// docs/model.md §4b).
    pub energy_guards: u64,
    /// Samples stopped by a step LCP that ended on a secondary ray (no solution found).
    pub lcp_rays: usize,
    /// Samples stopped by a step LCP that reached the pivot cap.
    pub lcp_pivot_caps: usize,
    /// Samples stopped by a step LCP that ended outside its residual tolerance.
    pub lcp_inaccurate: usize,
    /// Samples stopped by a failed step LCP of any kind: the three above,
    /// and a failure whose kind is not known (the GPU flags a failed solve
    /// without it) or a step whose residual is not finite.
    pub lcp_failed: usize,
}

impl SetTally {
    /// Adds the samples of `set`.
    pub fn add(&mut self, set: &SampleSet) {
        for s in &set.samples {
            self.samples += 1;
            self.accepted += s.accepted as usize;
            self.terminated += s.terminated as usize;
            self.steps += s.steps as u64;
            self.max_residual = self.max_residual.max(s.max_residual);
            if s.accepted && s.energy_before > 0.0 {
                self.max_energy_ratio = self.max_energy_ratio.max(s.energy_after / s.energy_before);
            }
            self.fallback_steps += s.fallback_steps as u64;
            self.energy_guards += u64::from(s.energy_guard);
            self.certified_steps += u64::from(s.certified_steps);
            match s.lcp_failure {
                Some(LcpFailure::Ray) => self.lcp_rays += 1,
                Some(LcpFailure::PivotCap) => self.lcp_pivot_caps += 1,
                Some(LcpFailure::Inaccurate) => self.lcp_inaccurate += 1,
                None => {}
            }
            self.lcp_failed += usize::from(failed(s.terminated, s.max_residual, s.lcp_failure.is_some()));
        }
    }

    /// Samples that did not terminate: out of steps
    /// ([`rejected_out_of_steps`](Self::rejected_out_of_steps)) or stopped
    /// by a failed step LCP ([`lcp_failed`](Self::lcp_failed)).
    pub fn rejected_unterminated(&self) -> usize {
        self.samples - self.terminated
    }

    /// Samples whose impact had not ended after the step cap `K`: those a
    /// larger `K` or `h` would end.
    pub fn rejected_out_of_steps(&self) -> usize {
        self.rejected_unterminated() - self.lcp_failed
    }

    /// Samples that terminated with a residual above tolerance.
    pub fn rejected_residual(&self) -> usize {
        self.terminated - self.accepted
    }

    /// LCP steps per sample.
    pub fn mean_steps(&self) -> f64 {
        self.steps as f64 / self.samples.max(1) as f64
    }
}

/// Whether a sample was stopped by a failed step LCP: a failure it records,
/// or (a GPU sample, which records none) unterminated with a residual that
/// is not finite.
pub(crate) fn failed(terminated: bool, max_residual: f64, recorded: bool) -> bool {
    recorded || !terminated && !max_residual.is_finite()
}

/// Samples per chunk of [`sample_set_chunks`] by default: 2¹⁸, about 25 MB
/// of samples for a 4-velocity problem.
pub const DEFAULT_CHUNK: usize = 1 << 18;

/// Bytes of samples a chunk holds by default ([`default_chunk`]): 256 MiB.
pub const DEFAULT_CHUNK_BYTES: usize = 256 << 20;

/// Samples per chunk for `n` velocities: as many as fit in
/// [`DEFAULT_CHUNK_BYTES`] (a [`Sample`] with its `v⁺`), at least 1 and at
/// most [`DEFAULT_CHUNK`].
pub fn default_chunk(n: usize) -> usize {
    let per_sample = std::mem::size_of::<Sample>() + 8 * n;
    (DEFAULT_CHUNK_BYTES / per_sample).clamp(1, DEFAULT_CHUNK)
}

/// Algorithm 2 in consecutive chunks of at most `chunk` samples: `sink`
/// receives each chunk's [`SampleSet`] in index order and may drop it, so a
/// run of any size holds one chunk at a time. The samples are those of
/// [`sample_set`] (each depends only on the seed and its index), whatever
/// `chunk`. Stops at the first error of `sink`.
///
/// ```
/// use impactset::sampling::{SetTally, sample_set_chunks};
/// use impactset::{Contact, ImpactProblem, SamplerOptions};
/// use nalgebra::{dmatrix, dvector};
///
/// let floor = Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.5);
/// let problem = ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], dvector![1.0, -2.0], vec![floor])?;
/// let options = SamplerOptions { samples: 10_000, ..Default::default() };
/// let mut tally = SetTally::default();
/// sample_set_chunks(&problem, &options, 4096, &|_| {}, &mut |chunk| {
///     tally.add(&chunk);
///     Ok::<_, std::convert::Infallible>(())
/// })?;
/// assert_eq!(tally.samples, 10_000);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sample_set_chunks<E>(
    problem: &ImpactProblem,
    options: &SamplerOptions,
    chunk: usize,
    progress: &(dyn Fn(usize) + Sync),
    sink: &mut dyn FnMut(SampleSet) -> Result<(), E>,
) -> Result<(), E> {
    let options = &options.with_steps(problem);
    for part in chunks(options, chunk) {
        sink(sample_set_with_progress(problem, &part, progress))?;
    }
    Ok(())
}

/// The run `options` as consecutive runs of at most `chunk` samples (at
/// least 1) with the same seed and settings: together they are the same
/// samples, whatever the backend.
pub fn chunks(options: &SamplerOptions, chunk: usize) -> impl Iterator<Item = SamplerOptions> + '_ {
    let chunk = chunk.max(1);
    (0..options.samples.div_ceil(chunk)).map(move |c| {
        let start = c * chunk;
        SamplerOptions {
            samples: chunk.min(options.samples - start),
            first_index: options.first_index.wrapping_add(start as u64),
            ..options.clone()
        }
    })
}

/// Algorithm 2 (docs/model.md §5): samples `first_index .. first_index + samples`
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
    let options = &options.with_steps(problem);
    let samples = in_pool(options.threads, || {
        sample_range(problem, options, options.first_index, options.samples, progress, None)
    });
    SampleSet { n: problem.n(), samples: samples.expect("a run without a cancel flag completes") }
}

/// Runs `run` on a pool of `threads` workers (`None`, or a pool that cannot
/// be built: the current pool). Results never depend on it.
pub(crate) fn in_pool<T: Send>(threads: Option<usize>, run: impl FnOnce() -> T + Send) -> T {
    match threads.map(|t| rayon::ThreadPoolBuilder::new().num_threads(t).build()) {
        Some(Ok(pool)) => pool.install(run),
        _ => run(),
    }
}

/// Samples `indices` of the run `options` on the current rayon pool, in
/// that order, one workspace per worker (the GPU's host re-runs).
#[cfg(feature = "gpu")]
pub(crate) fn samples_at(problem: &ImpactProblem, options: &SamplerOptions, indices: &[u64]) -> Vec<Sample> {
    let key = stream::stream_key(options.seed);
    indices
        .par_iter()
        .map_init(|| SampleWorkspace::new(problem), |ws, &index| run_sample(problem, options, &key, index, ws, None))
        .collect()
}

/// Samples `first .. first + total` of the run `options` on the current
/// rayon pool, in index order; `None` as soon as `cancel` is set (checked
/// before every sample).
pub(crate) fn sample_range(
    problem: &ImpactProblem,
    options: &SamplerOptions,
    first: u64,
    total: usize,
    progress: &(dyn Fn(usize) + Sync),
    cancel: Option<&AtomicBool>,
) -> Option<Vec<Sample>> {
    let key = stream::stream_key(options.seed);
    let cancelled = || cancel.is_some_and(|flag| flag.load(Ordering::Relaxed));
    let chunk = chunk_size(total);
    let chunks: Option<Vec<Vec<Sample>>> = (0..total.div_ceil(chunk))
        .into_par_iter()
        .map_init(
            || SampleWorkspace::new(problem),
            |ws, c| {
                let range = c * chunk..((c + 1) * chunk).min(total);
                let len = range.len();
                let out: Option<Vec<Sample>> = range
                    .map(|i| {
                        (!cancelled())
                            .then(|| run_sample(problem, options, &key, first.wrapping_add(i as u64), ws, None))
                    })
                    .collect();
                if out.is_some() {
                    progress(len);
                }
                out
            },
        )
        .collect();
    Some(chunks?.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Contact, Selection};
    use nalgebra::{dmatrix, dvector};

    #[test]
    fn chunks_concatenate_to_the_whole_set() {
        let a = Contact::planar("A", dvector![0.0, 1.0, 0.3], dvector![1.0, 0.0, 0.2], 0.6);
        let b = Contact::planar("B", dvector![0.0, 1.0, -0.4], dvector![1.0, 0.0, -0.1], 0.6);
        let mass = dmatrix![1.0, 0.0, 0.0; 0.0, 1.0, 0.0; 0.0, 0.0, 0.2];
        let problem = ImpactProblem::new(mass, dvector![0.5, -1.0, 0.3], vec![a, b]).unwrap();
        let options =
            SamplerOptions { samples: 101, first_index: 7, selection: Selection::RandomLemke, ..Default::default() };
        let whole = sample_set(&problem, &options);
        let mut sizes = Vec::new();
        let mut samples = Vec::new();
        let mut tally = SetTally::default();
        sample_set_chunks(&problem, &options, 10, &|_| {}, &mut |chunk| {
            tally.add(&chunk);
            sizes.push(chunk.samples.len());
            samples.extend(chunk.samples);
            Ok::<_, ()>(())
        })
        .unwrap();
        assert_eq!(sizes, [vec![10; 10], vec![1]].concat());
        assert_eq!(samples, whole.samples);
        assert_eq!(tally, whole.tally());
        assert_eq!(tally.samples, 101);
    }
}
