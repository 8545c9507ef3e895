//! Algorithm 2 throughput on the GPU (wall time: upload, kernels, read-back),
//! per paper scene, rule and precision, next to `sampling.rs`'s CPU figures.
//! Without an adapter the group is empty and a notice is printed. The kernel
//! time alone (timestamp queries) is in `impactset bench`'s `kernel ms`.
//!
//! `batch_gpu` times a batch of compass-gait states (each its own `v⁻` and
//! seed, few samples each) packed into shared dispatches (`GpuPlan::packed`,
//! as `reach` runs them) next to one plan per state, in the same run.
//!
//! With `GPU_SWEEP=<samples>` in the environment the binary instead prints
//! wall and kernel milliseconds of `GpuPlan` runs for every combination of
//! batch size, workgroup size, tableau layout and steps per dispatch
//! (compass-gait, rocking-block and box-wall, random-lemke, both
//! precisions): the measurements behind the GPU defaults. With
//! `GPU_PROBE=<samples>` it times one scene in f32 under one change at a
//! time (rule, cap law, equilibration, workgroup size, layout).

use criterion::{Criterion, Throughput, criterion_group};
use impactset::gpu::{GpuContext, GpuPlan, GpuRunOptions, TableauLayout, sample_set_gpu};
use impactset::{ImpactProblem, SamplerOptions, Selection, scene};

fn algorithm_2_gpu(c: &mut Criterion) {
    let ctx = match GpuContext::new() {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("notice: no GPU ({e}); GPU benchmarks skipped");
            return;
        }
    };
    eprintln!("GPU: {}", ctx.describe());
    let mut group = c.benchmark_group("algorithm_2_gpu");
    group.sample_size(10);
    // lavapipe runs ~10⁴ samples/s; a real GPU gets a set worth its launch.
    let samples = if ctx.is_software() { 1 << 12 } else { 1 << 20 };
    group.throughput(Throughput::Elements(samples as u64));
    for id in ["compass-gait", "rocking-block", "box-wall", "ramone", "disk-stack"] {
        let s = scene::builtin(id).unwrap();
        for selection in [Selection::Lemke, Selection::RandomLemke] {
            for precision in ctx.precisions() {
                let o = SamplerOptions {
                    samples,
                    step_size: Some(s.step_size),
                    steps: Some(s.steps),
                    selection,
                    ..Default::default()
                };
                // Refusals (a problem beyond the shaders' limits) are skipped with their reason.
                if let Err(e) = sample_set_gpu(&ctx, &s.problem, &o, precision) {
                    eprintln!("notice: {id}/{selection}/{precision}: {e}");
                    continue;
                }
                group.bench_function(format!("{id}/{selection}/{precision}"), |bench| {
                    bench.iter(|| sample_set_gpu(&ctx, &s.problem, &o, precision).unwrap().samples.len())
                });
            }
        }
    }
    group.finish();
}

/// Median wall and kernel milliseconds (plan built each run, 1 warm-up, 5 runs).
fn time_runs(
    ctx: &GpuContext,
    id: &str,
    samples: usize,
    precision: impactset::gpu::Precision,
    run: &GpuRunOptions,
) -> Option<(f64, f64, usize)> {
    time_runs_with(ctx, id, samples, precision, run, &|o| o)
}

