//! Random impact problems for property tests.
#![allow(dead_code)]

use impactset::{Contact, ImpactProblem};
use nalgebra::DVector;

#[allow(unused_imports)]
pub use impactset::scene::random::{random_problem, random_spd, random_vector};

/// The plastic-impact projection of a single frictionless contact (docs/model.md §8):
/// `v⁺ = v⁻ − M⁻¹ Jnᵀ (Jn M⁻¹ Jnᵀ)⁻¹ Jn v⁻`.
pub fn plastic_projection(problem: &ImpactProblem) -> DVector<f64> {
    let jn = &problem.contacts()[0].normal;
    let minv_jn = problem.mass().clone().cholesky().unwrap().solve(jn);
    let v = problem.velocity();
    v - &minv_jn * (jn.dot(v) / jn.dot(&minv_jn))
}

/// `problem` with contact `i` replaced by `change(i, contact)` and
/// `directions` friction directions (`None`: the default).
pub fn with_contacts(
    problem: &ImpactProblem,
    directions: Option<usize>,
    change: impl Fn(usize, &Contact) -> Contact,
) -> ImpactProblem {
    let contacts = problem.contacts().iter().enumerate().map(|(i, c)| change(i, c)).collect();
    ImpactProblem::with_friction_directions(problem.mass().clone(), problem.velocity().clone(), contacts, directions)
        .unwrap()
}

#[cfg(feature = "gpu")]
pub mod gpu;
