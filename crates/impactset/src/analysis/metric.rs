//! Metrics on generalized velocities (docs/model.md §6): every metric here is a
//! linear map `x ↦ T x` followed by the Euclidean norm, so that nearest
//! neighbours can be searched with a k-d tree in the transformed coordinates.

use std::fmt;
use std::str::FromStr;

use nalgebra::DMatrix;

use crate::ImpactProblem;

/// How distances between generalized velocities are measured.
///
/// | metric | `‖x‖` | coordinates `T x` |
/// |---|---|---|
/// | [`Energy`](Metric::Energy) (default) | `√(xᵀ M x)` | `Lᵀ x` with `M = L Lᵀ` (Cholesky) |
/// | [`Euclidean`](Metric::Euclidean) | `√(xᵀ x)` | `x` |
/// | [`Contact`](Metric::Contact) | `‖[Jn; Jt] x‖` | `[Jn; Jt] x` (`m + m·t` entries) |
///
/// The energy norm is unit-consistent (generalized velocities mix m/s and
/// rad/s) and is the default. Contact coordinates are what the plots show;
/// when `[Jn; Jt]` has rank below `n` the contact "metric" is only a
/// pseudo-metric (velocities that differ away from the contacts are at
/// distance 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// The kinetic-energy norm `‖x‖_M = √(xᵀ M x)`.
    #[default]
    Energy,
    /// The plain Euclidean norm of the generalized velocity.
    Euclidean,
    /// The Euclidean norm of the contact velocities `(Jn x, Jt x)`.
    Contact,
}

impl Metric {
    /// All metrics, in documentation order.
    pub const ALL: [Metric; 3] = [Metric::Energy, Metric::Euclidean, Metric::Contact];

    /// The name used on the command line and in JSON (`energy`, `euclidean`,
    /// `contact`).
    pub fn name(self) -> &'static str {
        match self {
            Metric::Energy => "energy",
            Metric::Euclidean => "euclidean",
            Metric::Contact => "contact",
        }
    }

    /// The linear map `T` of this metric for `problem`.
    pub fn embedding(self, problem: &ImpactProblem) -> Embedding {
        let n = problem.n();
        let matrix = match self {
            Metric::Energy => {
                // `M` was validated SPD when the problem was built.
                let chol = nalgebra::Cholesky::new(problem.mass().clone())
                    .expect("ImpactProblem guarantees a positive definite mass matrix");
                chol.l().transpose()
            }
            Metric::Euclidean => DMatrix::identity(n, n),
            Metric::Contact => {
                let ops = problem.operators();
                let mut t = DMatrix::zeros(ops.jn.nrows() + ops.jt.nrows(), n);
                t.rows_mut(0, ops.jn.nrows()).copy_from(&ops.jn);
                t.rows_mut(ops.jn.nrows(), ops.jt.nrows()).copy_from(&ops.jt);
                t
            }
        };
        Embedding { metric: self, matrix }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown metric name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown metric `{0}` (expected energy, euclidean or contact)")]
pub struct UnknownMetric(pub String);

impl FromStr for Metric {
    type Err = UnknownMetric;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Metric::ALL.into_iter().find(|m| m.name().eq_ignore_ascii_case(s)).ok_or_else(|| UnknownMetric(s.to_string()))
    }
}

/// The coordinates `x ↦ T x` of a [`Metric`] for one problem: Euclidean
/// distances between embedded points are the metric's distances.
#[derive(Clone, Debug, PartialEq)]
pub struct Embedding {
    metric: Metric,
    matrix: DMatrix<f64>,
}

impl Embedding {
    /// The metric this embedding realises.
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// Dimension of the embedded coordinates.
    pub fn dim(&self) -> usize {
        self.matrix.nrows()
    }

    /// Number of generalized velocities it expects.
    pub fn n(&self) -> usize {
        self.matrix.ncols()
    }

    /// The matrix `T`.
    pub fn matrix(&self) -> &DMatrix<f64> {
        &self.matrix
    }

    /// `T v` for one velocity (length `n`).
    pub fn apply(&self, v: &[f64]) -> Vec<f64> {
        assert_eq!(v.len(), self.n(), "velocity has {} entries, the problem has n = {}", v.len(), self.n());
        (0..self.dim()).map(|r| (0..self.n()).map(|c| self.matrix[(r, c)] * v[c]).sum()).collect()
    }

