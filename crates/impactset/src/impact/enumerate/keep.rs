//! The list of solutions: one per distinct velocity change, each the most
//! accurate the search met.

use super::tableau::StepScales as TableauScales;
use super::{SAME_DV, StepEnumerator};
use crate::impact::violation::{ENUMERATED_VIOLATION, StepScales, step_violation};
use crate::lcp::LcpResidual;
use crate::problem::ContactOperators;

/// A kept solution whose step violation exceeds this is replaced by a later
/// one with the same `Δv` and a smaller violation: a mode system solved at a
/// degenerate boundary can leave a contact at `u_n⁺ = −10⁻¹⁰` in its open
/// mode, where the closed mode met later solves the LCP to round-off, and
/// `all` drops solutions above [`ENUMERATED_VIOLATION`]. Below it, the
/// first solution met is kept (every true solution sits far below).
const REPLACED_ABOVE: f64 = 0.1 * ENUMERATED_VIOLATION;

impl StepEnumerator {
    /// Appends `(z, Δv)` unless an equal `Δv` is already kept (`normal_scale`:
    /// `max_i h p_i`); an equal one kept with a step violation above
    /// [`REPLACED_ABOVE`] is replaced when `z`'s is smaller.
    pub(super) fn keep(&mut self, ops: &ContactOperators, z: &[f64], dv: &[f64], normal_scale: f64) {
        let n = self.n;
        let norm = dv.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let duplicate = self.changes.chunks_exact(n).position(|other| {
            let scale = other.iter().fold(norm, |a, x| a.max(x.abs()));
            let apart = self.apart(scale, normal_scale);
            other.iter().zip(dv).all(|(a, b)| (a - b).abs() <= apart)
        });
        match duplicate {
            None => {
                self.solutions.extend_from_slice(z);
                self.changes.extend_from_slice(dv);
                // Measured when a duplicate first needs it.
                self.violations.push(f64::NAN);
                self.count += 1;
            }
            Some(k) => {
                let size = self.size;
                if self.violations[k].is_nan() {
                    let kept = &self.solutions[k * size..(k + 1) * size];
                    self.violations[k] = violation(ops, &self.rhs, kept, &mut self.w, self.scales);
                }
                if self.violations[k] > REPLACED_ABOVE {
                    let v = violation(ops, &self.rhs, z, &mut self.w, self.scales);
                    if v < self.violations[k] {
                        self.solutions[k * size..(k + 1) * size].copy_from_slice(z);
                        self.changes[k * n..(k + 1) * n].copy_from_slice(dv);
                        self.violations[k] = v;
                    }
                }
            }
        }
    }
}

impl StepEnumerator {
    /// How far apart two velocity changes of largest entry `scale` must be
    /// for the search to keep both, in a step whose largest cap is
    /// `normal_scale`: [`SAME_DV`] of `scale` plus a floor of `max |B|`
    /// times the cap (also the second certificate's yardstick,
    /// `linear_form.rs`).
    pub(super) fn apart(&self, scale: f64, normal_scale: f64) -> f64 {
        SAME_DV * scale + 1e-3 * SAME_DV * self.dv_map_max * normal_scale
    }
}

/// The step violation of `z` for `w = A_R z + b` (`w` written) in the step's
/// own scales, its velocity scale and largest cap.
fn violation(ops: &ContactOperators, b: &[f64], z: &[f64], w: &mut [f64], step: TableauScales) -> f64 {
    LcpResidual::compute(&ops.step_matrix, b, z, w);
    let scales =
        StepScales { velocity: step.velocity.max(f64::MIN_POSITIVE), impulse: step.normal.max(f64::MIN_POSITIVE) };
    step_violation(ops.layout(), z, w, scales)
}
