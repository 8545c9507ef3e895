//! Scenes with known answers (docs/model.md §8): a point on a slope, a point in a
//! corner, a two-link arm striking the floor with its tip.

use nalgebra::{Vector2, dvector};

use super::{Sampling, planar};
use crate::Dimension;
use crate::scene::{
    Scene, SceneInfo,
    planar::{BodyId, Joint, PlanarSystem, Shape, Wall},
};

const fn info(id: &'static str, description: &'static str, m: usize) -> SceneInfo {
    SceneInfo { id, description, n: 2, m, dimension: Dimension::Planar }
}

pub(super) const SLOPE: SceneInfo =
    info("slope-point", "unit point mass falling at 1 onto a frictionless 30° slope (set: one point)", 1);
pub(super) const SLOPE_STICK: SceneInfo =
    info("slope-point-stick", "unit point mass falling at 1 onto a 30° slope with μ = 1 ≥ tan 30° (sticks)", 1);
pub(super) const SLOPE_SLIDE: SceneInfo =
    info("slope-point-slide", "unit point mass falling at 1 onto a 30° slope with μ = 0.2 < tan 30° (slides)", 1);
pub(super) const CORNER: SceneInfo =
    info("corner-point", "unit point mass at (3, 0) sliding at 1 into the corner of y ≥ 0 and x + y ≤ 3 (set: {0})", 2);
pub(super) const ARM: SceneInfo = SceneInfo {
    id: "two-link-arm",
    description: "2-link arm pinned at the origin, its tip striking a frictionless floor (set: the plastic projection)",
    n: 2,
    m: 1,
    dimension: Dimension::Planar,
};

/// The slope angle `θ` of the slope scenes.
pub(super) const SLOPE_ANGLE_DEG: f64 = 30.0;

const ANALYTIC: Sampling = Sampling { h: 0.5, steps: 10, samples: 1 << 10 };

/// A unit point mass that translates freely: prismatic `x`, then prismatic `y`
/// (coordinates `(x, y)`, so `M = 𝟙`).
fn point_mass(system: &mut PlanarSystem, friction: f64) -> BodyId {
    let rail = system.add_body(None, Joint::prismatic(Vector2::x()));
    let point = system.add_body(Some(rail), Joint::prismatic(Vector2::y()));
    system.add_shape(point, Shape::point(0.0, 0.0, 1.0, 0.0), friction);
    point
}

/// A unit point at the origin on the slope `x sin θ + y cos θ ≥ 0`, falling
/// straight down at 1. Contact A: normal `(sin θ, cos θ)`, tangent
/// `(cos θ, −sin θ)` (down the slope).
fn slope(info: SceneInfo, friction: f64) -> Scene {
    let (s, c) = SLOPE_ANGLE_DEG.to_radians().sin_cos();
    let mut system = PlanarSystem::new();
    point_mass(&mut system, friction);
    system.add_wall(Wall::new(Vector2::new(s, c), 0.0));
    planar(info, system, dvector![0.0, 0.0], dvector![0.0, -1.0], ANALYTIC, None)
}

pub(super) fn slope_frictionless() -> Scene {
    slope(SLOPE, 0.0)
}

pub(super) fn slope_stick() -> Scene {
    slope(SLOPE_STICK, 1.0)
}

pub(super) fn slope_slide() -> Scene {
    slope(SLOPE_SLIDE, 0.2)
}

/// A unit point at `(3, 0)` moving at `(1, 0)` between the floor (A) and the
/// wall `x + y ≤ 3` (B), frictionless.
pub(super) fn corner_point() -> Scene {
    let mut system = PlanarSystem::new();
    point_mass(&mut system, 0.0);
    system.add_wall(Wall::floor(0.0));
    system.add_wall(Wall::new(Vector2::new(-1.0, -1.0), -3.0));
    let sampling = Sampling { h: 1.0, ..ANALYTIC };
    planar(CORNER, system, dvector![3.0, 0.0], dvector![1.0, 0.0], sampling, None)
}

/// Two links of length 1 and mass 1 (point mass at mid-link, inertia
/// `m l²/12`), each along its body `x` axis; coordinates: the shoulder angle
/// (absolute, at the origin) and the elbow angle (relative). At
/// `q = (−30°, −60°)` the tip sits at `(√3/2, −3/2)`, on the floor
/// `y ≥ −3/2`; `q̇ = (−1, 0.5)` drives it down at `√3/2`. Frictionless.
pub(super) fn two_link_arm() -> Scene {
    let (length, mass) = (1.0, 1.0);
    let mut system = PlanarSystem::new();
    let upper = system.add_body(None, Joint::revolute(0.0, 0.0));
    let lower = system.add_body(Some(upper), Joint::revolute(length, 0.0));
    for link in [upper, lower] {
        system.add_shape(link, Shape::rod([0.0, 0.0], [length, 0.0]), 0.0);
        system.add_shape(link, Shape::point(length / 2.0, 0.0, mass, mass * length * length / 12.0), 0.0);
    }
    let q = dvector![(-30f64).to_radians(), (-60f64).to_radians()];
    let tip = system.point(lower, &Vector2::new(length, 0.0), &q);
    system.add_wall(Wall::floor(tip.y));
    // The plastic impulse is |Jn v⁻| / (Jn M⁻¹ Jnᵀ) ≈ 1.32: h = 1 leaves a wide margin in K = 10 steps.
    planar(ARM, system, q, dvector![-1.0, 0.5], Sampling { h: 1.0, ..ANALYTIC }, None)
}
