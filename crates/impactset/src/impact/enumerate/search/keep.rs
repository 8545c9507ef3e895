//! The list of solutions: one per distinct velocity change, each the most
//! accurate the search met.

use nalgebra::{DMatrix, DVector};

use super::scratch::Scratch;
use crate::impact::enumerate::tableaux::reduced::ToleranceScales;
use crate::impact::enumerate::{SAME_DV, StepEnumerator};
use crate::impact::violation::{ENUMERATED_VIOLATION, StepScales, step_violation};
use crate::lcp::LcpResidual;
use crate::problem::ContactOperators;

/// A kept solution whose step violation exceeds this is replaced by a later
/// one with the same `Δv` and a smaller violation: a mode system solved at a
/// degenerate boundary can leave a contact at `u_n⁺ = −10⁻¹⁰` in its open
/// mode, where the closed mode met later solves the LCP to round-off, and
/// `all` drops solutions above [`ENUMERATED_VIOLATION`]. Below it, the
/// first solution met is kept (every true solution sits far below).
pub(crate) const REPLACED_ABOVE: f64 = 0.1 * ENUMERATED_VIOLATION;

/// A certified step's Lemke solution whose own residual exceeds this (of
/// the step's scales) is refined on its final basis
/// ([`StepEnumerator::keep_certified`]). Refining only where the step
/// violation also exceeded it, boxes landing on four corners not at one
/// height (`bound_tests.rs`) kept Lemke solutions with a capped corner
/// `10⁻¹³` below its cap, `Δv` up to `1.8·10⁻¹²` of its scale off the
/// search's (the violation below `10⁻¹²`, the residual's complementarity
/// above); refined on the residual alone, none is off by more than `10⁻¹²`
/// in 18 128 such steps (9 045 certified). On the final basis `A` is
/// regular and the correction is an LU solve; by least squares on the
/// support at `10⁻¹³` instead, the measured four-corner landing cost 30 %
/// more.
const REFINED_ABOVE: f64 = 1e-12;

/// The solutions of the last step, one per distinct `Δv`.
#[derive(Clone, Debug)]
pub(crate) struct Solutions {
    /// How many.
    pub count: usize,
    /// Solutions, `N` entries each.
    pub solutions: Vec<f64>,
    /// Their velocity changes, `n` entries each.
    pub changes: Vec<f64>,
    /// The step's right-hand side `b`.
    pub rhs: Vec<f64>,
    /// The solutions' step violations, measured when a duplicate first
    /// needs them.
    pub violations: Vec<f64>,
    /// `w = A_R z + b` of a candidate.
    pub w: Vec<f64>,
}

impl Solutions {
    /// An empty list for a step LCP of `size` unknowns and `n` velocities.
    pub fn new(size: usize, n: usize) -> Self {
        const RESERVED: usize = 16;
        Solutions {
            solutions: Vec::with_capacity(RESERVED * size),
            changes: Vec::with_capacity(RESERVED * n),
            violations: Vec::with_capacity(RESERVED),
            rhs: vec![0.0; size],
            w: vec![0.0; size],
            count: 0,
        }
    }

    /// Empties the list for the step `b`.
    pub fn start(&mut self, b: &[f64]) {
        self.solutions.clear();
        self.changes.clear();
        self.violations.clear();
        self.rhs.copy_from_slice(b);
        self.count = 0;
    }
}

impl StepEnumerator {
    /// Appends `(z, Δv)` unless an equal `Δv` is already kept (`normal_scale`:
    /// `max_i h p_i`); an equal one kept with a step violation above
    /// [`REPLACED_ABOVE`] is replaced when `z`'s is smaller.
    pub(crate) fn keep(&mut self, ops: &ContactOperators, z: &[f64], dv: &[f64], normal_scale: f64) {
        let n = self.full.n;
        let norm = dv.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let duplicate = self.list.changes.chunks_exact(n).position(|other| {
            let scale = other.iter().fold(norm, |a, x| a.max(x.abs()));
            let apart = self.apart(scale, normal_scale);
            other.iter().zip(dv).all(|(a, b)| (a - b).abs() <= apart)
        });
        match duplicate {
            None => {
                self.list.solutions.extend_from_slice(z);
                self.list.changes.extend_from_slice(dv);
                // Measured when a duplicate first needs it.
                self.list.violations.push(f64::NAN);
                self.list.count += 1;
            }
            Some(k) => {
                let size = self.full.size;
                if self.list.violations[k].is_nan() {
                    let kept = &self.list.solutions[k * size..(k + 1) * size];
                    self.list.violations[k] = violation(ops, &self.list.rhs, kept, &mut self.list.w, self.scales);
                }
                if self.list.violations[k] > REPLACED_ABOVE {
                    let v = violation(ops, &self.list.rhs, z, &mut self.list.w, self.scales);
                    if v < self.list.violations[k] {
                        self.list.solutions[k * size..(k + 1) * size].copy_from_slice(z);
                        self.list.changes[k * n..(k + 1) * n].copy_from_slice(dv);
                        self.list.violations[k] = v;
                    }
                }
            }
        }
    }
}

