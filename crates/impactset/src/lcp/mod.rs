//! Linear complementarity problems: find `z` with
//! `w = A z + q ≥ 0`, `z ≥ 0`, `zᵀ w = 0`.
//!
//! [`LemkeWorkspace`] is a dense, lexicographic Lemke solver (Lemke 1965;
//! Cottle, Pang & Stone, *The Linear Complementarity Problem*, §4.4) with a
//! reusable workspace; [`LcpResidual`] measures any candidate solution.

/// Evaluates `$body` with the const `$N` bound to the LCP size `$n` when it
/// is a common step-LCP size (`5m` for planar contacts, `11m` for spatial
/// ones with eight friction directions), else to [`ANY_SIZE`]: code generic
/// in the size then runs compiled for it, with its loops unrolled, and the
/// same arithmetic.
macro_rules! with_size {
    ($n:expr, $N:ident => $body:expr) => {
        match $n {
            5 => {
                const $N: usize = 5;
                $body
            }
            10 => {
                const $N: usize = 10;
                $body
            }
            11 => {
                const $N: usize = 11;
                $body
            }
            15 => {
                const $N: usize = 15;
                $body
            }
            20 => {
                const $N: usize = 20;
                $body
            }
            22 => {
                const $N: usize = 22;
                $body
            }
            25 => {
                const $N: usize = 25;
                $body
            }
            _ => {
                const $N: usize = $crate::lcp::ANY_SIZE;
                $body
            }
        }
    };
}

/// The const size parameter of a size-generic function meaning "the size
/// given at run time" (see `with_size!`).
pub(crate) const ANY_SIZE: usize = 0;

/// The size a function generic in `N` works with.
#[inline(always)]
pub(crate) fn size<const N: usize>(n: usize) -> usize {
    if N == ANY_SIZE { n } else { N }
}

/// Whether the processor has AVX2 (the check is cached by `std`). Code
/// compiled for it does the same IEEE operations in the same order as the
/// baseline build, on wider vectors (Rust never fuses a multiply and an add
/// on its own), so its results are the same bit for bit.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

mod enumerate;
mod error;
mod eta;
#[cfg(test)]
mod fixtures;
mod lemke;
mod memo;
pub mod norms;
mod pivot;
mod residual;

pub use enumerate::basic_solutions;
pub use error::LcpError;
pub use lemke::{
    DEFAULT_RESIDUAL_TOLERANCE, DEFAULT_TIE_TOLERANCE, LcpMatrix, LcpSolution, LemkeOptions, LemkeWorkspace, solve_lcp,
};
pub use residual::LcpResidual;
