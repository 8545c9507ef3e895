//! Steps whose friction cone is widened by a prescribed normal impulse
//! (`b_γ ≠ 0`, restitution's expansion, docs/model.md §4b,
//! docs/model.md#5b11-widened-steps-a-friction-only-twin), searched
//! as steps of a problem with one more contact per widened one.
//!
//! Contact `i` pushes with a prescribed `o_i` and takes `y_i ∈ [0, h p_i]`
//! more; its friction holds `f_i ∈ μ_i (o_i + y_i) P` and minimizes
//! `u_tᵀ f_i` there. The polygon of a sum is the sum of the polygons,
//! `μ (o + y) P = μ y P + μ o P`, and a linear function is minimized over a
//! sum of sets by minimizing it over each, so `f_i = f_y + f_o` with
//!
//! * `f_y ∈ μ_i y_i P` minimizing `u_tᵀ f_y`: contact `i` of the step without
//!   the widening (its own modes, right-hand side with `b_γ = 0`);
//! * `f_o ∈ μ_i o_i P` minimizing `u_tᵀ f_o`: a *twin* contact with contact
//!   `i`'s tangent rows, a zero normal row (its impulse `o_i` is already in
//!   `u`) and only the capped modes, at cap `o_i = b_γ,i / μ_i`.
//!
//! The solutions of the widened step are exactly those of the twinned step
//! with every twin capped, mapped back by adding each twin's friction
//! directions to its contact's; a segment of decompositions
//! `f_y + f_o = f` (both sticking, or sliding on one edge) has end points
//! where one part is at a vertex or the two are on different edges, so it
//! shows through mode tuples whose system is regular, as every segment does
//! (docs/model.md#5b1-the-contact-mode-search). The twinned step is an ordinary one (`b_γ = 0`), so its
//! search, bound, certificate and budget are the enumerator's own.

use crate::impact::enumerate::{EnumeratorOptions, StepEnumerator};
use crate::problem::ContactOperators;

/// The most sets of widened contacts whose twinned enumerators are kept
/// (the oldest is dropped for a new one).
const KEPT: usize = 8;

/// The enumerator of the steps widened at one set of contacts.
#[derive(Clone, Debug)]
pub(crate) struct Widened {
    /// The widened contacts, one bit each.
    mask: u64,
    /// Contact `p` of the twinned step is contact `source[p].0` of the
    /// widened one, or its twin when `source[p].1`: the contacts in their
    /// order, then the twins (the search fixes the contacts first, whose
    /// slips leave each twin few modes; a twin right after its contact
    /// cost 1.45× more on `cube-flat` with `e = 0.5`).
    source: Vec<(usize, bool)>,
    ops: ContactOperators,
    enumerator: StepEnumerator,
    /// The twinned step's right-hand side (its `b_γ` rows stay 0).
    b: Vec<f64>,
    /// A solution mapped back to the widened step, and its `Δv`.
    z: Vec<f64>,
    dv: Vec<f64>,
}

impl Widened {
    fn new(ops: &ContactOperators, mask: u64, options: EnumeratorOptions) -> Self {
        let contacts = (0..ops.m).map(|i| (i, false));
        let twins = (0..ops.m).filter(|&i| mask >> i & 1 == 1).map(|i| (i, true));
        let source: Vec<(usize, bool)> = contacts.chain(twins).collect();
        let twinned = twinned_operators(ops, &source);
        let prescribed: Vec<bool> = source.iter().map(|&(_, twin)| twin).collect();
        let enumerator = StepEnumerator::with_prescribed(&twinned, options, &prescribed);
        let b = vec![0.0; twinned.step_size_n()];
        let (z, dv) = (vec![0.0; ops.step_size_n()], vec![0.0; ops.n]);
        Widened { mask, source, ops: twinned, enumerator, b, z, dv }
    }
}

/// The operators of the twinned step of `ops` whose widened contacts are
/// the bits of `mask` (the contacts in their order, then one twin per
/// widened contact in ascending order), and its enumerator: the tables
/// `all` on the GPU enumerates such a step with (`gpu/enumerate.rs`, for
/// problems below the bound's size, whose twinned steps take no bound).
#[cfg(feature = "gpu")]
pub(crate) fn twinned_step(ops: &ContactOperators, mask: u64) -> (ContactOperators, StepEnumerator) {
    let Widened { ops, enumerator, .. } = Widened::new(ops, mask, EnumeratorOptions::default());
    (ops, enumerator)
}

