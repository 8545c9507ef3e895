//! Another representative of a step's solution, for friction's linear form
//! (docs/model.md#5b9-another-representative-of-the-solutions-face).
//!
//! Every admissible impulse `x̂` with `W x̂ = W x*` that keeps `x*`'s normal
//! impulses and puts each contact's friction share `p̂_i` where `x*`'s
//! velocities allow it solves the step with the same `Δv`: `u⁺` is the
//! same, so each normal law holds as at `x*`, and `f̂_i = μ_i λn_i p̂_i`
//! minimizes `u*_tᵀf` over `μ_i λn_i 𝒫` wherever `p̂_i` lies in the face of
//! `𝒫` that maximizes `(−u*_t)ᵀp` (all of `𝒫` where the contact sticks, an
//! edge or a vertex where it slides). The form's bound holds from any
//! solution with its own defects, so it may start from any of them.
//! Lemke's is a vertex of that face, where the form's coupling to a null
//! direction with normal pattern `ν`, `½ gᵀWδ` with `g_i = ν_i μ_i p̃_i`, is
//! large (a statically indeterminate box on four corners: corners at the
//! edge of their cone or with no friction, their directions far apart;
//! sliding, its corners at different points of the edge of 𝒫 they slide
//! against). It vanishes where `W g = 0`: one common share on a box coming
//! to rest or sliding without spin, shares turning about it where it
//! spins. So `x̂` moves the shares along the null directions that keep
//! `W x̂ = W x*`, within their faces, making `Σ |W g|` least by an LP.

use nalgebra::{DMatrix, SymmetricEigen};

use super::{Kept, StepFacts};
use crate::impact::enumerate::simplex;
use crate::impact::enumerate::tableaux::reduced::Reduced;

/// Eigenvalues of `W` on the moving coordinates at most this fraction of
/// the largest span its null directions (the defects their round-off leaves
/// in `u⁺` are the form's to count).
const NULL: f64 = 1e-12;

/// A normal impulse at most this fraction of its cap is the LP's round-off
/// of 0.
const TINY: f64 = 1e-12;

/// Singular values of the null directions' normal rows above this fraction
/// of the largest are patterns of normal impulses.
const PATTERN: f64 = 1e-8;

/// A contact's slip at most this fraction of `max |u|` is at rest.
const REST: f64 = 1e-9;

/// The representative `x̂`, its `u⁺`, a decomposition `λD̂` of its friction
/// and each contact's share `p̂_i` of its cone (a shut cone's included);
/// `sliding`: some contact slides at `x*`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Recentred {
    pub x: Vec<f64>,
    pub up: Vec<f64>,
    pub lambda_d: Vec<f64>,
    pub shares: Vec<[f64; 2]>,
    pub sliding: bool,
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

/// The patterns of normal impulses (columns, one entry per contact) that
/// the null directions of `w` (`W` on the pushing contacts' coordinates,
/// `s` per contact, `contacts` of them) move, or `None` where they move
/// none.
fn patterns(w: &DMatrix<f64>, contacts: usize, s: usize) -> Option<DMatrix<f64>> {
    let k = w.nrows();
    let eigen = SymmetricEigen::try_new(w.clone(), 1e-15, 10_000)?;
    let largest = eigen.eigenvalues.iter().fold(0.0f64, |a, &x| a.max(x));
    let null: Vec<usize> = (0..k).filter(|&j| eigen.eigenvalues[j] <= NULL * largest).collect();
    if null.is_empty() {
        return None;
    }
    let normals = DMatrix::from_fn(contacts, null.len(), |j, col| eigen.eigenvectors[(j * s, null[col])]);
    let svd = normals.svd(true, false);
    let u = svd.u.as_ref()?;
    let top = svd.singular_values.iter().fold(0.0f64, |a, &x| a.max(x));
    let kept: Vec<usize> = (0..svd.singular_values.len()).filter(|&a| svd.singular_values[a] > PATTERN * top).collect();
    (!kept.is_empty()).then(|| DMatrix::from_fn(contacts, kept.len(), |j, col| u[(j, kept[col])]))
}

