//! Algorithm 2 on the GPU: one invocation per sample running Algorithm 1
//! (`shaders/routh.wgsl`), in batches so that any sample count runs.

use super::GpuError;
use super::context::{GpuContext, WORKGROUP_SIZE};
use super::enumerate::{self, MAX_GPU_ALL_SOLUTIONS};
use super::layout::TableauLayout;
use super::options::{DEFAULT_BATCH, DEFAULT_GPU_BATCH, GpuRunOptions};
use super::precision::{Precision, to_bytes};
use super::shaders::Module;
use super::state::StateBlock;
use super::types::{
    FLAG_ACCEPTED, FLAG_DONE, FLAG_LCP_FAILED, FLAG_LOOP_LIMIT, FLAG_TERMINATED, FLAG_TOO_MANY_SOLUTIONS, RouthParams,
    SELECTION_ALL, tableau_stride,
};
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
/// Selection [`Selection::All`](crate::Selection::All) runs for at most
/// [`MAX_GPU_ALL_CONTACTS`](super::MAX_GPU_ALL_CONTACTS) contacts: each step
/// tries every mode tuple in the CPU enumerator's order
/// (`shaders/enumerate.wgsl`, [`crate::impact::StepEnumerator`]), with the
/// CPU's tolerances in `F64`; in `F32` the acceptance tolerance is `3·10⁻⁶`,
/// "same velocity change" `10⁻⁴` and the violation filter a tenth of the f32
/// residual tolerance (docs/gpu-lavapipe.md).
///
/// Errors: [`GpuError::TooManyContactsForAll`] for [`Selection::All`](crate::Selection::All) on more
/// than three contacts, [`GpuError::TooManySolutions`] when one of its steps
/// has more than [`MAX_GPU_ALL_SOLUTIONS`] distinct solutions,
/// [`GpuError::Unsupported`] for a step cap above [`MAX_GPU_STEPS`](super::MAX_GPU_STEPS); [`GpuError::LcpTooLarge`] /
/// [`GpuError::TooManyVelocities`] beyond the shaders' private arrays;
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

/// Algorithm 2 on the GPU for one problem and one set of sampler options, or
/// for many states of equal sizes packed together, prepared once: the
/// options validated for the device, the tolerances of the precision
/// resolved, each state's constants (`A_R`, `J`, `M⁻¹Jᵀ`, `M`, `v⁻`, the
/// enumerator's tables for `all`) and key uploaded, and the batch buffers,
/// the read-back buffers and the bind group allocated.
/// [`GpuPlan::sample_range`] then runs any range of sample indices of the
/// first state, [`GpuPlan::sample_states`] the same range of every state; a
/// sample's outcome depends only on its state and index, so splitting a run
/// into ranges or packing states together changes nothing.
///
/// A run goes in batches of at most [`GpuPlan::batch_size`] samples, one
/// submission each (the dispatches of a batch, then copies of its outputs
/// into mappable buffers). A batch holds the samples of one state, or of as
/// many whole states as fit, so that 10,000 states of 256 samples take 40
/// batches of 2¹⁶. Two sets of read-back buffers alternate: batch `k + 1`
/// is submitted before batch `k` is read back, so the device computes while
/// the host converts. Each output has its own buffer (`v⁺`, steps and
/// flags, residual and energies), read straight into the columns of
/// [`FlatSamples`].
pub struct GpuPlan<'c> {
    ctx: &'c GpuContext,
    pipeline: wgpu::ComputePipeline,
    precision: Precision,
    n: usize,
    states: usize,
    all: bool,
    batch: usize,
    workgroup_size: u32,
    word_stride: usize,
    read_velocities: bool,
    params: RouthParams,
    /// Dispatches per round, and the most a batch may take in all.
    round: u32,
    max_passes: u64,
    params_buf: wgpu::Buffer,
    v_out: wgpu::Buffer,
    words_out: wgpu::Buffer,
    stats_out: wgpu::Buffer,
    stream_pos: wgpu::Buffer,
    enum_words: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    slots: [ReadbackSlot; 2],
}

/// Mappable copies of one batch's outputs, and its timestamp queries.
struct ReadbackSlot {
    v: wgpu::Buffer,
    words: wgpu::Buffer,
    stats: wgpu::Buffer,
    /// `all` only: the enumeration words (the Lemke fallback steps).
    enum_words: Option<wgpu::Buffer>,
    timing: Option<(wgpu::QuerySet, wgpu::Buffer, wgpu::Buffer)>,
}

