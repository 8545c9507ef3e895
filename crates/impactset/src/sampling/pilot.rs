//! The default step cap `K`, derived from the problem by a pilot run
//! (docs/model.md §11).
//!
//! A sample whose impact has not ended after `K` steps is rejected, so a
//! fixed `K` rejects most samples of a problem whose impacts need many steps
//! (strongly coupled contacts, friction wedging, a small `h`). Without an
//! explicit `K`, the pilot follows [`PILOT_SAMPLES`] samples of the problem
//! under the run's own `h` and selection rule, from a stream of its own (so
//! `K` depends on the problem, `h` and the rule, never on the run's seed),
//! each drawn as a sample of cap [`PILOT_CAP`], and sets
//!
//! ```text
//! K = clamp(2 · (most steps a pilot sample needed), MIN_STEPS, PILOT_CAP)
//! ```
//!
//! The step counts of the samples are independent draws of one
//! distribution, so a further sample needs more steps than all
//! [`PILOT_SAMPLES`] pilots with probability at most `1/(PILOT_SAMPLES + 1)`
//! before the margin; the factor 2 covers the tail beyond the largest pilot.
//!
//! The pilot follows its samples in rounds of doubling step caps
//! ([`PILOT_FIRST_CAP`], twice that, … up to [`PILOT_CAP`]), each round
//! taking up only the samples still running, and starts a round only while
//! its worst case keeps the pilot within [`PILOT_BUDGET`] steps. A sample's
//! caps do not depend on the round (its law is the one of cap
//! [`PILOT_CAP`]), so a round's samples are the first steps of the
//! uncapped ones: the rounds find what one round of cap [`PILOT_CAP`]
//! would, at a bounded cost. A sample a failed step LCP stops is counted
//! apart: more steps would not end it.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::SamplerOptions;
use super::sample::{CapSource, LcpFailure, Sample, SampleWorkspace, run_sample_from};
use super::set::in_pool;
use crate::ImpactProblem;
use crate::stream;

/// Samples in the pilot run.
pub const PILOT_SAMPLES: usize = 64;

/// Step cap of a pilot sample, and the largest derived `K`.
pub const PILOT_CAP: usize = 10_000;

/// Step cap of the pilot's first round (each later round doubles it).
pub const PILOT_FIRST_CAP: usize = 64;

/// Steps the whole pilot may take, every round and sample together: the
/// cost of [`PILOT_SAMPLES`] samples of 512 steps, a twentieth of the
/// [`PILOT_SAMPLES`] · [`PILOT_CAP`] steps of impacts that never end.
pub const PILOT_BUDGET: usize = 32_768;

/// The smallest derived `K`.
pub const MIN_STEPS: usize = 10;

/// Seed of the pilot's stream (independent of every run's seed by
/// construction: the pilot's samples are never outputs).
const PILOT_SEED: u64 = 0x7069_6c6f_745f_4b00;

/// What the pilot found, and the cap it derived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepCap {
    /// The derived step cap `K`.
    pub steps: usize,
    /// Pilot samples whose impact ended.
    pub ended: usize,
    /// The most steps an ended pilot sample needed (0 when none ended, or
    /// every impact ended at once).
    pub pilot_max: usize,
    /// The median steps of the ended pilot samples (0 when none ended).
    pub pilot_median: usize,
    /// Pilot samples whose impact had not ended when the pilot stopped
    /// following them, after [`reached`](Self::reached) steps.
    pub unterminated: usize,
    /// The steps the pilot followed its unended samples for: [`PILOT_CAP`],
    /// or less where [`PILOT_BUDGET`] stopped it (0 when every sample
    /// ended or failed).
    pub reached: usize,
    /// Pilot samples stopped by a step LCP that ended on a secondary ray
    /// (no solution found).
    pub rays: usize,
    /// Pilot samples stopped by a step LCP that reached the pivot cap.
    pub pivot_caps: usize,
    /// Pilot samples stopped by a step LCP whose solution was outside its
    /// residual tolerance, or not finite.
    pub inaccurate: usize,
    /// Steps the pilot took, every round and sample together (at most
    /// [`PILOT_BUDGET`]).
    pub pilot_steps: usize,
}

