//! `disk-stack`: three discs, two on the floor and one on top, the top one
//! falling.

use nalgebra::{DMatrix, dvector};

use super::{Sampling, planar, reflect_floating};
use crate::Dimension;
use crate::scene::{
    Mirror, Scene, SceneInfo,
    planar::{Joint, PlanarSystem, Shape, Wall},
};

pub(super) const INFO: SceneInfo = SceneInfo {
    id: "disk-stack",
    description: "three discs (mass 5, μ = √3), the top one falling at 1; A/B = floor–left/right, C/D = top–left/right, E = left–right",
    n: 9,
    m: 5,
    dimension: Dimension::Planar,
};

/// Coordinates: `(x, y, θ)` of the left, right and top discs, in that order.
///
/// The discs' *shapes* are added top, left, right, so that the contact order
/// of [`PlanarSystem`] (floor against each shape, then disc pairs in shape
/// order) is docs/scenes.md's: floor–left, floor–right, top–left, top–right,
/// left–right, with normals from the top disc down and from left to right.
pub(super) fn build() -> Scene {
    let (radius, mass, friction) = (1.0, 5.0, 3f64.sqrt());
    let mut system = PlanarSystem::new();
    let left = system.add_body(None, Joint::floating());
    let right = system.add_body(None, Joint::floating());
    let top = system.add_body(None, Joint::floating());
    for body in [top, left, right] {
        system.add_shape(body, Shape::disc(0.0, 0.0, radius, mass), friction);
    }
    system.add_wall(Wall::floor(0.0));
    let q = dvector![0.0, 1.0, 0.0, 2.0, 1.0, 0.0, 1.0, 1.0 + 3f64.sqrt(), 0.0];
    let mut v = dvector![0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    v[7] = -1.0;
    // Mirror about x = 1: the left and right discs swap, each reflected.
    let mut p = DMatrix::zeros(9, 9);
    let s = reflect_floating();
    p.view_mut((0, 3), (3, 3)).copy_from(&s);
    p.view_mut((3, 0), (3, 3)).copy_from(&s);
    p.view_mut((6, 6), (3, 3)).copy_from(&s);
    let mirror = Mirror { velocity: p, contacts: vec![1, 0, 3, 2, 4] };
    planar(INFO, system, q, v, Sampling { h: 1.0, steps: 10, samples: 1 << 20 }, Some(mirror))
}
