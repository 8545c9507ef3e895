//! `cube-flat` and `cube-edge`: a unit cube landing on the floor `z ≥ 0`,
//! the spatial counterpart of the rocking block.

use nalgebra::{DVector, Isometry3, UnitQuaternion, Vector3};

use super::{Sampling, spatial};
use crate::Dimension;
use crate::scene::{
    Scene, SceneInfo,
    spatial::{Plane, Solid, SpatialSystem},
};

pub(super) const FLAT: SceneInfo = SceneInfo {
    id: "cube-flat",
    description: "unit cube (μ = 0.5, d = 8) landing flat at v = (0.3, 0, −1); A–D = bottom corners (−−, +−, ++, −+)",
    n: 6,
    m: 4,
    dimension: Dimension::Spatial,
};

pub(super) const EDGE: SceneInfo = SceneInfo {
    id: "cube-edge",
    description: "unit cube tilted 20° about x landing on an edge at v = (0.3, 0, −1); A/B = corners x = −½/+½",
    n: 6,
    m: 2,
    dimension: Dimension::Spatial,
};

const SAMPLING: Sampling = Sampling { h: 0.2, steps: 10, samples: 1 << 12 };
const FRICTION: f64 = 0.5;
const DIRECTIONS: usize = 8;

/// The cube with orientation `rotation`, its lowest corner on the floor.
fn cube(info: SceneInfo, rotation: UnitQuaternion<f64>) -> Scene {
    let solid = Solid::cuboid(1.0, 1.0, 1.0, 1.0);
    let lowest = solid.vertices().iter().map(|x| (rotation * x).z).fold(f64::INFINITY, f64::min);
    let mut system = SpatialSystem::new();
    system.add_body(solid, FRICTION);
    system.add_plane(Plane::floor(0.0));
    let pose = Isometry3::from_parts(Vector3::new(0.0, 0.0, -lowest).into(), rotation);
    let v = DVector::from_vec(vec![0.3, 0.0, -1.0, 0.0, 0.0, 0.0]);
    spatial(info, system, vec![pose], v, DIRECTIONS, SAMPLING)
}

pub(super) fn cube_flat() -> Scene {
    cube(FLAT, UnitQuaternion::identity())
}

pub(super) fn cube_edge() -> Scene {
    cube(EDGE, UnitQuaternion::from_axis_angle(&Vector3::x_axis(), 20f64.to_radians()))
}