/// One batch: `rows` rows of `row_samples` samples, row `r` running samples
/// `first .. first + row_samples` of state `state + r`.
#[derive(Clone, Copy, Debug)]
struct Rows {
    state: usize,
    rows: usize,
    row_samples: usize,
    first: u64,
}

impl Rows {
    fn count(&self) -> usize {
        self.rows * self.row_samples
    }
}

/// A batch submitted and not yet read back.
struct Pending {
    slot: usize,
    rows: Rows,
    submission: wgpu::SubmissionIndex,
}

/// Largest workgroup size [`GpuRunOptions::workgroup_size`] may ask for.
const MAX_WORKGROUP_SIZE: u32 = 1024;

/// Largest constants buffer of a packed plan: callers packing many states
/// split them into plans of at most this many bytes
/// ([`GpuPlan::states_per_plan`]).
const MAX_PACKED_BYTES: u64 = 64 << 20;

impl<'c> GpuPlan<'c> {
    /// Validates `options` for the device and `precision` and uploads the
    /// per-problem constants; `options.samples` and `options.first_index` are
    /// not used (ranges are given to [`GpuPlan::sample_range`]).
    ///
    /// Errors: as [`sample_set_gpu`].
    pub fn new(
        ctx: &'c GpuContext,
        problem: &ImpactProblem,
        options: &SamplerOptions,
        precision: Precision,
        run: &GpuRunOptions,
    ) -> Result<Self, GpuError> {
        Self::from_blocks(ctx, &[StateBlock::new(ctx, problem, options, precision, run)?], precision, run)
    }

    /// Many states in one plan: each a problem with its sampler options (its
    /// own seed, step size and `v⁻`; `samples` and `first_index` are not
    /// used), all of equal sizes (velocities, contacts, friction directions),
    /// rule and step cap. [`GpuPlan::sample_states`] then runs them packed,
    /// each sample as it would run alone.
    ///
    /// Errors: as [`sample_set_gpu`] for each state;
    /// [`GpuError::Unsupported`] when the states differ in sizes, rule or
    /// step cap, or hold more constants than one buffer may (see
    /// [`GpuPlan::states_per_plan`]).
    pub fn packed(
        ctx: &'c GpuContext,
        states: &[(&ImpactProblem, &SamplerOptions)],
        precision: Precision,
        run: &GpuRunOptions,
    ) -> Result<Self, GpuError> {
        let blocks = states
            .iter()
            .map(|(problem, options)| StateBlock::new(ctx, problem, options, precision, run))
            .collect::<Result<Vec<_>, _>>()?;
        Self::from_blocks(ctx, &blocks, precision, run)
    }

    /// How many states with `scalars_per_state` constants each one plan
    /// holds on `ctx`'s device in `precision`.
    pub fn states_per_plan(ctx: &GpuContext, scalars_per_state: usize, precision: Precision) -> usize {
        let bytes = (scalars_per_state.max(1) * precision.bytes()) as u64;
        let limit = max_binding(ctx).min(MAX_PACKED_BYTES);
        (limit / bytes).max(1) as usize
    }

