//! Algorithm 2 on the GPU: one invocation per sample running Algorithm 1
//! (`shaders/routh.wgsl`), in batches so that any sample count runs.

use super::GpuError;
use super::context::GpuContext;
use super::coop::LemkeKernel;
use super::options::GpuRunOptions;
use super::plan::{GpuPlan, Pending, Rows};
use super::precision::Precision;
use super::readback::Mapped;
use super::types::{FLAG_DONE, FLAG_LOOP_LIMIT};
use crate::sampling::FlatSamples;
use crate::{ImpactProblem, SampleSet, SamplerOptions};

/// Algorithm 2 (docs/model.md §5) on the GPU: samples
/// `first_index .. first_index + samples`, one invocation each, with the
/// cap and selection words of the CPU ([`crate::sampling::stream`]).
///
/// In `F64` every sample agrees with [`crate::sample_set`] up to round-off.
/// In `F32` Lemke runs on the equilibrated step LCP with the relative pivot
/// tolerance [`relative_pivot_tolerance`](super::relative_pivot_tolerance)
/// ([`GpuRunOptions::equilibrate`]), the tie tolerance is
/// [`tie_tolerance`](super::tie_tolerance)'s, the termination tolerance is
/// at least [`F32_TERMINATION_FLOOR`](super::F32_TERMINATION_FLOOR) and the residual tolerance at least
/// `1024 · ε_f32 · max(1, ‖A_R‖∞)` (the violation is relative), so that
/// round-off alone does not reject samples; for a problem whose absolute
/// pivot tolerance exceeds [`MAX_F32_PIVOT_TOLERANCE`](super::MAX_F32_PIVOT_TOLERANCE) (RAMone) `‖A‖∞` of the
/// equilibrated matrix instead. With
/// `equilibrate` off, f32 pivots on `A_R` with the absolute tolerance
/// [`pivot_tolerance`](super::pivot_tolerance) and refuses problems whose
/// tolerance exceeds [`MAX_F32_PIVOT_TOLERANCE`](super::MAX_F32_PIVOT_TOLERANCE) ([`GpuError::PoorlyScaled`]).
///
/// ```no_run
/// use impactset::gpu::{GpuContext, Precision, sample_set_gpu};
/// use impactset::{Contact, ImpactProblem, SamplerOptions, Selection};
/// use nalgebra::{dmatrix, dvector};
///
/// let floor = Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.5);
/// let problem = ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], dvector![1.0, -2.0], vec![floor])?;
/// let ctx = GpuContext::new()?;
/// let options = SamplerOptions { samples: 1 << 16, selection: Selection::RandomLemke, ..Default::default() };
/// let precision = if ctx.supports_f64() { Precision::F64 } else { Precision::F32 };
/// let set = sample_set_gpu(&ctx, &problem, &options, precision)?;
/// println!("{} of {} accepted on {}", set.accepted_count(), set.samples.len(), ctx.describe());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Selection [`Selection::All`](crate::Selection::All) runs for problems of at most
/// [`MAX_GPU_ALL_TUPLES`](super::MAX_GPU_ALL_TUPLES) mode tuples a step on at most
/// [`MAX_GPU_ALL_CONTACTS`](super::MAX_GPU_ALL_CONTACTS) contacts: each step
/// tries every mode tuple in the CPU enumerator's order
/// (`shaders/enumerate.wgsl`, [`crate::impact::StepEnumerator`]), with the
/// CPU's tolerances in `F64`; in `F32` the acceptance tolerance is `3·10⁻⁶`,
/// "same velocity change" `10⁻⁴` and the violation filter a tenth of the f32
/// residual tolerance (docs/gpu-lavapipe.md).
///
/// A problem with restitution (docs/model.md §4b) runs under every rule
/// (under `all`, where no contact with restitution has friction and a step
/// has fewer than 100 mode tuples):
/// `shaders/restitution.wgsl` and `shaders/elastic_step.wgsl` take each step's expansion, its
/// corrections and the energy guard as the CPU does; a sample whose step
/// the shader cannot finish as the CPU would (a failed Lemke solve, which
/// the CPU retries with the enumerator, a step with more distinct
/// solutions than `all`'s scratch holds, or a dispatch the driver's loop
/// limiter cut) is run again on the CPU by the host
/// ([`GpuPlan::host_reruns`]). So is, under `all`, a sample with a step of
/// more than [`MAX_GPU_ALL_SOLUTIONS`](super::MAX_GPU_ALL_SOLUTIONS)
/// distinct solutions (the shader's scratch; f32's near-duplicates can
/// pass it where f64 finds a few).
///
/// Errors: [`GpuError::Restitution`] for [`Selection::All`](crate::Selection::All) on a problem
/// with restitution and 100 mode tuples a step or more, or whose twinned
/// steps (a contact with restitution and friction adds a twin, docs/model.md
/// §5b) exceed `all`'s limits; [`GpuError::TooLargeForAll`] for [`Selection::All`](crate::Selection::All) on a
/// problem of more mode tuples a step than [`MAX_GPU_ALL_TUPLES`](super::MAX_GPU_ALL_TUPLES) (or more than
/// [`MAX_GPU_ALL_CONTACTS`](super::MAX_GPU_ALL_CONTACTS) contacts),
/// [`GpuError::Unsupported`] for a step cap above [`MAX_GPU_STEPS`](super::MAX_GPU_STEPS); [`GpuError::DeviceLimit`]
/// where not one sample's Lemke tableau (or the problem's constants) fits
/// the device's buffer limits (any step LCP size and number of velocities
/// runs otherwise, in a module compiled for its size class);
/// [`GpuError::NoF64`] for `F64` on an adapter without it.
pub fn sample_set_gpu(
    ctx: &GpuContext,
    problem: &ImpactProblem,
    options: &SamplerOptions,
    precision: Precision,
) -> Result<SampleSet, GpuError> {
    sample_set_gpu_with(ctx, problem, options, precision, &GpuRunOptions::default(), &|_| {})
}

