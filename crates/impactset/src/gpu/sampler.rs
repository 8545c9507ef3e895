//! Algorithm 2 on the GPU: one invocation per sample running Algorithm 1
//! (`shaders/routh.wgsl`), in batches so that any sample count runs.

use super::context::{GpuContext, WORKGROUP_SIZE};
use super::enumerate::{self, MAX_GPU_ALL_CONTACTS, MAX_GPU_ALL_SOLUTIONS};
use super::kernels::{from_bytes, pivot_tolerance, tie_tolerance, to_bytes};
use super::shaders::Module;
use super::types::{
    FLAG_ACCEPTED, FLAG_DONE, FLAG_LCP_FAILED, FLAG_LOOP_LIMIT, FLAG_TERMINATED, FLAG_TOO_MANY_SOLUTIONS, MAX_LCP_SIZE,
    MAX_VELOCITIES, RouthParams, key_words, tableau_stride,
};
use super::{GpuError, Precision};
use crate::impact::Selection;
use crate::lcp::LemkeOptions;
use crate::sampling::stream;
use crate::{ImpactProblem, Sample, SampleSet, SamplerOptions};

/// Largest step cap `K` the GPU accepts (keeps the shader's loop bound finite).
pub const MAX_GPU_STEPS: usize = 1 << 20;

/// Default samples per dispatch.
pub const DEFAULT_BATCH: usize = 1 << 16;

/// Single-precision floor of the termination tolerance (relative to the
/// velocity scale): `256 · ε_f32 ≈ 3.1e-5`. Round-off in `J v` is of order
/// `ε_f32 · s`, so the f64 default `1e-9` could never be met.
pub const F32_TERMINATION_FLOOR: f64 = 256.0 * f32::EPSILON as f64;

/// How a GPU run is split (results do not depend on it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GpuRunOptions {
    /// Samples per dispatch. Default (`None`): [`DEFAULT_BATCH`], lowered to
    /// what the device's dispatch and buffer limits allow.
    pub batch_size: Option<usize>,
    /// Steps a sample takes per dispatch before the next dispatch resumes it.
    /// Default (`None`): 1 on CPU adapters (lavapipe stops any invocation
    /// after 65 535 loop iterations per dispatch), else the step cap `K`
    /// (one dispatch per batch).
    pub steps_per_dispatch: Option<usize>,
    /// Layout of the Lemke tableaus in their scratch buffer. Default
    /// (`None`): [`TableauLayout::for_adapter`].
    pub tableau_layout: Option<TableauLayout>,
    /// Selection `all` only: mode tuples a sample tries per dispatch before
    /// the next dispatch resumes its step. Default (`None`): on CPU adapters
    /// as many as fit in lavapipe's loop limit with a wide margin, elsewhere
    /// every tuple of a step up to 8192 (a step of three spatial contacts,
    /// 42 875 tuples, is split).
    pub tuples_per_dispatch: Option<usize>,
}

/// Where each invocation's Lemke tableau lives in the shared scratch buffer
/// (the results do not depend on it; `shaders/lemke.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableauLayout {
    /// Entry `x` of invocation `i` (of `count`) at `x · count + i`:
    /// neighbouring invocations touch neighbouring words, so a GPU's memory
    /// accesses coalesce. The default on GPUs.
    Interleaved,
    /// Entry `x` of invocation `i` at `i · N · stride + x`. The default on CPU
    /// adapters: on lavapipe it measured ~20 % faster than interleaved
    /// (compass-gait and disk-stack, f32, 4096 samples).
    Contiguous,
}

impl TableauLayout {
    /// Both layouts.
    pub const ALL: [TableauLayout; 2] = [TableauLayout::Interleaved, TableauLayout::Contiguous];

    /// The default for `ctx`'s adapter: contiguous on CPU adapters, else interleaved.
    pub fn for_adapter(ctx: &GpuContext) -> TableauLayout {
        if ctx.adapter_info().device_type == wgpu::DeviceType::Cpu {
            TableauLayout::Contiguous
        } else {
            TableauLayout::Interleaved
        }
    }
}

