//! `impactset modes`: how often each joint contact mode occurs.

use anyhow::Result;
use clap::Args;
use serde::Serialize;

use super::{options, source};
use impactset::analysis::{ModeHistogram, ModeOptions, mode_histogram};
use impactset::{Schedule, Selection, sample_set};

/// Arguments of `impactset modes`.
#[derive(Args, Debug)]
pub struct ModesArgs {
    /// Problem file (JSON or TOML) or built-in scene id.
    problem: String,
    /// Number of samples [default: the problem's, else 4096].
    #[arg(long, short = 'n')]
    samples: Option<usize>,
    /// Run seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Which solution of each step LCP a sample follows.
    #[arg(long, value_parser = options::choice_parser::<Selection>(), default_value = Selection::DEFAULT.name())]
    selection: Selection,
    /// The law of each step's impulse caps [default: the problem's, else mixed] (docs/model.md §5c).
    #[arg(long, value_parser = options::choice_parser::<Schedule>())]
    schedule: Option<Schedule>,
    /// Contact-mode tolerance τ, relative to the pre-impact contact speed s: a contact separates when
    /// its normal velocity exceeds τ·s, else sticks when its tangential speed is at most τ·s
    /// (docs/model.md §6).
    #[arg(long, default_value_t = ModeOptions::default().separation_tol)]
    mode_tolerance: f64,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct ModesView {
    problem: String,
    samples: usize,
    accepted: usize,
    seed: u64,
    selection: &'static str,
    histogram: ModeHistogram,
}

/// Runs `impactset modes`.
pub fn run(args: ModesArgs) -> Result<()> {
    let spec = source::load(&args.problem)?;
    let modes = options::mode_options(args.mode_tolerance)?;
    let samples = args.samples.or(spec.samples).unwrap_or(4096);
    let sampler = options::sampler_options(&spec, samples, 0, args.seed, args.selection, args.schedule, None)?;
    let set = sample_set(&spec.problem, &sampler);
    let view = ModesView {
        problem: spec.name.clone(),
        samples,
        accepted: set.accepted_count(),
        seed: args.seed,
        selection: args.selection.name(),
        histogram: mode_histogram(&spec.problem, &set, &modes),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&view)?);
        return Ok(());
    }
    println!(
        "{}: {} of {} samples accepted (selection {}, seed {})",
        view.problem, view.accepted, view.samples, view.selection, view.seed
    );
    if view.accepted == 0 {
        println!("no accepted outcome: no mode histogram");
    } else {
        print!("{}", view.histogram);
    }
    Ok(())
}
