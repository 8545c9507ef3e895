//! Contact detection between shapes and walls, and the contacts' analytic
//! Jacobian rows.
//!
//! Shape pairs and their signed distance `φ(q)`:
//!
//! | pair | `φ` | contact point |
//! |---|---|---|
//! | wall `n·x ≥ c` – vertex `x` | `n·x − c` | the vertex |
//! | wall – disc (centre `o`, radius `r`) | `n·o − c − r` | `o − r n` |
//! | disc 1 – disc 2 | `‖o₂ − o₁‖ − r₁ − r₂` | `o₁ + r₁ n` on disc 1, `o₂ − r₂ n` on disc 2, `n = (o₂ − o₁)/‖o₂ − o₁‖` |
//!
//! The rows are the normal and tangential components of the relative
//! velocity of the two material contact points, `Jn = nᵀ (J₂ − J₁)`,
//! `Jt = tᵀ (J₂ − J₁)`, with `Jᵢ` the point Jacobians of the tree (a wall has
//! `J = 0`). `Jn` is `∂φ/∂q`; `Jt q̇` is the rate of the tangential
//! displacement of the material points that touch at `q`.

use nalgebra::{DVector, Vector2};

use super::{BodyId, PlanarSystem, Shape, kinematics::Frame, tangent_of};

/// Which shapes (by index in the order added) and walls form a contact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pair {
    /// Wall `wall` against vertex `vertex` of shape `shape`.
    WallVertex {
        /// Wall index.
        wall: usize,
        /// Shape index.
        shape: usize,
        /// Vertex index within the shape.
        vertex: usize,
    },
    /// Wall `wall` against disc `shape`.
    WallDisc {
        /// Wall index.
        wall: usize,
        /// Shape index of the disc.
        shape: usize,
    },
    /// Disc `first` against disc `second` (normal from `first` into `second`).
    DiscDisc {
        /// Shape index of the first disc.
        first: usize,
        /// Shape index of the second disc.
        second: usize,
    },
}

/// A material point: fixed in the world, or fixed in a body frame.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Anchor {
    World(Vector2<f64>),
    Body(BodyId, Vector2<f64>),
}

impl Anchor {
    fn position(&self, frames: &[Frame]) -> Vector2<f64> {
        match self {
            Anchor::World(x) => *x,
            Anchor::Body(b, r) => frames[b.0].point(r),
        }
    }

    fn row(&self, frames: &[Frame], direction: &Vector2<f64>, n: usize) -> DVector<f64> {
        match self {
            Anchor::World(_) => DVector::zeros(n),
            Anchor::Body(b, r) => (direction.transpose() * frames[b.0].point_jacobian(r)).transpose(),
        }
    }
}

/// An active contact of a [`PlanarSystem`] at one configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanarContact {
    /// The shapes and walls involved.
    pub pair: Pair,
    /// Signed distance `φ(q)` (≤ the contact tolerance).
    pub distance: f64,
    /// World contact point (on the second body's surface).
    pub point: Vector2<f64>,
    /// Unit normal `n`, from the wall (or first disc) into the other body.
    pub normal: Vector2<f64>,
    /// Unit tangent `t = (n_y, −n_x)`.
    pub tangent: Vector2<f64>,
    /// Normal row of `Jn`: `nᵀ (J₂ − J₁)`.
    pub normal_row: DVector<f64>,
    /// Tangent row of `Jt`: `tᵀ (J₂ − J₁)`.
    pub tangent_row: DVector<f64>,
    /// Friction coefficient `μ`.
    pub friction: f64,
    first: Anchor,
    second: Anchor,
}

impl PlanarSystem {
    /// The active contacts at `q` (signed distance ≤ [`contact_tolerance`](Self::contact_tolerance)),
    /// in the order documented on [`PlanarSystem`].
    pub fn contacts(&self, q: &DVector<f64>) -> Vec<PlanarContact> {
        let frames = self.frames(q);
        let mut found = Vec::new();
        for (w, wall) in self.walls.iter().enumerate() {
            for (s, part) in self.parts.iter().enumerate() {
                let frame = &frames[part.body.0];
                match &part.shape {
                    Shape::Disc { center, radius, .. } => {
                        let pair = Pair::WallDisc { wall: w, shape: s };
                        let point = frame.point(center) - *radius * wall.normal;
                        let distance = wall.distance(&point);
                        let second = Anchor::Body(part.body, frame.local(&point));
                        found.push((pair, distance, wall.normal, Anchor::World(point), second, part.friction));
                    }
                    shape => {
                        for (k, r) in shape.vertices().iter().enumerate() {
                            let pair = Pair::WallVertex { wall: w, shape: s, vertex: k };
                            let point = frame.point(r);
                            let distance = wall.distance(&point);
                            let second = Anchor::Body(part.body, *r);
                            found.push((pair, distance, wall.normal, Anchor::World(point), second, part.friction));
                        }
                    }
                }
            }
        }
        let discs: Vec<usize> =
            (0..self.parts.len()).filter(|&s| matches!(self.parts[s].shape, Shape::Disc { .. })).collect();
        for (a, &i) in discs.iter().enumerate() {
            for &j in &discs[a + 1..] {
                let (o1, r1) = self.disc(i, &frames);
                let (o2, r2) = self.disc(j, &frames);
                let gap = o2 - o1;
                let normal = gap / gap.norm();
                let distance = gap.norm() - r1 - r2;
                let (b1, b2) = (self.parts[i].body, self.parts[j].body);
                let first = Anchor::Body(b1, frames[b1.0].local(&(o1 + r1 * normal)));
                let second = Anchor::Body(b2, frames[b2.0].local(&(o2 - r2 * normal)));
                let friction = self.parts[i].friction.min(self.parts[j].friction);
                found.push((Pair::DiscDisc { first: i, second: j }, distance, normal, first, second, friction));
            }
        }
        let n = self.dofs;
        found
            .into_iter()
            .filter(|(_, distance, ..)| *distance <= self.contact_tolerance)
            .map(|(pair, distance, normal, first, second, friction)| {
                let tangent = tangent_of(&normal);
                let row = |d: &Vector2<f64>| second.row(&frames, d, n) - first.row(&frames, d, n);
                PlanarContact {
                    pair,
                    distance,
                    point: second.position(&frames),
                    normal,
                    tangent,
                    normal_row: row(&normal),
                    tangent_row: row(&tangent),
                    friction,
                    first,
                    second,
                }
            })
            .collect()
    }

