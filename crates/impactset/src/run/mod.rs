//! Algorithm 2 on any backend, through one runner: the command line, the
//! benchmarks, the backend comparison and the language bindings all sample
//! here.
//!
//! * [`Backend`]: where samples are computed — the f64 CPU reference on a
//!   thread pool, or the GPU (feature `gpu`) with a context and a precision;
//!   `Backend::open` (feature `gpu`) resolves a user's [`BackendChoice`] (`cpu`, `gpu`,
//!   `auto`) for a problem and says why.
//! * [`Plan`]: one problem and one set of [`SamplerOptions`] prepared for a
//!   backend once (on the GPU: constants uploaded, buffers allocated), then
//!   run for any range of sample indices.
//! * [`sample`] and [`sample_chunks`]: a whole run, at once or streamed in
//!   chunks, with progress reports and cancellation ([`RunControl`]).
//! * [`RunSummary`]: the counts and settings of a run.
//!
//! A sample depends only on the seed, the problem, the options and its index
//! (`docs/model.md` §7), so results do not depend on the backend (up to the
//! GPU's round-off), the thread count or how a run is split into chunks.
//!
//! ```
//! use impactset::run::{Backend, RunControl, sample};
//! use impactset::{Contact, ImpactProblem, SamplerOptions};
//! use nalgebra::{dmatrix, dvector};
//!
//! let floor = Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.5);
//! let problem = ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], dvector![1.0, -2.0], vec![floor])?;
//! let backend = Backend::cpu(Some(2))?;
//! let options = SamplerOptions { samples: 1000, ..Default::default() };
//! let set = sample(&backend, &problem, &options, &RunControl::default())?;
//! assert_eq!(set.samples.len(), 1000);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "gpu")]
mod auto;
mod backend;
mod choice;
#[cfg(feature = "gpu")]
mod compare;
mod plan;
mod summary;

use std::sync::atomic::AtomicBool;
use std::time::Instant;

#[cfg(feature = "gpu")]
pub use auto::{AdapterKind, AutoTarget, auto_decision, cpu_for_problem};
pub use backend::Backend;
#[cfg(feature = "gpu")]
pub use backend::OpenError;
pub use choice::{AUTO_GPU_ALL_TUPLES, BackendChoice, BackendReason, UnknownBackend};
#[cfg(feature = "gpu")]
pub use compare::{Comparison, compare_backends};
pub use plan::Plan;
pub use summary::RunSummary;

use crate::sampling::chunks;
use crate::{ImpactProblem, SampleSet, SamplerOptions};

/// How a caller follows and stops a run.
#[derive(Clone, Copy)]
pub struct RunControl<'a> {
    /// Called with `k` each time `k` more samples are done, possibly from
    /// worker threads (default: nothing).
    pub progress: &'a (dyn Fn(usize) + Sync),
    /// When set to `true` (from any thread), the run stops with
    /// [`RunError::Cancelled`]: on the CPU before the next sample of every
    /// worker, on the GPU after the batch in flight (default: none).
    pub cancel: Option<&'a AtomicBool>,
}

impl Default for RunControl<'_> {
    fn default() -> Self {
        RunControl { progress: &|_| {}, cancel: None }
    }
}

impl RunControl<'_> {
    pub(crate) fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|flag| flag.load(std::sync::atomic::Ordering::Relaxed))
    }
}

/// Why a run did not complete.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The worker thread pool could not be built (e.g. too many threads).
    #[error("cannot start {threads} worker threads: {reason}")]
    ThreadPool {
        /// Threads asked for.
        threads: usize,
        /// The system's reason.
        reason: String,
    },
    /// The GPU backend failed or does not run this problem.
    #[cfg(feature = "gpu")]
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
    /// The backend `gpu` was asked for in a build without the `gpu` feature.
    #[error("this build has no GPU backend (built without the `gpu` feature)")]
    NoGpuSupport,
    /// [`RunControl::cancel`] was set.
    #[error("cancelled")]
    Cancelled,
}

/// Algorithm 2 on `backend`: samples `options.first_index ..
/// options.first_index + options.samples`, in index order.
pub fn sample(
    backend: &Backend,
    problem: &ImpactProblem,
    options: &SamplerOptions,
    control: &RunControl,
) -> Result<SampleSet, RunError> {
    backend.plan(problem, options)?.sample_range(options.first_index, options.samples, control)
}

