//! The list of solutions: one per distinct velocity change, each the most
//! accurate the search met.

use nalgebra::{DMatrix, DVector};

use super::scratch::Scratch;
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

/// A certified step's Lemke solution whose own residual and step violation
/// exceed this (of the step's scales) is refined on its support
/// ([`StepEnumerator::keep_certified`]). A lower threshold (`10⁻¹⁴`,
/// `10⁻¹³`) refined more steps with no gain on the boxes' tests and cost
/// the measured four-corner landing 11–18 %.
const REFINED_ABOVE: f64 = 1e-12;

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
    /// Keeps a certified step's Lemke solution (`sc.z`, its `Δv` in
    /// `sc.dv`), refined once where Lemke's own residual is off its
    /// round-off ([`Scratch::take_lemke`]) and its step violation above
    /// [`REFINED_ABOVE`]:
    /// Lemke's pivots can leave a solution of an ill-conditioned step
    /// `10⁻¹¹` off (a box on four corners: a normal impulse that should sit
    /// at its cap, below it by that much), where the search solves the
    /// step's mode system to round-off. On the support `S` (`z_S > 0`) the
    /// solution has `w_S = 0`; the least-squares correction of
    /// `A_SS δ = −w_S` (singular values below `10⁻¹²` of the largest left
    /// out: redundant contacts make `A_SS` singular) is kept where it leaves
    /// `z ≥ 0` and lowers the violation.
    pub(super) fn keep_certified(&mut self, ops: &ContactOperators, b: &[f64], sc: &mut Scratch) {
        let (off, z, dv) = (sc.lemke_off, &mut sc.z[..], &mut sc.dv[..]);
        let size = self.size;
        let before = if off { violation(ops, b, z, &mut self.w, self.scales) } else { 0.0 };
        if before > REFINED_ABOVE {
            let support: Vec<usize> = (0..size).filter(|&c| z[c] > 0.0).collect();
            let k = support.len();
            let a = &ops.step_matrix;
            let a_ss = DMatrix::from_fn(k, k, |r, c| a[support[r] * size + support[c]]);
            let residual = DVector::from_fn(k, |r, _| -self.w[support[r]]);
            let svd = a_ss.svd(true, true);
            let largest = svd.singular_values.iter().fold(0.0f64, |x, &y| x.max(y));
            if let Ok(delta) = svd.solve(&residual, 1e-12 * largest) {
                let mut refined = z.to_vec();
                support.iter().zip(delta.iter()).for_each(|(&c, d)| refined[c] += d);
                if refined.iter().all(|&x| x >= 0.0) && violation(ops, b, &refined, &mut self.w, self.scales) < before {
                    z.copy_from_slice(&refined);
                    sc.refined += 1;
                    velocity_change(ops, z, dv);
                }
            }
        }
        self.keep(ops, z, dv, self.scales.normal);
    }

    /// How far apart two velocity changes of largest entry `scale` must be
    /// for the search to keep both, in a step whose largest cap is
    /// `normal_scale`: [`SAME_DV`] of `scale` plus a floor of `max |B|`
    /// times the cap (also the second certificate's yardstick,
    /// `linear_form.rs`).
    pub(super) fn apart(&self, scale: f64, normal_scale: f64) -> f64 {
        SAME_DV * scale + 1e-3 * SAME_DV * self.dv_map_max * normal_scale
    }
}

impl Scratch {
    /// Takes Lemke's solution `z` of a step with scales `step`, and whether
    /// its own residual is off the round-off a refinement could remove
    /// (a complementarity product or a sign beyond [`REFINED_ABOVE`] of the
    /// step's scales).
    pub(super) fn take_lemke(&mut self, z: &[f64], residual: &LcpResidual, step: TableauScales) {
        self.z.copy_from_slice(z);
        let (v, p) = (step.velocity, step.impulse);
        let floor = -REFINED_ABOVE * v.min(p);
        self.lemke_off = residual.min_z < floor
            || residual.min_w < floor
            || residual.complementarity * z.len() as f64 > REFINED_ABOVE * v * p;
    }
}

/// `Δv = M⁻¹Jᵀ` times the impulses of the step LCP's solution `z`, into `dv`.
pub(super) fn velocity_change(ops: &ContactOperators, z: &[f64], dv: &mut [f64]) {
    let m = ops.m;
    let impulses = ops.layout().impulses();
    for (r, v) in dv.iter_mut().enumerate() {
        *v = impulses.clone().map(|c| ops.minv_jt[(r, c - m)] * z[c]).sum();
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
