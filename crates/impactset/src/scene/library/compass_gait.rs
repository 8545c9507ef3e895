//! `compass-gait`: a planar biped taking a wide step, the leading foot
//! striking while the trailing foot is at rest.

use std::f64::consts::PI;

use nalgebra::{Vector2, dvector};

use super::{Sampling, planar};
use crate::Dimension;
use crate::scene::{
    Scene, SceneInfo,
    planar::{Joint, PlanarSystem, Shape, Wall},
};

pub(super) const INFO: SceneInfo = SceneInfo {
    id: "compass-gait",
    description: "compass-gait biped at heel strike (φ = 78°, μ = 5); A = leading foot, B = trailing foot",
    n: 4,
    m: 2,
    dimension: Dimension::Planar,
};

/// Leg length `l`.
pub(super) const LEG: f64 = 1.0;
/// Half the angle between the legs, `φ = 78°`.
pub(super) const PHI: f64 = 78.0 * PI / 180.0;
/// Leg angular rate `φ̇`.
pub(super) const RATE: f64 = 0.25;

/// Coordinates `(x, y, θ_lead, θ_trail)`: the hip rides on two prismatic
/// joints (x, then y); each leg hangs from the hip on a revolute joint whose
/// angle is absolute (the hip body does not rotate), 0 pointing down.
pub(super) fn build() -> Scene {
    let (mass, friction) = (1.0, 5.0);
    let mut system = PlanarSystem::new();
    let rail = system.add_body(None, Joint::prismatic(Vector2::x()));
    let hip = system.add_body(Some(rail), Joint::prismatic(Vector2::y()));
    for _leg in ["leading", "trailing"] {
        let leg = system.add_body(Some(hip), Joint::revolute(0.0, 0.0));
        system.add_shape(leg, Shape::rod([0.0, 0.0], [0.0, -LEG]), friction);
        system.add_shape(leg, Shape::point(0.0, -LEG / 2.0, mass, 0.0), friction);
    }
    system.add_wall(Wall::floor(0.0));
    let (s, c) = PHI.sin_cos();
    let q = dvector![-LEG * s, LEG * c, -PHI, PHI];
    let v = dvector![-LEG * c * RATE, -LEG * s * RATE, RATE, RATE];
    planar(INFO, system, q, v, Sampling { h: 0.25, steps: 5, samples: 1 << 20 }, None)
}
