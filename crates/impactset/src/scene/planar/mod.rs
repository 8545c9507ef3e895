//! The planar multibody builder: a kinematic tree of bodies carrying point
//! masses, rods, boxes and discs, against fixed walls.
//!
//! At a configuration `q` (one coordinate per joint degree of freedom, in the
//! order the bodies were added) and a velocity `v = q̇` it produces the mass
//! matrix
//!
//! ```text
//! M(q) = Σ_shapes  m Jcᵀ Jc + J Jθᵀ Jθ
//! ```
//!
//! (`Jc` the 2×n Jacobian of the shape's centre of mass, `Jθ` the 1×n
//! Jacobian of its body's angle, both derived analytically through the tree
//! of [`Joint`]s), the active
//! contacts with their analytic Jacobian rows ([`PlanarContact`]), and from
//! both an [`ImpactProblem`].
//!
//! ```
//! use impactset::scene::planar::{Joint, PlanarSystem, Shape, Wall};
//! use nalgebra::dvector;
//!
//! // A 1 × 2 block of mass 1 standing on the floor, falling at 0.5.
//! let mut system = PlanarSystem::new();
//! let block = system.add_body(None, Joint::floating());
//! system.add_shape(block, Shape::cuboid(1.0, 2.0, 1.0), 1.0);
//! system.add_wall(Wall::floor(0.0));
//! let problem = system.problem(&dvector![0.0, 1.0, 0.0], &dvector![0.0, -0.5, 0.0])?;
//! assert_eq!((problem.n(), problem.m()), (3, 2));
//! assert_eq!(problem.contact_velocities().as_slice(), &[-0.5, -0.5]);
//! # Ok::<(), impactset::ProblemError>(())
//! ```

mod contact;
mod kinematics;
mod shape;

pub use contact::{Pair, PlanarContact};
pub use kinematics::Joint;
pub use shape::{Shape, Wall, tangent_of};

use kinematics::Frame;
use nalgebra::{DMatrix, DVector, Vector2};

use crate::{Contact, ImpactProblem, ProblemError, problem::default_contact_name};

/// Default contact tolerance: a pair is active when its signed distance is
/// at most this (docs/scenes.md).
pub const DEFAULT_CONTACT_TOLERANCE: f64 = 1e-6;

/// Handle of a body in a [`PlanarSystem`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BodyId(usize);

#[derive(Clone, Debug)]
struct Body {
    parent: Option<BodyId>,
    joint: Joint,
    /// Index of the joint's first coordinate in `q`.
    index: usize,
}

#[derive(Clone, Debug)]
struct Part {
    body: BodyId,
    shape: Shape,
    friction: f64,
}

/// A planar kinematic tree with shapes and fixed walls.
///
/// Bodies are added parent first; each joint appends its coordinates to `q`.
/// Contacts are listed wall by wall (in the order the walls were added),
/// each wall against the shapes in the order they were added and a shape's
/// vertices in order; then disc–disc pairs `(i, j)`, `i < j` in shape order.
/// A wall contact's normal is the wall normal; a disc–disc normal points from
/// the earlier disc into the later one. Tangents are `t = (n_y, −n_x)`.
/// Friction: a wall contact takes its shape's `μ`, a disc–disc contact the
/// smaller of the two discs' `μ`.
#[derive(Clone, Debug)]
pub struct PlanarSystem {
    bodies: Vec<Body>,
    parts: Vec<Part>,
    walls: Vec<Wall>,
    dofs: usize,
    /// A pair is an active contact when its signed distance is at most this
    /// (default: [`DEFAULT_CONTACT_TOLERANCE`] = 1e-6).
    pub contact_tolerance: f64,
}

impl Default for PlanarSystem {
    fn default() -> Self {
        Self::new()
    }
}

impl PlanarSystem {
    /// An empty system: no bodies, no walls.
    pub fn new() -> Self {
        PlanarSystem {
            bodies: Vec::new(),
            parts: Vec::new(),
            walls: Vec::new(),
            dofs: 0,
            contact_tolerance: DEFAULT_CONTACT_TOLERANCE,
        }
    }

    /// Adds a body attached by `joint` to `parent` (`None`: the world); its
    /// coordinates follow those of the bodies added before.
    pub fn add_body(&mut self, parent: Option<BodyId>, joint: Joint) -> BodyId {
        if let Some(BodyId(p)) = parent {
            assert!(p < self.bodies.len(), "parent body {p} does not exist");
        }
        let index = self.dofs;
        self.dofs += joint.dofs();
        self.bodies.push(Body { parent, joint, index });
        BodyId(self.bodies.len() - 1)
    }

