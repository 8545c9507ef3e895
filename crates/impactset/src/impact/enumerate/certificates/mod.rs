//! The certificates that a step's `Δv` is unique
//! (docs/model.md#5b4-the-bound-from-one-solution to
//! docs/model.md#5b10-when-a-step-is-certified): one Lemke solve of the
//! step (here), the bound it puts on every other solution and the first
//! certificate (`bound.rs`, from the reach of `reach.rs`), and friction's
//! linear form (`linear_form/`).

pub(crate) mod bound;
mod linear_form;
pub(crate) mod reach;

use crate::impact::enumerate::search::scratch::Scratch;
use crate::impact::enumerate::search::{fallback, keep};
use crate::impact::enumerate::{ACCEPT, StepEnumerator};
use crate::lcp::{LcpResidual, LemkeOptions};
use crate::problem::ContactOperators;
use bound::{BoundStep, Verdict};
use reach::Reach;

/// The bound from one Lemke solution and what it said of the last step.
#[derive(Clone, Debug)]
pub(crate) struct Certificate {
    /// What the bound said of the last step.
    pub verdict: Verdict,
    /// Some contacts are a widened step's twins (`widened.rs`): a Lemke
    /// solution of this step may leave a twin below its cap, which is no
    /// solution of the widened step, so a certified step is searched to
    /// its first solution instead of keeping it.
    pub twinned: bool,
    /// Per contact, how far `u⁺` moves per unit of the bound (`bound.rs`).
    pub reach: Reach,
    /// The covering vector of the bound's Lemke solve
    /// ([`fallback::hashed_cover`]): a function of the row alone.
    pub cover: Vec<f64>,
}

impl Certificate {
    /// The certificate's state for a step LCP of `size` unknowns.
    pub fn new(reach: Reach, size: usize, twinned: bool) -> Self {
        Certificate { verdict: Verdict::None, twinned, reach, cover: fallback::hashed_cover(size) }
    }
}

impl StepEnumerator {
    /// One Lemke solve and the bound it puts on every solution of the step
    /// (`bound.rs`): the modes the search may skip, and whether `Δv` is
    /// unique. Leaves the Lemke solution in `sc.z` and its `Δv` in `sc.dv`.
    ///
    /// The solve's covering vector is drawn from the `random-lemke` rule's
    /// law by a fixed hash of the row (`fallback::hashed_cover`), then `1`
    /// where that solve fails: any solution bounds the others, and on
    /// symmetric steps (a box flat on four corners) the covering vector `1`
    /// ties many rows at most pivots, whose lexicographic rule then costs
    /// more than the rest of the solve.
    pub(crate) fn bound_step(&mut self, ops: &ContactOperators, b: &[f64], widened: bool, sc: &mut Scratch) {
        let m = self.reduced.m;
        // Below the size a widened step takes none either: its twinned search
        // keeps each `Δv`'s first tuple, as the GPU does (docs/model.md#5b10-when-a-step-is-certified).
        let large = self.tuples() >= self.options.bound_min_tuples;
        // A solution to round-off in the step's own scales (its errors are
        // then far inside the bound's slack).
        let (v, p, size) = (self.scales.velocity, self.scales.impulse, self.full.size);
        let floor = -ACCEPT * v.min(p);
        let accept =
            |r: &LcpResidual| r.min_z >= floor && r.min_w >= floor && r.complementarity * size as f64 <= ACCEPT * v * p;
        let mut solved = None;
        if large && (widened || self.options.bound) {
            for cover in [Some(&self.certificate.cover[..]), None] {
                if let Ok(sol) = self.lemke.solve_covered(&ops.step_matrix, b, cover, 0, &LemkeOptions::default())
                    && accept(&sol.residual)
                {
                    sc.z.copy_from_slice(sol.z);
                    solved = Some(sol.residual);
                    break;
                }
            }
        }
        self.certificate.verdict = match solved {
            Some(residual) => {
                sc.take_lemke(&residual, self.scales);
                keep::velocity_change(ops, &sc.z, &mut sc.dv);
                let apart = self.apart(sc.dv.iter().fold(0.0f64, |a, x| a.max(x.abs())), self.scales.normal);
                let step = BoundStep {
                    u: &sc.u,
                    caps: &sc.caps,
                    g: &b[self.full.size - m..],
                    z: &sc.z,
                    d: self.full.d,
                    scales: self.scales,
                    apart,
                    searched: self.certificate.twinned,
                };
                sc.bound.compute(&self.reduced, &self.certificate.reach, &step)
            }
            None => Verdict::None,
        };
        if self.certificate.verdict == Verdict::None {
            sc.bound.allow_all();
        }
    }
}