/// What a run of [`sample_chunks`] spent, besides its samples.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ChunkedRun {
    /// Seconds spent sampling (without the sink's time).
    pub elapsed_s: f64,
    /// GPU samples the host ran again on the CPU ([`Plan::host_reruns`]);
    /// 0 on the CPU.
    pub host_reruns: u64,
}

/// Algorithm 2 on `backend` in consecutive chunks of at most `chunk` samples
/// (at least 1): `sink` receives each chunk in index order and may drop it,
/// so a run of any size holds one chunk at a time. The samples are those of
/// [`sample`], whatever `chunk`. Returns the time spent sampling and the
/// samples the host ran again. Stops at the first error, of the run
/// (converted into `E`) or of `sink`.
pub fn sample_chunks<E: From<RunError>>(
    backend: &Backend,
    problem: &ImpactProblem,
    options: &SamplerOptions,
    chunk: usize,
    control: &RunControl,
    sink: &mut dyn FnMut(SampleSet) -> Result<(), E>,
) -> Result<ChunkedRun, E> {
    let mut plan = backend.plan(problem, options)?;
    let mut elapsed_s = 0.0;
    for part in chunks(options, chunk) {
        let start = Instant::now();
        let set = plan.sample_range(part.first_index, part.samples, control)?;
        elapsed_s += start.elapsed().as_secs_f64();
        sink(set)?;
    }
    Ok(ChunkedRun { elapsed_s, host_reruns: plan.host_reruns() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::sample_set;
    use crate::{Contact, Selection};
    use nalgebra::{dmatrix, dvector};
    use std::sync::atomic::Ordering;

    fn problem() -> ImpactProblem {
        let a = Contact::planar("A", dvector![0.0, 1.0, 0.3], dvector![1.0, 0.0, 0.2], 0.6);
        let b = Contact::planar("B", dvector![0.0, 1.0, -0.4], dvector![1.0, 0.0, -0.1], 0.6);
        let mass = dmatrix![1.0, 0.0, 0.0; 0.0, 1.0, 0.0; 0.0, 0.0, 0.2];
        ImpactProblem::new(mass, dvector![0.5, -1.0, 0.3], vec![a, b]).unwrap()
    }

    #[test]
    fn chunks_and_threads_give_the_samples_of_one_run() {
        let problem = problem();
        let options = SamplerOptions { samples: 301, first_index: 11, seed: 5, ..Default::default() };
        let whole = sample_set(&problem, &options);
        for (threads, chunk) in [(1, 301), (2, 7), (3, 100)] {
            let backend = Backend::cpu(Some(threads)).unwrap();
            let mut samples = Vec::new();
            sample_chunks(&backend, &problem, &options, chunk, &RunControl::default(), &mut |set| {
                samples.extend(set.samples);
                Ok::<_, RunError>(())
            })
            .unwrap();
            assert_eq!(samples, whole.samples, "{threads} threads, chunks of {chunk}");
        }
    }

    #[test]
    fn a_set_cancel_flag_stops_the_run() {
        let problem = problem();
        let options = SamplerOptions { samples: 1 << 20, selection: Selection::All, ..Default::default() };
        let flag = AtomicBool::new(false);
        let done = std::sync::atomic::AtomicUsize::new(0);
        let progress = |k: usize| {
            // Cancel once some work has been done: the run must not finish.
            if done.fetch_add(k, Ordering::Relaxed) + k >= 1000 {
                flag.store(true, Ordering::Relaxed);
            }
        };
        let control = RunControl { progress: &progress, cancel: Some(&flag) };
        let backend = Backend::cpu(Some(2)).unwrap();
        let result = sample(&backend, &problem, &options, &control);
        assert!(matches!(result, Err(RunError::Cancelled)), "{result:?}");
        assert!(done.load(Ordering::Relaxed) < 1 << 20, "every sample ran");
    }

    #[test]
    fn too_many_threads_is_an_error_not_a_panic() {
        assert!(Backend::cpu(Some(0)).is_err());
    }
}
