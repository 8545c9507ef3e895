//! `ramone`: the 5-link planar biped RAMone (after Remy 2017) at a footstep.

use nalgebra::{DVector, Vector2, dvector};

use super::{Sampling, planar};
use crate::Dimension;
use crate::scene::{
    Scene, SceneInfo,
    planar::{Joint, PlanarSystem, Shape, Wall},
};

pub(super) const INFO: SceneInfo = SceneInfo {
    id: "ramone",
    description: "5-link biped RAMone at a footstep (μ = 1e5); A = leading foot, B = trailing foot (at rest)",
    n: 7,
    m: 2,
    dimension: Dimension::Planar,
};

const TRUNK: (f64, f64) = (7.9026, 0.08);
const THIGH: (f64, f64) = (0.7887, 0.00221);
const SHANK: (f64, f64) = (0.510, 0.00652);
/// Hip below the trunk origin.
const S1: f64 = 0.137675;
/// Thigh centre of mass below the hip.
const S2: f64 = 0.019399;
/// Thigh length.
const L2: f64 = 0.2;
/// Shank length.
const L3: f64 = 0.2385;
/// Shank centre of mass below the knee.
const S3: f64 = 0.2385 - 0.073265;
/// Foot radius.
const FOOT: f64 = 0.0563 / 2.0;
const FRICTION: f64 = 1e5;

/// Coordinates `(x, y, θ, α_l, β_l, α_t, β_t)`: floating trunk, then the
/// leading hip and knee, then the trailing hip and knee (each angle relative
/// to its parent segment, 0 pointing down).
pub(super) fn build() -> Scene {
    let mut system = PlanarSystem::new();
    let trunk = system.add_body(None, Joint::floating());
    system.add_shape(trunk, Shape::point(0.0, 0.0, TRUNK.0, TRUNK.1), FRICTION);
    for _leg in ["leading", "trailing"] {
        let thigh = system.add_body(Some(trunk), Joint::revolute(0.0, -S1));
        system.add_shape(thigh, Shape::point(0.0, -S2, THIGH.0, THIGH.1), FRICTION);
        let shank = system.add_body(Some(thigh), Joint::revolute(0.0, -L2));
        system.add_shape(shank, Shape::point(0.0, -S3, SHANK.0, SHANK.1), FRICTION);
        system.add_shape(shank, Shape::disc(0.0, -L3, FOOT, 0.0), FRICTION);
    }
    system.add_wall(Wall::floor(0.0));
    let q = configuration();
    let v = velocity(&system, &q);
    planar(INFO, system, q, v, Sampling { h: 1.0, steps: 10, samples: 1 << 20 }, None)
}

/// The footstep configuration of docs/scenes.md: both feet on the floor.
fn configuration() -> DVector<f64> {
    let theta = 16f64.to_radians();
    let (alpha_l, beta_l, alpha_t) = ((-70f64).to_radians(), (-2f64).to_radians(), 70f64.to_radians());
    let y_leg = L3 * (theta + alpha_l + beta_l).cos() + L2 * (theta + alpha_l).cos();
    let y = y_leg + S1 * theta.cos() + FOOT;
    let beta_t = -alpha_t - theta + ((y_leg - L2 * (theta + alpha_t).cos()) / L3).asin() - std::f64::consts::FRAC_PI_2;
    dvector![0.0, y, theta, alpha_l, beta_l, alpha_t, beta_t]
}

/// Pitch rate 1, joint rates 0, trunk velocity such that the trailing foot's
/// contact point is at rest: the robot turns rigidly about that point, so the
/// trunk origin moves at `−ω (x_B − p)⊥`.
fn velocity(system: &PlanarSystem, q: &DVector<f64>) -> DVector<f64> {
    let trailing = system.contacts(q).get(1).map(|c| c.point).expect("the trailing foot touches");
    let w = trailing - Vector2::new(q[0], q[1]);
    dvector![w.y, -w.x, 1.0, 0.0, 0.0, 0.0, 0.0]
}
