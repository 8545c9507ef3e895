//! Sampler options shared by the commands that sample on their own
//! (`modes`, `figures`), built the way `impactset sample` builds them.

use anyhow::Result;

use super::InputError;
use impactset::analysis::ModeOptions;
use impactset::gpu::Precision;
use impactset::io::ProblemSpec;
use impactset::run::{Backend, BackendChoice, OpenError};
use impactset::{ImpactProblem, NamedChoice, SamplerOptions, Schedule, Selection};

/// The options for `samples` samples of `spec` from `first_index` on
/// `threads` workers (`None`: all cores), with the problem's step size and
/// step cap (else the sampler's defaults; the pilot run that derives the cap
/// runs on the same workers).
pub fn sampler_options(
    spec: &ProblemSpec,
    samples: usize,
    first_index: u64,
    seed: u64,
    selection: Selection,
    schedule: Option<Schedule>,
    threads: Option<usize>,
) -> Result<SamplerOptions> {
    let base = spec.sampler_options();
    let schedule = schedule.unwrap_or(base.schedule);
    let mut options = SamplerOptions { samples, first_index, seed, selection, schedule, threads, ..base };
    validate(&options, &spec.problem)?;
    resolve_steps(&mut options, &spec.problem, false);
    Ok(options)
}

/// Resolves the step cap `K` of validated `options`
/// ([`SamplerOptions::resolve_steps`]: the pilot run's when neither the
/// command line nor the problem gives one, docs/model.md §11), with a
/// progress bar over the pilot's samples (a pilot under `all` on many
/// contacts takes minutes) and a warning on stderr when some pilot impacts
/// did not end; `quiet`: neither.
pub fn resolve_steps(options: &mut SamplerOptions, problem: &ImpactProblem, quiet: bool) {
    let bar = super::progress::pilot_bar(quiet);
    let pilot = options.resolve_steps(problem, &|k| bar.inc(k as u64), None);
    bar.finish_and_clear();
    let cap = pilot.expect("a pilot without a cancel flag completes");
    if let (Some(warning), false) = (cap.and_then(|cap| cap.warning(&option)), quiet) {
        eprintln!("warning: {warning}");
    }
}

/// The contact-mode tolerances of `--mode-tolerance τ` (both the separation
/// and the slip tolerance, relative to the pre-impact contact speed;
/// docs/model.md §6).
pub fn mode_options(tolerance: f64) -> Result<ModeOptions> {
    if !(tolerance.is_finite() && tolerance > 0.0) {
        let value = impactset::number::readable(tolerance);
        return Err(InputError(format!("--mode-tolerance {value}: must be a positive number")).into());
    }
    Ok(ModeOptions { separation_tol: tolerance, slip_tol: tolerance })
}

/// The panels of `--plot-coordinates` (`v<i>` or `i` each, `i < n`): every
/// pair of them ([`impactset::plot::coordinate_panels`]); none given: `None`,
/// the contact-frame panels.
pub fn coordinate_panels(given: &[String], n: usize) -> Result<Option<Vec<impactset::plot::Panel>>> {
    if given.is_empty() {
        return Ok(None);
    }
    let mut chosen = Vec::with_capacity(given.len());
    for text in given {
        let digits = text.trim().strip_prefix('v').unwrap_or(text.trim());
        match digits.parse::<usize>() {
            Ok(i) if i < n => chosen.push(i),
            _ => {
                return Err(
                    InputError(format!("--plot-coordinates {text}: expected v<i> or i with 0 ≤ i < n = {n}")).into()
                );
            }
        }
    }
    if chosen.len() < 2 {
        return Err(
            InputError("--plot-coordinates: give at least two coordinates (one panel plots a pair)".into()).into()
        );
    }
    Ok(Some(impactset::plot::coordinate_panels(&chosen)))
}

/// [`SamplerOptions::validate`] as an input error naming the flag
/// (`--steps 0: must be at least 1 …`, exit 2).
pub fn validate(options: &SamplerOptions, problem: &ImpactProblem) -> Result<()> {
    options.validate(problem).map_err(|e| {
        let flag = format!("--{}", e.field.replace('_', "-"));
        InputError(format!("{flag} {}: {}", e.value, e.why)).into()
    })
}

/// A flag taking one of the library's words for `T` (`--selection`,
/// `--schedule`, `--backend`, `--precision`), with one line of help each.
pub fn choice_parser<T: NamedChoice>() -> impl clap::builder::TypedValueParser<Value = T> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(T::choices().iter().map(|c| PossibleValue::new(c.word()).help(c.help())))
        .map(|name| name.parse::<T>().ok().expect("clap admits only the possible values"))
}

/// The shortest timing of [`per_sample_seconds`]: long enough that the
/// clock's resolution and one scheduling hiccup do not matter.
const PROBE_SECONDS: f64 = 0.1;

/// Most samples [`per_sample_seconds`] runs in one timing.
const MAX_PROBE_SAMPLES: usize = 1024;

/// A run estimated to take at least this long under `all` is warned of.
const SLOW_RUN_SECONDS: f64 = 30.0;

/// The estimate spends at most this share of the run's own time.
const ESTIMATE_SHARE: f64 = 0.1;

/// Samples of the first, cold timing of [`warn_if_all_is_slow`] (fewer
/// when the run is short).
const COLD_SAMPLES: usize = 4;

