//! The checks of a batch before anything runs: the sampler's own
//! validation ([`SamplerOptions::validate`], the same as a single run's) for
//! every state under its step size, the batch's options, and the memory a
//! state's samples take.

use std::ops::Range;

use rayon::prelude::*;

use super::input::StateProblem;
use super::{ReachError, ReachInput, ReachOptions};
use crate::sampling::OptionsError;
use crate::{Sample, SamplerOptions};

/// The most bytes one state's samples may take in memory: a state's samples
/// are held together until its row is computed (16 GiB).
pub const MAX_STATE_BYTES: u64 = 1 << 34;

/// Largest number of states in flight at once.
const MAX_WINDOW_STATES: usize = 4096;

/// States per window: about `window_samples` samples, whole states, at
/// least one and at most 4096.
pub(crate) fn window_states(options: &ReachOptions) -> usize {
    (options.window_samples / options.sampler.samples.max(1)).clamp(1, MAX_WINDOW_STATES)
}

/// Bytes one sample of a state of `n` velocities holds while its row is
/// computed: the sample, its `v⁺`, its point in the energy embedding and
/// its copy in a kept set.
pub fn sample_bytes(n: usize) -> u64 {
    std::mem::size_of::<Sample>() as u64 + 3 * 8 * n as u64
}

/// The step size of a state: the batch's, else the state's own, else its
/// default (docs/model.md §11).
pub(crate) fn step_size_of(options: &ReachOptions, state: &StateProblem) -> f64 {
    options.sampler.step_size.or(state.step_size).unwrap_or_else(|| crate::sampling::default_step_size(&state.problem))
}

/// Checks the batch's options and every state of `states` before anything
/// runs: `heldout_every ≥ 2`, `δ ∈ (0, 1)`, the search's budget and
/// anchors within bounds, the range within the batch,
/// one state's samples, and a window's, within [`MAX_STATE_BYTES`], and for each state its
/// problem (a velocity row is a problem only here: finite, within the
/// problem's range) and [`SamplerOptions::validate`] under its step size
/// (`threads` included; `first_index` is 0).
///
/// Errors: [`ReachError::Sampler`] (with the state when its own or default
/// step size is at fault), [`ReachError::Problem`], [`ReachError::Options`].
pub fn validate(input: &ReachInput, options: &ReachOptions, states: Range<usize>) -> Result<(), ReachError> {
    let bad = |why: String| Err(ReachError::Options(why));
    if options.heldout_every < 2 {
        return bad(format!("heldout_every {}: must be at least 2", options.heldout_every));
    }
    if !(options.delta > 0.0 && options.delta < 1.0) {
        return bad(format!("delta {}: must lie in (0, 1)", options.delta));
    }
    if let Some(e) = &options.extremes {
        if let Err(e) = crate::sampling::check_budget(e.budget) {
            return bad(format!("extremes budget {}: {}", e.value, e.why));
        }
        if e.anchors > crate::sampling::MAX_ANCHORS {
            return bad(format!("extremes anchors {}: at most {}", e.anchors, crate::sampling::MAX_ANCHORS));
        }
    }
    if states.start > states.end || states.end > input.len() {
        return bad(format!("states {}..{} of a batch of {}", states.start, states.end, input.len()));
    }
    let sampler = |state: Option<usize>, source: OptionsError| ReachError::Sampler { state, source };
    let s = options.sampler.samples;
    if let Some(template) = input.template() {
        let per = sample_bytes(template.problem.n());
        if (s as u64).saturating_mul(per) > MAX_STATE_BYTES {
            return Err(sampler(
                None,
                OptionsError {
                    field: "samples",
                    value: s.to_string(),
                    why: format!(
                        "a state's samples are held in memory together, {per} bytes each at n = {}: at most {} per state ({} GiB)",
                        template.problem.n(),
                        MAX_STATE_BYTES / per,
                        MAX_STATE_BYTES >> 30
                    ),
                },
            ));
        }
        let window = window_states(options) as u64;
        if window > 1 && window.saturating_mul(s as u64).saturating_mul(per) > MAX_STATE_BYTES {
            return Err(sampler(
                None,
                OptionsError {
                    field: "window_samples",
                    value: options.window_samples.to_string(),
                    why: format!(
                        "a window's samples are held in memory together, {per} bytes each: at most {} in flight ({} GiB)",
                        MAX_STATE_BYTES / per,
                        MAX_STATE_BYTES >> 30
                    ),
                },
            ));
        }
        // The batch's own settings, once, against the first state.
        let h = step_size_of(options, template);
        let first = SamplerOptions { step_size: Some(h), first_index: 0, ..options.sampler.clone() };
        if let Err(e) = first.validate(&template.problem)
            && e.field != "step_size"
        {
            return Err(sampler(None, e));
        }
    }
    let check = |k: usize| -> Result<(), ReachError> {
        let state = input.state(k)?;
        let h = step_size_of(options, &state);
        let one = SamplerOptions { step_size: Some(h), first_index: 0, ..options.sampler.clone() };
        one.validate(&state.problem).map_err(|e| {
            let own = e.field == "step_size" && options.sampler.step_size.is_none();
            sampler(own.then_some(k), e)
        })
    };
    match states.into_par_iter().find_map_first(|k| check(k).err()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
