//! `box-wall`: a unit square leaning at 10° to the floor, sliding into a wall.

use nalgebra::{Vector2, dvector};

use super::{Sampling, planar};
use crate::Dimension;
use crate::scene::{
    Scene, SceneInfo,
    planar::{Joint, PlanarSystem, Shape, Wall},
};

pub(super) const INFO: SceneInfo = SceneInfo {
    id: "box-wall",
    description: "unit box (μ = 1) tilted 10°, sliding along the floor into a wall; A = floor, B = wall",
    n: 3,
    m: 2,
    dimension: Dimension::Planar,
};

pub(super) fn build() -> Scene {
    let (side, mass, friction) = (1.0, 1.0, 1.0);
    let theta = (90.0f64 - 10.0).to_radians();
    let shape = Shape::cuboid(side, side, mass);
    let mut system = PlanarSystem::new();
    let body = system.add_body(None, Joint::floating());
    system.add_shape(body, shape.clone(), friction);
    system.add_wall(Wall::floor(0.0));
    system.add_wall(Wall::new(Vector2::new(-1.0, 0.0), 0.0));
    // Place the lowest corner on the floor and the rightmost on the wall x = 0.
    let at_origin = dvector![0.0, 0.0, theta];
    let corners: Vec<Vector2<f64>> = shape.vertices().iter().map(|r| system.point(body, r, &at_origin)).collect();
    let right = corners.iter().map(|w| w.x).fold(f64::NEG_INFINITY, f64::max);
    let low = corners.iter().map(|w| w.y).fold(f64::INFINITY, f64::min);
    let q = dvector![-right, -low, theta];
    let v = dvector![1.0, 0.0, 0.0];
    planar(INFO, system, q, v, Sampling { h: 2.0, steps: 5, samples: 1 << 18 }, None)
}
