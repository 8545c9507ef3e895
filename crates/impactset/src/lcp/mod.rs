//! Linear complementarity problems: find `z` with
//! `w = A z + q ≥ 0`, `z ≥ 0`, `zᵀ w = 0`.
//!
//! [`LemkeWorkspace`] is a dense, lexicographic Lemke solver (Lemke 1965;
//! Cottle, Pang & Stone, *The Linear Complementarity Problem*, §4.4) with a
//! reusable workspace; [`LcpResidual`] measures any candidate solution.

mod enumerate;
mod error;
mod eta;
mod lemke;
pub mod norms;
mod residual;

pub use enumerate::basic_solutions;
pub use error::LcpError;
pub use lemke::{
    DEFAULT_RESIDUAL_TOLERANCE, DEFAULT_TIE_TOLERANCE, LcpSolution, LemkeOptions, LemkeWorkspace, solve_lcp,
};
pub use residual::LcpResidual;
