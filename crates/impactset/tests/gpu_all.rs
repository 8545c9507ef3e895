//! The selection rule `all` on the GPU (`shaders/enumerate.wgsl`) against the
//! CPU's exact enumerator, sample by sample and as sets, on the built-in
//! scenes whose steps have few enough mode tuples (up to three spatial
//! contacts, five planar ones); its refusal of larger problems; and
//! its independence of how a run is split into dispatches.

mod common;

use impactset::gpu::{
    GpuContext, GpuError, GpuPlan, GpuRunOptions, MAX_GPU_ALL_TUPLES, Precision, TableauLayout, all_tuples,
    sample_set_gpu, sample_set_gpu_with,
};
use impactset::{ImpactProblem, SampleSet, SamplerOptions, Selection, sample_set, scene};
use nalgebra::DVector;

/// `all` on the built-in scene `id` with its step size and cap.
fn scene_options(id: &str, samples: usize) -> (ImpactProblem, SamplerOptions) {
    let scene = scene::builtin(id).unwrap_or_else(|| panic!("no scene {id}"));
    let options = SamplerOptions {
        samples,
        step_size: Some(scene.step_size),
        steps: Some(scene.steps),
        seed: 3,
        selection: Selection::All,
        ..Default::default()
    };
    (scene.problem, options)
}

/// `‖a − b‖_M / ‖v⁻‖_M`.
fn relative_distance(problem: &ImpactProblem, a: &[f64], b: &[f64]) -> f64 {
    let diff = DVector::from_column_slice(a) - DVector::from_column_slice(b);
    problem.energy_norm(&diff) / problem.energy_norm(problem.velocity())
}

/// Fraction of samples whose v⁺ agree within `tol` (relative energy norm).
fn agreement(problem: &ImpactProblem, cpu: &SampleSet, gpu: &SampleSet, tol: f64) -> f64 {
    assert_eq!(cpu.samples.len(), gpu.samples.len());
    let close = cpu
        .samples
        .iter()
        .zip(&gpu.samples)
        .filter(|(c, g)| {
            assert_eq!(c.index, g.index);
            relative_distance(problem, &c.v_plus, &g.v_plus) <= tol
        })
        .count();
    close as f64 / cpu.samples.len() as f64
}

/// Symmetric Hausdorff distance between the accepted outcomes (relative
/// energy norm), by brute force.
fn hausdorff(problem: &ImpactProblem, a: &SampleSet, b: &SampleSet) -> f64 {
    let directed = |from: &SampleSet, to: &SampleSet| {
        from.accepted()
            .map(|x| {
                to.accepted().map(|y| relative_distance(problem, &x.v_plus, &y.v_plus)).fold(f64::INFINITY, f64::min)
            })
            .fold(0.0, f64::max)
    };
    directed(a, b).max(directed(b, a))
}

/// Per-sample and set agreement of `all` on `id`: in f64 99.9% within 1e-9
/// and Hausdorff below 1e-6; in f32 (where `f32` is true) 99% within 1e-3
/// and Hausdorff below 1e-2.
fn check_scene(ctx: &GpuContext, id: &str, samples: usize, f32: bool) {
    let (problem, options) = scene_options(id, samples);
    let cpu = sample_set(&problem, &options);
    assert!(cpu.accepted_count() > samples / 2, "{id}: the CPU accepts {}", cpu.accepted_count());
    let mut precisions = vec![Precision::F64];
    if f32 {
        precisions.push(Precision::F32);
    }
    for precision in precisions {
        if !ctx.precisions().contains(&precision) {
            eprintln!("notice: {id}: no {precision} on this adapter");
            continue;
        }
        let started = std::time::Instant::now();
        let gpu = sample_set_gpu(ctx, &problem, &options, precision).unwrap();
        let (tol, floor, set_tol) = match precision {
            Precision::F64 => (1e-9, 0.999, 1e-6),
            Precision::F32 => (1e-3, 0.99, 1e-2),
        };
        let fraction = agreement(&problem, &cpu, &gpu, tol);
        let distance = hausdorff(&problem, &cpu, &gpu);
        eprintln!(
            "{id} all {precision}: {fraction:.4} within {tol:e}, Hausdorff {distance:.2e}, accepted cpu {} gpu {}, {:.1}s",
            cpu.accepted_count(),
            gpu.accepted_count(),
            started.elapsed().as_secs_f64()
        );
        assert!(fraction >= floor, "{id} {precision}: {fraction}");
        assert!(distance < set_tol, "{id} {precision}: Hausdorff {distance}");
        if precision == Precision::F64 {
            // Steps where no enumerated solution passed the violation filter
            // and Lemke ran (RAMone: about one per sample) are the same.
            let fallback_mismatches =
                cpu.samples.iter().zip(&gpu.samples).filter(|(c, g)| c.fallback_steps != g.fallback_steps).count();
            eprintln!("{id}: Lemke fallback steps cpu {} gpu {}", cpu.fallback_steps(), gpu.fallback_steps());
            assert!(fallback_mismatches * 1000 <= samples, "{id}: {fallback_mismatches} fallback mismatches");
            // Every accepted step dissipates: no accepted sample gains energy.
            assert!(gpu.accepted().all(|s| s.energy_after <= s.energy_before * (1.0 + 1e-9)), "{id}");
        }
    }
}

