//! `impactset analyze`: how good a sampled set is as an ε-net (docs/model.md §6).

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;
use serde::Serialize;

use super::{InputError, options, source};
use impactset::analysis::{
    BaselineDistance, Embedding, EpsilonReport, ExtremesGap, ExtremesGapOptions, Metric, PointCloud,
    baseline_distances, extremes_gap,
};
use impactset::io::read_npy;
use impactset::number::readable;
use impactset::reach::ReachOptions;
use impactset::sampling::EXTREMES_SELECTION;

/// Arguments of `impactset analyze`.
#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    /// The set: an NPY file of accepted outcomes (`impactset sample --out set.npy`).
    set: PathBuf,
    /// The problem the set belongs to: problem file or built-in scene id.
    #[arg(long)]
    problem: String,
    /// An independent, larger set of the same problem: covering radius, Hausdorff distance, convergence.
    #[arg(long)]
    reference: Option<PathBuf>,
    /// Fresh samples of the same problem, independent of the set: held-out certificate [default, with
    /// neither --reference nor --heldout: every 4th outcome of the set held out, as `reach` does].
    #[arg(long)]
    heldout: Option<PathBuf>,
    /// Confidence parameter δ of the held-out certificate (confidence 1 − δ).
    #[arg(long, default_value_t = impactset::analysis::DEFAULT_DELTA)]
    delta: f64,
    /// Distance on velocities: energy (‖x‖_M), euclidean, or contact ((Jn x, Jt x)).
    #[arg(long, default_value_t = Metric::Energy)]
    metric: Metric,
    /// Skip the extremes check (the distance from the ordered anchors and a
    /// directed search's outcomes to the set).
    #[arg(long)]
    no_extremes: bool,
    /// Seeded random directions the extremes check searches.
    #[arg(long, default_value_t = ExtremesGapOptions::default().directions)]
    extremes_directions: usize,
    /// Schedules the extremes check evaluates per direction.
    #[arg(long, default_value_t = ExtremesGapOptions::default().budget)]
    extremes_budget: usize,
    /// Seed of the extremes check (its seeding samples, directions, anchors and search).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Impulse step h of the extremes check [default: the problem's, else its default]; give the set's own.
    #[arg(long)]
    step_size: Option<f64>,
    /// Step cap K of the extremes check [default: the problem's, else from a pilot run]; give the set's own.
    #[arg(long)]
    steps: Option<usize>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct AnalyzeView {
    problem: String,
    set: String,
    /// With neither --reference nor --heldout: the set's every k-th outcome
    /// was held out (the certificate's held-out samples) and the rest is the net.
    #[serde(skip_serializing_if = "Option::is_none")]
    held_out_every: Option<u64>,
    epsilon: EpsilonReport,
    /// The extremes check, next to ε (absent with --no-extremes).
    #[serde(skip_serializing_if = "Option::is_none")]
    extremes_gap: Option<ExtremesGap>,
    baselines: Vec<BaselineDistance>,
}

/// With neither `--reference` nor `--heldout`, every this-th outcome of the
/// set is held out: the split `reach` uses for each state's ε.
const SELF_HELD_OUT_EVERY: u64 = ReachOptions::DEFAULT_HELDOUT_EVERY;

/// Runs `impactset analyze`.
pub fn run(args: AnalyzeArgs) -> Result<()> {
    if !(args.delta > 0.0 && args.delta < 1.0) {
        return Err(InputError(format!("--delta {}: must lie strictly between 0 and 1", readable(args.delta))).into());
    }
    let spec = source::load(&args.problem)?;
    let embedding = args.metric.embedding(&spec.problem);
    let rows = load_rows(&args.set, &embedding)?;
    if rows.is_empty() {
        return Err(InputError(format!("{}: the set holds no outcome", args.set.display())).into());
    }
    // Neither a reference nor held-out samples: the set's own outcomes are
    // independent draws of one law, so every k-th is held out against the
    // rest, as `reach` measures each state (docs/model.md §12).
    let split = (args.reference.is_none() && args.heldout.is_none()).then_some(SELF_HELD_OUT_EVERY);
    let (net, heldout) = match split {
        Some(every) => {
            if rows.len() < every as usize {
                return Err(InputError(format!(
                    "{}: {} outcomes; without --reference or --heldout every {every}th is held out, so give at least {every}",
                    args.set.display(),
                    rows.len()
                ))
                .into());
            }
            let held = |i: &usize| *i as u64 % every == every - 1;
            let net = embedding.points_of((0..rows.len()).filter(|i| !held(i)).map(|i| rows[i].as_slice()));
            let heldout = embedding.points_of((0..rows.len()).filter(held).map(|i| rows[i].as_slice()));
            (net, Some(heldout))
        }
        None => {
            let heldout = args.heldout.as_deref().map(|p| load_points(p, &embedding)).transpose()?;
            (embedding.points_of(rows.iter().map(Vec::as_slice)), heldout)
        }
    };
    let reference = args.reference.as_deref().map(|p| load_points(p, &embedding)).transpose()?;
    for (flag, cloud) in [("--reference", &reference), ("--heldout", &heldout)] {
        if cloud.as_ref().is_some_and(PointCloud::is_empty) {
            return Err(InputError(format!("{flag}: the file holds no outcome")).into());
        }
    }
    let report = EpsilonReport::new(&spec.problem, &embedding, &net, reference.as_ref(), heldout.as_ref(), args.delta);
    let epsilon = report.epsilon().unwrap_or(f64::NAN);
    let extremes_gap = (!args.no_extremes).then(|| check_extremes(&args, &spec, &embedding, &net)).transpose()?;
    let view = AnalyzeView {
        problem: spec.name.clone(),
        set: args.set.display().to_string(),
        held_out_every: split,
        extremes_gap,
        baselines: baseline_distances(&spec.problem, &embedding, &net, epsilon),
        epsilon: report,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&view)?);
    } else {
        print_view(&view);
    }
    Ok(())
}

