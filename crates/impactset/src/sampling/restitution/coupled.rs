//! The coupled correction of a step's expansion (docs/model.md §4b, "How
//! much to push"): the contacts that finish their expansion, solved for
//! together by Newton's method on their works, with the step's response to
//! the prescribed impulses on its solution's support.

use nalgebra::DMatrix;

use super::Expansion;
use crate::impact::{SINGULAR, lu_in_place, lu_solve};

/// Newton iterations of a coupled correction ([`Expansion::correct_coupled`]):
/// the works are quadratic in the prescribed impulses, so Newton's method
/// converges in a few from the step's own solution.
pub const NEWTON_ROUNDS: usize = 16;

/// A coupled correction whose works' largest miss reaches this has
/// diverged (or met a NaN) and is given up.
const NEWTON_DIVERGED: f64 = 1e30;

/// Scratch of [`Expansion::correct_coupled`], for `k` contacts solved for.
#[derive(Clone, Debug, Default)]
pub(super) struct Newton {
    /// The contacts solved for together.
    solving: Vec<usize>,
    /// `∂λn/∂o_{solving[j]}`, column `j` of an `m × k` row-major matrix.
    response: Vec<f64>,
    /// `H = ½ (W_nn ∂λn/∂o)` on the rows solved for (`k × k`).
    h: Vec<f64>,
    /// The changes of the prescribed impulses, and the value each is held
    /// at, exactly (its cap or zero), if it is.
    delta: Vec<f64>,
    held: Vec<Option<f64>>,
    /// The Jacobian's LU factors, its row order, and the step (and the
    /// step in that order).
    jacobian: Vec<f64>,
    pivots: Vec<usize>,
    step: Vec<f64>,
    ordered: Vec<f64>,
    /// What each contact solved for owes.
    owed: Vec<f64>,
}

impl Expansion {
    /// Chooses the contacts a coupled correction solves for: every contact
    /// that pushes below its cap (it finishes its expansion in this step)
    /// or overshot; the others keep their impulses. Returns their number.
    pub(crate) fn select_solving(&mut self, caps: &[f64]) -> usize {
        let mut solving = std::mem::take(&mut self.newton.solving);
        solving.clear();
        solving.extend((0..caps.len()).filter(|&i| {
            let o = self.offset[i];
            o > 0.0 && (o < caps[i] || o * self.mean[i] > self.owed(i) + self.tol)
        }));
        let (m, k) = (caps.len(), solving.len());
        self.newton.response.clear();
        self.newton.response.resize(m * k, 0.0);
        self.newton.solving = solving;
        k
    }

    /// The `j`-th contact [`select_solving`](Self::select_solving) chose.
    pub(crate) fn solving(&self, j: usize) -> usize {
        self.newton.solving[j]
    }

    /// Column `j` of the response: `∂λn/∂o` for the `j`-th contact solved for.
    pub(crate) fn set_response(&mut self, j: usize, column: &[f64]) {
        let k = self.newton.solving.len();
        for (l, &x) in column.iter().enumerate() {
            self.newton.response[l * k + j] = x;
        }
    }

