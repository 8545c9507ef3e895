//! The part of `δ` in `W`'s null space on `V` (redundant contacts: a flat
//! box's four corners), for friction's linear form (docs/model.md#5b7-the-null-pattern):
//! the bases of `W` on `V`, the pattern of normal impulses the null
//! directions move, its rows (one normal impulse each, or every contact's
//! admissible impulses combined), and the ways of counting them in the
//! bound.

use nalgebra::{DMatrix, DVector, SymmetricEigen};

use super::{CONTRACTION, LEVELS, LinearForm, ROUNDOFF, StepFacts};
use crate::impact::enumerate::tableaux::reduced::Reduced;

/// An eigenvalue of `W` on `V` at most this fraction of its largest counts
/// as null (the bound below holds whichever way one is counted).
const NULL: f64 = 1e-10;

/// What the certificate reads of `W`'s eigendecomposition on one `V`.
#[derive(Clone, Debug)]
pub(crate) struct Bases {
    /// A `W`-orthonormal basis of `W`'s range on `V` (eigenvectors over the
    /// square roots of their eigenvalues), `|V| × rank`.
    pub scaled: DMatrix<f64>,
    /// The null directions (eigenvalues at most [`NULL`] of the largest),
    /// orthonormal, `|V| × (|V| − rank)`.
    pub columns: DMatrix<f64>,
    /// The one pattern of normal impulses the null directions move, where
    /// they move one (a flat box's four corners).
    pub pattern: Option<Pattern>,
}

/// What the pattern's ways read at one multiplier `τ`: `S_τ` on the range
/// (`on_range`), the range basis `scaled` and the null directions
/// `columns` ([`Bases`]), and the pattern.
#[derive(Clone, Copy)]
pub(crate) struct PatternAt<'a> {
    pub on_range: &'a DMatrix<f64>,
    pub scaled: &'a DMatrix<f64>,
    pub columns: &'a DMatrix<f64>,
    pub pattern: &'a Pattern,
}

/// The normal impulses' part `z = P t` of a null component `Σ_j t_j e_j`
/// (`P`: the null directions' rows on `V`'s normal impulses), where `P` has
/// one singular value above [`PATTERN`] of the largest: `P = s₁ u₁ v₁ᵀ + P̃`.
/// Then `z = u₁ φ + P̃ t` with `φ = s₁ v₁ᵀ t`, one number.
#[derive(Clone, Debug)]
pub(crate) struct Pattern {
    /// `V`'s rows of the normal impulses.
    rows: Vec<usize>,
    /// `u₁`, per row.
    u: Vec<f64>,
    /// `v₁ / s₁`: `v₁ᵀ t = φ / s₁`.
    pub v: DVector<f64>,
    /// `‖row of P̃‖` per row: `|(P̃ t)_i|` is at most this `× ‖t‖`.
    rest: Vec<f64>,
}

/// What [`LinearForm::null_terms`] bounds: the multiple of `√Q` and the
/// constant the null component adds, a bound on `‖t‖`, and the coupling
/// `L` (its columns `e_jᵀS` on the range) it computed them from.
pub(crate) struct NullTerms {
    pub linear: f64,
    pub constant: f64,
    pub norm: f64,
    pub coupling: DMatrix<f64>,
}

/// What one row `k` of the pattern says of `φ`: `−below − h_kᵀa ≤ φ ≤
/// above − h_kᵀa` (the rooms widened for the certificate, and for the
/// solutions the search accepts), and `c_k = λmax(S − h_kℓᵀ − ℓh_kᵀ)`. A
/// combined row (`combined.rs`) bounds one side; the other is infinite.
pub(crate) struct PatternRow {
    pub above: f64,
    pub below: f64,
    pub above_accepted: f64,
    pub below_accepted: f64,
    pub c: f64,
}

/// The pattern's rows met on a step, and what their pairs read: `ℓ`, `‖ℓ‖`,
/// the round-off part's multiple of `√Q`, the bound on `‖t‖`.
pub(crate) struct PatternRows {
    pub rows: Vec<PatternRow>,
    pub along: DVector<f64>,
    lambda: f64,
    rest_linear: f64,
    pub norm: f64,
}

impl PatternRows {
    /// Pushes a [`Way`] per pair of an upper and a lower row with at least
    /// one of them from row `from` on (a combined row holds one side only).
    pub(crate) fn push_pairs(&self, from: usize, ways: &mut Vec<Way>) {
        for (i, upper) in self.rows.iter().enumerate() {
            for (j, lower) in self.rows.iter().enumerate() {
                if (i >= from || j >= from) && upper.above.is_finite() && lower.below.is_finite() {
                    ways.push(Way {
                        own: Some(upper.c.max(lower.c)),
                        linear: 2.0 * self.lambda * upper.above.max(lower.below) + self.rest_linear,
                        accepted: 2.0 * self.lambda * upper.above_accepted.max(lower.below_accepted) + self.rest_linear,
                    });
                }
            }
        }
    }
}

