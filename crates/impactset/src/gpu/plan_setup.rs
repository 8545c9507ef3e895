//! Building a [`GpuPlan`]: a state's or many packed states' constants
//! checked and uploaded, the batch and read-back buffers and the bind group
//! allocated for the device's limits.

use super::GpuError;
use super::context::{GpuContext, WORKGROUP_SIZE};
use super::enumerate::{self, AllWidth};
use super::layout::TableauLayout;
use super::options::{DEFAULT_BATCH, DEFAULT_GPU_BATCH, GpuRunOptions};
use super::plan::{GpuPlan, ReadbackSlot};
use super::precision::{Precision, to_bytes};
use super::shaders::Module;
use super::state::StateBlock;
use super::types::{RouthParams, SELECTION_ALL, tableau_stride};
use crate::{ImpactProblem, SamplerOptions};

/// Largest workgroup size [`GpuRunOptions::workgroup_size`] may ask for.
const MAX_WORKGROUP_SIZE: u32 = 1024;

/// Largest constants buffer of a packed plan: callers packing many states
/// split them into plans of at most this many bytes
/// ([`GpuPlan::states_per_plan`]).
const MAX_PACKED_BYTES: u64 = 64 << 20;

impl<'c> GpuPlan<'c> {
    /// Validates `options` for the device and `precision` and uploads the
    /// per-problem constants. Ranges are given to
    /// [`GpuPlan::sample_range`]; `options.first_index` is not used, and
    /// `options.samples` bounds the batch, so that a plan for a few samples
    /// does not allocate the scratch of [`DEFAULT_GPU_BATCH`] (gigabytes on
    /// a large problem). A longer range runs in more batches, with the same
    /// results.
    ///
    /// Errors: as [`sample_set_gpu`](super::sample_set_gpu).
    pub fn new(
        ctx: &'c GpuContext,
        problem: &ImpactProblem,
        options: &SamplerOptions,
        precision: Precision,
        run: &GpuRunOptions,
    ) -> Result<Self, GpuError> {
        let batch = run.batch_size.unwrap_or_else(|| default_batch(ctx)).min(options.samples.max(1));
        let run = &GpuRunOptions { batch_size: Some(batch), ..*run };
        Self::from_blocks(ctx, &[StateBlock::new(ctx, problem, options, precision, run)?], precision, run)
    }

    /// Many states in one plan: each a problem with its sampler options (its
    /// own seed, step size and `v⁻`; `samples` and `first_index` are not
    /// used), all of equal sizes (velocities, contacts, friction directions),
    /// rule, schedule and step cap. [`GpuPlan::sample_states`] then runs them packed,
    /// each sample as it would run alone.
    ///
    /// Errors: as [`sample_set_gpu`](super::sample_set_gpu) for each state;
    /// [`GpuError::Unsupported`] when the states differ in sizes, rule,
    /// schedule or step cap, or hold more constants than one buffer may (see
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
        ctx.alive()?;
        let first = blocks.first().ok_or_else(|| GpuError::Unsupported("a plan of no states".into()))?;
        if let Some(k) = blocks.iter().position(|b| !first.packs_with(b)) {
            return Err(GpuError::Unsupported(format!(
                "packing state {k} with state 0: they differ in sizes, selection rule, schedule or step cap"
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
        // The enumerator's constants and scratch: `all`, or restitution's
        // retries under the Lemke rules (`enumerate::retries_on_device`).
        let enumerates = params.tuples != 0;
        let workgroup_size = run.workgroup_size.unwrap_or(WORKGROUP_SIZE).clamp(1, MAX_WORKGROUP_SIZE);
        // The enumerator on more than three contacts needs the wider
        // arrays; every other run keeps the module it always had.
        let width = if enumerates { first.width } else { AllWidth::Narrow };
        let kernels = ctx.kernels_sized(Module::Routh(width), precision, workgroup_size)?;
        let pipeline = kernels.get("routh_sample").clone();
        let cpu_adapter = ctx.is_software();

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
            if enumerates { (enumerate::value_stride(n), enumerate::word_stride()) } else { (0, 0) };
        // Restitution's per-sample works A_i, X_i (restitution.wgsl).
        let expansion_stride = if params.elastic != 0 { 2 * params.m as usize } else { 0 };
        let batch = run
            .batch_size
            .unwrap_or_else(|| default_batch(ctx))
            .min(per_sample_limit(n as u64 * scalar))
            .min(per_sample_limit(tableau_bytes))
            .min(per_sample_limit(value_stride as u64 * scalar))
            .min(per_sample_limit(word_stride as u64 * 4))
            .min(per_sample_limit(expansion_stride as u64 * scalar))
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
        let expansion_state = ctx.storage_out("expansion works", b * expansion_stride as u64 * scalar);
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
                (10, &expansion_state),
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
            cpu_states: blocks.iter().map(|b| b.cpu.clone()).collect(),
            host_reruns: std::sync::atomic::AtomicU64::new(0),
            loop_limit_reruns: std::sync::atomic::AtomicU64::new(0),
            rerun_indices: run.keep_rerun_indices.then(Default::default),
        })
    }
}

/// Largest storage binding of `ctx`'s device, in bytes.
fn max_binding(ctx: &GpuContext) -> u64 {
    (ctx.limits.max_storage_buffer_binding_size as u64).min(ctx.limits.max_buffer_size)
}

/// Samples per batch when the run does not say: [`DEFAULT_BATCH`] on CPU
/// adapters, [`DEFAULT_GPU_BATCH`] on GPUs.
fn default_batch(ctx: &GpuContext) -> usize {
    if ctx.is_software() { DEFAULT_BATCH } else { DEFAULT_GPU_BATCH }
}
