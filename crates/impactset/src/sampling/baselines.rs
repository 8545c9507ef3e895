//! The two baselines with restitution (docs/model.md §2, §3 and §4b): the
//! same law as the set, Stronge's, with every contact at the same
//! unbounded rate (simultaneous) or one contact at a time (sequential).
//!
//! Both are Routh processes with caps large enough never to bind: a step
//! with every cap above the impulse it takes is the simultaneous LCP of §2
//! restricted to the contacts that run (`σ = 0`), so compression is one
//! LCP solve, and an expansion releases what it owes in one step, its
//! prescribed impulse corrected by re-solves as in the sampler.

use nalgebra::DVector;

use super::sample::{CapSource, SampleWorkspace, StepRecord, run_sample_from};
use super::{Sample, SamplerOptions, Schedule, stream};
use crate::ImpactProblem;
use crate::impact::{ImpactOutcome, Selection, SimultaneousOutcomes, SolutionMethod};

/// Runs of the `all` rule (each its own selection stream) whose distinct
/// outcomes make the simultaneous baseline with restitution.
pub const SIMULTANEOUS_RUNS: u64 = 32;

/// Steps a baseline's process may take (compression and expansion of each
/// contact, and the contacts hit again).
const STEPS: usize = 512;

/// The step size of the first try: 64·m times the default step (half the
/// largest single-contact plastic impulse), a power of two. A run in which
/// some contact took half its cap or more is rerun with caps 64 times
/// larger (up to three times): the caps never bind.
fn first_step_size(problem: &ImpactProblem) -> f64 {
    let h = 64.0 * problem.m() as f64 * problem.default_step_size();
    2f64.powi(h.log2().ceil() as i32)
}

fn run(problem: &ImpactProblem, selection: Selection, index: u64, source: CapSource<'_>) -> (Sample, Vec<StepRecord>) {
    let first = first_step_size(problem);
    let mut h = first;
    let key = stream::stream_key(0);
    let mut ws = SampleWorkspace::new(problem);
    loop {
        let options = SamplerOptions {
            step_size: Some(h),
            steps: Some(STEPS),
            selection,
            schedule: Schedule::Uniform,
            ..SamplerOptions::default()
        };
        let mut records = Vec::new();
        let sample = run_sample_from(problem, &options, &key, index, &mut ws, Some(&mut records), source);
        let bound = records.iter().any(|r| r.lambda_n.iter().zip(&r.p).any(|(l, p)| *p > 0.0 && *l >= 0.5 * h * p));
        if !bound || h > first * 64f64.powi(2) {
            return (sample, records);
        }
        h *= 64.0;
    }
}

/// The simultaneous baseline with restitution: every contact compresses
/// and expands at the same unbounded rate (each step the simultaneous LCP
/// of the contacts still approaching or expanding, with the expanding
/// ones' prescribed impulses), branches chosen by the `all` rule. Its
/// distinct outcomes over [`SIMULTANEOUS_RUNS`] runs; the method is
/// [`SolutionMethod::Enumerated`] when no step of any run had more than one
/// solution (the process is then deterministic: the one outcome is all
/// there is), [`SolutionMethod::Sampled`] otherwise.
pub fn simultaneous_with_restitution(problem: &ImpactProblem) -> SimultaneousOutcomes {
    let ones = vec![vec![1.0; problem.m()]; STEPS];
    let scale = problem.energy_norm(problem.velocity()).max(f64::MIN_POSITIVE);
    let mut found: Vec<DVector<f64>> = Vec::new();
    let mut branched = false;
    let mut failure = None;
    for index in 0..SIMULTANEOUS_RUNS {
        let (sample, records) = run(problem, Selection::All, index, CapSource::Given(&ones));
        branched |= records.iter().any(|r| r.choices > 1) || sample.fallback_steps > 0;
        if !sample.accepted {
            failure = Some(format!(
                "the simultaneous process did not end within {STEPS} steps (largest step residual {:e})",
                sample.max_residual
            ));
            continue;
        }
        let v = DVector::from_vec(sample.v_plus);
        if !found.iter().any(|w| problem.energy_norm(&(w - &v)) <= 1e-9 * scale) {
            found.push(v);
        }
        if !branched {
            break;
        }
    }
    let count = found.len();
    let outcomes: Vec<ImpactOutcome> = found
        .into_iter()
        .enumerate()
        .map(|(k, v)| ImpactOutcome::new(problem, format!("simultaneous {}/{count}", k + 1), v))
        .collect();
    let method = match (outcomes.is_empty(), branched) {
        (true, _) => SolutionMethod::Failed,
        (false, false) => SolutionMethod::Enumerated,
        (false, true) => SolutionMethod::Sampled,
    };
    SimultaneousOutcomes {
        method,
        failure: outcomes.is_empty().then(|| failure.unwrap_or_default()),
        outcomes,
        impulses: Vec::new(),
    }
}

/// The sequential baseline with restitution: from each contact, one
/// contact at a time in cyclic order, each compressing and then expanding
/// until it neither approaches nor owes work (Lemke's solution at every
/// step), the contacts that approach again taken up in turn.
pub fn sequential_with_restitution(problem: &ImpactProblem) -> Vec<ImpactOutcome> {
    (0..problem.m())
        .map(|start| {
            let (sample, _) = run(problem, Selection::Lemke, start as u64, CapSource::Sequential(start));
            let name = &problem.contacts()[start].name;
            let label = if sample.accepted {
                format!("sequential from {name}")
            } else {
                format!("sequential from {name} (unfinished after {STEPS} steps)")
            };
            ImpactOutcome::new(problem, label, DVector::from_vec(sample.v_plus))
        })
        .collect()
}