/// Whether a slip along `−a` (`a` a unit vector) meets an edge of `𝒫`
/// (space: two directions maximize `aᵀd_k` to `10⁻⁹`) rather than a vertex.
fn against_edge(red: &Reduced, a: &[f64; 2]) -> bool {
    if red.t == 1 {
        return false;
    }
    let (mut first, mut second) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    for d in &red.directions {
        let v = a[0] * d[0] + a[1] * d[1];
        if v > first {
            (first, second) = (v, first);
        } else if v > second {
            second = v;
        }
    }
    first - second <= 1e-9
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

/// `x̂`, or `None`: a widened cone (`b_γ ≠ 0`), a planar step not at full
/// rest, every frictional contact sliding against a vertex of `𝒫`, no null
/// direction of `W` that moves normal impulses, or no LP solution.
///
/// `x̂` keeps `x*`'s normal impulses (`λn̂ = 0` where `λn*` is at the
/// round-off of 0) and moves the friction shares `p̂_i` (`f̂_i = μ_i λn̂_i
/// p̂_i`; a shut cone's share is free) along the null directions of
/// `W_T D` (`D = diag(μ_i λn̂_i)` on the tangents), so `W x̂ = W x*`. A
/// small LP (`simplex.rs`) keeps every share in `𝒫` (as far as `x*`'s own
/// is), the share of a contact that slides at `x*` in the face of `𝒫` its
/// slip `−u*_t` selects (`âᵀp̂ = h(â)`, `â` the slip's direction), and
/// makes the coupling least: for each pattern `ν` of normal impulses that
/// `W`'s null directions move, the tangential impulse `g_i = ν_i μ_i p̂_i`
/// should itself move nothing, `Σ_r |(W g)_r|` least (the form's coupling
/// to `ν` is `½ gᵀ W δ`). On a box brought to rest, or sliding, without
/// spin one common share does it where the faces allow one; stopping a
/// spin takes shares that turn about the box, which the LP finds as well.
pub(crate) fn recentre(red: &Reduced, step: &StepFacts, kept: &mut Kept<Option<DMatrix<f64>>>) -> Option<Recentred> {
    let (m, s, t, dim) = (red.m, red.s, red.t, red.dim);
    let velocity = step.u.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    // In the plane a sliding contact's face is an end of 𝒫 (a segment), so
    // its share is held: there x̂ is looked for at full rest only (tried on
    // every searched step, it certified none of the disk stack's and cost
    // its `all` 15 %).
    let planar_motion = t == 1 && step.up.iter().any(|x| x.abs() > REST * velocity);
    if planar_motion || step.g.iter().any(|&g| g != 0.0) {
        return None;
    }
    let facets = facets(red)?;
    // The contacts that may push, and the patterns of normal impulses that
    // W's null directions on their coordinates move.
    let pushing: Vec<usize> = (0..m).filter(|&i| step.caps[i] > 0.0).collect();
    let frictional: Vec<usize> = (0..pushing.len()).filter(|&j| red.friction[pushing[j]] > 0.0).collect();
    if frictional.is_empty() {
        return None;
    }
    // Each frictional contact's slip direction â = −u*_t / ‖u*_t‖ where it
    // slides. Where every one slides against a vertex of 𝒫 no share may
    // move within its face: x̂ would be x*.
    let slips: Vec<Option<[f64; 2]>> = frictional
        .iter()
        .map(|&j| {
            let ut = &step.up[pushing[j] * s + 1..(pushing[j] + 1) * s];
            let norm = ut.iter().map(|x| x * x).sum::<f64>().sqrt();
            (norm > REST * velocity).then(|| {
                let mut a = [0.0; 2];
                (0..t).for_each(|c| a[c] = -ut[c] / norm);
                a
            })
        })
        .collect();
    if slips.iter().all(|slip| slip.is_some_and(|a| !against_edge(red, &a))) {
        return None;
    }
    let moving: Vec<usize> = pushing.iter().flat_map(|&i| i * s..(i + 1) * s).collect();
    let k = moving.len();
    let w = |r: usize, c: usize| red.w[moving[r] * dim + moving[c]];
    let slot = kept.slot(&pushing, || patterns(&DMatrix::from_fn(k, k, w), pushing.len(), s));
    let patterns = kept.at(slot).as_ref()?;
    // The frictional contacts' shares, from x*: λn̂ and p*.
    let lam: Vec<f64> = pushing
        .iter()
        .map(|&i| {
            let lam = step.x[i * s];
            if lam <= TINY * step.caps[i] { 0.0 } else { lam.min(step.caps[i]) }
        })
        .collect();
    let nt = frictional.len() * t;
    let share_star: Vec<f64> = (0..nt)
        .map(|c| {
            let j = frictional[c / t];
            let rho = red.friction[pushing[j]] * lam[j];
            if rho > 0.0 { step.x[pushing[j] * s + 1 + c % t] / rho } else { 0.0 }
        })
        .collect();
    // Column c of W's tangential columns times μ λn̂: the shares' null
    // directions keep W x̂ = W x*.
    let tangent = |c: usize| {
        let j = frictional[c / t];
        j * s + 1 + c % t
    };
    let scaled = DMatrix::from_fn(k, nt, |r, c| {
        let j = frictional[c / t];
        w(r, tangent(c)) * red.friction[pushing[j]] * lam[j]
    });
    let svd = scaled.svd(false, true);
    let v_t = svd.v_t?;
    let top = svd.singular_values.iter().fold(0.0f64, |a, &x| a.max(x));
    let free: Vec<usize> = (0..nt).filter(|&a| svd.singular_values[a] <= NULL * top).collect();
    let space = ShareSpace { red, pushing, frictional, lam, share_star, moving, v_t, free };
    if space.free.is_empty() {
        return None;
    }
    // A contact that slides at x* (its cone shut or not) keeps its share in
    // the face of 𝒫 that maximizes (−u*_t)ᵀp (an edge or a vertex): the
    // share's component along the slip's direction â is h(â).
    let sliding: Vec<(usize, [f64; 2])> = slips.iter().enumerate().filter_map(|(f, a)| a.map(|a| (f, a))).collect();
    let program = space.program(&facets, &sliding, patterns);
    let y = simplex::minimize(&program.a, program.rows, program.cols, &program.b, &program.cost)?;
    Some(space.representative(step, &y, !sliding.is_empty()))
}

/// The frictional shares of the pushing contacts and the directions in
/// which they may move keeping `W x̂ = W x*`.
struct ShareSpace<'a> {
    red: &'a Reduced,
    /// The contacts that may push; the indices (in `pushing`) of those with
    /// friction.
    pushing: Vec<usize>,
    frictional: Vec<usize>,
    /// `λn̂` per pushing contact, and `p*` (`t` per frictional contact).
    lam: Vec<f64>,
    share_star: Vec<f64>,
    /// The pushing contacts' reduced coordinates.
    moving: Vec<usize>,
    /// `Vᵀ` of the shares' columns of `W` and the rows of it that span their
    /// null directions.
    v_t: DMatrix<f64>,
    free: Vec<usize>,
}

