//! The cooperative Lemke kernel (one workgroup per sample,
//! `shaders/lemke_coop.wgsl`) forced on small built-in scenes, which the
//! rule runs on one invocation per sample: the same samples as the CPU and
//! as the one-invocation kernel. f64: every sample within 1e-9 of ‖v⁻‖_M
//! of the CPU's, with its steps and flags; f32: at least 99 % within 1e-3,
//! the share the one-invocation kernel meets on these scenes
//! (docs/gpu-lavapipe.md); the outputs do not depend on the batch size or
//! on how a range of samples is split. With restitution (docs/model.md
//! §4b) on the small scenes, on random spatial problems of eight contacts
//! (N = 88, with bilateral rows too) and on the humanoid, which the rule
//! runs on it: f64 samples the CPU's, none cut by lavapipe's loop limiter
//! or run again on the host; f32's agreement reported.

mod common;

use impactset::gpu::{GpuContext, GpuLcp, GpuPlan, GpuRunOptions, LemkeKernel, Precision, solve_lcps_gpu_with};
use impactset::lcp::{LemkeOptions, LemkeWorkspace};
use impactset::scene::random::coupled_problem;
use impactset::{ImpactProblem, SampleSet, SamplerOptions, Selection, sample_set, scene};
use nalgebra::DVector;
use rand::{Rng, SeedableRng};
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

/// Forcing the cooperative kernel where it does not run (`all`) is
/// refused, not silently changed.
#[test]
fn cooperative_kernel_refuses_all() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let (problem, options) = case("compass-gait", Selection::All, 4);
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

/// The f64 run of `problem` with restitution on the cooperative kernel
/// against the CPU's, sample by sample: each within 1e-9 of ‖v⁻‖_M with the
/// same steps and flags, and the device ran every one (none cut by the loop
/// limiter, none run again on the host).
fn elastic_matches_the_cpu(ctx: &GpuContext, name: &str, problem: &ImpactProblem, options: &SamplerOptions) {
    let started = std::time::Instant::now();
    let cpu = sample_set(problem, options);
    let run = GpuRunOptions { lemke_kernel: Some(LemkeKernel::Cooperative), ..Default::default() };
    let mut plan = GpuPlan::new(ctx, problem, options, Precision::F64, &run).expect("plan");
    assert_eq!(plan.lemke_kernel(), LemkeKernel::Cooperative);
    let gpu = plan.sample_range(options.first_index, options.samples, &|_| {}).expect("GPU run");
    let dev = deviations(problem, &cpu, &gpu);
    let worst = dev.iter().copied().fold(0.0, f64::max);
    let guarded = cpu.samples.iter().filter(|c| c.energy_guard).count();
    let steps: u32 = cpu.samples.iter().map(|c| c.steps).sum();
    eprintln!(
        "{name} {}: {} samples ({} accepted, {steps} steps), max deviation {worst:.2e}, energy guard {guarded}, \
         host re-runs {} ({} cut), {:.1}s",
        options.selection,
        options.samples,
        cpu.accepted_count(),
        plan.host_reruns(),
        plan.loop_limit_reruns(),
        started.elapsed().as_secs_f64()
    );
    assert_eq!((plan.host_reruns(), plan.loop_limit_reruns()), (0, 0), "{name}: the host ran samples");
    for ((c, g), d) in cpu.samples.iter().zip(&gpu.samples).zip(&dev) {
        assert!(*d <= 1e-9, "{name}: sample {} off by {d:.2e}", c.index);
        assert_eq!(
            (c.steps, c.accepted, c.terminated, c.energy_guard),
            (g.steps, g.accepted, g.terminated, g.energy_guard),
            "{name}: {}",
            c.index
        );
    }
}

/// A built-in scene with restitution `e` at every contact, at the coarse
/// step of the GPU tests (`common::gpu::coarse_step`).
fn elastic_case(id: &str, e: f64, selection: Selection, samples: usize) -> (ImpactProblem, SamplerOptions) {
    let scene = scene::builtin(id).expect("built-in scene");
    let (h, steps) = common::gpu::coarse_step(&scene);
    let m = scene.problem.contacts().len();
    let problem = scene.problem.with_restitution(&vec![e; m]).expect("valid restitution");
    let options =
        SamplerOptions { samples, step_size: Some(h), steps: Some(steps), selection, seed: 5, ..Default::default() };
    (problem, options)
}

/// Restitution on the cooperative kernel forced on small scenes (planar
/// and spatial): f64 samples the CPU's under both Lemke rules.
#[test]
fn cooperative_kernel_runs_restitution_like_the_cpu() {
    let Some(ctx) = common::gpu::gpu() else { return };
    if !ctx.supports_f64() {
        eprintln!("notice: {} has no f64; skipped", ctx.describe());
        return;
    }
    for (id, e, samples) in [("compass-gait", 0.5, 32), ("rocking-block", 1.0, 32), ("cube-flat", 0.5, 8)] {
        for selection in [Selection::Lemke, Selection::RandomLemke] {
            let (problem, options) = elastic_case(id, e, selection, samples);
            elastic_matches_the_cpu(&ctx, &format!("{id}, e = {e}"), &problem, &options);
        }
    }
}

/// A random spatial problem of eight contacts (8 friction directions,
/// N = 88) with restitution on some contacts (`e` 0.8, 0, 0.5, 0, …).
fn eight_elastic_contacts(seed: u64) -> ImpactProblem {
    let problem = coupled_problem(&mut ChaCha8Rng::seed_from_u64(seed), 30, 8, Some(8), f64::INFINITY, 0.3..0.8);
    let e: Vec<f64> = (0..8).map(|k| [0.8, 0.0, 0.5, 0.0][k % 4]).collect();
    problem.with_restitution(&e).expect("valid restitution")
}

