//! Restitution (docs/model.md §4b): every contact's expansion phase under
//! Stronge's energetic law, as a prescribed normal impulse `o_i` of the
//! Routh steps that follow its compression.
//!
//! Each step's normal impulses are split into the LCP's own part `y`
//! (compression: the contact resists approach) and the prescribed part
//! `o` (expansion: the contact pushes the bodies apart). Their work is
//! measured on the step's normal-first path: the normal impulses grow
//! linearly from 0 to `λn`, then the friction impulses act, so contact
//! `i`'s normal work is `λn_i ũ_i` with `ũ_i = (Jn v)_i + ½ (W_nn λn)_i`,
//! exactly, and the friction impulses' work is `−Σ μ_i γ_i λn_i −
//! ½ λDᵀ W_DD λD ≤ 0`. A contact owes `e_i² A_i − X_i` of expansion work,
//! `A_i` the work its compression absorbed, `X_i` what its expansion has
//! released.

use nalgebra::DMatrix;

use crate::ImpactProblem;
use crate::impact::SINGULAR;

mod coupled;
mod step_size;

use coupled::Newton;
pub use step_size::{CoarseExpansion, EXPANSION_RESOLUTION, coarse_expansion, default_step_size, expansion_step_size};

/// Expansion work below `WORK_TOL · E⁻` is not owed: the round-off of the
/// works' sums, a few units of `f64` epsilon times the energies they add up
/// (the same slack bounds the energy guard). The default of
/// [`SamplerOptions::work_tol`](super::SamplerOptions::work_tol).
pub const WORK_TOL: f64 = 1e-12;

/// Re-solves of one step that bring each contact finishing its expansion
/// onto the work it owes (the works depend on every impulse of the step,
/// the prediction on the contact's own alone).
pub const CORRECTIONS: usize = 4;

/// Regula-falsi tries of the energy guard (each a solve of the step); the
/// guard fires only where the discrete steps' works depart from the
/// continuous ones.
pub const GUARD_ROUNDS: usize = 40;

/// One sample's expansion state, reused across samples (and across the
/// states of one configuration: what depends on `v⁻` is set by
/// [`start`](Expansion::start)).
#[derive(Clone, Debug)]
pub(crate) struct Expansion {
    /// `e_i²`.
    e2: Vec<f64>,
    /// `W_ii`, the normal diagonal of the Delassus matrix.
    w_ii: Vec<f64>,
    /// Some `e_i > 0`.
    enabled: bool,
    /// `A_i`: work absorbed by contact `i`'s compression impulses.
    absorbed: Vec<f64>,
    /// `X_i`: work released by its expansion impulses.
    released: Vec<f64>,
    /// The step's prescribed impulses `o_i`.
    offset: Vec<f64>,
    /// The step's `ũ_i = (Jn v)_i + ½ (W_nn λn)_i`.
    mean: Vec<f64>,
    /// The run's `work_tol · E⁻` ([`SamplerOptions::work_tol`](super::SamplerOptions::work_tol)).
    tol: f64,
    /// `SINGULAR` times the problem's velocity scale: a `ũ_i` within it of
    /// zero is its terms' round-off, and a coupled correction takes it as
    /// zero ([`correct_coupled`](Self::correct_coupled)).
    at_rest: f64,
    /// `E⁻`.
    energy_before: f64,
    /// The energy guard fired in the step being taken.
    cut: bool,
    /// The energy guard fired in this sample.
    guarded: bool,
    /// A coupled correction's scratch.
    newton: Newton,
}

impl Expansion {
    /// The state for `problem`'s contacts (`e_i`, `W_ii`); nothing of `v⁻`.
    pub(crate) fn new(problem: &ImpactProblem) -> Self {
        let ops = problem.operators();
        let m = ops.m;
        let e2: Vec<f64> = problem.contacts().iter().map(|c| c.restitution * c.restitution).collect();
        Expansion {
            enabled: e2.iter().any(|&e| e > 0.0),
            e2,
            w_ii: (0..m).map(|i| ops.delassus[(i, i)]).collect(),
            absorbed: vec![0.0; m],
            released: vec![0.0; m],
            offset: vec![0.0; m],
            mean: vec![0.0; m],
            tol: 0.0,
            at_rest: 0.0,
            energy_before: 0.0,
            cut: false,
            guarded: false,
            newton: Newton::default(),
        }
    }

