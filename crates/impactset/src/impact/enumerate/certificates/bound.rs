//! Where every solution of a step lies, given one solution (docs/model.md#5b4-the-bound-from-one-solution).
//!
//! For two solutions `x`, `x*` of a step (`δ = x − x*`, `δu = W δ`),
//! `Q = δᵀWδ = Σ_i (δλn_i δu_n,i + δf_iᵀ δu_t,i)`. Each contact's normal law
//! (a box) makes its first term `≤ 0`; its friction law bounds the second by
//! `a_i ‖δu_t,i‖ + k_i`. With `‖δu_t,i‖ ≤ κ_i √Q` (`κ_i² = λmax` of contact
//! `i`'s tangential block of `W`), `√Q ≤ S = (A + √(A² + 4K))/2`,
//! `A = Σ a_i κ_i`, `K = Σ k_i`, and every solution has
//! `|δu_n,i| ≤ ν_i S`, `‖δu_t,i‖ ≤ κ_i S` (`ν_i² = W_(n,n),ii`). A contact
//! whose `u*_n,i` lies beyond that reach keeps its normal impulse in every
//! solution (`a_i` then vanishes), which shrinks `S`; when every frictional
//! contact's `a_i` vanishes in exact arithmetic, `Q ≤ 0` up to round-off:
//! `Δv` is unique. Either way, a mode whose velocity conditions fail
//! everywhere within the reach holds no solution and is not searched.

use super::linear_form::{LinearForm, StepFacts};
use super::reach::Reach;
use crate::impact::enumerate::tableaux::reduced::{Reduced, ToleranceScales};
use crate::impact::enumerate::{ACCEPT, PRUNE};

/// What the bound says about a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// No usable solution to bound from (Lemke failed, or a negative cap).
    None,
    /// Every solution lies within the reach; `allowed` marks the modes that
    /// may hold one.
    Bounded,
    /// As `Bounded`, and `Δv` is the same in every solution.
    Unique,
}

/// A step and one of its LCP solutions, as the bound reads them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BoundStep<'a> {
    /// The LCP solution `z = [σ; λn; λD; γ]`, `d` directions per contact.
    pub z: &'a [f64],
    pub d: usize,
    /// The contact velocities `u` before the step (`D`).
    pub u: &'a [f64],
    /// The scales of the step's tolerances.
    pub scales: ToleranceScales,
    /// The caps `h p`, and `b_γ`: the friction cone of contact `i` is
    /// `μ_i λn_i + g_i`.
    pub caps: &'a [f64],
    pub g: &'a [f64],
    /// How far apart two velocity changes must be for the search to keep
    /// both (`keep.rs`).
    pub apart: f64,
    /// Whether a certified step is searched all the same (a twinned step):
    /// then every mode is marked.
    pub searched: bool,
}

/// The per-step work of the bound.
#[derive(Clone, Debug, Default)]
pub(crate) struct Bound {
    /// Per global mode: whether its velocity conditions can hold within the
    /// reach.
    pub allowed: Vec<bool>,
    x: Vec<f64>,
    up: Vec<f64>,
    /// Per contact: `a_i`, `k_i`, and whether its normal impulse is known.
    a: Vec<f64>,
    k: Vec<f64>,
    /// `r_i`: the dead zone of `‖δu_t,i‖` in which contact `i` adds nothing.
    dead: Vec<f64>,
    known: Vec<bool>,
    /// Per contact: whether `a_i = 0` in exact arithmetic.
    exact_zero: Vec<bool>,
    /// The pieces of [`Bound::reach`]: breakpoint, `a κ`, `a r`.
    terms: Vec<(f64, f64, f64)>,
    /// The second certificate (`certificates/linear_form/`).
    pub form: LinearForm,
}

impl Bound {
    pub fn new(red: &Reduced) -> Self {
        Bound {
            allowed: vec![true; red.table.modes.len()],
            x: vec![0.0; red.dim],
            up: vec![0.0; red.dim],
            a: vec![0.0; red.m],
            k: vec![0.0; red.m],
            dead: vec![0.0; red.m],
            terms: Vec::with_capacity(red.m),
            known: vec![false; red.m],
            exact_zero: vec![false; red.m],
            form: LinearForm::default(),
        }
    }

