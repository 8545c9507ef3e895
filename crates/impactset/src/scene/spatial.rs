//! The spatial builder: free rigid bodies (boxes, spheres) against fixed planes.
//!
//! Each body has six generalized velocities, `(vx, vy, vz, ωx, ωy, ωz)`: the
//! velocity of its centre of mass and its angular velocity, both in world
//! axes. Its pose is an [`Isometry3`] (centre of mass, orientation as a unit
//! quaternion). With `R` the orientation and `I_b` the body-frame inertia,
//!
//! ```text
//! M = diag(m·𝟙₃, R I_b Rᵀ)        (per body; a full 3×3 world inertia)
//! ```
//!
//! A body point at world offset `r` from the centre moves at `v + ω × r`, so
//! its velocity along a direction `d` is the row `[dᵀ, (r × d)ᵀ]`.
//!
//! Tangents: for a plane normal `n`, `a` is the world axis (x, y, z, first
//! on ties) least aligned with `n`; `t₁ = (a − (a·n) n)/‖·‖` and
//! `t₂ = n × t₁`, so `(t₁, t₂, n)` is right-handed and the floor `z ≥ 0` gets
//! `t₁ = +x`, `t₂ = +y`.
//!
//! ```
//! use impactset::scene::spatial::{Plane, Solid, SpatialSystem};
//! use nalgebra::{DVector, Isometry3, Vector3};
//!
//! let mut system = SpatialSystem::new();
//! system.add_body(Solid::sphere(0.5, 2.0), 0.3);
//! system.add_plane(Plane::floor(0.0));
//! let poses = [Isometry3::translation(0.0, 0.0, 0.5)];
//! let v = DVector::from_vec(vec![1.0, 0.0, -1.0, 0.0, 0.0, 0.0]);
//! let problem = system.problem(&poses, &v, None)?;
//! assert_eq!((problem.n(), problem.m()), (6, 1));
//! assert_eq!(problem.contact_velocities()[0], -1.0);
//! # Ok::<(), impactset::ProblemError>(())
//! ```

use nalgebra::{DMatrix, DVector, Isometry3, Matrix3, Point3, Unit, UnitQuaternion, Vector3};

use crate::{Contact, ImpactProblem, ProblemError, problem::default_contact_name};

/// A free rigid body's shape and mass; the body frame sits at its centre.
#[derive(Clone, Debug, PartialEq)]
pub enum Solid {
    /// A box with half-extents `(a, b, c)` and mass `m`:
    /// `I_b = m/3 · diag(b² + c², a² + c², a² + b²)`. Its 8 corners are
    /// vertices: the bottom face (`z = −c`) counter-clockwise from
    /// `(−a, −b)`, then the top face in the same order.
    Cuboid {
        /// Half the side lengths along the body axes.
        half_extents: Vector3<f64>,
        /// Mass `m > 0`.
        mass: f64,
    },
    /// A sphere of radius `r` and mass `m`: `I_b = 2/5 · m r² · 𝟙₃`.
    Sphere {
        /// Radius `r > 0`.
        radius: f64,
        /// Mass `m > 0`.
        mass: f64,
    },
}

impl Solid {
    /// A box with side lengths `(x, y, z)` and mass `m`.
    pub fn cuboid(x: f64, y: f64, z: f64, mass: f64) -> Self {
        Solid::Cuboid { half_extents: Vector3::new(x, y, z) / 2.0, mass }
    }

    /// A sphere of radius `r` and mass `m`.
    pub fn sphere(radius: f64, mass: f64) -> Self {
        Solid::Sphere { radius, mass }
    }

    /// Mass `m`.
    pub fn mass(&self) -> f64 {
        match self {
            Solid::Cuboid { mass, .. } | Solid::Sphere { mass, .. } => *mass,
        }
    }

    /// Body-frame inertia `I_b` about the centre.
    pub fn inertia(&self) -> Matrix3<f64> {
        match self {
            Solid::Cuboid { half_extents: e, mass } => {
                let s = e.component_mul(e);
                Matrix3::from_diagonal(&Vector3::new(s.y + s.z, s.x + s.z, s.x + s.y)) * (*mass / 3.0)
            }
            Solid::Sphere { radius, mass } => Matrix3::identity() * (0.4 * mass * radius * radius),
        }
    }