fn large_options(selection: Selection, samples: usize) -> SamplerOptions {
    SamplerOptions { samples, selection, seed: 3, steps: Some(10), ..Default::default() }
}

/// The rule's kernel for eight random spatial contacts with restitution
/// (N = 88), with and without three bilateral rows: f64 samples the CPU's.
#[test]
fn eight_contacts_with_restitution_run_cooperatively_like_the_cpu() {
    let Some(ctx) = common::gpu::gpu() else { return };
    if !ctx.supports_f64() {
        eprintln!("notice: {} has no f64; skipped", ctx.describe());
        return;
    }
    let problem = eight_elastic_contacts(21);
    assert_eq!(problem.operators().step_size_n(), 88);
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    let j_eq = nalgebra::DMatrix::from_fn(3, 30, |_, _| rng.random_range(-1.0..1.0));
    let bilateral = problem.clone().with_bilateral(j_eq).expect("random bilateral rows are valid");
    let cases = [
        ("8 contacts", &problem, Selection::Lemke),
        ("8 contacts", &problem, Selection::RandomLemke),
        ("8 contacts, 3 bilateral rows", &bilateral, Selection::RandomLemke),
    ];
    for (name, problem, selection) in cases {
        let options = large_options(selection, 2);
        let plan = GpuPlan::new(&ctx, problem, &options, Precision::F64, &GpuRunOptions::default()).unwrap();
        assert_eq!(plan.lemke_kernel(), LemkeKernel::Cooperative, "{name}: the rule's kernel");
        elastic_matches_the_cpu(&ctx, name, problem, &options);
    }
}

/// The humanoid on both feet (N = 88, `tests/data/humanoid-feet-flat.json`)
/// with `e = 0.5` at every contact: f64 samples the CPU's.
#[test]
fn the_humanoid_with_restitution_runs_cooperatively_like_the_cpu() {
    let Some(ctx) = common::gpu::gpu() else { return };
    if !ctx.supports_f64() {
        eprintln!("notice: {} has no f64; skipped", ctx.describe());
        return;
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/humanoid-feet-flat.json");
    let problem = impactset::io::load_problem(&path).expect("the humanoid's problem file loads").problem;
    let problem = problem.with_restitution(&[0.5; 8]).expect("valid restitution");
    elastic_matches_the_cpu(&ctx, "humanoid, e = 0.5", &problem, &large_options(Selection::RandomLemke, 2));
}

/// f32 with restitution on the cooperative kernel: its samples are the
/// one-invocation kernel's bit for bit where neither ran on the host (the
/// same arithmetic; on `cube-flat` lavapipe cuts every one-invocation
/// sample, so none compares there), and the share within 1e-3 of ‖v⁻‖_M of
/// the CPU's (the nearer of the plain run and the run at f32's floors,
/// `Precision::model_options`) at least 99 % (measured: all), printed for
/// each case with the host's re-runs (unaccepted f32 samples, docs/gpu.md,
/// "f32").
#[test]
fn cooperative_restitution_in_f32() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let cases = [
        ("compass-gait, e = 0.5", elastic_case("compass-gait", 0.5, Selection::RandomLemke, 48)),
        ("rocking-block, e = 1", elastic_case("rocking-block", 1.0, Selection::Lemke, 48)),
        ("cube-flat, e = 0.5", elastic_case("cube-flat", 0.5, Selection::Lemke, 12)),
    ];
    for (name, (problem, options)) in cases {
        let runs = [options.clone(), Precision::F32.model_options(&options)].map(|o| sample_set(&problem, &o));
        let kept = |kernel| {
            let run = GpuRunOptions { lemke_kernel: Some(kernel), keep_rerun_indices: true, ..Default::default() };
            let mut plan = GpuPlan::new(&ctx, &problem, &options, Precision::F32, &run).expect("plan");
            let set = plan.sample_range(0, options.samples, &|_| {}).expect("GPU run");
            (set, plan.host_rerun_indices().expect("kept"))
        };
        let (coop, coop_reruns) = kept(LemkeKernel::Cooperative);
        let (single, single_reruns) = kept(LemkeKernel::PerSample);
        let nearest: Vec<f64> = {
            let [plain, floors] = runs.each_ref().map(|cpu| deviations(&problem, cpu, &coop));
            plain.iter().zip(&floors).map(|(a, b)| a.min(*b)).collect()
        };
        let close = nearest.iter().filter(|&&d| d <= 1e-3).count();
        let mut compared = 0;
        for (a, b) in coop.samples.iter().zip(&single.samples) {
            if !coop_reruns.contains(&a.index) && !single_reruns.contains(&a.index) {
                assert_eq!(a.v_plus, b.v_plus, "{name}: sample {}", a.index);
                assert_eq!((a.steps, a.accepted, a.energy_guard), (b.steps, b.accepted, b.energy_guard));
                compared += 1;
            }
        }
        eprintln!(
            "{name} f32: cooperative {close} of {} within 1e-3, host re-runs {} (one invocation: {}), \
             {compared} bit for bit the one invocation's",
            options.samples,
            coop_reruns.len(),
            single_reruns.len()
        );
        if single_reruns.len() < options.samples {
            assert!(compared > 0, "{name}: the host re-ran every cooperative sample");
        }
        assert!(100 * close >= 99 * options.samples, "{name}: {close} of {} within 1e-3", options.samples);
    }
}
