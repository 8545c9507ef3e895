//! Sequential impact resolution (docs/model.md §3), the second baseline.

use nalgebra::DVector;

use super::outcome::ImpactOutcome;
use super::simultaneous::{apply_impulse, is_admissible, simultaneous_lcp};
use crate::ImpactProblem;
use crate::lcp::{LemkeOptions, LemkeWorkspace};

/// Full rounds over the contacts before sequential resolution gives up.
pub const MAX_ROUNDS: usize = 10;

/// One outcome per starting contact (docs/model.md §3).
///
/// Starting from contact `j`, resolve one contact at a time with the LCP of
/// §2 restricted to that contact, update `v`, move on in cyclic order,
/// skipping contacts that are not colliding (`(Jn v)_i ≥ −10⁻⁹ s`, `s` the
/// problem's velocity scale), until none collides or after
/// [`MAX_ROUNDS`] full rounds. The label says where it started and whether it
/// finished.
///
/// With restitution each contact compresses and then expands by the set's
/// law (`crate::sampling::sequential_with_restitution`).
pub fn sequential(problem: &ImpactProblem) -> Vec<ImpactOutcome> {
    if problem.has_restitution() {
        return crate::sampling::sequential_with_restitution(problem);
    }
    (0..problem.m()).map(|start| sequential_from(problem, start)).collect()
}

/// Sequential resolution starting from contact `start`.
pub fn sequential_from(problem: &ImpactProblem, start: usize) -> ImpactOutcome {
    let ops = problem.operators();
    let m = ops.m;
    let tol = -1e-9 * problem.velocity_scale();
    let mut ws = LemkeWorkspace::new(2 + ops.d);
    let mut v: DVector<f64> = problem.velocity().clone();
    let mut finished = false;
    'rounds: for _ in 0..MAX_ROUNDS {
        for k in 0..m {
            if problem.normal_velocities(&v).min() >= tol {
                finished = true;
                break 'rounds;
            }
            let i = (start + k) % m;
            if problem.normal_velocities(&v)[i] >= tol {
                continue;
            }
            let (a, b) = simultaneous_lcp(ops, &[i], &v);
            match ws.solve(&a, &b, &LemkeOptions::default()) {
                Ok(sol) if sol.within_tolerance => v = apply_impulse(ops, &[i], sol.z, &v),
                _ => {}
            }
        }
    }
    // Finished only if the outcome is a possible one: no contact approaching
    // and no energy gained (a solve that was off would show here).
    finished = (finished || problem.normal_velocities(&v).min() >= tol) && is_admissible(problem, &v);
    let name = &problem.contacts()[start].name;
    let label = if finished {
        format!("sequential from {name}")
    } else {
        format!("sequential from {name} (unfinished after {MAX_ROUNDS} rounds)")
    };
    ImpactOutcome::new(problem, label, v)
}
