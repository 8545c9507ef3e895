//! Algorithm 1: one sample of the post-impact set.

use super::SamplerOptions;
use super::elastic::elastic_step;
use super::schedule::SampleSchedule;
use super::stream::{self, SampleStreams};
pub(crate) use super::workspace::SampleWorkspace;
use crate::ImpactProblem;
use crate::impact::{StepOutcome, StepScales, routh_step};
use crate::lcp::LcpError;

/// One sample's outcome.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Sample {
    /// The sample index (its stream number).
    pub index: u64,
    /// The post-impact velocity `v⁺` (the last `v` if not terminated).
    pub v_plus: Vec<f64>,
    /// LCP steps taken.
    pub steps: u32,
    /// No contact was colliding at the end.
    pub terminated: bool,
    /// Terminated, and every step's residual within tolerance.
    pub accepted: bool,
    /// The largest step-LCP residual violation (`∞` if Lemke failed; JSON:
    /// `"inf"`).
    #[serde(serialize_with = "super::json::finite_or_string")]
    pub max_residual: f64,
    /// `½ v⁻ᵀ M v⁻`.
    pub energy_before: f64,
    /// `½ v⁺ᵀ M v⁺`.
    pub energy_after: f64,
    /// Steps where `all` selection could not enumerate exhaustively within its
    /// budget and completed the solution list with Lemke solves (0 otherwise).
    pub fallback_steps: u32,
    /// `all` only: steps whose `Δv` the bound from one Lemke solve
    /// certified unique (docs/model.md §5b). Counted in summaries, not
    /// written per sample.
    #[serde(skip)]
    pub certified_steps: u32,
    /// Restitution only: the energy guard fired (an expansion step would
    /// have raised the kinetic energy above `E⁻`; docs/model.md §4b), so
    /// that step and the rest of the sample were taken without expansion.
    /// Not written when `false`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub energy_guard: bool,
    /// Why the step LCP failed, when one did (the sample then stops,
    /// unterminated, with `max_residual = ∞`). Not written when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lcp_failure: Option<LcpFailure>,
}

/// How a step LCP failed (see [`LcpError`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LcpFailure {
    /// Secondary ray: no solution found.
    Ray,
    /// The pivot cap was reached.
    PivotCap,
    /// The path ended outside the residual tolerance.
    Inaccurate,
}

impl From<LcpError> for LcpFailure {
    fn from(e: LcpError) -> Self {
        match e {
            LcpError::Ray { .. } | LcpError::Size { .. } | LcpError::CoverSize { .. } => LcpFailure::Ray,
            LcpError::PivotLimit { .. } => LcpFailure::PivotCap,
            LcpError::Inaccurate { .. } => LcpFailure::Inaccurate,
        }
    }
}

/// One step of a recorded trajectory.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct StepRecord {
    /// The cap fractions `p` drawn for the step.
    pub p: Vec<f64>,
    /// The normal impulses `λn` taken.
    pub lambda_n: Vec<f64>,
    /// The velocity after the step.
    pub v: Vec<f64>,
    /// The step LCP's residual violation.
    #[serde(serialize_with = "super::json::finite_or_string")]
    pub residual: f64,
    /// Distinct velocity changes the selection rule chose among.
    pub choices: usize,
    /// Lemke pivots the step took (0 under `all` when the enumeration
    /// found the solution). Not written to JSON.
    #[serde(skip)]
    pub pivots: usize,
}

/// A sample with every intermediate velocity.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Trajectory {
    /// The outcome.
    pub sample: Sample,
    /// The steps, in order.
    pub steps: Vec<StepRecord>,
}

/// Algorithm 1 (docs/model.md §5): sample `index` of the run.
///
/// `v = v⁻`; repeat: stop (terminated) when `min Jn v ≥ −ε_term`; stop (not
/// terminated) after `K` steps; draw `p` from the cap stream, solve the step
/// LCP under the selection rule, `v ← v + M⁻¹Jᵀλ`.
///
/// An unset step cap (`options.steps == None`) runs the pilot on every call:
/// for many samples, resolve it once first ([`SamplerOptions::resolve_steps`]).
pub fn sample_one(problem: &ImpactProblem, options: &SamplerOptions, index: u64) -> Sample {
    let options = &options.with_steps(problem);
    let key = stream::stream_key(options.seed);
    let mut ws = SampleWorkspace::new(problem);
    run_sample(problem, options, &key, index, &mut ws, None)
}