/// A singular value of the null directions' normal rows at most this
/// fraction of the largest is left to `P̃` (bounded through `‖t‖`).
const PATTERN: f64 = 1e-8;

impl Pattern {
    fn new(columns: &DMatrix<f64>, rows: Vec<usize>) -> Option<Self> {
        if rows.is_empty() || columns.ncols() == 0 {
            return None;
        }
        let p = DMatrix::from_fn(rows.len(), columns.ncols(), |a, j| columns[(rows[a], j)]);
        let svd = p.clone().svd(true, true);
        let (u, v_t) = (svd.u.as_ref()?, svd.v_t.as_ref()?);
        let (top, largest) = svd
            .singular_values
            .iter()
            .enumerate()
            .fold((0, 0.0f64), |best, (k, &x)| if x > best.1 { (k, x) } else { best });
        if largest == 0.0 || svd.singular_values.iter().filter(|&&x| x > PATTERN * largest).count() != 1 {
            return None;
        }
        let rest_matrix = &p - u.column(top) * v_t.row(top) * largest;
        Some(Pattern {
            u: u.column(top).iter().copied().collect(),
            v: v_t.row(top).transpose() / largest,
            rest: rest_matrix.row_iter().map(|r| r.norm()).collect(),
            rows,
        })
    }
}

/// One valid way to count the null component in `Q ≤ c Q + linear √Q + …`:
/// with `c` its own where it has one (else the form's), and `linear`
/// (`accepted`: for every solution the search accepts) added to the
/// multiple of `√Q`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Way {
    pub own: Option<f64>,
    pub linear: f64,
    pub accepted: f64,
}

/// `√Q` is at most this: the least over `ways` of the root of
/// `Q ≤ c Q + (linear + way's) √Q + constant` (`c`: the form's, or the way's
/// own), where that `c` is below [`CONTRACTION`].
pub(crate) fn root(ways: &[Way], c: f64, linear: f64, constant: f64, accepted: bool) -> f64 {
    let bound = |way: &Way| {
        let c = way.own.unwrap_or(c).max(0.0);
        if way.own.is_some() && c >= CONTRACTION {
            return f64::INFINITY;
        }
        let gap = 1.0 - c;
        let linear = linear + if accepted { way.accepted } else { way.linear };
        (linear + (linear * linear + 4.0 * gap * constant).sqrt()) / (2.0 * gap)
    };
    ways.iter().map(bound).fold(f64::INFINITY, f64::min)
}

impl Bases {
    /// `normals`: `V`'s rows that are normal impulses.
    pub(crate) fn new(w_v: DMatrix<f64>, normals: Vec<usize>) -> Option<Self> {
        let k = w_v.nrows();
        let eigen = SymmetricEigen::try_new(w_v, 1e-15, 10_000)?;
        let largest = eigen.eigenvalues.iter().fold(0.0f64, |a, &x| a.max(x));
        let (range, null): (Vec<usize>, Vec<usize>) = (0..k).partition(|&j| eigen.eigenvalues[j] > NULL * largest);
        let scaled = DMatrix::from_fn(k, range.len(), |r, a| {
            eigen.eigenvectors[(r, range[a])] / eigen.eigenvalues[range[a]].sqrt()
        });
        let columns = DMatrix::from_fn(k, null.len(), |r, j| eigen.eigenvectors[(r, null[j])]);
        let pattern = Pattern::new(&columns, normals);
        Some(Bases { scaled, columns, pattern })
    }
}

