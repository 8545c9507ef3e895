//! `impactset reach`: the post-impact sets of many pre-impact states, one
//! table row per state (Parquet or CSV), the sets as NPY; and
//! `impactset reach-merge`, which joins the tables and sets of shards.

mod sets;
mod shard;
mod tables;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;

use super::{InputError, options, source};
use impactset::analysis::ModeOptions;
use impactset::gpu::Precision;
use impactset::io::ProblemSpec;
use impactset::reach::{
    BatchIdentity, Direction, DirectionKind, META_FORMAT, MergeError, ReachError, ReachExtremes, ReachInput,
    ReachOptions, ShardMeta, StateProblem, StateResult, TableEnd, VelocityFormat, merge_plan, parse_velocities,
    reach_stream, schema,
};
use impactset::run::{BackendChoice, RunControl};
use impactset::{SamplerOptions, Schedule, Selection};
use sets::SetsWriter;
use shard::{shard_numbers, shard_range};
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
    /// The table: `.parquet` (or `.pq`) or `.csv`, one row per state. It
    /// names its batch and states for `reach-merge` (Parquet: key-value
    /// metadata `impactset.reach`; CSV: a first line `# impactset-reach {…}`
    /// and a last line `# impactset-reach-end {…}`, so pandas reads it with
    /// `comment="#"`). Written under a temporary name and renamed into place
    /// when complete, with --sets: an interrupted or failed run leaves the
    /// previous files.
    #[arg(long)]
    out: PathBuf,
    /// Also write every state's accepted v⁺, state after state, as one
    /// (Σ accepted) × n float64 NPY array (the table's `accepted` column
    /// splits it).
    #[arg(long)]
    sets: Option<PathBuf>,
    /// Samples per state (a state's samples are held in memory together:
    /// at most 16 GiB of them).
    #[arg(long, short = 'n', default_value_t = 256)]
    samples: usize,
    /// Step cap K [default: the first problem's, else from a 64-sample pilot run of state 0 (docs/model.md §11)].
    #[arg(long)]
    steps: Option<usize>,
    /// Impulse step h for every state [default: each problem's, else half
    /// its largest single-contact plastic impulse, with restitution at most
    /// the expansion's step size (docs/model.md §4b)].
    #[arg(long)]
    step_size: Option<f64>,
    /// Batch seed: state k samples with the state seed of (seed, k).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Worker threads [default: all cores]; results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Which solution of each step LCP a sample follows.
    #[arg(long, value_parser = options::choice_parser::<Selection>(), default_value = Selection::DEFAULT.name())]
    selection: Selection,
    /// The law of each step's impulse caps [default: the problem's, else mixed] (docs/model.md §5c).
    #[arg(long, value_parser = options::choice_parser::<Schedule>())]
    schedule: Option<Schedule>,
    /// A support direction `NAME=c0,c1,…` (n numbers): the table gets
    /// NAME_max and NAME_min of cᵀv⁺ over each set. Repeat for more; given
    /// ones replace the default (every coordinate, every contact's normal and
    /// tangential velocity).
    #[arg(long = "direction", value_name = "NAME=C")]
    directions: Vec<String>,
    /// Skip the simultaneous and sequential baselines and their distances.
    #[arg(long)]
    no_baselines: bool,
    /// Add NAME_extreme per direction (the best cᵀv⁺ of the set and of a
    /// directed search over schedules seeded by the state's samples and
    /// ordered anchors: a certified lower bound on the support) and
    /// extremes_gap (their distance to the set) (docs/model.md §12).
    #[arg(long)]
    extremes: bool,
    /// Schedules the --extremes search evaluates per direction and state.
    #[arg(long, default_value_t = ReachExtremes::default().budget, requires = "extremes")]
    extremes_budget: usize,
    /// Run only shard I of J (`I/J`, 0 ≤ I < J < 2⁶⁴): the states
    /// ⌊I·B/J⌋ … ⌊(I+1)·B/J⌋ − 1 of B; `reach-merge` joins the shards.
    #[arg(long, value_name = "I/J")]
    shard: Option<String>,
    /// Where to run (the GPU runs the states one by one).
    #[arg(long, value_parser = options::choice_parser::<BackendChoice>(), default_value = "cpu")]
    backend: BackendChoice,
    /// GPU scalar type [default: f64 where the adapter has it, else f32].
    #[arg(long, value_parser = options::choice_parser::<Precision>())]
    precision: Option<Precision>,
    /// Contact-mode tolerance τ of the mode columns, relative to the pre-impact contact speed s: a contact separates when
    /// its normal velocity exceeds τ·s, else sticks when its tangential speed is at most τ·s
    /// (docs/model.md §6).
    #[arg(long, default_value_t = ModeOptions::default().separation_tol)]
    mode_tolerance: f64,
    /// Samples in flight at once (memory; the results do not depend on it).
    #[arg(long, default_value_t = 1 << 16)]
    window: usize,
}

