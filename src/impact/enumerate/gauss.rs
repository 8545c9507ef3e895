//! Small dense Gaussian elimination with partial pivoting.
//!
//! Written out by hand on purpose: this is the numerical core of the mode
//! enumerator (systems of at most `3m` unknowns, solved thousands of times per
//! step), it must not allocate, and the GPU port uses the same loop.

/// Solves `A X = B` in place, `A` row-major `n × n`, `B` row-major `n × k`.
///
/// On success `B` holds `X` and the function returns `true`. Returns `false`
/// (leaving `A` and `B` clobbered) when a pivot, after choosing the largest
/// entry of its column (partial pivoting), is at most `tiny` in magnitude:
/// the system is treated as singular.
pub(super) fn solve_in_place(a: &mut [f64], n: usize, b: &mut [f64], k: usize, tiny: f64) -> bool {
    debug_assert!(a.len() >= n * n && b.len() >= n * k);
    for col in 0..n {
        let mut p = col;
        let mut best = a[col * n + col].abs();
        for r in col + 1..n {
            let v = a[r * n + col].abs();
            if v > best {
                best = v;
                p = r;
            }
        }
        if best <= tiny || !best.is_finite() {
            return false;
        }
        if p != col {
            for c in col..n {
                a.swap(p * n + c, col * n + c);
            }
            for c in 0..k {
                b.swap(p * k + c, col * k + c);
            }
        }
        let inv = 1.0 / a[col * n + col];
        for r in col + 1..n {
            let f = a[r * n + col] * inv;
            if f != 0.0 {
                for c in col + 1..n {
                    a[r * n + c] -= f * a[col * n + c];
                }
                for c in 0..k {
                    b[r * k + c] -= f * b[col * k + c];
                }
            }
        }
    }
    for row in (0..n).rev() {
        let inv = 1.0 / a[row * n + row];
        for c in 0..k {
            let mut s = b[row * k + c];
            for j in row + 1..n {
                s -= a[row * n + j] * b[j * k + c];
            }
            b[row * k + c] = s * inv;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_system_that_needs_pivoting() {
        // A = [[0, 2, 1], [1, 1, 0], [3, 0, 1]], x = [1, −2, 3].
        let mut a = [0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 1.0];
        let mut b = [-1.0, -1.0, 6.0];
        assert!(solve_in_place(&mut a, 3, &mut b, 1, 1e-14));
        for (x, e) in b.iter().zip([1.0, -2.0, 3.0]) {
            assert!((x - e).abs() < 1e-14, "{b:?}");
        }
    }

    #[test]
    fn several_right_hand_sides() {
        let mut a = [2.0, 1.0, 1.0, 3.0];
        // B = A · [[1, 0], [0, 1]] = A.
        let mut b = [2.0, 1.0, 1.0, 3.0];
        assert!(solve_in_place(&mut a, 2, &mut b, 2, 1e-14));
        for (x, e) in b.iter().zip([1.0, 0.0, 0.0, 1.0]) {
            assert!((x - e).abs() < 1e-14, "{b:?}");
        }
    }

    #[test]
    fn reports_singular_systems() {
        let mut a = [1.0, 2.0, 2.0, 4.0];
        let mut b = [1.0, 1.0];
        assert!(!solve_in_place(&mut a, 2, &mut b, 1, 1e-12));
    }
}
