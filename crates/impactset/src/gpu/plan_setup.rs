//! Building a [`GpuPlan`]: a state's or many packed states' constants
//! checked and uploaded, the batch and read-back buffers and the bind group
//! allocated for the device's limits.

use super::GpuError;
use super::context::{GpuContext, WORKGROUP_SIZE};
use super::coop::{self, COOP_THREADS, LemkeKernel};
use super::enumerate::{self, AllWidth};
use super::layout::TableauLayout;
use super::options::{DEFAULT_BATCH, DEFAULT_GPU_BATCH, GpuRunOptions};
use super::plan::{GpuPlan, ReadbackSlot};
use super::precision::{Precision, to_bytes};
use super::shaders::Module;
use super::state::StateBlock;
use super::types::{ModuleSizes, RouthParams, SELECTION_ALL};
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
        let limit = binding_limit(&ctx.limits).0.min(MAX_PACKED_BYTES);
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
        let first = packed_first(blocks)?;
        let stride = first.constants.len();
        let params = first.params;
        let (n, size, steps) = (params.n as usize, params.size as usize, params.max_steps as usize);
        let scalar = precision.bytes() as u64;
        let sizes = first.sizes;
        let tableau_bytes = size as u64 * sizes.stride(size) as u64 * scalar;
        let strides = SampleStrides::of(&params);
        let per_sample = strides.bytes(tableau_bytes, n, stride, scalar);
        check_fits(&ctx.limits, &per_sample, size, n)?;
        if blocks.len() > Self::states_per_plan(ctx, stride, precision) {
            return Err(GpuError::Unsupported(format!(
                "{} states in one plan: at most {} fit",
                blocks.len(),
                Self::states_per_plan(ctx, stride, precision)
            )));
        }
        let SampleStrides { enumerates, value_stride, word_stride, expansion_stride } = strides;
        let all = params.selection == SELECTION_ALL;
        let kernel = coop::choose(&ctx.limits, run.lemke_kernel, sizes, scalar as usize, (size, n, all))?;
        let cooperative = kernel == LemkeKernel::Cooperative;
        let asked_size = run.workgroup_size.unwrap_or(WORKGROUP_SIZE).clamp(1, MAX_WORKGROUP_SIZE);
        let workgroup_size = if cooperative { COOP_THREADS } else { asked_size };
        // The enumerator on more than three contacts needs the wider
        // arrays; every other run keeps the module it always had.
        let width = if enumerates { first.width } else { AllWidth::Narrow };
        let pipeline = routh_pipeline(ctx, cooperative, width, sizes, precision, workgroup_size)?;
        let cpu_adapter = ctx.is_software();

        let constants: Vec<f64> = blocks.iter().flat_map(|b| b.constants.iter().copied()).collect();
        let constants = ctx.storage_init("constants", &to_bytes(&constants, precision));
        let keys: Vec<u32> = blocks.iter().flat_map(|b| b.key).collect();
        let state_keys = ctx.storage_init("state keys", bytemuck::cast_slice(&keys));

        // The cooperative kernel's workgroups take the batch's samples in
        // turn (routh_coop.wgsl), so the dispatch limit does not bound it.
        let limit_by_dispatch = if cooperative {
            usize::MAX
        } else {
            ctx.limits.max_compute_workgroups_per_dimension as usize * workgroup_size as usize
        };
        let wanted = run.batch_size.unwrap_or_else(|| default_batch(ctx));
        let (batch, batch_bound) = batch_for(&ctx.limits, wanted, &per_sample[..5], limit_by_dispatch);

        let steps_per_dispatch =
            run.steps_per_dispatch.unwrap_or(if cpu_adapter { 1 } else { steps }).clamp(1, steps.max(1));
        let params = RouthParams {
            steps_per_dispatch: steps_per_dispatch as u32,
            probe: 2,
            // The cooperative kernel's tableaus are contiguous (its
            // invocations stride one sample's columns).
            interleave: (!cooperative
                && run.tableau_layout.unwrap_or_else(|| TableauLayout::for_adapter(ctx)) == TableauLayout::Interleaved)
                as u32,
            state_stride: stride as u32,
            enum_value_stride: value_stride as u32,
            enum_word_stride: word_stride as u32,
            ..params
        };
        let (round, max_passes) = dispatch_rounds(&params, steps, steps_per_dispatch, all);

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
        let work_counter = ctx.storage_out("persistent workers' counter", 8);
        let buffers = [&params_buf, &constants, &v_out, &words_out, &stats_out, &stream_pos, &state_keys, &tableau];
        // The cooperative kernel binds 0 to 7 and restitution's 10 (no
        // enumeration, no persistent workers' counter).
        let scratch = [(8, &enum_values), (9, &enum_words), (10, &expansion_state), (11, &work_counter)];
        let bind_group = routh_bind_group(ctx, &pipeline, buffers, if cooperative { &scratch[2..3] } else { &scratch });
        let read_velocities = !run.skip_velocities;
        let v_bytes = if read_velocities { b * n as u64 * scalar } else { 8 };
        let slots = [(); 2].map(|_| readback_slot(ctx, b, v_bytes, scalar, all.then_some(word_stride)));
        Ok(GpuPlan {
            ctx,
            pipeline,
            precision,
            n,
            states: blocks.len(),
            all,
            batch,
            batch_bound,
            workgroup_size,
            kernel,
            workers: run.workers.filter(|_| !cooperative).map(|w| w.max(1)),
            work_counter,
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

/// The per-sample scratch of a plan beyond the tableau: `all`'s
/// (enumerate.wgsl), for `all` or restitution's retries under the Lemke
/// rules (`enumerate::retries_on_device`), and restitution's works `A_i`,
/// `X_i` (restitution.wgsl).
struct SampleStrides {
    enumerates: bool,
    value_stride: usize,
    word_stride: usize,
    expansion_stride: usize,
}

impl SampleStrides {
    fn of(params: &RouthParams) -> SampleStrides {
        let enumerates = params.tuples != 0;
        let (value_stride, word_stride) =
            if enumerates { (enumerate::value_stride(params.n as usize), enumerate::word_stride()) } else { (0, 0) };
        let expansion_stride = if params.elastic != 0 { 2 * params.m as usize } else { 0 };
        SampleStrides { enumerates, value_stride, word_stride, expansion_stride }
    }

    /// What one sample holds on the device, and the problem's constants
    /// (`stride` scalars of `scalar` bytes), by name.
    fn bytes(&self, tableau_bytes: u64, n: usize, stride: usize, scalar: u64) -> [(&'static str, u64); 6] {
        [
            ("one sample's Lemke tableau", tableau_bytes),
            ("one sample's velocities", n as u64 * scalar),
            ("one sample's enumeration values", self.value_stride as u64 * scalar),
            ("one sample's enumeration words", self.word_stride as u64 * 4),
            ("one sample's expansion works", self.expansion_stride as u64 * scalar),
            ("the problem's constants", stride as u64 * scalar),
        ]
    }
}

/// One of the plan's two read-back slots for batches of `b` samples:
/// `v_bytes` of velocities, the words and statistics, and under `all` the
/// enumeration words (`word_stride` a sample).
fn readback_slot(ctx: &GpuContext, b: u64, v_bytes: u64, scalar: u64, word_stride: Option<usize>) -> ReadbackSlot {
    ReadbackSlot {
        v: ctx.readback(v_bytes),
        words: ctx.readback(b * 8),
        stats: ctx.readback(b * 3 * scalar),
        enum_words: word_stride.map(|w| ctx.readback(b * w as u64 * 4)),
        timing: ctx.timestamp_period().map(|_| ctx.timestamp_queries()),
    }
}

/// The first of `blocks`, which every other state packs with (same sizes,
/// selection rule, schedule and step cap).
fn packed_first(blocks: &[StateBlock]) -> Result<&StateBlock, GpuError> {
    let first = blocks.first().ok_or_else(|| GpuError::Unsupported("a plan of no states".into()))?;
    if let Some(k) = blocks.iter().position(|b| !first.packs_with(b)) {
        return Err(GpuError::Unsupported(format!(
            "packing state {k} with state 0: they differ in sizes, selection rule, schedule or step cap"
        )));
    }
    Ok(first)
}

/// The sampling pipeline: the cooperative kernel (one workgroup a sample)
/// or the one-invocation kernel of the module `width` and `sizes` pick.
fn routh_pipeline(
    ctx: &GpuContext,
    cooperative: bool,
    width: AllWidth,
    sizes: ModuleSizes,
    precision: Precision,
    workgroup_size: u32,
) -> Result<wgpu::ComputePipeline, GpuError> {
    Ok(if cooperative {
        ctx.kernels_sized(Module::RouthCoop(sizes), precision, WORKGROUP_SIZE)?.get("routh_sample_coop").clone()
    } else {
        ctx.kernels_sized(Module::Routh(width, sizes), precision, workgroup_size)?.get("routh_sample").clone()
    })
}

/// The bind group of `routh_sample`: `buffers` at bindings 0–7, the
/// `scratch` buffers at their bindings (8–11) where the entry point uses
/// them.
fn routh_bind_group(
    ctx: &GpuContext,
    pipeline: &wgpu::ComputePipeline,
    buffers: [&wgpu::Buffer; 8],
    scratch: &[(u32, &wgpu::Buffer)],
) -> wgpu::BindGroup {
    let entries: Vec<wgpu::BindGroupEntry> = (0..)
        .zip(buffers)
        .chain(scratch.iter().copied())
        .map(|(binding, buffer)| wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() })
        .collect();
    ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("routh_sample"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    })
}

/// The dispatches of one round and the most a batch may take.
fn dispatch_rounds(params: &RouthParams, steps: usize, steps_per_dispatch: usize, all: bool) -> (u32, u64) {
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
    (round, max_passes)
}

/// Largest storage binding a device with `limits` allows, in bytes, and
/// the limit that sets it: the smaller of `max_storage_buffer_binding_size`
/// and `max_buffer_size` (the device is opened with the adapter's own
/// limits, `GpuContext::new`).
pub(super) fn binding_limit(limits: &wgpu::Limits) -> (u64, &'static str) {
    let binding = limits.max_storage_buffer_binding_size as u64;
    if binding <= limits.max_buffer_size {
        (binding, "max_storage_buffer_binding_size")
    } else {
        (limits.max_buffer_size, "max_buffer_size")
    }
}

/// `Ok` when each of `parts` (what, bytes: one sample's share of a buffer,
/// or the problem's constants) fits one binding of a device with `limits`,
/// else [`GpuError::DeviceLimit`] naming the first that does not and the
/// limit that binds (for a step LCP of `size` on `n` velocities).
pub(super) fn check_fits(
    limits: &wgpu::Limits,
    parts: &[(&'static str, u64)],
    size: usize,
    n: usize,
) -> Result<(), GpuError> {
    let (max, limit) = binding_limit(limits);
    match parts.iter().find(|&&(_, bytes)| bytes > max) {
        Some(&(what, bytes)) => Err(GpuError::DeviceLimit { what, bytes, limit, max, size, n }),
        None => Ok(()),
    }
}

/// [`check_fits`] on `ctx`'s device.
pub(super) fn check_per_sample(
    ctx: &GpuContext,
    parts: &[(&'static str, u64)],
    size: usize,
    n: usize,
) -> Result<(), GpuError> {
    check_fits(&ctx.limits, parts, size, n)
}

/// Samples per batch: `wanted`, lowered to what one binding of a device
/// with `limits` holds of each per-sample buffer in `parts` and to
/// `by_dispatch` (the invocations one dispatch may have); with the limit
/// that lowered it, if one did (named with the buffer it bounds).
pub(super) fn batch_for(
    limits: &wgpu::Limits,
    wanted: usize,
    parts: &[(&'static str, u64)],
    by_dispatch: usize,
) -> (usize, Option<String>) {
    let (max, limit) = binding_limit(limits);
    let mut batch = wanted.max(1);
    let mut bound = None;
    for &(what, bytes) in parts.iter().filter(|(_, bytes)| *bytes > 0) {
        let fits = (max / bytes).max(1) as usize;
        if fits < batch {
            batch = fits;
            bound = Some(format!("{limit} ({max} bytes) on {what} ({bytes} bytes)"));
        }
    }
    if by_dispatch < batch {
        batch = by_dispatch.max(1);
        bound = Some(format!(
            "max_compute_workgroups_per_dimension ({} workgroups)",
            limits.max_compute_workgroups_per_dimension
        ));
    }
    (batch, bound)
}

/// Samples per batch when the run does not say: [`DEFAULT_BATCH`] on CPU
/// adapters, [`DEFAULT_GPU_BATCH`] on GPUs.
fn default_batch(ctx: &GpuContext) -> usize {
    if ctx.is_software() { DEFAULT_BATCH } else { DEFAULT_GPU_BATCH }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::types::ModuleSizes;

    /// A device whose storage bindings hold `binding` bytes and whose
    /// buffers hold `buffer`.
    fn limits(binding: u32, buffer: u64) -> wgpu::Limits {
        wgpu::Limits { max_storage_buffer_binding_size: binding, max_buffer_size: buffer, ..Default::default() }
    }

    /// One f64 Lemke tableau of sixteen spatial contacts (N = 176).
    fn tableau_176() -> u64 {
        (176 * ModuleSizes::of(176, 0).stride(176) * 8) as u64
    }

    /// Where not one sample's tableau fits, the run is refused with the
    /// limit that binds, by name and value: the binding size, or the
    /// buffer size where that is smaller.
    #[test]
    fn a_tableau_above_the_binding_limit_is_refused_naming_the_limit() {
        let parts = [("one sample's Lemke tableau", tableau_176())];
        let err = check_fits(&limits(1 << 18, 1 << 30), &parts, 176, 40).unwrap_err();
        assert!(
            matches!(
                err,
                GpuError::DeviceLimit { limit: "max_storage_buffer_binding_size", max: 262_144, size: 176, .. }
            ),
            "{err}"
        );
        let message = err.to_string();
        assert!(message.contains("max_storage_buffer_binding_size") && message.contains("262144"), "{message}");
        assert!(message.contains("Lemke tableau") && message.contains("176"), "{message}");
        let err = check_fits(&limits(1 << 30, 1 << 18), &parts, 176, 40).unwrap_err();
        assert!(matches!(err, GpuError::DeviceLimit { limit: "max_buffer_size", .. }), "{err}");
        assert!(check_fits(&limits(1 << 20, 1 << 30), &parts, 176, 40).is_ok());
    }

    /// The batch is what the binding limit holds of the largest per-sample
    /// buffer, and says so; within the limits it is the asked batch.
    #[test]
    fn the_batch_is_sized_from_the_binding_limit_and_names_it() {
        let tableau = tableau_176();
        let parts = [("one sample's velocities", 40 * 8), ("one sample's Lemke tableau", tableau)];
        let binding = 64 << 20;
        let (batch, bound) = batch_for(&limits(binding, 1 << 40), 1 << 18, &parts, usize::MAX);
        assert_eq!(batch as u64, binding as u64 / tableau);
        assert!(
            bound
                .as_deref()
                .is_some_and(|b| b.contains("max_storage_buffer_binding_size") && b.contains("Lemke tableau")),
            "{bound:?}"
        );
        let (batch, bound) = batch_for(&limits(binding, 1 << 40), 16, &parts, usize::MAX);
        assert_eq!((batch, bound), (16, None));
        let (batch, bound) = batch_for(&limits(binding, 1 << 40), 1 << 18, &parts[..1], 1000);
        assert_eq!(batch, 1000);
        assert!(bound.is_some_and(|b| b.contains("max_compute_workgroups_per_dimension")));
    }
}