impl StepEnumerator {
    /// Keeps a certified step's Lemke solution (`sc.z`, its `Δv` in
    /// `sc.dv`), refined once where Lemke's own residual is off its
    /// round-off by more than [`REFINED_ABOVE`] ([`Scratch::take_lemke`]):
    /// Lemke's pivots can leave a solution of an ill-conditioned step
    /// `10⁻¹¹` off (a box on four corners: a normal impulse that should sit
    /// at its cap, below it by that much), where the search solves the
    /// step's mode system to round-off. On Lemke's final basis `S` the
    /// solution has `w_S = 0` and `A_SS` is regular: the correction of
    /// `A_SS δ = −w_S` ([`correct`]) is kept where it lowers the step
    /// violation; where it does not, the least-squares correction on the
    /// support `z > 0` is tried the same way.
    pub(crate) fn keep_certified(&mut self, ops: &ContactOperators, b: &[f64], sc: &mut Scratch) {
        let (off, z, dv) = (sc.lemke_off, &mut sc.z[..], &mut sc.dv[..]);
        let size = self.full.size;
        if off {
            let before = violation(ops, b, z, &mut self.list.w, self.scales);
            // Lemke's final basis, where `A` is regular on its `z_j`; else
            // the support, by least squares.
            let mut basic = vec![false; size];
            self.lemke.basic_z(&mut basic);
            let basis: Vec<usize> = (0..size).filter(|&c| basic[c]).collect();
            let mut refined = z.to_vec();
            let mut kept = correct(&ops.step_matrix, &self.list.w, &basis, true, &mut refined)
                && violation(ops, b, &refined, &mut self.list.w, self.scales) < before;
            if !kept {
                refined.copy_from_slice(z);
                violation(ops, b, z, &mut self.list.w, self.scales);
                let support: Vec<usize> = (0..size).filter(|&c| z[c] > 0.0).collect();
                kept = correct(&ops.step_matrix, &self.list.w, &support, false, &mut refined)
                    && violation(ops, b, &refined, &mut self.list.w, self.scales) < before;
            }
            if kept {
                z.copy_from_slice(&refined);
                self.counts.certificates.refined += 1;
                velocity_change(ops, z, dv);
            }
        }
        self.keep(ops, z, dv, self.scales.normal);
    }

    /// How far apart two velocity changes of largest entry `scale` must be
    /// for the search to keep both, in a step whose largest cap is
    /// `normal_scale`: [`SAME_DV`] of `scale` plus a floor of `max |B|`
    /// times the cap (also the second certificate's yardstick,
    /// `certificates/linear_form/`).
    pub(crate) fn apart(&self, scale: f64, normal_scale: f64) -> f64 {
        SAME_DV * scale + 1e-3 * SAME_DV * self.full.dv_map_max * normal_scale
    }
}

impl Scratch {
    /// Notes of Lemke's solution in `z` (of a step with scales `step`)
    /// whether its own residual is off the round-off a refinement could
    /// remove (a complementarity product or a sign beyond [`REFINED_ABOVE`]
    /// of the step's scales).
    pub(crate) fn take_lemke(&mut self, residual: &LcpResidual, step: ToleranceScales) {
        let (v, p) = (step.velocity, step.impulse);
        let floor = -REFINED_ABOVE * v.min(p);
        self.lemke_off = residual.min_z < floor
            || residual.min_w < floor
            || residual.complementarity * self.z.len() as f64 > REFINED_ABOVE * v * p;
    }
}

/// Adds to `z` (entries `set`) the correction `δ` of `A_SS δ = −w_S` (`a`:
/// the step matrix, row-major; `w = A z + b`), by LU where `A_SS` is regular
/// (`regular`: Lemke's final basis), else by least squares with singular
/// values below `10⁻¹²` of the largest left out (redundant contacts make a
/// support's `A_SS` singular); an entry it takes below zero is put at zero
/// (a friction impulse of `10⁻¹⁷`). `false` where no finite correction was
/// found.
fn correct(a: &[f64], w: &[f64], set: &[usize], regular: bool, z: &mut [f64]) -> bool {
    let (k, size) = (set.len(), w.len());
    let a_ss = DMatrix::from_fn(k, k, |r, c| a[set[r] * size + set[c]]);
    let residual = DVector::from_fn(k, |r, _| -w[set[r]]);
    let delta = if regular {
        a_ss.lu().solve(&residual)
    } else {
        let svd = a_ss.svd(true, true);
        let largest = svd.singular_values.iter().fold(0.0f64, |x, &y| x.max(y));
        svd.solve(&residual, 1e-12 * largest).ok()
    };
    let Some(delta) = delta.filter(|d| d.iter().all(|x| x.is_finite())) else {
        return false;
    };
    set.iter().zip(delta.iter()).for_each(|(&c, d)| z[c] = (z[c] + d).max(0.0));
    true
}

/// `Δv = M⁻¹Jᵀ` times the impulses of the step LCP's solution `z`, into `dv`.
pub(crate) fn velocity_change(ops: &ContactOperators, z: &[f64], dv: &mut [f64]) {
    let m = ops.m;
    let impulses = ops.layout().impulses();
    for (r, v) in dv.iter_mut().enumerate() {
        *v = impulses.clone().map(|c| ops.minv_jt[(r, c - m)] * z[c]).sum();
    }
}

/// The step violation of `z` for `w = A_R z + b` (`w` written) in the step's
/// own scales, its velocity scale and largest cap.
fn violation(ops: &ContactOperators, b: &[f64], z: &[f64], w: &mut [f64], step: ToleranceScales) -> f64 {
    LcpResidual::compute(&ops.step_matrix, b, z, w);
    let scales =
        StepScales { velocity: step.velocity.max(f64::MIN_POSITIVE), impulse: step.normal.max(f64::MIN_POSITIVE) };
    step_violation(ops.layout(), z, w, scales)
}
