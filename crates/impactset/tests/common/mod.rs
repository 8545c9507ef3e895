//! Random impact problems for property tests.
#![allow(dead_code)]

use impactset::{Contact, ImpactProblem};
use nalgebra::{DMatrix, DVector};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random symmetric positive definite `n × n` matrix with condition number
/// of order 10–100.
pub fn random_spd(rng: &mut ChaCha8Rng, n: usize) -> DMatrix<f64> {
    let a = DMatrix::from_fn(n, n, |_, _| rng.random_range(-1.0..1.0));
    &a * a.transpose() + DMatrix::identity(n, n) * rng.random_range(0.05..1.0)
}

/// A random vector with entries in `[-1, 1)`.
pub fn random_vector(rng: &mut ChaCha8Rng, n: usize) -> DVector<f64> {
    DVector::from_fn(n, |_, _| rng.random_range(-1.0..1.0))
}

/// A random problem with `m` contacts (planar or spatial), `n` velocities and
/// at least one colliding contact; friction in `[0, max_friction)`.
pub fn random_problem(seed: u64, n: usize, m: usize, spatial: bool, max_friction: f64) -> ImpactProblem {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mass = random_spd(&mut rng, n);
    let contacts: Vec<Contact> = (0..m)
        .map(|i| {
            let normal = random_vector(&mut rng, n);
            let mu = rng.random_range(0.0..max_friction.max(1e-300));
            if spatial {
                let t = [random_vector(&mut rng, n), random_vector(&mut rng, n)];
                Contact::spatial(format!("C{i}"), normal, t, mu)
            } else {
                Contact::planar(format!("C{i}"), normal, random_vector(&mut rng, n), mu)
            }
        })
        .collect();
    let mut v = random_vector(&mut rng, n);
    // Make contact 0 collide.
    let u0 = contacts[0].normal.dot(&v);
    if u0 >= 0.0 {
        let w = contacts[0].normal.clone();
        v -= w * ((u0 + 0.5) / contacts[0].normal.norm_squared());
    }
    ImpactProblem::new(mass, v, contacts).expect("random problem is valid")
}

/// The plastic-impact projection of a single frictionless contact (docs/model.md §8):
/// `v⁺ = v⁻ − M⁻¹ Jnᵀ (Jn M⁻¹ Jnᵀ)⁻¹ Jn v⁻`.
pub fn plastic_projection(problem: &ImpactProblem) -> DVector<f64> {
    let jn = &problem.contacts()[0].normal;
    let minv_jn = problem.mass().clone().cholesky().unwrap().solve(jn);
    let v = problem.velocity();
    v - &minv_jn * (jn.dot(v) / jn.dot(&minv_jn))
}

#[cfg(feature = "gpu")]
pub mod gpu;