    /// Body-frame contact vertices (empty for a sphere).
    pub fn vertices(&self) -> Vec<Vector3<f64>> {
        match self {
            Solid::Cuboid { half_extents: e, .. } => {
                let face = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
                [-1.0, 1.0]
                    .iter()
                    .flat_map(|z| face.iter().map(move |(x, y)| Vector3::new(x * e.x, y * e.y, z * e.z)))
                    .collect()
            }
            Solid::Sphere { .. } => Vec::new(),
        }
    }
}

/// A fixed plane, the half-space `n·x ≥ c`.
#[derive(Clone, Debug, PartialEq)]
pub struct Plane {
    /// Unit normal `n`, into the free region.
    pub normal: Unit<Vector3<f64>>,
    /// Offset `c`.
    pub offset: f64,
}

impl Plane {
    /// The half-space `n·x ≥ c`, scaled so that `‖n‖ = 1`.
    pub fn new(normal: Vector3<f64>, offset: f64) -> Self {
        let length = normal.norm();
        Plane { normal: Unit::new_normalize(normal), offset: offset / length }
    }

    /// The floor `z ≥ height`.
    pub fn floor(height: f64) -> Self {
        Plane::new(Vector3::z(), height)
    }

    /// Signed distance `n·x − c`.
    pub fn distance(&self, x: &Vector3<f64>) -> f64 {
        self.normal.dot(x) - self.offset
    }

    /// The contact tangents `(t₁, t₂)` (module docs).
    pub fn tangents(&self) -> [Vector3<f64>; 2] {
        let n = self.normal.into_inner();
        let axes = [Vector3::x(), Vector3::y(), Vector3::z()];
        let mut a = axes[0];
        for axis in &axes[1..] {
            if axis.dot(&n).abs() < a.dot(&n).abs() {
                a = *axis;
            }
        }
        let t1 = (a - a.dot(&n) * n).normalize();
        [t1, n.cross(&t1)]
    }
}

/// An active contact of a [`SpatialSystem`] at one set of poses.
#[derive(Clone, Debug, PartialEq)]
pub struct SpatialContact {
    /// Body index.
    pub body: usize,
    /// Plane index.
    pub plane: usize,
    /// Vertex index (boxes) or `None` (spheres).
    pub vertex: Option<usize>,
    /// Signed distance (≤ the contact tolerance).
    pub distance: f64,
    /// World contact point on the body.
    pub point: Vector3<f64>,
    /// Unit normal (the plane's).
    pub normal: Vector3<f64>,
    /// Unit tangents `t₁`, `t₂`.
    pub tangents: [Vector3<f64>; 2],
    /// Normal row `[nᵀ, (r × n)ᵀ]` (in the body's block of six columns).
    pub normal_row: DVector<f64>,
    /// Tangent rows `[tₖᵀ, (r × tₖ)ᵀ]`.
    pub tangent_rows: [DVector<f64>; 2],
    /// Friction coefficient `μ` (the body's).
    pub friction: f64,
    /// Body-frame coordinates of the material contact point.
    local: Vector3<f64>,
}

/// Free rigid bodies against fixed planes.
///
/// Contacts are listed plane by plane (in the order added), each against the
/// bodies in order and a box's corners in order; they are active when the
/// signed distance is at most [`contact_tolerance`](Self::contact_tolerance).
#[derive(Clone, Debug)]
pub struct SpatialSystem {
    bodies: Vec<(Solid, f64)>,
    planes: Vec<Plane>,
    /// Activity threshold on the signed distance (default 1e-6).
    pub contact_tolerance: f64,
}

impl Default for SpatialSystem {
    fn default() -> Self {
        Self::new()
    }
}

impl SpatialSystem {
    /// No bodies, no planes.
    pub fn new() -> Self {
        SpatialSystem {
            bodies: Vec::new(),
            planes: Vec::new(),
            contact_tolerance: super::planar::DEFAULT_CONTACT_TOLERANCE,
        }
    }

    /// Adds a free body with friction `μ` for its contacts; returns its index.
    pub fn add_body(&mut self, solid: Solid, friction: f64) -> usize {
        self.bodies.push((solid, friction));
        self.bodies.len() - 1
    }

    /// Adds a fixed plane.
    pub fn add_plane(&mut self, plane: Plane) {
        self.planes.push(plane);
    }

