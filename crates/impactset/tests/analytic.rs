//! docs/model.md §8: analytic outcomes through the full sampler.

mod common;

use impactset::sampling::MAX_STEPS;
use impactset::{Contact, ImpactProblem, SamplerOptions, Selection, sample_set};
use nalgebra::{DMatrix, DVector, dvector};
use proptest::prelude::*;

const RULES: [Selection; 3] = [Selection::Lemke, Selection::RandomLemke, Selection::All];

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Frictionless single contact: every sample ends at the plastic-impact
    /// projection, for random SPD M, random contact rows, any h and any caps.
    #[test]
    fn frictionless_single_contact_is_the_plastic_projection(
        seed in any::<u64>(), n in 1usize..7, h_scale in 0.05f64..3.0, rule in 0usize..3,
    ) {
        let mut problem = common::random_problem(seed, n, 1, false, 0.0);
        let c = problem.contacts()[0].clone();
        problem = ImpactProblem::new(problem.mass().clone(), problem.velocity().clone(),
            vec![Contact { friction: 0.0, ..c }]).unwrap();
        let expected = common::plastic_projection(&problem);
        let ops = problem.operators();
        let plastic_impulse = -problem.contact_velocities()[0] / ops.delassus[(0, 0)];
        let options = SamplerOptions {
            samples: 16, step_size: Some(plastic_impulse * h_scale), steps: Some(400), seed,
            selection: RULES[rule], ..Default::default()
        };
        let set = sample_set(&problem, &options);
        let scale = problem.energy_norm(problem.velocity());
        for s in &set.samples {
            prop_assert!(s.accepted, "sample {} not accepted: {:?}", s.index, s);
            let err = problem.energy_norm(&(DVector::from_column_slice(&s.v_plus) - &expected));
            prop_assert!(err <= 1e-9 * scale, "deviation {err:e} of {scale:e}");
        }
    }
}

fn slope(theta: f64, mu: f64) -> ImpactProblem {
    let (s, c) = theta.sin_cos();
    // Constraint x sinθ + z cosθ ≥ 0; tangent = normal rotated by −90°.
    let contact = Contact::planar("A", dvector![s, c], dvector![c, -s], mu);
    ImpactProblem::new(DMatrix::identity(2, 2), dvector![0.0, -1.0], vec![contact]).unwrap()
}

fn assert_all_samples(problem: &ImpactProblem, expected: &DVector<f64>, tol: f64) {
    for rule in RULES {
        let options = SamplerOptions {
            samples: 256,
            step_size: Some(0.1),
            steps: Some(100),
            selection: rule,
            ..Default::default()
        };
        let set = sample_set(problem, &options);
        assert_eq!(set.accepted_count(), 256, "{rule}");
        for s in &set.samples {
            let err = (DVector::from_column_slice(&s.v_plus) - expected).amax();
            assert!(err <= tol, "{rule}: sample {} at {:?}, expected {expected:?}", s.index, s.v_plus);
        }
    }
}

#[test]
fn frictionless_slope_slides_along_the_surface() {
    let theta = 30f64.to_radians();
    let zdot = -1.0;
    let expected = dvector![-theta.sin() * theta.cos() * zdot, theta.sin().powi(2) * zdot];
    assert_all_samples(&slope(theta, 0.0), &expected, 1e-12);
}

#[test]
fn slope_with_enough_friction_sticks() {
    let theta = 30f64.to_radians();
    for mu in [theta.tan(), theta.tan() * 1.5, 5.0] {
        assert_all_samples(&slope(theta, mu), &dvector![0.0, 0.0], 1e-12);
    }
}

#[test]
fn slope_with_little_friction_keeps_the_reduced_tangential_speed() {
    let theta = 30f64.to_radians();
    let (s, c) = theta.sin_cos();
    for mu in [0.0, 0.1, 0.3, 0.5] {
        // v_n⁻ = −cos θ, v_t⁻ = sin θ along t = (cos θ, −sin θ).
        let speed = s - mu * c;
        let expected = dvector![c, -s] * speed;
        assert_all_samples(&slope(theta, mu), &expected, 1e-12);
    }
}

