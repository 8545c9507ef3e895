//! The second certificate of a step's uniqueness: friction's linear form
//! (docs/model.md#5b6-the-certificate-from-frictions-linear-form).
//!
//! For a solution `x` of a step and the Lemke solution `x*` (`δ = x − x*`,
//! `δu = W δ`, `Q = δᵀWδ = Σ_i (δλn_i δu_n,i + δf_iᵀ δu_t,i)`), pick per
//! contact a `p̃_i ∈ 𝒫` (`f*_i`'s share of its cone, or where the cone is
//! shut a maximizer of `(−u*_t,i)ᵀp`). Contact `i`'s laws at `x` give
//!
//! ```text
//! δλn δu_n   ≤ λn* max(u*_n, 0) + (cap − λn*) max(−u*_n, 0)
//! δfᵀ δu_t   ≤ μ δλn p̃ᵀδu_t − r*ᵀδu_t + ρ e,     r* = f* − ρ* p̃,
//!              e = h(−u*_t) − p̃ᵀ(−u*_t) ≥ 0
//! ```
//!
//! whatever `x` is; the right-hand terms other than the first vanish where
//! `x*` solves the step exactly. So `Q ≤ δᵀ B δ + ‖r*‖ terms + x*'s defects`
//! with `B` fixed by `x*`, and, keeping the normal terms `N_i = δλn_i δu_n,i`
//! (`≤` their defects) with a multiplier `τ ≥ 0`, `Q ≤ δᵀ S_τ δ + …`,
//! `S_τ = B − (τ − 1) N`. On the coordinates `V` a second solution can move
//! (the normal impulses the reach leaves unknown, the friction of every
//! contact that can carry some), `S_τ`'s symmetric part below `c W`, `c < 1`,
//! bounds `√Q`: by `0` where `x*` is exact and `W` regular on `V`. Where `W`
//! is singular on `V` (redundant contacts: a flat box's four corners), the
//! part of `δ` in its null space is bounded by the contacts' admissible
//! impulses, along the few null directions that couple to friction, and
//! what it adds to `δᵀS_τδ` is bounded too; where they move one pattern of
//! normal impulses, also by the impulses that pattern moves together
//! (`linear_form/null_space.rs`), and by every contact's laws at once,
//! friction cones included (a small LP: `linear_form/combined.rs`,
//! `simplex.rs`). The step is certified when the bound leaves
//! every other solution's `Δv` closer to `Δv*` than the search tells
//! velocity changes apart (`keep.rs`): the full search keeps one `Δv`.
//! Where the form does not certify from `x*`, it tries again from another
//! impulse with `x*`'s `Δv` whose friction shares, where `x*`'s velocities
//! leave them free, cancel the coupling to the null directions
//! (`linear_form/recentre.rs`).

use nalgebra::{DMatrix, SymmetricEigen};

use crate::impact::enumerate::CertificateCounts;
use crate::impact::enumerate::tableaux::reduced::Reduced;

mod combined;
mod null_space;
mod recentre;

use null_space::{Bases, PatternAt, Way, root};

/// `c` must stay below this: `Q ≤ c Q` then leaves no room to round-off.
const CONTRACTION: f64 = 1.0 - 1e-6;

/// The multipliers `τ` of the normal terms tried in turn (1: the form
/// alone; the others weigh the normal laws in, see [`LinearForm::bound`]).
const MULTIPLIERS: [f64; 4] = [1.0, 3.0, 2.0, 5.0];

/// The levels tried as upper bounds of `c` before its eigenproblem.
const LEVELS: [f64; 3] = [0.5, 0.9, CONTRACTION];

/// A defect of `x*`'s laws below this fraction of the works it sums is its
/// round-off (a few thousand units of `f64` epsilon).
const ROUNDOFF: f64 = 1e-12;

/// The buffers of the certificate, per problem.
#[derive(Clone, Debug, Default)]
pub(crate) struct LinearForm {
    /// `p*_i` per contact.
    p: Vec<[f64; 2]>,
    /// The reduced coordinates in `V`, contact by contact.
    idx: Vec<usize>,
    /// The last few `V`s met, each with the bases its eigendecomposition of
    /// `W` gives (`W` is the problem's: only `V` changes from step to step).
    kept: Kept<Option<Bases>>,
    /// The patterns of normal impulses `recentre.rs` found for the last few
    /// sets of pushing contacts.
    patterns: Kept<Option<DMatrix<f64>>>,
    /// Steps each part of the form settled.
    pub counts: CertificateCounts,
}

/// How many index sets a [`Kept`] keeps.
const KEPT: usize = 8;

