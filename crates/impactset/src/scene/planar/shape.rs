//! What a planar body carries (mass and contact geometry) and the fixed walls.

use nalgebra::Vector2;

/// A piece of a planar body, in body-frame coordinates.
///
/// Every shape but the disc contributes *vertices* that can touch walls; a
/// disc touches walls and other discs at its nearest point.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A point mass `m` with rotational inertia `J` (about the point) at `at`;
    /// the point is also a contact vertex.
    Point {
        /// Body-frame position.
        at: Vector2<f64>,
        /// Mass `m ≥ 0`.
        mass: f64,
        /// Rotational inertia `J ≥ 0` about the point.
        inertia: f64,
    },
    /// A massless rod; its two end vertices can touch walls.
    Rod {
        /// Body-frame end points.
        ends: [Vector2<f64>; 2],
    },
    /// A box of width `w` (body `x`) and height `h` (body `y`) centred at
    /// `center`, mass `m`, inertia `m(w² + h²)/12`; its 4 corners are vertices,
    /// in the order bottom-left, bottom-right, top-right, top-left (body frame).
    Box {
        /// Body-frame centre (also the centre of mass).
        center: Vector2<f64>,
        /// Width `w` along body `x`.
        width: f64,
        /// Height `h` along body `y`.
        height: f64,
        /// Mass `m`.
        mass: f64,
    },
    /// A disc of radius `r`, mass `m`, inertia `m r²/2`, centred at `center`.
    Disc {
        /// Body-frame centre (also the centre of mass).
        center: Vector2<f64>,
        /// Radius `r > 0`.
        radius: f64,
        /// Mass `m ≥ 0` (0 for a massless foot).
        mass: f64,
    },
}

impl Shape {
    /// A point mass at `(x, y)`.
    pub fn point(x: f64, y: f64, mass: f64, inertia: f64) -> Self {
        Shape::Point { at: Vector2::new(x, y), mass, inertia }
    }

    /// A massless rod from `a` to `b`.
    pub fn rod(a: [f64; 2], b: [f64; 2]) -> Self {
        Shape::Rod { ends: [Vector2::new(a[0], a[1]), Vector2::new(b[0], b[1])] }
    }

    /// A box of width `w`, height `h` and mass `m` centred at the body origin.
    pub fn cuboid(width: f64, height: f64, mass: f64) -> Self {
        Shape::Box { center: Vector2::zeros(), width, height, mass }
    }

    /// A disc of radius `r` and mass `m` centred at `(x, y)`.
    pub fn disc(x: f64, y: f64, radius: f64, mass: f64) -> Self {
        Shape::Disc { center: Vector2::new(x, y), radius, mass }
    }

    /// Mass, body-frame centre of mass and rotational inertia about it.
    pub fn inertia(&self) -> (f64, Vector2<f64>, f64) {
        match self {
            Shape::Point { at, mass, inertia } => (*mass, *at, *inertia),
            Shape::Rod { ends } => (0.0, (ends[0] + ends[1]) / 2.0, 0.0),
            Shape::Box { center, width, height, mass } => {
                (*mass, *center, mass * (width * width + height * height) / 12.0)
            }
            Shape::Disc { center, radius, mass } => (*mass, *center, mass * radius * radius / 2.0),
        }
    }

    /// The contact vertices (body frame); empty for a disc.
    pub fn vertices(&self) -> Vec<Vector2<f64>> {
        match self {
            Shape::Point { at, .. } => vec![*at],
            Shape::Rod { ends } => ends.to_vec(),
            Shape::Box { center, width, height, .. } => {
                let (a, b) = (width / 2.0, height / 2.0);
                [(-a, -b), (a, -b), (a, b), (-a, b)].iter().map(|(x, y)| center + Vector2::new(*x, *y)).collect()
            }
            Shape::Disc { .. } => Vec::new(),
        }
    }
}

/// A fixed wall, the half-plane `n·x ≥ c` (bodies live where it holds).
#[derive(Clone, Debug, PartialEq)]
pub struct Wall {
    /// Unit normal `n`, pointing into the free region.
    pub normal: Vector2<f64>,
    /// Offset `c`.
    pub offset: f64,
}

impl Wall {
    /// The half-plane `n·x ≥ c`; `n` and `c` are scaled so that `‖n‖ = 1`.
    ///
    /// ```
    /// use impactset::scene::planar::Wall;
    /// use nalgebra::Vector2;
    /// // The wall x + y ≤ 3, i.e. −x − y ≥ −3.
    /// let wall = Wall::new(Vector2::new(-1.0, -1.0), -3.0);
    /// assert!((wall.normal.norm() - 1.0).abs() < 1e-15);
    /// assert!(wall.distance(&Vector2::new(3.0, 0.0)).abs() < 1e-15);
    /// ```
    pub fn new(normal: Vector2<f64>, offset: f64) -> Self {
        let length = normal.norm();
        Wall { normal: normal / length, offset: offset / length }
    }

    /// The floor `y ≥ height`.
    pub fn floor(height: f64) -> Self {
        Wall::new(Vector2::y(), height)
    }

    /// Signed distance `n·x − c` of a point (negative inside the wall).
    pub fn distance(&self, x: &Vector2<f64>) -> f64 {
        self.normal.dot(x) - self.offset
    }

    /// The contact tangent `t = (n_y, −n_x)`: the normal turned by −90°.
    pub fn tangent(&self) -> Vector2<f64> {
        tangent_of(&self.normal)
    }
}

/// The contact tangent of normal `n`: `t = (n_y, −n_x)`, `n` turned by −90°.
pub fn tangent_of(n: &Vector2<f64>) -> Vector2<f64> {
    Vector2::new(n.y, -n.x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_inertia_and_corners() {
        let b = Shape::cuboid(1.0, 2.0, 3.0);
        let (m, c, j) = b.inertia();
        assert_eq!((m, c), (3.0, Vector2::zeros()));
        assert!((j - 3.0 * 5.0 / 12.0).abs() < 1e-15);
        let v = b.vertices();
        assert_eq!(v[0], Vector2::new(-0.5, -1.0));
        assert_eq!(v[1], Vector2::new(0.5, -1.0));
        assert_eq!(v.len(), 4);
    }

    #[test]
    fn floor_tangent_is_plus_x() {
        assert_eq!(Wall::floor(0.0).tangent(), Vector2::new(1.0, 0.0));
        let d = Shape::disc(0.0, 0.0, 2.0, 4.0);
        assert_eq!(d.inertia().2, 8.0);
        assert!(d.vertices().is_empty());
    }
}