/// Algorithm 2 (model.md §5) on the GPU: samples
/// `first_index .. first_index + samples`, one invocation each, with the
/// cap and selection words of the CPU ([`crate::sampling::stream`]).
///
/// In `F64` every sample agrees with [`crate::sample_set`] up to round-off;
/// in `F32` the pivot tolerance is [`pivot_tolerance`](super::pivot_tolerance)'s
/// f32 rule, the tie tolerance [`tie_tolerance`](super::tie_tolerance)'s, the termination tolerance is
/// at least [`F32_TERMINATION_FLOOR`] and the residual tolerance at least
/// `1024 · ε_f32 · max(1, ‖A_R‖∞)` (the violation is relative), so that
/// round-off alone does not reject samples. Problems whose f32 pivot tolerance
/// exceeds [`MAX_F32_PIVOT_TOLERANCE`] are refused ([`GpuError::PoorlyScaled`]).
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
/// Selection [`Selection::All`] runs for at most
/// [`MAX_GPU_ALL_CONTACTS`](super::MAX_GPU_ALL_CONTACTS) contacts: each step
/// tries every mode tuple in the CPU enumerator's order
/// (`shaders/enumerate.wgsl`, [`crate::impact::StepEnumerator`]), with the
/// CPU's tolerances in `F64`; in `F32` the acceptance tolerance is `3·10⁻⁶`,
/// "same velocity change" `10⁻⁴` and the violation filter a tenth of the f32
/// residual tolerance (docs/gpu-lavapipe.md).
///
/// Errors: [`GpuError::TooManyContactsForAll`] for [`Selection::All`] on more
/// than three contacts, [`GpuError::TooManySolutions`] when one of its steps
/// has more than [`MAX_GPU_ALL_SOLUTIONS`] distinct solutions,
/// [`GpuError::Unsupported`] for a step cap above [`MAX_GPU_STEPS`]; [`GpuError::LcpTooLarge`] /
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

/// Largest f32 pivot tolerance accepted: above it, entries of the entering
/// column that matter would be taken for zeros (RAMone's friction of 1e5
/// gives 12), so f32 runs are refused with [`GpuError::PoorlyScaled`].
pub const MAX_F32_PIVOT_TOLERANCE: f64 = 0.1;

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

