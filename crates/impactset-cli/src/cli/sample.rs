//! `impactset sample`: Algorithm 2 on a problem file or scene.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;

use super::{InputError, options, outputs, source};
use impactset::analysis::{
    BaselineDistance, DEFAULT_DELTA, HeldOutCertificate, Metric, ModeHistogram, ModeOptions, ModeTally,
    baseline_distances, baseline_outcomes, held_out_certificate, velocity_norm,
};
use impactset::gpu::Precision;
use impactset::impact::ImpactOutcome;
use impactset::io::ProblemSpec;
use impactset::io::{SampleWriter, write_json};
use impactset::plot::{Marker, SetPlotOptions, plot_post_impact_set};
use impactset::run::{Backend, BackendChoice, ChunkedRun, RunControl, RunError, RunSummary, sample_chunks};
use impactset::sampling::SetTally;
use impactset::sampling::{anchor_outcomes, first_trajectories, sample_trajectory};
use impactset::{ImpactProblem, SampleSet, SamplerOptions, Schedule, Selection};
use serde::Serialize;
use std::cell::OnceCell;

/// Arguments of `impactset sample`.
#[derive(Args, Debug)]
pub struct SampleArgs {
    /// Problem file (JSON or TOML) or built-in scene id.
    problem: String,
    /// Number of samples [default: the problem's, else 4096].
    #[arg(long, short = 'n')]
    samples: Option<usize>,
    /// Step cap K [default: the problem's, else twice the most steps of a 64-sample pilot run (docs/model.md §11)].
    #[arg(long)]
    steps: Option<usize>,
    /// Impulse step h [default: the problem's, else half the largest single-contact plastic impulse, with restitution at most the expansion's step size (docs/model.md §4b)].
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
    #[arg(long, value_parser = options::choice_parser::<Selection>(), default_value = Selection::DEFAULT.name())]
    selection: Selection,
    /// The law of each step's impulse caps [default: the problem's, else mixed] (docs/model.md §5c).
    #[arg(long, value_parser = options::choice_parser::<Schedule>())]
    schedule: Option<Schedule>,
    /// Write samples: `.npy` (accepted v⁺, accepted × n float64) or `.csv` (every sample).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write the run summary as JSON.
    #[arg(long)]
    summary: Option<PathBuf>,
    /// Print the summary as JSON on standard output instead of text.
    #[arg(long)]
    json: bool,
    /// Where to run.
    #[arg(long, value_parser = options::choice_parser::<BackendChoice>(), default_value = "cpu")]
    backend: BackendChoice,
    /// GPU scalar type [default: f64 where the adapter has it, else f32]; the CPU always runs f64.
    #[arg(long, value_parser = options::choice_parser::<Precision>())]
    precision: Option<Precision>,
    /// Draw the post-impact set (contact-frame projections, trajectories, baselines): `.png` or `.svg`.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// With --plot: draw these velocity coordinates (`v<i>` or `i`, comma-separated; every pair a
    /// panel, at most 9) instead of the contact-frame velocities, e.g. a robot's base velocity.
    #[arg(long, value_delimiter = ',', value_name = "v<i>,…", requires = "plot")]
    plot_coordinates: Vec<String>,
    /// Record every step (v, p, normal impulses) of the first `--trajectory-count` samples as JSON.
    #[arg(long)]
    trajectories: Option<PathBuf>,
    /// Add the ordered anchors (the contacts resolved one after the other in every order, at most this
    /// many orders; docs/model.md §5d) to the summary and the figure, labelled by their order.
    #[arg(long, default_value_t = 0)]
    anchors: usize,
    /// Samples recorded by `--trajectories` and drawn by `--plot` (at most 4096).
    #[arg(long, default_value_t = impactset::sampling::DEFAULT_TRAJECTORIES)]
    trajectory_count: usize,
    /// Draw this many fresh samples (indices from 2⁴⁰ on) and put a held-out
    /// ε certificate (energy norm, at `analyze`'s default δ: coverage under the sampling law,
    /// not the distance to the set's extremes, see `impactset analyze`) and
    /// the baselines' distances in the summary (at most 2²⁰; the net, every accepted v⁺, is kept in
    /// memory: at most 4 GiB).
    #[arg(long, default_value_t = 0)]
    heldout: usize,
    /// Contact-mode tolerance τ of the summary's modes and the figure's colours, relative to the pre-impact contact speed s: a contact separates when
    /// its normal velocity exceeds τ·s, else sticks when its tangential speed is at most τ·s
    /// (docs/model.md §6).
    #[arg(long, default_value_t = ModeOptions::default().separation_tol)]
    mode_tolerance: f64,
    /// Samples computed and written per chunk: memory holds one chunk (the
    /// results do not depend on it) [default: as many as fit in 256 MiB, at most 2¹⁸].
    #[arg(long)]
    chunk: Option<usize>,
}