    /// Bounds the solutions of `step` from its LCP solution, and marks the
    /// modes that may hold one (of a step it certifies, unless
    /// `step.searched`, only until each contact has one).
    pub fn compute(&mut self, red: &Reduced, reach: &Reach, step: &BoundStep) -> Verdict {
        let BoundStep { u, caps, g, z, d, scales, apart, searched } = *step;
        let m = red.m;
        if caps.iter().any(|&c| c.is_nan() || c < 0.0) || z.iter().any(|v| !v.is_finite()) {
            return Verdict::None;
        }
        // x* and u*⁺ = u + W x*.
        for i in 0..m {
            self.x[i * red.s] = z[m + i];
            for a in 0..red.t {
                self.x[i * red.s + 1 + a] = (0..d).map(|k| z[2 * m + i * d + k] * red.directions[k][a]).sum();
            }
        }
        red.post_velocity(u, &self.x, &mut self.up);
        let velocity = scales.velocity.max(f64::MIN_POSITIVE);
        // The slack of the solutions the search accepts (each law within
        // ACCEPT of its scales; PRUNE is 1000 times that) and of z's round-off.
        let slack = PRUNE * ((m + 1) * (m + 1)) as f64 * velocity * scales.impulse;
        let margin = PRUNE * velocity;
        self.contact_terms(red, step, velocity, margin);
        // What the linear form reads of the step; x*, u*⁺ and the known
        // normal impulses are the bound's own, filled in where it is asked.
        let given = StepFacts {
            x: &[],
            u,
            up: &[],
            caps,
            g,
            lambda_d: &z[2 * m..2 * m + m * d],
            known: &[],
            normal: &reach.normal,
            tangent: &reach.tangent,
            slack,
            velocity_per_q: reach.velocity_per_q,
            apart,
            shut_share: None,
        };
        let (mut reach_s, form_unique) = self.reach_in_rounds(red, reach, &given, margin);
        let mut unique = form_unique || self.first_unique(reach);
        let mut margin = margin;
        if !unique {
            // The form may start from another impulse of x*'s face
            // (`linear_form/recentre.rs`): tried last, on the steps that
            // would be searched. Where it does not certify, its reach about
            // x̂'s u⁺ (x*'s to round-off, which widens the margin: twice
            // the largest difference covers a contact's tangential norm)
            // may be the smaller.
            let facts = StepFacts { x: &self.x, up: &self.up, known: &self.known, ..given };
            if let Some((form, shift)) = self.form.bound_from_representative(red, &facts) {
                unique = form.unique;
                if form.reach < reach_s {
                    reach_s = form.reach;
                    margin += 2.0 * shift;
                }
            }
        }
        if !self.mark_modes(red, reach, reach_s, margin, unique && !searched) {
            // Not even z's own modes: z is not a solution to trust.
            self.allow_all();
            return Verdict::None;
        }
        if unique { Verdict::Unique } else { Verdict::Bounded }
    }

    /// Each contact's `a_i`, `k_i` and dead zone `r_i` about `x*` (`x`,
    /// `up` written), and whether its normal impulse is known and its `a_i`
    /// zero in exact arithmetic.
    fn contact_terms(&mut self, red: &Reduced, step: &BoundStep, velocity: f64, margin: f64) {
        let BoundStep { caps, g, z, d, .. } = *step;
        let (m, s, t) = (red.m, red.s, red.t);
        let sticking = ACCEPT * velocity;
        for i in 0..m {
            let (mu, cap, lam) = (red.friction[i], caps[i], self.x[i * s]);
            let spread = lam.abs().max((cap - lam).abs());
            let general = mu * spread;
            let un = self.up[i * s];
            self.known[i] = cap == 0.0;
            self.exact_zero[i] = mu == 0.0 || cap == 0.0;
            self.dead[i] = 0.0;
            (self.a[i], self.k[i]) = (if cap == 0.0 { mu * lam.abs() } else { general }, 0.0);
            if self.exact_zero[i] {
                continue;
            }
            let slip: f64 = (0..t).map(|a| self.up[i * s + 1 + a].powi(2)).sum::<f64>().sqrt();
            let rho = mu * lam + g[i];
            // Sticking with friction strictly inside the cone: T_i ≤ α σ(−u_t)
            // plus the round-off of u*_t, α = μ|δλ| − (1 − β) ρ*.
            let mut alpha = f64::INFINITY;
            if slip <= sticking && rho > 0.0 {
                let used: f64 = (0..d).map(|k| z[2 * m + i * d + k].abs()).sum();
                alpha = used.min(rho) - g[i];
                if alpha <= 0.0 {
                    self.exact_zero[i] = true;
                    (self.a[i], self.k[i]) = (0.0, (mu * cap + g[i] + rho.abs()) * slip);
                    continue;
                }
            }
            if un.abs() > margin {
                // Open or capped with margin |u*_n|: any other normal impulse
                // moves u_n past 0, so N_i ≤ −|δλ| |u*_n| and
                // D_i ≤ μ Λ max(0, ‖δu_t‖ − |u*_n|/μ).
                self.dead[i] = un.abs() / mu;
            } else if alpha < general {
                (self.a[i], self.k[i]) = (alpha, (alpha + mu * cap + g[i] + rho.abs()) * slip);
            }
        }
    }