/// The extremes check under the problem's (or the given) step size and
/// cap, with the search's rule (`random-lemke`) and the problem's law.
fn check_extremes(
    args: &AnalyzeArgs,
    spec: &impactset::io::ProblemSpec,
    embedding: &Embedding,
    net: &PointCloud,
) -> Result<ExtremesGap> {
    if let Some(h) = args.step_size
        && !(h.is_finite() && h > 0.0)
    {
        return Err(InputError(format!("--step-size {}: must be a positive number", readable(h))).into());
    }
    let check = ExtremesGapOptions {
        directions: args.extremes_directions,
        budget: args.extremes_budget,
        ..ExtremesGapOptions::default()
    };
    let mut base = spec.clone();
    base.step_size = args.step_size.or(base.step_size);
    base.steps = args.steps.or(base.steps);
    let options = options::sampler_options(&base, check.samples, 0, args.seed, EXTREMES_SELECTION, None, None)?;
    extremes_gap(&spec.problem, &options, embedding, net, &check).map_err(|e| {
        let flag = match e.field {
            "directions" | "budget" => format!("--extremes-{}", e.field),
            field => format!("--{}", field.replace('_', "-")),
        };
        InputError(format!("{flag} {}: {}", e.value, e.why)).into()
    })
}

/// Reads an NPY set and embeds its rows; a bad file is an input error.
fn load_points(path: &Path, embedding: &Embedding) -> Result<PointCloud> {
    let rows = load_rows(path, embedding)?;
    Ok(embedding.points_of(rows.iter().map(Vec::as_slice)))
}

/// Reads an NPY set of `embedding.n()` columns; a bad file is an input error.
fn load_rows(path: &Path, embedding: &Embedding) -> Result<Vec<Vec<f64>>> {
    let rows = read_npy(path).map_err(|e| InputError(format!("{e:#}")))?;
    if let Some(row) = rows.iter().find(|r| r.len() != embedding.n()) {
        return Err(InputError(format!(
            "{}: rows have {} entries, the problem has n = {} velocities",
            path.display(),
            row.len(),
            embedding.n()
        ))
        .into());
    }
    if rows.iter().flatten().any(|x| !x.is_finite()) {
        return Err(InputError(format!("{}: holds a non-finite velocity", path.display())).into());
    }
    Ok(rows)
}

fn print_view(v: &AnalyzeView) {
    let r = &v.epsilon;
    println!("{} ({}): {} outcomes, {} metric, ‖v⁻‖ = {:.6}", v.problem, v.set, r.net_size, r.metric, r.velocity_norm);
    if let (Some(c), Some(h), Some(n)) = (r.covering_radius, r.hausdorff, r.reference_size) {
        println!("  covering radius against {n} reference outcomes: ε = {:.4e} ({:.4e} ‖v⁻‖)", c.absolute, c.relative);
        println!("  symmetric Hausdorff distance:                 {:.4e} ({:.4e} ‖v⁻‖)", h.absolute, h.relative);
    }
    if let Some(conv) = &r.convergence {
        let curve: Vec<String> = conv.points.iter().map(|p| format!("{}: {:.3e}", p.samples, p.epsilon)).collect();
        println!("  convergence (prefix size: ε): {}", curve.join(", "));
        if let Some(s) = conv.slope {
            println!("  fitted ε ∝ M^{s:.3}");
        }
    }
    if let (Some(c), Some(rel)) = (&r.certificate, r.certificate_relative) {
        if let Some(every) = v.held_out_every {
            println!("  held out: every {every}th outcome of the set (no --reference or --heldout given)");
        }
        println!(
            "  held-out certificate: all {} held-out outcomes within ε = {:.4e} ({:.4e} ‖v⁻‖), median {:.4e}",
            c.held_out, c.epsilon, rel, c.median_distance
        );
        println!(
            "    with confidence {:.0}%, a new sample of the same law lands farther than ε with probability < {:.3e}",
            100.0 * (1.0 - c.delta),
            c.miss_probability
        );
        println!("    (coverage under the sampling law: not the distance to the set's extremes)");
    }
    if let Some(x) = &v.extremes_gap {
        println!(
            "  extremes check: {} anchors and {} searched directions ({} schedules each) lie within {:.4e} ({:.4e} ‖v⁻‖)",
            x.anchors, x.directions, x.budget, x.gap.absolute, x.gap.relative
        );
        if !x.farthest.is_empty() {
            println!("    of the set; farthest: {}", x.farthest);
        }
    }
    println!("  baselines: distance to the nearest outcome");
    for b in &v.baselines {
        let within = if b.within_epsilon { "within ε" } else { "OUTSIDE ε" };
        println!("    {:<46} {:.4e} ({:.4e} ‖v⁻‖) {within}", b.label, b.distance, b.relative);
    }
}
