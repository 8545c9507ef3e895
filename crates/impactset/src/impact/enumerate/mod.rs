//! Every solution of a Routh step LCP (docs/model.md §4, §5b), by contact-mode
//! enumeration in reduced impulse coordinates.
//!
//! The step LCP `w = A_R z + b ≥ 0, z ≥ 0, zᵀw = 0`, `z = [σ; λn; λD; γ]`,
//! `b = [h·p; Jn v; JD v; b_γ]`, can have several solutions with different
//! velocity changes `Δv = M⁻¹Jᵀλ`, even segments of them.
//! [`StepEnumerator`] returns one LCP solution per distinct `Δv`, in a fixed
//! order.
//!
//! # Method (docs/model.md#5b1-the-contact-mode-search)
//!
//! `Δv` depends on `λ` only through the reduced impulses `x_i = (λn_i, f_i)`,
//! and the step is `u⁺ = u + W x`, `W = [Jn; Jt] M⁻¹ [Jn; Jt]ᵀ`
//! (`reduce.rs`). A mode per contact (a face of its law, `modes.rs`) fixes
//! a square linear system whose solution, if it meets the mode's
//! inequalities, is a step solution; every isolated solution arises so, and
//! a segment shows through its end points. Three parts, one folder each:
//!
//! 1. `certificates/`: one Lemke solve and the bound it puts on every other
//!    solution: the modes no solution can have, and whether `Δv` is
//!    certified unique (then the Lemke solution is kept, or a twinned
//!    search stops at its first solution).
//! 2. `search/`: a depth-first search over contacts in index order, a
//!    subtree pruned when a fixed contact's inequality fails for every
//!    admissible impulse of the free contacts, by a margin 1000 times the
//!    acceptance tolerance (a root filter, each node, the node's
//!    inequalities together, and forward checks of the modes of the free
//!    contacts after the next). Tuples with more equations than `rank W`
//!    are skipped; a contact whose block is singular is deferred and the
//!    leaves below are solved directly, except where it is the last
//!    contact and no other was deferred: that tuple's system is singular,
//!    and skipped. Each leaf's full `z` is rebuilt from `x`. A step whose
//!    friction cone a prescribed normal impulse widens (`b_γ ≠ 0`,
//!    restitution's expansion) is, unless the bound certifies it, the step
//!    of a problem with a friction-only twin per widened contact. Past
//!    [`EnumeratorOptions::node_budget`] mode fixes, or beyond
//!    [`MAX_SEARCH_CONTACTS`], Lemke solves complete the list and
//!    [`StepEnumerator::exhaustive`] is `false`.
//! 3. `tableaux/`: fixing a mode is a block elimination on an affine
//!    tableau; the search reads its tableaux through one interface,
//!    replayed from fixed-mode records kept per mode prefix from step to
//!    step where they fit, else computed from the parent's; both give the
//!    same values bit for bit.
//!
//! # Order
//!
//! Mode tuples in lexicographic order, contact 0 most significant; each
//! contact's modes open, closed × (stick, vertex `0..d`, edge `0..d`),
//! capped × (the same). Solutions come in the order of the first tuple
//! giving each distinct `Δv` (its solution the first met, or a later more
//! accurate one when the first's step violation exceeds `10⁻¹¹`,
//! `search/keep.rs`); pruning does not change it, so an
//! implementation trying every tuple (the GPU, up to 42 875 tuples a step)
//! returns the same list up to round-off at the tolerance boundaries.
//!
//! # Tolerances
//!
//! With `P = max_i h p_i (1 + μ_i)`, `Pn = max_i h p_i` and
//! `V = max(‖u‖∞, s · max|W| · P)`, pruning drops a node when an inequality
//! `a_xᵀ x + a_uᵀ u⁺ + a₀ h p ≥ 0` is below
//! `−10⁻⁶ (‖a_u‖₁ V + ‖a_f‖₁ P + (|a_λn| + |a₀|) Pn)` everywhere in the
//! node's admissible set. A leaf is accepted in the velocity scale of its
//! own terms, `V_x = max(‖u‖∞, max_r Σ_c |W_rc x_c|, s · max|W| · Pn)`: a
//! mode equation's residual up to `10⁻⁹ V_x`, an inequality down to
//! `−10⁻⁹ (‖a_u‖₁ V_x + ‖a_f‖₁ P + (|a_λn| + |a₀|) Pn)`. Mode columns `G`
//! are scaled to `max|G_(·k)| = 1`, and a pivot at most `10⁻¹¹ max|W|` is
//! singular. Two velocity changes are the same when they differ by at most
//! `10⁻⁷ max(‖Δv₁‖∞, ‖Δv₂‖∞) + 10⁻¹⁰ max|M⁻¹[Jn;Jt]ᵀ| Pn` in every entry.

