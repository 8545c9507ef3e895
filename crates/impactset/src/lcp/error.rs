//! Why Lemke's algorithm stopped without a solution.

use thiserror::Error;

/// A failure of [`LemkeWorkspace::solve`](super::LemkeWorkspace::solve).
#[derive(Debug, Error, Clone, Copy, PartialEq, Eq)]
pub enum LcpError {
    /// Secondary ray: the entering column has no positive entry. For a
    /// copositive-plus matrix this proves the LCP infeasible.
    #[error("Lemke's algorithm ended on a secondary ray after {pivots} pivots (the LCP has no solution)")]
    Ray {
        /// Pivots performed.
        pivots: usize,
    },
    /// The pivot cap was reached (cycling is impossible with the
    /// lexicographic rule, so this means an exponentially long path or a
    /// numerically broken tableau).
    #[error("Lemke's algorithm reached its cap of {pivots} pivots")]
    PivotLimit {
        /// Pivots performed.
        pivots: usize,
    },
    /// The path ended, but at a `z` whose residual exceeds the tolerance
    /// (an ill-conditioned matrix): no solution was found. Raised by callers
    /// that need a solution (the Routh step) when
    /// [`LcpSolution::within_tolerance`](super::LcpSolution::within_tolerance)
    /// is `false`.
    #[error("Lemke's algorithm ended after {pivots} pivots at a point whose residual exceeds the tolerance")]
    Inaccurate {
        /// Pivots performed.
        pivots: usize,
    },
    /// A covering vector whose length is not the LCP's size.
    #[error("a covering vector of length {got} for an LCP of size {expected}")]
    CoverSize {
        /// The LCP's size `N`.
        expected: usize,
        /// The covering vector's length.
        got: usize,
    },
    /// Problem data and workspace sizes disagree.
    #[error("LCP data of size {got} given to a workspace of size {expected}")]
    Size {
        /// The workspace's size.
        expected: usize,
        /// The data's size.
        got: usize,
    },
}
