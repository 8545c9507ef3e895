//! The dense-sampling guarantee of docs/model.md §6 (the paper's Lemma 1) as a
//! calculator.
//!
//! If `f: [0,1]^q → ℝ^k` is `L`-Lipschitz and `S` holds `M` i.i.d. uniform
//! samples, cut the cube into `K^q` sub-cubes of side `1/K`,
//! `K = ⌈L√q/ε⌉` (a sub-cube's diameter `√q/K` maps to at most `ε`). If every
//! sub-cube holds a sample, `f(S)` is an ε-net of `f([0,1]^q)`; a union bound
//! over the sub-cubes gives
//!
//! `P(ε-net) ≥ 1 − K^q (1 − K^{−q})^M`.
//!
//! `K^q` overflows and `(1 − K^{−q})^M` underflows for the `q = m·K_steps` of
//! real problems, so everything is computed in log space:
//! `ln(failure) = q ln K + M ln(1 − K^{−q})`, with `ln(1 − x)` as `ln_1p(−x)`.

/// The quantities of the bound for one `(L, q, ε)`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DenseSamplingBound {
    /// Lipschitz constant `L` of the sample-to-outcome map.
    pub lipschitz: f64,
    /// Dimension `q` of the random input (`m · K_steps` for the Routh sampler).
    pub q: u32,
    /// Target covering radius `ε`.
    pub epsilon: f64,
}

impl DenseSamplingBound {
    /// The bound for `L`, `q`, `ε`.
    ///
    /// # Panics
    /// Unless `L > 0`, `q ≥ 1` and `ε > 0` (all finite).
    pub fn new(lipschitz: f64, q: u32, epsilon: f64) -> Self {
        assert!(lipschitz > 0.0 && lipschitz.is_finite(), "L must be positive and finite, got {lipschitz}");
        assert!(q >= 1, "q must be at least 1");
        assert!(epsilon > 0.0 && epsilon.is_finite(), "ε must be positive and finite, got {epsilon}");
        DenseSamplingBound { lipschitz, q, epsilon }
    }

    /// Sub-cubes per axis, `K = ⌈L√q/ε⌉` (as `f64`: it may exceed `u64`).
    pub fn cells_per_axis(&self) -> f64 {
        (self.lipschitz * f64::from(self.q).sqrt() / self.epsilon).ceil().max(1.0)
    }

    /// `ln(K^q) = q ln K`, the log of the number of sub-cubes.
    pub fn ln_cells(&self) -> f64 {
        f64::from(self.q) * self.cells_per_axis().ln()
    }

    /// `ln(−ln(1 − K^{−q}))`, accurate even when `K^{−q}` underflows.
    fn ln_neg_ln_miss(&self) -> f64 {
        let ln_x = -self.ln_cells(); // ln K^{−q}
        let x = ln_x.exp();
        if x == 1.0 {
            // K = 1: one cell, every sample hits it.
            f64::INFINITY
        } else if x < 1e-8 {
            // −ln(1 − x) = x (1 + x/2 + …): ln of it is ln x to double precision.
            ln_x + x / 2.0
        } else {
            (-(-x).ln_1p()).ln()
        }
    }

    /// `ln(K^q (1 − K^{−q})^M)`, the log of the failure probability bound
    /// after `M` samples (`−∞` when the bound is 0).
    pub fn ln_failure(&self, samples: f64) -> f64 {
        if self.cells_per_axis() == 1.0 {
            return if samples >= 1.0 { f64::NEG_INFINITY } else { 0.0 };
        }
        // M ln(1 − K^{−q}) = −M·exp(ln(−ln(1 − K^{−q}))).
        self.ln_cells() - samples * self.ln_neg_ln_miss().exp()
    }

    /// `P(ε-net) ≥ 1 − K^q (1 − K^{−q})^M`, clamped at 0 (the bound is
    /// vacuous until `M` is past about `K^q ln K^q`).
    pub fn net_probability(&self, samples: f64) -> f64 {
        let ln_fail = self.ln_failure(samples);
        if ln_fail >= 0.0 { 0.0 } else { -ln_fail.exp_m1() }
    }