    /// Whether any contact has restitution (else every step is inelastic
    /// and none of this runs).
    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }

    #[cfg(test)]
    fn start_with_tol(&mut self, tol: f64) {
        self.tol = tol;
        self.enabled = true;
    }

    /// A new sample from a `v⁻` of energy `energy_before` and velocity
    /// scale `velocity_scale`, in a run whose works' slack is
    /// `work_tol · E⁻`: nothing absorbed, nothing released.
    pub(crate) fn start(&mut self, work_tol: f64, energy_before: f64, velocity_scale: f64) {
        self.energy_before = energy_before;
        self.at_rest = SINGULAR * velocity_scale;
        self.tol = work_tol * energy_before;
        self.absorbed.fill(0.0);
        self.released.fill(0.0);
        self.cut = false;
        self.guarded = false;
    }

    /// What contact `i` owes by its own account, `ω_i = e_i² A_i − X_i`
    /// (negative when it released more than its compression absorbed).
    fn balance(&self, i: usize) -> f64 {
        self.e2[i] * self.absorbed[i] - self.released[i]
    }

    /// The expansion work contact `i` still releases: `ω_i⁺ κ`, where
    /// `κ = max(0, Σ ω_j) / Σ ω_j⁺ ≤ 1` charges the contacts that owe with
    /// what others released beyond their own account, so the released
    /// works never exceed `Σ e_j² A_j` together (docs/model.md §4b).
    fn owed(&self, i: usize) -> f64 {
        let own = self.balance(i);
        if self.cut || own <= 0.0 {
            return 0.0;
        }
        let (mut total, mut positive) = (0.0, 0.0);
        for j in 0..self.e2.len() {
            let b = self.balance(j);
            total += b;
            positive += b.max(0.0);
        }
        if total >= positive { own } else { own * (total.max(0.0) / positive) }
    }

    /// Contact `i` owes expansion work (more than round-off).
    pub(crate) fn expanding(&self, i: usize) -> bool {
        self.owed(i) > self.tol
    }

    /// Some contact owes expansion work.
    pub(crate) fn any_expanding(&self) -> bool {
        (0..self.e2.len()).any(|i| self.expanding(i))
    }

    /// The step's prescribed impulses: a contact that owes work and is not
    /// approaching pushes with the impulse that would release what it owes
    /// if it acted alone from `u_n` (`½ W_ii o² + u_n,i o = owed`), at most
    /// its cap. Returns them, or `None` when no contact expands.
    pub(crate) fn plan(&mut self, u_n: &[f64], caps: &[f64], approaching: &[bool]) -> Option<&[f64]> {
        let mut any = false;
        for i in 0..self.offset.len() {
            self.offset[i] = if !approaching[i] && caps[i] > 0.0 && self.expanding(i) {
                any = true;
                impulse_for_work(self.owed(i), u_n[i], self.w_ii[i]).min(caps[i])
            } else {
                0.0
            };
        }
        any.then_some(&self.offset[..])
    }

    /// The prescribed impulses of the step as planned or corrected.
    pub(crate) fn offset(&self) -> &[f64] {
        &self.offset
    }

    /// Measures the step's works from its normal impulses `λn` (`o`
    /// included) and the start-of-step normal velocities `u_n`.
    pub(crate) fn measure(&mut self, delassus: &DMatrix<f64>, u_n: &[f64], lambda_n: &[f64]) {
        let m = self.mean.len();
        for i in 0..m {
            let wn: f64 = (0..m).map(|j| delassus[(i, j)] * lambda_n[j]).sum();
            self.mean[i] = u_n[i] + 0.5 * wn;
        }
    }

    /// After [`measure`](Self::measure): corrects the prescribed impulse
    /// of every contact whose expansion work overshot what it owes, or
    /// missed it while finishing (pushing below its cap). The correction
    /// solves `o (r + ½ W_ii o) = owed` with `r = ũ_i − ½ W_ii o_i` the
    /// part of `ũ_i` the other impulses made. Returns whether any changed.
    pub(crate) fn correct(&mut self, caps: &[f64]) -> bool {
        let mut changed = false;
        for (i, &cap) in caps.iter().enumerate() {
            if self.off_account(i, cap) {
                let o = self.offset[i];
                let r = self.mean[i] - 0.5 * self.w_ii[i] * o;
                let next = impulse_for_work(self.owed(i), r, self.w_ii[i]).min(cap);
                changed |= next != o;
                self.offset[i] = next;
            }
        }
        changed
    }

    /// Whether contact `i`'s expansion work, as [`measure`](Self::measure)d,
    /// overshot what it owes or missed it while finishing (pushing below
    /// its cap `cap`).
    fn off_account(&self, i: usize, cap: f64) -> bool {
        let o = self.offset[i];
        if o == 0.0 {
            return false;
        }
        let (owed, work) = (self.owed(i), o * self.mean[i]);
        work > owed + self.tol || (o < cap && (work - owed).abs() > self.tol)
    }

    /// After [`measure`](Self::measure): some contact's prescribed impulse
    /// needs a correction.
    pub(crate) fn needs_correction(&self, caps: &[f64]) -> bool {
        caps.iter().enumerate().any(|(i, &cap)| self.off_account(i, cap))
    }

    /// Books the measured step: `A_i −= y_i ũ_i` (the compression part,
    /// `y = λn − o`), `X_i += o_i ũ_i`.
    pub(crate) fn commit(&mut self, lambda_n: &[f64]) {
        for (i, &lambda) in lambda_n.iter().enumerate() {
            let o = self.offset[i];
            self.absorbed[i] -= (lambda - o) * self.mean[i];
            self.released[i] += o * self.mean[i];
        }
    }

    /// Whether a velocity of energy `energy` breaks the guard `E ≤ E⁻`
    /// (with the run's slack `work_tol · E⁻`).
    pub(crate) fn gains_energy(&self, energy: f64) -> bool {
        energy > self.energy_before + self.tol
    }

    /// The energy guard fired: no contact expands any more in this sample
    /// (the step being taken keeps its offsets for [`commit`](Self::commit)).
    pub(crate) fn cut(&mut self) {
        self.cut = true;
    }

    /// After [`commit`](Self::commit) of a step the guard cut: every
    /// contact's account is settled (`X_i = e_i² A_i`: nothing owed), and
    /// compressions that follow owe expansion again.
    pub(crate) fn settle(&mut self) {
        if self.cut {
            for i in 0..self.e2.len() {
                self.released[i] = self.e2[i] * self.absorbed[i];
            }
            self.cut = false;
            self.guarded = true;
        }
    }

    /// The prescribed impulses `t · base`.
    pub(crate) fn scale_offset(&mut self, base: &[f64], t: f64) {
        for (o, b) in self.offset.iter_mut().zip(base) {
            *o = t * b;
        }
    }

    /// `E⁻`.
    pub(crate) fn energy_before(&self) -> f64 {
        self.energy_before
    }

    /// The works' slack `work_tol · E⁻`.
    pub(crate) fn tolerance(&self) -> f64 {
        self.tol
    }

    /// Whether the guard fired in this sample.
    pub(crate) fn was_cut(&self) -> bool {
        self.guarded
    }
}

