//! `impactset bench`: throughput per scene and backend, Table-3 style.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use serde::Serialize;

use super::{InputError, options, options::sampler_options, source};
use impactset::gpu::{GpuContext, Precision};
use impactset::io::write_json;
use impactset::run::{self, Backend, RunControl};
use impactset::{SamplerOptions, Schedule, Selection, scene};

/// Arguments of `impactset bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Scenes or problem files [default: the paper's five scenes].
    scenes: Vec<String>,
    /// Samples per run.
    #[arg(long, short = 'n', default_value_t = 65_536)]
    samples: usize,
    /// Backends, comma-separated: `cpu1` (one thread), `cpu` (all threads), `gpu`
    /// [default: cpu1,cpu, and gpu when an adapter exists].
    #[arg(long, value_delimiter = ',')]
    backends: Vec<String>,
    /// Selection rule (the GPU runs lemke and random-lemke, and all for at most 42 875 mode tuples a step;
    /// with restitution, for fewer than 100, and twinned steps within the same limits).
    #[arg(long, value_parser = options::choice_parser::<Selection>(), default_value = "random-lemke")]
    selection: Selection,
    /// The law of each step's impulse caps [default: the problem's, else mixed] (docs/model.md §5c).
    #[arg(long, value_parser = options::choice_parser::<Schedule>())]
    schedule: Option<Schedule>,
    /// GPU scalar type [default: f64 where the adapter has it, else f32].
    #[arg(long, value_parser = options::choice_parser::<Precision>())]
    precision: Option<Precision>,
    /// Timed repetitions per row (after one warm-up run); the table shows medians.
    #[arg(long, default_value_t = 3)]
    repetitions: usize,
    /// Write the rows as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
}

/// One row: medians over the repetitions.
#[derive(Clone, Debug, Serialize)]
struct Row {
    scene: String,
    backend: String,
    selection: String,
    precision: String,
    /// CPU worker threads (0 for the GPU).
    threads: usize,
    samples: usize,
    lcps_per_sample: f64,
    us_per_lcp: f64,
    us_per_sample: f64,
    samples_per_s: f64,
    samples_per_s_min: f64,
    samples_per_s_max: f64,
    speedup_vs_cpu1: Option<f64>,
    /// Wall time of one run (transfers and host work included), median.
    wall_ms: f64,
    /// GPU kernel time of one run from timestamp queries (first pass's start
    /// to last pass's end per submission), median; `null` for the CPU and
    /// where the device has no timestamp queries.
    kernel_ms: Option<f64>,
    /// GPU samples of one run the host ran again on the CPU (restitution's
    /// hand-offs, f32's unaccepted samples; docs/gpu.md), included in the
    /// wall time; `null` for the CPU.
    host_reruns: Option<u64>,
}

/// The whole report.
#[derive(Serialize)]
struct Report {
    machine: String,
    adapter: Option<String>,
    repetitions: usize,
    rows: Vec<Row>,
}

/// Runs `impactset bench`.
pub fn run(args: BenchArgs) -> Result<()> {
    if args.repetitions == 0 {
        return Err(InputError("--repetitions 0: must be at least 1".into()).into());
    }
    let scenes: Vec<String> =
        if args.scenes.is_empty() { scene::PAPER_SCENES.map(String::from).to_vec() } else { args.scenes.clone() };
    let specs = scenes.iter().map(|s| source::load(s)).collect::<Result<Vec<_>>>()?;
    let explicit = !args.backends.is_empty();
    let backends: Vec<String> =
        if explicit { args.backends.clone() } else { vec!["cpu1".into(), "cpu".into(), "gpu".into()] };
    if let Some(bad) = backends.iter().find(|b| !["cpu1", "cpu", "gpu"].contains(&b.as_str())) {
        return Err(InputError(format!("--backends {bad}: expected cpu1, cpu or gpu")).into());
    }
    let gpu = if backends.iter().any(|b| b == "gpu") { gpu_context(explicit)? } else { None };
    let precision = args.precision.or(gpu.as_ref().map(|ctx| ctx.default_precision())).unwrap_or(Precision::F64);
    let report_head = Report {
        machine: machine(),
        adapter: gpu.as_ref().map(|g| g.describe()),
        repetitions: args.repetitions,
        rows: Vec::new(),
    };
    println!("machine: {}", report_head.machine);
    if let Some(adapter) = &report_head.adapter {
        println!("GPU: {adapter} ({precision})");
    }
    print_header();
    let mut rows = Vec::new();
    for spec in &specs {
        let options = SamplerOptions {
            selection: args.selection,
            ..sampler_options(spec, args.samples, 0, 0, args.selection, args.schedule, None)?
        };
        let mut cpu1_rate = None;
        for name in &backends {
            let backend = match name.as_str() {
                "cpu1" => Backend::cpu(Some(1))?,
                "cpu" => Backend::cpu(None)?,
                _ => match &gpu {
                    Some(ctx) => Backend::gpu(ctx.clone(), Some(precision)),
                    None => continue,
                },
            };
            let kernel_time = || match &backend {
                Backend::Gpu { context, .. } => context.take_kernel_time(),
                Backend::Cpu { .. } => None,
            };
            // The mean LCP steps per sample of one run and the samples the
            // host ran again (the GPU's samples read into columns, the CPU's
            // as a SampleSet).
            let run = || {
                let control = RunControl::default();
                let steps = if backend.is_cpu() {
                    run::sample(&backend, &spec.problem, &options, &control).map(|set| (set.mean_steps(), None))
                } else {
                    backend.plan(&spec.problem, &options).and_then(|mut plan| {
                        let flat = plan.sample_range_flat(options.first_index, options.samples, &control)?;
                        Ok((flat.mean_steps(), Some(plan.host_reruns())))
                    })
                };
                steps.map_err(|e| anyhow::anyhow!("{}: {name}: {e}", spec.name))
            };
            let threads = if backend.is_cpu() { backend.threads() } else { 0 };
            let row = match measure(
                &spec.name,
                name,
                backend.precision_name(),
                threads,
                &options,
                args.repetitions,
                &kernel_time,
                run,
            ) {
                Ok(row) => row,
                Err(e) if !backend.is_cpu() => {
                    eprintln!("note: {e:#}; row skipped");
                    continue;
                }
                Err(e) => return Err(e),
            };
            if name == "cpu1" {
                cpu1_rate = Some(row.samples_per_s);
            }
            let row = Row { speedup_vs_cpu1: cpu1_rate.map(|r| row.samples_per_s / r), ..row };
            print_row(&row);
            rows.push(row);
        }
    }
    if let Some(path) = &args.json {
        write_json(path, &Report { rows, ..report_head })?;
    }
    Ok(())
}