mod certificates;
mod modes;
mod options;
mod reduce;
mod search;
mod simplex;
mod tableaux;

#[cfg(test)]
mod bound_tests;
#[cfg(test)]
pub(crate) mod brute_force;
#[cfg(test)]
mod store_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod widened_tests;

use crate::lcp::LemkeWorkspace;
use crate::problem::ContactOperators;

use certificates::Certificate;
use certificates::bound::Verdict;
use certificates::reach::Reach;
pub use options::{CertificateCounts, EnumerationCounts, EnumeratorOptions, EnumeratorTuning};
use reduce::FullStep;
use search::keep::Solutions;
use search::scratch::Scratch;
use tableaux::reduced::{Reduced, StepData, ToleranceScales};
#[cfg(feature = "gpu")]
pub(crate) use {modes::Normal, modes::Tangential, search::keep::REPLACED_ABOVE, search::widened::twinned_step};

/// Relative acceptance tolerance of inequalities and mode equations.
pub(crate) const ACCEPT: f64 = 1e-9;
/// Relative margin of pruning: far wider than [`ACCEPT`], so pruning never
/// removes a tuple that would be accepted.
pub(crate) const PRUNE: f64 = 1e-6;
/// Relative tolerance of "same velocity change".
pub(crate) const SAME_DV: f64 = 1e-7;
/// The most contacts the mode search handles (it keeps sets of contacts in
/// 64-bit masks); with more, every enumeration is the Lemke fallback alone
/// (not exhaustive), and no search buffer is allocated.
pub const MAX_SEARCH_CONTACTS: usize = 64;
/// Enumerates the solutions of the step LCPs of one problem: a reusable
/// per-thread workspace (docs/model.md §4, §5b; method, order and tolerances in the
/// module docs).
///
/// ```
/// use impactset::impact::StepEnumerator;
/// use impactset::{Contact, ImpactProblem};
/// use nalgebra::{dmatrix, dvector};
///
/// // A point mass falling onto a frictionless floor: one solution.
/// let floor = Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.0);
/// let problem = ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], dvector![0.0, -1.0], vec![floor])?;
/// let ops = problem.operators();
/// let mut e = StepEnumerator::new(ops);
/// // b = [h p; Jn v; JD v; 0] with h p = 0.25, v = (0, −1).
/// assert_eq!(e.enumerate(ops, &[0.25, -1.0, 0.0, 0.0, 0.0]), 1);
/// assert!(e.exhaustive());
/// // The cap is taken: λn = 0.25, σ = 0.75.
/// assert!((e.solution(0)[1] - 0.25).abs() < 1e-15 && (e.solution(0)[0] - 0.75).abs() < 1e-15);
/// # Ok::<(), impactset::ProblemError>(())
/// ```
#[derive(Clone, Debug)]
pub struct StepEnumerator {
    /// The step in reduced coordinates: `W`, its rank, the mode table.
    reduced: Reduced,
    /// The full step's sizes and the maps between it and `reduced`.
    full: FullStep,
    options: EnumeratorOptions,
    /// The search's buffers (boxed: [`enumerate`](Self::enumerate) takes
    /// them out for the search and puts them back by moving a pointer).
    scratch: Option<Box<Scratch>>,
    /// The solutions found, one per distinct `Δv`.
    list: Solutions,
    /// The scales of the step being enumerated.
    scales: ToleranceScales,
    /// Whether the last step was searched to the end.
    exhaustive: bool,
    /// Mode fixes the last step made.
    nodes: usize,
    /// The bound from a Lemke solution and what it said of the last step.
    certificate: Certificate,
    /// Lemke's workspace: the bound's solve and the fallback's.
    lemke: LemkeWorkspace,
    counts: EnumerationCounts,
    /// The enumerators of widened steps, one per set of contacts with a
    /// prescribed normal impulse, built when first needed (`widened.rs`).
    widened: Vec<search::widened::Widened>,
}

