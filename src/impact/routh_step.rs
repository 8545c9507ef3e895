//! One discrete Routh step (model.md §4): the step LCP with per-contact
//! normal-impulse caps `h·p`, solved under a [`Selection`] rule.

use crate::lcp::{LcpError, LcpResidual, LemkeOptions, LemkeWorkspace};
use crate::problem::ContactOperators;
use crate::sampling::stream::{self, SampleStreams};

use super::{Selection, StepEnumerator};

/// Per-thread scratch space for [`routh_step`]: reused across steps and
/// samples, so a step allocates nothing.
#[derive(Clone, Debug)]
pub struct StepWorkspace {
    lemke: LemkeWorkspace,
    enumerator: StepEnumerator,
    b: Vec<f64>,
    cover: Vec<f64>,
    w: Vec<f64>,
}

impl StepWorkspace {
    /// A workspace for the step LCPs of one problem.
    pub fn new(ops: &ContactOperators) -> Self {
        let size = ops.layout().size();
        StepWorkspace {
            lemke: LemkeWorkspace::new(size),
            enumerator: StepEnumerator::new(ops),
            b: vec![0.0; size],
            cover: vec![0.0; size],
            w: vec![0.0; size],
        }
    }
}

/// What one step did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepOutcome {
    /// The residual violation of the LCP solution taken (see [`LcpResidual::violation`]).
    pub residual: f64,
    /// Lemke pivots (0 for `all`).
    pub pivots: usize,
    /// Distinct velocity changes the rule chose among (1 for the Lemke rules).
    pub choices: usize,
    /// `all` only: the contact-mode search was exhaustive, so `choices` is the
    /// number of distinct solutions of the step. `false` for the Lemke rules,
    /// and for `all` when the search ran out of node budget and was completed
    /// by randomized Lemke solves (see [`crate::impact::StepEnumerator`]).
    pub exhaustive: bool,
}

/// Solves one Routh step LCP and writes the impulse `λ = [λn; λD]` it takes.
///
/// `u = J v` holds the current contact velocities (`m + m·d`), `caps` the
/// normal-impulse caps `h·p` (`m`). The LCP is
/// `w = A_R z + b_R`, `b_R = [h·p; Jn v; JD v; 0]`, with `A_R` from
/// [`ContactOperators::step_matrix`]. Selection words are drawn from
/// `streams` as documented in [`crate::sampling::stream`].
///
/// Errors: Lemke's failure (it cannot fail on a step LCP in exact arithmetic:
/// `A_R` is copositive-plus and the LCP feasible).
pub fn routh_step(
    ops: &ContactOperators,
    u: &[f64],
    caps: &[f64],
    selection: Selection,
    streams: &mut SampleStreams,
    ws: &mut StepWorkspace,
    lambda: &mut [f64],
) -> Result<StepOutcome, LcpError> {
    let layout = ops.layout();
    let size = layout.size();
    let m = ops.m;
    ws.b[..m].copy_from_slice(caps);
    ws.b[m..size - m].copy_from_slice(u);
    ws.b[size - m..].iter_mut().for_each(|x| *x = 0.0);
    let a = &ops.step_matrix;
    let options = LemkeOptions::default();
    let impulses = layout.impulses();
    match selection {
        Selection::Lemke => {
            let sol = ws.lemke.solve(a, &ws.b, &options)?;
            lambda.copy_from_slice(&sol.z[impulses]);
            Ok(StepOutcome { residual: sol.residual.violation(), pivots: sol.pivots, choices: 1, exhaustive: false })
        }
        Selection::RandomLemke => {
            for d in ws.cover.iter_mut() {
                *d = stream::cover(streams.selection_word());
            }
            let offset = stream::index(streams.selection_word(), size);
            let sol = ws.lemke.solve_covered(a, &ws.b, Some(&ws.cover), offset, &options)?;
            lambda.copy_from_slice(&sol.z[impulses]);
            Ok(StepOutcome { residual: sol.residual.violation(), pivots: sol.pivots, choices: 1, exhaustive: false })
        }
        Selection::All => {
            let word = streams.selection_word();
            let count = ws.enumerator.enumerate(ops, &ws.b);
            if count == 0 {
                // Round-off hid every vertex: fall back to the deterministic rule.
                let sol = ws.lemke.solve(a, &ws.b, &options)?;
                lambda.copy_from_slice(&sol.z[impulses]);
                return Ok(StepOutcome {
                    residual: sol.residual.violation(),
                    pivots: sol.pivots,
                    choices: 1,
                    exhaustive: false,
                });
            }
            let z = ws.enumerator.solution(stream::index(word, count.min(1 << 16)));
            let residual = LcpResidual::compute(a, &ws.b, z, &mut ws.w);
            lambda.copy_from_slice(&z[impulses]);
            let exhaustive = ws.enumerator.exhaustive();
            Ok(StepOutcome { residual: residual.violation(), pivots: 0, choices: count, exhaustive })
        }
    }
}
