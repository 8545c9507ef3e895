//! `impactset extremes`: the worst case as a query — for each direction `c`,
//! the outcome of largest `cᵀv⁺` a directed search over schedules finds
//! (docs/model.md §5d).

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use serde::Serialize;

use super::{InputError, options, outputs, source};
use impactset::sampling::{
    DirectionNameError, EXTREMES_SELECTION, Extreme, ExtremesOptions, SearchControl, check_budget,
    check_direction_count, check_direction_names, extremes_with, parse_direction, random_directions,
};
use impactset::{Schedule, Selection};

/// Arguments of `impactset extremes`.
#[derive(Args, Debug)]
pub struct ExtremesArgs {
    /// Problem file (JSON or TOML) or built-in scene id.
    problem: String,
    /// A direction `c` as NAME=c0,c1,… (n numbers); the value is `cᵀv⁺`. Repeatable.
    #[arg(long = "direction")]
    directions: Vec<String>,
    /// Add this many seeded random directions, uniform on the unit sphere of the energy norm
    /// (`c = M d / ‖d‖_M`, so `cᵀv⁺` is in units of ‖v‖_M); at most 2¹⁷ directions in all.
    #[arg(long, default_value_t = 0)]
    random: usize,
    /// Samples of the run's law that seed the search [default: the problem's, else 4096].
    #[arg(long, short = 'n')]
    samples: Option<usize>,
    /// Schedules the search evaluates per direction (at most 2²⁴, docs/model.md §5d).
    #[arg(long, default_value_t = ExtremesOptions::default().budget)]
    budget: usize,
    /// Run seed: fixes the samples, the random directions and the search.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Which solution of each step LCP a sample follows [default: random-lemke, one Lemke solve a step,
    /// as the search evaluates thousands of schedules per direction].
    #[arg(long, value_parser = options::choice_parser::<Selection>())]
    selection: Option<Selection>,
    /// The law of the seeding samples' caps [default: the problem's, else mixed] (docs/model.md §5c).
    #[arg(long, value_parser = options::choice_parser::<Schedule>())]
    schedule: Option<Schedule>,
    /// Worker threads [default: all cores]; results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Write every extreme (value, v⁺, its replayable schedule and selection index) as JSON.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Named {
    name: String,
    /// `‖v⁻‖_M`, the scale of the gains.
    scale: f64,
    #[serde(flatten)]
    extreme: Extreme,
}

/// Runs `impactset extremes`.
pub fn run(args: ExtremesArgs) -> Result<()> {
    let spec = source::load(&args.problem)?;
    let problem = &spec.problem;
    outputs::preflight(&[("--out", args.out.as_deref())])?;
    let mut names = Vec::new();
    let mut directions = Vec::new();
    for text in &args.directions {
        let (name, c) =
            parse_direction(text, problem.n()).map_err(|e| InputError(format!("--direction {text}: {e}")))?;
        names.push(name);
        directions.push(c);
    }
    let random = random_directions(problem, args.random, args.seed)
        .map_err(|e| InputError(format!("--random {}: {}", e.value, e.why)))?;
    for (j, c) in random.into_iter().enumerate() {
        names.push(format!("random-{j}"));
        directions.push(c);
    }
    if directions.is_empty() {
        return Err(InputError("no direction: give --direction NAME=c0,c1,… or --random N".into()).into());
    }
    check_direction_names(names.iter().map(String::as_str)).map_err(|e| {
        let named = match &e {
            DirectionNameError::Empty { position } => args.directions[*position].clone(),
            DirectionNameError::Twice { name } => name.clone(),
        };
        InputError(format!("--direction {named}: {}", e.why()))
    })?;
    let samples = args.samples.or(spec.samples).unwrap_or(4096);
    let sampler = options::sampler_options(
        &spec,
        samples,
        0,
        args.seed,
        args.selection.unwrap_or(EXTREMES_SELECTION),
        args.schedule,
        args.threads,
    )?;
    options::validate(&sampler, problem)?;
    // The limits first: the progress bar's total is `directions × budget`.
    check_budget(args.budget).map_err(|e| InputError(format!("--budget {}: {}", e.value, e.why)))?;
    check_direction_count(directions.len())
        .map_err(|e| InputError(format!("--direction and --random: {} directions, {}", e.value, e.why)))?;
    let search = ExtremesOptions { budget: args.budget, ..ExtremesOptions::default() };
    let total = sampler.samples + directions.len() * search.budget;
    let bar = super::progress::bar(total as u64, "samples and schedules", args.json);
    let progress = |k: usize| bar.inc(k as u64);
    let control = SearchControl { progress: &progress, cancel: None };
    let found = extremes_with(problem, &sampler, &directions, &search, &control)
        .map_err(|e| {
            anyhow::Error::from(InputError(format!("--{} {}: {}", e.field.replace('_', "-"), e.value, e.why)))
        })?
        .expect("a search without a cancel flag completes");
    bar.finish_and_clear();
    let scale = (2.0 * problem.kinetic_energy(problem.velocity())).sqrt();
    let view: Vec<Named> = names.into_iter().zip(found).map(|(name, extreme)| Named { name, scale, extreme }).collect();
    if let Some(out) = &args.out {
        let text = serde_json::to_string_pretty(&view)?;
        outputs::write_atomically(out, |tmp| std::fs::write(tmp, &text))?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&view)?);
        return Ok(());
    }
    println!(
        "{}: {} directions, {} samples of the {} law seed the search ({} schedules each), selection {}, seed {}",
        spec.name,
        view.len(),
        samples,
        sampler.schedule,
        search.budget,
        sampler.selection,
        args.seed
    );
    println!("  gains relative to ‖v⁻‖_M = {scale:.6}");
    // The gain in significant digits: on a robot it is often 1e-5 of ‖v⁻‖_M.
    println!("{:<16} {:>12} {:>12} {:>10}  found by", "direction", "max cᵀv⁺", "sampled", "gain");
    for v in &view {
        let e = &v.extreme;
        println!(
            "{:<16} {:>12.6} {:>12.6} {:>10.3e}  {}",
            v.name,
            e.value,
            e.sampled,
            (e.value - e.sampled) / scale,
            e.origin.name()
        );
    }
    Ok(())
}
