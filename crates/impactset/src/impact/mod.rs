//! Impact laws: the simultaneous LCP (docs/model.md §2), sequential resolution
//! (§3), the discrete Routh step (§4) and the choice among step solutions (§5b).

mod basis;
mod definition;
mod enumerate;
mod impulse_bound;
mod outcome;
mod routh_step;
mod selection;
mod sequential;
mod simultaneous;
mod violation;

pub(crate) use basis::{SINGULAR, lu_in_place, lu_solve};
pub use definition::{DEFINITION_TOLERANCE, ROUNDOFF_LIMIT, definition_violation, solves_definition};
#[cfg(feature = "gpu")]
pub(crate) use enumerate::{ACCEPT, PRUNE, REPLACED_ABOVE, SAME_DV};
pub use enumerate::{
    CertificateCounts, EnumerationCounts, EnumeratorOptions, EnumeratorTuning, MAX_SEARCH_CONTACTS, StepEnumerator,
};
#[cfg(feature = "gpu")]
pub(crate) use enumerate::{Normal, Tangential, twinned_step};
pub use outcome::{ImpactOutcome, SimultaneousOutcomes, SolutionMethod};
pub use routh_step::{
    ENUMERATED_VIOLATION, LemkeUnits, StepOutcome, StepScales, StepWorkspace, continue_step, delassus_scale,
    factor_support, lemke_scale, offset_response, routh_step, step_violation,
};
pub use selection::Selection;
pub use sequential::{MAX_ROUNDS, sequential, sequential_from};
pub use simultaneous::{MAX_ENUMERATED_SIMULTANEOUS, OUTCOME_TOLERANCE, is_admissible, simultaneous};