    /// The reach `√Q`, and whether friction's linear form certified the
    /// step. Contacts whose `u*_n` lies beyond the reach keep their normal
    /// impulse; repeat while that shrinks the reach. Friction's linear form
    /// (`certificates/linear_form/`) may certify the step, or bound it tighter: then
    /// the contacts are looked at again (twice at most).
    fn reach_in_rounds(&mut self, red: &Reduced, reach: &Reach, given: &StepFacts, margin: f64) -> (f64, bool) {
        let (mut reach_s, mut form_reach, mut form_unique) = (f64::INFINITY, f64::INFINITY, false);
        for round in 0..3 {
            reach_s = self.settle_known(red, reach, given, margin, form_reach);
            if round == 2 || (round == 0 && self.first_unique(reach)) {
                // (Where the first certificate holds, more known contacts
                // keep it: the form is not needed.)
                break;
            }
            let facts = StepFacts { x: &self.x, up: &self.up, known: &self.known, ..*given };
            let form = self.form.bound(red, &facts);
            form_unique = form.unique;
            if form_unique || form.reach >= 0.5 * reach_s {
                break;
            }
            form_reach = form.reach;
        }
        (reach_s, form_unique)
    }

    /// Marks known the normal impulse of every contact whose `u*_n` lies
    /// beyond the reach (at most `form_reach`) until none is added; returns
    /// the reach.
    fn settle_known(&mut self, red: &Reduced, reach: &Reach, given: &StepFacts, margin: f64, form_reach: f64) -> f64 {
        let s = red.s;
        loop {
            let bound =
                self.reach(reach, given.slack, 1.0, |_| true).min(self.joint_reach(reach, given.slack, 1.0, |_| true));
            let reach_s = bound.min(form_reach);
            let mut changed = false;
            for (i, &cap) in given.caps.iter().enumerate() {
                if self.known[i] {
                    continue;
                }
                let radius = reach.normal[i] * reach_s + margin;
                let un = self.up[i * s];
                let lam_known = if un > radius {
                    0.0
                } else if un < -radius {
                    cap
                } else {
                    continue;
                };
                self.known[i] = true;
                self.exact_zero[i] = true;
                (self.a[i], self.k[i], self.dead[i]) = (red.friction[i] * (lam_known - self.x[i * s]).abs(), 0.0, 0.0);
                changed = true;
            }
            if !changed {
                return reach_s;
            }
        }
    }

    /// Marks the modes whose velocity conditions may hold within the reach
    /// `reach_s` (plus `margin`) of `u*⁺`; with `first_only`, only until
    /// each contact has one. `false` where some contact has none.
    fn mark_modes(&mut self, red: &Reduced, reach: &Reach, reach_s: f64, margin: f64, first_only: bool) -> bool {
        let s = red.s;
        for i in 0..red.m {
            let rn = reach.normal[i] * reach_s + margin;
            let rt = reach.tangent[i] * reach_s + margin;
            let up = &self.up[i * s..(i + 1) * s];
            let start = red.table.start[i];
            let mut any = false;
            for (k, mode) in red.table.of(i).iter().enumerate() {
                // A step certified unique and not searched reads only
                // whether each contact has a mode left.
                if any && first_only {
                    break;
                }
                // The largest |c · δu| over the reach, and c · u*.
                let spread = |c: &[f64; 3]| c[0].abs() * rn + (1..s).map(|a| c[a] * c[a]).sum::<f64>().sqrt() * rt;
                let at = |c: &[f64; 3]| (0..s).map(|a| c[a] * up[a]).sum::<f64>();
                let equations = mode.rows[..mode.params].iter().all(|row| at(row).abs() <= spread(row));
                let inequalities = red.table.inequalities_of(mode).iter().all(|ineq| {
                    let velocity_only = ineq.a0 == 0.0 && ineq.ax.iter().all(|&c| c == 0.0);
                    !velocity_only || at(&ineq.au) + spread(&ineq.au) >= 0.0
                });
                let allowed = equations && inequalities;
                self.allowed[start + k] = allowed;
                any |= allowed;
            }
            if !any {
                return false;
            }
        }
        true
    }