impl LinearForm {
    /// What the part of `δ` in `W`'s null space on `V` (the columns of
    /// `columns`) adds to `δᵀS_τδ` (`form`): `δ = δ₁ + Σ_j t_j e_j`
    /// (`t_j = e_jᵀδ`), `Q ≥ Q₁ = δ₁ᵀWδ₁`, and
    /// `δᵀSδ ≤ c Q + 2 ‖L t‖ √Q + Σ_jl |t_j| |t_l| |e_jᵀ S e_l|` (column `j`
    /// of `L` is `e_jᵀS` on the range, in `W`'s norm). With `L = U Σ Vᵀ`,
    /// `‖L t‖² = Σ_k σ_k² (ẽ_kᵀδ)²`, `ẽ_k = Σ_j V_jk e_j`, and `|ẽᵀδ|` is at
    /// most its largest value over the contacts' admissible impulses
    /// ([`Self::extent`]): only the null directions that move a normal
    /// impulse couple to friction (a flat box's four corners: one).
    pub(crate) fn null_terms(
        &self,
        red: &Reduced,
        step: &StepFacts,
        form: &DMatrix<f64>,
        scaled: &DMatrix<f64>,
        columns: &DMatrix<f64>,
    ) -> NullTerms {
        let coupling = scaled.transpose() * form * columns;
        let svd = coupling.clone().svd(false, true);
        let v_t = svd.v_t.as_ref().expect("V asked for");
        let mut squared = 0.0;
        for (a, &sigma) in svd.singular_values.iter().enumerate() {
            if sigma > 0.0 {
                let direction = columns * v_t.row(a).transpose();
                squared += (sigma * self.extent(red, step, direction.as_slice())).powi(2);
            }
        }
        let cross = columns.transpose() * form * columns;
        let extents: Vec<f64> =
            (0..columns.ncols()).map(|j| self.extent(red, step, columns.column(j).as_slice())).collect();
        let mut constant = 0.0;
        for (j, tj) in extents.iter().enumerate() {
            for (l, tl) in extents.iter().enumerate() {
                constant += tj * tl * cross[(j, l)].abs();
            }
        }
        let norm = extents.iter().map(|x| x * x).sum::<f64>().sqrt();
        NullTerms { linear: 2.0 * squared.sqrt(), constant, norm, coupling }
    }

    /// Where the null directions move one pattern of normal impulses
    /// ([`Pattern`]), the null component's cross term is
    /// `2 aᵀL t = 2 φ ℓᵀa + 2 aᵀL(I − v₁v₁ᵀ)t` (`δ = scaled a + columns t`,
    /// `‖a‖ ≤ √Q`, `ℓ = L v₁ / s₁`, `L` = `null.coupling`), and `φ` is held by the normal impulses
    /// it moves together: row `k` of the pattern has
    /// `u_k φ = δλn_k − r_kᵀa − (P̃ t)_k` (`r_k`: the scaled range basis's
    /// row) with `δλn_k ∈ [−λn*_k, cap_k − λn*_k]`, so
    /// `−A⁻_k − h_kᵀa ≤ φ ≤ A⁺_k − h_kᵀa`, `h_k = r_k / u_k`. With an upper
    /// row `i` and a lower row `j`, whatever the sign of `ℓᵀa`,
    ///
    /// ```text
    /// 2 φ ℓᵀa ≤ 2 max(A⁺_i, A⁻_j) ‖ℓ‖ √Q + max_(k = i, j) aᵀ(−h_k ℓᵀ − ℓ h_kᵀ) a
    /// ```
    ///
    /// so the pair is a [`Way`] with its own `c = max_k λmax(S − h_kℓᵀ − ℓh_kᵀ)`
    /// (`S`: `on_range`). Where one contact of the pattern cannot push more
    /// and one cannot push less (at its cap, or at zero), `A = 0`: the
    /// pattern then only moves `c`.
    /// Not `exact`, each row's `c` is only bounded from above (by one of
    /// the form's levels, [`shifted_contraction`]). Returns the rows, for
    /// [`Self::combined_ways`].
    pub(crate) fn pattern_ways(
        &self,
        s: usize,
        step: &StepFacts,
        at: PatternAt,
        null: &NullTerms,
        exact: bool,
        ways: &mut Vec<Way>,
    ) -> PatternRows {
        let PatternAt { on_range, scaled, pattern, .. } = at;
        let (coupling, norm) = (&null.coupling, null.norm);
        let along = coupling * &pattern.v;
        let lambda = along.norm();
        // L (I − v₁v₁ᵀ) = L − s₁² ℓ vᵀ (`pattern.v` is v₁ / s₁).
        let others = (coupling - &along * pattern.v.transpose() / pattern.v.norm_squared()).norm();
        let rest_linear = 2.0 * others * norm;
        let impulse = step.caps.iter().fold(0.0f64, |a, c| a.max(c.abs()));
        let mut rows = Vec::with_capacity(pattern.rows.len() + 2);
        for (k, &r) in pattern.rows.iter().enumerate() {
            let u = pattern.u[k];
            if u.abs() <= PATTERN {
                continue;
            }
            let i = self.idx[r] / s;
            let (more, less) = (step.caps[i] - step.x[self.idx[r]], step.x[self.idx[r]]);
            let rest = pattern.rest[k] * norm;
            let room = |room: f64, widen: f64| ((room + rest + widen * impulse) / u.abs()).max(0.0);
            let (plus, minus) = if u > 0.0 { (more, less) } else { (less, more) };
            let h = scaled.row(r).transpose() / u;
            if let Some(c) = shifted_contraction(on_range, &h, &along, exact) {
                rows.push(PatternRow {
                    above: room(plus, ROUNDOFF),
                    below: room(minus, ROUNDOFF),
                    above_accepted: room(plus, 1e-6),
                    below_accepted: room(minus, 1e-6),
                    c,
                });
            }
        }
        let rows = PatternRows { rows, along, lambda, rest_linear, norm };
        rows.push_pairs(0, ways);
        rows
    }

