//! Algorithm 1: one sample of the post-impact set.

use nalgebra::DVector;

use super::SamplerOptions;
use super::restitution::{CORRECTIONS, Expansion, GUARD_ROUNDS};
use super::schedule::SampleSchedule;
use super::stream::{self, SampleStreams};
use crate::ImpactProblem;
use crate::impact::{Selection, StepOutcome, StepScales, StepWorkspace, routh_step};
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
}

/// A sample with every intermediate velocity.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Trajectory {
    /// The outcome.
    pub sample: Sample,
    /// The steps, in order.
    pub steps: Vec<StepRecord>,
}

/// Per-thread state of Algorithm 1, reused across samples.
pub(crate) struct SampleWorkspace {
    step: StepWorkspace,
    v: DVector<f64>,
    u: DVector<f64>,
    lambda: DVector<f64>,
    caps: Vec<f64>,
    p: Vec<f64>,
    /// The sample's cap law and its state.
    schedule: SampleSchedule,
    /// Contacts approaching at the step's start (`(Jn v)_i < −ε_term · s`).
    approaching: Vec<bool>,
    /// With restitution: contacts approaching or owing expansion work, the
    /// contacts the schedule renormalizes over.
    active: Vec<bool>,
    /// Restitution: the contacts' expansion state.
    expansion: Expansion,
    /// `v` after a step, before the energy guard accepts it.
    v_next: DVector<f64>,
    /// `M v`, for the energy.
    mv: DVector<f64>,
    /// `½ v⁻ᵀ M v⁻`, the same for every sample.
    energy_before: f64,
}

impl SampleWorkspace {
    pub(crate) fn new(problem: &ImpactProblem) -> Self {
        let ops = problem.operators();
        let impulses = ops.m + ops.m * ops.d;
        let energy_before = problem.kinetic_energy(problem.velocity());
        SampleWorkspace {
            step: StepWorkspace::new(ops),
            v: DVector::zeros(ops.n),
            u: DVector::zeros(impulses),
            lambda: DVector::zeros(impulses),
            caps: vec![0.0; ops.m],
            p: vec![0.0; ops.m],
            schedule: SampleSchedule::new(ops.m),
            approaching: vec![false; ops.m],
            active: vec![false; ops.m],
            expansion: Expansion::new(problem, energy_before),
            v_next: DVector::zeros(ops.n),
            mv: DVector::zeros(ops.n),
            energy_before,
        }
    }
}

/// Algorithm 1 (docs/model.md §5): sample `index` of the run.
///
/// `v = v⁻`; repeat: stop (terminated) when `min Jn v ≥ −ε_term`; stop (not
/// terminated) after `K` steps; draw `p` from the cap stream, solve the step
/// LCP under the selection rule, `v ← v + M⁻¹Jᵀλ`.
pub fn sample_one(problem: &ImpactProblem, options: &SamplerOptions, index: u64) -> Sample {
    let key = stream::stream_key(options.seed);
    let mut ws = SampleWorkspace::new(problem);
    run_sample(problem, options, &key, index, &mut ws, None)
}

