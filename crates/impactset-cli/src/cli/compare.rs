//! `impactset compare`: the CPU and the GPU on the same seed, sample by sample.

use anyhow::{Context, Result};
use clap::Args;
use serde::Serialize;

use super::{InputError, options, source};
use impactset::gpu::{GpuContext, Precision};
use impactset::number::readable;
use impactset::run::{Comparison, compare_backends};
use impactset::{SamplerOptions, Schedule, Selection};

/// Arguments of `impactset compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Problem file (JSON or TOML) or built-in scene id.
    problem: String,
    /// Number of samples.
    #[arg(long, short = 'n', default_value_t = impactset::sampling::DEFAULT_SAMPLES)]
    samples: usize,
    /// GPU precision [default: f64 where the adapter has it, else f32].
    #[arg(long, value_parser = options::choice_parser::<Precision>())]
    precision: Option<Precision>,
    /// Which solution of each step LCP a sample follows (`all` on the GPU: at most 42 875 mode tuples a step;
    /// with restitution, fewer than 100, and twinned steps within the same limits).
    #[arg(long, value_parser = options::choice_parser::<Selection>(), default_value = "random-lemke")]
    selection: Selection,
    /// The law of each step's impulse caps [default: the problem's, else mixed] (docs/model.md §5c).
    #[arg(long, value_parser = options::choice_parser::<Schedule>())]
    schedule: Option<Schedule>,
    /// Run seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Agreement tolerance, relative to ‖v⁻‖_M [default: 1e-9 in f64, 1e-3 in f32].
    #[arg(long)]
    tolerance: Option<f64>,
    /// Print the comparison as JSON on standard output instead of a table.
    #[arg(long)]
    json: bool,
}

/// The JSON report: the scene and its parameters, then the comparison.
#[derive(Serialize)]
struct Report<'a> {
    scene: &'a str,
    selection: &'a str,
    seed: u64,
    step_size: f64,
    steps: usize,
    #[serde(flatten)]
    comparison: &'a Comparison,
}

/// Runs `impactset compare`.
pub fn run(args: CompareArgs) -> Result<()> {
    let spec = source::load(&args.problem)?;
    if args.samples == 0 {
        return Err(InputError("--samples 0: must be at least 1".into()).into());
    }
    if let Some(t) = args.tolerance
        && !(t.is_finite() && t >= 0.0)
    {
        return Err(InputError(format!("--tolerance {}: must be a non-negative number", readable(t))).into());
    }
    let ctx = GpuContext::new().context("compare needs a GPU adapter")?;
    let precision = args.precision.unwrap_or(ctx.default_precision());
    let tolerance = args.tolerance.unwrap_or(match precision {
        Precision::F64 => 1e-9,
        Precision::F32 => 1e-3,
    });
    let problem = &spec.problem;
    let selection = args.selection;
    let base = spec.sampler_options();
    let schedule = args.schedule.unwrap_or(base.schedule);
    let mut options = SamplerOptions { samples: args.samples, seed: args.seed, selection, schedule, ..base };
    options::validate(&options, problem)?;
    options::resolve_steps(&mut options, problem, false);
    let comparison = compare_backends(&ctx, problem, &options, precision, tolerance)?;
    let report = Report {
        scene: &spec.name,
        selection: selection.name(),
        seed: args.seed,
        step_size: options.step_size.unwrap_or(f64::NAN),
        steps: options.steps.expect("resolved above"),
        comparison: &comparison,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_table(&report);
    }
    Ok(())
}

fn print_table(r: &Report) {
    let c = r.comparison;
    println!(
        "{}: {} samples, selection {}, seed {}, h = {}, K = {}",
        r.scene,
        c.samples,
        r.selection,
        r.seed,
        readable(r.step_size),
        r.steps
    );
    println!("  GPU {} ({})", c.adapter, c.precision);
    let rows: [(&str, String); 12] = [
        (
            "agreement",
            format!(
                "{:.4} within {:e} of ‖v⁻‖_M, over the {} samples the device ran",
                c.agreement_fraction, c.tolerance, c.device_samples
            ),
        ),
        (
            "agreement (f32 floors)",
            c.agreement_at_floors
                .map_or("–".into(), |a| format!("{a:.4} with the plain CPU run or its run at f32's floors")),
        ),
        ("max deviation", format!("{:.3e}", c.max_deviation)),
        ("termination mismatches", c.termination_mismatches.to_string()),
        ("acceptance mismatches", c.acceptance_mismatches.to_string()),
        ("host re-runs", format!("{} (the CPU's own samples, left out of the agreement)", c.host_reruns)),
        ("accepted (cpu / gpu)", format!("{} / {}", c.accepted_cpu, c.accepted_gpu)),
        ("mean steps (cpu / gpu)", format!("{:.3} / {:.3}", c.mean_steps_cpu, c.mean_steps_gpu)),
        ("hausdorff", format!("{:.3e}", c.hausdorff)),
        ("covering cpu by gpu", format!("{:.3e}", c.covering_cpu_by_gpu)),
        ("covering gpu by cpu", format!("{:.3e}", c.covering_gpu_by_cpu)),
        ("distances", "energy norm, relative to ‖v⁻‖_M".to_string()),
    ];
    for (name, value) in rows {
        println!("  {name:<24} {value}");
    }
}
