//! Another representative of a step's solution at full rest, for friction's
//! linear form (docs/model.md §5b, "Full rest: another representative").
//!
//! Where Lemke's `x*` brings every contact to rest (`u*⁺ = 0`, normal and
//! tangential), every admissible impulse `x̂` with `W x̂ = W x*` (each
//! `λn̂_i ∈ [0, cap_i]`, each `f̂_i ∈ μ_i λn̂_i 𝒫`) solves the step with the
//! same `Δv`: the laws hold at `u⁺ = 0` whatever the impulses. The form's
//! bound holds from any solution with its own defects, so it may start from
//! any of them. Lemke's is a vertex of that face (a statically
//! indeterminate box on four corners: corners at the edge of their cone or
//! with no friction, their directions far apart), where the form's coupling
//! to the null directions, `Σ_i μ_i δλn_i p̃_iᵀ(Wδ)_t,i` along the corners'
//! alternating pattern, is large; it vanishes where every `p̃_i` is the same
//! (the alternating sum of a rigid motion's tangential velocities at a
//! rectangle's corners is zero). So `x̂` moves `x*` towards the impulses
//! whose friction is `μ_i λn_i c` for one `c` (the weighted mean of the
//! `p̃_i`, in `𝒫`), along the null directions of `W` only, as far as the
//! caps and cones allow.

use nalgebra::{DMatrix, SymmetricEigen};

use super::super::tableau::Reduced;
use super::{StepFacts, simplex};

/// Eigenvalues of `W` on the moving coordinates at most this fraction of
/// the largest span its null directions (the defects their round-off leaves
/// in `u⁺` are the form's to count).
const NULL: f64 = 1e-12;

/// A normal impulse at most this fraction of its cap is the LP's round-off
/// of 0.
const TINY: f64 = 1e-12;

/// A step's velocities at most this fraction of `max |u|` are at rest.
const REST: f64 = 1e-9;

/// The representative `x̂`, its `u⁺`, a decomposition `λD̂` of its friction
/// and the common share `c` it was moved towards.
#[derive(Clone, Debug, Default)]
pub(super) struct Recentred {
    pub x: Vec<f64>,
    pub up: Vec<f64>,
    pub lambda_d: Vec<f64>,
    pub share: [f64; 2],
}

/// The facets of the friction polygon `𝒫 = conv{d_k}` as `(n_k, o_k)`,
/// `n_kᵀp ≤ o_k` on `𝒫`; `None` where the directions are not a convex
/// polygon in order (or a segment, planar).
fn facets(red: &Reduced) -> Option<Vec<([f64; 2], f64)>> {
    let d = &red.directions;
    if red.t == 1 {
        return Some(vec![([1.0, 0.0], 1.0), ([-1.0, 0.0], 1.0)]);
    }
    if d.len() < 3 {
        return None;
    }
    let out: Vec<([f64; 2], f64)> = (0..d.len())
        .map(|k| {
            let (a, b) = (d[k], d[(k + 1) % d.len()]);
            let n = [b[1] - a[1], a[0] - b[0]];
            (n, n[0] * a[0] + n[1] * a[1])
        })
        .collect();
    let convex = out.iter().all(|(n, o)| *o > 0.0 && d.iter().all(|p| n[0] * p[0] + n[1] * p[1] <= o * (1.0 + 1e-12)));
    convex.then_some(out)
}

/// `f` as non-negative weights of the directions (two neighbours in
/// space, one of the two in the plane), summing to `f`'s gauge.
fn decompose(red: &Reduced, f: &[f64], out: &mut [f64]) {
    out.iter_mut().for_each(|w| *w = 0.0);
    let d = &red.directions;
    if red.t == 1 {
        let k = usize::from(f[0] < 0.0);
        out[k] = f[0].abs();
        return;
    }
    for k in 0..d.len() {
        let (a, b) = (d[k], d[(k + 1) % d.len()]);
        let det = a[0] * b[1] - a[1] * b[0];
        let wa = (f[0] * b[1] - f[1] * b[0]) / det;
        let wb = (a[0] * f[1] - a[1] * f[0]) / det;
        if wa >= 0.0 && wb >= 0.0 {
            out[k] = wa;
            out[(k + 1) % d.len()] = wb;
            return;
        }
    }
}