/// What was computed from `W` on the last few index sets (`V`, or the
/// pushing contacts): `W` is the problem's, so it depends on the set alone.
#[derive(Clone, Debug)]
pub(crate) struct Kept<T>(Vec<(Vec<usize>, T)>);

impl<T> Default for Kept<T> {
    fn default() -> Self {
        Kept(Vec::new())
    }
}

impl<T> Kept<T> {
    /// The slot of `key`, computed by `make` where it is not kept (the
    /// oldest of [`KEPT`] dropped).
    pub fn slot(&mut self, key: &[usize], make: impl FnOnce() -> T) -> usize {
        if let Some(slot) = self.0.iter().position(|(k, _)| k == key) {
            return slot;
        }
        if self.0.len() == KEPT {
            self.0.remove(0);
        }
        self.0.push((key.to_vec(), make()));
        self.0.len() - 1
    }

    /// What slot `slot` holds.
    pub fn at(&self, slot: usize) -> &T {
        &self.0[slot].1
    }
}

/// What the certificate reads of the bound's work on one step.
pub(crate) struct StepFacts<'a> {
    /// `x*` in reduced coordinates (`λn`, `f` per contact).
    pub x: &'a [f64],
    /// `u`, the step's contact velocities before it, and `u*⁺ = u + W x*`.
    pub u: &'a [f64],
    pub up: &'a [f64],
    pub caps: &'a [f64],
    /// `b_γ`: the friction cone of contact `i` is `μ_i λn_i + g_i`.
    pub g: &'a [f64],
    /// `λD*` (`d` per contact).
    pub lambda_d: &'a [f64],
    /// Per contact: its normal impulse is the same in every solution.
    pub known: &'a [bool],
    /// `ν_i = √W_(n,n),ii` and `κ_i = √λmax(W_(t,t),ii)`: `|δu_n,i| ≤ ν_i √Q`,
    /// `‖δu_t,i‖ ≤ κ_i √Q`.
    pub normal: &'a [f64],
    pub tangent: &'a [f64],
    /// How far the laws of a solution the search accepts may miss, summed
    /// (the first bound's `K`).
    pub slack: f64,
    /// `max_r √(M⁻¹)_rr`: `‖Δv − Δv*‖∞ ≤` this `× √Q`.
    pub velocity_per_q: f64,
    /// How far from `Δv*` a velocity change must be for the search to keep
    /// it apart (`keep.rs`).
    pub apart: f64,
    /// Per contact, `p̃` where its cone is shut (`ρ* = 0`), if given; else
    /// a maximizer of `(−u*_t)ᵀp`. Any `p ∈ 𝒫` holds the bound there (its
    /// `e` is counted); `recentre.rs` picks it with the other contacts'
    /// shares, in the face of `𝒫` that `u*_t` selects (where `u*_t` is at
    /// rest `e` is its round-off whatever `p` is).
    pub shut_share: Option<&'a [[f64; 2]]>,
}

impl StepFacts<'_> {
    /// The normal impulse of contact `i` (`s` reduced coordinates a contact)
    /// in every solution where the reach fixes it (`known`): `0` where it
    /// never pushes (a zero cap, or `x*` separating), else its cap.
    pub(crate) fn fixed_impulse(&self, i: usize, s: usize) -> f64 {
        let cap = self.caps[i].max(0.0);
        if cap == 0.0 || self.up[i * s] > 0.0 { 0.0 } else { cap }
    }
}

/// What friction's linear form says of a step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FormBound {
    /// Every solution has `x*`'s `Δv` (up to what the search tells apart).
    pub unique: bool,
    /// `√Q` of every solution the search accepts is at most this (infinite
    /// where the form is no contraction).
    pub reach: f64,
}

impl LinearForm {
    /// The form's bound from another impulse `x̂` of the face of `x*`'s
    /// `Δv` (`recentre.rs`), where it did not certify from `x*`, and how far
    /// `x̂`'s `u⁺` lies from `x*`'s (`max_r |(W(x̂ − x*))_r|`, round-off).
    ///
    /// `x̂` lies in the face up to the round-off of `W`'s null directions,
    /// which its own `u⁺` (and so the form's defects) carries. `x*` is a
    /// solution the bound covers, so it lies within the reach from `x̂` as
    /// every solution does: where the form settles from `x̂`, every `Δv`,
    /// `x*`'s included, is within 0.4 of what the search tells apart of
    /// `Δv̂`, so the search would keep one. Where it does not, its reach
    /// bounds every solution the search accepts as the reach from `x*` does,
    /// about `x̂`'s `u⁺`.
    pub fn bound_from_representative(&mut self, red: &Reduced, step: &StepFacts) -> Option<(FormBound, f64)> {
        let other = recentre::recentre(red, step, &mut self.patterns)?;
        let facts = StepFacts {
            x: &other.x,
            up: &other.up,
            lambda_d: &other.lambda_d,
            shut_share: Some(&other.shares),
            ..*step
        };
        let form = self.bound(red, &facts);
        self.counts.recentred += u64::from(form.unique);
        self.counts.recentred_sliding += u64::from(form.unique && other.sliding);
        let shift = other.up.iter().zip(step.up).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
        Some((form, shift))
    }