/// Algorithm 1 for sample `index`, recording every step.
pub fn sample_trajectory(problem: &ImpactProblem, options: &SamplerOptions, index: u64) -> Trajectory {
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
    if let CapSource::Law = source {
        ws.schedule.start(options.schedule, options.steps, key, index);
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
    let elastic = ws.expansion.enabled();
    if elastic {
        ws.expansion.start(options.work_tol);
    }
    let terminated = loop {
        ws.u.gemv(1.0, &ops.j, &ws.v, 0.0);
        let collided = ws.u.rows(0, m).min() < term;
        if !(collided || elastic && ws.expansion.any_expanding()) {
            break true;
        }
        if steps as usize >= options.steps {
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
        match source {
            CapSource::Law => ws.schedule.draw(&mut streams, steps, active, &mut ws.p),
            CapSource::Given(schedule) => match schedule.get(steps as usize) {
                Some(p) => ws.p.copy_from_slice(p),
                None => ws.p.fill(1.0),
            },
            CapSource::Sequential(_) => {
                if !active[current]
                    && let Some(next) = (1..m).map(|k| (current + k) % m).find(|&i| active[i])
                {
                    current = next;
                }
                ws.p.fill(0.0);
                ws.p[current] = 1.0;
            }
            CapSource::Priority(order) => {
                ws.p.fill(0.0);
                if let Some(j) = order.iter().position(|&i| active[i]) {
                    for &i in &order[..=j] {
                        ws.p[i] = 1.0;
                    }
                }
            }
        }
        for i in 0..m {
            ws.caps[i] = h * ws.p[i];
        }
        let outcome = if elastic {
            elastic_step(problem, options.selection, options.residual_tol, scales, &mut streams, ws)
        } else {
            let outcome = routh_step(
                ops,
                ws.u.as_slice(),
                &ws.caps,
                None,
                scales,
                options.selection,
                &mut streams,
                &mut ws.step,
                ws.lambda.as_mut_slice(),
            );
            if outcome.is_ok() {
                ws.v.gemv(1.0, &ops.minv_jt, &ws.lambda, 1.0);
            }
            outcome
        };
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
        if options.selection == Selection::All && !outcome.exhaustive {
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
        energy_before: ws.energy_before,
        energy_after,
        fallback_steps,
        certified_steps,
        energy_guard: elastic && ws.expansion.was_cut(),
        lcp_failure,
    }
}

/// One step with restitution (docs/model.md §4b), from `ws.u`, `ws.caps`:
/// the contacts that owe expansion work push with prescribed impulses,
/// corrected by re-solving the step (on the same selection words) until
/// each finishing contact releases what it owes; the works are booked and
/// `ws.v` advanced. A step that would raise the kinetic energy above `E⁻`
/// is taken again without expansion, and the sample's expansion ends (the
/// energy guard).
fn elastic_step(
    problem: &ImpactProblem,
    selection: Selection,
    residual_tol: f64,
    scales: StepScales,
    streams: &mut SampleStreams,
    ws: &mut SampleWorkspace,
) -> Result<StepOutcome, LcpError> {
    let ops = problem.operators();
    let m = ops.m;
    let u_n = &ws.u.as_slice()[..m];
    let planned = ws.expansion.plan(u_n, &ws.caps, &ws.approaching).is_some();
    if !planned && ws.caps.iter().all(|&c| c == 0.0) {
        // No contact may take impulse: the step's only solution is λ = 0
        // (a Lemke solve of that degenerate LCP can end on a ray).
        ws.lambda.fill(0.0);
        ws.expansion.measure(&ops.delassus, u_n, &ws.lambda.as_slice()[..m]);
        ws.expansion.commit(&ws.lambda.as_slice()[..m]);
        let all = selection == Selection::All;
        return Ok(StepOutcome { residual: 0.0, pivots: 0, choices: 1, exhaustive: all, certified: false });
    }
    let words = planned.then(|| streams.clone());
    let solve = |ws: &mut SampleWorkspace, streams: &mut SampleStreams, offset: bool| {
        let offset = offset.then_some(ws.expansion.offset());
        let mut at = |selection, streams: &mut SampleStreams| {
            routh_step(
                ops,
                ws.u.as_slice(),
                &ws.caps,
                offset,
                scales,
                selection,
                streams,
                &mut ws.step,
                ws.lambda.as_mut_slice(),
            )
        };
        let retry = selection != Selection::All && ops.m <= ELASTIC_ENUMERATION_CONTACTS;
        match at(selection, streams) {
            // Lemke's method can end on a ray, or on a solution outside the
            // sample's residual tolerance, on the nearly degenerate steps
            // of an expansion (a contact pushed into approach by
            // round-off): the enumerator solves them exactly.
            Err(_) if retry => at(Selection::All, streams),
            Ok(outcome) if retry && outcome.residual > residual_tol => at(Selection::All, streams),
            other => other,
        }
    };
    let mut outcome = solve(ws, streams, planned)?;
    if let Some(words) = &words {
        for round in 0..=CORRECTIONS {
            ws.expansion.measure(&ops.delassus, &ws.u.as_slice()[..m], &ws.lambda.as_slice()[..m]);
            if round == CORRECTIONS || !ws.expansion.correct(&ws.caps) {
                break;
            }
            *streams = words.clone();
            outcome = solve(ws, streams, true)?;
        }
        let energy = step_energy(problem, ws);
        if ws.expansion.gains_energy(energy) {
            outcome = energy_guard(problem, words, streams, ws, energy, &solve)?;
        }
    }
    ws.expansion.measure(&ops.delassus, &ws.u.as_slice()[..m], &ws.lambda.as_slice()[..m]);
    ws.expansion.commit(&ws.lambda.as_slice()[..m]);
    ws.expansion.settle();
    ws.v.gemv(1.0, &ops.minv_jt, &ws.lambda, 1.0);
    Ok(outcome)
}

/// Up to this many contacts, a Lemke solve that fails in a step with
/// restitution, or ends outside the sample's residual tolerance, is
/// retried by the enumerator (the `all` rule's search).
pub const ELASTIC_ENUMERATION_CONTACTS: usize = 8;

/// The kinetic energy after the step just solved (`ws.lambda`).
fn step_energy(problem: &ImpactProblem, ws: &mut SampleWorkspace) -> f64 {
    ws.v_next.copy_from(&ws.v);
    ws.v_next.gemv(1.0, &problem.operators().minv_jt, &ws.lambda, 1.0);
    problem.kinetic_energy_into(&ws.v_next, &mut ws.mv)
}

/// The energy guard (docs/model.md §4b): the step's expansion would raise
/// the kinetic energy to `energy > E⁻`. The prescribed impulses are scaled
/// by the `t ∈ [0, 1)` at which the step ends at `E⁻` (regula falsi on the
/// step's energy, each try a solve on the same selection words; `t = 0` is
/// the inelastic step, which cannot raise it), and the sample's expansion
/// ends there: what the contacts still owe is forgiven.
fn energy_guard(
    problem: &ImpactProblem,
    words: &SampleStreams,
    streams: &mut SampleStreams,
    ws: &mut SampleWorkspace,
    energy: f64,
    solve: &impl Fn(&mut SampleWorkspace, &mut SampleStreams, bool) -> Result<StepOutcome, LcpError>,
) -> Result<StepOutcome, LcpError> {
    let target = ws.expansion.energy_before();
    let base = ws.expansion.offset().to_vec();
    let try_at = |t: f64, ws: &mut SampleWorkspace, streams: &mut SampleStreams| {
        ws.expansion.scale_offset(&base, t);
        *streams = words.clone();
        let outcome = solve(ws, streams, t > 0.0)?;
        Ok::<_, LcpError>((outcome, step_energy(problem, ws) - target))
    };
    let (mut lo, mut hi) = (0.0, 1.0);
    let (_, mut f_lo) = try_at(0.0, ws, streams)?;
    let mut f_hi = energy - target;
    let mut side = 0i8;
    for _ in 0..GUARD_ROUNDS {
        if f_lo >= -ws.expansion.tolerance() {
            break;
        }
        let t = ((lo * f_hi - hi * f_lo) / (f_hi - f_lo)).clamp(lo, hi);
        if !(t > lo && t < hi) {
            break;
        }
        let (_, f) = try_at(t, ws, streams)?;
        if f > ws.expansion.tolerance() {
            (hi, f_hi) = (t, f);
            if side == 1 {
                f_lo *= 0.5;
            }
            side = 1;
        } else {
            (lo, f_lo) = (t, f);
            if side == -1 {
                f_hi *= 0.5;
            }
            side = -1;
        }
    }
    // The last try may have been above: take the step at `lo` again.
    let (outcome, _) = try_at(lo, ws, streams)?;
    ws.expansion.cut();
    Ok(outcome)
}

/// The first `count` samples of a run (indices `first_index ..`) with every
/// intermediate velocity, e.g. for a figure's "intermediate velocities" layer.
pub fn first_trajectories(problem: &ImpactProblem, options: &SamplerOptions, count: usize) -> Vec<Trajectory> {
    (0..count as u64).map(|i| sample_trajectory(problem, options, options.first_index + i)).collect()
}
