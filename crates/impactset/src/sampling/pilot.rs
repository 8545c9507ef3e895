//! The default step cap `K`, derived from the problem by a pilot run
//! (docs/model.md §11).
//!
//! A sample whose impact has not ended after `K` steps is rejected, so a
//! fixed `K` rejects most samples of a problem whose impacts need many steps
//! (strongly coupled contacts, friction wedging, a small `h`). Without an
//! explicit `K`, the pilot runs [`PILOT_SAMPLES`] samples of the problem
//! under the run's own `h` and selection rule, from a stream of its own (so
//! `K` depends on the problem, `h` and the rule, never on the run's seed),
//! each capped at [`PILOT_CAP`] steps, and sets
//!
//! ```text
//! K = clamp(2 · (most steps a pilot sample needed), MIN_STEPS, PILOT_CAP)
//! ```
//!
//! The step counts of the samples are independent draws of one
//! distribution, so a further sample needs more steps than all
//! [`PILOT_SAMPLES`] pilots with probability at most `1/(PILOT_SAMPLES + 1)`
//! before the margin; the factor 2 covers the tail beyond the largest pilot.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::SamplerOptions;
use super::sample::{SampleWorkspace, run_sample};
use super::set::in_pool;
use crate::ImpactProblem;
use crate::stream;

/// Samples in the pilot run.
pub const PILOT_SAMPLES: usize = 64;

/// Step cap of a pilot sample, and the largest derived `K`.
pub const PILOT_CAP: usize = 10_000;

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
    /// The most steps a terminated pilot sample needed (0 when none
    /// terminated, or every impact ended at once).
    pub pilot_max: usize,
    /// Pilot samples whose impact did not end within [`PILOT_CAP`] steps
    /// (or whose step LCP failed).
    pub unterminated: usize,
}

impl StepCap {
    /// Some pilot impacts did not end: the problem may be ill-posed for this
    /// `h` (too small), and a share of the run's samples will be rejected.
    /// The step size is named by `option("step_size")`, as the front end
    /// spells it (see [`RunSummary::advice`](crate::run::RunSummary::advice)).
    pub fn warning(&self, option: &dyn Fn(&str) -> String) -> Option<String> {
        (self.unterminated > 0).then(|| {
            format!(
                "{} of {PILOT_SAMPLES} pilot samples did not end their impact within {PILOT_CAP} steps; \
                 expect rejected samples (a larger {} ends impacts in fewer steps)",
                self.unterminated,
                option("step_size")
            )
        })
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
    let pilot = SamplerOptions { steps: PILOT_CAP, seed: PILOT_SEED, first_index: 0, ..options.clone() };
    let key = stream::stream_key(PILOT_SEED);
    let cancelled = || cancel.is_some_and(|flag| flag.load(Ordering::Relaxed));
    let outcomes: Option<Vec<(bool, u32)>> = in_pool(options.threads, || {
        (0..PILOT_SAMPLES as u64)
            .into_par_iter()
            .map_init(
                || SampleWorkspace::new(problem),
                |ws, index| {
                    (!cancelled()).then(|| {
                        let s = run_sample(problem, &pilot, &key, index, ws, None);
                        progress(1);
                        (s.terminated && s.max_residual.is_finite(), s.steps)
                    })
                },
            )
            .collect()
    });
    let outcomes = outcomes?;
    let pilot_max = outcomes.iter().filter(|(done, _)| *done).map(|&(_, k)| k as usize).max().unwrap_or(0);
    let unterminated = outcomes.iter().filter(|(done, _)| !done).count();
    let steps = if unterminated > 0 { PILOT_CAP } else { (2 * pilot_max).clamp(MIN_STEPS, PILOT_CAP) };
    Some(StepCap { steps, pilot_max, unterminated })
}