    /// The first certificate: in exact arithmetic (no slack, the contacts
    /// whose `a_i` is 0 left out, `a_i` and the dead zones widened against
    /// rounding) `√Q ≤ 0`.
    fn first_unique(&mut self, reach: &Reach) -> bool {
        let exact_zero = std::mem::take(&mut self.exact_zero);
        let unique = self.reach(reach, 0.0, 1.0 + 1e-9, |i| !exact_zero[i]) == 0.0
            || self.joint_reach(reach, 0.0, 1.0 + 1e-9, |i| !exact_zero[i]) == 0.0;
        self.exact_zero = exact_zero;
        unique
    }

    /// The largest `q = √Q` with `q² ≤ max_S ‖a_S‖ √(Λ_T q² − ‖r_S‖²) + K`
    /// over the sets `S` of contacts whose `‖δu_t,i‖` passes its dead zone
    /// (with `Σ_i ‖δu_t,i‖² ≤ Λ_T q²`: `Σ_S a_i (‖δu_t,i‖ − r_i)` is at most
    /// that by Cauchy–Schwarz), for at most 12 contacts with `a_i > 0`
    /// (else infinite: the per-contact reach alone bounds).
    fn joint_reach(&mut self, reach: &Reach, slack: f64, widen: f64, use_contact: impl Fn(usize) -> bool) -> f64 {
        let k = slack + (0..self.k.len()).filter(|&i| use_contact(i)).map(|i| self.k[i]).sum::<f64>();
        let (mut active, mut count) = ([0usize; 12], 0);
        for i in (0..self.a.len()).filter(|&i| use_contact(i) && self.a[i] > 0.0) {
            if count == active.len() {
                return f64::INFINITY;
            }
            active[count] = i;
            count += 1;
        }
        let active = &active[..count];
        let lambda = reach.tangent_all * widen;
        let mut largest = k.sqrt();
        for set in 1u32..(1 << active.len()) {
            let (mut a2, mut r2) = (0.0, 0.0);
            for (b, &i) in active.iter().enumerate() {
                if set & (1 << b) != 0 {
                    a2 += (self.a[i] * widen).powi(2);
                    r2 += (self.dead[i] / widen).powi(2);
                }
            }
            // x = q²: (x − K)² ≤ a² (Λ x − R²), its largest root.
            let p = 2.0 * k + a2 * lambda;
            let disc = p * p - 4.0 * (k * k + a2 * r2);
            if disc >= 0.0 {
                largest = largest.max((0.5 * (p + disc.sqrt())).sqrt());
            }
        }
        if k == 0.0 && largest == 0.0 { 0.0 } else { largest }
    }

    /// The largest `q = √Q` with `q² ≤ Σ_i a_i max(0, κ_i q − r_i) + K`
    /// over the contacts `use_contact` takes (`r_i` = `dead`, the terms
    /// widened by `widen`): the right side is linear between the
    /// breakpoints `r_i/κ_i`, so each piece is a quadratic inequality.
    fn reach(&mut self, reach: &Reach, slack: f64, widen: f64, use_contact: impl Fn(usize) -> bool) -> f64 {
        self.terms.clear();
        for i in 0..self.a.len() {
            let (a, kappa) = (self.a[i] * widen, reach.tangent[i] * widen);
            if use_contact(i) && a > 0.0 && kappa > 0.0 {
                self.terms.push((self.dead[i] / widen / kappa, a * kappa, a * self.dead[i] / widen));
            }
        }
        let k = slack + (0..self.k.len()).filter(|&i| use_contact(i)).map(|i| self.k[i]).sum::<f64>();
        self.terms.sort_by(|x, y| x.0.total_cmp(&y.0));
        // Pieces from the last (every term active) down to [0, first breakpoint].
        let (mut big_a, mut big_b) = self.terms.iter().fold((0.0, 0.0), |(a, b), t| (a + t.1, b + t.2));
        let mut hi = f64::INFINITY;
        for j in (0..=self.terms.len()).rev() {
            let lo = if j == 0 { 0.0 } else { self.terms[j - 1].0 };
            let disc = big_a * big_a - 4.0 * (big_b - k);
            if disc >= 0.0 {
                let root = 0.5 * (big_a + disc.sqrt());
                let low_root = 0.5 * (big_a - disc.sqrt());
                if root >= lo && low_root <= hi {
                    return root.min(hi);
                }
            }
            if j > 0 {
                let t = self.terms[j - 1];
                big_a -= t.1;
                big_b -= t.2;
                hi = lo;
            }
        }
        0.0
    }

    /// Allows every mode (no bound).
    pub fn allow_all(&mut self) {
        self.allowed.iter_mut().for_each(|a| *a = true);
    }
}
