//! One Routh step with restitution (docs/model.md §4b): the expansion's
//! prescribed impulses, their corrections, and the energy guard.

use super::restitution::{CORRECTIONS, GUARD_ROUNDS};
use super::stream::SampleStreams;
use super::workspace::SampleWorkspace;
use crate::ImpactProblem;
use crate::impact::{Selection, StepOutcome, StepScales, continue_step, factor_support, offset_response, routh_step};
use crate::lcp::LcpError;

/// One step with restitution (docs/model.md §4b), from `ws.u`, `ws.caps`:
/// the contacts that owe expansion work push with prescribed impulses,
/// corrected until each finishing contact releases what it owes (Newton's
/// method on the works with the step's response on its solution's
/// support, the step continued on that support where it stays a solution
/// and solved again on the same selection words where it does not); the
/// works are booked and `ws.v` advanced. A step that would raise the
/// kinetic energy above `E⁻` is taken again without expansion, and the
/// sample's expansion ends (the energy guard).
pub(super) fn elastic_step(
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
        let all = selection.enumerates();
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
        let retry = !selection.enumerates() && ops.m <= ELASTIC_ENUMERATION_CONTACTS;
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
            if round == CORRECTIONS || !ws.expansion.needs_correction(&ws.caps) {
                break;
            }
            if coupled_correction(problem, ws) {
                let continued = continue_step(
                    ops,
                    ws.u.as_slice(),
                    &ws.caps,
                    ws.expansion.offset(),
                    scales,
                    residual_tol,
                    outcome,
                    &mut ws.step,
                    ws.lambda.as_mut_slice(),
                );
                if let Some(continued) = continued {
                    outcome = continued;
                    continue;
                }
            } else if !ws.expansion.correct(&ws.caps) {
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

/// The prescribed impulses corrected together by Newton's method on the
/// finishing contacts' works, with the normal impulses' response to them on
/// the support of the step's solution (docs/model.md §4b). Returns whether
/// the offsets changed; `false` (offsets unchanged) where the support's
/// matrix or the scaled Jacobian is singular or Newton's method diverges,
/// and the caller corrects each contact alone.
fn coupled_correction(problem: &ImpactProblem, ws: &mut SampleWorkspace) -> bool {
    let ops = problem.operators();
    if !factor_support(ops, &mut ws.step) {
        return false;
    }
    let count = ws.expansion.select_solving(&ws.caps);
    let mut column = std::mem::take(&mut ws.column);
    for j in 0..count {
        let k = ws.expansion.solving(j);
        offset_response(ops, &mut ws.step, k, &mut column);
        ws.expansion.set_response(j, &column);
    }
    ws.column = column;
    ws.expansion.correct_coupled(&ws.caps, &ops.delassus)
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
