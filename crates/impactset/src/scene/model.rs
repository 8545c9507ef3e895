//! The model behind a scene, kept so that its contacts can be re-evaluated
//! away from the impact configuration (finite-difference checks of the
//! Jacobian rows, plots).

use nalgebra::{DVector, Isometry3};

use super::{planar::PlanarSystem, spatial::SpatialSystem};

/// A scene's model at its impact configuration.
#[derive(Clone, Debug)]
pub enum Model {
    /// A planar multibody tree at configuration `q`.
    Planar {
        /// The builder.
        system: PlanarSystem,
        /// The configuration `q`.
        q: DVector<f64>,
    },
    /// Free spatial bodies at their poses.
    Spatial {
        /// The builder.
        system: SpatialSystem,
        /// One pose per body.
        poses: Vec<Isometry3<f64>>,
    },
}

/// Where one contact stands after a displacement of the configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactCoordinates {
    /// Signed distance `φ`.
    pub distance: f64,
    /// Tangential displacement of the material points touching at the
    /// impact configuration, along each tangent (1 planar, 2 spatial).
    pub tangential: Vec<f64>,
}

impl Model {
    /// The scene's contacts (those active at the impact configuration) after
    /// moving the configuration by `s` along generalized velocity `u`
    /// (`q + s·u` in the plane; [`SpatialSystem::displaced`] in space).
    ///
    /// To first order in `s`, `distance = Jn_i·u s` and
    /// `tangential = Jt_i·u s`: the central difference
    /// `(c(s) − c(−s)) / 2s` checks the Jacobian rows.
    pub fn contact_coordinates(&self, u: &DVector<f64>, s: f64) -> Vec<ContactCoordinates> {
        match self {
            Model::Planar { system, q } => {
                let moved = q + s * u;
                system
                    .contacts(q)
                    .iter()
                    .map(|c| ContactCoordinates {
                        distance: system.signed_distance(c, &moved),
                        tangential: vec![system.tangential_position(c, &moved)],
                    })
                    .collect()
            }
            Model::Spatial { system, poses } => {
                let moved = system.displaced(poses, u, s);
                system
                    .contacts(poses)
                    .iter()
                    .map(|c| ContactCoordinates {
                        distance: system.signed_distance(c, &moved),
                        tangential: system.tangential_position(c, &moved).to_vec(),
                    })
                    .collect()
            }
        }
    }
}