/// `x̂` for a step at full rest, or `None`: the step not at rest, a widened
/// cone (`b_γ ≠ 0`), no friction in use, `W` regular on the contacts that
/// push, or no LP solution.
///
/// `x̂ = x* + N α` with `N` a basis of `W`'s null space on the coordinates
/// of the contacts with a cap, `α` from a small LP (`simplex.rs`): every
/// law of every such contact holds at `x̂` at least as well as at `x*`
/// (`λn ≥ 0`, `λn ≤ cap`, each facet `n_kᵀf ≤ o_k μ λn` of the cone), and
/// `Σ_i ‖f̂_i − μ_i λn̂_i c‖₁` is least, `c = Σ_i f*_i / Σ_i μ_i λn*_i` (a
/// mean of the `p̃_i`, in `𝒫`; the contacts' tangent frames are the same
/// on a floor).
pub(super) fn recentre(red: &Reduced, step: &StepFacts) -> Option<Recentred> {
    let (m, s, t, dim) = (red.m, red.s, red.t, red.dim);
    let velocity = step.u.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    if step.up.iter().any(|x| x.abs() > REST * velocity) || step.g.iter().any(|&g| g != 0.0) {
        return None;
    }
    let facets = facets(red)?;
    // The coordinates that may move: those of contacts with a cap.
    let pushing: Vec<usize> = (0..m).filter(|&i| step.caps[i] > 0.0).collect();
    let moving: Vec<usize> = pushing.iter().flat_map(|&i| i * s..(i + 1) * s).collect();
    let k = moving.len();
    let w = DMatrix::from_fn(k, k, |a, b| red.w[moving[a] * dim + moving[b]]);
    let eigen = SymmetricEigen::try_new(w, 1e-15, 10_000)?;
    let largest = eigen.eigenvalues.iter().fold(0.0f64, |a, &x| a.max(x));
    let null: Vec<usize> = (0..k).filter(|&j| eigen.eigenvalues[j] <= NULL * largest).collect();
    let q = null.len();
    let (mut c, mut weight) = ([0.0; 2], 0.0);
    for &i in &pushing {
        (0..t).for_each(|a| c[a] += step.x[i * s + 1 + a]);
        weight += red.friction[i] * step.x[i * s];
    }
    if q == 0 || weight <= 0.0 {
        return None;
    }
    c.iter_mut().for_each(|x| *x /= weight);
    // Contact j's block of N: rows j·s .. (j+1)·s of the moving coordinates.
    let n = |row: usize, col: usize| eigen.eigenvectors[(row, null[col])];
    // Unknowns y ≥ 0: α⁺ (q), α⁻ (q), a slack per law, e⁺ and e⁻ per
    // tangent coordinate. Rows: the laws, then the friction deviations.
    let per_contact = 2 + if red.friction.iter().any(|&mu| mu > 0.0) { facets.len() } else { 0 };
    let laws = pushing.len() * per_contact;
    let deviations = pushing.len() * t;
    let cols = 2 * q + laws + 2 * deviations;
    let rows = laws + deviations;
    let mut a = vec![0.0; rows * cols];
    let mut b = vec![0.0; rows];
    let mut row = 0;
    // A law a₀ + aᵀδx ≥ floor, with a₀ its value at x* and floor = min(a₀, 0):
    // aᵀN(α⁺ − α⁻) − slack = floor − a₀.
    let mut law = |coefficients: &dyn Fn(usize) -> f64, value: f64, a: &mut Vec<f64>, b: &mut Vec<f64>| {
        for col in 0..q {
            let v: f64 = (0..k).map(|r| coefficients(r) * n(r, col)).sum();
            a[row * cols + col] = v;
            a[row * cols + q + col] = -v;
        }
        a[row * cols + 2 * q + row] = -1.0;
        b[row] = value.min(0.0) - value;
        row += 1;
    };
    for (j, &i) in pushing.iter().enumerate() {
        let (mu, cap, lam) = (red.friction[i], step.caps[i], step.x[i * s]);
        law(&|r| if r == j * s { 1.0 } else { 0.0 }, lam, &mut a, &mut b);
        law(&|r| if r == j * s { -1.0 } else { 0.0 }, cap - lam, &mut a, &mut b);
        if per_contact > 2 {
            for (normal, offset) in &facets {
                let f = &step.x[i * s + 1..(i + 1) * s];
                let value = offset * mu * lam - (0..t).map(|a| normal[a] * f[a]).sum::<f64>();
                let coefficient = |r: usize| {
                    if r / s != j {
                        0.0
                    } else if r % s == 0 {
                        offset * mu
                    } else {
                        -normal[r % s - 1]
                    }
                };
                law(&coefficient, value, &mut a, &mut b);
            }
        }
    }
    // f_a − μ c_a λn = e⁺ − e⁻ at x̂.
    for (j, &i) in pushing.iter().enumerate() {
        let mu = red.friction[i];
        for (ta, &ca) in c.iter().enumerate().take(t) {
            let r = row;
            for col in 0..q {
                let v = n(j * s + 1 + ta, col) - mu * ca * n(j * s, col);
                a[r * cols + col] = v;
                a[r * cols + q + col] = -v;
            }
            let e = 2 * q + laws + 2 * (r - laws);
            a[r * cols + e] = -1.0;
            a[r * cols + e + 1] = 1.0;
            b[r] = -(step.x[i * s + 1 + ta] - mu * ca * step.x[i * s]);
            row += 1;
        }
    }
    let mut cost = vec![0.0; cols];
    cost[2 * q + laws..].iter_mut().for_each(|x| *x = 1.0);
    let y = simplex::minimize(&a, rows, cols, &b, &cost)?;
    let mut x = step.x.to_vec();
    for (r, &coordinate) in moving.iter().enumerate() {
        x[coordinate] += (0..q).map(|col| n(r, col) * (y[col] - y[q + col])).sum::<f64>();
    }
    // The laws kept exactly against the LP's round-off (what that moves
    // shows in x̂'s own u⁺, which the form counts): each normal impulse in
    // its box, each friction in its cone; a normal impulse at the LP's
    // round-off of 0 carries the common share (its friction is as small),
    // so its cone reads as `c`, not as the direction of its round-off.
    let d = red.directions.len();
    let mut lambda_d = vec![0.0; m * d];
    for &i in &pushing {
        let lam = x[i * s].clamp(0.0, step.caps[i]);
        x[i * s] = lam;
        let rho = red.friction[i] * lam;
        let f = &mut x[i * s + 1..(i + 1) * s];
        if lam <= TINY * step.caps[i] {
            f.iter_mut().zip(c).for_each(|(f, c)| *f = rho * c);
        }
        let weights = &mut lambda_d[i * d..(i + 1) * d];
        decompose(red, f, weights);
        let gauge: f64 = weights.iter().sum();
        if gauge > rho {
            let shrink = if gauge > 0.0 { rho / gauge } else { 0.0 };
            f.iter_mut().for_each(|f| *f *= shrink);
            weights.iter_mut().for_each(|w| *w *= shrink);
        }
    }
    for i in (0..m).filter(|&i| step.caps[i] <= 0.0) {
        decompose(red, &x[i * s + 1..(i + 1) * s], &mut lambda_d[i * d..(i + 1) * d]);
    }
    let mut up = vec![0.0; dim];
    red.post_velocity(step.u, &x, &mut up);
    Some(Recentred { x, up, lambda_d, share: c })
}
