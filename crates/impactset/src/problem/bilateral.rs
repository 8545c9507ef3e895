//! Bilateral (equality) constraints `J_eq v = 0` through the impact
//! (docs/model.md §1, "Bilateral constraints"): the constrained inverse
//! inertia `M̃⁻¹ = N (Nᵀ M N)⁻¹ Nᵀ` on an orthonormal basis `N` of
//! `null(J_eq)`, and the projection of `v⁻` onto that null space.

use nalgebra::{Cholesky, DMatrix, DVector, Dyn};

use super::ProblemError;

/// Rank tolerance of `J_eq`: after scaling every nonzero row to unit length,
/// a singular value at most `RANK_TOLERANCE · σ_max` counts as zero, so rows
/// that repeat or combine others to that accuracy are redundant (the null
/// space keeps the direction they almost remove).
pub const RANK_TOLERANCE: f64 = 1e-10;

/// Relative tolerance on the constraints at `v⁻`: `v⁻` is projected when some
/// row has `|(J_eq v⁻)_k| > PROJECTION_TOLERANCE · ‖row_k‖ ‖v⁻‖`, and the
/// projection is reported ([`ProblemWarning::ProjectedVelocity`]) when it
/// changed `v⁻` by more than `PROJECTION_TOLERANCE · ‖v⁻‖_M`.
///
/// [`ProblemWarning::ProjectedVelocity`]: super::ProblemWarning::ProjectedVelocity
pub const PROJECTION_TOLERANCE: f64 = 1e-12;

pub use super::DEAD_ROW;

/// Sweeps the SVD of `J_eq` may take before it is declared failed.
const SVD_SWEEPS: usize = 1000;

/// The constrained inverse inertia as `M̃⁻¹ = B Bᵀ`, `B = N L⁻ᵀ` with
/// `N` (n×k) orthonormal spanning `null(J_eq)` and `L Lᵀ = Nᵀ M N`.
#[derive(Clone, Debug)]
pub(crate) struct ConstrainedInertia {
    /// `B = N L⁻ᵀ` (n×k).
    factor: DMatrix<f64>,
}

impl ConstrainedInertia {
    /// `None` when the rows constrain nothing (all zero); an error when they
    /// leave no motion.
    pub(crate) fn new(mass: &DMatrix<f64>, rows: &DMatrix<f64>) -> Result<Option<Self>, ProblemError> {
        let n = mass.nrows();
        let basis = null_space(rows)?;
        let k = basis.ncols();
        if k == n {
            return Ok(None);
        }
        if k == 0 {
            return Err(ProblemError::BilateralNoMotion { rank: n - k });
        }
        let reduced = basis.tr_mul(&(mass * &basis));
        let reduced = (&reduced + reduced.transpose()) * 0.5;
        let chol = Cholesky::new(reduced).ok_or(ProblemError::NotPositiveDefinite)?;
        let l_inv_nt =
            chol.l().solve_lower_triangular(&basis.transpose()).expect("a Cholesky factor has a positive diagonal");
        Ok(Some(ConstrainedInertia { factor: l_inv_nt.transpose() }))
    }

    /// `M̃⁻¹` (n×n), symmetrized.
    pub(crate) fn inverse(&self) -> DMatrix<f64> {
        let inv = &self.factor * self.factor.transpose();
        (&inv + inv.transpose()) * 0.5
    }

    /// `(M̃⁻¹ Jᵀ, J M̃⁻¹ Jᵀ)`, the Delassus matrix symmetrized.
    pub(crate) fn apply(&self, j: &DMatrix<f64>) -> (DMatrix<f64>, DMatrix<f64>) {
        let g = j * &self.factor;
        let minv_jt = &self.factor * g.transpose();
        let w = &g * g.transpose();
        (minv_jt, (&w + w.transpose()) * 0.5)
    }

    /// The M-orthogonal projection of `v` onto `null(J_eq)`,
    /// `M̃⁻¹ M v = v − M⁻¹J_eqᵀ (J_eq M⁻¹ J_eqᵀ)⁺ J_eq v`, computed in the
    /// range of `N` so that `J_eq` of it vanishes to rounding.
    pub(crate) fn project(&self, mass: &DMatrix<f64>, v: &DVector<f64>) -> DVector<f64> {
        &self.factor * self.factor.tr_mul(&(mass * v))
    }
}

/// Whether `v` violates some row of `rows` by more than
/// [`PROJECTION_TOLERANCE`] relative to `‖row‖ ‖v‖`.
pub(crate) fn violates(rows: &DMatrix<f64>, v: &DVector<f64>) -> bool {
    let v_norm = v.norm();
    rows.row_iter().any(|row| (row * v)[0].abs() > PROJECTION_TOLERANCE * row_norm(&row.transpose()) * v_norm)
}

