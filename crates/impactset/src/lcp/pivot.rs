//! What both Lemke implementations share (the dense tableau of
//! `lemke.rs` and the product form of `eta.rs`, docs/model.md §9): the
//! tolerances of a solve, the tied comparison of the ratio test (and the
//! branch-free search for a clearly extreme ratio built on it) and the
//! complement of a variable.

use std::cmp::Ordering;

/// The two tolerances of one solve.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tolerances {
    /// Column entries at most this are not pivots.
    pub(super) pivot: f64,
    /// Relative tie tolerance of the ratio test.
    pub(super) tie: f64,
}

/// The half-width of the band within which [`compare_tied`] finds `x` and
/// `y` equal: `tie · max(1, |x|, |y|)`.
#[inline(always)]
fn tie_band(x: f64, y: f64, tie: f64) -> f64 {
    tie * 1f64.max(x.abs()).max(y.abs())
}

/// Compares `x` and `y` with a relative tie tolerance.
pub(super) fn compare_tied(x: f64, y: f64, tie: f64) -> Ordering {
    let band = tie_band(x, y, tie);
    if x < y - band {
        Ordering::Less
    } else if x > y + band {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// Whether `z₀` leaves instead of row `least`, whose ratio is the least
/// (`entry(i)` is row `i`'s entry `a_i` in the entering column and its
/// right-hand side `x_i`): when `z₀`'s ratio `θ₀` ties with the least, or
/// when moving the entering variable to `θ₀` (which ends the path at a
/// solution) leaves every candidate row feasible to the tie tolerance,
/// `x_i − θ₀ a_i ≥ −tie · max(1, |x_i|)`. The second case is round-off's:
/// as `z₀` nears 0 the entering column's entries in `z₀`'s row and in the
/// least row can both be round-off (1e-11 against entries of order 1),
/// their ratios apart by more than the tie while the rows would move by
/// less than it. Pivoting on the least row's round-off puts its inverse
/// (4e10 there) into every later column: on a random step LCP
/// (tests/lemke.rs) the path went on and ended at a point with `w` down to
/// −0.1.
#[inline(always)]
pub(super) fn z0_leaves(
    n: usize,
    least: usize,
    z0_row: usize,
    tol: Tolerances,
    entry: impl Fn(usize) -> (f64, f64),
) -> bool {
    let (a0, x0) = entry(z0_row);
    if least == z0_row || a0 <= tol.pivot {
        return false;
    }
    let theta0 = x0 / a0;
    let (a, x) = entry(least);
    if compare_tied(theta0, x / a, tol.tie) == Ordering::Equal {
        return true;
    }
    let feasible = |(a, x): (f64, f64)| a <= tol.pivot || x - theta0 * a >= -tol.tie * x.abs().max(1.0);
    feasible((a, x)) && (0..n).all(|i| feasible(entry(i)))
}

/// `z₀`'s row where [`z0_leaves`] says it leaves instead of row `least`,
/// else `least`, from the entering column `col` and the right-hand side.
#[inline(always)]
pub(super) fn z0_or_least(col: &[f64], rhs: &[f64], least: usize, z0_row: usize, tol: Tolerances) -> usize {
    if z0_leaves(col.len(), least, z0_row, tol, |i| (col[i], rhs[i])) { z0_row } else { least }
}

/// The complement of variable `v` (`w_j ↔ z_j`).
pub(super) fn complement(v: usize, n: usize) -> usize {
    if v < n { v + n } else { v - n }
}

/// The row whose ratio is clearly the least (`LEAST`) of the rows with a
/// pivot in `col`, or clearly the greatest of all rows: every other row
/// compares on the other side of it both ways round (`compare_tied(x, y)`
/// and `compare_tied(y, x)`, which round-off can make disagree), so that a
/// scan comparing the rows pairwise in any order keeps that row and meets
/// no tie. `None` when no row is clearly extreme. Branch-free per row.
#[inline(always)]
pub(super) fn clearly_extreme<const LEAST: bool>(col: &[f64], ratio: &[f64], tol: Tolerances) -> Option<usize> {
    // Extremes as one comparison and a select (`f64::min` also orders NaNs,
    // which can win neither way): the extreme is the same value in any
    // order, and the sign of a zero extreme changes none of the tests below.
    let mut extreme = if LEAST { f64::INFINITY } else { f64::NEG_INFINITY };
    for (&a, &r) in col.iter().zip(ratio) {
        let candidate = !LEAST || a > tol.pivot;
        let further = if LEAST { r < extreme } else { r > extreme };
        extreme = if candidate & further { r } else { extreme };
    }
    // `tie_band(r, extreme)` is `tie · max(floor, |r|)`.
    let floor = 1f64.max(extreme.abs());
    let (mut near, mut at) = (0, 0);
    for (i, (&a, &r)) in col.iter().zip(ratio).enumerate() {
        let band = tol.tie * if r.abs() > floor { r.abs() } else { floor };
        let (low, high) = if LEAST { (extreme, r) } else { (r, extreme) };
        // `compare_tied(high, low)` is Greater and `compare_tied(low, high)`
        // Less, without its branches.
        let clear = (high > low + band) & (low < high - band);
        let here = (!LEAST || a > tol.pivot) & !clear;
        near += usize::from(here);
        at = if here { i } else { at };
    }
    (near == 1).then_some(at)
}
