//! The cooperative Lemke kernel (one workgroup per sample,
//! `shaders/lemke_coop.wgsl`) forced on small built-in scenes, which the
//! rule runs on one invocation per sample: the same samples as the CPU and
//! as the one-invocation kernel. f64: every sample within 1e-9 of ‖v⁻‖_M
//! of the CPU's, with its steps and flags; f32: at least 99 % within 1e-3,
//! the share the one-invocation kernel meets on these scenes
//! (docs/gpu-lavapipe.md); the outputs do not depend on the batch size or
//! on how a range of samples is split.

mod common;

use impactset::gpu::{GpuContext, GpuLcp, GpuPlan, GpuRunOptions, LemkeKernel, Precision, solve_lcps_gpu_with};
use impactset::lcp::{LemkeOptions, LemkeWorkspace};
use impactset::scene::random::coupled_problem;
use impactset::{ImpactProblem, SampleSet, SamplerOptions, Selection, sample_set, scene};
use nalgebra::DVector;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Random step LCPs `(A_R, [h·p; u; 0])` of a random spatial problem of `m`
/// contacts (8 friction directions), half with random covers and offsets.
fn step_lcps(seed: u64, n: usize, m: usize, count: usize) -> Vec<GpuLcp> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let problem = coupled_problem(&mut rng, n, m, Some(8), f64::INFINITY, 0.3..0.8);
    common::gpu::step_lcps(&mut rng, &problem, count)
}

/// The cooperative Lemke kernel takes the CPU's pivots: on step LCPs of
/// four, eight and sixteen spatial contacts (N = 44, 88, 176) every f64
/// solve ends after the CPU's number of pivots within 1e-9 of its `z`, and
/// bit for bit on the one-invocation kernel's `z` where that one runs
/// (N = 44; above, lavapipe's loop limiter cuts it).
#[test]
fn cooperative_lemke_takes_the_cpus_pivots() {
    let Some(ctx) = common::gpu::gpu() else { return };
    if !ctx.supports_f64() {
        eprintln!("notice: {} has no f64; skipped", ctx.describe());
        return;
    }
    for (seed, n, m, count) in [(11, 12, 4, 32), (12, 30, 8, 16), (13, 60, 16, 4)] {
        let lcps = step_lcps(seed, n, m, count);
        let size = lcps[0].q.len();
        let coop = solve_lcps_gpu_with(&ctx, Precision::F64, &lcps, LemkeKernel::Cooperative).expect("cooperative");
        let mut ws = LemkeWorkspace::new(size);
        let mut pivots = 0;
        for (lcp, g) in lcps.iter().zip(&coop) {
            let cpu = ws.solve_covered(&lcp.a, &lcp.q, lcp.cover.as_deref(), lcp.lex_offset, &LemkeOptions::default());
            let cpu = cpu.expect("the CPU solves a step LCP");
            let g = g.as_ref().expect("the cooperative kernel solves what the CPU solves");
            assert_eq!(g.pivots, cpu.pivots, "N = {size}");
            let scale = cpu.z.iter().fold(1.0f64, |s, x| s.max(x.abs()));
            let dev = cpu.z.iter().zip(&g.z).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max) / scale;
            assert!(dev <= 1e-9, "N = {size}: z off by {dev:.2e}");
            pivots += cpu.pivots;
        }
        eprintln!("N = {size}: {count} LCPs, {pivots} pivots, all the CPU's");
        if size <= 44 {
            let single =
                solve_lcps_gpu_with(&ctx, Precision::F64, &lcps, LemkeKernel::PerSample).expect("one invocation");
            for (a, b) in coop.iter().zip(&single) {
                let (a, b) = (a.as_ref().unwrap(), b.as_ref().expect("solved"));
                assert_eq!((a.pivots, &a.z), (b.pivots, &b.z));
            }
        }
    }
}

/// A built-in scene's problem and options for `samples` samples under `selection`.
fn case(id: &str, selection: Selection, samples: usize) -> (ImpactProblem, SamplerOptions) {
    let scene = scene::builtin(id).expect("built-in scene");
    let options = SamplerOptions {
        samples,
        step_size: Some(scene.step_size),
        steps: Some(scene.steps),
        selection,
        seed: 7,
        ..Default::default()
    };
    (scene.problem, options)
}