    /// Whether every solution of the step has the `Δv` of `x*` (up to what
    /// the search tells apart), and how far from `x*` any solution the
    /// search accepts lies, by friction's linear form.
    pub fn bound(&mut self, red: &Reduced, step: &StepFacts) -> FormBound {
        let (s, dim) = (red.s, red.dim);
        let defects = self.defects(red, step);
        let k = self.idx.len();
        if k == 0 {
            // Nothing a second solution could move.
            return FormBound { unique: true, reach: 0.0 };
        }
        let (sym, normal) = self.forms(red, step);
        let idx = &self.idx;
        let slot = self.kept.slot(idx, || {
            let normals = (0..k).filter(|&r| idx[r] % s == 0).collect();
            Bases::new(DMatrix::from_fn(k, k, |r, c| red.w[idx[r] * dim + idx[c]]), normals)
        });
        // A W-orthonormal basis of W's range on V, and the null directions.
        let Some(bases) = self.kept.at(slot) else {
            return NO_BOUND;
        };
        // A constant at the round-off of the works it sums is x*'s
        // rounding, not a defect (x* is taken exact there, as the first
        // certificate takes it).
        let work = (0..red.m).map(|i| step.caps[i].abs() * (1.0 + red.friction[i]) + step.g[i].abs()).sum::<f64>();
        let velocity = step.up.iter().chain(step.u).fold(0.0f64, |a, x| a.max(x.abs()));
        let forms = Forms { sym: &sym, normal: &normal, bases, roundoff: ROUNDOFF * work * velocity };
        // Each normal term is at most its defect d_i (0 where x* is exact),
        // so for any τ ≥ 0, Σ N_i ≤ (1 − τ) Σ N_i + τ Σ d_i and
        //
        //     Q = Σ N_i + Σ F_i ≤ δᵀBδ − (τ − 1) Σ N_i + τ Σ d_i + …
        //
        // τ = 1 drops the normal terms; a larger τ weighs them against the
        // directions where friction's form exceeds W, which the normal laws
        // forbid (an S-procedure: the form S_τ = B − (τ − 1) N must be a
        // contraction, not B alone). Each τ gives a valid bound; they are
        // tried in turn up to the first contraction.
        for tau in MULTIPLIERS {
            if let Some((bound, tally)) = self.at_multiplier(red, step, &forms, &defects, tau) {
                self.counts.patterned += u64::from(tally.patterned);
                self.counts.combined += u64::from(tally.combined);
                self.counts.weighed += u64::from(tally.weighed);
                return bound;
            }
        }
        NO_BOUND
    }