/// The operators of the twinned step whose contacts are `source` (see
/// [`Widened::source`]): a twin has its contact's tangent and
/// friction-direction rows, a zero normal row and the same friction. Every
/// block is copied from `ops` (the twinned `J`'s rows are rows of `ops.j`
/// or zero), so the contacts' own blocks are the same bit for bit.
fn twinned_operators(ops: &ContactOperators, source: &[(usize, bool)]) -> ContactOperators {
    let (n, m, d) = (ops.n, ops.m, ops.d);
    let t = ops.dimension.tangents();
    let ma = source.len();
    let jn = nalgebra::DMatrix::from_fn(ma, n, |p, c| if source[p].1 { 0.0 } else { ops.jn[(source[p].0, c)] });
    let jt = nalgebra::DMatrix::from_fn(ma * t, n, |r, c| ops.jt[(source[r / t].0 * t + r % t, c)]);
    // Row `r` of the twinned `J = [Jn; JD]` is row `row(r)` of `ops.j`, or
    // zero (a twin's normal row).
    let row = |r: usize| -> Option<usize> {
        if r < ma {
            (!source[r].1).then_some(source[r].0)
        } else {
            let (p, k) = ((r - ma) / d, (r - ma) % d);
            Some(m + source[p].0 * d + k)
        }
    };
    let rows = ma + ma * d;
    let j = nalgebra::DMatrix::from_fn(rows, n, |r, c| row(r).map_or(0.0, |s| ops.j[(s, c)]));
    let minv_jt = nalgebra::DMatrix::from_fn(n, rows, |c, r| row(r).map_or(0.0, |s| ops.minv_jt[(c, s)]));
    let delassus = nalgebra::DMatrix::from_fn(rows, rows, |r, c| match (row(r), row(c)) {
        (Some(a), Some(b)) => ops.delassus[(a, b)],
        _ => 0.0,
    });
    let friction: Vec<f64> = source.iter().map(|&(i, _)| ops.friction[i]).collect();
    let layout = crate::problem::StepLayout { m: ma, d };
    let step_matrix = crate::problem::operators::step_matrix(&delassus, &friction, layout);
    ContactOperators {
        n,
        m: ma,
        d,
        dimension: ops.dimension,
        jn,
        jt,
        j,
        directions: ops.directions.clone(),
        friction,
        mass_inv: ops.mass_inv.clone(),
        minv_jt,
        delassus,
        step_matrix,
    }
}

impl StepEnumerator {
    /// The mode tuples of a step: the product of the contacts' mode counts.
    pub(crate) fn tuples(&self) -> f64 {
        (0..self.reduced.m).map(|i| self.reduced.table.of(i).len() as f64).product()
    }

    /// Every solution of the widened step `b` (`b_γ ≠ 0`) by the twinned
    /// step (module docs), appended to the list; returns whether the list
    /// is exhaustive (when the twinned search is not, nothing is appended:
    /// its Lemke solves solve the twinned LCP, whose twins may take less
    /// than their cap, so the caller's own fallback completes the list).
    pub(crate) fn search_widened(&mut self, ops: &ContactOperators, b: &[f64]) -> bool {
        let (m, d) = (ops.m, ops.d);
        let layout = ops.layout();
        // The sampler's `b_γ,i = μ_i o_i` is nonzero only where `μ_i > 0`;
        // a frictionless contact given a widened cone has no twin to carry
        // it (the caller's Lemke fallback then completes the list).
        let g = &b[layout.gamma(0)..];
        if (0..m).any(|i| g[i] != 0.0 && ops.friction[i] <= 0.0) {
            return false;
        }
        let mask = (0..m).filter(|&i| g[i] != 0.0).fold(0u64, |a, i| a | 1 << i);
        let slot = match self.widened.iter().position(|w| w.mask == mask) {
            Some(k) => k,
            None => {
                // At most `KEPT` sets of widened contacts, each with an
                // eighth of the records' store: their records together
                // take no more than the enumerator's own.
                if self.widened.len() == KEPT {
                    self.widened.remove(0);
                }
                // Below the bound's size the twinned search takes no bound
                // either: it keeps each `Δv`'s first tuple, as the GPU does.
                let mut tuning = self.options.tuning;
                tuning.cache_bytes /= KEPT;
                let bound = self.options.bound && self.tuples() >= self.options.bound_min_tuples;
                self.widened.push(Widened::new(ops, mask, EnumeratorOptions { tuning, bound, ..self.options }));
                self.widened.len() - 1
            }
        };
        let mut widened = std::mem::take(&mut self.widened);
        let Widened { source, ops: twinned_ops, enumerator, b: tb, z, dv, .. } = &mut widened[slot];
        let twinned = twinned_ops.layout();
        for (p, &(i, twin)) in source.iter().enumerate() {
            // A twin: cap o_i = b_γ,i / μ_i, normal velocity 0 (its row is
            // zero), its contact's tangential velocities.
            tb[twinned.sigma(p)] = if twin { g[i] / ops.friction[i] } else { b[layout.sigma(i)] };
            tb[twinned.lambda_n(p)] = if twin { 0.0 } else { b[layout.lambda_n(i)] };
            for k in 0..d {
                tb[twinned.lambda_d(p, k)] = b[layout.lambda_d(i, k)];
            }
        }
        let count = enumerator.enumerate(twinned_ops, tb);
        self.nodes += enumerator.nodes();
        let exhaustive = enumerator.exhaustive();
        if exhaustive {
            let normal_scale = b[..m].iter().fold(0.0f64, |a, x| a.max(x.abs()));
            for k in 0..count {
                let za = enumerator.solution(k);
                z.iter_mut().for_each(|x| *x = 0.0);
                for (p, &(i, twin)) in source.iter().enumerate() {
                    if !twin {
                        z[layout.sigma(i)] = za[twinned.sigma(p)];
                        z[layout.lambda_n(i)] = za[twinned.lambda_n(p)];
                    }
                    // The friction is the sum of the two parts'; γ_i the
                    // slip rate both see (the larger, as a part without
                    // impulse may report none).
                    for c in 0..d {
                        z[layout.lambda_d(i, c)] += za[twinned.lambda_d(p, c)];
                    }
                    z[layout.gamma(i)] = z[layout.gamma(i)].max(za[twinned.gamma(p)]);
                }
                dv.copy_from_slice(enumerator.velocity_change(k));
                self.keep(ops, z, dv, normal_scale);
            }
        }
        self.widened = widened;
        exhaustive
    }
}
