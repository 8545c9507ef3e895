//! The building blocks of the GPU sampler run alone: ChaCha8 words, the caps
//! of a step and single Lemke solves, for parity tests against
//! [`crate::sampling::stream`], [`crate::sampling::Schedule`] and
//! [`crate::lcp::LemkeWorkspace`].

use super::GpuError;
use super::context::{GpuContext, WORKGROUP_SIZE};
use super::coop::LemkeKernel;
use super::layout::TableauLayout;
use super::precision::{Precision, from_bytes, pivot_tolerance, tie_tolerance, to_bytes};
use super::shaders::Module;
use super::types::{LEMKE_LOOP_EXHAUSTED, LEMKE_RAY, LEMKE_SOLVED, ModuleSizes, TestParams, key_words, schedule_code};
use crate::lcp::{LcpError, LemkeOptions};
use crate::sampling::{Schedule, stream};

/// Words per stream [`chacha_words_gpu`] can produce.
pub const MAX_TEST_WORDS: usize = 4096;

/// The first `words` words of each ChaCha8 stream in `streams` under the run
/// seed `seed` (the key `stream::stream_key(seed)`), generated on the GPU;
/// `streams.len() × words` words, stream by stream.
pub fn chacha_words_gpu(ctx: &GpuContext, seed: u64, streams: &[u64], words: usize) -> Result<Vec<u32>, GpuError> {
    if words > MAX_TEST_WORDS {
        return Err(GpuError::Unsupported(format!("more than {MAX_TEST_WORDS} words per test stream")));
    }
    let kernels = ctx.kernels(Module::Tests(ModuleSizes::BASE), Precision::F32)?;
    let params = TestParams {
        count: streams.len() as u32,
        size: words as u32,
        key: key_words(&stream::stream_key(seed)),
        ..Default::default()
    };
    let ids: Vec<u32> = streams.iter().flat_map(|&s| [s as u32, (s >> 32) as u32]).collect();
    let out_size = (streams.len() * words * 4) as u64;
    let params_buf = ctx.storage_init("test params", bytemuck::bytes_of(&params));
    let ids_buf = ctx.storage_init("streams", bytemuck::cast_slice(&ids));
    let out = ctx.storage_out("words", out_size);
    let groups = (streams.len() as u32).div_ceil(WORKGROUP_SIZE);
    let bytes = ctx.dispatch(
        kernels.get("chacha_words"),
        &[(0, &params_buf), (1, &ids_buf), (3, &out)],
        groups,
        &[(&out, out_size)],
    )?;
    Ok(bytemuck::pod_collect_to_vec(&bytes[0]))
}

/// One step of one sample for [`schedule_caps_gpu`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CapQuery {
    /// The sample index.
    pub index: u64,
    /// The step `k` (0 for the first).
    pub step: u32,
    /// Bit `i` set: contact `i` approaches at the step's start.
    pub approaching: u32,
    /// The run's step cap `K` (the laws' finish starts at `K − ⌈K/4⌉`).
    pub max_steps: u32,
}

/// The caps `P_i` (`p_i = P_i · 2⁻²⁴`) of each query's step for `m`
/// contacts under `schedule` and the run seed `seed`, drawn on the GPU as
/// its sampler draws them (`shaders/schedule.wgsl`); `queries.len() × m`
/// integers, query by query.
pub fn schedule_caps_gpu(
    ctx: &GpuContext,
    seed: u64,
    schedule: Schedule,
    m: usize,
    queries: &[CapQuery],
) -> Result<Vec<u32>, GpuError> {
    if m == 0 {
        return Err(GpuError::Unsupported("caps of no contacts".into()));
    }
    let kernels = ctx.kernels(Module::Tests(ModuleSizes::of(3 * m, 0)), Precision::F32)?;
    let params = TestParams {
        count: queries.len() as u32,
        size: m as u32,
        key: key_words(&stream::stream_key(seed)),
        ..Default::default()
    };
    let law = schedule_code(schedule);
    let words: Vec<u32> = queries
        .iter()
        .flat_map(|q| [q.index as u32, (q.index >> 32) as u32, law, q.step, q.approaching, q.max_steps])
        .collect();
    let out_size = (queries.len() * m * 4) as u64;
    let params_buf = ctx.storage_init("test params", bytemuck::bytes_of(&params));
    let words_buf = ctx.storage_init("cap queries", bytemuck::cast_slice(&words));
    let out = ctx.storage_out("caps", out_size);
    let groups = (queries.len() as u32).div_ceil(WORKGROUP_SIZE);
    let bytes = ctx.dispatch(
        kernels.get("schedule_caps"),
        &[(0, &params_buf), (1, &words_buf), (3, &out)],
        groups,
        &[(&out, out_size)],
    )?;
    Ok(bytemuck::pod_collect_to_vec(&bytes[0]))
}

/// One LCP `w = A z + q` for [`solve_lcps_gpu`].
#[derive(Clone, Debug, PartialEq)]
pub struct GpuLcp {
    /// `A`, row-major `N × N`.
    pub a: Vec<f64>,
    /// `q` (`N`).
    pub q: Vec<f64>,
    /// Covering vector `d > 0` (`None`: all ones).
    pub cover: Option<Vec<f64>>,
    /// Lexicographic column offset (see [`crate::lcp::LemkeWorkspace::solve_covered`]).
    pub lex_offset: usize,
}