/// Seconds `samples` samples of `problem` under `options` take on one
/// thread, from a cold start (the per-run setup included).
fn time_samples(problem: &ImpactProblem, options: &SamplerOptions, samples: usize) -> f64 {
    let probe = SamplerOptions { samples, threads: Some(1), ..options.clone() };
    let start = std::time::Instant::now();
    std::hint::black_box(impactset::sample_set(problem, &probe));
    start.elapsed().as_secs_f64()
}

/// The cost of one more sample of `problem` under `options` on one thread,
/// after the per-run setup (workspaces, the enumerator's tables), which a
/// long run pays once per thread: runs of `k` and `2k` samples are timed,
/// `k` doubling until the longer takes [`PROBE_SECONDS`] or the timings
/// have spent `budget` seconds, and the difference divided by `k`. Timing
/// a few samples from a cold start instead overestimated the README's
/// first run tenfold.
fn per_sample_seconds(problem: &ImpactProblem, options: &SamplerOptions, budget: f64) -> f64 {
    let mut k = COLD_SAMPLES;
    let mut spent = 0.0;
    loop {
        let (short, long) = (time_samples(problem, options, k), time_samples(problem, options, 2 * k));
        spent += short + long;
        if long >= PROBE_SECONDS || 2 * k >= MAX_PROBE_SAMPLES || 3.0 * long + spent > budget {
            // Noise can make the difference negative: then the average.
            let marginal = (long - short) / k as f64;
            return if marginal > 0.0 { marginal } else { long / (2 * k) as f64 };
        }
        k *= 2;
    }
}

/// With a rule that enumerates every solution of each step LCP (`all`,
/// [`Selection::enumerates`]), estimates the run's time and warns on
/// stderr when it is at least [`SLOW_RUN_SECONDS`] and the rule costs much
/// more per sample than `random-lemke` (the same indices, one thread): the
/// count of solutions grows exponentially with the contacts (docs/model.md
/// §5b). The estimate costs in proportion to the run: a cold timing of a
/// few samples (at most [`ESTIMATE_SHARE`] of the run's samples per
/// thread) bounds the run's time from above, since it includes the
/// setup a run pays once per thread; only a run that bound puts past
/// [`SLOW_RUN_SECONDS`] is timed further, within [`ESTIMATE_SHARE`] of
/// that bound.
pub fn warn_if_all_is_slow(problem: &ImpactProblem, options: &SamplerOptions, threads: usize) {
    if !options.selection.enumerates() {
        return;
    }
    let per_thread = options.samples as f64 / threads.max(1) as f64;
    let cold_samples = ((ESTIMATE_SHARE * per_thread) as usize).min(COLD_SAMPLES);
    if cold_samples == 0 {
        return;
    }
    let bound = time_samples(problem, options, cold_samples) / cold_samples as f64 * per_thread;
    if bound < SLOW_RUN_SECONDS {
        return;
    }
    let budget = ESTIMATE_SHARE * bound / 2.0;
    let time =
        |selection: Selection| per_sample_seconds(problem, &SamplerOptions { selection, ..options.clone() }, budget);
    let all = time(options.selection);
    let estimate = all * per_thread;
    if estimate < SLOW_RUN_SECONDS {
        return;
    }
    let lemke = time(Selection::RandomLemke).max(1e-9);
    let ratio = all / lemke;
    if ratio >= 5.0 {
        eprintln!(
            "warning: --selection {}: about {} for {} samples here ({ratio:.0}× the cost per sample of \
             --selection random-lemke, which samples the same model with one Lemke solve per step, \
             about {}); {} enumerates every solution of each step LCP (docs/model.md §5b)",
            options.selection,
            duration(estimate),
            options.samples,
            duration(estimate / ratio),
            options.selection,
        );
    }
}

/// Seconds as `40 ms`, `12 s`, `7 min`, `3.2 h`.
fn duration(seconds: f64) -> String {
    if seconds < 1.0 {
        format!("{:.0} ms", seconds * 1e3)
    } else if seconds < 120.0 {
        format!("{seconds:.0} s")
    } else if seconds < 7200.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

/// An option as the command line spells it (`--backend cpu`), for the
/// core's typed reasons ([`impactset::run::BackendReason::describe`]).
pub fn flag(name: &str, value: &str) -> String {
    format!("{} {value}", option(name))
}

/// An option's flag (`step_size` is `--step-size`), for the core's advice
/// ([`impactset::run::RunSummary::advice`]).
pub fn option(name: &str) -> String {
    format!("--{}", name.replace('_', "-"))
}

/// [`Backend::open`] with the command line's words: the backend and why it
/// was chosen; `--precision f32` on the CPU an input error.
pub fn open_backend(
    choice: BackendChoice,
    precision: Option<Precision>,
    problem: &ImpactProblem,
    selection: Selection,
    threads: Option<usize>,
) -> Result<(Backend, String)> {
    match Backend::open(choice, precision, problem, selection, threads) {
        Ok((backend, reason)) => Ok((backend, reason.describe(&flag))),
        Err(OpenError::CpuIsF64) => {
            Err(InputError("--precision f32: the CPU backend runs in f64 only (use --backend gpu)".into()).into())
        }
        Err(e) => Err(anyhow::anyhow!("--backend {choice}: {e}")),
    }
}
