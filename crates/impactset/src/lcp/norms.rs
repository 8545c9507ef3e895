//! Scale of an LCP matrix: `‖A‖∞`, the pivot tolerance it implies, and a
//! row and column equilibration that leaves the solutions unchanged.

/// `‖A‖∞ = maxᵢ Σⱼ |aᵢⱼ|` of the row-major `n × n` matrix `a`.
pub fn infinity_norm(a: &[f64], n: usize) -> f64 {
    (0..n).map(|i| a[i * n..(i + 1) * n].iter().map(|x| x.abs()).sum::<f64>()).fold(0.0, f64::max)
}

/// The Lemke pivot tolerance `factor · N · max(1, ‖A‖∞) · ε` of `a` for a
/// scalar type of unit round-off `epsilon`: column entries at most this are
/// not pivots. The CPU's default ([`crate::lcp::LemkeOptions`]) is
/// `factor = 10`, `ε = ε_f64`.
pub fn pivot_tolerance(a: &[f64], n: usize, factor: f64, epsilon: f64) -> f64 {
    factor * n as f64 * infinity_norm(a, n).max(1.0) * epsilon
}

/// Row and column scales `r, c > 0`, powers of two, such that
/// `A' = diag(r) A diag(c)` has entries of at most about unit size in every
/// non-zero row and column (Ruiz's iteration, rounded to powers of two so
/// that scaling is exact in binary floating point).
///
/// The LCP `w = A z + q ≥ 0, z ≥ 0, zᵀw = 0` has the solutions `z = diag(c) z'`
/// of `w' = A' z' + diag(r) q`, `w = diag(r)⁻¹ w'`: positive scaling keeps
/// signs and complementarity. Lemke's method on the scaled problem with
/// covering vector `diag(r) d` pivots as on the original with `d` (each
/// tableau row is the original one times `rᵢ`, each ratio of a column
/// comparison is scaled by one positive factor), so in exact arithmetic it
/// reaches the same solution; only round-off differs, which is the point:
/// the scaled entries share one magnitude.
pub fn equilibrate(a: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut r, mut c) = (vec![1.0; n], vec![1.0; n]);
    let pow2 = |x: f64| x.log2().round().exp2();
    for _ in 0..8 {
        for i in 0..n {
            let m = (0..n).map(|j| (r[i] * a[i * n + j] * c[j]).abs()).fold(0.0, f64::max);
            if m > 0.0 && m.is_finite() {
                r[i] *= pow2(1.0 / m.sqrt());
            }
        }
        for j in 0..n {
            let m = (0..n).map(|i| (r[i] * a[i * n + j] * c[j]).abs()).fold(0.0, f64::max);
            if m > 0.0 && m.is_finite() {
                c[j] *= pow2(1.0 / m.sqrt());
            }
        }
    }
    (r, c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lcp::{LemkeOptions, LemkeWorkspace};

    #[test]
    fn the_default_pivot_tolerance_is_the_cpu_solvers() {
        let a = [2.0, -7.0, 0.5, 1.0, 3.0, -1.0, 0.0, 4.0, 9.0];
        assert_eq!(infinity_norm(&a, 3), 13.0);
        let cpu = LemkeOptions::default().resolved_for(&a, 3).pivot_tolerance.unwrap();
        assert_eq!(cpu, pivot_tolerance(&a, 3, 10.0, f64::EPSILON));
        // Below unit norm the tolerance stays at its floor.
        assert_eq!(pivot_tolerance(&[0.1], 1, 10.0, f64::EPSILON), 10.0 * f64::EPSILON);
    }

    #[test]
    fn equilibration_is_exact_and_keeps_the_solution() {
        // A P-matrix with one row a hundred thousand times larger than the others.
        let a = [2.0, 1.0, 0.0, 1.0, 3.0, 1.0, 1e5, 0.0, 2e5];
        let q = [-1.0, 0.5, -2.0];
        let (r, c) = equilibrate(&a, 3);
        for s in r.iter().chain(&c) {
            assert!(*s > 0.0 && s.log2().fract() == 0.0, "{s} is not a power of two");
        }
        let scaled: Vec<f64> = (0..9).map(|k| r[k / 3] * a[k] * c[k % 3]).collect();
        assert!(infinity_norm(&scaled, 3) < 8.0, "{scaled:?}");
        let rq: Vec<f64> = (0..3).map(|i| r[i] * q[i]).collect();
        let mut ws = LemkeWorkspace::new(3);
        let z = ws.solve(&a, &q, &LemkeOptions::default()).unwrap().z.to_vec();
        let z_scaled = ws.solve(&scaled, &rq, &LemkeOptions::default()).unwrap().z.to_vec();
        for j in 0..3 {
            assert!((c[j] * z_scaled[j] - z[j]).abs() <= 1e-9 * (1.0 + z[j].abs()), "{z:?} vs {z_scaled:?}");
        }
    }
}