/// The summary JSON: the run's counts and settings, the joint contact modes,
/// the classic baselines and, with `--heldout`, the ε figures.
#[derive(Serialize)]
struct Report {
    #[serde(flatten)]
    summary: RunSummary,
    modes: ModeHistogram,
    baselines: Vec<ImpactOutcome>,
    /// With `--anchors`: the ordered anchors (docs/model.md §5d).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    anchors: Vec<ImpactOutcome>,
    #[serde(skip_serializing_if = "Option::is_none")]
    epsilon: Option<EpsilonFigures>,
}

/// A held-out certificate and the baselines' distances to the set.
#[derive(Serialize)]
struct EpsilonFigures {
    metric: &'static str,
    certificate: HeldOutCertificate,
    epsilon_relative: f64,
    baseline_distances: Vec<BaselineDistance>,
}

/// Largest `--heldout`.
const MAX_HELDOUT: usize = 1 << 20;

/// Largest `--trajectory-count`.
const MAX_TRAJECTORIES: usize = 4096;

/// Largest net (accepted `v⁺`) kept in memory for `--heldout`.
const MAX_NET_BYTES: u128 = 4 << 30;

/// Runs `impactset sample`.
pub fn run(args: SampleArgs) -> Result<()> {
    let spec = source::load(&args.problem)?;
    let problem = &spec.problem;
    check_args(&args)?;
    let mode_options = options::mode_options(args.mode_tolerance)?;
    let plot_panels = options::coordinate_panels(&args.plot_coordinates, problem.n())?;
    let options = run_options(&args, &spec)?;
    let chunk = args.chunk.unwrap_or_else(|| impactset::sampling::default_chunk(problem.n()));
    if let Some(out) = &args.out {
        outputs::warn_if_disk_short("--out", out, outputs::sample_file_bytes(out, options.samples, problem.n()));
    }
    let (backend, backend_reason) =
        options::open_backend(args.backend, args.precision, problem, options.selection, options.threads)?;
    if args.backend == BackendChoice::Auto && backend.is_cpu() {
        eprintln!("note: {backend_reason}; running on the CPU");
    }
    let kept = sample_and_keep(&args, problem, &options, &backend, chunk, &mode_options)?;
    let summary = RunSummary::new(&spec.name, &kept.tally, &options, &backend, &backend_reason, &kept.run);
    let modes = kept.modes.histogram();
    // The baselines (the simultaneous enumeration takes seconds on large
    // problems) are computed once, only if the summary or the plot needs them.
    let baselines: OnceCell<Vec<ImpactOutcome>> = OnceCell::new();
    let baselines = || baselines.get_or_init(|| baseline_outcomes(problem)).clone();
    let anchors = anchor_outcomes(problem, &options, args.anchors);
    if args.summary.is_some() || args.json {
        let epsilon = (args.heldout > 0).then(|| epsilon_figures(problem, &options, args.heldout, &kept.accepted));
        let report = Report {
            summary: summary.clone(),
            modes: modes.clone(),
            baselines: baselines(),
            anchors: anchors.clone(),
            epsilon,
        };
        if let Some(path) = &args.summary {
            write_json(path, &report)?;
        }
        if args.json {
            println!("{}", serde_json::to_string_pretty(&report)?);
        }
    }
    if let Some(path) = &args.trajectories {
        let count = args.trajectory_count.min(options.samples) as u64;
        let records: Vec<_> =
            (0..count).map(|i| sample_trajectory(problem, &options, options.first_index + i)).collect();
        write_json(path, &records)?;
    }
    if let Some(path) = &args.plot {
        let markers = markers(baselines().into_iter().chain(anchors.iter().cloned()).collect());
        let style =
            SetPlotOptions { title: spec.name.clone(), mode_options, panels: plot_panels, ..SetPlotOptions::default() };
        write_plot(path, &spec, &options, kept.first_chunk, args.trajectory_count, &markers, &style)?;
    }
    if !args.json {
        print_summary(&summary);
        println!("{modes}");
    }
    report_advice(&spec, &options, &summary);
    Ok(())
}