/// [`sample_set_gpu`] with explicit batching, calling `progress(k)` after
/// each batch of `k` samples has been read back: a [`GpuPlan`] built and run
/// once.
pub fn sample_set_gpu_with(
    ctx: &GpuContext,
    problem: &ImpactProblem,
    options: &SamplerOptions,
    precision: Precision,
    run: &GpuRunOptions,
    progress: &dyn Fn(usize),
) -> Result<SampleSet, GpuError> {
    GpuPlan::new(ctx, problem, options, precision, run)?.sample_range(options.first_index, options.samples, progress)
}

impl<'c> GpuPlan<'c> {
    /// Largest number of samples per batch.
    pub fn batch_size(&self) -> usize {
        self.batch
    }

    /// The device limit that lowered [`batch_size`](Self::batch_size) below
    /// the asked (or default) batch, named with the buffer it bounds (e.g.
    /// `max_storage_buffer_binding_size (134217728 bytes) on one sample's
    /// Lemke tableau (506880 bytes)`), or `None` when no limit did. Large
    /// step LCPs run in smaller batches, sized from the device's limits.
    pub fn batch_bound(&self) -> Option<&str> {
        self.batch_bound.as_deref()
    }

    /// Threads per workgroup.
    pub fn workgroup_size(&self) -> u32 {
        self.workgroup_size
    }

    /// The Lemke kernel this plan runs (one invocation or one workgroup per
    /// sample, [`LemkeKernel::for_problem`]).
    pub fn lemke_kernel(&self) -> LemkeKernel {
        self.kernel
    }

    /// States in this plan.
    pub fn states(&self) -> usize {
        self.states
    }

    /// Samples `first_index .. first_index + samples` of the first state, in
    /// batches, calling `progress(k)` after each batch of `k` samples has
    /// been read back.
    pub fn sample_range(
        &mut self,
        first_index: u64,
        samples: usize,
        progress: &dyn Fn(usize),
    ) -> Result<SampleSet, GpuError> {
        let flat = self.sample_range_flat(first_index, samples, progress, &|| false)?;
        Ok(flat.expect("a run without cancellation completes").into_sample_set())
    }

