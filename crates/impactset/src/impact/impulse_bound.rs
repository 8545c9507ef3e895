//! A bound on the normal impulses of every outcome of an impact
//! (docs/model.md §2, "every solution by the step enumerator"): a velocity
//! `ξ` that separates every contact faster than friction can pull it back
//! turns the energy bound `‖Δv‖_M ≤ 2 ‖v⁻‖_M` into a bound on `Σ λn`.

use nalgebra::DVector;

use crate::ImpactProblem;
use crate::lcp::{LemkeOptions, LemkeWorkspace};

/// A bound `Λ ≥ Σ_i λn_i` on the normal impulses of every impulse
/// `λ = [λn; λD]` in the linearized friction cones (`λD ≥ 0`,
/// `Σ_k λD_ik ≤ μ_i λn_i`) whose velocity change `Δv = M⁻¹Jᵀλ` keeps the
/// kinetic energy from rising (`‖v⁻ + Δv‖_M ≤ ‖v⁻‖_M`, so
/// `‖Δv‖_M ≤ 2 ‖v⁻‖_M`): every solution of the simultaneous LCP and of a
/// Routh step is such an impulse (docs/model.md §4).
///
/// For any `ξ` in the range of `M⁻¹Jᵀ` (which respects the bilateral
/// constraints), `ξᵀMΔv = (Jξ)ᵀλ ≥ Σ_i λn_i g_i(ξ)` with
/// `g_i(ξ) = (Jn ξ)_i + μ_i min(0, min_k (JD ξ)_ik)`, the worst friction in
/// the cone. With `c = min_i g_i(ξ) > 0`, Cauchy–Schwarz in the energy norm
/// gives `Σ λn ≤ ‖ξ‖_M · 2‖v⁻‖_M / c`. The `ξ` of least energy norm with
/// every `g_i ≥ 1` solves a convex quadratic program, whose dual is the LCP
/// `w = G y − 1 ≥ 0 ⊥ y ≥ 0` with `G = T W Tᵀ` positive semidefinite (`T`
/// picks the rows `Jn_i` and `(Jn_i + μ_i JD_ik) / (1 + μ_i)`, the latter
/// `≥ 1 / (1 + μ_i)`), solved by Lemke's method;
/// `ξ = M⁻¹Jᵀ Tᵀ y`. The bound is computed from that `ξ` (its `c`
/// recomputed from `Jξ`), so a loose solve only makes it larger, never
/// wrong. `None` when no contact-separating `ξ` exists (a body wedged
/// between opposed contacts, where impulses can grow without bound) or the
/// solve fails.
pub(crate) fn normal_impulse_bound(problem: &ImpactProblem) -> Option<f64> {
    let ops = problem.operators();
    let (m, d) = (ops.m, ops.d);
    // Rows of T, each `(Jn_i + μ_i JD_ik) / (1 + μ_i)` ≥ `1 / (1 + μ_i)`
    // (the same constraint, rows of unit size even for μ = 10⁵): (normal
    // row, its weight, optional (direction row, its weight)), right-hand side.
    type Row = (usize, f64, Option<(usize, f64)>);
    let mut rows: Vec<(Row, f64)> = Vec::with_capacity(m * (d + 1));
    for i in 0..m {
        rows.push(((i, 1.0, None), 1.0));
        let mu = ops.friction[i];
        if mu > 0.0 {
            let s = 1.0 / (1.0 + mu);
            rows.extend((0..d).map(|k| ((i, s, Some((m + i * d + k, mu * s))), s)));
        }
    }
    let size = rows.len();
    let w = &ops.delassus;
    // (T W Tᵀ)_ab = Σ over the (at most two) entries of rows a and b.
    let entries = |r: &(Row, f64)| [(r.0.0, r.0.1), r.0.2.unwrap_or((r.0.0, 0.0))];
    let mut g = vec![0.0; size * size];
    for (a, ra) in rows.iter().enumerate() {
        for (b, rb) in rows.iter().enumerate() {
            g[a * size + b] =
                entries(ra).iter().flat_map(|&(p, tp)| entries(rb).map(|(q, tq)| tp * tq * w[(p, q)])).sum();
        }
    }
    let minus_one: Vec<f64> = rows.iter().map(|r| -r.1).collect();
    let mut lemke = LemkeWorkspace::new(size);
    let y = lemke.solve_covered(&g, &minus_one, None, 0, &LemkeOptions::default()).ok()?.z.to_vec();
    let mut ty = DVector::zeros(m + m * d);
    for (r, &yr) in rows.iter().zip(&y) {
        for (p, tp) in entries(r) {
            ty[p] += tp * yr.max(0.0);
        }
    }
    let xi = &ops.minv_jt * ty;
    let j_xi = &ops.j * &xi;
    let c = (0..m)
        .map(|i| {
            let worst = (0..d).map(|k| j_xi[m + i * d + k]).fold(0.0, f64::min);
            j_xi[i] + ops.friction[i] * worst
        })
        .fold(f64::INFINITY, f64::min);
    let bound = problem.energy_norm(&xi) * 2.0 * problem.energy_norm(problem.velocity()) / c;
    (c > 0.0 && bound.is_finite()).then_some(bound)
}

#[cfg(test)]
mod tests {
    use nalgebra::{dmatrix, dvector};

    use super::normal_impulse_bound;
    use crate::{Contact, ImpactProblem};

    /// A point of mass `m` dropped at speed `v` onto a floor: the least
    /// separating velocity is straight up at 1 (`‖ξ‖_M = √m`, `c = 1`), so
    /// the bound is `2 m |v|`, twice the plastic impulse `m |v|` (the
    /// largest a non-energy-gaining impulse can be is the elastic `2 m |v|`).
    #[test]
    fn a_point_on_a_floor_is_bounded_by_its_elastic_impulse() {
        for (mass, v, mu) in [(1.0, -1.0, 0.0), (3.0, -0.5, 0.5), (0.2, -7.0, 2.0)] {
            let contact = Contact::planar("floor", dvector![0.0, 1.0], dvector![1.0, 0.0], mu);
            let p = ImpactProblem::new(dmatrix![mass, 0.0; 0.0, mass], dvector![0.0, v], vec![contact]).unwrap();
            let bound = normal_impulse_bound(&p).unwrap();
            let elastic = 2.0 * mass * v.abs();
            assert!((bound - elastic).abs() <= 1e-12 * elastic, "{bound} vs {elastic}");
        }
    }

    /// A point between two opposed walls cannot leave both: no bound (its
    /// normal impulses can grow together without changing `Δv`).
    #[test]
    fn a_point_wedged_between_opposed_contacts_has_no_bound() {
        let left = Contact::planar("left", dvector![1.0, 0.0], dvector![0.0, 1.0], 0.3);
        let right = Contact::planar("right", dvector![-1.0, 0.0], dvector![0.0, 1.0], 0.3);
        let p = ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], dvector![-1.0, 0.5], vec![left, right]).unwrap();
        assert_eq!(normal_impulse_bound(&p), None);
    }

    /// Every built-in scene can separate its contacts, RAMone's feet with
    /// μ = 10⁵ included (its friction rows scaled to unit size).
    #[test]
    fn every_built_in_scene_that_can_separate_has_a_bound() {
        for id in crate::scene::ids() {
            let p = &crate::scene::builtin(id).unwrap().problem;
            let bound = normal_impulse_bound(p);
            assert!(bound.is_some_and(|b| b > 0.0 && b.is_finite()), "{id}: {bound:?}");
        }
    }
}