/// The arguments' domains that the sampler options do not check, and the
/// output files writable before anything runs.
fn check_args(args: &SampleArgs) -> Result<()> {
    if let Some(h) = args.step_size
        && !(h.is_finite() && h > 0.0)
    {
        return Err(
            InputError(format!("--step-size {}: must be a positive number", impactset::number::readable(h))).into()
        );
    }
    if args.samples == Some(0) {
        return Err(InputError("--samples 0: must be at least 1".into()).into());
    }
    if args.chunk == Some(0) {
        return Err(InputError("--chunk 0: must be at least 1".into()).into());
    }
    if args.threads == Some(0) {
        return Err(InputError("--threads 0: must be at least 1".into()).into());
    }
    if args.heldout > MAX_HELDOUT {
        return Err(InputError(format!(
            "--heldout {}: at most {MAX_HELDOUT} (the certificate's cost grows with held-out × net size)",
            args.heldout
        ))
        .into());
    }
    if args.trajectory_count > MAX_TRAJECTORIES {
        return Err(InputError(format!(
            "--trajectory-count {}: at most {MAX_TRAJECTORIES} (every step of each is written as JSON)",
            args.trajectory_count
        ))
        .into());
    }
    if let Some(out) = &args.out {
        let ext = out.extension().and_then(|e| e.to_str()).unwrap_or("");
        if !ext.eq_ignore_ascii_case("npy") && !ext.eq_ignore_ascii_case("csv") {
            return Err(InputError(format!("--out {}: the file must end in .npy or .csv", out.display())).into());
        }
    }
    outputs::preflight(&[
        ("--out", args.out.as_deref()),
        ("--summary", args.summary.as_deref()),
        ("--plot", args.plot.as_deref()),
        ("--trajectories", args.trajectories.as_deref()),
    ])
}

/// Whether the run keeps every accepted `v⁺` for the held-out certificate.
fn keeps_net(args: &SampleArgs) -> bool {
    args.heldout > 0 && (args.summary.is_some() || args.json)
}

/// The run's sampler options: the arguments over the problem's own, checked,
/// with the step cap resolved and the warnings on what the run will cost.
fn run_options(args: &SampleArgs, spec: &ProblemSpec) -> Result<SamplerOptions> {
    let problem = &spec.problem;
    let base = spec.sampler_options();
    let mut options = SamplerOptions {
        samples: args.samples.unwrap_or(base.samples),
        first_index: args.first_index,
        step_size: args.step_size.or(base.step_size),
        steps: args.steps.or(base.steps),
        seed: args.seed,
        selection: args.selection,
        schedule: args.schedule.unwrap_or(base.schedule),
        threads: args.threads,
        ..base
    };
    options::validate(&options, problem)?;
    if let Some(coarse) = options.step_size.and_then(|h| impactset::sampling::coarse_expansion(problem, h)) {
        let by = if args.step_size.is_some() { "--step-size" } else { "the problem's step_size" };
        eprintln!("warning: {by} {coarse}");
    }
    let net_bytes = (options.samples as u128) * (problem.n() as u128) * 8;
    if keeps_net(args) && net_bytes > MAX_NET_BYTES {
        return Err(InputError(format!(
            "--heldout {}: the ε figures keep every accepted v⁺ in memory ({} MiB for -n {}); \
             at most {} MiB: sample fewer, or run `impactset analyze` on the written set",
            args.heldout,
            net_bytes >> 20,
            options.samples,
            MAX_NET_BYTES >> 20
        ))
        .into());
    }
    options::resolve_steps(&mut options, problem, false);
    options::warn_if_all_is_slow(problem, &options, options.threads.unwrap_or_else(rayon::current_num_threads));
    Ok(options)
}

/// What the run keeps of its chunks: the counts, the mode tally, the first
/// chunk for the plot and, with `--heldout`, the accepted `v⁺` (n·8 bytes
/// per sample).
struct Kept<'p> {
    run: ChunkedRun,
    tally: SetTally,
    modes: ModeTally<'p>,
    accepted: Vec<f64>,
    first_chunk: Option<SampleSet>,
}

/// Runs the samples chunk by chunk on `backend`, with a progress bar,
/// writing `--out` as it goes.
fn sample_and_keep<'p>(
    args: &SampleArgs,
    problem: &'p ImpactProblem,
    options: &SamplerOptions,
    backend: &Backend,
    chunk: usize,
    mode_options: &ModeOptions,
) -> Result<Kept<'p>> {
    let bar = super::progress::bar(options.samples as u64, "samples", false);
    let mut writer = args.out.as_deref().map(|out| SampleWriter::create(out, problem.n())).transpose()?;
    let mut tally = SetTally::default();
    let mut modes = ModeTally::new(problem, mode_options);
    let mut accepted = Vec::new();
    let mut first_chunk: Option<SampleSet> = None;
    let progress = |k: usize| bar.inc(k as u64);
    let control = RunControl { progress: &progress, cancel: None };
    let run = sample_chunks::<anyhow::Error>(backend, problem, options, chunk, &control, &mut |chunk| {
        tally.add(&chunk);
        modes.add_accepted(&chunk);
        if let Some(writer) = &mut writer {
            writer.write(&chunk)?;
        }
        if keeps_net(args) {
            accepted.extend(chunk.accepted_velocities());
        }
        if first_chunk.is_none() && args.plot.is_some() {
            first_chunk = Some(chunk);
        }
        Ok(())
    })
    .map_err(|e| match e.downcast_ref::<RunError>() {
        Some(_) => e.context(format!("--backend {}", args.backend)),
        None => e,
    })?;
    bar.finish_and_clear();
    if let Some(writer) = writer {
        writer.finish()?;
    }
    Ok(Kept { run, tally, modes, accepted, first_chunk })
}

