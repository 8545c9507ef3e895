//! The step cap of a batch that gives none (docs/model.md §11–§12).

use std::sync::atomic::AtomicBool;

use super::{ReachError, ReachInput, ReachOptions};
use crate::SamplerOptions;
use crate::sampling::StepCap;

/// The pilot-derived step cap of the batch
/// ([`sampling::default_steps`](crate::sampling::default_steps)) from its
/// first state, under that state's step size and the batch's rule: one
/// pilot per batch, so its cost does not grow with the number of states.
/// Each state's default `h` scales with its own impact, so step counts
/// change little from state to state; the factor-2 margin of the rule
/// covers the rest, and a batch whose states differ much should set `K`.
/// The result depends on the batch's states and settings only, so every
/// shard of a batch derives the same `K`.
///
/// Errors: [`ReachError::Empty`] for a batch of no states (give `K`), and
/// state 0's problem or step size out of range ([`super::validate`]).
pub fn default_steps(input: &ReachInput, options: &ReachOptions) -> Result<StepCap, ReachError> {
    default_steps_with(input, options, &|_| {}, None).map(|cap| cap.expect("a pilot without a cancel flag completes"))
}

/// [`default_steps`] with the pilot's progress and cancellation
/// ([`sampling::default_steps_with`](crate::sampling::default_steps_with)):
/// `Ok(None)` when cancelled.
pub fn default_steps_with(
    input: &ReachInput,
    options: &ReachOptions,
    progress: &(dyn Fn(usize) + Sync),
    cancel: Option<&AtomicBool>,
) -> Result<Option<StepCap>, ReachError> {
    if input.is_empty() {
        return Err(ReachError::Empty);
    }
    super::validate(input, options, 0..1)?;
    let state = input.state(0)?;
    let problem = &state.problem;
    let step_size = super::validate::step_size_of(options, &state);
    let pilot = SamplerOptions { step_size: Some(step_size), ..options.sampler.clone() };
    Ok(crate::sampling::default_steps_with(problem, &pilot, progress, cancel))
}
