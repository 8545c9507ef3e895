//! Forward kinematics of a planar kinematic tree and its analytic Jacobians.
//!
//! Every body has a pose `(p, θ)` in the world: origin `p ∈ ℝ²` and angle `θ`.
//! Its Jacobians `Jp` (2×n) and `Jθ` (1×n) give `ṗ = Jp q̇`, `θ̇ = Jθ q̇`. A body
//! point with body-frame coordinates `r` sits at `x = p + R(θ) r`, so with
//! `w = R(θ) r` and `w⊥ = (−w_y, w_x)` (the derivative of `R(θ) r` in `θ`)
//!
//! ```text
//! ẋ = (Jp + w⊥ Jθ) q̇.
//! ```
//!
//! The recursion from parent `P` to child (joint anchor `a` in the parent frame):
//!
//! | joint | child pose | child Jacobians |
//! |---|---|---|
//! | floating `(qᵢ, qᵢ₊₁, qᵢ₊₂)` | `p = p_P + R_P (a + (qᵢ, qᵢ₊₁))`, `θ = θ_P + qᵢ₊₂` | `Jp = Jp_P + w⊥ Jθ_P + R_P [eᵢ; eᵢ₊₁]`, `Jθ = Jθ_P + eᵢ₊₂` |
//! | revolute `qᵢ` | `p = p_P + R_P a`, `θ = θ_P + qᵢ` | `Jp = Jp_P + w⊥ Jθ_P`, `Jθ = Jθ_P + eᵢ` |
//! | prismatic `qᵢ` along `u` | `p = p_P + R_P (a + qᵢ u)`, `θ = θ_P` | `Jp = Jp_P + w⊥ Jθ_P + R_P u eᵢ`, `Jθ = Jθ_P` |
//!
//! where `w` is the child origin's offset from the parent origin in world axes.

use nalgebra::{DVector, Matrix2, Matrix2xX, RowDVector, Vector2};

/// How a body moves relative to its parent (or the world).
#[derive(Clone, Debug, PartialEq)]
pub enum Joint {
    /// Three coordinates `(x, y, θ)`: the body origin at `anchor + (x, y)` in
    /// the parent frame, the body turned by `θ` relative to the parent.
    Floating {
        /// Parent-frame point the `(x, y)` offset is measured from.
        anchor: Vector2<f64>,
    },
    /// One coordinate, the angle about `z` relative to the parent; the body
    /// origin sits at `anchor` in the parent frame.
    Revolute {
        /// Parent-frame position of the joint (the child's origin).
        anchor: Vector2<f64>,
    },
    /// One coordinate `s`: the body origin at `anchor + s·axis` in the parent
    /// frame, no rotation relative to the parent.
    Prismatic {
        /// Parent-frame position of the child's origin at `s = 0`.
        anchor: Vector2<f64>,
        /// Unit direction of travel in the parent frame.
        axis: Vector2<f64>,
    },
}

impl Joint {
    /// A floating joint measured from the parent's origin.
    pub fn floating() -> Self {
        Joint::Floating { anchor: Vector2::zeros() }
    }

    /// A revolute joint at parent-frame point `(x, y)`.
    pub fn revolute(x: f64, y: f64) -> Self {
        Joint::Revolute { anchor: Vector2::new(x, y) }
    }

    /// A prismatic joint from the parent's origin along `axis` (normalized here).
    pub fn prismatic(axis: Vector2<f64>) -> Self {
        Joint::Prismatic { anchor: Vector2::zeros(), axis: axis.normalize() }
    }

    /// Number of generalized coordinates the joint adds.
    pub fn dofs(&self) -> usize {
        match self {
            Joint::Floating { .. } => 3,
            Joint::Revolute { .. } | Joint::Prismatic { .. } => 1,
        }
    }
}

/// The rotation `R(θ)`.
pub(crate) fn rotation(theta: f64) -> Matrix2<f64> {
    let (s, c) = theta.sin_cos();
    Matrix2::new(c, -s, s, c)
}

/// `w⊥ = (−w_y, w_x)`: `w` turned by +90°.
pub(crate) fn perp(w: Vector2<f64>) -> Vector2<f64> {
    Vector2::new(-w.y, w.x)
}