#[test]
fn gpu_all_matches_cpu_on_planar_scenes() {
    let Some(ctx) = common::gpu::gpu() else { return };
    check_scene(&ctx, "rocking-block", 512, true);
    check_scene(&ctx, "compass-gait", 1024, true);
    check_scene(&ctx, "box-wall", 512, true);
    check_scene(&ctx, "slope-point-slide", 256, true);
    check_scene(&ctx, "slope-point-stick", 256, true);
    // RAMone's friction of 1e5: f32 runs it on the equilibrated step LCP.
    check_scene(&ctx, "ramone", 512, true);
}

#[test]
fn gpu_all_matches_cpu_on_cube_edge() {
    let Some(ctx) = common::gpu::gpu() else { return };
    // Two spatial contacts, d = 8: 35² = 1225 mode tuples per step.
    check_scene(&ctx, "cube-edge", 256, true);
}

#[test]
fn gpu_all_reaches_more_than_one_branch_on_the_compass_gait() {
    // The compass gait's steps have several solutions (docs/model.md §5b): `all`
    // must pick different ones, so its set is wider than Lemke's single path.
    let Some(ctx) = common::gpu::gpu() else { return };
    let (problem, options) = scene_options("compass-gait", 256);
    let precision = if ctx.supports_f64() { Precision::F64 } else { Precision::F32 };
    let all = sample_set_gpu(&ctx, &problem, &options, precision).unwrap();
    let lemke =
        sample_set_gpu(&ctx, &problem, &SamplerOptions { selection: Selection::Lemke, ..options }, precision).unwrap();
    let spread = |set: &SampleSet| {
        let first = set.accepted().next().expect("an accepted sample");
        set.accepted().map(|s| relative_distance(&problem, &s.v_plus, &first.v_plus)).fold(0.0, f64::max)
    };
    let directed = all
        .accepted()
        .map(|x| {
            lemke.accepted().map(|y| relative_distance(&problem, &x.v_plus, &y.v_plus)).fold(f64::INFINITY, f64::min)
        })
        .fold(0.0, f64::max);
    eprintln!("compass gait: spread all {:.3} lemke {:.3}; all ⊄ lemke by {directed:.3}", spread(&all), spread(&lemke));
    assert!(directed > 0.05, "`all` found nothing Lemke misses ({directed})");
}

/// A step with more distinct solutions than the shader keeps is not an
/// error: the host runs that sample again on the CPU. With one solution
/// kept, the compass gait's samples with a step of two or more (the CPU's
/// `choices`) go to the host, exactly those in f64, and every sample is
/// the CPU's.
#[test]
fn gpu_all_runs_a_step_of_more_solutions_than_it_keeps_on_the_host() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let (problem, options) = scene_options("compass-gait", 128);
    let precision = if ctx.supports_f64() { Precision::F64 } else { Precision::F32 };
    let run = GpuRunOptions { kept_solutions: Some(1), ..Default::default() };
    let mut plan = GpuPlan::new(&ctx, &problem, &options, precision, &run).expect("a plan");
    // A plan of 128 samples allocates the scratch of 128, not of a default
    // batch of 2¹⁶ (lavapipe) or 2¹⁸ (GPUs).
    assert_eq!(plan.batch_size(), options.samples);
    let gpu = plan.sample_range(0, options.samples, &|_| {}).expect("GPU run");
    let branching = impactset::sampling::first_trajectories(&problem, &options, options.samples)
        .iter()
        .filter(|t| t.steps.iter().any(|s| s.choices > 1))
        .count();
    eprintln!(
        "compass gait, one solution kept: host re-runs {} of {}, {branching} samples branch",
        plan.host_reruns(),
        options.samples
    );
    assert!(branching > 0, "no step with two solutions");
    if precision == Precision::F64 {
        assert_eq!(plan.host_reruns() as usize, branching);
    } else {
        assert!(plan.host_reruns() as usize >= branching);
    }
    let tol = if precision == Precision::F64 { 1e-9 } else { 1e-3 };
    assert_eq!(agreement(&problem, &sample_set(&problem, &options), &gpu, tol), 1.0);
}