    /// The natural log of the smallest `M` with `P(ε-net) ≥ probability`:
    /// `M ≥ (q ln K − ln(1 − P)) / (−ln(1 − K^{−q}))`.
    ///
    /// # Panics
    /// Unless `0 < probability < 1`.
    pub fn ln_samples_for(&self, probability: f64) -> f64 {
        assert!(probability > 0.0 && probability < 1.0, "probability must lie in (0, 1), got {probability}");
        if self.cells_per_axis() == 1.0 {
            return 0.0;
        }
        let numerator = self.ln_cells() - (-probability).ln_1p();
        numerator.ln() - self.ln_neg_ln_miss()
    }

    /// The smallest sample count `M` with `P(ε-net) ≥ probability`, rounded
    /// up (`∞` past `f64`; see [`ln_samples_for`](Self::ln_samples_for) for
    /// the exponent).
    pub fn samples_for(&self, probability: f64) -> f64 {
        let ln_m = self.ln_samples_for(probability);
        let m = ln_m.exp();
        // Guard against the rounding of exp/ln landing just below the bound.
        if m.is_finite() && m < 1e15 {
            let mut c = m.ceil().max(1.0);
            while self.net_probability(c) < probability {
                c += 1.0;
            }
            c
        } else {
            m
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_dimensional_bound_by_hand() {
        // L = 1, q = 1, ε = 0.5: K = 2, P ≥ 1 − 2·(1/2)^M.
        let b = DenseSamplingBound::new(1.0, 1, 0.5);
        assert_eq!(b.cells_per_axis(), 2.0);
        assert!((b.net_probability(10.0) - (1.0 - 2.0 / 1024.0)).abs() < 1e-14);
        assert_eq!(b.net_probability(1.0), 0.0);
        // 2·2^{−M} ≤ 0.01 ⇔ M ≥ log2(200) = 7.64.
        assert_eq!(b.samples_for(0.99), 8.0);
        assert!((b.ln_samples_for(0.99) - 200f64.log2().ln()).abs() < 1e-12);
    }

    #[test]
    fn two_dimensional_bound_by_hand() {
        // L = 1, q = 2, ε = 0.3: K = ⌈√2/0.3⌉ = 5, 25 cells.
        let b = DenseSamplingBound::new(1.0, 2, 0.3);
        assert_eq!(b.cells_per_axis(), 5.0);
        let m = 200.0;
        let direct = 1.0 - 25.0 * (1.0 - 1.0 / 25.0f64).powf(m);
        assert!((b.net_probability(m) - direct).abs() < 1e-14);
        let need = b.samples_for(0.999);
        assert!(b.net_probability(need) >= 0.999 && b.net_probability(need - 1.0) < 0.999);
    }

    #[test]
    fn huge_dimensions_neither_overflow_nor_underflow() {
        // q = 100 (ten steps, ten contacts), K = 100: K^q = 1e200, K^{−q} = 1e−200.
        let b = DenseSamplingBound::new(5.0, 100, 0.5);
        assert_eq!(b.cells_per_axis(), 100.0);
        assert!((b.ln_cells() - 200.0 * 10f64.ln()).abs() < 1e-9);
        // M ≈ K^q (q ln K − ln(1 − P)): ln M ≈ 200 ln 10 + ln(460.5 + 4.6).
        let ln_m = b.ln_samples_for(0.99);
        let expected = 200.0 * 10f64.ln() + (200.0 * 10f64.ln() - 0.01f64.ln()).ln();
        assert!((ln_m - expected).abs() < 1e-9, "{ln_m} vs {expected}");
        assert!(b.samples_for(0.99) > 1e200);
        assert_eq!(b.net_probability(1e9), 0.0);
        // Past 1e308 samples K^{−q} still underflows: the log form handles it.
        let b = DenseSamplingBound::new(1.0, 400, 0.01);
        assert!(b.ln_samples_for(0.5).is_finite());
        assert_eq!(b.samples_for(0.5), f64::INFINITY);
    }

    #[test]
    fn one_cell_is_covered_by_one_sample() {
        let b = DenseSamplingBound::new(0.1, 1, 1.0);
        assert_eq!(b.cells_per_axis(), 1.0);
        assert_eq!(b.net_probability(1.0), 1.0);
        assert_eq!(b.samples_for(0.9), 1.0);
    }
}
