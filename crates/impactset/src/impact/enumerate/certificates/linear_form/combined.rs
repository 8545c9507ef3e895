//! The pattern's combined rows (docs/model.md#5b8-combined-rows): the
//! coefficient `φ` of the one pattern of normal impulses the null
//! directions move, held by every contact's admissible impulses at once,
//! friction cones included, through a small LP (`simplex.rs`).

use nalgebra::DVector;

use super::null_space::{PatternAt, PatternRow, PatternRows, Way, shifted_contraction};
use super::{LinearForm, ROUNDOFF, StepFacts};
use crate::impact::enumerate::simplex;
use crate::impact::enumerate::tableaux::reduced::Reduced;

/// A law of one contact's admissible impulses as a row `gᵀδ ≤ room` on
/// `V` (`entries`: `g`'s nonzero entries), and `‖g‖₁` (how much the row's
/// slack is widened by).
struct LawRow {
    entries: Vec<(usize, f64)>,
    room: f64,
    weight: f64,
}

impl LinearForm {
    /// [`Self::pattern_ways`] with the two [combined rows](Self::combined_rows)
    /// added to `rows`: pushes every pair with one of them.
    pub(crate) fn combined_ways(
        &self,
        red: &Reduced,
        step: &StepFacts,
        at: PatternAt,
        rows: &mut PatternRows,
        ways: &mut Vec<Way>,
    ) {
        let from = rows.rows.len();
        let combined = self.combined_rows(red, step, at, &rows.along, rows.norm);
        rows.rows.extend(combined);
        rows.push_pairs(from, ways);
    }