#[test]
fn gpu_all_refuses_problems_with_too_many_tuples() {
    let Some(ctx) = common::gpu::gpu() else { return };
    // Four spatial contacts with eight directions: 35⁴ tuples a step.
    let (cube, options) = scene_options("cube-flat", 4);
    // Seven frictionless contacts: 3⁷ = 2187 tuples, but more contacts than
    // the shader's arrays hold.
    let seven = frictionless_from(common::random_problem(6, 8, 7, false, 1.0), 0, None);
    for (name, problem, tuples) in [("cube-flat", cube, 35u64.pow(4)), ("seven frictionless", seven, 3u64.pow(7))] {
        let m = problem.contacts().len();
        assert_eq!(all_tuples(problem.operators()), tuples, "{name}");
        let err = sample_set_gpu(&ctx, &problem, &options, Precision::F32).unwrap_err();
        assert_eq!(err, GpuError::TooLargeForAll { m, tuples }, "{name}");
        let message = err.to_string();
        assert!(message.contains(&format!("{m} contacts, {tuples} mode tuples")), "{message}");
        assert!(message.contains(&MAX_GPU_ALL_TUPLES.to_string()), "{message}");
    }
}

/// Beyond three contacts where a step's tuples are few (at most
/// `MAX_GPU_ALL_TUPLES`): the five planar contacts of the disk stack
/// (`7⁵ = 16 807` tuples a step), four planar contacts (`7⁴ = 2401`) and
/// six frictionless ones (`3⁶ = 729`) and four spatial ones (two
/// frictionless), against the CPU's exact enumerator;
/// the random problems in both precisions the adapter has (the wide
/// module's f32 included).
#[test]
fn gpu_all_matches_cpu_beyond_three_contacts() {
    let Some(ctx) = common::gpu::gpu() else { return };
    check_scene(&ctx, "disk-stack", 48, false);
    let cases = [
        ("four planar contacts", common::random_problem(13, 6, 4, false, 1.0), 64),
        ("six frictionless contacts", frictionless_from(common::random_problem(12, 8, 6, false, 1.0), 0, None), 64),
        // Spatial (three coordinates a contact, twelve in all): two contacts
        // with d = 4 and two frictionless ones, 19² · 3² = 3249 tuples.
        (
            "four spatial contacts, two frictionless",
            frictionless_from(common::random_problem(23, 6, 4, true, 1.0), 2, Some(4)),
            32,
        ),
    ];
    for (name, problem, samples) in cases {
        let options =
            SamplerOptions { samples, steps: Some(32), seed: 5, selection: Selection::All, ..Default::default() };
        let cpu = sample_set(&problem, &options);
        assert!(cpu.accepted_count() > samples / 2, "{name}: the CPU accepts {}", cpu.accepted_count());
        for precision in ctx.precisions() {
            let tol = if precision == Precision::F64 { 1e-9 } else { 1e-3 };
            let gpu = sample_set_gpu(&ctx, &problem, &options, precision).unwrap();
            let fraction = agreement(&problem, &cpu, &gpu, tol);
            eprintln!(
                "{name} {precision}: {fraction:.4} within {tol:e}, accepted cpu {} gpu {}, mean steps {:.2}",
                cpu.accepted_count(),
                gpu.accepted_count(),
                cpu.mean_steps()
            );
            assert!(fraction >= 0.99, "{name} {precision}: {fraction}");
        }
    }
}

/// `problem` with its contacts from `first` on frictionless and
/// `directions` friction directions (`None`: the default).
fn frictionless_from(problem: ImpactProblem, first: usize, directions: Option<usize>) -> ImpactProblem {
    common::with_contacts(&problem, directions, |i, c| impactset::Contact {
        friction: if i >= first { 0.0 } else { c.friction },
        ..c.clone()
    })
}