/// Algorithm 2 on the GPU for one problem and one set of sampler options,
/// prepared once: the options validated for the device, the tolerances of
/// the precision resolved, the per-problem constants (`A_R`, `J`, `M⁻¹Jᵀ`,
/// `M`, `v⁻`, the enumerator's tables for `all`) uploaded and the batch
/// buffers allocated. [`GpuPlan::sample_range`] then runs any range of sample
/// indices; a sample's outcome depends only on its index, so splitting a run
/// into ranges changes nothing.
pub struct GpuPlan<'c> {
    ctx: &'c GpuContext,
    pipeline: &'c wgpu::ComputePipeline,
    precision: Precision,
    n: usize,
    all: bool,
    batch: usize,
    out_stride: usize,
    bytes_per_sample: u64,
    word_stride: usize,
    params: RouthParams,
    /// Dispatches per round, and the most a batch may take in all.
    round: u32,
    max_passes: u64,
    constants: wgpu::Buffer,
    values_out: wgpu::Buffer,
    words_out: wgpu::Buffer,
    tableau: wgpu::Buffer,
    enum_values: wgpu::Buffer,
    enum_words: wgpu::Buffer,
}

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
        let ops = problem.operators();
        let (n, m, d) = (ops.n, ops.m, ops.d);
        let size = ops.step_size_n();
        let impulses = m + m * d;
        let selection = match options.selection {
            Selection::Lemke => 0,
            Selection::RandomLemke => 1,
            Selection::All => {
                if m > MAX_GPU_ALL_CONTACTS {
                    return Err(GpuError::TooManyContactsForAll { m, max: MAX_GPU_ALL_CONTACTS });
                }
                2
            }
        };
        if size > MAX_LCP_SIZE {
            return Err(GpuError::LcpTooLarge { size, m, d, max: MAX_LCP_SIZE });
        }
        if n > MAX_VELOCITIES {
            return Err(GpuError::TooManyVelocities { n, max: MAX_VELOCITIES });
        }
        let tolerance = pivot_tolerance(&ops.step_matrix, size, precision);
        if precision == Precision::F32 && tolerance > MAX_F32_PIVOT_TOLERANCE {
            let norm = tolerance / (100.0 * size as f64 * f32::EPSILON as f64);
            return Err(GpuError::PoorlyScaled { norm, tolerance });
        }
        if options.steps > MAX_GPU_STEPS {
            return Err(GpuError::Unsupported(format!("a step cap above {MAX_GPU_STEPS}")));
        }
        let kernels = ctx.kernels(Module::Routh, precision)?;
        let pipeline = kernels.get("routh_sample");

        // Per-problem constants, uploaded once: A_R, J, M⁻¹Jᵀ, M, v⁻, scalars.
        let h = options.step_size_for(problem);
        let s = problem.velocity_scale();
        let a_norm = (0..size)
            .map(|i| ops.step_matrix[i * size..(i + 1) * size].iter().map(|x| x.abs()).sum::<f64>())
            .fold(1.0, f64::max);
        let (termination_tol, residual_tol) = match precision {
            Precision::F64 => (options.termination_tol, options.residual_tol),
            Precision::F32 => {
                // The residual violation is relative (LcpResidual::violation), so
                // f32 round-off bounds it by a multiple of ε_f32 ‖A_R‖∞.
                let floor = 1024.0 * f32::EPSILON as f64 * a_norm;
                (options.termination_tol.max(F32_TERMINATION_FLOOR), options.residual_tol.max(floor))
            }
        };
        let mut constants: Vec<f64> = Vec::new();
        let mut push = |values: &mut dyn Iterator<Item = f64>| {
            let offset = constants.len() as u32;
            constants.extend(values);
            offset
        };
        let off_a = push(&mut ops.step_matrix.iter().copied());
        let off_j = push(&mut ops.j.transpose().iter().copied()); // row-major J
        let off_minv_jt = push(&mut ops.minv_jt.transpose().iter().copied()); // row-major M⁻¹Jᵀ
        let off_mass = push(&mut problem.mass().transpose().iter().copied());
        let off_v = push(&mut problem.velocity().iter().copied());
        let off_scalars =
            push(&mut [h, -termination_tol * s, tolerance, residual_tol, tie_tolerance(precision), s].into_iter());
        let cpu_adapter = ctx.adapter_info().device_type == wgpu::DeviceType::Cpu;
        // The fields of `all` (zero for the other rules).
        let mut enumeration = RouthParams::default();
        let all = options.selection == Selection::All;
        if all {
            enumerate::push_constants(ops, precision, residual_tol, &mut constants, &mut enumeration);
            let tuples = enumeration.tuples as usize;
            let planned = enumerate::tuples_per_dispatch(ops, tuples, cpu_adapter);
            enumeration.tuples_per_dispatch = run.tuples_per_dispatch.unwrap_or(planned).clamp(1, tuples) as u32;
            // On CPU adapters the root filter takes dispatches of its own.
            enumeration.filter_chunk = if cpu_adapter { enumerate::CPU_ADAPTER_FILTER_CHUNK as u32 } else { 0 };
        }
        let constants = ctx.storage_init("constants", &to_bytes(&constants, precision));

        let out_stride = n + 3;
        let bytes_per_sample = (out_stride * precision.bytes()) as u64;
        let max_binding = (ctx.limits.max_storage_buffer_binding_size as u64).min(ctx.limits.max_buffer_size);
        let limit_by_buffer = max_binding.checked_div(bytes_per_sample).unwrap_or(1) as usize;
        let limit_by_dispatch = ctx.limits.max_compute_workgroups_per_dimension as usize * WORKGROUP_SIZE as usize;
        let tableau_bytes = (size * tableau_stride(size) * precision.bytes()) as u64;
        let limit_by_tableau = max_binding.checked_div(tableau_bytes).unwrap_or(1) as usize;
        // `all`'s per-sample scratch (enumerate.wgsl); one word otherwise.
        let (value_stride, word_stride) =
            if all { (enumerate::value_stride(n), enumerate::word_stride()) } else { (1, 1) };
        let limit_by_scratch = max_binding.checked_div((value_stride * precision.bytes()) as u64).unwrap_or(1) as usize;
        let batch = run
            .batch_size
            .unwrap_or(DEFAULT_BATCH)
            .min(limit_by_buffer)
            .min(limit_by_tableau)
            .min(limit_by_scratch)
            .min(limit_by_dispatch)
            .max(1);

        let steps_per_dispatch = run
            .steps_per_dispatch
            .unwrap_or(if cpu_adapter { 1 } else { options.steps })
            .clamp(1, options.steps.max(1));
        let params = RouthParams {
            n: n as u32,
            m: m as u32,
            d: d as u32,
            size: size as u32,
            impulses: impulses as u32,
            max_steps: options.steps as u32,
            selection,
            pivot_cap: LemkeOptions::default().pivot_cap(size) as u32,
            out_stride: out_stride as u32,
            off_a,
            off_j,
            off_minv_jt,
            off_mass,
            off_v,
            off_scalars,
            steps_per_dispatch: steps_per_dispatch as u32,
            probe: 2,
            interleave: (run.tableau_layout.unwrap_or_else(|| TableauLayout::for_adapter(ctx))
                == TableauLayout::Interleaved) as u32,
            key: key_words(&stream::stream_key(options.seed)),
            enum_value_stride: if all { value_stride as u32 } else { 0 },
            enum_word_stride: if all { word_stride as u32 } else { 0 },
            ..enumeration
        };
        // Dispatches per round: enough for every sample to take every step when a
        // step fits in one dispatch (only `all` may need more, see below).
        let passes = options.steps.div_ceil(steps_per_dispatch).max(1) as u32;
        // With `all`, a step takes at most ⌈tuples / tuples_per_dispatch⌉
        // dispatches, one more when its Lemke fallback runs (in a dispatch of its
        // own) and those of the root filter on CPU adapters: the worst case
        // bounds the rounds.
        let filter_dispatches = match params.filter_chunk {
            0 => 0,
            chunk => (0..m).map(|i| (params.mode_start[i + 1] - params.mode_start[i]).div_ceil(chunk)).sum::<u32>() + 1,
        };
        let dispatches_per_step =
            if all { params.tuples.div_ceil(params.tuples_per_dispatch.max(1)) + 1 + filter_dispatches } else { 1 };
        let max_passes = options.steps as u64 * dispatches_per_step as u64 + passes as u64;
        let round = if all { passes.max(dispatches_per_step) } else { passes };
        Ok(GpuPlan {
            ctx,
            pipeline,
            precision,
            n,
            all,
            batch,
            out_stride,
            bytes_per_sample,
            word_stride,
            params,
            round,
            max_passes,
            constants,
            values_out: ctx.storage_out("v+", batch as u64 * bytes_per_sample),
            words_out: ctx.storage_out("steps", batch as u64 * 16),
            tableau: ctx.storage_out("tableau", batch as u64 * tableau_bytes),
            enum_values: ctx
                .storage_out("enumeration values", batch as u64 * (value_stride * precision.bytes()) as u64),
            enum_words: ctx.storage_out("enumeration words", batch as u64 * (word_stride * 4) as u64),
        })
    }

    /// Samples per dispatch.
    pub fn batch_size(&self) -> usize {
        self.batch
    }

    /// Samples `first_index .. first_index + samples`, in batches, calling
    /// `progress(k)` after each batch of `k` samples has been read back.
    pub fn sample_range(
        &mut self,
        first_index: u64,
        samples: usize,
        progress: &dyn Fn(usize),
    ) -> Result<SampleSet, GpuError> {
        let (ctx, n, all, out_stride, word_stride) = (self.ctx, self.n, self.all, self.out_stride, self.word_stride);
        let mut out = Vec::with_capacity(samples);
        let mut done = 0usize;
        while done < samples {
            let count = self.batch.min(samples - done);
            let first = first_index.wrapping_add(done as u64);
            self.params.count = count as u32;
            self.params.first_lo = first as u32;
            self.params.first_hi = (first >> 32) as u32;
            let params_buf = ctx.storage_init("params", bytemuck::bytes_of(&self.params));
            let groups = (count as u32).div_ceil(WORKGROUP_SIZE);
            let buffers = [
                (0, &params_buf),
                (1, &self.constants),
                (2, &self.values_out),
                (3, &self.words_out),
                (7, &self.tableau),
                (8, &self.enum_values),
                (9, &self.enum_words),
            ];
            let mut outputs =
                vec![(&self.values_out, count as u64 * self.bytes_per_sample), (&self.words_out, count as u64 * 16)];
            if all {
                // The Lemke fallback steps (word 3 of each sample's enum_words).
                outputs.push((&self.enum_words, (count * word_stride * 4) as u64));
            }
            // Rounds of `passes` dispatches until every sample is done (one round
            // unless `all` steps span several dispatches), at most `max_passes`.
            let round = self.round;
            let mut bytes =
                ctx.dispatch_passes(self.pipeline, &buffers, groups, round, &[&self.words_out], &outputs)?;
            let mut dispatched = round as u64;
            let all_done = |bytes: &[Vec<u8>]| {
                let words: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes[1]);
                (0..count).all(|i| words[4 * i + 1] & (FLAG_DONE | FLAG_LOOP_LIMIT) != 0)
            };
            while all && dispatched < self.max_passes && !all_done(&bytes) {
                let next = (round as u64).min(self.max_passes - dispatched) as u32;
                bytes = ctx.dispatch_passes(self.pipeline, &buffers, groups, next, &[], &outputs)?;
                dispatched += next as u64;
            }
            let values = from_bytes(&bytes[0], self.precision);
            let words: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes[1]);
            let flags_of = |i: usize| words[4 * i + 1];
            let enum_state: Vec<u32> = if all { bytemuck::pod_collect_to_vec(&bytes[2]) } else { Vec::new() };
            let fallback_steps = |i: usize| if all { enum_state[i * word_stride + 3] } else { 0 };
            if let Some(i) = (0..count).find(|&i| flags_of(i) & FLAG_DONE == 0) {
                if flags_of(i) & FLAG_LOOP_LIMIT != 0 {
                    return Err(GpuError::LoopLimit { adapter: ctx.describe() });
                }
                return Err(GpuError::Device("a sample did not finish in the planned dispatches".into()));
            }
            // With `all` the tuple budget per dispatch is planned to fit the
            // loop limiter: a cut there is an error, not a failed sample.
            if all && (0..count).any(|i| flags_of(i) & FLAG_LOOP_LIMIT != 0) {
                return Err(GpuError::LoopLimit { adapter: ctx.describe() });
            }
            if (0..count).any(|i| flags_of(i) & FLAG_TOO_MANY_SOLUTIONS != 0) {
                return Err(GpuError::TooManySolutions { max: MAX_GPU_ALL_SOLUTIONS });
            }
            for i in 0..count {
                let row = &values[i * out_stride..(i + 1) * out_stride];
                let flags = flags_of(i);
                out.push(Sample {
                    index: first.wrapping_add(i as u64),
                    v_plus: row[..n].to_vec(),
                    steps: words[4 * i],
                    // A sample whose loops the driver cut short failed like an LCP
                    // over its pivot cap (lavapipe's loop limiter, docs/gpu-lavapipe.md).
                    terminated: flags & FLAG_TERMINATED != 0 && flags & FLAG_LOOP_LIMIT == 0,
                    accepted: flags & FLAG_ACCEPTED != 0 && flags & FLAG_LOOP_LIMIT == 0,
                    max_residual: if flags & (FLAG_LCP_FAILED | FLAG_LOOP_LIMIT) != 0 { f64::INFINITY } else { row[n] },
                    energy_before: row[n + 1],
                    energy_after: row[n + 2],
                    fallback_steps: fallback_steps(i),
                });
            }
            done += count;
            progress(count);
        }
        Ok(SampleSet { n, samples: out })
    }
}