/// A body's world pose and its Jacobians at one configuration.
#[derive(Clone, Debug)]
pub(crate) struct Frame {
    /// World position of the body origin.
    pub p: Vector2<f64>,
    /// World angle of the body.
    pub theta: f64,
    /// `∂p/∂q` (2×n).
    pub jp: Matrix2xX<f64>,
    /// `∂θ/∂q` (1×n).
    pub jtheta: RowDVector<f64>,
}

impl Frame {
    /// The world frame: fixed, zero Jacobians.
    pub fn world(n: usize) -> Self {
        Frame { p: Vector2::zeros(), theta: 0.0, jp: Matrix2xX::zeros(n), jtheta: RowDVector::zeros(n) }
    }

    /// World position of body-frame point `r`.
    pub fn point(&self, r: &Vector2<f64>) -> Vector2<f64> {
        self.p + rotation(self.theta) * r
    }

    /// Body-frame coordinates of world point `x`.
    pub fn local(&self, x: &Vector2<f64>) -> Vector2<f64> {
        rotation(self.theta).transpose() * (x - self.p)
    }

    /// The Jacobian (2×n) of body-frame point `r`: `ẋ = (Jp + w⊥ Jθ) q̇`.
    pub fn point_jacobian(&self, r: &Vector2<f64>) -> Matrix2xX<f64> {
        let w = perp(rotation(self.theta) * r);
        &self.jp + w * &self.jtheta
    }

    /// The child frame across `joint`, whose first coordinate is `q[index]`.
    pub fn child(&self, joint: &Joint, index: usize, q: &DVector<f64>) -> Frame {
        let r = rotation(self.theta);
        let mut child = self.clone();
        let offset = match joint {
            Joint::Floating { anchor } => anchor + Vector2::new(q[index], q[index + 1]),
            Joint::Revolute { anchor } => *anchor,
            Joint::Prismatic { anchor, axis } => anchor + q[index] * axis,
        };
        let w = r * offset;
        child.p = self.p + w;
        child.jp += perp(w) * &self.jtheta;
        match joint {
            Joint::Floating { .. } => {
                for (k, column) in [(index, 0), (index + 1, 1)] {
                    child.jp[(0, k)] += r[(0, column)];
                    child.jp[(1, k)] += r[(1, column)];
                }
                child.theta += q[index + 2];
                child.jtheta[index + 2] += 1.0;
            }
            Joint::Revolute { .. } => {
                child.theta += q[index];
                child.jtheta[index] += 1.0;
            }
            Joint::Prismatic { axis, .. } => {
                let u = r * axis;
                child.jp[(0, index)] += u.x;
                child.jp[(1, index)] += u.y;
            }
        }
        child
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::dvector;

    #[test]
    fn a_pendulum_tip_moves_perpendicular_to_the_rod() {
        let world = Frame::world(1);
        let q = dvector![0.3];
        let link = world.child(&Joint::revolute(0.0, 0.0), 0, &q);
        let r = Vector2::new(2.0, 0.0);
        let x = link.point(&r);
        let j = link.point_jacobian(&r);
        assert!((x - 2.0 * Vector2::new(0.3f64.cos(), 0.3f64.sin())).norm() < 1e-15);
        assert!((j.column(0) - perp(x)).norm() < 1e-15);
        assert!((link.local(&x) - r).norm() < 1e-15);
    }

    #[test]
    fn floating_and_prismatic_jacobians_match_differences() {
        let n = 5;
        let q = dvector![0.2, -0.4, 0.7, 0.5, -0.3];
        let pose = |q: &DVector<f64>| {
            let body = Frame::world(n).child(&Joint::floating(), 0, q);
            let slider = body.child(&Joint::Prismatic { anchor: Vector2::new(0.1, 0.2), axis: Vector2::x() }, 3, q);
            slider.child(&Joint::revolute(0.0, -0.5), 4, q)
        };
        let frame = pose(&q);
        let r = Vector2::new(0.3, -0.2);
        let j = frame.point_jacobian(&r);
        for k in 0..n {
            let e = 1e-6;
            let mut qp = q.clone();
            qp[k] += e;
            let mut qm = q.clone();
            qm[k] -= e;
            let fd = (pose(&qp).point(&r) - pose(&qm).point(&r)) / (2.0 * e);
            assert!((fd - j.column(k)).norm() < 1e-8, "coordinate {k}");
            let fd_theta = (pose(&qp).theta - pose(&qm).theta) / (2.0 * e);
            assert!((fd_theta - frame.jtheta[k]).abs() < 1e-8);
        }
    }
}