/// Algorithm 1 for sample `index`, recording every step (an unset step cap
/// runs the pilot on every call, as in [`sample_one`]).
pub fn sample_trajectory(problem: &ImpactProblem, options: &SamplerOptions, index: u64) -> Trajectory {
    let options = &options.with_steps(problem);
    let key = stream::stream_key(options.seed);
    let mut ws = SampleWorkspace::new(problem);
    let mut steps = Vec::new();
    let sample = run_sample(problem, options, &key, index, &mut ws, Some(&mut steps));
    Trajectory { sample, steps }
}

/// Where a sample's caps come from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum CapSource<'a> {
    /// The run's law ([`SamplerOptions::schedule`]), from the sample's streams.
    Law,
    /// The run's law as a run of step cap `K` draws it (its finish, docs/model.md
    /// §5c, from step `K − ⌈K/4⌉`), the sample stopped after
    /// [`SamplerOptions::steps`] steps: the first steps of the sample of
    /// cap `K` (the pilot's rounds).
    LawOf(usize),
    /// A given schedule: `p_i` of step `k` is `schedule[k][i]` (a step past
    /// its end takes every cap 1).
    Given(&'a [Vec<f64>]),
    /// Contacts in priority order: at each step the first contact of the
    /// order still approaching and every contact before it run at cap 1,
    /// the contacts after it at 0 — the contacts resolved one after the
    /// other, each resolved contact holding while the next resolves (the
    /// limit of the `ordered` law as the rates' ratios go to 0).
    Priority(&'a [usize]),
    /// One contact at a time, from the given contact in cyclic order: the
    /// contact being resolved runs at cap 1 (the others at 0) until it
    /// neither approaches nor owes expansion work, then the next contact
    /// that does takes over (the sequential baseline, docs/model.md §3).
    Sequential(usize),
}

pub(crate) fn run_sample(
    problem: &ImpactProblem,
    options: &SamplerOptions,
    key: &[u8; 32],
    index: u64,
    ws: &mut SampleWorkspace,
    record: Option<&mut Vec<StepRecord>>,
) -> Sample {
    run_sample_from(problem, options, key, index, ws, record, CapSource::Law)
}

/// [`run_sample`] with the caps from `source`; the selection rule reads
/// sample `index`'s selection stream in every case.
pub(crate) fn run_sample_from(
    problem: &ImpactProblem,
    options: &SamplerOptions,
    key: &[u8; 32],
    index: u64,
    ws: &mut SampleWorkspace,
    mut record: Option<&mut Vec<StepRecord>>,
    source: CapSource<'_>,
) -> Sample {
    let ops = problem.operators();
    let m = ops.m;
    let h = options.step_size_for(problem);
    let term = -options.termination_tol * problem.velocity_scale();
    let scales = StepScales { velocity: problem.velocity_scale(), impulse: h };
    let mut streams = SampleStreams::new(key, index);
    let cap = options.cap();
    match source {
        CapSource::Law => ws.schedule.start(options.schedule, cap, key, index),
        CapSource::LawOf(steps) => ws.schedule.start(options.schedule, steps, key, index),
        _ => {}
    }
    ws.v.copy_from(problem.velocity());
    let mut max_residual: f64 = 0.0;
    let mut steps = 0u32;
    let mut fallback_steps = 0u32;
    let mut certified_steps = 0u32;
    let mut lcp_failure = None;
    let mut current = match source {
        CapSource::Sequential(start) => start,
        _ => 0,
    };
    // `E⁻` is this problem's: the workspace may have served another `v⁻`.
    let energy_before = problem.kinetic_energy_into(problem.velocity(), &mut ws.mv);
    let elastic = ws.expansion.enabled();
    if elastic {
        ws.expansion.start(options.work_tol, energy_before, problem.velocity_scale());
    }
    let terminated = loop {
        ws.u.gemv(1.0, &ops.j, &ws.v, 0.0);
        let collided = ws.u.rows(0, m).min() < term;
        if !(collided || elastic && ws.expansion.any_expanding()) {
            break true;
        }
        if steps as usize >= cap {
            break false;
        }
        for (a, u) in ws.approaching.iter_mut().zip(ws.u.rows(0, m).iter()) {
            *a = *u < term;
        }
        // The contacts the caps are drawn for: those approaching, and with
        // restitution those still expanding.
        let active = if elastic {
            for (i, a) in ws.active.iter_mut().enumerate() {
                *a = ws.approaching[i] || ws.expansion.expanding(i);
            }
            &ws.active
        } else {
            &ws.approaching
        };
        draw_caps(source, &mut ws.schedule, &mut streams, steps, active, &mut current, &mut ws.p);
        for i in 0..m {
            ws.caps[i] = h * ws.p[i];
        }
        let outcome = solve_step(problem, options, scales, elastic, &mut streams, ws);
        steps += 1;
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(e) => {
                lcp_failure = Some(LcpFailure::from(e));
                max_residual = f64::INFINITY;
                break false;
            }
        };
        max_residual = max_residual.max(outcome.residual);
        if options.selection.enumerates() && !outcome.exhaustive {
            fallback_steps += 1;
        }
        certified_steps += u32::from(outcome.certified);
        if let Some(records) = record.as_mut() {
            records.push(StepRecord {
                p: ws.p.clone(),
                lambda_n: ws.lambda.as_slice()[..m].to_vec(),
                v: ws.v.as_slice().to_vec(),
                residual: outcome.residual,
                choices: outcome.choices,
                pivots: outcome.pivots,
            });
        }
    };
    let energy_after = problem.kinetic_energy_into(&ws.v, &mut ws.mv);
    Sample {
        index,
        v_plus: ws.v.as_slice().to_vec(),
        steps,
        terminated,
        accepted: terminated && max_residual <= options.residual_tol,
        max_residual,
        energy_before,
        energy_after,
        fallback_steps,
        certified_steps,
        energy_guard: elastic && ws.expansion.was_cut(),
        lcp_failure,
    }
}

