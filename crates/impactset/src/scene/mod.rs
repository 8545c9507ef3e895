//! Model builders and the built-in scenes of scenes.md.
//!
//! * [`planar`]: kinematic trees of bodies with point masses, rods, boxes and
//!   discs against fixed walls;
//! * [`spatial`]: free rigid boxes and spheres against fixed planes;
//! * the catalogue: [`catalog`], [`builtin`], [`ids`].
//!
//! ```
//! use impactset::scene;
//!
//! let block = scene::builtin("rocking-block").expect("a built-in scene");
//! assert_eq!((block.problem.n(), block.problem.m()), (3, 2));
//! assert_eq!((block.step_size, block.steps, block.samples), (0.3, 10, 1 << 14));
//! assert!(scene::ids().contains(&"disk-stack"));
//! ```

mod library;
mod model;
pub mod planar;
pub mod spatial;

pub use model::{ContactCoordinates, Model};

use nalgebra::DMatrix;

use crate::{Dimension, ImpactProblem};

/// A ready-to-sample impact problem with the sampling parameters scenes.md
/// gives for it.
#[derive(Clone, Debug)]
pub struct Scene {
    /// Identifier, e.g. `rocking-block`.
    pub id: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// The impact problem (`M`, `v⁻`, contacts named `A`, `B`, …).
    pub problem: ImpactProblem,
    /// Impulse step size `h` (model.md §4).
    pub step_size: f64,
    /// Step cap `K` of Algorithm 1.
    pub steps: usize,
    /// Sample count `S` (the paper's, for the paper's scenes).
    pub samples: usize,
    /// Mirror map on generalized velocities (v ↦ P v) and the contact permutation, if the scene is mirror-symmetric
    pub mirror: Option<Mirror>,
    /// The model the problem was built from, at the impact configuration.
    pub model: Model,
}

/// A mirror symmetry of a planar scene (geometry and `v⁻` alike).
///
/// `P` (n×n) maps a generalized velocity to its mirror image; it is an
/// involution (`P² = 𝟙`), preserves the kinetic energy (`Pᵀ M P = M`) and
/// fixes `v⁻` (`P v⁻ = v⁻`). Contact `i`'s mirror image is contact
/// `π(i) = contacts[i]`: `Jn_π(i) P = Jn_i` and `Jt_π(i) P = −Jt_i` (a
/// reflection reverses the tangent). So the set of post-impact velocities is
/// invariant under `P`.
#[derive(Clone, Debug, PartialEq)]
pub struct Mirror {
    /// The map `P` on generalized velocities.
    pub velocity: DMatrix<f64>,
    /// The contact permutation `π` (`contacts[i]` is the mirror image of contact `i`).
    pub contacts: Vec<usize>,
}

/// What [`catalog`] lists for each built-in scene, without building it.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct SceneInfo {
    /// Identifier.
    pub id: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// Number of generalized velocities `n`.
    pub n: usize,
    /// Number of contacts `m`.
    pub m: usize,
    /// Planar or spatial.
    pub dimension: Dimension,
}

/// Every built-in scene's id, description, `n`, `m` and dimension (cheap: no
/// scene is built).
pub fn catalog() -> Vec<SceneInfo> {
    library::CATALOG.iter().map(|(info, _)| *info).collect()
}

/// The five experiments of Halm & Posa's paper, in its order: the default
/// set of the figures and benchmarks.
pub const PAPER_SCENES: [&str; 5] = ["rocking-block", "compass-gait", "box-wall", "ramone", "disk-stack"];

/// Builds the built-in scene `id`, or `None` if there is none by that name.
pub fn builtin(id: &str) -> Option<Scene> {
    library::CATALOG.iter().find(|(info, _)| info.id == id).map(|(_, build)| build())
}

/// The built-in scene ids, in catalogue order.
pub fn ids() -> &'static [&'static str] {
    &library::IDS
}
