//! `impactset reach`: the post-impact sets of many pre-impact states, one
//! table row per state (Parquet or CSV), the sets as NPY; and
//! `impactset reach-merge`, which joins the tables and sets of shards.

mod sets;
mod tables;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;

use super::{InputError, options, source};
use impactset::gpu::Precision;
use impactset::io::{ProblemSpec, read_npy};
use impactset::reach::{
    Direction, DirectionKind, ReachError, ReachInput, ReachOptions, StateProblem, StateResult, reach_stream, schema,
};
use impactset::run::{Backend, BackendChoice, OpenError, RunControl};
use impactset::{SamplerOptions, Selection};
use sets::SetsWriter;
use tables::TableWriter;

/// Arguments of `impactset reach`.
#[derive(Args, Debug)]
pub struct ReachArgs {
    /// Problem files (JSON or TOML), folders of them (every .json and .toml,
    /// by name) or built-in scene ids: one state each, all of equal sizes.
    /// With --velocities: exactly one problem, the configuration.
    #[arg(required = true)]
    problems: Vec<String>,
    /// Pre-impact velocities, a B × n array (`.npy`, or `.csv` with one state
    /// per line): one state each, at the problem's configuration.
    #[arg(long)]
    velocities: Option<PathBuf>,
    /// The table: `.parquet` (or `.pq`) or `.csv`, one row per state.
    #[arg(long)]
    out: PathBuf,
    /// Also write every state's accepted v⁺, state after state, as one
    /// (Σ accepted) × n float64 NPY array (the table's `accepted` column
    /// splits it).
    #[arg(long)]
    sets: Option<PathBuf>,
    /// Samples per state.
    #[arg(long, short = 'n', default_value_t = 256)]
    samples: usize,
    /// Step cap K [default: the first problem's, else from a 64-sample pilot run of state 0 (docs/model.md §11)].
    #[arg(long)]
    steps: Option<usize>,
    /// Impulse step h for every state [default: each problem's, else half
    /// its largest single-contact plastic impulse].
    #[arg(long)]
    step_size: Option<f64>,
    /// Batch seed: state k samples with the state seed of (seed, k).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Worker threads [default: all cores]; results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Which solution of each step LCP a sample follows.
    #[arg(long, value_parser = options::selection_parser(), default_value = "all")]
    selection: Selection,
    /// A support direction `NAME=c0,c1,…` (n numbers): the table gets
    /// NAME_max and NAME_min of cᵀv⁺ over each set. Repeat for more; given
    /// ones replace the default (every coordinate, every contact's normal and
    /// tangential velocity).
    #[arg(long = "direction", value_name = "NAME=C")]
    directions: Vec<String>,
    /// Skip the simultaneous and sequential baselines and their distances.
    #[arg(long)]
    no_baselines: bool,
    /// Run only shard I of J (`I/J`, 0 ≤ I < J): the states
    /// ⌊I·B/J⌋ … ⌊(I+1)·B/J⌋ − 1 of B; `reach-merge` joins the shards.
    #[arg(long, value_name = "I/J")]
    shard: Option<String>,
    /// Where to run (the GPU runs the states one by one).
    #[arg(long, value_parser = options::backend_parser(), default_value = "cpu")]
    backend: BackendChoice,
    /// GPU scalar type [default: f64 where the adapter has it, else f32].
    #[arg(long, value_parser = options::precision_parser())]
    precision: Option<Precision>,
    /// Samples in flight at once (memory; the results do not depend on it).
    #[arg(long, default_value_t = 1 << 16)]
    window: usize,
    /// Print no progress and no summary line.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// Arguments of `impactset reach-merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The shards' tables (all Parquet or all CSV), in any order.
    #[arg(required = true)]
    tables: Vec<PathBuf>,
    /// The merged table (same format as the shards).
    #[arg(long)]
    out: PathBuf,
    /// The shards' sets (NPY), one per table, in the same order as the tables.
    #[arg(long = "sets", num_args = 1..)]
    sets: Vec<PathBuf>,
    /// The merged sets (NPY), in state order.
    #[arg(long)]
    sets_out: Option<PathBuf>,
}