    /// Number of generalized velocities, `6 ×` bodies.
    pub fn dofs(&self) -> usize {
        6 * self.bodies.len()
    }

    /// `M = blockdiag(m·𝟙₃, R I_b Rᵀ)` over the bodies.
    pub fn mass_matrix(&self, poses: &[Isometry3<f64>]) -> DMatrix<f64> {
        let mut mass = DMatrix::zeros(self.dofs(), self.dofs());
        for (b, (solid, _)) in self.bodies.iter().enumerate() {
            let r = poses[b].rotation.to_rotation_matrix().into_inner();
            let world = r * solid.inertia() * r.transpose();
            let world = (world + world.transpose()) / 2.0;
            mass.view_mut((6 * b, 6 * b), (3, 3)).copy_from(&(Matrix3::identity() * solid.mass()));
            mass.view_mut((6 * b + 3, 6 * b + 3), (3, 3)).copy_from(&world);
        }
        mass
    }

    /// The row of a body point at world offset `r` along direction `d`.
    fn row(&self, body: usize, r: &Vector3<f64>, d: &Vector3<f64>) -> DVector<f64> {
        let mut row = DVector::zeros(self.dofs());
        row.fixed_rows_mut::<3>(6 * body).copy_from(d);
        row.fixed_rows_mut::<3>(6 * body + 3).copy_from(&r.cross(d));
        row
    }

    /// The active contacts at `poses` (one pose per body).
    pub fn contacts(&self, poses: &[Isometry3<f64>]) -> Vec<SpatialContact> {
        assert_eq!(poses.len(), self.bodies.len(), "one pose per body");
        let mut found = Vec::new();
        for (p, plane) in self.planes.iter().enumerate() {
            let n = plane.normal.into_inner();
            for (b, (solid, friction)) in self.bodies.iter().enumerate() {
                let pose = &poses[b];
                let candidates: Vec<(Option<usize>, Vector3<f64>)> = match solid {
                    Solid::Sphere { radius, .. } => {
                        let world = pose.translation.vector - *radius * n;
                        vec![(None, pose.inverse_transform_point(&Point3::from(world)).coords)]
                    }
                    Solid::Cuboid { .. } => {
                        solid.vertices().into_iter().enumerate().map(|(k, x)| (Some(k), x)).collect()
                    }
                };
                for (vertex, local) in candidates {
                    let point = pose.transform_point(&Point3::from(local)).coords;
                    let distance = plane.distance(&point);
                    if distance > self.contact_tolerance {
                        continue;
                    }
                    let r = point - pose.translation.vector;
                    let tangents = plane.tangents();
                    found.push(SpatialContact {
                        body: b,
                        plane: p,
                        vertex,
                        distance,
                        point,
                        normal: n,
                        normal_row: self.row(b, &r, &n),
                        tangent_rows: [self.row(b, &r, &tangents[0]), self.row(b, &r, &tangents[1])],
                        tangents,
                        friction: *friction,
                        local,
                    });
                }
            }
        }
        found
    }

    /// The impact problem at `poses` with pre-impact velocity `v` and `d`
    /// friction directions (`None`: the default 8); contacts named `A`, `B`, ….
    pub fn problem(
        &self,
        poses: &[Isometry3<f64>],
        v: &DVector<f64>,
        d: Option<usize>,
    ) -> Result<ImpactProblem, ProblemError> {
        let contacts = self
            .contacts(poses)
            .into_iter()
            .enumerate()
            .map(|(i, c)| Contact::spatial(default_contact_name(i), c.normal_row, c.tangent_rows, c.friction))
            .collect();
        ImpactProblem::with_friction_directions(self.mass_matrix(poses), v.clone(), contacts, d)
    }

    /// The poses moved by `s` along generalized velocity `u`: centres by
    /// `s·u_lin`, orientations by the rotation `exp(s·[u_ang]×)` applied in
    /// the world frame.
    pub fn displaced(&self, poses: &[Isometry3<f64>], u: &DVector<f64>, s: f64) -> Vec<Isometry3<f64>> {
        poses
            .iter()
            .enumerate()
            .map(|(b, pose)| {
                let lin: Vector3<f64> = u.fixed_rows::<3>(6 * b).into_owned();
                let ang: Vector3<f64> = u.fixed_rows::<3>(6 * b + 3).into_owned();
                let rotation = UnitQuaternion::from_scaled_axis(s * ang) * pose.rotation;
                Isometry3::from_parts((pose.translation.vector + s * lin).into(), rotation)
            })
            .collect()
    }