/// The spread `max_k ‖v⁺_k − v⁺_0‖_M / ‖v⁻‖_M` of a set of samples.
fn spread(problem: &ImpactProblem, step_size: f64, seed: u64) -> f64 {
    let options = SamplerOptions {
        samples: 64,
        step_size: Some(step_size),
        steps: Some(MAX_STEPS),
        seed,
        selection: Selection::Lemke,
        ..Default::default()
    };
    let set = sample_set(problem, &options);
    assert_eq!(set.accepted_count(), 64);
    let first = DVector::from_column_slice(&set.samples[0].v_plus);
    let worst = set
        .samples
        .iter()
        .map(|s| problem.energy_norm(&(DVector::from_column_slice(&s.v_plus) - &first)))
        .fold(0.0, f64::max);
    worst / problem.energy_norm(problem.velocity())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// A single planar frictional contact whose sticking, once reached, holds
    /// (`|W_tn| ≤ μ W_tt`, so slip never reverses) has a single outcome:
    /// every sample agrees, whatever the caps, up to where the termination
    /// rule lets it stop.
    ///
    /// Once it sticks, the normal velocity rises by the Schur complement
    /// `schur = W_nn − W_tn²/W_tt` per unit of impulse. With
    /// `h = |u_n|/(4 W_nn)` the sticking phase takes up to `4 W_nn / schur`
    /// steps, twice that under the mixed caps' smallest draws; the problems
    /// whose count exceeds `MAX_STEPS` (normal and tangent rows nearly
    /// parallel) cannot end within any cap and are left out.
    ///
    /// A sample ends once `u_n ≥ −ε s` (`termination_tol`), so two samples'
    /// last sticking impulses differ by at most `δ = ε s / schur`, along
    /// `λ = δ (1, −W_tn/W_tt)`, whose velocity change has energy norm
    /// `√(λᵀWλ) = δ √schur = ε s / √schur`: that, relative to `‖v⁻‖_M`, plus
    /// round-off, bounds the spread. (Rows nearly parallel make it large:
    /// `W_nn / schur = 1.1e4` gave a spread of 2.1e-8, one sample ending at
    /// `u_n = −3.9e-10`, `ε s = 1.3e-9`.)
    #[test]
    fn single_frictional_contact_has_one_outcome(seed in any::<u64>(), n in 2usize..7) {
        let problem = common::random_problem(seed, n, 1, false, 3.0);
        let w = &problem.operators().delassus;
        let mu = problem.contacts()[0].friction;
        prop_assume!(w[(0, 1)].abs() <= mu * w[(1, 1)]);
        let schur = w[(0, 0)] - w[(0, 1)] * w[(0, 1)] / w[(1, 1)];
        prop_assume!(8.0 * w[(0, 0)] / schur <= MAX_STEPS as f64);
        let s = spread(&problem, problem.default_step_size() / 2.0, seed);
        let termination = SamplerOptions::default().termination_tol * problem.velocity_scale();
        let allowed = termination / schur.sqrt() / problem.energy_norm(problem.velocity()) + 1e-9;
        prop_assert!(s <= allowed, "samples spread by {s:e}, more than {allowed:e}");
    }
}

/// Where slip reverses (planar, `|W_tn| > μ W_tt`) or the polygonal friction
/// force changes vertex (spatial), the *discrete* Routh steps resolve the
/// switch within one step, so samples differ by O(h): the set shrinks to
/// the single continuous-model outcome as `h → 0`.
#[test]
fn single_contact_spread_vanishes_with_the_step_size() {
    let mut checked = 0;
    for seed in 0..24u64 {
        let spatial = seed % 2 == 0;
        let problem = common::random_problem(seed, 3 + (seed % 3) as usize, 1, spatial, 2.0);
        let h = problem.default_step_size() / 32.0;
        let coarse = spread(&problem, h, seed);
        if coarse < 1e-6 {
            continue;
        }
        let fine = spread(&problem, h / 16.0, seed);
        assert!(fine <= coarse / 3.0, "seed {seed}: spread {coarse:e} at h, {fine:e} at h/16");
        checked += 1;
    }
    assert!(checked >= 4, "only {checked} problems had a visible spread");
}