    /// World centre and radius of disc `shape`.
    fn disc(&self, shape: usize, frames: &[Frame]) -> (Vector2<f64>, f64) {
        let part = &self.parts[shape];
        match &part.shape {
            Shape::Disc { center, radius, .. } => (frames[part.body.0].point(center), *radius),
            _ => unreachable!("shape {shape} is not a disc"),
        }
    }

    /// The signed distance `φ(q)` of `contact`'s pair at another configuration
    /// `q` (its derivative is the normal row).
    pub fn signed_distance(&self, contact: &PlanarContact, q: &DVector<f64>) -> f64 {
        let frames = self.frames(q);
        match contact.pair {
            Pair::WallVertex { wall, shape, vertex } => {
                let part = &self.parts[shape];
                let r = part.shape.vertices()[vertex];
                self.walls[wall].distance(&frames[part.body.0].point(&r))
            }
            Pair::WallDisc { wall, shape } => {
                let (o, r) = self.disc(shape, &frames);
                self.walls[wall].distance(&o) - r
            }
            Pair::DiscDisc { first, second } => {
                let (o1, r1) = self.disc(first, &frames);
                let (o2, r2) = self.disc(second, &frames);
                (o2 - o1).norm() - r1 - r2
            }
        }
    }

    /// The tangential displacement `t·(x₂(q) − x₁(q))` of the two material
    /// points that touch at the configuration `contact` was found at, along
    /// that configuration's tangent `t` (its derivative there is the tangent row).
    pub fn tangential_position(&self, contact: &PlanarContact, q: &DVector<f64>) -> f64 {
        let frames = self.frames(q);
        contact.tangent.dot(&(contact.second.position(&frames) - contact.first.position(&frames)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Joint, Wall};
    use super::*;
    use nalgebra::dvector;

    fn two_discs() -> PlanarSystem {
        let mut s = PlanarSystem::new();
        let a = s.add_body(None, Joint::floating());
        let b = s.add_body(None, Joint::floating());
        s.add_shape(a, Shape::disc(0.0, 0.0, 1.0, 1.0), 0.3);
        s.add_shape(b, Shape::disc(0.0, 0.0, 0.5, 1.0), 0.2);
        s.add_wall(Wall::floor(0.0));
        s
    }

    #[test]
    fn disc_pairs_touch_at_the_nearest_points() {
        let s = two_discs();
        let q = dvector![0.0, 1.0, 0.3, 0.9, 1.0 + 1.2, -0.2];
        let c = s.contacts(&q);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].pair, Pair::WallDisc { wall: 0, shape: 0 });
        assert_eq!(c[1].pair, Pair::DiscDisc { first: 0, second: 1 });
        assert!(c[1].distance.abs() < 1e-12);
        assert_eq!(c[1].friction, 0.2);
        // The floor contact of a rolling disc: tangent row = ẋ + r θ̇.
        assert!((&c[0].tangent_row - dvector![1.0, 0.0, 1.0, 0.0, 0.0, 0.0]).amax() < 1e-14);
        assert!((&c[0].normal_row - dvector![0.0, 1.0, 0.0, 0.0, 0.0, 0.0]).amax() < 1e-14);
    }

    #[test]
    fn rows_are_derivatives_of_distance_and_tangential_position() {
        let s = two_discs();
        let q = dvector![0.0, 1.0, 0.3, 0.9, 1.0 + 1.2, -0.2];
        let u = dvector![0.3, -0.7, 1.1, -0.4, 0.2, 0.9];
        let e = 1e-6;
        for c in s.contacts(&q) {
            let (qp, qm) = (&q + e * &u, &q - e * &u);
            let dn = (s.signed_distance(&c, &qp) - s.signed_distance(&c, &qm)) / (2.0 * e);
            let dt = (s.tangential_position(&c, &qp) - s.tangential_position(&c, &qm)) / (2.0 * e);
            assert!((dn - c.normal_row.dot(&u)).abs() < 1e-8, "{:?}", c.pair);
            assert!((dt - c.tangent_row.dot(&u)).abs() < 1e-8, "{:?}", c.pair);
        }
    }
}