    /// Signed distance of `contact`'s body point (a sphere: its nearest
    /// point) to its plane at other poses.
    pub fn signed_distance(&self, contact: &SpatialContact, poses: &[Isometry3<f64>]) -> f64 {
        let plane = &self.planes[contact.plane];
        let pose = &poses[contact.body];
        match &self.bodies[contact.body].0 {
            Solid::Sphere { radius, .. } => plane.distance(&pose.translation.vector) - radius,
            Solid::Cuboid { .. } => plane.distance(&pose.transform_point(&Point3::from(contact.local)).coords),
        }
    }

    /// Displacement `tₖ·(x(poses) − x₀)` of the material point that touches
    /// at the contact's poses, along that contact's tangents.
    pub fn tangential_position(&self, contact: &SpatialContact, poses: &[Isometry3<f64>]) -> [f64; 2] {
        let x = poses[contact.body].transform_point(&Point3::from(contact.local)).coords - contact.point;
        [contact.tangents[0].dot(&x), contact.tangents[1].dot(&x)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_tangents_are_x_and_y_and_any_plane_gets_an_orthonormal_frame() {
        let [t1, t2] = Plane::floor(0.0).tangents();
        assert_eq!((t1, t2), (Vector3::x(), Vector3::y()));
        let plane = Plane::new(Vector3::new(0.3, -1.0, 0.2), 0.0);
        let n = plane.normal.into_inner();
        let [t1, t2] = plane.tangents();
        assert!(t1.dot(&n).abs() < 1e-15 && t2.dot(&n).abs() < 1e-15 && t1.dot(&t2).abs() < 1e-15);
        assert!((t1.cross(&t2) - n).norm() < 1e-15);
    }

    #[test]
    fn a_unit_cube_inertia_and_sphere_rows() {
        let cube = Solid::cuboid(1.0, 1.0, 1.0, 6.0);
        assert!((cube.inertia() - Matrix3::identity()).norm() < 1e-15);
        assert_eq!(cube.vertices()[0], Vector3::new(-0.5, -0.5, -0.5));
        let mut s = SpatialSystem::new();
        s.add_body(Solid::sphere(1.0, 1.0), 0.5);
        s.add_plane(Plane::floor(0.0));
        let c = &s.contacts(&[Isometry3::translation(0.0, 0.0, 1.0)])[0];
        // A rolling sphere: contact point velocity along x is vx + r ωy... minus: vx − (−r)·ωy.
        assert_eq!(c.tangent_rows[0].as_slice(), &[1.0, 0.0, 0.0, 0.0, -1.0, 0.0]);
        assert_eq!(c.normal_row.as_slice(), &[0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn rows_are_derivatives_along_displacements() {
        let mut s = SpatialSystem::new();
        s.add_body(Solid::cuboid(1.0, 2.0, 0.5, 1.0), 0.5);
        s.add_plane(Plane::floor(0.0));
        let rotation = UnitQuaternion::from_euler_angles(0.3, -0.2, 0.5);
        let mut pose = Isometry3::from_parts(Vector3::zeros().into(), rotation);
        let lowest = s.bodies[0].0.vertices().iter().map(|v| (rotation * v).z).fold(f64::INFINITY, f64::min);
        pose.translation.vector.z = -lowest;
        let poses = [pose];
        let contacts = s.contacts(&poses);
        assert_eq!(contacts.len(), 1);
        let u = DVector::from_vec(vec![0.3, -0.5, 0.8, 1.1, -0.7, 0.4]);
        let e = 1e-6;
        let (pp, pm) = (s.displaced(&poses, &u, e), s.displaced(&poses, &u, -e));
        let c = &contacts[0];
        let dn = (s.signed_distance(c, &pp) - s.signed_distance(c, &pm)) / (2.0 * e);
        assert!((dn - c.normal_row.dot(&u)).abs() < 1e-8);
        let (tp, tm) = (s.tangential_position(c, &pp), s.tangential_position(c, &pm));
        for k in 0..2 {
            assert!(((tp[k] - tm[k]) / (2.0 * e) - c.tangent_rows[k].dot(&u)).abs() < 1e-8);
        }
    }
}