    /// What `x*` misses of its laws (a constant and a multiple of `√Q`, the
    /// normal laws' shares apart: they take the normal terms' multiplier),
    /// with each contact's `p̃_i` and the coordinates `V` written to `p` and
    /// `idx`.
    fn defects(&mut self, red: &Reduced, step: &StepFacts) -> Defects {
        let (m, s, t, d) = (red.m, red.s, red.t, red.directions.len());
        self.p.clear();
        self.idx.clear();
        let mut out = Defects::default();
        for i in 0..m {
            let (mu, cap, g, lam) = (red.friction[i], step.caps[i], step.g[i], step.x[i * s]);
            let f = &step.x[i * s + 1..(i + 1) * s];
            let up = &step.up[i * s..(i + 1) * s];
            let rho = (mu * lam + g).max(0.0);
            let spread = lam.abs().max((cap - lam).abs());
            // Normal law: (λ − λ*)(u_n − u*_n) ≤ λ* max(u*_n, 0) + (cap − λ*) max(−u*_n, 0).
            // A known impulse λ° moves by λ° − λ* (round-off of x*) in every
            // solution: at most |λ° − λ*| (ν + μ κ) √Q.
            let fixed = step.fixed_impulse(i, s);
            let never_pushes = step.known[i] && fixed == 0.0;
            if step.known[i] {
                out.known_linear += (fixed - lam).abs() * (step.normal[i] + mu * step.tangent[i]);
            } else {
                out.normal += lam.max(0.0) * up[0].max(0.0) + (cap - lam).max(0.0) * (-up[0]).max(0.0);
            }
            // p̃ ∈ 𝒫: f*'s share of the cone (λD* ≥ 0 over max(ρ*, Σ λD*)),
            // or where the cone is shut a maximizer of (−u*_t)ᵀp.
            let along = |p: &[f64; 2]| -(0..t).map(|a| p[a] * up[1 + a]).sum::<f64>();
            let mut p = [0.0; 2];
            if mu > 0.0 {
                let lambda_d = &step.lambda_d[i * d..(i + 1) * d];
                let used: f64 = lambda_d.iter().map(|x| x.max(0.0)).sum();
                if rho > 0.0 {
                    let scale = rho.max(used);
                    for (k, dk) in red.directions.iter().enumerate() {
                        (0..t).for_each(|a| p[a] += lambda_d[k].max(0.0) / scale * dk[a]);
                    }
                } else if let Some(shares) = step.shut_share {
                    p = shares[i];
                } else if (0..t).any(|a| up[1 + a] != 0.0) {
                    p = *red.directions.iter().max_by(|a, b| along(a).total_cmp(&along(b))).expect("directions");
                }
                // δfᵀδu_t ≤ μ δλn p̃ᵀδu_t − r*ᵀδu_t + ρ e, r* = f* − ρ* p̃,
                // e = h(−u*_t) − p̃ᵀ(−u*_t) ≥ 0 (both 0 where x* is exact).
                let support = red.directions.iter().map(along).fold(f64::NEG_INFINITY, f64::max);
                let e = (support - along(&p)).max(0.0);
                let r = (0..t).map(|a| (f[a] - rho * p[a]).powi(2)).sum::<f64>().sqrt();
                let delta = if step.known[i] { 0.0 } else { spread };
                out.constant += (rho + mu * delta) * e;
                out.linear += r * step.tangent[i];
            }
            self.p.push(p);
            if !step.known[i] {
                self.idx.push(i * s);
            }
            if mu > 0.0 && !(never_pushes && g == 0.0) {
                self.idx.extend((1..s).map(|a| i * s + a));
            }
        }
        out
    }

    /// On `V` (`idx`): the symmetric part of `B`, `δᵀBδ = Σ_i μ_i δλn_i
    /// p̃_iᵀ(Wδ)_t,i`, and of the normal terms `Σ_i N_i = Σ_i δλn_i
    /// (Wδ)_n,i`: both have their rows on the unknown normals.
    fn forms(&self, red: &Reduced, step: &StepFacts) -> (DMatrix<f64>, DMatrix<f64>) {
        let (s, t, dim) = (red.s, red.t, red.dim);
        let w = |r: usize, c: usize| red.w[r * dim + c];
        let unknown_normal = |r: usize| r % s == 0 && !step.known[r / s];
        let b = |r: usize, c: usize| {
            if !unknown_normal(r) {
                return 0.0;
            }
            let i = r / s;
            red.friction[i] * (0..t).map(|a| self.p[i][a] * w(i * s + 1 + a, c)).sum::<f64>()
        };
        let n = |r: usize, c: usize| if unknown_normal(r) { w(r, c) } else { 0.0 };
        let (idx, k) = (&self.idx, self.idx.len());
        let sym = DMatrix::from_fn(k, k, |r, c| 0.5 * (b(idx[r], idx[c]) + b(idx[c], idx[r])));
        let normal = DMatrix::from_fn(k, k, |r, c| 0.5 * (n(idx[r], idx[c]) + n(idx[c], idx[r])));
        (sym, normal)
    }

