//! How far a candidate `z` is from solving an LCP.

/// The residual of a candidate solution `z` of `w = A z + q ≥ 0, z ≥ 0, zᵀw = 0`,
/// with `w` recomputed from `A`, `z` and `q` (never read off a tableau).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct LcpResidual {
    /// `min_i z_i` (should be ≥ 0).
    pub min_z: f64,
    /// `min_i w_i` (should be ≥ 0).
    pub min_w: f64,
    /// `max_i |z_i w_i|` (should be 0).
    pub complementarity: f64,
    /// `‖z‖∞`.
    pub z_norm: f64,
    /// `‖q‖∞`.
    pub q_norm: f64,
}

impl LcpResidual {
    /// The residual of `z` for `(A, q)`, `A` row-major `n × n`; `w` receives `A z + q`.
    pub fn compute(a: &[f64], q: &[f64], z: &[f64], w: &mut [f64]) -> Self {
        with_size!(q.len(), N => Self::compute_sized::<N>(a, q, z, w))
    }

    /// [`LcpResidual::compute`] from `Aᵀ` (`A` column-major: column `j` of
    /// `A` at `at[j·n..]`), which the side-by-side rows read contiguously.
    /// The same arithmetic, bit for bit.
    pub(crate) fn compute_transposed(at: &[f64], q: &[f64], z: &[f64], w: &mut [f64]) -> Self {
        #[cfg(target_arch = "x86_64")]
        if super::avx2() {
            // SAFETY: the processor has AVX2.
            return unsafe { Self::compute_transposed_avx2(at, q, z, w) };
        }
        with_size!(q.len(), N => Self::compute_transposed_sized::<N>(at, q, z, w))
    }

    /// [`LcpResidual::compute_transposed`] compiled for AVX2: the same
    /// operations in the same order, bit for bit.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn compute_transposed_avx2(at: &[f64], q: &[f64], z: &[f64], w: &mut [f64]) -> Self {
        with_size!(q.len(), N => Self::compute_transposed_sized::<N>(at, q, z, w))
    }

    #[inline(always)]
    fn compute_transposed_sized<const N: usize>(at: &[f64], q: &[f64], z: &[f64], w: &mut [f64]) -> Self {
        let n = super::size::<N>(q.len());
        let (at, z, w) = (&at[..n * n], &z[..n], &mut w[..n]);
        // The sums of `compute_sized`, reading column `j` of `A` at once.
        let start: f64 = std::iter::empty::<f64>().sum();
        w.fill(start);
        for (column, &zj) in at.chunks_exact(n).zip(z) {
            for (wi, &a) in w.iter_mut().zip(column) {
                *wi += a * zj;
            }
        }
        Self::finish::<N>(q, z, w)
    }

    fn compute_sized<const N: usize>(a: &[f64], q: &[f64], z: &[f64], w: &mut [f64]) -> Self {
        let n = super::size::<N>(q.len());
        let (z, w) = (&z[..n], &mut w[..n]);
        // w_i = q_i + Σ_j a_ij z_j with the sum in the order (and from the
        // starting value) of `Iterator::sum`, all rows at once so that their
        // additions overlap.
        let start: f64 = std::iter::empty::<f64>().sum();
        w.fill(start);
        for (j, &zj) in z.iter().enumerate() {
            for (i, wi) in w.iter_mut().enumerate() {
                *wi += a[i * n + j] * zj;
            }
        }
        Self::finish::<N>(q, z, w)
    }

    /// Adds `q` to `w = A z` and measures.
    #[inline(always)]
    fn finish<const N: usize>(q: &[f64], z: &[f64], w: &mut [f64]) -> Self {
        let n = super::size::<N>(q.len());
        let (q, z, w) = (&q[..n], &z[..n], &mut w[..n]);
        let mut r =
            LcpResidual { min_z: f64::INFINITY, min_w: f64::INFINITY, complementarity: 0.0, z_norm: 0.0, q_norm: 0.0 };
        for i in 0..n {
            let wi = q[i] + w[i];
            w[i] = wi;
            r.min_z = r.min_z.min(z[i]);
            r.min_w = r.min_w.min(wi);
            r.complementarity = r.complementarity.max((z[i] * wi).abs());
            r.z_norm = r.z_norm.max(z[i].abs());
            r.q_norm = r.q_norm.max(q[i].abs());
        }
        r
    }

    /// The largest violation relative to the problem's size, with
    /// `Z = max(1, ‖z‖∞)` and `Q = max(1, ‖q‖∞)`:
    ///
    /// `max(0, −min z / Z, −min w / Q, max |z∘w| / (Z Q))`.
    ///
    /// Dimensionless and scale-free (a problem in other units has the same
    /// violation); this is the number compared with a sampler's residual
    /// tolerance. The GPU's `lcp_residual` computes the same.
    pub fn violation(&self) -> f64 {
        let z = self.z_norm.max(1.0);
        let q = self.q_norm.max(1.0);
        0f64.max(-self.min_z / z).max(-self.min_w / q).max(self.complementarity / (z * q))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// `compute` (rows summed side by side, compiled per size) and
    /// `compute_transposed` give, bit for bit, the row-by-row dot products of
    /// the definition, for every size up to 26 (all compiled sizes and the
    /// general code; `compute_transposed` compiled for AVX2 where the
    /// processor has it).
    #[test]
    fn residual_is_the_row_by_row_definition() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for n in 1..=26 {
            for _ in 0..20 {
                let a: Vec<f64> = (0..n * n).map(|_| rng.random_range(-1e3..1e3)).collect();
                let q: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
                let z: Vec<f64> =
                    (0..n).map(|_| if rng.random_bool(0.4) { 0.0 } else { rng.random_range(-0.1..2.0) }).collect();
                let mut w = vec![0.0; n];
                let r = LcpResidual::compute(&a, &q, &z, &mut w);
                let at: Vec<f64> = (0..n * n).map(|k| a[(k % n) * n + k / n]).collect();
                let mut wt = vec![0.0; n];
                assert_eq!(LcpResidual::compute_transposed(&at, &q, &z, &mut wt), r);
                let expected: Vec<f64> = (0..n)
                    .map(|i| q[i] + a[i * n..(i + 1) * n].iter().zip(&z).map(|(x, y)| x * y).sum::<f64>())
                    .collect();
                let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&w), bits(&expected), "n = {n}");
                assert_eq!(bits(&wt), bits(&expected), "n = {n}, from Aᵀ");
                let fold = |f: fn(f64, f64) -> f64, start: f64, x: &mut dyn Iterator<Item = f64>| x.fold(start, f);
                assert_eq!(r.min_w, fold(f64::min, f64::INFINITY, &mut expected.iter().copied()));
                assert_eq!(r.min_z, fold(f64::min, f64::INFINITY, &mut z.iter().copied()));
                let comp = fold(f64::max, 0.0, &mut z.iter().zip(&expected).map(|(x, y)| (x * y).abs()));
                assert_eq!(r.complementarity, comp);
            }
        }
    }
}
