//! The step cap of a batch that gives none (docs/model.md §11–§12).

use std::borrow::Cow;
use std::sync::atomic::AtomicBool;

use super::{ReachError, ReachInput, ReachOptions};
use crate::SamplerOptions;
use crate::run::RunError;
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

/// Sets the batch's step cap `K` when it is unset (`options.sampler.steps`
/// `None`): the pilot's of state 0 ([`default_steps_with`]). Returns what
/// the pilot found (for its [`warning`](StepCap::warning)) when it ran,
/// `None` when `K` was set; [`RunError::Cancelled`] when `cancel` stopped
/// it. Every front end resolves `K` here once, before it samples.
pub fn resolve_steps(
    input: &ReachInput,
    options: &mut ReachOptions,
    progress: &(dyn Fn(usize) + Sync),
    cancel: Option<&AtomicBool>,
) -> Result<Option<StepCap>, ReachError> {
    if options.sampler.steps.is_some() {
        return Ok(None);
    }
    let cap = default_steps_with(input, options, progress, cancel)?.ok_or(ReachError::Run(RunError::Cancelled))?;
    options.sampler.steps = Some(cap.steps);
    Ok(Some(cap))
}

/// `options` with the batch's step cap resolved ([`resolve_steps`],
/// silently), borrowed when it is set.
pub(crate) fn with_steps<'a>(
    input: &ReachInput,
    options: &'a ReachOptions,
) -> Result<Cow<'a, ReachOptions>, ReachError> {
    if options.sampler.steps.is_some() {
        return Ok(Cow::Borrowed(options));
    }
    let mut resolved = options.clone();
    resolve_steps(input, &mut resolved, &|_| {}, None)?;
    Ok(Cow::Owned(resolved))
}
