//! The `impactset` command: one file per subcommand.

mod analyze;
mod baseline;
mod bench;
mod census;
mod compare;
mod export;
mod extremes;
mod figures;
mod modes;
mod options;
mod outputs;
mod progress;
mod reach;
mod sample;
mod scenes;
mod show;
mod source;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Every way simultaneous, frictional, inelastic impacts can turn out.
///
/// impactset samples the set of post-impact velocities of Halm & Posa's
/// set-valued Routh impact model: an impact is resolved by many small LCP
/// steps with random per-contact impulse caps, and thousands of such
/// trajectories trace out every outcome.
#[derive(Parser, Debug)]
#[command(name = "impactset", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// No progress bars on standard error (`reach`: no notes, warnings or
    /// summary line either).
    #[arg(long, short = 'q', global = true)]
    quiet: bool,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Show a problem: sizes, contacts, pre-impact contact velocities.
    Show(show::ShowArgs),
    /// Sample the post-impact set (Algorithm 2).
    Sample(sample::SampleArgs),
    /// The classic baselines: simultaneous (every LCP solution) and sequential outcomes.
    Baseline(baseline::BaselineArgs),
    /// Measure throughput per scene and backend: LCPs/sample, µs/sample, µs/LCP, samples/s.
    Bench(bench::BenchArgs),
    /// List the built-in scenes.
    Scenes(scenes::ScenesArgs),
    /// Write a built-in scene as a problem file (JSON or TOML).
    Export(export::ExportArgs),
    /// Run the CPU and GPU on the same seed and compare them sample by sample.
    Compare(compare::CompareArgs),
    /// How good a sampled set is: covering radius, Hausdorff distance, held-out certificate (ε-net).
    Analyze(analyze::AnalyzeArgs),
    /// Sample and count the joint contact modes of the outcomes.
    Modes(modes::ModesArgs),
    /// The worst case: per direction c, the largest cᵀv⁺ a directed search over schedules finds.
    Extremes(extremes::ExtremesArgs),
    /// Draw the post-impact set and convergence figures of scenes (default: the five paper scenes).
    Figures(figures::FiguresArgs),
    /// The post-impact sets of many pre-impact states: one table row per state (Parquet/CSV), the sets as NPY.
    Reach(reach::ReachArgs),
    /// Join the tables (and sets) of `reach --shard` runs.
    ReachMerge(reach::MergeArgs),
    /// Solve many step LCPs (every scene, random problems) and classify each outcome: no silent failure.
    Census(census::CensusArgs),
}

/// An error in what the user gave (file, field, value): exit code 2.
#[derive(Debug)]
pub struct InputError(pub String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

/// Parses the arguments, runs the subcommand, prints one line per error.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    progress::set_quiet(cli.quiet);
    let result = match cli.command {
        Command::Show(args) => show::run(args),
        Command::Sample(args) => sample::run(args),
        Command::Baseline(args) => baseline::run(args),
        Command::Scenes(args) => scenes::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Export(args) => export::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Analyze(args) => analyze::run(args),
        Command::Modes(args) => modes::run(args),
        Command::Extremes(args) => extremes::run(args),
        Command::Figures(args) => figures::run(args),
        Command::Reach(args) => reach::run(args),
        Command::ReachMerge(args) => reach::merge(args),
        Command::Census(args) => census::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            if e.downcast_ref::<InputError>().is_some() { ExitCode::from(2) } else { ExitCode::FAILURE }
        }
    }
}
