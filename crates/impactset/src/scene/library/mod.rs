//! The built-in scenes (docs/scenes.md), one file per scene or family.
//!
//! Sampling parameters of the scenes that are not in the paper (chosen so
//! that `K·h/2`, the expected impulse a contact can take in `K` steps, is
//! well above the impulse the impact needs, and the sample count gives a
//! fine net in seconds):
//!
//! | scene | `h` | `K` | samples |
//! |---|---|---|---|
//! | `slope-point`, `-stick`, `-slide` | 0.5 | 10 | 2^10 |
//! | `corner-point` | 1 | 10 | 2^10 |
//! | `two-link-arm` | 1 | 10 | 2^10 |
//! | `cube-flat`, `cube-edge` | 0.2 | 10 | 2^12 |
//! | `rocking-block-bouncing` | 0.3 | 20 | 2^14 |
//! | `cradle` | 0.25 | 40 | 2^14 |
//!
//! The restitution scenes are built at the inelastic `h` and `K` listed;
//! they then take the expansion's step size and scale `K` with it
//! ([`bouncing`]; docs/scenes.md lists the result).

mod analytic;
mod box_wall;
mod compass_gait;
mod cradle;
mod cubes;
mod disk_stack;
mod ramone;
mod rocking_block;

use nalgebra::{DMatrix, DVector, Isometry3};

use super::{Mirror, Model, Scene, SceneInfo, planar::PlanarSystem, spatial::SpatialSystem};

/// A catalogue entry: what is listed, and how to build it.
type Entry = (SceneInfo, fn() -> Scene);

/// The built-in scenes, in catalogue order.
pub(super) static CATALOG: [Entry; 14] = [
    (rocking_block::INFO, rocking_block::build),
    (rocking_block::BOUNCING, rocking_block::build_bouncing),
    (compass_gait::INFO, compass_gait::build),
    (box_wall::INFO, box_wall::build),
    (ramone::INFO, ramone::build),
    (disk_stack::INFO, disk_stack::build),
    (analytic::SLOPE, analytic::slope_frictionless),
    (analytic::SLOPE_STICK, analytic::slope_stick),
    (analytic::SLOPE_SLIDE, analytic::slope_slide),
    (analytic::CORNER, analytic::corner_point),
    (analytic::ARM, analytic::two_link_arm),
    (cubes::FLAT, cubes::cube_flat),
    (cubes::EDGE, cubes::cube_edge),
    (cradle::INFO, cradle::build),
];

/// The ids of [`CATALOG`], in order.
pub(super) static IDS: [&str; 14] = {
    let mut ids = [""; 14];
    let mut i = 0;
    while i < ids.len() {
        ids[i] = CATALOG[i].0.id;
        i += 1;
    }
    ids
};

/// Sampling parameters: step size `h`, step cap `K`, sample count.
#[derive(Clone, Copy, Debug)]
struct Sampling {
    h: f64,
    steps: usize,
    samples: usize,
}

/// A planar scene at `(q, v)`; panics if the built-in model is invalid (a
/// bug, caught by the tests).
fn planar(
    info: SceneInfo,
    system: PlanarSystem,
    q: DVector<f64>,
    v: DVector<f64>,
    sampling: Sampling,
    mirror: Option<Mirror>,
) -> Scene {
    let problem = system.problem(&q, &v).unwrap_or_else(|e| panic!("built-in scene {}: {e}", info.id));
    scene(info, problem, sampling, mirror, Model::Planar { system, q })
}

/// A spatial scene at `poses` with velocity `v` and `d` friction directions.
fn spatial(
    info: SceneInfo,
    system: SpatialSystem,
    poses: Vec<Isometry3<f64>>,
    v: DVector<f64>,
    d: usize,
    sampling: Sampling,
) -> Scene {
    let problem = system.problem(&poses, &v, Some(d)).unwrap_or_else(|e| panic!("built-in scene {}: {e}", info.id));
    scene(info, problem, sampling, None, Model::Spatial { system, poses })
}

fn scene(
    info: SceneInfo,
    problem: crate::ImpactProblem,
    sampling: Sampling,
    mirror: Option<Mirror>,
    model: Model,
) -> Scene {
    Scene {
        id: info.id,
        description: info.description,
        problem,
        step_size: sampling.h,
        steps: sampling.steps,
        samples: sampling.samples,
        mirror,
        model,
    }
}

/// `scene` with coefficients of restitution `e`: its step size becomes the
/// expansion's (docs/model.md §4b, [`expansion_step_size`](crate::sampling::expansion_step_size))
/// and its step cap grows by the same factor, so that `K·h`, the impulse a
/// contact can take in `K` steps, stays what the scene gives it.
fn bouncing(mut scene: Scene, e: &[f64]) -> Scene {
    scene.problem =
        scene.problem.with_restitution(e).unwrap_or_else(|err| panic!("built-in scene {}: {err}", scene.id));
    let h = crate::sampling::expansion_step_size(&scene.problem).expect("a bouncing scene has restitution");
    scene.steps = (scene.steps as f64 * scene.step_size / h).ceil() as usize;
    scene.step_size = h;
    scene
}

/// The planar reflection `x ↦ −x` of one floating body's `(ẋ, ẏ, θ̇)`.
fn reflect_floating() -> DMatrix<f64> {
    DMatrix::from_diagonal(&DVector::from_vec(vec![-1.0, 1.0, -1.0]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_follow_the_catalogue() {
        for (i, id) in IDS.iter().enumerate() {
            assert_eq!(*id, CATALOG[i].0.id);
            assert!(!IDS[..i].contains(id), "duplicate id {id}");
        }
    }

    #[test]
    fn every_entry_builds_what_it_lists() {
        for (info, build) in &CATALOG {
            let scene = build();
            assert_eq!(scene.id, info.id);
            assert_eq!((scene.problem.n(), scene.problem.m()), (info.n, info.m), "{}", info.id);
            assert_eq!(scene.problem.dimension(), info.dimension, "{}", info.id);
            assert!(scene.step_size > 0.0 && scene.steps > 0 && scene.samples > 0);
        }
    }
}