/// The run of `problem` on `kernel` in `precision` (batches of `batch`).
fn run(
    ctx: &GpuContext,
    problem: &ImpactProblem,
    options: &SamplerOptions,
    precision: Precision,
    kernel: LemkeKernel,
    batch: Option<usize>,
) -> SampleSet {
    let run = GpuRunOptions { lemke_kernel: Some(kernel), batch_size: batch, ..Default::default() };
    let mut plan = GpuPlan::new(ctx, problem, options, precision, &run).expect("plan");
    assert_eq!(plan.lemke_kernel(), kernel);
    plan.sample_range(options.first_index, options.samples, &|_| {}).expect("GPU run")
}

/// Deviation of each GPU sample from the CPU's, relative to ‖v⁻‖_M.
fn deviations(problem: &ImpactProblem, cpu: &SampleSet, gpu: &SampleSet) -> Vec<f64> {
    let scale = problem.energy_norm(problem.velocity());
    cpu.samples
        .iter()
        .zip(&gpu.samples)
        .map(|(c, g)| {
            assert_eq!(c.index, g.index);
            let diff = DVector::from_vec(c.v_plus.clone()) - DVector::from_vec(g.v_plus.clone());
            problem.energy_norm(&diff) / scale
        })
        .collect()
}

/// f64: the cooperative kernel's every sample is the CPU's (and so the
/// one-invocation kernel's), steps and flags included, on planar and
/// spatial scenes (`cube-flat`: four spatial contacts, N = 44) under both
/// Lemke rules.
#[test]
fn cooperative_kernel_matches_the_cpu_in_f64() {
    let Some(ctx) = common::gpu::gpu() else { return };
    if !ctx.supports_f64() {
        eprintln!("notice: {} has no f64; skipped", ctx.describe());
        return;
    }
    for (id, samples) in [("compass-gait", 64), ("rocking-block", 64), ("cube-flat", 24)] {
        for selection in [Selection::Lemke, Selection::RandomLemke] {
            let (problem, options) = case(id, selection, samples);
            let cpu = sample_set(&problem, &options);
            let gpu = run(&ctx, &problem, &options, Precision::F64, LemkeKernel::Cooperative, None);
            let dev = deviations(&problem, &cpu, &gpu);
            let worst = dev.iter().copied().fold(0.0, f64::max);
            eprintln!("{id} {selection}: {samples} samples, max deviation {worst:.2e}");
            for ((c, g), d) in cpu.samples.iter().zip(&gpu.samples).zip(&dev) {
                assert!(*d <= 1e-9, "{id} {selection}: sample {} off by {d:.2e}", c.index);
                assert_eq!(
                    (c.steps, c.accepted, c.terminated),
                    (g.steps, g.accepted, g.terminated),
                    "{id} {selection}: {}",
                    c.index
                );
                assert_eq!(c.max_residual.is_finite(), g.max_residual.is_finite());
            }
        }
    }
}

/// f32: at least 99 % of the cooperative kernel's samples within 1e-3 of
/// the CPU's (f32 samples that end unaccepted run again on the host, as
/// with the one-invocation kernel), and the two kernels' f32 samples are
/// the same bit for bit: the pivots are the same arithmetic.
#[test]
fn cooperative_kernel_matches_the_cpu_in_f32() {
    let Some(ctx) = common::gpu::gpu() else { return };
    for (id, samples) in [("compass-gait", 128), ("cube-flat", 48)] {
        for selection in [Selection::Lemke, Selection::RandomLemke] {
            let (problem, options) = case(id, selection, samples);
            let cpu = sample_set(&problem, &options);
            let coop = run(&ctx, &problem, &options, Precision::F32, LemkeKernel::Cooperative, None);
            let single = run(&ctx, &problem, &options, Precision::F32, LemkeKernel::PerSample, None);
            let share = |gpu: &SampleSet| {
                deviations(&problem, &cpu, gpu).iter().filter(|&&d| d <= 1e-3).count() as f64 / samples as f64
            };
            let (coop_share, single_share) = (share(&coop), share(&single));
            eprintln!("{id} {selection} f32: cooperative {coop_share:.4}, one invocation {single_share:.4}");
            assert!(coop_share >= 0.99, "{id} {selection}: {coop_share}");
            // The same arithmetic entry by entry: the same f32 samples, bit for bit.
            for (a, b) in coop.samples.iter().zip(&single.samples) {
                assert_eq!(a.v_plus, b.v_plus, "{id} {selection}: sample {}", a.index);
                assert_eq!((a.steps, a.accepted), (b.steps, b.accepted));
            }
        }
    }
}

