//! How the GPU sampler maps samples to threads, measured side by side
//! (docs/gpu.md, "Divergence" and "Kernels"): for the device script
//! (`scripts/device-bench.sh`), which runs each part under its own timeout.
//!
//!     cargo run --release --features gpu --example gpu_mapping -- persistent [--smoke]
//!     cargo run --release --features gpu --example gpu_mapping -- crossover [--smoke]
//!
//! `persistent`: f32 `random-lemke` on the compass gait (2²⁰ samples) and
//! cube-flat (2¹⁶), one invocation per sample against persistent workers
//! (`GpuRunOptions::workers`) of 2¹³ to 2¹⁷ invocations.
//! `crossover`: f32 `random-lemke` on random spatial problems of 2 to 8
//! contacts with 8 friction directions (step LCPs of N = 22 to 88 rows) and
//! on cube-flat (N = 40), one invocation per sample against one workgroup
//! per sample (`GpuRunOptions::lemke_kernel`), for the size rule
//! `COOP_MIN_LCP_SIZE`.
//!
//! Each row: after a warm-up run (the module's compilation, the plan), the
//! fastest of `REPS` runs: its wall time (plan set-up excluded, read-back
//! included) and kernel time (timestamp queries; `–` without them), and
//! whether its outputs are bit for bit the first row's of its problem
//! (they must be: a sample's outcome depends on its stream only), and the
//! samples of the last run the host ran again on the CPU, with those a
//! driver's loop limiter cut in brackets (f32's unaccepted samples are the
//! CPU's, so on lavapipe, whose limiter cuts a different set of samples
//! under each mapping, a row with cut samples can differ). Rows are
//! printed as they are measured, so a run cut short keeps them. `--smoke`:
//! tiny sizes, to check the example on a software adapter.

use std::hash::{Hash, Hasher};
use std::io::Write;
use std::time::Instant;

use impactset::gpu::{GpuContext, GpuPlan, GpuRunOptions, LemkeKernel, Precision};
use impactset::sampling::FlatSamples;
use impactset::scene::random::coupled_problem;
use impactset::{ImpactProblem, SamplerOptions, Selection};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Timed runs per row (the fastest is shown).
const REPS: usize = 2;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let smoke = args.iter().any(|a| a == "--smoke");
    let part = args.iter().find(|a| !a.starts_with("--")).map(String::as_str).unwrap_or("persistent");
    let ctx = GpuContext::new()?;
    println!("{}; f32 random-lemke", ctx.describe());
    println!(
        "| part | problem | N | samples | mapping | wall ms | kernel ms | samples/s | same outputs | host re-runs (cut) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    match part {
        "persistent" => persistent(&ctx, smoke),
        "crossover" => crossover(&ctx, smoke),
        other => Err(format!("unknown part {other}: persistent or crossover").into()),
    }
}

/// One invocation per sample against persistent workers.
fn persistent(ctx: &GpuContext, smoke: bool) -> Result<(), Box<dyn std::error::Error>> {
    let (small, large) = if smoke { (1 << 10, 1 << 8) } else { (1 << 20, 1 << 16) };
    let workers: &[u32] = if smoke { &[64, 256] } else { &[1 << 13, 1 << 14, 1 << 15, 1 << 16, 1 << 17] };
    for (id, samples) in [("compass-gait", small), ("cube-flat", large)] {
        let (problem, options) = scene(id, samples);
        let mut reference = None;
        let mut runs = vec![("one invocation a sample".to_string(), GpuRunOptions::default())];
        runs.extend(
            workers.iter().map(|&w| {
                (format!("{w} persistent workers"), GpuRunOptions { workers: Some(w), ..Default::default() })
            }),
        );
        for (what, run) in runs {
            row(ctx, "persistent", id, &problem, &options, &what, &run, &mut reference)?;
        }
    }
    Ok(())
}