impl StepEnumerator {
    /// An enumerator for the step LCPs of `ops`, with default options.
    pub fn new(ops: &ContactOperators) -> Self {
        Self::with_options(ops, EnumeratorOptions::default())
    }

    /// An enumerator for the step LCPs of `ops`.
    pub fn with_options(ops: &ContactOperators, options: EnumeratorOptions) -> Self {
        Self::with_prescribed(ops, options, &[])
    }

    /// As [`with_options`](Self::with_options), the contacts `i` where
    /// `prescribed[i]` having only capped modes (`widened.rs`).
    fn with_prescribed(ops: &ContactOperators, options: EnumeratorOptions, prescribed: &[bool]) -> Self {
        let searchable = ops.m <= MAX_SEARCH_CONTACTS;
        let (reduced, full) = reduce::reduce(ops, prescribed, searchable);
        let scratch = Scratch::new(&reduced, &options, searchable, full.size, full.n);
        let reach = if searchable { Reach::new(&reduced, &ops.mass_inv) } else { Reach::default() };
        let certificate = Certificate::new(reach, full.size, prescribed.iter().any(|&p| p));
        let (list, lemke) = (Solutions::new(full.size, full.n), LemkeWorkspace::new(full.size));
        StepEnumerator {
            list,
            lemke,
            reduced,
            full,
            options,
            scratch: Some(Box::new(scratch)),
            scales: ToleranceScales::default(),
            exhaustive: true,
            nodes: 0,
            certificate,
            counts: EnumerationCounts::default(),
            widened: Vec::new(),
        }
    }

    /// Finds every solution of `w = A_R z + b` (`A_R` =
    /// [`ContactOperators::step_matrix`], `b = [h·p; Jn v; JD v; 0]` as built by
    /// [`crate::impact::routh_step`]), one per distinct velocity change
    /// `Δv = M⁻¹Jᵀλ`, in the order documented in the module docs; returns how
    /// many. The `JD v` part of `b` must be the friction directions applied to
    /// some tangential velocity (it is read back by least squares).
    ///
    /// When the search exceeds its node budget the result is completed by
    /// Lemke solves and [`exhaustive`](Self::exhaustive) is `false`.
    pub fn enumerate(&mut self, ops: &ContactOperators, b: &[f64]) -> usize {
        assert_eq!(b.len(), self.full.size, "right-hand side of the wrong size");
        self.list.start(b);
        self.exhaustive = true;
        self.nodes = 0;
        let (m, s, d) = (self.reduced.m, self.reduced.s, self.full.d);
        let mut scratch = self.scratch.take().expect("the buffers are back after every enumeration");
        for i in 0..m {
            scratch.caps[i] = b[i];
            scratch.u[i * s] = b[m + i];
            for a in 0..s - 1 {
                scratch.u[i * s + 1 + a] =
                    (0..d).map(|k| self.full.tangent_recovery[k][a] * b[2 * m + i * d + k]).sum();
            }
        }
        self.scales = self.step_scales(&scratch.u, &scratch.caps);
        self.certificate.verdict = Verdict::None;
        // A step certified to have one `Δv` keeps its Lemke solution (a
        // twinned step's is searched to its first solution). Any other is
        // searched; a friction cone widened by `b_γ` (a prescribed normal
        // impulse) is outside the contact modes, so such a step is searched
        // as a twinned step (`widened.rs`).
        let widened = b[self.full.size - m..].iter().any(|&g| g != 0.0);
        if m > MAX_SEARCH_CONTACTS {
            self.exhaustive = false;
        } else {
            self.bound_step(ops, b, widened, &mut scratch);
            if self.certificate.verdict == Verdict::Unique && !self.certificate.twinned {
                self.keep_certified(ops, b, &mut scratch);
            } else if !widened {
                self.search(ops, &mut scratch);
            } else {
                self.exhaustive = self.search_widened(ops, b);
            }
        }
        if !self.exhaustive {
            self.fallback(ops, b, &mut scratch);
        }
        self.counts.steps += 1;
        if !self.exhaustive {
            self.counts.not_exhaustive += 1;
        } else if self.certified() {
            self.counts.certified += 1;
        } else {
            self.counts.enumerated += 1;
        }
        self.scratch = Some(scratch);
        self.list.count
    }