impl StepCap {
    /// Pilot samples a failed step LCP stopped.
    pub fn failed(&self) -> usize {
        self.rays + self.pivot_caps + self.inaccurate
    }

    /// What the pilot saw, when some pilot samples did not end: how many
    /// ended and their step counts, how many ran out of steps and after
    /// how many, and how many a failed step LCP stopped (more steps would
    /// not help those; another selection rule may). Options are named by
    /// `option("step_size")`, `option("selection")`, as the front end
    /// spells them (see [`RunSummary::advice`](crate::run::RunSummary::advice)).
    pub fn warning(&self, option: &dyn Fn(&str) -> String) -> Option<String> {
        if self.unterminated == 0 && self.failed() == 0 {
            return None;
        }
        let mut parts = vec![match self.ended {
            0 => format!("none of {PILOT_SAMPLES} pilot samples ended its impact"),
            k => format!(
                "{k} of {PILOT_SAMPLES} pilot samples ended their impact (in at most {} steps, median {})",
                self.pilot_max, self.pilot_median
            ),
        }];
        if self.unterminated > 0 {
            let why = if self.reached < PILOT_CAP {
                format!("the pilot stops at {PILOT_BUDGET} steps in all")
            } else {
                "the pilot's cap".to_string()
            };
            parts.push(format!(
                "{} had not ended within {} steps ({why}), so K = {}: expect samples rejected as unterminated \
                 (a larger {} ends impacts in fewer steps)",
                self.unterminated,
                self.reached,
                self.steps,
                option("step_size")
            ));
        }
        if self.failed() > 0 {
            parts.push(format!(
                "{} stopped on a step LCP that could not be solved ({} on a secondary ray, {} at the pivot cap, \
                 {} outside the residual tolerance): more steps would not end those; another {} may solve them",
                self.failed(),
                self.rays,
                self.pivot_caps,
                self.inaccurate,
                option("selection")
            ));
        }
        Some(parts.join("; "))
    }
}

/// Pilot run stopped by its cancel flag ([`SamplerOptions::resolve_steps`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the pilot run was cancelled")]
pub struct PilotCancelled;

impl SamplerOptions {
    /// Sets the step cap `K` when it is unset (`steps: None`): the pilot
    /// run's for `problem` under these options (docs/model.md §11), calling
    /// `progress(k)` as `k` more pilot samples are done and stopping when
    /// `cancel` is set. Returns what the pilot found (for its
    /// [`warning`](StepCap::warning)) when it ran, `None` when `K` was
    /// set. Every front end resolves `K` here once, before it samples.
    pub fn resolve_steps(
        &mut self,
        problem: &ImpactProblem,
        progress: &(dyn Fn(usize) + Sync),
        cancel: Option<&AtomicBool>,
    ) -> Result<Option<StepCap>, PilotCancelled> {
        if self.steps.is_some() {
            return Ok(None);
        }
        let cap = default_steps_with(problem, self, progress, cancel).ok_or(PilotCancelled)?;
        self.steps = Some(cap.steps);
        Ok(Some(cap))
    }

    /// These options with the step cap resolved ([`Self::resolve_steps`],
    /// silently): borrowed when `K` is set. The library's entry points that
    /// sample call it, so a caller may leave `K` unset.
    pub fn with_steps(&self, problem: &ImpactProblem) -> Cow<'_, SamplerOptions> {
        if self.steps.is_some() {
            return Cow::Borrowed(self);
        }
        let mut resolved = self.clone();
        resolved.resolve_steps(problem, &|_| {}, None).expect("a pilot without a cancel flag completes");
        Cow::Owned(resolved)
    }
}

/// The default step cap of `problem` under `options`' step size, selection
/// rule and tolerances (its `steps`, `samples`, `seed`, `first_index` are not
/// used). Runs on `options.threads` workers (`None`: the calling thread's
/// rayon pool), as the run itself does; the result does not depend on the
/// thread count.
pub fn default_steps(problem: &ImpactProblem, options: &SamplerOptions) -> StepCap {
    default_steps_with(problem, options, &|_| {}, None).expect("a pilot without a cancel flag completes")
}

/// How one pilot sample stopped.
#[derive(Clone, Copy, Debug)]
enum Pilot {
    /// Its impact ended after this many steps.
    Ended(usize),
    /// A failed step LCP stopped it.
    Failed(LcpFailure),
    /// It reached the round's cap.
    Running,
}