/// Arguments of `impactset reach-merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The shards' tables (all Parquet or all CSV), in any order: complete
    /// tables of one batch (same states, seed, -n, steps, rule, directions…)
    /// that hold every state of it exactly once; anything else is refused.
    #[arg(required = true)]
    tables: Vec<PathBuf>,
    /// The merged table (same format as the shards; not one of them): the
    /// whole batch's table bit for bit.
    #[arg(long)]
    out: PathBuf,
    /// The shards' sets (NPY), one per table, in the same order as the
    /// tables; each must be the one written with its table (row count and
    /// digest are checked).
    #[arg(long = "sets", num_args = 1..)]
    sets: Vec<PathBuf>,
    /// The merged sets (NPY), in state order (not one of the inputs).
    #[arg(long)]
    sets_out: Option<PathBuf>,
}

/// Runs `impactset reach`.
pub fn run(args: ReachArgs) -> Result<()> {
    check_args(&args)?;
    let quiet = super::progress::quiet();
    let specs = load_problems(&args.problems)?;
    let first = specs[0].clone();
    let input = reach_input(&args, specs)?;
    let mut options = reach_options(&args, &first)?;
    let states = match &args.shard {
        Some(shard) => shard_range(shard, input.len())?,
        None => 0..input.len(),
    };
    let schema = schema(&input, &options).map_err(reach_input_error)?;
    let bar = super::progress::pilot_bar(quiet);
    let pilot = impactset::reach::resolve_steps(&input, &mut options, &|k| bar.inc(k as u64), None);
    bar.finish_and_clear();
    if let (Some(warning), false) =
        (pilot.map_err(reach_input_error)?.and_then(|cap| cap.warning(&options::option)), quiet)
    {
        eprintln!("warning: state 0: {warning}");
    }
    if let Some(coarse) =
        args.step_size.or(first.step_size).and_then(|h| impactset::sampling::coarse_expansion(&first.problem, h))
        && !quiet
    {
        let by = if args.step_size.is_some() { "--step-size" } else { "the problem's step_size" };
        eprintln!("warning: state 0: {by} {coarse}");
    }
    // Every state and option checked (as `sample` checks its own) before a
    // thread starts or an output is opened.
    impactset::reach::validate(&input, &options, states.clone()).map_err(reach_input_error)?;
    // A valid batch's states in which nothing collides (a problem file's
    // warned as it was read).
    if args.velocities.is_some()
        && !quiet
        && let Some(warning) = input.resting_warning(states.clone())
    {
        eprintln!("warning: {warning}");
    }
    let (backend, reason) =
        options::open_backend(args.backend, args.precision, &first.problem, options.sampler.selection, args.threads)?;
    if args.backend == BackendChoice::Auto && backend.is_cpu() && !quiet {
        eprintln!("note: {reason}; running on the CPU");
    }

    let directions = impactset::reach::directions(&input, &options).map_err(reach_input_error)?;
    let shard = args.shard.as_deref().map(|s| shard_numbers(s).expect("checked above"));
    let meta = ShardMeta {
        format: META_FORMAT,
        batch: BatchIdentity::new(&input, &options, &directions),
        shard: shard.map(|(i, j)| [i, j]),
        first: states.start as u64,
        end: states.end as u64,
    };
    let mut table = TableWriter::create(&args.out, &schema, &meta)?;
    let mut sets = args.sets.as_deref().map(|p| SetsWriter::create(p, first.problem.n())).transpose()?;
    let total = (states.len() as u64).saturating_mul(args.samples as u64);
    let bar = super::progress::bar(total, "samples", quiet);
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
            Ok(e) => reach_input_error(e),
            Err(e) => e,
        })?;
    bar.finish_and_clear();
    // Both files complete under temporary names, then renamed into place.
    let sets = sets.map(SetsWriter::finish).transpose()?;
    let end = TableEnd { rows: states.len() as u64, sets: sets.as_ref().map(|(digest, _)| digest.clone()) };
    let table = table.finish(&end)?;
    if let (Some((_, file)), Some(path)) = (sets, &args.sets) {
        file.commit().with_context(|| format!("{}: cannot write", path.display()))?;
    }
    table.commit().with_context(|| format!("{}: cannot write", args.out.display()))?;
    if !quiet {
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

/// The batch's states: the problems' own, or with `--velocities` the
/// first problem's configuration under each given velocity.
fn reach_input(args: &ReachArgs, specs: Vec<ProblemSpec>) -> Result<ReachInput> {
    let Some(path) = &args.velocities else {
        return ReachInput::problems(specs.into_iter().map(StateProblem::from).collect())
            .map_err(|e| input_error(e.to_string()));
    };
    if specs.len() != 1 {
        return Err(input_error(format!(
            "--velocities: give exactly one problem (the configuration), not {}",
            specs.len()
        )));
    }
    let first = specs.into_iter().next().expect("one problem");
    let velocities = read_velocities(path, first.problem.n())?;
    ReachInput::velocities(first.into(), velocities).map_err(|e| match e {
        ReachError::Velocities(why) => input_error(format!("--velocities {}: {why}", path.display())),
        e => input_error(format!("--velocities {}: {e}", path.display())),
    })
}

/// The batch's options: the arguments over the first problem's own
/// (its step cap and schedule).
fn reach_options(args: &ReachArgs, first: &ProblemSpec) -> Result<ReachOptions> {
    let directions = args.directions.iter().map(|d| parse_direction(d)).collect::<Result<Vec<_>>>()?;
    Ok(ReachOptions {
        sampler: SamplerOptions {
            samples: args.samples,
            steps: args.steps.or(first.steps),
            step_size: args.step_size,
            seed: args.seed,
            selection: args.selection,
            schedule: args.schedule.or(first.schedule).unwrap_or_default(),
            threads: args.threads,
            ..SamplerOptions::default()
        },
        directions: (!directions.is_empty()).then_some(directions),
        baselines: !args.no_baselines,
        extremes: args.extremes.then(|| ReachExtremes { budget: args.extremes_budget, ..ReachExtremes::default() }),
        keep_sets: args.sets.is_some(),
        modes: options::mode_options(args.mode_tolerance)?,
        window_samples: args.window,
        ..ReachOptions::default()
    })
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
    if args.tables.iter().any(|p| tables::is_parquet(p) != tables::is_parquet(&args.out)) {
        return Err(input_error(format!(
            "--out {}: the merged table and the shards must all be Parquet or all CSV",
            args.out.display()
        )));
    }
    let outputs = [("--out", Some(args.out.as_path())), ("--sets-out", args.sets_out.as_deref())];
    for (flag, out) in outputs {
        let Some(out) = out else { continue };
        if let Some(input) = args.tables.iter().chain(&args.sets).find(|p| same_file(p, out)) {
            return Err(input_error(format!(
                "{flag} {}: the same file as the input {} (the merge would replace a shard)",
                out.display(),
                input.display()
            )));
        }
    }
    super::outputs::preflight(&outputs)?;
    let shards: Vec<tables::ShardFile> =
        args.tables.iter().map(|p| tables::read(p)).collect::<Result<_>>().map_err(merge_input_error)?;
    let plan = merge_plan(&shards.iter().map(|s| s.table.clone()).collect::<Vec<_>>())
        .map_err(|e| input_error(e.to_string()))?;
    // The sets first: each checked against its own table while copied.
    let sets = match &args.sets_out {
        Some(out) => {
            let n = shards[plan.order[0]].coordinates();
            let mut writer = SetsWriter::create(out, n)?;
            for &i in &plan.order {
                let path = &args.sets[i];
                let (rows, columns, digest) = sets::read(path).map_err(|e| input_error(format!("{e:#}")))?;
                shards[i]
                    .table
                    .check_sets(&path.display().to_string(), &digest)
                    .map_err(|e| input_error(e.to_string()))?;
                if let Some(columns) = columns.filter(|c| *c != n) {
                    return Err(input_error(format!(
                        "{}: rows of {columns} entries, the tables have n = {n}",
                        path.display()
                    )));
                }
                for row in &rows {
                    writer.write(row)?;
                }
            }
            Some(writer.finish()?)
        }
        None => None,
    };
    let end = TableEnd { rows: plan.meta.end, sets: sets.as_ref().map(|(digest, _)| digest.clone()) };
    let table = tables::write_merged(&shards, &plan.order, &args.out, &plan.meta, &end).map_err(merge_input_error)?;
    if let (Some((_, file)), Some(path)) = (sets, &args.sets_out) {
        file.commit().with_context(|| format!("{}: cannot write", path.display()))?;
    }
    table.commit().with_context(|| format!("{}: cannot write", args.out.display()))?;
    Ok(())
}

/// Whether two paths name one existing file (links followed).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn input_error(message: String) -> anyhow::Error {
    InputError(message).into()
}