/// Runs `impactset reach`.
pub fn run(args: ReachArgs) -> Result<()> {
    check_args(&args)?;
    let specs = load_problems(&args.problems)?;
    let first = specs[0].clone();
    let input = match &args.velocities {
        Some(path) => {
            if specs.len() != 1 {
                return Err(input_error(format!(
                    "--velocities: give exactly one problem (the configuration), not {}",
                    specs.len()
                )));
            }
            let n = first.problem.n();
            let velocities = read_velocities(path, n)?;
            ReachInput::velocities(first.clone().into(), velocities)
                .map_err(|e| input_error(format!("{}: {e}", path.display())))?
        }
        None => ReachInput::problems(specs.into_iter().map(StateProblem::from).collect())
            .map_err(|e| input_error(e.to_string()))?,
    };
    let directions = args.directions.iter().map(|d| parse_direction(d)).collect::<Result<Vec<_>>>()?;
    let given_steps = args.steps.or(first.steps);
    let mut options = ReachOptions {
        sampler: SamplerOptions {
            samples: args.samples,
            steps: given_steps.unwrap_or(SamplerOptions::default().steps),
            step_size: args.step_size,
            seed: args.seed,
            selection: args.selection,
            ..SamplerOptions::default()
        },
        directions: (!directions.is_empty()).then_some(directions),
        baselines: !args.no_baselines,
        keep_sets: args.sets.is_some(),
        window_samples: args.window,
        ..ReachOptions::default()
    };
    let schema = schema(&input, &options).map_err(|e| input_error(e.to_string()))?;
    if given_steps.is_none() {
        let cap = impactset::reach::default_steps(&input, &options).map_err(|e| input_error(e.to_string()))?;
        if let (Some(warning), false) = (cap.warning(), args.quiet) {
            eprintln!("warning: state 0: {warning}");
        }
        options.sampler.steps = cap.steps;
    }
    let states = match &args.shard {
        Some(shard) => shard_range(shard, input.len())?,
        None => 0..input.len(),
    };
    let (backend, reason) =
        Backend::open(args.backend, args.precision, &first.problem, options.sampler.selection, args.threads).map_err(
            |e| match e {
                OpenError::CpuIsF64 => input_error(e.to_string()),
                e => anyhow::anyhow!("--backend {}: {e}", args.backend),
            },
        )?;
    if args.backend == BackendChoice::Auto && backend.is_cpu() && !args.quiet {
        eprintln!("note: {reason}; running on the CPU");
    }

    let mut table = TableWriter::create(&args.out, &schema)?;
    let mut sets = args.sets.as_deref().map(|p| SetsWriter::create(p, first.problem.n())).transpose()?;
    let total = (states.len() * args.samples) as u64;
    let bar = super::progress::bar(total, "samples", args.quiet);
    let progress = |k: usize| bar.inc(k as u64);
    let control = RunControl { progress: &progress, cancel: None };
    let run =
        reach_stream::<anyhow::Error>(&backend, &input, &options, states.clone(), &control, &mut |r: StateResult| {
            table.write(&schema, &r.row)?;
            if let (Some(sets), Some(set)) = (&mut sets, &r.set) {
                sets.write(set)?;
            }
            Ok(())
        })
        .map_err(|e| match e.downcast::<ReachError>() {
            Ok(ReachError::Run(e)) => anyhow::anyhow!("--backend {}: {e}", args.backend),
            Ok(e) => input_error(e.to_string()),
            Err(e) => e,
        })?;
    bar.finish_and_clear();
    table.finish()?;
    if let Some(sets) = sets {
        sets.finish()?;
    }
    if !args.quiet {
        println!(
            "{} states × {} samples ({}), selection {}, {} backend, {} threads: {:.3} s, {:.0} samples/s → {}{}",
            run.states,
            args.samples,
            if args.shard.is_some() { format!("states {}..{}", states.start, states.end) } else { "all".into() },
            options.sampler.selection,
            backend.name(),
            backend.threads(),
            run.elapsed_s,
            run.samples as f64 / run.elapsed_s.max(1e-9),
            args.out.display(),
            args.sets.as_ref().map(|p| format!(", {}", p.display())).unwrap_or_default(),
        );
    }
    Ok(())
}

/// Runs `impactset reach-merge`.
pub fn merge(args: MergeArgs) -> Result<()> {
    if args.sets_out.is_some() == args.sets.is_empty() {
        return Err(input_error("--sets and --sets-out go together".into()));
    }
    if !args.sets.is_empty() && args.sets.len() != args.tables.len() {
        return Err(input_error(format!(
            "--sets: {} files for {} tables (one per table, same order)",
            args.sets.len(),
            args.tables.len()
        )));
    }
    let order = tables::merge(&args.tables, &args.out).map_err(|e| input_error(format!("{e:#}")))?;
    if let Some(out) = &args.sets_out {
        let ordered: Vec<PathBuf> = order.iter().map(|&i| args.sets[i].clone()).collect();
        sets::concatenate(&ordered, out)?;
    }
    Ok(())
}

fn input_error(message: String) -> anyhow::Error {
    InputError(message).into()
}

