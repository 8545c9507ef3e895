//! `impactset sample`: Algorithm 2 on a problem file or scene.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::{InputError, source};
use impactset::io::{Summary, write_csv, write_json, write_npy};
use impactset::{SampleSet, SamplerOptions, Selection, sample_set_with_progress};

/// Arguments of `impactset sample`.
#[derive(Args, Debug)]
pub struct SampleArgs {
    /// Problem file (JSON or TOML) or built-in scene id.
    problem: String,
    /// Number of samples [default: the problem's, else 4096].
    #[arg(long, short = 'n')]
    samples: Option<usize>,
    /// Step cap K [default: the problem's, else 10].
    #[arg(long)]
    steps: Option<usize>,
    /// Impulse step h [default: the problem's, else half the largest single-contact plastic impulse].
    #[arg(long)]
    step_size: Option<f64>,
    /// Run seed: with the problem and parameters it fixes every sample.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Index of the first sample (to split a run into shards).
    #[arg(long, default_value_t = 0)]
    first_index: u64,
    /// Worker threads [default: all cores]; results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Which solution of each step LCP a sample follows.
    #[arg(long, value_enum, default_value_t = Selection::All)]
    selection: Selection,
    /// Write samples: `.npy` (accepted v⁺, accepted × n float64) or `.csv` (every sample).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write the run summary as JSON.
    #[arg(long)]
    summary: Option<PathBuf>,
    /// Print the summary as JSON on standard output instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `impactset sample`.
pub fn run(args: SampleArgs) -> Result<()> {
    let spec = source::load(&args.problem)?;
    let problem = &spec.problem;
    if let Some(h) = args.step_size
        && !(h.is_finite() && h > 0.0)
    {
        return Err(InputError(format!("--step-size {h}: must be a positive number")).into());
    }
    if args.samples == Some(0) {
        return Err(InputError("--samples 0: must be at least 1".into()).into());
    }
    if args.threads == Some(0) {
        return Err(InputError("--threads 0: must be at least 1".into()).into());
    }
    if let Some(out) = &args.out {
        let ext = out.extension().and_then(|e| e.to_str()).unwrap_or("");
        if !ext.eq_ignore_ascii_case("npy") && !ext.eq_ignore_ascii_case("csv") {
            return Err(InputError(format!("--out {}: the file must end in .npy or .csv", out.display())).into());
        }
    }
    let options = SamplerOptions {
        samples: args.samples.or(spec.samples).unwrap_or(4096),
        first_index: args.first_index,
        step_size: Some(args.step_size.or(spec.step_size).unwrap_or_else(|| problem.default_step_size())),
        steps: args.steps.or(spec.steps).unwrap_or(10),
        seed: args.seed,
        selection: args.selection,
        threads: args.threads,
        ..SamplerOptions::default()
    };
    let bar = progress_bar(options.samples as u64);
    let start = Instant::now();
    let set = sample_set_with_progress(problem, &options, &|k| bar.inc(k as u64));
    let elapsed_s = start.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let summary = summarize(&spec.name, &set, &options, elapsed_s);
    if let Some(out) = &args.out {
        if out.extension().is_some_and(|e| e.eq_ignore_ascii_case("npy")) {
            write_npy(out, &set)?;
        } else {
            write_csv(out, &set)?;
        }
    }
    if let Some(path) = &args.summary {
        write_json(path, &summary)?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print_summary(&summary);
    }
    Ok(())
}

fn progress_bar(total: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    if let Ok(style) =
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} samples ({eta})")
    {
        bar.set_style(style);
    }
    bar
}

fn summarize(name: &str, set: &SampleSet, options: &SamplerOptions, elapsed_s: f64) -> Summary {
    let (samples, accepted, terminated, rejected_unterminated, rejected_residual) = Summary::counts(set);
    Summary {
        problem: name.to_string(),
        samples,
        accepted,
        terminated,
        rejected_unterminated,
        rejected_residual,
        mean_steps: set.mean_steps(),
        max_residual: set.max_residual(),
        max_energy_ratio: set.max_energy_ratio(),
        seed: options.seed,
        selection: options.selection.name().to_string(),
        backend: "cpu".into(),
        precision: "f64".into(),
        threads: options.threads.unwrap_or_else(rayon::current_num_threads),
        elapsed_s,
        step_size: options.step_size.unwrap_or(f64::NAN),
        steps: options.steps,
        first_index: options.first_index,
    }
}

fn print_summary(s: &Summary) {
    println!(
        "{}: {} samples, selection {}, {} backend ({}, {} threads), {:.3} s",
        s.problem, s.samples, s.selection, s.backend, s.precision, s.threads, s.elapsed_s
    );
    println!(
        "  accepted {} / terminated {} / rejected: {} unterminated, {} residual",
        s.accepted, s.terminated, s.rejected_unterminated, s.rejected_residual
    );
    println!(
        "  mean LCP steps {:.3}, max residual {:.2e}, max E⁺/E⁻ {:.6}",
        s.mean_steps, s.max_residual, s.max_energy_ratio
    );
    println!("  h = {}, K = {}, seed {}", s.step_size, s.steps, s.seed);
}