/// [`time_runs`] with the sampler's options changed by `with`.
fn time_runs_with(
    ctx: &GpuContext,
    id: &str,
    samples: usize,
    precision: impactset::gpu::Precision,
    run: &GpuRunOptions,
    with: &Change,
) -> Option<(f64, f64, usize)> {
    let s = scene::builtin(id).unwrap();
    let o = with(SamplerOptions {
        samples,
        step_size: Some(s.step_size),
        steps: Some(s.steps),
        selection: Selection::RandomLemke,
        ..Default::default()
    });
    let once = || -> Option<(f64, usize)> {
        let start = std::time::Instant::now();
        let mut plan = GpuPlan::new(ctx, &s.problem, &o, precision, run).ok()?;
        let flat = plan.sample_range_flat(0, samples, &|_| {}, &|| false).ok()??;
        let accepted = flat.accepted.iter().filter(|&&a| a).count();
        Some((start.elapsed().as_secs_f64() * 1e3, accepted))
    };
    once()?;
    ctx.take_kernel_time();
    let (mut walls, mut kernels, mut accepted) = (Vec::new(), Vec::new(), 0);
    for _ in 0..5 {
        let (w, a) = once()?;
        walls.push(w);
        accepted = a;
        kernels.push(ctx.take_kernel_time().unwrap_or(0.0) * 1e3);
    }
    walls.sort_by(f64::total_cmp);
    kernels.sort_by(f64::total_cmp);
    Some((walls[2], kernels[2], accepted))
}