    /// Whether the search may stop: a twinned step's `Δv` is certified
    /// unique and a solution is found (the first in the search's order, as
    /// a complete search would return it).
    #[inline]
    fn settled(&self) -> bool {
        self.certificate.verdict == Verdict::Unique && self.list.count > 0
    }

    /// Whether the last enumeration's step was certified to have a single
    /// `Δv` by the bound from a Lemke solution
    /// (docs/model.md#5b10-when-a-step-is-certified).
    pub fn certified(&self) -> bool {
        self.certificate.verdict == Verdict::Unique
    }

    /// Solution `k` of the last enumeration: a full LCP solution `z` (`N`
    /// entries).
    pub fn solution(&self, k: usize) -> &[f64] {
        &self.list.solutions[k * self.full.size..(k + 1) * self.full.size]
    }

    /// The velocity change `Δv = M⁻¹Jᵀλ` of solution `k` (`n` entries).
    pub fn velocity_change(&self, k: usize) -> &[f64] {
        &self.list.changes[k * self.full.n..(k + 1) * self.full.n]
    }

    /// Whether the last enumeration searched every mode (`false`: it ran out of
    /// node budget and was completed by Lemke solves).
    pub fn exhaustive(&self) -> bool {
        self.exhaustive
    }

    /// What the enumerations so far did: steps certified unique, searched,
    /// not exhaustive, and which parts of the certificate settled them.
    pub fn counts(&self) -> EnumerationCounts {
        let form = self.scratch.as_ref().map_or_else(CertificateCounts::default, |sc| sc.bound.form.counts);
        let certificates = CertificateCounts { refined: self.counts.certificates.refined, ..form };
        EnumerationCounts { certificates, ..self.counts }
    }

    /// Mode fixes (search nodes and forward-checking probes) the last
    /// enumeration made.
    pub fn nodes(&self) -> usize {
        self.nodes
    }

    /// The per-problem constants of the enumeration (`W`, its rank, the mode
    /// table, …), for the GPU port (`src/gpu/enumerate.rs`).
    #[cfg(feature = "gpu")]
    pub(crate) fn reduced(&self) -> &Reduced {
        &self.reduced
    }

    /// `B = M⁻¹ [Jn; Jt]ᵀ` (row-major `n × D`, `Δv = B x`) and `max |B|`, for
    /// the GPU port.
    #[cfg(feature = "gpu")]
    pub(crate) fn dv_map(&self) -> (&[f64], f64) {
        (&self.full.dv_map, self.full.dv_map_max)
    }

    /// The least-squares recovery of `Jt v` from `JD v` (`r_k` per direction),
    /// for the GPU port.
    #[cfg(feature = "gpu")]
    pub(crate) fn tangent_recovery(&self) -> &[[f64; 2]] {
        &self.full.tangent_recovery
    }

    /// The step's data and scales (see the module docs, Tolerances).
    fn step_data<'a>(&self, u: &'a [f64], caps: &'a [f64], hull: &'a [u64]) -> StepData<'a> {
        StepData { u, caps, hull, scales: self.scales }
    }

    /// The scales of the step `(u, caps)`: computed once per enumeration,
    /// read by [`step_data`](Self::step_data).
    fn step_scales(&self, u: &[f64], caps: &[f64]) -> ToleranceScales {
        let red = &self.reduced;
        let impulse_scale = (0..red.m).map(|i| caps[i].abs() * (1.0 + red.friction[i])).fold(0.0f64, f64::max);
        let normal_scale = caps.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let u_max = u.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        ToleranceScales {
            velocity: u_max.max(red.s as f64 * red.w_max * impulse_scale),
            impulse: impulse_scale,
            normal: normal_scale,
        }
    }
}