#[test]
fn gpu_all_does_not_depend_on_batching_or_dispatch_splits() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let precision = if ctx.supports_f64() { Precision::F64 } else { Precision::F32 };
    // Tuple budgets per dispatch: 49 and 1225 tuples per step.
    for (id, samples, tuples) in [("compass-gait", 200, [1, 7]), ("cube-edge", 48, [13, 60])] {
        let (problem, options) = scene_options(id, samples);
        let whole = sample_set_gpu(&ctx, &problem, &options, precision).unwrap();
        let splits = [
            GpuRunOptions { batch_size: Some(16), ..Default::default() },
            GpuRunOptions {
                batch_size: Some(100),
                steps_per_dispatch: Some(2),
                tuples_per_dispatch: Some(tuples[1]),
                tableau_layout: Some(TableauLayout::Interleaved),
                ..Default::default()
            },
            GpuRunOptions { tuples_per_dispatch: Some(tuples[0]), steps_per_dispatch: Some(1), ..Default::default() },
        ];
        for run in splits {
            let split = sample_set_gpu_with(&ctx, &problem, &options, precision, &run, &|_| {}).unwrap();
            assert_eq!(whole, split, "{id}: {run:?}");
        }
        // Shards: the first third and the rest are the whole run.
        let third = samples / 3;
        let a =
            sample_set_gpu(&ctx, &problem, &SamplerOptions { samples: third, ..options.clone() }, precision).unwrap();
        let b = sample_set_gpu(
            &ctx,
            &problem,
            &SamplerOptions { samples: samples - third, first_index: third as u64, ..options.clone() },
            precision,
        )
        .unwrap();
        assert_eq!([a.samples, b.samples].concat(), whole.samples, "{id}: shards");
    }
}

/// Random three-contact problems (no built-in scene has three contacts):
/// planar (7³ = 343 tuples per step) and spatial with d = 4 (19³ = 6859).
#[test]
fn gpu_all_matches_cpu_with_three_contacts() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let precision = if ctx.supports_f64() { Precision::F64 } else { Precision::F32 };
    let tol = if precision == Precision::F64 { 1e-9 } else { 1e-3 };
    let cases = [
        ("planar n=5", common::random_problem(1, 5, 3, false, 1.0), 128, 6),
        ("planar n=4", common::random_problem(2, 4, 3, false, 2.0), 128, 6),
        ("spatial n=6 d=4", with_directions(common::random_problem(3, 6, 3, true, 1.0), 4), 16, 12),
        ("planar n=6, 2 bilateral rows", constrained(common::random_problem(4, 6, 3, false, 1.0)), 128, 6),
    ];
    for (name, problem, samples, steps) in cases {
        let options =
            SamplerOptions { samples, steps: Some(steps), seed: 5, selection: Selection::All, ..Default::default() };
        let cpu = sample_set(&problem, &options);
        let started = std::time::Instant::now();
        let gpu = sample_set_gpu(&ctx, &problem, &options, precision).unwrap();
        let fraction = agreement(&problem, &cpu, &gpu, tol);
        let distance = hausdorff(&problem, &cpu, &gpu);
        eprintln!(
            "{name}: {fraction:.4} within {tol:e}, Hausdorff {distance:.2e}, accepted cpu {} gpu {}, mean steps {:.2}, {:.1}s",
            cpu.accepted_count(),
            gpu.accepted_count(),
            cpu.mean_steps(),
            started.elapsed().as_secs_f64()
        );
        assert!(fraction >= 0.99, "{name}: {fraction}");
    }
}

/// `problem` (n = 6) with two bilateral constraints (the GPU gets `M̃⁻¹`
/// from the host like every other per-problem constant).
fn constrained(problem: ImpactProblem) -> ImpactProblem {
    let rows = nalgebra::dmatrix![1.0, 0.0, -1.0, 0.0, 0.0, 0.0; 0.0, 1.0, 0.0, 0.0, -1.0, 0.5];
    problem.with_bilateral(rows).unwrap()
}

fn with_directions(problem: ImpactProblem, d: usize) -> ImpactProblem {
    ImpactProblem::with_friction_directions(
        problem.mass().clone(),
        problem.velocity().clone(),
        problem.contacts().to_vec(),
        Some(d),
    )
    .unwrap()
}

/// Three spatial contacts with the default d = 8: 35³ = 42 875 tuples per
/// step before the root filter (docs/gpu-lavapipe.md).
#[test]
fn gpu_all_three_spatial_contacts_d8() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let precision = if ctx.supports_f64() { Precision::F64 } else { Precision::F32 };
    let problem = common::random_problem(3, 6, 3, true, 1.0);
    let options =
        SamplerOptions { samples: 8, steps: Some(12), seed: 5, selection: Selection::All, ..Default::default() };
    let started = std::time::Instant::now();
    let cpu = sample_set(&problem, &options);
    let cpu_s = started.elapsed().as_secs_f64();
    let started = std::time::Instant::now();
    let gpu = sample_set_gpu(&ctx, &problem, &options, precision).unwrap();
    let gpu_s = started.elapsed().as_secs_f64();
    let fraction = agreement(&problem, &cpu, &gpu, 1e-9);
    eprintln!(
        "spatial n=6 d=8: {fraction:.4} within 1e-9, {:.2} steps per sample, cpu {cpu_s:.2}s gpu {gpu_s:.1}s",
        gpu.mean_steps()
    );
    assert!(fraction >= 0.99);
}
