//! The per-problem constants every LCP of every step reuses (docs/model.md §1, §2, §4).

use nalgebra::{DMatrix, DVector};

use super::bilateral::ConstrainedInertia;
use super::{Contact, Dimension, ProblemError, cone};

/// Constants of one impact problem, computed once and shared by all steps and
/// samples (and uploaded once to the GPU).
///
/// Impulse coordinates are `λ = [λn (m); λD (m·d)]`, grouped by contact, so
/// `J = [Jn; JD]` has `m + m·d` rows.
#[derive(Clone, Debug)]
pub struct ContactOperators {
    /// Number of generalized velocities.
    pub n: usize,
    /// Number of contacts.
    pub m: usize,
    /// Friction directions per contact.
    pub d: usize,
    /// Planar or spatial.
    pub dimension: Dimension,
    /// Normal rows `Jn` (m×n).
    pub jn: DMatrix<f64>,
    /// Tangent rows `Jt` ((m·t)×n).
    pub jt: DMatrix<f64>,
    /// `J = [Jn; JD]` ((m + m·d)×n).
    pub j: DMatrix<f64>,
    /// Coefficients of each friction direction on the contact's tangents.
    pub directions: Vec<[f64; 2]>,
    /// Friction coefficients `μ` (m).
    pub friction: Vec<f64>,
    /// `M⁻¹` (n×n); with bilateral constraints the constrained inverse
    /// inertia `M̃⁻¹ = N (Nᵀ M N)⁻¹ Nᵀ` (symmetric PSD, singular; model.md §1),
    /// as are the two fields below.
    pub mass_inv: DMatrix<f64>,
    /// `M⁻¹ Jᵀ` (n×(m + m·d)): `Δv = M⁻¹Jᵀ λ`.
    pub minv_jt: DMatrix<f64>,
    /// The Delassus matrix `J M⁻¹ Jᵀ` ((m + m·d)², symmetric PSD): `Δ(Jv) = W λ`.
    pub delassus: DMatrix<f64>,
    /// The step-LCP matrix `A_R` of docs/model.md §4, row-major, `N × N` with
    /// `N = m(3 + d)` (see [`StepLayout`]).
    pub step_matrix: Vec<f64>,
}

/// Where each unknown of the Routh step LCP lives (docs/model.md §4):
/// `z = [σ (m); λn (m); λD (m·d); γ (m)]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepLayout {
    /// Contacts.
    pub m: usize,
    /// Friction directions per contact.
    pub d: usize,
}

impl StepLayout {
    /// LCP size `N = m(3 + d)`.
    pub fn size(self) -> usize {
        self.m * (3 + self.d)
    }
    /// Index of `σ_i`.
    pub fn sigma(self, i: usize) -> usize {
        i
    }
    /// Index of `λn_i`.
    pub fn lambda_n(self, i: usize) -> usize {
        self.m + i
    }
    /// Index of `λD_(i,k)`.
    pub fn lambda_d(self, i: usize, k: usize) -> usize {
        2 * self.m + i * self.d + k
    }
    /// Index of `γ_i`.
    pub fn gamma(self, i: usize) -> usize {
        2 * self.m + self.m * self.d + i
    }
    /// Impulse coordinates `λ = [λn; λD]` are the LCP unknowns `m..m(2+d)`.
    pub fn impulses(self) -> std::ops::Range<usize> {
        self.m..self.m * (2 + self.d)
    }
}

impl ContactOperators {
    pub(super) fn new(
        mass: &DMatrix<f64>,
        velocity: &DVector<f64>,
        contacts: &[Contact],
        dimension: Dimension,
        d: usize,
        constrained: Option<&ConstrainedInertia>,
    ) -> Result<Self, ProblemError> {
        let n = velocity.len();
        let m = contacts.len();
        let t = dimension.tangents();
        let directions: Vec<[f64; 2]> = (0..d).map(|k| cone::direction(dimension, d, k)).collect();
        let jn = DMatrix::from_fn(m, n, |i, c| contacts[i].normal[c]);
        let jt = DMatrix::from_fn(m * t, n, |r, c| contacts[r / t].tangents[r % t][c]);
        let j = DMatrix::from_fn(m + m * d, n, |r, c| {
            if r < m {
                return jn[(r, c)];
            }
            let (i, k) = ((r - m) / d, (r - m) % d);
            (0..t).map(|a| directions[k][a] * jt[(i * t + a, c)]).sum()
        });
        let (mass_inv, minv_jt, delassus) = match constrained {
            None => {
                let cholesky = mass.clone().cholesky().ok_or(ProblemError::NotPositiveDefinite)?;
                let mass_inv = cholesky.inverse();
                let minv_jt = cholesky.solve(&j.transpose());
                let mut delassus = &j * &minv_jt;
                delassus = (&delassus + delassus.transpose()) * 0.5;
                (mass_inv, minv_jt, delassus)
            }
            Some(c) => {
                let (minv_jt, delassus) = c.apply(&j);
                (c.inverse(), minv_jt, delassus)
            }
        };
        let friction: Vec<f64> = contacts.iter().map(|c| c.friction).collect();
        let step_matrix = step_matrix(&delassus, &friction, StepLayout { m, d });
        Ok(ContactOperators {
            n,
            m,
            d,
            dimension,
            jn,
            jt,
            j,
            directions,
            friction,
            mass_inv,
            minv_jt,
            delassus,
            step_matrix,
        })
    }