/// The caps `p` of step `step` from `source` (docs/model.md §5c), over the
/// contacts `active`; `current` is the contact a sequential source is on.
#[inline]
fn draw_caps(
    source: CapSource<'_>,
    schedule: &mut SampleSchedule,
    streams: &mut SampleStreams,
    step: u32,
    active: &[bool],
    current: &mut usize,
    p: &mut [f64],
) {
    let m = p.len();
    match source {
        CapSource::Law | CapSource::LawOf(_) => schedule.draw(streams, step, active, p),
        CapSource::Given(schedule) => match schedule.get(step as usize) {
            Some(given) => p.copy_from_slice(given),
            None => p.fill(1.0),
        },
        CapSource::Sequential(_) => {
            if !active[*current]
                && let Some(next) = (1..m).map(|k| (*current + k) % m).find(|&i| active[i])
            {
                *current = next;
            }
            p.fill(0.0);
            p[*current] = 1.0;
        }
        CapSource::Priority(order) => {
            p.fill(0.0);
            if let Some(j) = order.iter().position(|&i| active[i]) {
                for &i in &order[..=j] {
                    p[i] = 1.0;
                }
            }
        }
    }
}

/// One Routh step under the caps in `ws.caps` (with restitution, its
/// compression and expansion, docs/model.md §4b), `ws.v` advanced when
/// the step LCP is solved.
#[inline]
fn solve_step(
    problem: &ImpactProblem,
    options: &SamplerOptions,
    scales: StepScales,
    elastic: bool,
    streams: &mut SampleStreams,
    ws: &mut SampleWorkspace,
) -> Result<StepOutcome, LcpError> {
    if elastic {
        return elastic_step(problem, options.selection, options.residual_tol, scales, streams, ws);
    }
    let ops = problem.operators();
    let outcome = routh_step(
        ops,
        ws.u.as_slice(),
        &ws.caps,
        None,
        scales,
        options.selection,
        streams,
        &mut ws.step,
        ws.lambda.as_mut_slice(),
    );
    if outcome.is_ok() {
        ws.v.gemv(1.0, &ops.minv_jt, &ws.lambda, 1.0);
    }
    outcome
}

/// Trajectories a figure or a trajectory file shows, unless told otherwise.
pub const DEFAULT_TRAJECTORIES: usize = 32;

/// The first `count` samples of a run (indices `first_index ..`) with every
/// intermediate velocity, e.g. for a figure's "intermediate velocities" layer.
pub fn first_trajectories(problem: &ImpactProblem, options: &SamplerOptions, count: usize) -> Vec<Trajectory> {
    let options = &options.with_steps(problem);
    (0..count as u64).map(|i| sample_trajectory(problem, options, options.first_index + i)).collect()
}
