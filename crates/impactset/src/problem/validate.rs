//! The checks an [`ImpactProblem`](super::ImpactProblem) passes before it
//! is built (docs/model.md §1): shapes, finite entries within the range,
//! a symmetric mass matrix, non-negative friction, nonzero normals, friction
//! directions, and contacts the bilateral constraints leave free to act.

use nalgebra::DMatrix;

use super::{Contact, ContactOperators, DEAD_ROW, Dimension, ProblemError, RANGE, cone};

/// With bilateral constraints: a contact whose normal row no longer moves
/// the system (`Jn M̃⁻¹ Jnᵀ ≤ 10⁻¹² Jn M⁻¹ Jnᵀ`) is refused, as a zero
/// normal row is.
pub(super) fn check_blocked_contacts(mass: &DMatrix<f64>, ops: &ContactOperators) -> Result<(), ProblemError> {
    let cholesky = mass.clone().cholesky().ok_or(ProblemError::NotPositiveDefinite)?;
    for i in 0..ops.m {
        let row = ops.jn.row(i).transpose();
        let free = row.dot(&cholesky.solve(&row));
        if ops.delassus[(i, i)] <= DEAD_ROW * free {
            return Err(ProblemError::BilateralBlocksContact { contact: i });
        }
    }
    Ok(())
}

/// The problem-file field of contact `i`'s tangent rows.
pub(super) fn tangent_field(dimension: Dimension, i: usize) -> String {
    match dimension {
        Dimension::Planar => format!("contacts[{i}].tangent"),
        Dimension::Spatial => format!("contacts[{i}].tangents"),
    }
}

/// Every entry finite and at most [`RANGE`] in magnitude; errors name the
/// entry (`velocity[1]`, `mass_matrix[0][1]`: row, column), scanned row by
/// row.
pub(super) fn check_finite<R: nalgebra::Dim, C: nalgebra::Dim, S: nalgebra::RawStorage<f64, R, C>>(
    field: &str,
    x: &nalgebra::Matrix<f64, R, C, S>,
) -> Result<(), ProblemError> {
    for i in 0..x.nrows() {
        for j in 0..x.ncols() {
            let value = x[(i, j)];
            let field = || if x.ncols() == 1 { format!("{field}[{i}]") } else { format!("{field}[{i}][{j}]") };
            if !value.is_finite() {
                return Err(ProblemError::NonFinite { field: field(), value });
            }
            if value.abs() > RANGE {
                return Err(ProblemError::OutOfRange {
                    field: field(),
                    quantity: "entry".into(),
                    value,
                    low: 0.0,
                    high: RANGE,
                });
            }
        }
    }
    Ok(())
}

pub(super) fn check_contacts(contacts: &[Contact], n: usize) -> Result<Dimension, ProblemError> {
    let tangents = contacts[0].tangents.len();
    let dimension = match tangents {
        1 => Dimension::Planar,
        2 => Dimension::Spatial,
        count => return Err(ProblemError::Tangents { contact: 0, count }),
    };
    for (i, c) in contacts.iter().enumerate() {
        if c.tangents.len() != tangents {
            return Err(ProblemError::Tangents { contact: i, count: c.tangents.len() });
        }
        if c.normal.len() != n {
            return Err(ProblemError::RowLength { contact: i, field: "normal", len: c.normal.len(), n });
        }
        check_finite(&format!("contacts[{i}].normal"), &c.normal)?;
        for (a, t) in c.tangents.iter().enumerate() {
            let field =
                if tangents == 1 { format!("contacts[{i}].tangent") } else { format!("contacts[{i}].tangents[{a}]") };
            if t.len() != n {
                return Err(ProblemError::RowLength { contact: i, field: "tangent", len: t.len(), n });
            }
            check_finite(&field, t)?;
        }
        if !c.friction.is_finite() {
            return Err(ProblemError::NonFinite { field: format!("contacts[{i}].friction"), value: c.friction });
        }
        if c.friction > RANGE {
            return Err(ProblemError::OutOfRange {
                field: format!("contacts[{i}].friction"),
                quantity: "μ".into(),
                value: c.friction,
                low: 0.0,
                high: RANGE,
            });
        }
        if c.friction < 0.0 {
            return Err(ProblemError::NegativeFriction { contact: i, value: c.friction });
        }
        check_restitution(i, c.restitution)?;
        if c.normal.amax() == 0.0 {
            return Err(ProblemError::ZeroNormal { contact: i });
        }
    }
    Ok(dimension)
}

/// A coefficient of restitution in `[0, 1]` (not a NaN).
pub(super) fn check_restitution(contact: usize, value: f64) -> Result<(), ProblemError> {
    if (0.0..=1.0).contains(&value) { Ok(()) } else { Err(ProblemError::Restitution { contact, value }) }
}

pub(super) fn check_symmetric(mass: &DMatrix<f64>) -> Result<(), ProblemError> {
    let scale = mass.amax().max(f64::MIN_POSITIVE);
    for i in 0..mass.nrows() {
        for j in 0..i {
            let (a, b) = (mass[(i, j)], mass[(j, i)]);
            if (a - b).abs() > 1e-12 * scale {
                return Err(ProblemError::NotSymmetric { i, j, a, b });
            }
        }
    }
    Ok(())
}

pub(super) fn check_directions(dimension: Dimension, d: Option<usize>) -> Result<usize, ProblemError> {
    match (dimension, d) {
        (Dimension::Planar, None | Some(2)) => Ok(2),
        (Dimension::Planar, Some(d)) => {
            Err(ProblemError::FrictionDirections { d, why: "planar contacts have exactly 2 directions (±t)" })
        }
        (Dimension::Spatial, None) => Ok(cone::DEFAULT_SPATIAL_DIRECTIONS),
        (Dimension::Spatial, Some(d)) if d % 2 == 1 => {
            Err(ProblemError::FrictionDirections { d, why: "must be even (the cone is symmetric)" })
        }
        (Dimension::Spatial, Some(d)) if d < cone::MIN_SPATIAL_DIRECTIONS => {
            Err(ProblemError::FrictionDirections { d, why: "spatial contacts need at least 4 directions" })
        }
        (Dimension::Spatial, Some(d)) if d > cone::MAX_SPATIAL_DIRECTIONS => Err(ProblemError::FrictionDirections {
            d,
            why: "spatial contacts take at most 62 directions (the contact-mode search's limit)",
        }),
        (Dimension::Spatial, Some(d)) => Ok(d),
    }
}
