//! Random impact problems, for property tests, benchmarks and the failure
//! census: every random problem of the project comes from here, so tests
//! and benches exercise the same distributions.

use std::ops::Range;

use nalgebra::{DMatrix, DVector};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{Contact, ImpactProblem};

/// A random symmetric positive definite `n × n` matrix `A Aᵀ + c I`,
/// `A ~ U[−1, 1)`, `c ~ U[0.05, 1)` (condition number of order 10–100).
pub fn random_spd(rng: &mut ChaCha8Rng, n: usize) -> DMatrix<f64> {
    let a = DMatrix::from_fn(n, n, |_, _| rng.random_range(-1.0..1.0));
    &a * a.transpose() + DMatrix::identity(n, n) * rng.random_range(0.05..1.0)
}

/// A random vector with entries in `[−1, 1)`.
pub fn random_vector(rng: &mut ChaCha8Rng, n: usize) -> DVector<f64> {
    DVector::from_fn(n, |_, _| rng.random_range(-1.0..1.0))
}

/// A random problem from `seed`: [`random_spd`] mass matrix, `m` contacts
/// with independent random rows (planar, or spatial with the default
/// friction directions), `μ ~ U[0, max_friction)`, and a pre-impact velocity
/// with which contact 0 collides.
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

/// A random problem whose contacts may be coupled: mass matrix
/// `A Aᵀ + 0.2 n I`, `m` contacts (planar, or spatial with `spatial = Some(d)`
/// friction directions) whose rows are one random row plus `coupling` times
/// a random perturbation each (`coupling = ∞`: independent rows), `μ ~
/// U[friction)`, `v⁻ ~ U[−2, 2)ⁿ`. Coupled contacts with large friction give
/// compass-gait-like steps with several solutions.
pub fn coupled_problem(
    rng: &mut ChaCha8Rng,
    n: usize,
    m: usize,
    spatial: Option<usize>,
    coupling: f64,
    friction: Range<f64>,
) -> ImpactProblem {
    let coupled = coupling.is_finite();
    let a = DMatrix::from_fn(n, n, |_, _| rng.random_range(-1.0..1.0));
    let mass = &a * a.transpose() + DMatrix::identity(n, n) * (0.2 * n as f64);
    let vec = |rng: &mut ChaCha8Rng| DVector::from_fn(n, |_, _| rng.random_range(-1.0..1.0));
    let base_n = vec(rng);
    let base_t = [vec(rng), vec(rng)];
    let contacts = (0..m)
        .map(|i| {
            let mix = |b: &DVector<f64>, rng: &mut ChaCha8Rng| {
                if coupled { b + vec(rng) * coupling } else { vec(rng) }
            };
            let normal = mix(&base_n, rng);
            let t1 = mix(&base_t[0], rng);
            let mu = rng.random_range(friction.clone());
            let name = format!("{i}");
            match spatial {
                None => Contact::planar(name, normal, t1, mu),
                Some(_) => {
                    let t2 = mix(&base_t[1], rng);
                    Contact::spatial(name, normal, [t1, t2], mu)
                }
            }
        })
        .collect();
    let v = vec(rng) * 2.0;
    ImpactProblem::with_friction_directions(mass, v, contacts, spatial).expect("random problem is valid")
}

/// The right-hand side `b = [h·p; J v; 0]` of a random step LCP of
/// `problem`: `h` the default step size times `U[0.2, 2)`, `p ~ U[0, 1)ᵐ`,
/// `v` the pre-impact velocity or (with probability ½) a random one.
pub fn random_step_rhs(rng: &mut ChaCha8Rng, problem: &ImpactProblem) -> Vec<f64> {
    let ops = problem.operators();
    let h = problem.default_step_size() * rng.random_range(0.2..2.0);
    let v = if rng.random_bool(0.5) {
        problem.velocity().clone()
    } else {
        DVector::from_fn(ops.n, |_, _| rng.random_range(-1.0..1.0))
    };
    let u = &ops.j * v;
    let m = ops.m;
    let mut b = vec![0.0; ops.step_size_n()];
    b[..m].iter_mut().for_each(|x| *x = h * rng.random_range(0.0..1.0));
    b[m..m + u.len()].copy_from_slice(u.as_slice());
    b
}

/// A random problem of the failure census: `n ∈ [2, 12]`, `m ∈ [1, 4]`
/// contacts (planar, or spatial with `d ∈ {4, 8}` friction directions), a
/// mass matrix of condition number about `10^c`, `c ~ U[0, 8)` (a random
/// rotation of log-uniform eigenvalues), and per contact `μ = 0` with
/// probability 0.1, else `μ = 10^U[−3, 5)` (up to 10⁵), so the step LCP's
/// matrix spans many orders of magnitude. Its right-hand sides come from
/// [`random_step_rhs`]. Errors: the problem's own validation (which the
/// census counts as refused problems).
pub fn census_problem(rng: &mut ChaCha8Rng) -> Result<ImpactProblem, crate::ProblemError> {
    let n = rng.random_range(2..=12usize);
    let m = rng.random_range(1..=4usize);
    let spatial = rng.random_bool(0.5).then(|| if rng.random_bool(0.5) { 4 } else { 8 });
    let condition_exponent: f64 = rng.random_range(0.0..8.0);
    let a = DMatrix::from_fn(n, n, |_, _| rng.random_range(-1.0..1.0));
    let q = a.qr().q();
    let eigen = DVector::from_fn(n, |_, _| 10f64.powf(rng.random_range(0.0..condition_exponent.max(1e-9))));
    let mass = &q * DMatrix::from_diagonal(&eigen) * q.transpose();
    let mass = (&mass + mass.transpose()) * 0.5;
    let contacts = (0..m)
        .map(|i| {
            let mu = if rng.random_bool(0.1) { 0.0 } else { 10f64.powf(rng.random_range(-3.0..5.0)) };
            let normal = random_vector(rng, n);
            match spatial {
                None => Contact::planar(format!("C{i}"), normal, random_vector(rng, n), mu),
                Some(_) => {
                    let t = [random_vector(rng, n), random_vector(rng, n)];
                    Contact::spatial(format!("C{i}"), normal, t, mu)
                }
            }
        })
        .collect();
    let v = random_vector(rng, n);
    ImpactProblem::with_friction_directions(mass, v, contacts, spatial)
}