    /// A coupled correction (docs/model.md §4b): with the response of the
    /// normal impulses, `λn(o) = λn + R (o − o⁰)` while the support of the
    /// step's solution stays, each contact solved for releases what it
    /// owes, `o_i ũ_i(o) = owed_i` (`ũ = u_n + ½ W_nn λn`), by Newton's
    /// method on those `k` equations; an impulse that would pass its cap
    /// (or zero) is held there. Returns whether the offsets changed:
    /// `false`, offsets unchanged, when the Jacobian is singular or the
    /// iteration diverges (an iteration still moving after
    /// [`NEWTON_ROUNDS`] is taken where it stands).
    pub(crate) fn correct_coupled(&mut self, caps: &[f64], delassus: &DMatrix<f64>) -> bool {
        let m = caps.len();
        let mut nt = std::mem::take(&mut self.newton);
        let k = nt.solving.len();
        nt.h.clear();
        nt.h.extend((0..k * k).map(|x| {
            let (i, j) = (nt.solving[x / k], x % k);
            0.5 * (0..m).map(|l| delassus[(i, l)] * nt.response[l * k + j]).sum::<f64>()
        }));
        nt.owed.clear();
        nt.owed.extend(nt.solving.iter().map(|&i| self.owed(i)));
        nt.delta.clear();
        nt.delta.resize(k, 0.0);
        nt.held.clear();
        nt.held.resize(k, None);
        // Whether the iteration ended on a usable iterate: converged, or
        // at its last round (the next measurement corrects again), not on
        // a singular Jacobian or a divergence.
        let mut settled = false;
        for round in 0..NEWTON_ROUNDS {
            // F_i = o_i ũ_i − owed_i and its Jacobian δ_ij ũ_i + o_i H_ij.
            nt.jacobian.clear();
            nt.step.clear();
            let mut largest: f64 = 0.0;
            let mut jammed = false;
            for (a, &i) in nt.solving.iter().enumerate() {
                let o = self.offset[i] + nt.delta[a];
                let u = self.mean[i] + (0..k).map(|b| nt.h[a * k + b] * nt.delta[b]).sum::<f64>();
                // A resting contact's ũ is its terms' round-off (their
                // scale is the velocity scale): as a Jacobian entry it
                // would pass the singularity test or not by chance, and
                // Newton's method would push the contact to its cap on
                // noise. It is zero (and such a row singular when its
                // impulse does not move its `λn`).
                let u = if u.abs() <= self.at_rest { 0.0 } else { u };
                if nt.held[a].is_some() {
                    nt.jacobian.extend((0..k).map(|b| if a == b { 1.0 } else { 0.0 }));
                    nt.step.push(0.0);
                } else {
                    // Each row in the units of its contact's `ũ`: divided
                    // by `|ũ_i| + o_i W_ii`, what `∂F_i/∂o_i` would be were
                    // `λn_i` free to follow `o_i`.
                    let row = u.abs() + o * self.w_ii[i];
                    jammed |= row.is_nan() || row <= 0.0;
                    nt.jacobian.extend((0..k).map(|b| (o * nt.h[a * k + b] + if a == b { u } else { 0.0 }) / row));
                    let f = o * u - nt.owed[a];
                    largest = largest.max(f.abs());
                    nt.step.push(-f / row);
                }
            }
            if jammed || largest.is_nan() || largest >= NEWTON_DIVERGED {
                break;
            }
            if largest <= 0.25 * self.tol {
                settled = true;
                break;
            }
            nt.pivots.clear();
            nt.pivots.extend(0..k);
            // A contact whose work does not answer the impulses solved for
            // (a resting contact whose expansion impulse its compression
            // takes back: its row at round-off) is not solved for by
            // Newton's method: each contact is then corrected alone.
            if !lu_in_place(&mut nt.jacobian, k, &mut nt.pivots, SINGULAR) {
                break;
            }
            nt.ordered.clear();
            nt.ordered.extend(nt.pivots.iter().map(|&r| nt.step[r]));
            nt.step.copy_from_slice(&nt.ordered);
            lu_solve(&nt.jacobian, k, &mut nt.step);
            let step = &nt.step;
            let mut moved: f64 = 0.0;
            for (a, &i) in nt.solving.iter().enumerate() {
                if nt.held[a].is_some() {
                    continue;
                }
                let o = self.offset[i];
                let next = o + nt.delta[a] + step[a];
                moved = moved.max((step[a] / next.abs().max(f64::MIN_POSITIVE)).abs());
                if next >= caps[i] || next <= 0.0 {
                    let bound = if next > 0.0 { caps[i] } else { 0.0 };
                    nt.held[a] = Some(bound);
                    nt.delta[a] = bound - o;
                } else {
                    nt.delta[a] = next - o;
                }
            }
            if moved <= 4.0 * f64::EPSILON || round + 1 == NEWTON_ROUNDS {
                settled = true;
                break;
            }
        }
        let mut changed = false;
        if settled {
            for (a, &i) in nt.solving.iter().enumerate() {
                // A held impulse is its cap (or zero) exactly: `o + (cap −
                // o)` can round to a unit below the cap, which would read as
                // an expansion finishing below its cap (`off_account`) and
                // correct the step again on round-off.
                let next = nt.held[a].unwrap_or(self.offset[i] + nt.delta[a]);
                changed |= next != self.offset[i];
                self.offset[i] = next;
            }
        }
        self.newton = nt;
        changed
    }
}
