//! Why an impact problem was rejected.

use thiserror::Error;

/// A reason an [`ImpactProblem`](super::ImpactProblem) could not be built.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ProblemError {
    /// The problem has no generalized velocities.
    #[error("the problem has no generalized velocities (n = 0)")]
    Empty,
    /// There is no contact.
    #[error("the problem has no contacts (m = 0)")]
    NoContacts,
    /// The mass matrix is not `n × n`.
    #[error("mass_matrix is {rows}×{cols}, expected {n}×{n} (velocity has {n} entries)")]
    MassShape { rows: usize, cols: usize, n: usize },
    /// A row of a Jacobian has the wrong length.
    #[error("contact {contact}: {field} has {len} entries, expected {n}")]
    RowLength { contact: usize, field: &'static str, len: usize, n: usize },
    /// A non-finite (NaN or infinite) entry.
    #[error("{field} has a non-finite entry ({value}) at {position}")]
    NonFinite { field: String, position: String, value: f64 },
    /// The mass matrix is not symmetric.
    #[error("mass_matrix is not symmetric: entry ({i},{j}) = {a} but ({j},{i}) = {b}")]
    NotSymmetric { i: usize, j: usize, a: f64, b: f64 },
    /// The mass matrix is not positive definite.
    #[error("mass_matrix is not positive definite (its Cholesky factorization fails)")]
    NotPositiveDefinite,
    /// A negative friction coefficient.
    #[error("contact {contact}: friction {value} is negative")]
    NegativeFriction { contact: usize, value: f64 },
    /// Contacts mix one and two tangents, or have none or more than two.
    #[error("contact {contact}: {count} tangent rows; every contact needs 1 (planar) or 2 (spatial), all alike")]
    Tangents { contact: usize, count: usize },
    /// A zero normal row (the contact cannot act on the system).
    #[error("contact {contact}: the normal row is zero")]
    ZeroNormal { contact: usize },
    /// A bad number of friction directions.
    #[error("friction_directions = {d}: {why}")]
    FrictionDirections { d: usize, why: &'static str },
}
