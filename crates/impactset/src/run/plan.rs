//! One problem and one set of sampler options prepared for a backend.

use super::{Backend, RunControl, RunError};
use crate::sampling::sample_range;
use crate::{ImpactProblem, SampleSet, SamplerOptions};

/// `problem` and `options` prepared once for a [`Backend`]
/// ([`Backend::plan`]), run for any range of sample indices with
/// [`Plan::sample_range`]. On the GPU the per-problem constants are uploaded
/// and the batch buffers allocated once per plan.
pub struct Plan<'b> {
    problem: &'b ImpactProblem,
    options: SamplerOptions,
    kind: Kind<'b>,
}

enum Kind<'b> {
    Cpu {
        pool: Option<&'b rayon::ThreadPool>,
    },
    #[cfg(feature = "gpu")]
    Gpu(Box<crate::gpu::GpuPlan<'b>>),
}

impl<'b> Plan<'b> {
    pub(super) fn new(
        backend: &'b Backend,
        problem: &'b ImpactProblem,
        options: &SamplerOptions,
    ) -> Result<Self, RunError> {
        let kind = match backend {
            Backend::Cpu { pool, .. } => Kind::Cpu { pool: pool.as_deref() },
            #[cfg(feature = "gpu")]
            Backend::Gpu { context, precision, options: run } => {
                Kind::Gpu(Box::new(crate::gpu::GpuPlan::new(context, problem, options, *precision, run)?))
            }
        };
        Ok(Plan { problem, options: options.clone(), kind })
    }

    /// Samples `first_index .. first_index + samples` of the run, in index
    /// order.
    pub fn sample_range(
        &mut self,
        first_index: u64,
        samples: usize,
        control: &RunControl,
    ) -> Result<SampleSet, RunError> {
        if control.cancelled() {
            return Err(RunError::Cancelled);
        }
        let (problem, options) = (self.problem, &self.options);
        match &mut self.kind {
            Kind::Cpu { pool } => {
                let run = || sample_range(problem, options, first_index, samples, control.progress, control.cancel);
                let samples = match pool {
                    Some(pool) => pool.install(run),
                    None => run(),
                };
                Ok(SampleSet { n: problem.n(), samples: samples.ok_or(RunError::Cancelled)? })
            }
            #[cfg(feature = "gpu")]
            Kind::Gpu(plan) => {
                // The GPU checks the flag between batches.
                let mut set = SampleSet { n: problem.n(), samples: Vec::with_capacity(samples) };
                let batch = plan.batch_size();
                let mut done = 0;
                while done < samples {
                    if control.cancelled() {
                        return Err(RunError::Cancelled);
                    }
                    let count = batch.min(samples - done);
                    let part = plan.sample_range(first_index.wrapping_add(done as u64), count, control.progress)?;
                    set.samples.extend(part.samples);
                    done += count;
                }
                Ok(set)
            }
        }
    }
}
