//! `impactset figures`: the paper's figures for built-in scenes — the
//! post-impact set with the baselines, and the convergence of its covering
//! radius — plus the ε figures as JSON.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use serde::Serialize;

use super::{InputError, options, source};
use impactset::analysis::{BaselineDistance, EpsilonReport, Metric, ModeOptions, baseline_distances};
use impactset::io::write_json;
use impactset::plot::{
    ConvergencePlotOptions, SetPlotOptions, baseline_markers, plot_convergence, plot_post_impact_set,
};
use impactset::sampling::first_trajectories;
use impactset::{SampleSet, Schedule, Selection, sample_set, scene};

/// Image formats written by `impactset figures`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FigureFormat {
    /// PNG (needs a TrueType font, e.g. fonts-dejavu-core).
    Png,
    /// SVG.
    Svg,
    /// Both PNG and SVG.
    Both,
}

impl FigureFormat {
    fn extensions(self) -> &'static [&'static str] {
        match self {
            FigureFormat::Png => &["png"],
            FigureFormat::Svg => &["svg"],
            FigureFormat::Both => &["png", "svg"],
        }
    }
}

/// Arguments of `impactset figures`.
#[derive(Args, Debug)]
pub struct FiguresArgs {
    /// Scenes or problem files [default: the five paper scenes].
    scenes: Vec<String>,
    /// Directory the figures go to (created if missing).
    #[arg(long, default_value = "docs/figures")]
    out_dir: PathBuf,
    /// Samples in each set.
    #[arg(long, short = 'n', default_value_t = impactset::sampling::DEFAULT_SAMPLES)]
    samples: usize,
    /// The reference set of the convergence curve holds this many times the samples (from index 2⁴⁰).
    #[arg(long, default_value_t = 4)]
    reference_factor: usize,
    /// Run seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Which solution of each step LCP a sample follows. A scene with no accepted outcome under
    /// `all` is redrawn with `random-lemke` (with a warning; the JSON and title say so).
    #[arg(long, value_parser = options::choice_parser::<Selection>(), default_value = Selection::DEFAULT.name())]
    selection: Selection,
    /// The law of each step's impulse caps [default: the problem's, else mixed] (docs/model.md §5c).
    #[arg(long, value_parser = options::choice_parser::<Schedule>())]
    schedule: Option<Schedule>,
    /// Intermediate velocities of this many first samples are drawn.
    #[arg(long, default_value_t = impactset::sampling::DEFAULT_TRAJECTORIES)]
    trajectories: usize,
    /// Distance of the ε figures.
    #[arg(long, default_value_t = Metric::Energy)]
    metric: Metric,
    /// Image format.
    #[arg(long, value_enum, default_value_t = FigureFormat::Png)]
    format: FigureFormat,
    /// Contact-mode tolerance τ of the set figure's colours, relative to the pre-impact contact
    /// speed s: a contact separates when its normal velocity exceeds τ·s, else sticks when its
    /// tangential speed is at most τ·s (docs/model.md §6).
    #[arg(long, default_value_t = ModeOptions::default().separation_tol)]
    mode_tolerance: f64,
}

/// The `<scene>-eps.json` written next to the figures.
#[derive(Serialize)]
struct EpsFile {
    scene: String,
    selection: &'static str,
    seed: u64,
    samples: usize,
    accepted: usize,
    reference_samples: usize,
    reference_accepted: usize,
    step_size: Option<f64>,
    steps: usize,
    /// ε of the set against the reference (which also serves as held-out set).
    epsilon: EpsilonReport,
    /// Each baseline outcome's distance to the set, against that ε.
    baselines: Vec<BaselineDistance>,
}

/// Runs `impactset figures`.
pub fn run(args: FiguresArgs) -> Result<()> {
    if args.reference_factor == 0 {
        return Err(InputError("--reference-factor 0: must be at least 1".into()).into());
    }
    options::mode_options(args.mode_tolerance)?;
    let scenes: Vec<String> = if args.scenes.is_empty() {
        scene::PAPER_SCENES.iter().map(|s| s.to_string()).collect()
    } else {
        args.scenes.clone()
    };
    // Resolve every scene first: a typo fails before minutes of sampling.
    let specs = scenes.iter().map(|s| source::load(s)).collect::<Result<Vec<_>>>()?;
    std::fs::create_dir_all(&args.out_dir)
        .map_err(|e| InputError(format!("--out-dir {}: cannot create it: {e}", args.out_dir.display())))?;
    for spec in &specs {
        figures_of(spec, &args)?;
    }
    Ok(())
}