/// `‖row‖`, also where the sum of squares would under- or overflow (a row
/// of entries near 1e-160 or 1e160 and beyond): then taken after dividing
/// by the largest entry, so rows of any representable size have their
/// norm. Ordinary rows get `√(Σ row²)` as it is.
fn row_norm(row: &DVector<f64>) -> f64 {
    let squares = row.norm_squared();
    if squares.is_finite() && squares >= f64::MIN_POSITIVE || squares == 0.0 && row.amax() == 0.0 {
        return squares.sqrt();
    }
    let largest = row.amax();
    largest * (row / largest).norm()
}

/// An orthonormal basis (n×k, columns) of the null space of `rows`, rank
/// decided after scaling each nonzero row to unit length ([`RANK_TOLERANCE`]).
fn null_space(rows: &DMatrix<f64>) -> Result<DMatrix<f64>, ProblemError> {
    let n = rows.ncols();
    // At least n rows, so that the SVD's Vᵀ is a full n×n basis.
    let mut a = DMatrix::zeros(rows.nrows().max(n), n);
    for (k, row) in rows.row_iter().enumerate() {
        let norm = row_norm(&row.transpose());
        if norm > 0.0 {
            a.row_mut(k).copy_from(&(row / norm));
        }
    }
    let svd = nalgebra::SVD::<f64, Dyn, Dyn>::try_new(a, false, true, f64::EPSILON, SVD_SWEEPS)
        .ok_or(ProblemError::BilateralSvd)?;
    let v_t = svd.v_t.expect("computed");
    let sigma = &svd.singular_values;
    let sigma_max = sigma.iter().fold(0.0f64, |a, &x| a.max(x));
    let null: Vec<usize> = (0..sigma.len()).filter(|&i| sigma[i] <= RANK_TOLERANCE * sigma_max).collect();
    Ok(DMatrix::from_fn(n, null.len(), |r, c| v_t[(null[c], r)]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{dmatrix, dvector};

    #[test]
    fn null_space_is_orthonormal_and_annihilated_and_ignores_duplicates() {
        let rows = dmatrix![1.0, -1.0, 0.0, 0.0; 2.0, -2.0, 0.0, 0.0; 0.0, 0.0, 1.0, 1.0];
        let n = null_space(&rows).unwrap();
        assert_eq!(n.ncols(), 2);
        assert!((n.tr_mul(&n) - DMatrix::identity(2, 2)).amax() < 1e-14);
        assert!((&rows * &n).amax() < 1e-14);
        assert_eq!(null_space(&DMatrix::zeros(2, 3)).unwrap().ncols(), 3);
    }

    #[test]
    fn projection_is_m_orthogonal_and_idempotent() {
        let mass = dmatrix![2.0, 0.3, 0.0; 0.3, 1.0, 0.1; 0.0, 0.1, 3.0];
        let rows = dmatrix![1.0, 1.0, -1.0];
        let c = ConstrainedInertia::new(&mass, &rows).unwrap().unwrap();
        let v = dvector![1.0, -2.0, 0.5];
        let p = c.project(&mass, &v);
        assert!((&rows * &p).amax() < 1e-14);
        // (v − p) is M-orthogonal to every null-space vector.
        for x in [dvector![1.0, 0.0, 1.0], dvector![0.0, 1.0, 1.0]] {
            assert!(((&v - &p).dot(&(&mass * x))).abs() < 1e-13);
        }
        assert!(!violates(&rows, &p));
        assert!(violates(&rows, &v));
        // The closed form v − M⁻¹J_eqᵀ (J_eq M⁻¹ J_eqᵀ)⁻¹ J_eq v.
        let minv = mass.clone().try_inverse().unwrap();
        let s = (&rows * &minv * rows.transpose())[(0, 0)];
        let closed = &v - &minv * rows.transpose() * ((&rows * &v)[0] / s);
        assert!((&p - closed).amax() < 1e-14);
    }

    #[test]
    fn rows_of_tiny_or_huge_entries_constrain_as_their_unit_rows() {
        let mass = dmatrix![2.0, 0.3, 0.0; 0.3, 1.0, 0.1; 0.0, 0.1, 3.0];
        let unit = ConstrainedInertia::new(&mass, &dmatrix![1.0, 1.0, -1.0]).unwrap().unwrap().inverse();
        for size in [1e-200, 1e-170, 1e170, 1e300] {
            let rows = dmatrix![size, size, -size];
            let c = ConstrainedInertia::new(&mass, &rows).unwrap().expect("the row constrains");
            assert!((c.inverse() - &unit).amax() < 1e-14, "row size {size:e}");
            let v = dvector![1.0, -2.0, 0.5];
            assert!(violates(&rows, &v), "row size {size:e}");
            assert!(!violates(&rows, &c.project(&mass, &v)), "row size {size:e}");
        }
    }

    #[test]
    fn full_rank_rows_leave_no_motion() {
        let e = ConstrainedInertia::new(&DMatrix::identity(2, 2), &dmatrix![1.0, 0.0; 1.0, 1.0]).unwrap_err();
        assert_eq!(e, ProblemError::BilateralNoMotion { rank: 2 });
    }
}
