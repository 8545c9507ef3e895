//! `cradle`: five equal balls in a row on a frictionless table, touching,
//! the first striking the others at speed 1, every contact perfectly
//! elastic (docs/model.md §4b).

use nalgebra::DVector;

use super::{Sampling, bouncing, planar};
use crate::Dimension;
use crate::scene::{
    Scene, SceneInfo,
    planar::{Joint, PlanarSystem, Shape},
};

pub(super) const INFO: SceneInfo = SceneInfo {
    id: "cradle",
    description: "five unit balls touching in a row on a frictionless table, the first striking at 1, e = 1 (Newton's cradle); A–D = ball 1–2 … 4–5",
    n: 15,
    m: 4,
    dimension: Dimension::Planar,
};

/// Balls in the row.
const BALLS: usize = 5;

/// Coordinates `(x, y, θ)` per ball, left to right; the table is the plane
/// (no gravity, no floor). The set holds the wave (the last ball leaves at
/// 1, the others stop) and the four struck balls leaving as one body at
/// 0.4 while the first rebounds at −0.6.
pub(super) fn build() -> Scene {
    let (radius, mass) = (1.0, 1.0);
    let mut system = PlanarSystem::new();
    for _ in 0..BALLS {
        let ball = system.add_body(None, Joint::floating());
        system.add_shape(ball, Shape::disc(0.0, 0.0, radius, mass), 0.0);
    }
    let q = DVector::from_fn(3 * BALLS, |k, _| if k % 3 == 0 { 2.0 * radius * (k / 3) as f64 } else { 0.0 });
    let mut v = DVector::zeros(3 * BALLS);
    v[0] = 1.0;
    let scene = planar(INFO, system, q, v, Sampling { h: 0.25, steps: 40, samples: 1 << 14 }, None);
    bouncing(scene, &[1.0; BALLS - 1])
}