fn check_args(args: &ReachArgs) -> Result<()> {
    if args.samples == 0 {
        return Err(input_error("--samples 0: must be at least 1".into()));
    }
    if args.threads == Some(0) {
        return Err(input_error("--threads 0: must be at least 1".into()));
    }
    if args.window == 0 {
        return Err(input_error("--window 0: must be at least 1".into()));
    }
    if let Some(h) = args.step_size
        && !(h.is_finite() && h > 0.0)
    {
        return Err(input_error(format!("--step-size {h}: must be a positive number")));
    }
    let ext = |p: &Path| p.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    if !["parquet", "pq", "csv"].contains(&ext(&args.out).as_str()) {
        return Err(input_error(format!("--out {}: the table must end in .parquet, .pq or .csv", args.out.display())));
    }
    if let Some(sets) = &args.sets
        && ext(sets) != "npy"
    {
        return Err(input_error(format!("--sets {}: the sets file must end in .npy", sets.display())));
    }
    Ok(())
}

/// Problem files, folders of problem files and scene ids, in order.
fn load_problems(targets: &[String]) -> Result<Vec<ProblemSpec>> {
    let mut specs = Vec::new();
    for target in targets {
        let path = Path::new(target);
        if path.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(path)
                .with_context(|| format!("{target}: cannot read the folder"))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.extension()
                        .and_then(|e| e.to_str())
                        .is_some_and(|e| e.eq_ignore_ascii_case("json") || e.eq_ignore_ascii_case("toml"))
                })
                .collect();
            files.sort();
            if files.is_empty() {
                return Err(input_error(format!("{target}: no .json or .toml problem files in the folder")));
            }
            for file in files {
                specs.push(source::load(&file.to_string_lossy())?);
            }
        } else {
            specs.push(source::load(target)?);
        }
    }
    Ok(specs)
}

/// A `K × n` array from NPY or CSV (one row per line, commas; a first line
/// that is not numbers is a header).
fn read_velocities(path: &Path, n: usize) -> Result<Vec<f64>> {
    let is_npy = path.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("npy"));
    let rows: Vec<Vec<f64>> = if is_npy {
        read_npy(path).map_err(|e| input_error(format!("--velocities {e:#}")))?
    } else {
        let text = std::fs::read_to_string(path)
            .map_err(|e| input_error(format!("--velocities {}: cannot read: {e}", path.display())))?;
        let mut rows = Vec::new();
        for (line_no, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let row: Result<Vec<f64>, _> = line.split(',').map(|c| c.trim().parse::<f64>()).collect();
            match row {
                Ok(row) => rows.push(row),
                Err(_) if line_no == 0 => continue,
                Err(e) => {
                    return Err(input_error(format!("--velocities {}: line {}: {e}", path.display(), line_no + 1)));
                }
            }
        }
        rows
    };
    for (k, row) in rows.iter().enumerate() {
        if row.len() != n {
            return Err(input_error(format!(
                "--velocities {}: row {k} has {} entries, the problem has n = {n}",
                path.display(),
                row.len()
            )));
        }
    }
    Ok(rows.concat())
}

/// `NAME=c0,c1,…`.
fn parse_direction(text: &str) -> Result<Direction> {
    let (name, values) =
        text.split_once('=').ok_or_else(|| input_error(format!("--direction {text}: expected NAME=c0,c1,…")))?;
    let c: Result<Vec<f64>, _> = values.split(',').map(|x| x.trim().parse::<f64>()).collect();
    let c = c.map_err(|e| input_error(format!("--direction {text}: {e}")))?;
    Ok(Direction { name: name.trim().to_string(), kind: DirectionKind::Vector(c) })
}

/// `I/J` → the states of shard `I` of `J`.
fn shard_range(text: &str, states: usize) -> Result<std::ops::Range<usize>> {
    let parsed = text
        .split_once('/')
        .and_then(|(i, k)| Some((i.trim().parse::<usize>().ok()?, k.trim().parse::<usize>().ok()?)));
    match parsed {
        Some((i, k)) if k > 0 && i < k => Ok(i * states / k..(i + 1) * states / k),
        _ => Err(input_error(format!("--shard {text}: expected I/J with 0 ≤ I < J"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_states() {
        for states in [0, 1, 7, 10_000] {
            for k in 1..6 {
                let ranges: Vec<_> = (0..k).map(|i| shard_range(&format!("{i}/{k}"), states).unwrap()).collect();
                assert_eq!(ranges[0].start, 0);
                assert_eq!(ranges[k - 1].end, states);
                assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
            }
        }
        assert!(shard_range("3/3", 10).is_err());
        assert!(shard_range("1", 10).is_err());
    }
}