/// The cooperative kernel's outputs do not depend on the batch size (one
/// workgroup per sample; a workgroup takes several samples of a batch
/// only beyond the dispatch limit) or on how a range is split: bit for bit.
#[test]
fn cooperative_kernel_is_batch_and_split_invariant() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let precision = if ctx.supports_f64() { Precision::F64 } else { Precision::F32 };
    let (problem, options) = case("cube-flat", Selection::RandomLemke, 20);
    let whole = run(&ctx, &problem, &options, precision, LemkeKernel::Cooperative, None);
    let batched = run(&ctx, &problem, &options, precision, LemkeKernel::Cooperative, Some(7));
    let run = GpuRunOptions { lemke_kernel: Some(LemkeKernel::Cooperative), ..Default::default() };
    let mut plan = GpuPlan::new(&ctx, &problem, &options, precision, &run).expect("plan");
    let mut split = plan.sample_range(0, 9, &|_| {}).expect("first part");
    split.samples.extend(plan.sample_range(9, 11, &|_| {}).expect("second part").samples);
    for other in [&batched, &split] {
        assert_eq!(whole.samples.len(), other.samples.len());
        for (a, b) in whole.samples.iter().zip(&other.samples) {
            assert_eq!(a.index, b.index);
            assert_eq!(a.v_plus, b.v_plus, "sample {}", a.index);
            assert_eq!((a.steps, a.accepted, a.terminated), (b.steps, b.accepted, b.terminated));
            assert_eq!(a.max_residual.to_bits(), b.max_residual.to_bits());
        }
    }
}

/// Forcing the cooperative kernel where it does not run (restitution) is
/// refused, not silently changed.
#[test]
fn cooperative_kernel_refuses_restitution() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let (problem, options) = case("compass-gait", Selection::Lemke, 4);
    let problem = problem.with_restitution(&[0.5, 0.5]).expect("valid restitution");
    let run = GpuRunOptions { lemke_kernel: Some(LemkeKernel::Cooperative), ..Default::default() };
    let err = GpuPlan::new(&ctx, &problem, &options, Precision::F32, &run).err().expect("refused");
    assert!(err.to_string().contains("cooperative"), "{err}");
}

/// States of equal sizes packed into one plan (`reach`'s shape: a robot in
/// several configurations, few samples each) run on the cooperative kernel
/// too, each packed sample bit for bit the sample its state runs alone and
/// in f64 the CPU's: eight random spatial contacts (N = 88) at three
/// approach speeds.
#[test]
fn packed_states_on_the_cooperative_kernel_are_the_states_alone() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let precision = if ctx.supports_f64() { Precision::F64 } else { Precision::F32 };
    let base = coupled_problem(&mut ChaCha8Rng::seed_from_u64(21), 30, 8, Some(8), f64::INFINITY, 0.3..0.8);
    let problems: Vec<ImpactProblem> = [0.7, 1.0, 1.3]
        .iter()
        .map(|s| ImpactProblem::new(base.mass().clone(), base.velocity() * *s, base.contacts().to_vec()).unwrap())
        .collect();
    let options: Vec<SamplerOptions> = (0..problems.len())
        .map(|k| SamplerOptions {
            seed: 40 + k as u64,
            steps: Some(10),
            selection: Selection::RandomLemke,
            ..Default::default()
        })
        .collect();
    let states: Vec<(&ImpactProblem, &SamplerOptions)> = problems.iter().zip(&options).collect();
    let run = GpuRunOptions::default();
    let mut plan = GpuPlan::packed(&ctx, &states, precision, &run).expect("packed plan");
    assert_eq!(plan.lemke_kernel(), LemkeKernel::Cooperative);
    let samples = 6;
    let packed = plan.sample_states(0, samples, &|_| {}, &|| false).unwrap().unwrap();
    for (k, ((problem, o), flat)) in states.iter().zip(packed).enumerate() {
        let mut alone = GpuPlan::new(&ctx, problem, o, precision, &run).unwrap();
        let alone = alone.sample_range(0, samples, &|_| {}).unwrap();
        let packed = flat.into_sample_set();
        for (a, b) in packed.samples.iter().zip(&alone.samples) {
            assert_eq!(a.index, b.index);
            assert_eq!(a.v_plus, b.v_plus, "state {k} sample {}", a.index);
            assert_eq!((a.steps, a.accepted, a.terminated), (b.steps, b.accepted, b.terminated));
        }
        if precision == Precision::F64 {
            let cpu = sample_set(problem, &SamplerOptions { samples, ..(*o).clone() });
            let worst = deviations(problem, &cpu, &packed).into_iter().fold(0.0, f64::max);
            assert!(worst <= 1e-9, "state {k}: off by {worst:.2e}");
        }
    }
}
