//! `rocking-block`: a 1 × 2 block dropped flat onto the floor from 1 cm.

use nalgebra::dvector;

use super::{Sampling, bouncing, planar, reflect_floating};
use crate::Dimension;
use crate::scene::{
    Mirror, Scene, SceneInfo,
    planar::{Joint, PlanarSystem, Shape, Wall},
};

pub(super) const INFO: SceneInfo = SceneInfo {
    id: "rocking-block",
    description: "1×2 block (mass 1, μ = 1) dropped flat on the floor from 1 cm; A/B = bottom-left/right corner",
    n: 3,
    m: 2,
    dimension: Dimension::Planar,
};

pub(super) const BOUNCING: SceneInfo = SceneInfo {
    id: "rocking-block-bouncing",
    description: "the rocking block with restitution e = 0.5 at both corners (it bounces; docs/model.md §4b)",
    n: 3,
    m: 2,
    dimension: Dimension::Planar,
};

/// Impact speed `v₀ = √(2 · 9.81 · 0.01)` (dropped from 1 cm).
pub(super) fn drop_speed() -> f64 {
    (2.0 * 9.81 * 0.01f64).sqrt()
}

pub(super) fn build() -> Scene {
    let (width, height, mass, friction) = (1.0, 2.0, 1.0, 1.0);
    let mut system = PlanarSystem::new();
    let block = system.add_body(None, Joint::floating());
    system.add_shape(block, Shape::cuboid(width, height, mass), friction);
    system.add_wall(Wall::floor(0.0));
    let v0 = drop_speed();
    let q = dvector![0.0, height / 2.0, 0.0];
    let v = dvector![0.0, -v0, 0.0];
    // h = ⌈10 · m · v₀ / 2⌉ / 10 (docs/scenes.md).
    let h = (10.0 * mass * v0 / 2.0).ceil() / 10.0;
    let mirror = Mirror { velocity: reflect_floating(), contacts: vec![1, 0] };
    planar(INFO, system, q, v, Sampling { h, steps: 10, samples: 1 << 14 }, Some(mirror))
}

/// `rocking-block` with `e = 0.5` at both corners, twice its step cap at
/// its `h` (the expansion takes about half the impulse the compression
/// takes), at the expansion's step size.
pub(super) fn build_bouncing() -> Scene {
    let mut scene = build();
    scene.id = BOUNCING.id;
    scene.description = BOUNCING.description;
    scene.steps = 20;
    bouncing(scene, &[0.5, 0.5])
}
