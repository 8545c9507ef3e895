//! The step in reduced coordinates (docs/model.md#5b1-the-contact-mode-search): `Δv` depends on `λ` only through the reduced impulses
//! `x_i = (λn_i, f_i)`, and the step is `u⁺ = u + W x`,
//! `W = [Jn; Jt] M⁻¹ [Jn; Jt]ᵀ`. Built once per problem.

use super::modes::ModeTable;
use super::tableaux::reduced::Reduced;
use crate::problem::ContactOperators;

/// Singular values of `W` at most this fraction of the largest count as zero
/// in its rank.
const RANK_TOLERANCE: f64 = 1e-12;

/// Iterations of the SVD that gives `rank W` before it gives up (the same
/// tolerance as nalgebra's `svd`, which would iterate without end on a
/// matrix holding `inf`; `W` is finite, model.md §1, but a cap keeps any
/// input from looping); without convergence the rank is taken as full, which
/// only disables the rank cut.
const SVD_SWEEPS: usize = 10_000;

/// The step LCP's sizes and the maps between it and reduced coordinates.
#[derive(Clone, Debug)]
pub(super) struct FullStep {
    /// `M⁻¹ [Jn; Jt]ᵀ`, row-major `n × D`: `Δv = B x`.
    pub dv_map: Vec<f64>,
    /// `max |B|`.
    pub dv_map_max: f64,
    /// LCP size `N`.
    pub size: usize,
    /// Generalized velocities `n`.
    pub n: usize,
    /// Friction directions per contact.
    pub d: usize,
    /// `u_t = Σ_k r_k (JD v)_k`: the least-squares recovery of `Jt v`.
    pub tangent_recovery: Vec<[f64; 2]>,
}

/// The reduced step of `ops` (the contacts `i` where `prescribed[i]` having
/// only capped modes, `search/widened.rs`) and the maps back to the full
/// step; `rank W` only where the mode search runs (`searchable`).
pub(super) fn reduce(ops: &ContactOperators, prescribed: &[bool], searchable: bool) -> (Reduced, FullStep) {
    let (m, d, n) = (ops.m, ops.d, ops.n);
    let t = ops.dimension.tangents();
    let s = 1 + t;
    let dim = m * s;
    // Reduced rows [Jn; Jt] grouped by contact.
    let jr = nalgebra::DMatrix::from_fn(dim, n, |r, c| {
        let (i, a) = (r / s, r % s);
        if a == 0 { ops.jn[(i, c)] } else { ops.jt[(i * t + a - 1, c)] }
    });
    let b = &ops.mass_inv * jr.transpose();
    let mut w = &jr * &b;
    w = (&w + w.transpose()) * 0.5;
    let w_rows: Vec<f64> = (0..dim * dim).map(|k| w[(k / dim, k % dim)]).collect();
    let dv_map: Vec<f64> = (0..n * dim).map(|k| b[(k / dim, k % dim)]).collect();
    let w_max = w_rows.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    let rank = if searchable {
        match nalgebra::SVD::try_new_unordered(w.clone(), false, false, 5.0 * f64::EPSILON, SVD_SWEEPS) {
            Some(svd) => {
                let sigma = svd.singular_values;
                let sigma_max = sigma.iter().fold(0.0f64, |a, &x| a.max(x));
                sigma.iter().filter(|&&x| x > RANK_TOLERANCE * sigma_max).count()
            }
            None => dim,
        }
    } else {
        dim
    };
    let reduced = Reduced {
        m,
        t,
        s,
        dim,
        w: w_rows,
        table: ModeTable::with_prescribed(t, &ops.directions, &ops.friction, prescribed),
        directions: ops.directions.clone(),
        friction: ops.friction.clone(),
        w_max,
        rank,
        singular: 1e-11 * w_max.max(f64::MIN_POSITIVE),
    };
    let full = FullStep {
        size: ops.layout().size(),
        n,
        d,
        dv_map_max: dv_map.iter().fold(0.0f64, |a, x| a.max(x.abs())),
        dv_map,
        tangent_recovery: tangent_recovery(ops, t),
    };
    (reduced, full)
}

/// `r_k` per direction with `u_t = Σ_k r_k (JD v)_k`: `(Σ_k d_k d_kᵀ)⁻¹`
/// (`t × t`) applied to each `d_k`.
fn tangent_recovery(ops: &ContactOperators, t: usize) -> Vec<[f64; 2]> {
    let mut g = [[0.0; 2]; 2];
    for dk in &ops.directions {
        for a in 0..t {
            for c in 0..t {
                g[a][c] += dk[a] * dk[c];
            }
        }
    }
    ops.directions
        .iter()
        .map(|dk| {
            if t == 1 {
                [dk[0] / g[0][0], 0.0]
            } else {
                let det = g[0][0] * g[1][1] - g[0][1] * g[1][0];
                [(g[1][1] * dk[0] - g[0][1] * dk[1]) / det, (g[0][0] * dk[1] - g[1][0] * dk[0]) / det]
            }
        })
        .collect()
}