/// The impulse `o ≥ 0` whose work from normal velocity `r` on a contact of
/// mobility `w > 0` is `work ≥ 0`: the positive root of `½ w o² + r o =
/// work`, in the form without cancellation for either sign of `r`.
pub fn impulse_for_work(work: f64, r: f64, w: f64) -> f64 {
    if work <= 0.0 {
        return 0.0;
    }
    let root = (r * r + 2.0 * w * work).sqrt();
    if r >= 0.0 { 2.0 * work / (r + root) } else { (root - r) / w }
}

#[cfg(test)]
mod tests {
    use super::{Expansion, impulse_for_work};

    /// Two contacts coupled through the body (the rocking block's corners),
    /// a linear response `λn(o) = λn⁰ + R (o − o⁰)`: after one coupled
    /// correction each contact releases what it owes, by the definition of
    /// the work (`o_i ũ_i`, `ũ = ũ⁰ + ½ W_nn R δo`) computed here; the
    /// correction of each contact alone (the others' response fixed)
    /// misses it.
    #[test]
    fn a_coupled_correction_releases_what_each_contact_owes() {
        let scene = crate::scene::builtin("rocking-block").expect("a built-in scene");
        let problem = scene.problem;
        let delassus = &problem.operators().delassus;
        let mut expansion = Expansion::new(&problem);
        expansion.energy_before = 10.0;
        expansion.e2 = vec![1.0, 0.25];
        expansion.absorbed = vec![0.8, 1.2];
        expansion.start_with_tol(1e-12);
        let response = [[1.0, 0.4], [-0.3, 1.0]];
        let (o0, mean0) = ([0.5, 0.6], [0.9, 0.7]);
        let caps = [10.0, 10.0];
        let works = |o: &[f64]| -> Vec<f64> {
            let d = [o[0] - o0[0], o[1] - o0[1]];
            let moved: Vec<f64> = (0..2).map(|l| response[l][0] * d[0] + response[l][1] * d[1]).collect();
            (0..2)
                .map(|i| o[i] * (mean0[i] + 0.5 * (delassus[(i, 0)] * moved[0] + delassus[(i, 1)] * moved[1])))
                .collect()
        };
        let owed = [0.8, 0.25 * 1.2];
        expansion.offset = o0.to_vec();
        expansion.mean = mean0.to_vec();
        assert_eq!(expansion.select_solving(&caps), 2);
        expansion.set_response(0, &[response[0][0], response[1][0]]);
        expansion.set_response(1, &[response[0][1], response[1][1]]);
        assert!(expansion.correct_coupled(&caps, delassus));
        let done = works(&expansion.offset);
        for i in 0..2 {
            assert!((done[i] - owed[i]).abs() <= 1e-12, "contact {i}: released {} of {}", done[i], owed[i]);
        }
        expansion.offset = o0.to_vec();
        expansion.mean = mean0.to_vec();
        assert!(expansion.correct(&caps));
        let alone = works(&expansion.offset);
        assert!((0..2).any(|i| (alone[i] - owed[i]).abs() > 1e-6), "{alone:?} against {owed:?}");
    }

    #[test]
    fn the_impulse_does_the_work_asked() {
        for (work, r, w) in [(1.0, 0.0, 1.0), (0.5, 2.0, 3.0), (0.5, -2.0, 3.0), (1e-9, 1.0, 1e3), (2.0, -1e-3, 1e-2)] {
            let o = impulse_for_work(work, r, w);
            assert!(o > 0.0);
            let done = o * (r + 0.5 * w * o);
            assert!((done - work).abs() <= 1e-14 * work.max(r * r / w), "{work} {r} {w}: {done}");
        }
        assert_eq!(impulse_for_work(0.0, 1.0, 1.0), 0.0);
    }
}