/// The linear program of the shares' move: `y ≥ 0`, `A y = b`, least
/// `costᵀy` (`A` row-major, `rows × cols`).
struct Program {
    a: Vec<f64>,
    b: Vec<f64>,
    cost: Vec<f64>,
    rows: usize,
    cols: usize,
}

impl ShareSpace<'_> {
    /// `W` on the moving coordinates.
    fn w(&self, r: usize, c: usize) -> f64 {
        self.red.w[self.moving[r] * self.red.dim + self.moving[c]]
    }

    /// The moving coordinate of the share's entry `c`.
    fn tangent(&self, c: usize) -> usize {
        let t = self.red.t;
        let j = self.frictional[c / t];
        j * self.red.s + 1 + c % t
    }

    /// Null direction `col`'s entry `c`.
    fn basis(&self, c: usize, col: usize) -> f64 {
        self.v_t[(self.free[col], c)]
    }

    /// Unknowns y ≥ 0: γ⁺ (q), γ⁻ (q), a slack per facet row, e⁺ and e⁻ per
    /// coupling row. Rows: every frictional contact's facets, each sliding
    /// contact's face, then (W g)_r for each pattern and row r.
    fn program(&self, facets: &[([f64; 2], f64)], sliding: &[(usize, [f64; 2])], patterns: &DMatrix<f64>) -> Program {
        let (red, t, q, k) = (self.red, self.red.t, self.free.len(), self.moving.len());
        let (frictional, share_star) = (&self.frictional, &self.share_star);
        let nt = frictional.len() * t;
        let facet_rows = frictional.len() * facets.len();
        let coupling_rows = patterns.ncols() * k;
        let cols = 2 * q + facet_rows + 2 * coupling_rows;
        let rows = facet_rows + sliding.len() + coupling_rows;
        let (mut a, mut b) = (vec![0.0; rows * cols], vec![0.0; rows]);
        let mut row = 0;
        for f in 0..frictional.len() {
            for (normal, offset) in facets {
                // o − nᵀp ≥ min(its value at p*, 0): −nᵀN γ − slack = floor − value.
                let value = offset - (0..t).map(|a| normal[a] * share_star[f * t + a]).sum::<f64>();
                for col in 0..q {
                    let v = -(0..t).map(|a| normal[a] * self.basis(f * t + a, col)).sum::<f64>();
                    a[row * cols + col] = v;
                    a[row * cols + q + col] = -v;
                }
                a[row * cols + 2 * q + row] = -1.0;
                b[row] = value.min(0.0) - value;
                row += 1;
            }
        }
        for &(f, along) in sliding {
            // âᵀ(p* + Nγ) = h(â) = max_k âᵀd_k.
            let support =
                red.directions.iter().map(|d| (0..t).map(|a| along[a] * d[a]).sum::<f64>()).fold(f64::MIN, f64::max);
            for col in 0..q {
                let v: f64 = (0..t).map(|a| along[a] * self.basis(f * t + a, col)).sum();
                a[row * cols + col] = v;
                a[row * cols + q + col] = -v;
            }
            b[row] = support - (0..t).map(|a| along[a] * share_star[f * t + a]).sum::<f64>();
            row += 1;
        }
        let first_coupling = row;
        for pattern in patterns.column_iter() {
            let nu = |j: usize| pattern[j];
            for r in 0..k {
                // (W g)_r = Σ_c W_r,tangent(c) ν_j μ_j p_c: its value at p* and
                // its coefficients on γ.
                let weight = |c: usize| {
                    let j = frictional[c / t];
                    self.w(r, self.tangent(c)) * nu(j) * red.friction[self.pushing[j]]
                };
                let at_star: f64 = (0..nt).map(|c| weight(c) * share_star[c]).sum();
                for col in 0..q {
                    let v: f64 = (0..nt).map(|c| weight(c) * self.basis(c, col)).sum();
                    a[row * cols + col] = v;
                    a[row * cols + q + col] = -v;
                }
                let e = 2 * q + facet_rows + 2 * (row - first_coupling);
                a[row * cols + e] = -1.0;
                a[row * cols + e + 1] = 1.0;
                b[row] = -at_star;
                row += 1;
            }
        }
        let mut cost = vec![0.0; cols];
        cost[2 * q + facet_rows..].iter_mut().for_each(|x| *x = 1.0);
        Program { a, b, cost, rows, cols }
    }

    /// x̂ from the program's solution `y`: the normal impulses λn̂, each
    /// share moved and kept in 𝒫 against the LP's round-off (what that
    /// moves shows in x̂'s own u⁺, which the form counts), its friction
    /// μ λn̂ p̂.
    fn representative(&self, step: &StepFacts, y: &[f64], sliding: bool) -> Recentred {
        let red = self.red;
        let (m, s, t, d, q) = (red.m, red.s, red.t, red.directions.len(), self.free.len());
        let mut x = step.x.to_vec();
        let mut lambda_d = vec![0.0; m * d];
        let mut shares = vec![[0.0; 2]; m];
        for (j, &i) in self.pushing.iter().enumerate() {
            x[i * s] = self.lam[j];
            if red.friction[i] == 0.0 {
                continue;
            }
            let f = self.frictional.iter().position(|&g| g == j).expect("a frictional contact");
            let mut share = [0.0; 2];
            for (a, value) in share.iter_mut().enumerate().take(t) {
                *value = self.share_star[f * t + a]
                    + (0..q).map(|col| self.basis(f * t + a, col) * (y[col] - y[q + col])).sum::<f64>();
            }
            // The share's weights on the directions, put back in 𝒫 (gauge ≤ 1),
            // are the friction's over ρ.
            let weights = &mut lambda_d[i * d..(i + 1) * d];
            decompose(red, &share[..t], weights);
            let gauge = weights.iter().sum::<f64>().max(1.0);
            share.iter_mut().for_each(|p| *p /= gauge);
            shares[i] = share;
            let rho = red.friction[i] * self.lam[j];
            weights.iter_mut().for_each(|w| *w *= rho / gauge);
            for a in 0..t {
                x[i * s + 1 + a] = rho * share[a];
            }
        }
        for i in (0..m).filter(|&i| step.caps[i] <= 0.0) {
            decompose(red, &x[i * s + 1..(i + 1) * s], &mut lambda_d[i * d..(i + 1) * d]);
        }
        let mut up = vec![0.0; red.dim];
        red.post_velocity(step.u, &x, &mut up);
        Recentred { x, up, lambda_d, shares, sliding }
    }
}