/// A merge error (a file that does not belong) as an input error; other
/// errors (a failed write) as they are.
fn merge_input_error(e: anyhow::Error) -> anyhow::Error {
    match e.downcast::<MergeError>() {
        Ok(e) => input_error(e.to_string()),
        Err(e) => e,
    }
}

/// A batch the core refuses, in the command line's words: a sampler option
/// names its flag.
fn reach_input_error(e: ReachError) -> anyhow::Error {
    match e {
        ReachError::Sampler { state, source } => {
            let flag = match source.field {
                "samples" => "--samples",
                "steps" => "--steps",
                "step_size" => "--step-size",
                "threads" => "--threads",
                "window_samples" => "--window",
                other => other,
            };
            let own = state.map_or(String::new(), |k| format!("state {k}'s own or default "));
            let hint = if state.is_some() { " (or give --step-size)" } else { "" };
            input_error(format!("{own}{flag} {}: {}{hint}", source.value, source.why))
        }
        e => input_error(e.to_string()),
    }
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
    if let Some(shard) = &args.shard {
        shard_numbers(shard)?;
    }
    for input in args.velocities.iter().map(PathBuf::as_path).chain(args.problems.iter().map(Path::new)) {
        for (flag, out) in [("--out", Some(&args.out)), ("--sets", args.sets.as_ref())] {
            if let Some(out) = out
                && same_file(input, out)
            {
                return Err(input_error(format!(
                    "{flag} {}: the same file as the input {}",
                    out.display(),
                    input.display()
                )));
            }
        }
    }
    super::outputs::preflight(&[("--out", Some(&args.out)), ("--sets", args.sets.as_deref())])
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

/// A `B × n` array from NPY or CSV ([`parse_velocities`]).
fn read_velocities(path: &Path, n: usize) -> Result<Vec<f64>> {
    let is_npy = path.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("npy"));
    let format = if is_npy { VelocityFormat::Npy } else { VelocityFormat::Csv };
    let bytes =
        std::fs::read(path).map_err(|e| input_error(format!("--velocities {}: cannot read: {e}", path.display())))?;
    parse_velocities(&bytes, format, n).map_err(|e| match e {
        ReachError::Velocities(why) => input_error(format!("--velocities {}: {why}", path.display())),
        e => input_error(format!("--velocities {}: {e}", path.display())),
    })
}

/// `NAME=c0,c1,…`.
fn parse_direction(text: &str) -> Result<Direction> {
    let (name, values) =
        text.split_once('=').ok_or_else(|| input_error(format!("--direction {text}: expected NAME=c0,c1,…")))?;
    let c: Result<Vec<f64>, _> = values.split(',').map(|x| x.trim().parse::<f64>()).collect();
    let c = c.map_err(|e| input_error(format!("--direction {text}: {e}")))?;
    Ok(Direction { name: name.trim().to_string(), kind: DirectionKind::Vector(c) })
}