/// The held-out ε certificate of the accepted `v⁺` (the net, row-major) against
/// `heldout` fresh samples (indices from 2⁴⁰ on), and the baselines'
/// distances to the net.
fn epsilon_figures(
    problem: &ImpactProblem,
    options: &SamplerOptions,
    heldout: usize,
    accepted: &[f64],
) -> EpsilonFigures {
    let fresh = SamplerOptions { samples: heldout, first_index: options.first_index + (1 << 40), ..options.clone() };
    let held = impactset::sample_set(problem, &fresh);
    let embedding = Metric::Energy.embedding(problem);
    let net = embedding.points(accepted);
    let certificate = held_out_certificate(&net, &embedding.points(&held.accepted_velocities()), DEFAULT_DELTA);
    EpsilonFigures {
        metric: "energy",
        epsilon_relative: certificate.epsilon / velocity_norm(problem, &embedding),
        baseline_distances: baseline_distances(problem, &embedding, &net, certificate.epsilon),
        certificate,
    }
}

/// Draws the first chunk's samples, the first trajectories and `markers`
/// to `path`.
fn write_plot(
    path: &Path,
    spec: &ProblemSpec,
    options: &SamplerOptions,
    first_chunk: Option<SampleSet>,
    trajectory_count: usize,
    markers: &[Marker],
    style: &SetPlotOptions,
) -> Result<()> {
    let problem = &spec.problem;
    let set = first_chunk.unwrap_or(SampleSet { n: problem.n(), samples: Vec::new() });
    if set.samples.len() < options.samples {
        eprintln!("note: the plot shows the first {} of {} samples", set.samples.len(), options.samples);
    }
    let trajectories = first_trajectories(problem, options, trajectory_count.min(options.samples));
    outputs::write_atomically(path, |tmp| plot_post_impact_set(tmp, problem, &set, &trajectories, markers, style))
}

/// The core's advice on the run's parameters, on stderr. A built-in scene
/// run with its own documented K and h accepts what docs/scenes.md says it
/// does: say so once, without advice to change them; the advice is for the
/// user's own problems and parameters.
fn report_advice(spec: &ProblemSpec, options: &SamplerOptions, summary: &RunSummary) {
    let Some(advice) = summary.advice(&options::option) else { return };
    if spec.runs_as_documented(options) {
        eprintln!(
            "note: {} with its own K = {} and h = {} accepted {} of {} samples (docs/scenes.md)",
            spec.name,
            summary.steps,
            impactset::number::readable(summary.step_size),
            summary.accepted,
            summary.samples
        );
    } else {
        eprintln!("warning: {advice}");
    }
}

/// Baseline outcomes as labelled figure markers.
fn markers(outcomes: Vec<ImpactOutcome>) -> Vec<Marker> {
    outcomes.into_iter().map(Marker::from).collect()
}

fn print_summary(s: &RunSummary) {
    println!(
        "{}: {} samples, selection {}, schedule {}, {} backend ({}, {} threads), {:.3} s",
        s.problem, s.samples, s.selection, s.schedule, s.backend, s.precision, s.threads, s.elapsed_s
    );
    println!(
        "  accepted {} / terminated {} / rejected: {} unterminated (out of steps), {} failed LCP solves, {} residual",
        s.accepted, s.terminated, s.rejected_unterminated, s.rejected_failed, s.rejected_residual
    );
    println!(
        "  mean LCP steps {:.3}, max residual {:.2e}, max E⁺/E⁻ {:.6} (accepted), Lemke fallback steps {}",
        s.mean_steps, s.max_residual, s.max_energy_ratio, s.fallback_steps
    );
    println!("  h = {}, K = {}, seed {}", impactset::number::readable(s.step_size), s.steps, s.seed);
    if s.host_reruns > 0 {
        println!("  host re-runs: {} samples ran again on the CPU (docs/gpu.md)", s.host_reruns);
    }
    if !s.backend_reason.is_empty() {
        println!("  backend: {}", s.backend_reason);
    }
}
