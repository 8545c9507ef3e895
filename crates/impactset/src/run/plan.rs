//! One problem and one set of sampler options prepared for a backend.

use super::{Backend, RunControl, RunError};
use crate::sampling::FlatSamples;
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

impl Backend {
    /// `problem` and `options` prepared for this backend (the step cap
    /// resolved, [`SamplerOptions::with_steps`]; on the GPU: the options
    /// validated, constants uploaded, buffers allocated).
    pub fn plan<'b>(&'b self, problem: &'b ImpactProblem, options: &SamplerOptions) -> Result<Plan<'b>, RunError> {
        Plan::new(self, problem, options)
    }
}

impl<'b> Plan<'b> {
    fn new(backend: &'b Backend, problem: &'b ImpactProblem, options: &SamplerOptions) -> Result<Self, RunError> {
        let options = &options.with_steps(problem);
        let kind = match backend {
            Backend::Cpu { pool, .. } => Kind::Cpu { pool: pool.as_deref() },
            #[cfg(feature = "gpu")]
            Backend::Gpu { context, precision, options: run } => {
                Kind::Gpu(Box::new(crate::gpu::GpuPlan::new(context, problem, options, *precision, run)?))
            }
        };
        Ok(Plan { problem, options: options.clone().into_owned(), kind })
    }

    /// Samples of this plan's runs so far that the host ran again on the
    /// CPU (`gpu::GpuPlan::host_reruns`: restitution's hand-offs,
    /// f32's unaccepted samples; docs/gpu.md); 0 on the CPU.
    pub fn host_reruns(&self) -> u64 {
        match &self.kind {
            Kind::Cpu { .. } => 0,
            #[cfg(feature = "gpu")]
            Kind::Gpu(plan) => plan.host_reruns(),
        }
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
            Kind::Gpu(_) => Ok(samples_of(self.sample_range_flat(first_index, samples, control)?)),
        }
    }

    /// [`sample_range`](Self::sample_range) as columns ([`FlatSamples`]):
    /// the GPU reads its outputs straight into them, without a
    /// [`crate::Sample`] per sample; the CPU's samples are converted.
    pub fn sample_range_flat(
        &mut self,
        first_index: u64,
        samples: usize,
        control: &RunControl,
    ) -> Result<FlatSamples, RunError> {
        if control.cancelled() {
            return Err(RunError::Cancelled);
        }
        match &mut self.kind {
            Kind::Cpu { .. } => {
                let set = self.sample_range(first_index, samples, control)?;
                Ok(FlatSamples { first_index, ..FlatSamples::from_set(&set) })
            }
            #[cfg(feature = "gpu")]
            Kind::Gpu(plan) => {
                // The GPU checks the flag between batches.
                plan.sample_range_flat(first_index, samples, control.progress, &|| control.cancelled())?
                    .ok_or(RunError::Cancelled)
            }
        }
    }
}

/// The samples of `flat` as a [`SampleSet`], built on all cores (each
/// sample its own `v⁺`: one allocation a sample, which a serial loop would
/// make the host's largest share of a GPU run).
#[cfg(feature = "gpu")]
fn samples_of(flat: FlatSamples) -> SampleSet {
    use rayon::prelude::*;
    let samples = (0..flat.len()).into_par_iter().with_min_len(1024).map(|i| flat.sample(i)).collect();
    SampleSet { n: flat.n, samples }
}

#[cfg(all(test, feature = "gpu"))]
mod tests {
    use super::*;
    use crate::{Selection, sample_set, scene};

    /// The set built on all cores is the serial conversion's, for any
    /// thread count (the restitution columns included).
    #[test]
    fn samples_built_in_parallel_are_the_serial_ones() {
        for (id, selection) in [("compass-gait", Selection::RandomLemke), ("cradle", Selection::Lemke)] {
            let s = scene::builtin(id).unwrap();
            let options = SamplerOptions { samples: 3000, first_index: 5, selection, ..Default::default() };
            let flat = FlatSamples::from_set(&sample_set(&s.problem, &options));
            let serial = flat.clone().into_sample_set();
            for threads in [1, 2, 3] {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                assert_eq!(pool.install(|| samples_of(flat.clone())), serial, "{id} {threads} threads");
            }
        }
    }
}