    /// The step-LCP layout.
    pub fn layout(&self) -> StepLayout {
        StepLayout { m: self.m, d: self.d }
    }

    /// Step-LCP size `N = m(3 + d)`.
    pub fn step_size_n(&self) -> usize {
        self.layout().size()
    }

    /// `max_r W_rr` over the normal and friction-direction rows: the
    /// largest velocity change per unit impulse, so `s / max_r W_rr` is the
    /// impulse unit of a problem of velocity scale `s` (model.md §9, §10).
    pub fn largest_mobility(&self) -> f64 {
        self.delassus.diagonal().iter().fold(0.0f64, |a, &x| a.max(x))
    }
}

/// `A_R` of docs/model.md §4, row-major:
///
/// ```text
///        σ    λn        λD        γ
/// σ   |  0   −I         0         0 |
/// λn  |  I   Jn M⁻¹Jnᵀ  Jn M⁻¹JDᵀ 0 |
/// λD  |  0   JD M⁻¹Jnᵀ  JD M⁻¹JDᵀ E |
/// γ   |  0   U          −Eᵀ       0 |
/// ```
pub(crate) fn step_matrix(delassus: &DMatrix<f64>, friction: &[f64], layout: StepLayout) -> Vec<f64> {
    let StepLayout { m, d } = layout;
    let size = layout.size();
    let mut a = vec![0.0; size * size];
    let mut set = |r: usize, c: usize, x: f64| a[r * size + c] = x;
    let impulses = m + m * d;
    for (i, &mu) in friction.iter().enumerate() {
        set(layout.sigma(i), layout.lambda_n(i), -1.0);
        set(layout.lambda_n(i), layout.sigma(i), 1.0);
        set(layout.gamma(i), layout.lambda_n(i), mu);
        for k in 0..d {
            set(layout.lambda_d(i, k), layout.gamma(i), 1.0);
            set(layout.gamma(i), layout.lambda_d(i, k), -1.0);
        }
    }
    for r in 0..impulses {
        for c in 0..impulses {
            set(m + r, m + c, delassus[(r, c)]);
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use crate::{Contact, ImpactProblem};
    use nalgebra::{dmatrix, dvector};

    #[test]
    fn delassus_is_j_minv_jt_and_step_matrix_has_the_documented_blocks() {
        let mass = dmatrix![2.0, 0.3; 0.3, 1.0];
        let c = Contact::planar("A", dvector![0.2, 1.0], dvector![1.0, -0.2], 0.7);
        let p = ImpactProblem::new(mass.clone(), dvector![0.0, -1.0], vec![c]).unwrap();
        let ops = p.operators();
        let expected = &ops.j * mass.clone().try_inverse().unwrap() * ops.j.transpose();
        assert!((&ops.delassus - expected).amax() < 1e-14);
        // JD rows are ±Jt in the plane.
        assert_eq!(ops.j.row(1), ops.jt.row(0));
        assert_eq!(ops.j.row(2), -ops.jt.row(0));
        let l = ops.layout();
        let n = l.size();
        let a = |r: usize, c: usize| ops.step_matrix[r * n + c];
        assert_eq!(n, 5);
        assert_eq!(a(l.sigma(0), l.lambda_n(0)), -1.0);
        assert_eq!(a(l.lambda_n(0), l.sigma(0)), 1.0);
        assert_eq!(a(l.gamma(0), l.lambda_n(0)), 0.7);
        assert_eq!(a(l.gamma(0), l.lambda_d(0, 1)), -1.0);
        assert_eq!(a(l.lambda_d(0, 1), l.gamma(0)), 1.0);
        assert_eq!(a(l.lambda_n(0), l.lambda_d(0, 0)), ops.delassus[(0, 1)]);
    }
}