    /// [`sample_range`](Self::sample_range) as columns ([`FlatSamples`]),
    /// checking `cancelled()` before each batch is submitted: `Ok(None)` when
    /// it returned `true`. `v⁺` is left empty when
    /// [`GpuRunOptions::skip_velocities`] was set.
    pub fn sample_range_flat(
        &mut self,
        first_index: u64,
        samples: usize,
        progress: &dyn Fn(usize),
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Option<FlatSamples>, GpuError> {
        let mut out = [self.columns(first_index, samples)];
        let batches = Self::state_batches(0, first_index, samples, self.batch);
        let done = self.run_batches(batches, first_index, &mut out, progress, cancelled)?;
        let [out] = out;
        Ok(done.then_some(out))
    }

    /// Samples `first_index .. first_index + samples` of every state of the
    /// plan, one [`FlatSamples`] per state in state order, packing whole
    /// states into batches when `samples` is at most
    /// [`batch_size`](Self::batch_size); otherwise as
    /// [`sample_range_flat`](Self::sample_range_flat) state by state.
    /// `cancelled` and `progress` as there.
    pub fn sample_states(
        &mut self,
        first_index: u64,
        samples: usize,
        progress: &dyn Fn(usize),
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Option<Vec<FlatSamples>>, GpuError> {
        let mut outs: Vec<FlatSamples> = (0..self.states).map(|_| self.columns(first_index, samples)).collect();
        let batches: Vec<Rows> = if samples == 0 {
            Vec::new()
        } else if samples <= self.batch {
            let per_batch = self.batch / samples;
            (0..self.states)
                .step_by(per_batch)
                .map(|state| Rows {
                    state,
                    rows: per_batch.min(self.states - state),
                    row_samples: samples,
                    first: first_index,
                })
                .collect()
        } else {
            (0..self.states).flat_map(|k| Self::state_batches(k, first_index, samples, self.batch)).collect()
        };
        let done = self.run_batches(batches, first_index, &mut outs, progress, cancelled)?;
        Ok(done.then_some(outs))
    }

    /// Samples `first .. first + samples` of state `state` in batches of at
    /// most `batch`.
    fn state_batches(state: usize, first: u64, samples: usize, batch: usize) -> Vec<Rows> {
        (0..samples)
            .step_by(batch)
            .map(|done| Rows {
                state,
                rows: 1,
                row_samples: batch.min(samples - done),
                first: first.wrapping_add(done as u64),
            })
            .collect()
    }

    /// Runs `batches` in order, writing each batch's samples into the
    /// columns of its states (`outs[k]`: state `k`'s samples from
    /// `first_index`, presized); `false` when `cancelled()` stopped the run.
    fn run_batches(
        &mut self,
        batches: Vec<Rows>,
        first_index: u64,
        outs: &mut [FlatSamples],
        progress: &dyn Fn(usize),
        cancelled: &dyn Fn() -> bool,
    ) -> Result<bool, GpuError> {
        let mut sink = |plan: &Self, slot: usize, rows: &Rows, submission: &wgpu::SubmissionIndex| {
            let at = rows.first.wrapping_sub(first_index) as usize;
            plan.read_back(slot, rows, submission, &mut outs[rows.state..rows.state + rows.rows], at)
        };
        let mut pending: Option<Pending> = None;
        for (k, rows) in batches.into_iter().enumerate() {
            if cancelled() {
                return Ok(false);
            }
            let slot = k % 2;
            if self.all {
                // `all` may need more rounds: read each batch back before the next.
                let submission = self.run_all_batch(slot, &rows)?;
                sink(self, slot, &rows, &submission)?;
                progress(rows.count());
            } else {
                let submission = self.submit(slot, &rows, true, self.round)?;
                // While this batch runs, read the previous one back.
                if let Some(previous) = pending.take() {
                    sink(self, previous.slot, &previous.rows, &previous.submission)?;
                    progress(previous.rows.count());
                }
                pending = Some(Pending { slot, rows, submission });
            }
        }
        if let Some(previous) = pending.take() {
            sink(self, previous.slot, &previous.rows, &previous.submission)?;
            progress(previous.rows.count());
        }
        Ok(true)
    }

    /// Submits `passes` dispatches of the batch `rows` (after zeroing its
    /// flags and stream positions when `clear`), then the copies of its
    /// outputs into read-back slot `slot`.
    fn submit(
        &mut self,
        slot: usize,
        rows: &Rows,
        clear: bool,
        passes: u32,
    ) -> Result<wgpu::SubmissionIndex, GpuError> {
        let ctx = self.ctx;
        let count = rows.count();
        debug_assert!(count <= self.batch && rows.state + rows.rows <= self.states);
        self.params.count = count as u32;
        self.params.first_lo = rows.first as u32;
        self.params.first_hi = (rows.first >> 32) as u32;
        self.params.row_samples = rows.row_samples as u32;
        self.params.state_first = rows.state as u32;
        ctx.queue.write_buffer(&self.params_buf, 0, bytemuck::bytes_of(&self.params));
        let scalar = self.precision.bytes() as u64;
        let c = count as u64;
        let read = &self.slots[slot];
        let mut copies = vec![(&self.words_out, &read.words, c * 8), (&self.stats_out, &read.stats, c * 3 * scalar)];
        if self.read_velocities {
            copies.push((&self.v_out, &read.v, c * self.n as u64 * scalar));
        }
        if let Some(enum_read) = &read.enum_words {
            copies.push((&self.enum_words, enum_read, c * self.word_stride as u64 * 4));
        }
        let clear: Vec<(&wgpu::Buffer, u64)> =
            if clear { vec![(&self.words_out, c * 8), (&self.stream_pos, c * 8)] } else { Vec::new() };
        let groups = match self.kernel {
            // Persistent workers: fewer invocations than samples, each
            // taking the next sample from the counter (routh.wgsl).
            LemkeKernel::PerSample => {
                (count as u32).min(self.workers.unwrap_or(u32::MAX)).div_ceil(self.workgroup_size)
            }
            // One workgroup per sample, up to the dispatch limit; each takes
            // the samples `groups` apart (routh_coop.wgsl).
            LemkeKernel::Cooperative => (count as u32).min(ctx.limits.max_compute_workgroups_per_dimension),
        };
        let counter = self.workers.map(|_| &self.work_counter);
        if self.kernel == LemkeKernel::PerSample && self.workers.is_some() {
            // The most slots an invocation takes a dispatch (routh.wgsl):
            // its share on CPU adapters (lavapipe's loop limiter), else any.
            let invocations = groups * self.workgroup_size;
            let cap = if ctx.is_software() { (count as u32).div_ceil(invocations) } else { u32::MAX };
            ctx.queue.write_buffer(&self.work_counter, 4, bytemuck::bytes_of(&cap));
        }
        let timing = read.timing.as_ref();
        ctx.submit_passes(&self.pipeline, &self.bind_group, groups, (passes, counter), &clear, &copies, timing)
    }

    /// Runs one batch of `all` to the end: rounds of dispatches until every
    /// sample is done, at most `max_passes` dispatches. Returns the last
    /// submission.
    fn run_all_batch(&mut self, slot: usize, rows: &Rows) -> Result<wgpu::SubmissionIndex, GpuError> {
        let round = self.round;
        let mut submission = self.submit(slot, rows, true, round)?;
        let mut dispatched = round as u64;
        while dispatched < self.max_passes && !self.all_done(slot, rows.count(), &submission)? {
            let next = (round as u64).min(self.max_passes - dispatched) as u32;
            submission = self.submit(slot, rows, false, next)?;
            dispatched += next as u64;
        }
        Ok(submission)
    }

    /// Whether every sample of the batch in `slot` has stopped.
    fn all_done(&self, slot: usize, count: usize, submission: &wgpu::SubmissionIndex) -> Result<bool, GpuError> {
        let read = &self.slots[slot];
        if let Some(timing) = &read.timing {
            self.ctx.record_kernel_time(timing, submission)?;
        }
        let mapped = Mapped::new(self.ctx, &[(&read.words, count as u64 * 8)], submission)?;
        let words: &[u32] = bytemuck::cast_slice(&mapped.views[0]);
        Ok((0..count).all(|i| words[2 * i + 1] & (FLAG_DONE | FLAG_LOOP_LIMIT) != 0))
    }
}