    /// Attaches `shape` to `body`, with friction coefficient `μ` for its contacts.
    pub fn add_shape(&mut self, body: BodyId, shape: Shape, friction: f64) {
        assert!(body.0 < self.bodies.len(), "body {} does not exist", body.0);
        self.parts.push(Part { body, shape, friction });
    }

    /// Adds a fixed wall.
    pub fn add_wall(&mut self, wall: Wall) {
        self.walls.push(wall);
    }

    /// Number of generalized coordinates `n`.
    pub fn dofs(&self) -> usize {
        self.dofs
    }

    /// The walls, in the order added.
    pub fn walls(&self) -> &[Wall] {
        &self.walls
    }

    /// The shapes, in the order added.
    pub fn shapes(&self) -> impl Iterator<Item = &Shape> {
        self.parts.iter().map(|p| &p.shape)
    }

    /// Index of the first coordinate of `body`'s joint in `q`.
    pub fn coordinate(&self, body: BodyId) -> usize {
        self.bodies[body.0].index
    }

    /// Every body's pose and Jacobians at `q`.
    pub(crate) fn frames(&self, q: &DVector<f64>) -> Vec<Frame> {
        assert_eq!(q.len(), self.dofs, "configuration length");
        let world = Frame::world(self.dofs);
        let mut frames: Vec<Frame> = Vec::with_capacity(self.bodies.len());
        for body in &self.bodies {
            let parent = body.parent.map_or(&world, |BodyId(p)| &frames[p]);
            let frame = parent.child(&body.joint, body.index, q);
            frames.push(frame);
        }
        frames
    }

    /// World position of body-frame point `r` of `body` at `q`.
    pub fn point(&self, body: BodyId, r: &Vector2<f64>, q: &DVector<f64>) -> Vector2<f64> {
        self.frames(q)[body.0].point(r)
    }

    /// World pose `(x, y, θ)` of `body`'s frame at `q`.
    pub fn pose(&self, body: BodyId, q: &DVector<f64>) -> (Vector2<f64>, f64) {
        let f = &self.frames(q)[body.0];
        (f.p, f.theta)
    }

    /// The mass matrix `M(q) = Σ m Jcᵀ Jc + J Jθᵀ Jθ` over all shapes.
    pub fn mass_matrix(&self, q: &DVector<f64>) -> DMatrix<f64> {
        let frames = self.frames(q);
        let mut mass = DMatrix::zeros(self.dofs, self.dofs);
        for part in &self.parts {
            let (m, c, j) = part.shape.inertia();
            let frame = &frames[part.body.0];
            if m > 0.0 {
                let jc = frame.point_jacobian(&c);
                mass += m * jc.transpose() * jc;
            }
            if j > 0.0 {
                mass += j * frame.jtheta.transpose() * &frame.jtheta;
            }
        }
        // Exact symmetry (the sum of symmetric products can differ in the last bit).
        let upper = mass.clone();
        mass += upper.transpose();
        mass / 2.0
    }

    /// The impact problem at `(q, v)`: `M(q)`, `v⁻ = v`, the active contacts
    /// named `A`, `B`, … in the order of [`contacts`](Self::contacts).
    pub fn problem(&self, q: &DVector<f64>, v: &DVector<f64>) -> Result<ImpactProblem, ProblemError> {
        let contacts = self
            .contacts(q)
            .into_iter()
            .enumerate()
            .map(|(i, c)| Contact::planar(default_contact_name(i), c.normal_row, c.tangent_row, c.friction))
            .collect();
        ImpactProblem::new(self.mass_matrix(q), v.clone(), contacts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::dvector;

    #[test]
    fn a_floating_box_has_the_diagonal_mass_matrix() {
        let mut s = PlanarSystem::new();
        let b = s.add_body(None, Joint::floating());
        s.add_shape(b, Shape::cuboid(1.0, 2.0, 3.0), 0.5);
        let m = s.mass_matrix(&dvector![1.0, 2.0, 0.4]);
        let expected = DMatrix::from_diagonal(&dvector![3.0, 3.0, 3.0 * 5.0 / 12.0]);
        assert!((m - expected).amax() < 1e-14);
    }

    #[test]
    fn a_pendulum_mass_matrix_is_m_l_squared() {
        let mut s = PlanarSystem::new();
        let link = s.add_body(None, Joint::revolute(0.0, 0.0));
        s.add_shape(link, Shape::point(0.0, -2.0, 1.5, 0.1), 0.0);
        let m = s.mass_matrix(&dvector![0.7]);
        assert!((m[(0, 0)] - (1.5 * 4.0 + 0.1)).abs() < 1e-14);
        assert_eq!(s.dofs(), 1);
        assert_eq!(s.coordinate(link), 0);
    }
}