    /// Embeds every velocity of a row-major `count × n` array.
    pub fn points(&self, velocities: &[f64]) -> PointCloud {
        let n = self.n();
        assert_eq!(velocities.len() % n, 0, "a row-major array of velocities must have a multiple of n entries");
        let mut coords = Vec::with_capacity(velocities.len() / n * self.dim());
        for v in velocities.chunks_exact(n) {
            coords.extend(self.apply(v));
        }
        PointCloud { dim: self.dim(), coords }
    }

    /// Embeds velocities given one by one.
    pub fn points_of<'a>(&self, velocities: impl IntoIterator<Item = &'a [f64]>) -> PointCloud {
        let mut coords = Vec::new();
        for v in velocities {
            coords.extend(self.apply(v));
        }
        PointCloud { dim: self.dim(), coords }
    }
}

/// A finite set of points in `ℝ^dim`, stored row-major.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PointCloud {
    dim: usize,
    coords: Vec<f64>,
}

impl PointCloud {
    /// Points from a row-major array (`coords.len()` a multiple of `dim`).
    ///
    /// # Panics
    /// If `dim == 0` or the length is not a multiple of `dim`.
    pub fn new(dim: usize, coords: Vec<f64>) -> Self {
        assert!(dim > 0, "points need at least one coordinate");
        assert_eq!(coords.len() % dim, 0, "{} coordinates do not make points of dimension {dim}", coords.len());
        PointCloud { dim, coords }
    }

    /// Dimension of each point.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.coords.len().checked_div(self.dim).unwrap_or(0)
    }

    /// No points.
    pub fn is_empty(&self) -> bool {
        self.coords.is_empty()
    }

    /// Point `i`.
    pub fn point(&self, i: usize) -> &[f64] {
        &self.coords[i * self.dim..(i + 1) * self.dim]
    }

    /// All points, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[f64]> + '_ {
        self.coords.chunks_exact(self.dim.max(1))
    }

    /// The first `count` points (all of them if fewer).
    pub fn prefix(&self, count: usize) -> PointCloud {
        let count = count.min(self.len());
        PointCloud { dim: self.dim, coords: self.coords[..count * self.dim].to_vec() }
    }

    /// The row-major coordinates.
    pub fn as_slice(&self) -> &[f64] {
        &self.coords
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Contact, ImpactProblem};
    use nalgebra::{dmatrix, dvector};

    fn problem() -> ImpactProblem {
        let a = Contact::planar("A", dvector![0.0, 1.0, 0.5], dvector![1.0, 0.0, 0.0], 0.5);
        let m = dmatrix![2.0, 0.3, 0.0; 0.3, 1.0, 0.1; 0.0, 0.1, 0.5];
        ImpactProblem::new(m, dvector![0.2, -1.0, 0.3], vec![a]).unwrap()
    }

    #[test]
    fn energy_embedding_reproduces_the_energy_norm() {
        let p = problem();
        let e = Metric::Energy.embedding(&p);
        let x = [0.7, -1.3, 2.1];
        let y = e.apply(&x);
        let norm = y.iter().map(|c| c * c).sum::<f64>().sqrt();
        assert!((norm - p.energy_norm(&dvector![0.7, -1.3, 2.1])).abs() < 1e-12);
    }

    #[test]
    fn contact_embedding_stacks_normal_and_tangent_velocities() {
        let p = problem();
        let e = Metric::Contact.embedding(&p);
        assert_eq!(e.dim(), 2);
        assert_eq!(e.apply(&[1.0, 2.0, 4.0]), vec![4.0, 1.0]);
        assert_eq!(Metric::Euclidean.embedding(&p).apply(&[1.0, 2.0, 4.0]), vec![1.0, 2.0, 4.0]);
    }

    #[test]
    fn metric_names_round_trip() {
        for m in Metric::ALL {
            assert_eq!(m.name().parse::<Metric>().unwrap(), m);
        }
        assert!("manhattan".parse::<Metric>().is_err());
        assert_eq!(Metric::default(), Metric::Energy);
    }

    #[test]
    fn point_cloud_rows() {
        let e = Metric::Euclidean.embedding(&problem());
        let pts = e.points(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(pts.len(), 2);
        assert_eq!(pts.point(1), &[4.0, 5.0, 6.0]);
        assert_eq!(pts.prefix(1).len(), 1);
        assert_eq!(pts.prefix(9).len(), 2);
    }
}