fn figures_of(spec: &impactset::io::ProblemSpec, args: &FiguresArgs) -> Result<()> {
    let start = Instant::now();
    let problem = &spec.problem;
    let name = &spec.name;
    let mut selection = args.selection;
    let mut sampler = options::sampler_options(spec, args.samples, 0, args.seed, selection, args.schedule, None)?;
    let mut set = sample_set(problem, &sampler);
    if set.accepted_count() == 0 && selection.enumerates() {
        eprintln!("{name}: no accepted outcome with selection `all`; redrawing with `random-lemke`");
        selection = Selection::RandomLemke;
        sampler.selection = selection;
        set = sample_set(problem, &sampler);
    }
    if set.accepted_count() == 0 {
        anyhow::bail!("{name}: no accepted outcome in {} samples: no figure", args.samples);
    }
    let reference_options = impactset::SamplerOptions {
        samples: args.samples.saturating_mul(args.reference_factor),
        first_index: 1 << 40,
        ..sampler.clone()
    };
    let reference: SampleSet = sample_set(problem, &reference_options);
    let embedding = args.metric.embedding(problem);
    let net = embedding.points(&set.accepted_velocities());
    let reference_points = embedding.points(&reference.accepted_velocities());
    let has_reference = !reference_points.is_empty();
    let report = EpsilonReport::new(
        problem,
        &embedding,
        &net,
        has_reference.then_some(&reference_points),
        has_reference.then_some(&reference_points),
        impactset::analysis::DEFAULT_DELTA,
    );
    let epsilon = report.epsilon().unwrap_or(f64::NAN);
    let baselines = baseline_distances(problem, &embedding, &net, epsilon);

    let title = if selection == Selection::DEFAULT { name.clone() } else { format!("{name} ({})", selection.name()) };
    let trajectories = first_trajectories(problem, &sampler, args.trajectories);
    let markers = baseline_markers(problem);
    let mode_options = options::mode_options(args.mode_tolerance)?;
    let set_options = SetPlotOptions { title: title.clone(), mode_options, ..SetPlotOptions::default() };
    let conv_options = ConvergencePlotOptions {
        title,
        metric: format!("{} norm", args.metric.name()),
        ..ConvergencePlotOptions::default()
    };
    let mut written = Vec::new();
    for ext in args.format.extensions() {
        let path = args.out_dir.join(format!("{name}-set.{ext}"));
        plot_post_impact_set(&path, problem, &set, &trajectories, &markers, &set_options)
            .with_context(|| format!("{}: cannot draw", path.display()))?;
        written.push(path);
        if let Some(conv) = &report.convergence {
            let path = args.out_dir.join(format!("{name}-convergence.{ext}"));
            match plot_convergence(&path, conv, &conv_options) {
                Ok(()) => written.push(path),
                Err(e) => eprintln!("{name}: no convergence figure: {e}"),
            }
        }
    }
    let eps_path = args.out_dir.join(format!("{name}-eps.json"));
    let eps = EpsFile {
        scene: name.clone(),
        selection: selection.name(),
        seed: args.seed,
        samples: set.samples.len(),
        accepted: set.accepted_count(),
        reference_samples: reference.samples.len(),
        reference_accepted: reference.accepted_count(),
        step_size: sampler.step_size,
        steps: sampler.steps.expect("sampler_options resolves the step cap"),
        baselines,
        epsilon: report,
    };
    write_json(&eps_path, &eps)?;
    written.push(eps_path);
    eprintln!("{}", progress_line(&eps, start.elapsed().as_secs_f64(), &written));
    Ok(())
}

fn progress_line(eps: &EpsFile, seconds: f64, written: &[PathBuf]) -> String {
    let eps_figure = eps
        .epsilon
        .covering_radius
        .map_or("no reference".to_string(), |c| format!("ε = {:.3e} ({:.2e} ‖v⁻‖)", c.absolute, c.relative));
    let within = eps.baselines.iter().filter(|b| b.within_epsilon).count();
    let files: Vec<String> =
        written.iter().map(|p| p.file_name().map_or(String::new(), |f| f.to_string_lossy().into_owned())).collect();
    format!(
        "{}: {}/{} accepted, reference {}/{}, {eps_figure}, baselines within ε: {within}/{}, {seconds:.1} s → {}",
        eps.scene,
        eps.accepted,
        eps.samples,
        eps.reference_accepted,
        eps.reference_samples,
        eps.baselines.len(),
        files.join(", ")
    )
}