    /// The bound at the multiplier `τ`, `Q ≤ c Q + linear √Q + constant`,
    /// and which parts of the form settled it; `None` where `S_τ` is no
    /// contraction (the next `τ` is tried).
    fn at_multiplier(
        &self,
        red: &Reduced,
        step: &StepFacts,
        forms: &Forms,
        defects: &Defects,
        tau: f64,
    ) -> Option<(FormBound, Tally)> {
        let Bases { scaled, columns, pattern } = forms.bases;
        let (rank, nullity) = (scaled.ncols(), columns.ncols());
        let form = forms.sym - forms.normal * (tau - 1.0);
        // S_τ in a W-orthonormal basis of the range: c is its largest
        // eigenvalue. First the least of LEVELS above it, by a Cholesky
        // factorization of level · I − S_τ each (a step certified at that
        // level needs no eigenproblem).
        let on_range = scaled.transpose() * &form * scaled;
        let below = |level: f64| {
            let gap =
                DMatrix::from_fn(rank, rank, |r, c| if r == c { level - on_range[(r, c)] } else { -on_range[(r, c)] });
            gap.cholesky().is_some()
        };
        let level = LEVELS.into_iter().find(|&level| rank == 0 || below(level))?;
        let mut tally = Tally::default();
        let linear = defects.linear + tau * defects.known_linear;
        let mut constant = defects.constant + tau * defects.normal;
        // The box's way of counting the null component, and (`ways`, not
        // allocated unless the pattern is counted) every way.
        let mut box_way = Way { own: None, linear: 0.0, accepted: 0.0 };
        let mut ways = Vec::new();
        let null = (nullity > 0).then(|| self.null_terms(red, step, &form, scaled, columns));
        if let Some(null) = &null {
            box_way = Way { own: None, linear: null.linear, accepted: null.linear };
            constant += null.constant;
        }
        // The laws of a solution the search accepts miss by the slack,
        // the normal ones' share weighed by τ.
        let slack = constant + tau * step.slack;
        if constant <= forms.roundoff {
            constant = 0.0;
        }
        // ‖Δv − Δv*‖∞ ≤ max_r √(M⁻¹)_rr √Q: within what the search tells
        // apart (`keep.rs`) of Δv*, every solution has the one `Δv`.
        let settles =
            |ways: &[Way], c: f64| root(ways, c, linear, constant, false) * step.velocity_per_q <= 0.4 * step.apart;
        let mut settled = settles(std::slice::from_ref(&box_way), level);
        if let (false, Some(null), Some(pattern)) = (settled, &null, pattern) {
            // The pattern the null directions move, counted with the
            // normal impulses it moves together: first with each row's
            // c bounded by a level (a Cholesky factorization), then,
            // where that does not settle, with its own (one
            // eigenproblem per normal impulse).
            ways.push(box_way);
            let at = PatternAt { on_range: &on_range, scaled, columns, pattern };
            let mut rows = self.pattern_ways(red.s, step, at, null, false, &mut ways);
            settled = settles(&ways, level);
            if !settled {
                ways.truncate(1);
                rows = self.pattern_ways(red.s, step, at, null, true, &mut ways);
                settled = settles(&ways, level);
            }
            tally.patterned = settled;
            if !settled {
                // Every contact's laws at once (two small LPs).
                self.combined_ways(red, step, at, &mut rows, &mut ways);
                settled = settles(&ways, level);
                tally.combined = settled;
            }
        }
        let ways = if ways.is_empty() { std::slice::from_ref(&box_way) } else { &ways[..] };
        if settled {
            tally.weighed = tau != 1.0;
            let reach = NO_BOUND.reach.min(root(ways, level, linear, slack, true));
            return Some((FormBound { unique: true, reach }, tally));
        }
        // Not at the level: c itself, for the reach and a last look.
        let c = if rank == 0 {
            0.0
        } else {
            match SymmetricEigen::try_new(on_range, 1e-15, 10_000) {
                Some(e) => e.eigenvalues.iter().fold(0.0f64, |a, &x| a.max(x)),
                None => return Some((NO_BOUND, tally)),
            }
        };
        let unique = settles(ways, c);
        tally.weighed = unique && tau != 1.0;
        // A contraction that does not certify is held back by x*'s
        // defects or the null directions' coupling, which another τ
        // seldom removes: going on certified none of `cube-flat`'s
        // steps and 3 of 417 random boxes' steps, and cost the measured
        // four-corner landing 25 %.
        Some((FormBound { unique, reach: NO_BOUND.reach.min(root(ways, c, linear, slack, true)) }, tally))
    }
}

/// No bound: not unique, an infinite reach.
const NO_BOUND: FormBound = FormBound { unique: false, reach: f64::INFINITY };

/// What `x*` misses of its laws: a constant and a multiple of `√Q`, and the
/// normal laws' shares (`normal`: their defects, `known_linear`: the known
/// impulses' round-off), which take the normal terms' multiplier `τ`.
#[derive(Clone, Copy, Debug, Default)]
struct Defects {
    constant: f64,
    linear: f64,
    normal: f64,
    known_linear: f64,
}

/// The step's forms on `V`: `B`'s symmetric part, the normal terms', the
/// bases of `W` there, and the round-off below which `x*`'s constant
/// defect counts as none.
struct Forms<'a> {
    sym: &'a DMatrix<f64>,
    normal: &'a DMatrix<f64>,
    bases: &'a Bases,
    roundoff: f64,
}

/// Which parts of the form settled a step at one multiplier.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    patterned: bool,
    combined: bool,
    weighed: bool,
}