    /// The pattern's coefficient `φ` held by every contact's admissible
    /// impulses at once (rows `g_rᵀδ ≤ room_r` over `V`, valid for every
    /// solution: `λn ∈ [0, cap]`, and `f ∈ (μ λn + g) 𝒫` as `𝒫`'s facets
    /// `n_eᵀf ≤ c_e (μ λn + g)`, `λn` a known impulse's value where the reach
    /// fixes it). With `δ = scaled a + columns t`, any `y ≥ 0` with
    /// `Σ_r y_r columnsᵀg_r = ±v₁ s₁ + res` gives
    ///
    /// ```text
    /// ±φ ≤ Σ_r y_r room_r + ‖res‖ ‖t‖ − hᵀa,     h = Σ_r y_r scaledᵀg_r
    /// ```
    ///
    /// an upper row (`+`) and a lower row (`−`, `h` negated) of the
    /// pattern's kind; `y` minimizes `Σ_r y_r room_r` (a small LP,
    /// `simplex.rs`). The pattern's own rows are single normal rows, so the
    /// combined rows are at least as tight in `A`; they differ where a
    /// corner's normal impulse cannot fall without its friction leaving
    /// the cone, or an internal force between two corners is held by their
    /// cones (the measured four-corner landing).
    fn combined_rows(
        &self,
        red: &Reduced,
        step: &StepFacts,
        at: PatternAt,
        along: &DVector<f64>,
        norm: f64,
    ) -> Vec<PatternRow> {
        let PatternAt { on_range, scaled, columns, pattern } = at;
        let (s, t, nullity) = (red.s, red.t, columns.ncols());
        let widest = (0..red.m)
            .map(|i| step.caps[i].max(0.0) * (1.0 + red.friction[i]) + step.g[i].abs())
            .fold(0.0f64, f64::max);
        let mut rows: Vec<LawRow> = Vec::new();
        let mut r = 0;
        for i in 0..red.m {
            let (mut normal, mut friction) = (None, [usize::MAX; 2]);
            while r < self.idx.len() && self.idx[r] / s == i {
                match self.idx[r] % s {
                    0 => normal = Some(r),
                    c => friction[c - 1] = r,
                }
                r += 1;
            }
            let (mu, g, cap, lam) = (red.friction[i], step.g[i].max(0.0), step.caps[i].max(0.0), step.x[i * s]);
            if let Some(n) = normal {
                rows.push(LawRow { entries: vec![(n, -1.0)], room: lam.max(0.0), weight: 1.0 });
                rows.push(LawRow { entries: vec![(n, 1.0)], room: (cap - lam).max(0.0), weight: 1.0 });
            }
            if friction[0] == usize::MAX {
                continue;
            }
            // A normal impulse the reach fixes enters at its value.
            let base = if normal.is_some() { lam } else { step.fixed_impulse(i, s) };
            let f = &step.x[i * s + 1..(i + 1) * s];
            for (direction, offset) in facets(t, &red.directions) {
                let mut entries: Vec<(usize, f64)> = (0..t).map(|a| (friction[a], direction[a])).collect();
                if let Some(n) = normal {
                    entries.push((n, -mu * offset));
                }
                let at = (0..t).map(|a| direction[a] * f[a]).sum::<f64>();
                let weight = entries.iter().map(|e| e.1.abs()).sum();
                rows.push(LawRow { entries, room: (offset * (mu * base + g) - at).max(0.0), weight });
            }
        }
        let count = rows.len();
        let mut a = vec![0.0; nullity * count];
        for (k, row) in rows.iter().enumerate() {
            for &(r, x) in &row.entries {
                for q in 0..nullity {
                    a[q * count + k] += x * columns[(r, q)];
                }
            }
        }
        let cost: Vec<f64> = rows.iter().map(|row| row.room + ROUNDOFF * widest * row.weight).collect();
        // v₁ s₁ = pattern.v / ‖pattern.v‖².
        let target = &pattern.v / pattern.v.norm_squared();
        let mut out = Vec::with_capacity(2);
        for sign in [1.0, -1.0] {
            let b: Vec<f64> = target.iter().map(|x| sign * x).collect();
            let Some(y) = simplex::minimize(&a, nullity, count, &b, &cost) else {
                continue;
            };
            let mut res = DVector::from_fn(nullity, |q, _| -b[q]);
            let mut h = DVector::zeros(scaled.ncols());
            let (mut room, mut accepted) = (0.0, 0.0);
            for (k, row) in rows.iter().enumerate() {
                if y[k] == 0.0 {
                    continue;
                }
                for q in 0..nullity {
                    res[q] += y[k] * a[q * count + k];
                }
                for &(r, x) in &row.entries {
                    h += scaled.row(r).transpose() * (y[k] * x);
                }
                room += y[k] * (row.room + ROUNDOFF * widest * row.weight);
                accepted += y[k] * (row.room + 1e-6 * widest * row.weight);
            }
            let rest = res.norm() * norm;
            let h = h * sign;
            let Some(c) = shifted_contraction(on_range, &h, along, true) else {
                continue;
            };
            let (one, none) = ((room + rest, accepted + rest), (f64::INFINITY, f64::INFINITY));
            let ((above, above_accepted), (below, below_accepted)) = if sign > 0.0 { (one, none) } else { (none, one) };
            out.push(PatternRow { above, below, above_accepted, below_accepted, c });
        }
        out
    }
}

/// The facets `n_eᵀp ≤ c_e` of the friction polygon `𝒫 = conv{d_k}`: planar,
/// `±p ≤ 1`; spatial, the chord from `d_k` to `d_(k+1)` (the directions go
/// round the circle), `n_e` its unit outward normal.
fn facets(t: usize, directions: &[[f64; 2]]) -> Vec<([f64; 2], f64)> {
    if t == 1 {
        let most = directions.iter().map(|d| d[0]).fold(f64::NEG_INFINITY, f64::max);
        let least = directions.iter().map(|d| d[0]).fold(f64::INFINITY, f64::min);
        return vec![([1.0, 0.0], most), ([-1.0, 0.0], -least)];
    }
    let d = directions.len();
    if d < 3 {
        return Vec::new();
    }
    (0..d)
        .filter_map(|k| {
            let (p, q) = (directions[k], directions[(k + 1) % d]);
            let mid = [p[0] + q[0], p[1] + q[1]];
            let length = mid[0].hypot(mid[1]);
            (length > 0.0).then(|| {
                let n = [mid[0] / length, mid[1] / length];
                (n, n[0] * p[0] + n[1] * p[1])
            })
        })
        .collect()
}
