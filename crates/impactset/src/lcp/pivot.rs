//! What both Lemke implementations share (the dense tableau of
//! `lemke.rs` and the product form of `eta.rs`, docs/model.md §9): the
//! tolerances of a solve, the tied comparison of the ratio test and the
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

/// The complement of variable `v` (`w_j ↔ z_j`).
pub(super) fn complement(v: usize, n: usize) -> usize {
    if v < n { v + n } else { v - n }
}