fn sweep(samples: usize) {
    let ctx = GpuContext::new().expect("a GPU adapter");
    println!("GPU: {}  samples: {samples}", ctx.describe());
    println!("scene prec batch wg layout steps/disp wall_ms kernel_ms accepted");
    for precision in ctx.precisions() {
        for id in ["compass-gait", "rocking-block", "box-wall"] {
            for batch in [1usize << 16, 1 << 18, 1 << 20] {
                for wg in [32u32, 64, 128, 256] {
                    for layout in TableauLayout::ALL {
                        for steps in [None, Some(1)] {
                            if steps.is_some() && (batch != 1 << 18 || wg != 64) {
                                continue;
                            }
                            if (wg != 64 || layout != TableauLayout::Interleaved) && id != "compass-gait" {
                                continue;
                            }
                            let run = GpuRunOptions {
                                batch_size: Some(batch),
                                workgroup_size: Some(wg),
                                tableau_layout: Some(layout),
                                steps_per_dispatch: steps,
                                ..Default::default()
                            };
                            match time_runs(&ctx, id, samples, precision, &run) {
                                Some((w, k, a)) => println!(
                                    "{id} {precision} {batch} {wg} {layout:?} {} {w:.2} {k:.2} {a}",
                                    steps.map_or("K".into(), |s| s.to_string())
                                ),
                                None => println!("{id} {precision} {batch} {wg} {layout:?} failed"),
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A change of the sampler's options.
type Change = dyn Fn(SamplerOptions) -> SamplerOptions;

/// With `GPU_PROBE=<samples>`: one scene in f32 (`GPU_PROBE_SCENE`, default
/// compass-gait) under one change at a time — rule, cap law, equilibration,
/// workgroup size, layout — against the same scene in f64 and the rocking
/// block: where an f32 kernel's time goes when one scene is slower than
/// the others (docs/performance.md, GPU).
fn probe(samples: usize) {
    use impactset::gpu::Precision;
    use impactset::sampling::Schedule;
    let ctx = GpuContext::new().expect("a GPU adapter");
    let id = std::env::var("GPU_PROBE_SCENE").unwrap_or_else(|_| "compass-gait".into());
    println!("GPU: {}  samples: {samples}", ctx.describe());
    println!("case wall_ms kernel_ms accepted");
    let plain = GpuRunOptions::default();
    let same = |o: SamplerOptions| o;
    let lemke = |o: SamplerOptions| SamplerOptions { selection: Selection::Lemke, ..o };
    let uniform = |o: SamplerOptions| SamplerOptions { schedule: Schedule::Uniform, ..o };
    let extreme = |o: SamplerOptions| SamplerOptions { schedule: Schedule::Extreme, ..o };
    let no_equilibration = GpuRunOptions { equilibrate: false, ..Default::default() };
    let cases: Vec<(String, &str, Precision, GpuRunOptions, &Change)> = vec![
        (format!("{id} f32"), &id, Precision::F32, plain, &same),
        (format!("{id} f64"), &id, Precision::F64, plain, &same),
        ("rocking-block f32".into(), "rocking-block", Precision::F32, plain, &same),
        (format!("{id} f32 lemke"), &id, Precision::F32, plain, &lemke),
        (format!("{id} f32 uniform"), &id, Precision::F32, plain, &uniform),
        (format!("{id} f32 extreme"), &id, Precision::F32, plain, &extreme),
        (format!("{id} f32 no equilibration"), &id, Precision::F32, no_equilibration, &same),
        (
            format!("{id} f32 wg 32"),
            &id,
            Precision::F32,
            GpuRunOptions { workgroup_size: Some(32), ..Default::default() },
            &same,
        ),
        (
            format!("{id} f32 wg 256"),
            &id,
            Precision::F32,
            GpuRunOptions { workgroup_size: Some(256), ..Default::default() },
            &same,
        ),
        (
            format!("{id} f32 contiguous"),
            &id,
            Precision::F32,
            GpuRunOptions { tableau_layout: Some(TableauLayout::Contiguous), ..Default::default() },
            &same,
        ),
    ];
    for (name, scene_id, precision, run, with) in cases {
        if precision == Precision::F64 && !ctx.supports_f64() {
            continue;
        }
        match time_runs_with(&ctx, scene_id, samples, precision, &run, with) {
            Some((w, k, a)) => println!("{name}: {w:.2} {k:.2} {a}"),
            None => println!("{name}: failed"),
        }
    }
}

/// A batch of states: packed into shared dispatches vs one plan per state.
fn batch_gpu(c: &mut Criterion) {
    let Ok(ctx) = GpuContext::new() else { return };
    let cpu_adapter = ctx.is_software();
    // lavapipe: 256 states × 64 samples; a real GPU: 10,000 × 256.
    let (states, samples) = if cpu_adapter { (256, 64) } else { (10_000, 256) };
    let s = scene::builtin("compass-gait").unwrap();
    let problems: Vec<ImpactProblem> = (0..states)
        .map(|k| {
            let v = s.problem.velocity() * (0.6 + 0.8 * k as f64 / states as f64);
            ImpactProblem::new(s.problem.mass().clone(), v, s.problem.contacts().to_vec()).unwrap()
        })
        .collect();
    let options: Vec<SamplerOptions> = (0..states)
        .map(|k| SamplerOptions {
            seed: impactset::reach::state_seed(0, k as u64),
            step_size: Some(s.step_size),
            steps: Some(s.steps),
            selection: Selection::RandomLemke,
            ..Default::default()
        })
        .collect();
    let pairs: Vec<(&ImpactProblem, &SamplerOptions)> = problems.iter().zip(&options).collect();
    let run = GpuRunOptions::default();
    let mut group = c.benchmark_group("batch_gpu");
    group.sample_size(10);
    group.throughput(Throughput::Elements((states * samples) as u64));
    for precision in ctx.precisions() {
        group.bench_function(format!("packed/{states}x{samples}/{precision}"), |bench| {
            bench.iter(|| {
                let mut plan = GpuPlan::packed(&ctx, &pairs, precision, &run).unwrap();
                plan.sample_states(0, samples, &|_| {}, &|| false).unwrap().unwrap().len()
            })
        });
        group.bench_function(format!("plan_per_state/{states}x{samples}/{precision}"), |bench| {
            bench.iter(|| {
                pairs
                    .iter()
                    .map(|(problem, o)| {
                        let mut plan = GpuPlan::new(&ctx, problem, o, precision, &run).unwrap();
                        plan.sample_range_flat(0, samples, &|_| {}, &|| false).unwrap().unwrap().len()
                    })
                    .sum::<usize>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, algorithm_2_gpu, batch_gpu);

fn main() {
    if let Some(samples) = std::env::var("GPU_SWEEP").ok().and_then(|s| s.parse().ok()) {
        sweep(samples);
        return;
    }
    if let Some(samples) = std::env::var("GPU_PROBE").ok().and_then(|s| s.parse().ok()) {
        probe(samples);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
