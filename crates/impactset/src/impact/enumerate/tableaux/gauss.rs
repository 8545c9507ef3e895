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
///
/// Systems of one and two unknowns (every planar mode block) take unrolled
/// paths that perform the same operations in the same order.
#[inline]
pub(crate) fn solve_in_place(a: &mut [f64], n: usize, b: &mut [f64], k: usize, tiny: f64) -> bool {
    debug_assert!(a.len() >= n * n && b.len() >= n * k);
    match n {
        1 => solve_1(a[0], &mut b[..k], tiny),
        2 => solve_2(a, b, k, tiny),
        _ => solve_general(a, n, b, k, tiny),
    }
}

/// `n = 1`: the general loop reduced to its pivot test and back substitution.
#[inline]
fn solve_1(a: f64, b: &mut [f64], tiny: f64) -> bool {
    let best = a.abs();
    if best <= tiny || !best.is_finite() {
        return false;
    }
    let inv = 1.0 / a;
    b.iter_mut().for_each(|x| *x *= inv);
    true
}

/// `n = 2`: the general loop unrolled (`a` is not written), as
/// [`plan_2`] and [`apply_2`] per right-hand side.
#[inline]
fn solve_2(a: &[f64], b: &mut [f64], k: usize, tiny: f64) -> bool {
    let Some(plan) = plan_2(a, tiny) else {
        return false;
    };
    let (b0, b1) = b[..2 * k].split_at_mut(k);
    for (x0, x1) in b0.iter_mut().zip(b1.iter_mut()) {
        (*x0, *x1) = apply_2(&plan, *x0, *x1);
    }
    true
}

/// What solving a `2 × 2` system `A` (row-major) takes from `A` alone:
/// the row swap of partial pivoting (1 or 0), the elimination factor `f`,
/// the pivot row's `a01` and the inverses of the two pivots; `None` when a
/// pivot is at most `tiny` (singular). The mode enumerator keeps it per
/// fixed-mode record, so a step does only [`apply_2`].
#[inline]
pub(crate) fn plan_2(a: &[f64], tiny: f64) -> Option<[f64; 5]> {
    let (mut a00, mut a01, mut a10, mut a11) = (a[0], a[1], a[2], a[3]);
    let best = a00.abs();
    let swap = a10.abs() > best;
    let best = if swap { a10.abs() } else { best };
    if best <= tiny || !best.is_finite() {
        return None;
    }
    if swap {
        (a00, a01, a10, a11) = (a10, a11, a00, a01);
    }
    let f = a10 * (1.0 / a00);
    if f != 0.0 {
        a11 -= f * a01;
    }
    let best = a11.abs();
    if best <= tiny || !best.is_finite() {
        return None;
    }
    Some([if swap { 1.0 } else { 0.0 }, f, a01, 1.0 / a11, 1.0 / a00])
}

/// The solution of `A x = (b0, b1)` from `A`'s [`plan_2`].
#[inline(always)]
pub(crate) fn apply_2(plan: &[f64], b0: f64, b1: f64) -> (f64, f64) {
    let (b0, mut b1) = if plan[0] != 0.0 { (b1, b0) } else { (b0, b1) };
    let f = plan[1];
    if f != 0.0 {
        b1 -= f * b0;
    }
    let x1 = b1 * plan[3];
    ((b0 - plan[2] * x1) * plan[4], x1)
}

/// Any `n`.
fn solve_general(a: &mut [f64], n: usize, b: &mut [f64], k: usize, tiny: f64) -> bool {
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

/// Entries a record keeps ahead of its rows for solving its mode block `R`
/// (`q × q`) of a fixed-mode record (`cache`): see [`solve_plan`].
pub(crate) fn solve_len(q: usize) -> usize {
    match q {
        0 => 0,
        1 => 1,
        2 => 5,
        _ => q * q,
    }
}

/// What a record keeps of its mode block `R` (row-major, `q × q`) to solve
/// `R e = b` per step with the operations of [`solve_in_place`] bit for bit:
/// for `q = 1` the inverse `1 / r`; for `q = 2` [`plan_2`]; for larger `q`,
/// `R` itself. A singular `R` (never solved: its record is not regular)
/// gives NaNs.
pub(crate) fn solve_plan(block: &[f64; 9], q: usize, singular: f64, out: &mut [f64]) {
    match q {
        0 => {}
        1 => out[0] = 1.0 / block[0],
        2 => out.copy_from_slice(&plan_2(block, singular).unwrap_or([f64::NAN; 5])),
        _ => out.copy_from_slice(&block[..q * q]),
    }
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

    /// The unrolled paths agree with the general loop bit for bit.
    #[test]
    fn small_systems_match_the_general_loop() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            // Integers and zeros now and then, to exercise ties and skips.
            match seed % 5 {
                0 => 0.0,
                1 => ((seed >> 8) % 5) as f64 - 2.0,
                _ => (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0,
            }
        };
        for _ in 0..20_000 {
            for n in 1..=2 {
                let k = 1 + (next().abs() * 4.0) as usize;
                let a: Vec<f64> = (0..n * n).map(|_| next()).collect();
                let b: Vec<f64> = (0..n * k).map(|_| next()).collect();
                let (mut a1, mut b1, mut a2, mut b2) = (a.clone(), b.clone(), a.clone(), b.clone());
                let fast = solve_in_place(&mut a1, n, &mut b1, k, 1e-12);
                let general = solve_general(&mut a2, n, &mut b2, k, 1e-12);
                assert_eq!(fast, general, "{a:?} {b:?}");
                if fast {
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&b1), bits(&b2), "{a:?} {b:?}");
                }
            }
        }
    }

    #[test]
    fn reports_singular_systems() {
        let mut a = [1.0, 2.0, 2.0, 4.0];
        let mut b = [1.0, 1.0];
        assert!(!solve_in_place(&mut a, 2, &mut b, 1, 1e-12));
    }
}