    /// The largest `|aᵀδ|`, `δ = x − x*` on `V`'s coordinates (`a` over
    /// `self.idx`), over every `x` whose contacts' impulses are admissible:
    /// `λn_i ∈ [0, cap_i]`, `f_i ∈ (μ_i λn_i + g_i) 𝒫`. Per contact `aᵀx_i`
    /// is linear in `λn` once `f` takes the support of `a_f` on `𝒫`, so its
    /// extremes are at `λn ∈ {0, cap}` (a known impulse: its one value);
    /// widened by `10⁻⁶` of the step's impulse scale, far above the laws'
    /// slack in the solutions the search accepts (`10⁻⁹`).
    fn extent(&self, red: &Reduced, step: &StepFacts, a: &[f64]) -> f64 {
        let (s, t) = (red.s, red.t);
        let impulse = (0..red.m)
            .map(|i| step.caps[i].max(0.0) * (1.0 + red.friction[i]) + step.g[i].abs())
            .fold(0.0f64, f64::max);
        let (mut high, mut low) = (0.0, 0.0);
        let mut r = 0;
        for i in 0..red.m {
            let (mut a_n, mut a_f) = (0.0, [0.0; 2]);
            while r < self.idx.len() && self.idx[r] / s == i {
                match self.idx[r] % s {
                    0 => a_n = a[r],
                    c => a_f[c - 1] = a[r],
                }
                r += 1;
            }
            if a_n == 0.0 && a_f == [0.0; 2] {
                continue;
            }
            let (mu, g) = (red.friction[i], step.g[i].max(0.0));
            // A known normal impulse is 0 or the cap in every solution.
            let (bottom, cap) = match step.known[i] {
                true => (step.fixed_impulse(i, s), step.fixed_impulse(i, s)),
                false => (0.0, step.caps[i].max(0.0)),
            };
            let dot = |p: &[f64; 2]| (0..t).map(|c| a_f[c] * p[c]).sum::<f64>();
            let most = red.directions.iter().map(dot).fold(0.0f64, f64::max);
            let least = red.directions.iter().map(dot).fold(0.0f64, f64::min);
            let at_x = a_n * step.x[i * s] + (0..t).map(|c| a_f[c] * step.x[i * s + 1 + c]).sum::<f64>();
            let (empty, full) = (mu * bottom + g, mu * cap + g);
            let widen = 1e-6 * impulse * (a_n.abs() + a_f.iter().map(|x| x.abs()).sum::<f64>());
            high += (a_n * bottom + empty * most).max(a_n * cap + full * most) - at_x + widen;
            low += (a_n * bottom + empty * least).min(a_n * cap + full * least) - at_x - widen;
        }
        high.max(-low)
    }
}

/// `λmax(S − hℓᵀ − ℓhᵀ)` (`S`: `on_range`), where it is below
/// [`CONTRACTION`]; not `exact`, the least of [`LEVELS`] above it instead,
/// by a Cholesky factorization of `level · I − (S − hℓᵀ − ℓhᵀ)` each (an
/// upper bound: a step the rows settle with it settles with `λmax` too).
pub(crate) fn shifted_contraction(
    on_range: &DMatrix<f64>,
    h: &DVector<f64>,
    along: &DVector<f64>,
    exact: bool,
) -> Option<f64> {
    let shifted = on_range - h * along.transpose() - along * h.transpose();
    if !exact {
        return LEVELS.into_iter().find(|&level| {
            let mut gap = -&shifted;
            (0..gap.nrows()).for_each(|r| gap[(r, r)] += level);
            gap.cholesky().is_some()
        });
    }
    let eigen = SymmetricEigen::try_new(shifted, 1e-15, 10_000)?;
    let c = eigen.eigenvalues.iter().fold(0.0f64, |a, &x| a.max(x));
    (c < CONTRACTION).then_some(c)
}