impl Pilot {
    fn of(sample: &Sample) -> Pilot {
        match sample.lcp_failure {
            Some(failure) => Pilot::Failed(failure),
            None if sample.terminated => Pilot::Ended(sample.steps as usize),
            // A step whose residual is not finite failed too.
            None if !sample.max_residual.is_finite() => Pilot::Failed(LcpFailure::Inaccurate),
            None => Pilot::Running,
        }
    }
}

/// [`default_steps`] calling `progress(k)` each time `k` more pilot samples
/// are done (of [`PILOT_SAMPLES`]) and stopping when `cancel` is set
/// (checked before every pilot sample, as a run checks it): `None` then. A
/// pilot runs the run's own rule, so on a problem whose samples take long
/// (`all` on many contacts) it takes as long as [`PILOT_SAMPLES`] of them.
pub fn default_steps_with(
    problem: &ImpactProblem,
    options: &SamplerOptions,
    progress: &(dyn Fn(usize) + Sync),
    cancel: Option<&AtomicBool>,
) -> Option<StepCap> {
    let key = stream::stream_key(PILOT_SEED);
    let cancelled = || cancel.is_some_and(|flag| flag.load(Ordering::Relaxed));
    let mut cap = StepCap {
        steps: 0,
        ended: 0,
        pilot_max: 0,
        pilot_median: 0,
        unterminated: 0,
        reached: 0,
        rays: 0,
        pivot_caps: 0,
        inaccurate: 0,
        pilot_steps: 0,
    };
    let mut ended = Vec::with_capacity(PILOT_SAMPLES);
    let mut running: Vec<u64> = (0..PILOT_SAMPLES as u64).collect();
    let mut round = PILOT_FIRST_CAP;
    loop {
        let pilot = SamplerOptions { steps: Some(round), seed: PILOT_SEED, first_index: 0, ..options.clone() };
        let outcomes: Option<Vec<(u64, Pilot, u32)>> = in_pool(options.threads, || {
            // A few work items per thread, each with one workspace: the
            // setup of a workspace (the enumerator's tables) costs as much
            // as several samples of a large problem.
            let chunk = running.len().div_ceil(2 * rayon::current_num_threads()).max(1);
            let parts: Option<Vec<Vec<(u64, Pilot, u32)>>> = running
                .par_chunks(chunk)
                .map(|part| {
                    let mut ws = SampleWorkspace::new(problem);
                    part.iter()
                        .map(|&index| {
                            (!cancelled()).then(|| {
                                let source = CapSource::LawOf(PILOT_CAP);
                                let s = run_sample_from(problem, &pilot, &key, index, &mut ws, None, source);
                                (index, Pilot::of(&s), s.steps)
                            })
                        })
                        .collect()
                })
                .collect();
            parts.map(|parts| parts.into_iter().flatten().collect())
        });
        let open = running.len();
        running.clear();
        for (index, outcome, steps) in outcomes? {
            cap.pilot_steps += steps as usize;
            match outcome {
                Pilot::Ended(k) => ended.push(k),
                Pilot::Failed(LcpFailure::Ray) => cap.rays += 1,
                Pilot::Failed(LcpFailure::PivotCap) => cap.pivot_caps += 1,
                Pilot::Failed(LcpFailure::Inaccurate) => cap.inaccurate += 1,
                Pilot::Running => running.push(index),
            }
        }
        progress(open - running.len());
        let next = (2 * round).min(PILOT_CAP);
        if running.is_empty() || round == PILOT_CAP || cap.pilot_steps + running.len() * next > PILOT_BUDGET {
            break;
        }
        round = next;
    }
    ended.sort_unstable();
    cap.ended = ended.len();
    cap.pilot_max = ended.last().copied().unwrap_or(0);
    cap.pilot_median = ended.get(ended.len() / 2).copied().unwrap_or(0);
    cap.unterminated = running.len();
    if cap.unterminated > 0 {
        cap.reached = round;
        progress(cap.unterminated);
    }
    cap.steps = if cap.unterminated > 0 { PILOT_CAP } else { (2 * cap.pilot_max).clamp(MIN_STEPS, PILOT_CAP) };
    Some(cap)
}