/// The GPU to benchmark: `None`, with a note, when there is none and the
/// backends were not named (`explicit`: an error).
fn gpu_context(explicit: bool) -> Result<Option<Arc<GpuContext>>> {
    match GpuContext::new() {
        Ok(ctx) => Ok(Some(Arc::new(ctx))),
        Err(e) if explicit => Err(anyhow::anyhow!("--backends gpu: {e}")),
        Err(e) => {
            eprintln!("note: no GPU ({e}); benchmarking the CPU only");
            Ok(None)
        }
    }
}

fn print_header() {
    println!(
        "{:<14} {:<5} {:>7} {:>8} {:>11} {:>11} {:>12} {:>15} {:>9} {:>9} {:>9} {:>7}",
        "scene",
        "back.",
        "threads",
        "LCPs/smp",
        "µs/sample",
        "µs/LCP",
        "samples/s",
        "spread (min–max)",
        "speed-up",
        "wall ms",
        "kernel ms",
        "host"
    );
}

fn print_row(row: &Row) {
    println!(
        "{:<14} {:<5} {:>7} {:>8.3} {:>11.3} {:>11.3} {:>12.0} {:>15} {:>9} {:>9.2} {:>9} {:>7}",
        row.scene,
        row.backend,
        if row.threads == 0 { "–".to_string() } else { row.threads.to_string() },
        row.lcps_per_sample,
        row.us_per_sample,
        row.us_per_lcp,
        row.samples_per_s,
        format!("{:.0}–{:.0}", row.samples_per_s_min, row.samples_per_s_max),
        row.speedup_vs_cpu1.map_or("–".into(), |s| format!("{s:.2}×")),
        row.wall_ms,
        row.kernel_ms.map_or("–".into(), |k| format!("{k:.2}")),
        row.host_reruns.map_or("–".into(), |k| k.to_string()),
    );
}

/// One warm-up run, then `repetitions` timed runs (wall time, transfers
/// included); `kernel_time` returns the device time spent since its previous
/// call (timestamp queries), `None` where there is none; `run` returns the
/// mean LCP steps per sample and, on the GPU, the host re-runs of one run.
#[allow(clippy::too_many_arguments)]
fn measure(
    scene: &str,
    backend: &str,
    precision: &str,
    threads: usize,
    options: &SamplerOptions,
    repetitions: usize,
    kernel_time: &dyn Fn() -> Option<f64>,
    mut run: impl FnMut() -> Result<(f64, Option<u64>)>,
) -> Result<Row> {
    let (lcps_per_sample, host_reruns) = run()?;
    let mut rates: Vec<f64> = Vec::with_capacity(repetitions);
    let mut kernel: Vec<f64> = Vec::with_capacity(repetitions);
    kernel_time();
    for _ in 0..repetitions {
        let start = Instant::now();
        run()?;
        rates.push(options.samples as f64 / start.elapsed().as_secs_f64());
        kernel.extend(kernel_time());
    }
    rates.sort_by(f64::total_cmp);
    kernel.sort_by(f64::total_cmp);
    let median = rates[rates.len() / 2];
    let us_per_sample = 1e6 / median;
    Ok(Row {
        scene: scene.to_string(),
        backend: backend.to_string(),
        selection: options.selection.name().to_string(),
        precision: precision.to_string(),
        threads,
        samples: options.samples,
        lcps_per_sample,
        us_per_lcp: us_per_sample / lcps_per_sample.max(f64::MIN_POSITIVE),
        us_per_sample,
        samples_per_s: median,
        samples_per_s_min: rates[0],
        samples_per_s_max: rates[rates.len() - 1],
        speedup_vs_cpu1: None,
        wall_ms: 1e3 * options.samples as f64 / median,
        kernel_ms: kernel.get(kernel.len() / 2).map(|k| 1e3 * k),
        host_reruns,
    })
}

/// CPU model and core count, from `/proc/cpuinfo` where there is one.
fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    format!("{model}, {cores} cores")
}