/// A GPU Lemke result.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuLcpSolution {
    /// `z`.
    pub z: Vec<f64>,
    /// Pivots.
    pub pivots: usize,
    /// The residual violation computed in the shader.
    pub violation: f64,
}

/// Solves LCPs of one size `N` on the GPU, one per invocation (in the
/// module of `N`'s size class, `ModuleSizes`), with the same tableau, tolerance rule (with the precision's
/// `ε`) and pivot cap as [`crate::lcp::LemkeWorkspace`]. The tolerance is
/// that of the first problem.
pub fn solve_lcps_gpu(
    ctx: &GpuContext,
    precision: Precision,
    problems: &[GpuLcp],
) -> Result<Vec<Result<GpuLcpSolution, LcpError>>, GpuError> {
    solve_lcps_gpu_with(ctx, precision, problems, LemkeKernel::PerSample)
}

/// [`solve_lcps_gpu`] on `kernel`: one invocation per LCP, or one workgroup
/// of [`COOP_THREADS`](super::COOP_THREADS) invocations per LCP
/// (`shaders/lemke_coop.wgsl`: the same pivots, entry by entry).
pub fn solve_lcps_gpu_with(
    ctx: &GpuContext,
    precision: Precision,
    problems: &[GpuLcp],
    kernel: LemkeKernel,
) -> Result<Vec<Result<GpuLcpSolution, LcpError>>, GpuError> {
    let Some(first) = problems.first() else { return Ok(Vec::new()) };
    let n = first.q.len();
    if n == 0 {
        return Err(GpuError::Unsupported("an LCP of size 0".into()));
    }
    if problems.iter().any(|p| p.q.len() != n || p.a.len() != n * n || p.cover.as_ref().is_some_and(|d| d.len() != n)) {
        return Err(GpuError::Unsupported("LCPs of one batch must share their size".into()));
    }
    let sizes = ModuleSizes::of(n, 0);
    let tableau_bytes = (n * sizes.stride(n) * precision.bytes()) as u64;
    super::plan_setup::check_per_sample(ctx, &[("a Lemke tableau", tableau_bytes)], n, 0)?;
    let cooperative = kernel == LemkeKernel::Cooperative;
    if cooperative {
        super::coop::choose(&ctx.limits, Some(kernel), sizes, precision.bytes(), (n, 0, false))?;
    }
    let (kernels, entry) = if cooperative {
        (ctx.kernels(Module::TestsCoop(sizes), precision)?, "lemke_solve_coop")
    } else {
        (ctx.kernels(Module::Tests(sizes), precision)?, "lemke_solve")
    };
    let cap = LemkeOptions::default().pivot_cap(n);
    let interleave = (!cooperative && TableauLayout::for_adapter(ctx) == TableauLayout::Interleaved) as u32;
    let params = TestParams {
        count: problems.len() as u32,
        size: n as u32,
        pivot_cap: cap as u32,
        interleave,
        ..Default::default()
    };
    let mut scalars: Vec<f64> = Vec::with_capacity(problems.len() * (n * n + 2 * n) + 1);
    for p in problems {
        scalars.extend(&p.a);
        scalars.extend(&p.q);
        match &p.cover {
            Some(d) => scalars.extend(d),
            None => scalars.extend(std::iter::repeat_n(1.0, n)),
        }
    }
    scalars.push(pivot_tolerance(&first.a, n, precision));
    scalars.push(tie_tolerance(precision));
    let offsets: Vec<u32> = problems.iter().map(|p| p.lex_offset as u32).collect();
    let params_buf = ctx.storage_init("test params", bytemuck::bytes_of(&params));
    let offsets_buf = ctx.storage_init("offsets", bytemuck::cast_slice(&offsets));
    let scalars_buf = ctx.storage_init("lcps", &to_bytes(&scalars, precision));
    let words_size = (problems.len() * 2 * 4) as u64;
    let z_size = (problems.len() * (n + 1) * precision.bytes()) as u64;
    let words_out = ctx.storage_out("pivots", words_size);
    let z_out = ctx.storage_out("z", z_size);
    let tableau = ctx.storage_out("tableau", problems.len() as u64 * tableau_bytes);
    let groups = if cooperative {
        (problems.len() as u32).min(ctx.limits.max_compute_workgroups_per_dimension)
    } else {
        (problems.len() as u32).div_ceil(super::context::WORKGROUP_SIZE)
    };
    let bytes = ctx.dispatch(
        kernels.get(entry),
        &[(0, &params_buf), (1, &offsets_buf), (2, &scalars_buf), (3, &words_out), (4, &z_out), (7, &tableau)],
        groups,
        &[(&words_out, words_size), (&z_out, z_size)],
    )?;
    let words: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes[0]);
    let z = from_bytes(&bytes[1], precision);
    if words.chunks(2).any(|w| w[1] == LEMKE_LOOP_EXHAUSTED) {
        return Err(GpuError::LoopLimit { adapter: ctx.adapter_info().name.clone() });
    }
    Ok((0..problems.len())
        .map(|i| {
            let pivots = words[2 * i] as usize;
            match words[2 * i + 1] {
                LEMKE_SOLVED => Ok(GpuLcpSolution {
                    z: z[i * (n + 1)..i * (n + 1) + n].to_vec(),
                    pivots,
                    violation: z[i * (n + 1) + n],
                }),
                LEMKE_RAY => Err(LcpError::Ray { pivots }),
                _ => Err(LcpError::PivotLimit { pivots }),
            }
        })
        .collect())
}
