//! How far a second solution's `u⁺` can move per unit of the bound `√Q`
//! (docs/model.md#5b4-the-bound-from-one-solution): per contact from `W`'s
//! diagonal blocks, and every tangential coordinate together.

use crate::impact::enumerate::tableaux::reduced::Reduced;

/// Per contact, how far `u⁺` moves per unit `√Q`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Reach {
    /// `ν_i = √W_(n,n),ii`.
    pub normal: Vec<f64>,
    /// `κ_i = √λmax(W_(t,t),ii)`.
    pub tangent: Vec<f64>,
    /// `Λ_T = λmax` of every contact's tangential rows of `W` together:
    /// `Σ_i ‖δu_t,i‖² ≤ Λ_T Q`.
    pub tangent_all: f64,
    /// `max_r √(M⁻¹)_rr`: `‖Δv − Δv*‖∞ ≤` this `× √Q`.
    pub velocity_per_q: f64,
}

impl Reach {
    /// The reach of the reduced step `red` of a problem whose inverse
    /// inertia is `mass_inv`.
    pub fn new(red: &Reduced, mass_inv: &nalgebra::DMatrix<f64>) -> Self {
        let (s, dim) = (red.s, red.dim);
        let w = |r: usize, c: usize| red.w[r * dim + c];
        let normal = (0..red.m).map(|i| w(i * s, i * s).max(0.0).sqrt()).collect();
        let tangent = (0..red.m)
            .map(|i| {
                let k = i * s + 1;
                let largest = if red.t == 1 {
                    w(k, k)
                } else {
                    let (a, b, c) = (w(k, k), w(k, k + 1), w(k + 1, k + 1));
                    0.5 * (a + c) + (0.25 * (a - c) * (a - c) + b * b).sqrt()
                };
                largest.max(0.0).sqrt()
            })
            .collect();
        let rows: Vec<usize> = (0..red.m).flat_map(|i| (1..s).map(move |a| i * s + a)).collect();
        let block = nalgebra::DMatrix::from_fn(rows.len(), rows.len(), |r, c| w(rows[r], rows[c]));
        // Gershgorin's bound where the eigenvalues do not converge.
        let gershgorin = (0..rows.len()).map(|r| block.row(r).iter().map(|x| x.abs()).sum::<f64>()).fold(0.0, f64::max);
        let tangent_all = if rows.is_empty() {
            0.0
        } else {
            nalgebra::linalg::SymmetricEigen::try_new(block, 5.0 * f64::EPSILON, 10_000)
                .map_or(gershgorin, |e| e.eigenvalues.iter().fold(0.0f64, |a, &x| a.max(x)) * (1.0 + 1e-12))
        };
        let velocity_per_q = mass_inv.diagonal().iter().fold(0.0f64, |a, &x| a.max(x.max(0.0).sqrt()));
        Reach { normal, tangent, tangent_all, velocity_per_q }
    }
}