/// One invocation per sample against one workgroup per sample, by step LCP size.
fn crossover(ctx: &GpuContext, smoke: bool) -> Result<(), Box<dyn std::error::Error>> {
    let samples = if smoke { 16 } else { 1 << 14 };
    let mut cases: Vec<(String, ImpactProblem, SamplerOptions)> = Vec::new();
    for m in [2, 3, 4, 5, 6, 8] {
        let problem =
            coupled_problem(&mut ChaCha8Rng::seed_from_u64(70 + m as u64), 30, m, Some(8), f64::INFINITY, 0.3..0.8);
        let options =
            SamplerOptions { samples, steps: Some(10), selection: Selection::RandomLemke, ..Default::default() };
        cases.push((format!("random, {m} spatial contacts"), problem, options));
        if m == 4 {
            let (problem, options) = scene("cube-flat", samples);
            cases.push(("cube-flat".into(), problem, options));
        }
    }
    for (label, problem, options) in &cases {
        let mut reference = None;
        for kernel in [LemkeKernel::PerSample, LemkeKernel::Cooperative] {
            let run = GpuRunOptions { lemke_kernel: Some(kernel), ..Default::default() };
            let what = format!("{kernel:?}");
            if let Err(e) = row(ctx, "crossover", label, problem, options, &what, &run, &mut reference) {
                println!("| crossover | {label} | {} | {samples} | {what} | refused: {e} | | | | |", size(problem));
            }
        }
    }
    Ok(())
}

/// A built-in scene at its step size and cap, `samples` samples of f32 `random-lemke`.
fn scene(id: &str, samples: usize) -> (ImpactProblem, SamplerOptions) {
    let scene = impactset::scene::builtin(id).expect("a built-in scene");
    let options = SamplerOptions {
        samples,
        step_size: Some(scene.step_size),
        steps: Some(scene.steps),
        selection: Selection::RandomLemke,
        ..Default::default()
    };
    (scene.problem, options)
}

fn size(problem: &ImpactProblem) -> usize {
    problem.operators().step_size_n()
}

/// Measures one row and prints it; `reference`: the hash of the first
/// row's outputs of this problem (set by the first row).
#[allow(clippy::too_many_arguments)]
fn row(
    ctx: &GpuContext,
    part: &str,
    label: &str,
    problem: &ImpactProblem,
    options: &SamplerOptions,
    what: &str,
    run: &GpuRunOptions,
    reference: &mut Option<u64>,
) -> Result<(), Box<dyn std::error::Error>> {
    let samples = options.samples;
    let mut plan = GpuPlan::new(ctx, problem, options, Precision::F32, run)?;
    let warm = plan.sample_range_flat(0, samples.min(plan.batch_size()), &|_| {}, &|| false)?;
    drop(warm);
    ctx.take_kernel_time();
    let (mut wall, mut kernel, mut digest) = (f64::INFINITY, None::<f64>, 0);
    let (mut reruns, mut cut) = (0, 0);
    for _ in 0..REPS {
        let before = (plan.host_reruns(), plan.loop_limit_reruns());
        let started = Instant::now();
        let flat = plan.sample_range_flat(0, samples, &|_| {}, &|| false)?.expect("not cancelled");
        wall = wall.min(started.elapsed().as_secs_f64());
        if let Some(k) = ctx.take_kernel_time() {
            kernel = Some(kernel.map_or(k, |best| best.min(k)));
        }
        digest = outputs_hash(&flat);
        (reruns, cut) = (plan.host_reruns() - before.0, plan.loop_limit_reruns() - before.1);
    }
    let same = match reference {
        None => {
            *reference = Some(digest);
            "(reference)"
        }
        Some(r) if *r == digest => "yes",
        Some(_) => "NO",
    };
    println!(
        "| {part} | {label} | {} | {samples} | {what} | {:.1} | {} | {:.0} | {same} | {reruns} ({cut}) |",
        size(problem),
        wall * 1e3,
        kernel.map_or("–".into(), |k| format!("{:.1}", k * 1e3)),
        samples as f64 / wall,
    );
    std::io::stdout().flush()?;
    Ok(())
}

/// A hash of every output of a run, floats by their bits.
fn outputs_hash(flat: &FlatSamples) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for x in flat.v_plus.iter().chain(&flat.max_residual).chain(&flat.energy_after) {
        x.to_bits().hash(&mut h);
    }
    flat.steps.hash(&mut h);
    flat.terminated.hash(&mut h);
    flat.accepted.hash(&mut h);
    h.finish()
}
