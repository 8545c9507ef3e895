//! Why an impact problem was rejected, and what is suspicious about one that
//! was accepted.

use thiserror::Error;

use crate::number::readable;

/// A reason an [`ImpactProblem`](super::ImpactProblem) could not be built.
///
/// Every error names the problem-file field it is about ([`field`](Self::field))
/// and says what is wrong with it ([`detail`](Self::detail)); its `Display` is
/// `"{field}: {detail}"`.
#[derive(Debug, Error, Clone, PartialEq)]
#[error("{}: {}", self.field(), self.detail())]
pub enum ProblemError {
    /// The problem has no generalized velocities.
    Empty,
    /// There is no contact.
    NoContacts,
    /// The mass matrix is not `n × n`.
    MassShape { rows: usize, cols: usize, n: usize },
    /// A row of a Jacobian has the wrong length.
    RowLength { contact: usize, field: &'static str, len: usize, n: usize },
    /// A non-finite (NaN or infinite) entry; `field` includes the entry's
    /// position (`velocity[1]`, `mass_matrix[0][1]`).
    NonFinite { field: String, value: f64 },
    /// An entry, or a quantity derived from the data, outside the range the
    /// arithmetic can represent with headroom (model.md §1, "Range").
    OutOfRange {
        /// The problem-file field (with position) it comes from.
        field: String,
        /// What is out of range, e.g. `|entry|` or `Jn M⁻¹ Jnᵀ`.
        quantity: String,
        /// Its value.
        value: f64,
        /// The accepted range `[low, high]` of its magnitude.
        low: f64,
        /// See `low`.
        high: f64,
    },
    /// The mass matrix is not symmetric.
    NotSymmetric { i: usize, j: usize, a: f64, b: f64 },
    /// The mass matrix is not positive definite.
    NotPositiveDefinite,
    /// A negative friction coefficient.
    NegativeFriction { contact: usize, value: f64 },
    /// A restitution coefficient outside `[0, 1]` (or not a number).
    Restitution { contact: usize, value: f64 },
    /// Contacts mix one and two tangents, or have none or more than two.
    Tangents { contact: usize, count: usize },
    /// A zero normal row (the contact cannot act on the system).
    ZeroNormal { contact: usize },
    /// A bad number of friction directions.
    FrictionDirections { d: usize, why: &'static str },
    /// The step LCP would be too large to hold and solve.
    TooLarge { m: usize, d: usize, size: usize },
    /// A bilateral constraint row has the wrong length.
    BilateralRowLength { row: usize, len: usize, n: usize },
    /// The bilateral constraints have rank `n`: they leave the system no
    /// motion.
    BilateralNoMotion { rank: usize },
    /// The bilateral constraints leave a contact's normal row no motion
    /// (`Jn M̃⁻¹ Jnᵀ ≈ 0`): the contact can neither collide nor act.
    BilateralBlocksContact { contact: usize },
    /// The singular value decomposition of the bilateral rows did not
    /// converge.
    BilateralSvd,
}

impl ProblemError {
    /// The problem-file field the error is about (`contacts[2].normal[1]`,
    /// `mass_matrix`, …).
    pub fn field(&self) -> String {
        match self {
            ProblemError::Empty => "velocity".into(),
            ProblemError::NoContacts | ProblemError::TooLarge { .. } => "contacts".into(),
            ProblemError::MassShape { .. } | ProblemError::NotSymmetric { .. } | ProblemError::NotPositiveDefinite => {
                "mass_matrix".into()
            }
            ProblemError::RowLength { contact, field, .. } => format!("contacts[{contact}].{field}"),
            ProblemError::NonFinite { field, .. } | ProblemError::OutOfRange { field, .. } => field.clone(),
            ProblemError::NegativeFriction { contact, .. } => format!("contacts[{contact}].friction"),
            ProblemError::Restitution { contact, .. } => format!("contacts[{contact}].restitution"),
            ProblemError::Tangents { contact, .. } => format!("contacts[{contact}].tangents"),
            ProblemError::ZeroNormal { contact } => format!("contacts[{contact}].normal"),
            ProblemError::FrictionDirections { .. } => "friction_directions".into(),
            ProblemError::BilateralRowLength { row, .. } => format!("bilateral[{row}]"),
            ProblemError::BilateralNoMotion { .. } | ProblemError::BilateralSvd => "bilateral".into(),
            ProblemError::BilateralBlocksContact { contact } => format!("contacts[{contact}].normal"),
        }
    }

    /// What is wrong, without the field.
    pub fn detail(&self) -> String {
        match self {
            ProblemError::Empty => "is empty: the problem has no generalized velocities (n = 0)".into(),
            ProblemError::NoContacts => "is empty: the problem has no contacts (m = 0)".into(),
            ProblemError::MassShape { rows, cols, n } => {
                format!("is {rows}×{cols}, expected {n}×{n} (velocity has {n} entries)")
            }
            ProblemError::RowLength { len, n, .. } | ProblemError::BilateralRowLength { len, n, .. } => {
                format!("has {len} entries, expected {n}")
            }
            ProblemError::NonFinite { value, .. } => format!("{value} is not a finite number"),
            ProblemError::OutOfRange { quantity, value, low, high, .. } if *low == 0.0 => format!(
                "{quantity} {value:e} exceeds {high:e} in magnitude, more than the arithmetic handles with \
                 headroom (model.md §1, Range); rescale the units"
            ),
            ProblemError::OutOfRange { quantity, value, low, high, .. } => format!(
                "{quantity} = {value:e} is outside [{low:e}, {high:e}], the range the arithmetic handles with \
                 headroom (model.md §1, Range); rescale the units"
            ),
            ProblemError::NotSymmetric { i, j, a, b } => {
                format!("is not symmetric: entry ({i},{j}) = {} but ({j},{i}) = {}", readable(*a), readable(*b))
            }
            ProblemError::NotPositiveDefinite => "is not positive definite (its Cholesky factorization fails)".into(),
            ProblemError::NegativeFriction { value, .. } => format!("{} is negative", readable(*value)),
            ProblemError::Restitution { value, .. } => {
                let value = readable(*value);
                format!("{value} is not a coefficient of restitution (0 ≤ e ≤ 1: 0 inelastic, 1 elastic)")
            }
            ProblemError::Tangents { count, .. } => {
                format!("{count} tangent rows; every contact needs 1 (planar) or 2 (spatial), all alike")
            }
            ProblemError::ZeroNormal { .. } => "the normal row is zero".into(),
            ProblemError::FrictionDirections { d, why } => format!("{d}: {why}"),
            ProblemError::TooLarge { m, d, size } => format!(
                "{m} contacts with {d} friction directions make a step LCP of size N = m(3 + d) = {size}, \
                 above the limit {} (model.md §1)",
                super::MAX_STEP_LCP_SIZE
            ),
            ProblemError::BilateralNoMotion { rank } => format!(
                "the constraint rows have rank {rank} = n: they leave the system no motion (model.md §1, \
                 Bilateral constraints)"
            ),
            ProblemError::BilateralBlocksContact { .. } => format!(
                "the bilateral constraints leave this normal row no motion (Jn M̃⁻¹ Jnᵀ ≤ {:e} Jn M⁻¹ Jnᵀ): \
                 the contact can neither collide nor act; remove it",
                super::DEAD_ROW
            ),
            ProblemError::BilateralSvd => "the singular value decomposition of the rows did not converge".into(),
        }
    }
}

/// Something legal but probably unintended about a problem: it runs, but the
/// result may not be what the user meant, or may be slow.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ProblemWarning {
    /// No contact collides: every sample ends after 0 steps with `v⁺ = v⁻`.
    #[error(
        "no contact is colliding (every (Jn v⁻)_i ≥ 0): every sample ends after 0 steps with v⁺ = v⁻; \
         normals point so that positive = separating, check their sign"
    )]
    NothingColliding,
    /// A tangent row is zero (or does not move the system): that contact's
    /// friction acts on nothing and the step LCP is degenerate (slow).
    #[error(
        "contacts[{contact}].{field}: the tangent row {what}: this contact's friction acts on nothing, \
         and the degenerate step LCPs make sampling much slower; give a unit tangent or set friction to 0"
    )]
    DeadTangent {
        /// The contact.
        contact: usize,
        /// `tangent` or `tangents[k]`.
        field: String,
        /// `is zero` or `has J M⁻¹ Jᵀ = 0`.
        what: &'static str,
    },
    /// Contacts with restitution that no velocity separates without another
    /// contact approaching (a wedge, docs/model.md §4b): their expansion
    /// only drives the other contacts into compression, so an impact takes
    /// very many steps or never ends.
    #[error(
        "contacts {contacts:?} ({}): they have restitution but are wedged: no velocity separates one of them \
         without another contact approaching, so their expansion only pushes the bodies into the other \
         contacts and an impact takes very many steps or never ends (samples rejected as unterminated); \
         set their restitution to 0, or check the normals (docs/model.md §4b)",
        names.join(", ")
    )]
    WedgedRestitution {
        /// The wedged contacts with `e > 0`, in order.
        contacts: Vec<usize>,
        /// Their names.
        names: Vec<String>,
    },
    /// `v⁻` violated the bilateral constraints and was replaced by its
    /// M-orthogonal projection onto their null space (model.md §1,
    /// "Bilateral constraints").
    #[error(
        "velocity: v⁻ violates the bilateral constraints (J_eq v⁻ ≠ 0); it was replaced by its M-orthogonal \
         projection onto their null space, a change of ‖Δv‖_M / ‖v⁻‖_M = {change:e}"
    )]
    ProjectedVelocity {
        /// `‖v⁻ − v⁻_proj‖_M / ‖v⁻‖_M`.
        change: f64,
    },
}