    /// The plan of `blocks`, which must pack together ([`StateBlock::packs_with`]).
    pub(crate) fn from_blocks(
        ctx: &'c GpuContext,
        blocks: &[StateBlock],
        precision: Precision,
        run: &GpuRunOptions,
    ) -> Result<Self, GpuError> {
        let first = blocks.first().ok_or_else(|| GpuError::Unsupported("a plan of no states".into()))?;
        if let Some(k) = blocks.iter().position(|b| !first.packs_with(b)) {
            return Err(GpuError::Unsupported(format!(
                "packing state {k} with state 0: they differ in sizes, selection rule or step cap"
            )));
        }
        let stride = first.constants.len();
        if blocks.len() > Self::states_per_plan(ctx, stride, precision) {
            return Err(GpuError::Unsupported(format!(
                "{} states in one plan: at most {} fit",
                blocks.len(),
                Self::states_per_plan(ctx, stride, precision)
            )));
        }
        let params = first.params;
        let (n, size, steps) = (params.n as usize, params.size as usize, params.max_steps as usize);
        let all = params.selection == SELECTION_ALL;
        let workgroup_size = run.workgroup_size.unwrap_or(WORKGROUP_SIZE).clamp(1, MAX_WORKGROUP_SIZE);
        let kernels = ctx.kernels_sized(Module::Routh, precision, workgroup_size)?;
        let pipeline = kernels.get("routh_sample").clone();
        let cpu_adapter = ctx.adapter_info().device_type == wgpu::DeviceType::Cpu;

        let constants: Vec<f64> = blocks.iter().flat_map(|b| b.constants.iter().copied()).collect();
        let constants = ctx.storage_init("constants", &to_bytes(&constants, precision));
        let keys: Vec<u32> = blocks.iter().flat_map(|b| b.key).collect();
        let state_keys = ctx.storage_init("state keys", bytemuck::cast_slice(&keys));

        let scalar = precision.bytes() as u64;
        let max_binding = max_binding(ctx);
        let per_sample_limit = |bytes: u64| max_binding.checked_div(bytes.max(1)).unwrap_or(1) as usize;
        let limit_by_dispatch = ctx.limits.max_compute_workgroups_per_dimension as usize * workgroup_size as usize;
        let tableau_bytes = size as u64 * tableau_stride(size) as u64 * scalar;
        // `all`'s per-sample scratch (enumerate.wgsl).
        let (value_stride, word_stride) =
            if all { (enumerate::value_stride(n), enumerate::word_stride()) } else { (0, 0) };
        let default_batch = if cpu_adapter { DEFAULT_BATCH } else { DEFAULT_GPU_BATCH };
        let batch = run
            .batch_size
            .unwrap_or(default_batch)
            .min(per_sample_limit(n as u64 * scalar))
            .min(per_sample_limit(tableau_bytes))
            .min(per_sample_limit(value_stride as u64 * scalar))
            .min(per_sample_limit(word_stride as u64 * 4))
            .min(limit_by_dispatch)
            .max(1);

        let steps_per_dispatch =
            run.steps_per_dispatch.unwrap_or(if cpu_adapter { 1 } else { steps }).clamp(1, steps.max(1));
        let params = RouthParams {
            steps_per_dispatch: steps_per_dispatch as u32,
            probe: 2,
            interleave: (run.tableau_layout.unwrap_or_else(|| TableauLayout::for_adapter(ctx))
                == TableauLayout::Interleaved) as u32,
            state_stride: stride as u32,
            enum_value_stride: value_stride as u32,
            enum_word_stride: word_stride as u32,
            ..params
        };
        // Dispatches per round: enough for every sample to take every step when a
        // step fits in one dispatch (only `all` may need more, see below).
        let passes = steps.div_ceil(steps_per_dispatch).max(1) as u32;
        // With `all`, a step takes at most ⌈tuples / tuples_per_dispatch⌉
        // dispatches, one more when its Lemke fallback runs (in a dispatch of its
        // own) and those of the root filter on CPU adapters: the worst case
        // bounds the rounds.
        let m = params.m as usize;
        let filter_dispatches = match params.filter_chunk {
            0 => 0,
            chunk => (0..m).map(|i| (params.mode_start[i + 1] - params.mode_start[i]).div_ceil(chunk)).sum::<u32>() + 1,
        };
        let dispatches_per_step =
            if all { params.tuples.div_ceil(params.tuples_per_dispatch.max(1)) + 1 + filter_dispatches } else { 1 };
        let max_passes = steps as u64 * dispatches_per_step as u64 + passes as u64;
        let round = if all { passes.max(dispatches_per_step) } else { passes };

        let b = batch as u64;
        let params_buf = ctx.storage_init("params", bytemuck::bytes_of(&params));
        let v_out = ctx.storage_out("v", b * n as u64 * scalar);
        let words_out = ctx.storage_out("steps and flags", b * 8);
        let stats_out = ctx.storage_out("residuals and energies", b * 3 * scalar);
        let stream_pos = ctx.storage_out("stream positions", b * 8);
        let tableau = ctx.storage_out("tableau", b * tableau_bytes);
        let enum_values = ctx.storage_out("enumeration values", b * value_stride as u64 * scalar);
        let enum_words = ctx.storage_out("enumeration words", b * word_stride as u64 * 4);
        let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("routh_sample"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                (0, &params_buf),
                (1, &constants),
                (2, &v_out),
                (3, &words_out),
                (4, &stats_out),
                (5, &stream_pos),
                (6, &state_keys),
                (7, &tableau),
                (8, &enum_values),
                (9, &enum_words),
            ]
            .map(|(binding, buffer)| wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() }),
        });
        let read_velocities = !run.skip_velocities;
        let slot = || ReadbackSlot {
            v: ctx.readback(if read_velocities { b * n as u64 * scalar } else { 8 }),
            words: ctx.readback(b * 8),
            stats: ctx.readback(b * 3 * scalar),
            enum_words: all.then(|| ctx.readback(b * word_stride as u64 * 4)),
            timing: ctx.timestamp_period().map(|_| ctx.timestamp_queries()),
        };
        let slots = [slot(), slot()];
        Ok(GpuPlan {
            ctx,
            pipeline,
            precision,
            n,
            states: blocks.len(),
            all,
            batch,
            workgroup_size,
            word_stride,
            read_velocities,
            params,
            round,
            max_passes,
            params_buf,
            v_out,
            words_out,
            stats_out,
            stream_pos,
            enum_words,
            bind_group,
            slots,
        })
    }

    /// Largest number of samples per batch.
    pub fn batch_size(&self) -> usize {
        self.batch
    }

    /// Threads per workgroup.
    pub fn workgroup_size(&self) -> u32 {
        self.workgroup_size
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
        let mut out = FlatSamples::with_capacity(self.n, first_index, 0);
        let batches = Self::state_batches(0, first_index, samples, self.batch);
        let done = self.run_batches(batches, progress, cancelled, &mut |_, batch| out.append(batch))?;
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
        let mut outs: Vec<FlatSamples> =
            (0..self.states).map(|_| FlatSamples::with_capacity(self.n, first_index, 0)).collect();
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
        let done = self.run_batches(batches, progress, cancelled, &mut |rows, mut batch| {
            for r in (0..rows.rows).rev() {
                let mut row = batch.split_off(r * rows.row_samples);
                row.first_index = rows.first;
                outs[rows.state + r].append(row);
            }
        })?;
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

    /// Runs `batches` in order, handing each batch's samples to `sink`;
    /// `false` when `cancelled()` stopped the run.
    fn run_batches(
        &mut self,
        batches: Vec<Rows>,
        progress: &dyn Fn(usize),
        cancelled: &dyn Fn() -> bool,
        sink: &mut dyn FnMut(&Rows, FlatSamples),
    ) -> Result<bool, GpuError> {
        let mut pending: Option<Pending> = None;
        for (k, rows) in batches.into_iter().enumerate() {
            if cancelled() {
                return Ok(false);
            }
            let slot = k % 2;
            if self.all {
                // `all` may need more rounds: read each batch back before the next.
                let submission = self.run_all_batch(slot, &rows)?;
                sink(&rows, self.read_back(slot, &rows, &submission)?);
                progress(rows.count());
            } else {
                let submission = self.submit(slot, &rows, true, self.round)?;
                // While this batch runs, read the previous one back.
                if let Some(previous) = pending.take() {
                    sink(&previous.rows, self.read_back(previous.slot, &previous.rows, &previous.submission)?);
                    progress(previous.rows.count());
                }
                pending = Some(Pending { slot, rows, submission });
            }
        }
        if let Some(previous) = pending.take() {
            sink(&previous.rows, self.read_back(previous.slot, &previous.rows, &previous.submission)?);
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
        let groups = (count as u32).div_ceil(self.workgroup_size);
        ctx.submit_passes(&self.pipeline, &self.bind_group, groups, passes, &clear, &copies, read.timing.as_ref())
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

    /// The samples of the batch `rows` in `slot` (submitted as
    /// `submission`), as columns.
    fn read_back(&self, slot: usize, rows: &Rows, submission: &wgpu::SubmissionIndex) -> Result<FlatSamples, GpuError> {
        let (ctx, n, precision) = (self.ctx, self.n, self.precision);
        let count = rows.count();
        let mut out = FlatSamples::with_capacity(n, rows.first, count);
        let read = &self.slots[slot];
        let scalar = precision.bytes() as u64;
        let c = count as u64;
        if let Some(timing) = &read.timing {
            ctx.record_kernel_time(timing, submission)?;
        }
        let mut buffers = vec![(&read.words, c * 8), (&read.stats, c * 3 * scalar)];
        if self.read_velocities {
            buffers.push((&read.v, c * n as u64 * scalar));
        }
        if let Some(enum_read) = &read.enum_words {
            buffers.push((enum_read, c * self.word_stride as u64 * 4));
        }
        let mapped = Mapped::new(ctx, &buffers, submission)?;
        let words: &[u32] = bytemuck::cast_slice(&mapped.views[0]);
        let flags = |i: usize| words[2 * i + 1];
        if let Some(i) = (0..count).find(|&i| flags(i) & FLAG_DONE == 0) {
            if flags(i) & FLAG_LOOP_LIMIT != 0 {
                return Err(GpuError::LoopLimit { adapter: ctx.describe() });
            }
            return Err(GpuError::Device("a sample did not finish in the planned dispatches".into()));
        }
        // With `all` the tuple budget per dispatch is planned to fit the
        // loop limiter: a cut there is an error, not a failed sample.
        if self.all && (0..count).any(|i| flags(i) & FLAG_LOOP_LIMIT != 0) {
            return Err(GpuError::LoopLimit { adapter: ctx.describe() });
        }
        if (0..count).any(|i| flags(i) & FLAG_TOO_MANY_SOLUTIONS != 0) {
            return Err(GpuError::TooManySolutions { max: MAX_GPU_ALL_SOLUTIONS });
        }
        out.steps.extend((0..count).map(|i| words[2 * i]));
        // A sample whose loops the driver cut short failed like an LCP
        // over its pivot cap (lavapipe's loop limiter, docs/gpu-lavapipe.md).
        let ok = |f: u32, bit: u32| f & bit != 0 && f & FLAG_LOOP_LIMIT == 0;
        out.terminated.extend((0..count).map(|i| ok(flags(i), FLAG_TERMINATED)));
        out.accepted.extend((0..count).map(|i| ok(flags(i), FLAG_ACCEPTED)));
        let failed = |i: usize| flags(i) & (FLAG_LCP_FAILED | FLAG_LOOP_LIMIT) != 0;
        let stats = Scalars::new(&mapped.views[1], precision);
        out.max_residual.extend((0..count).map(|i| if failed(i) { f64::INFINITY } else { stats.get(3 * i) }));
        out.energy_before.extend((0..count).map(|i| stats.get(3 * i + 1)));
        out.energy_after.extend((0..count).map(|i| stats.get(3 * i + 2)));
        let mut next = 2;
        if self.read_velocities {
            Scalars::new(&mapped.views[next], precision).extend_into(&mut out.v_plus);
            next += 1;
        }
        if read.enum_words.is_some() {
            let stride = self.word_stride;
            let enum_words: &[u32] = bytemuck::cast_slice(&mapped.views[next]);
            out.fallback_steps.extend((0..count).map(|i| enum_words[i * stride + 3]));
        }
        Ok(out)
    }
}

/// Largest storage binding of `ctx`'s device, in bytes.
fn max_binding(ctx: &GpuContext) -> u64 {
    (ctx.limits.max_storage_buffer_binding_size as u64).min(ctx.limits.max_buffer_size)
}

/// Read-back buffers mapped for reading until dropped.
struct Mapped<'a> {
    buffers: Vec<&'a wgpu::Buffer>,
    views: Vec<wgpu::BufferView>,
}

impl<'a> Mapped<'a> {
    /// Maps the first `size` bytes of each buffer once `submission` (which
    /// wrote them) is done.
    fn new(
        ctx: &GpuContext,
        buffers: &[(&'a wgpu::Buffer, u64)],
        submission: &wgpu::SubmissionIndex,
    ) -> Result<Self, GpuError> {
        let (tx, rx) = std::sync::mpsc::channel();
        for &(buffer, size) in buffers {
            let tx = tx.clone();
            buffer.slice(..size.max(8).next_multiple_of(8)).map_async(wgpu::MapMode::Read, move |r| {
                let _ = tx.send(r);
            });
        }
        drop(tx);
        ctx.wait(submission)?;
        let mut mapped = Mapped { buffers: Vec::new(), views: Vec::new() };
        for r in rx.iter() {
            r.map_err(|e| GpuError::Readback(e.to_string()))?;
        }
        for &(buffer, size) in buffers {
            mapped.buffers.push(buffer);
            mapped.views.push(buffer.slice(..size.max(8).next_multiple_of(8)).get_mapped_range());
        }
        Ok(mapped)
    }
}

impl Drop for Mapped<'_> {
    fn drop(&mut self) {
        self.views.clear();
        for buffer in &self.buffers {
            buffer.unmap();
        }
    }
}

/// Scalars of the shader's type in mapped bytes.
enum Scalars<'a> {
    F32(&'a [f32]),
    F64(&'a [f64]),
}

impl<'a> Scalars<'a> {
    fn new(bytes: &'a [u8], precision: Precision) -> Self {
        match precision {
            Precision::F32 => Scalars::F32(bytemuck::cast_slice(bytes)),
            Precision::F64 => Scalars::F64(bytemuck::cast_slice(bytes)),
        }
    }

    fn get(&self, i: usize) -> f64 {
        match self {
            Scalars::F32(x) => x[i] as f64,
            Scalars::F64(x) => x[i],
        }
    }

    fn extend_into(&self, out: &mut Vec<f64>) {
        match self {
            Scalars::F32(x) => out.extend(x.iter().map(|&v| v as f64)),
            Scalars::F64(x) => out.extend_from_slice(x),
        }
    }
}
