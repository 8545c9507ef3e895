//! Per-thread state of Algorithm 1 (docs/model.md §5), reused across samples.
//!
//! It depends on the problem's `M` and contacts only, never on `v⁻`: a
//! reach run shares one workspace among the states of a configuration.

use nalgebra::DVector;

use super::restitution::Expansion;
use super::schedule::SampleSchedule;
use crate::ImpactProblem;
use crate::impact::StepWorkspace;

/// Per-thread state of Algorithm 1, reused across samples and across
/// problems of equal `M` and contacts.
pub(crate) struct SampleWorkspace {
    pub(super) step: StepWorkspace,
    pub(super) v: DVector<f64>,
    pub(super) u: DVector<f64>,
    pub(super) lambda: DVector<f64>,
    pub(super) caps: Vec<f64>,
    pub(super) p: Vec<f64>,
    /// The sample's cap law and its state.
    pub(super) schedule: SampleSchedule,
    /// Contacts approaching at the step's start (`(Jn v)_i < −ε_term · s`).
    pub(super) approaching: Vec<bool>,
    /// With restitution: contacts approaching or owing expansion work, the
    /// contacts the schedule renormalizes over.
    pub(super) active: Vec<bool>,
    /// Restitution: the contacts' expansion state.
    pub(super) expansion: Expansion,
    /// Scratch: one column of the normal impulses' response to a
    /// prescribed impulse (`m`).
    pub(super) column: Vec<f64>,
    /// `v` after a step, before the energy guard accepts it.
    pub(super) v_next: DVector<f64>,
    /// `M v`, for the energy.
    pub(super) mv: DVector<f64>,
}

impl SampleWorkspace {
    pub(crate) fn new(problem: &ImpactProblem) -> Self {
        let ops = problem.operators();
        let impulses = ops.m + ops.m * ops.d;
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
            expansion: Expansion::new(problem),
            column: vec![0.0; ops.m],
            v_next: DVector::zeros(ops.n),
            mv: DVector::zeros(ops.n),
        }
    }
}
