//! Results do not depend on units: scaling the mass matrix (kilograms to
//! grams, or one coordinate's inertia to a tiny value) changes impulses,
//! not velocities, so the simultaneous and sequential baselines and the
//! sampled sets must give the same post-impact velocities, and every
//! outcome must be a possible one (no contact still approaching, no energy
//! gained).

use impactset::impact::{is_admissible, sequential, simultaneous};
use impactset::{Contact, ImpactProblem, SamplerOptions, Selection};
use nalgebra::{DMatrix, DVector, dvector};

/// The README's rocking block (`examples/problems/rocking-block.json`) with
/// its mass matrix multiplied by `mass_scale`.
fn rocking_block(mass_scale: f64) -> ImpactProblem {
    let contacts = vec![
        Contact::planar("A", dvector![0.0, 1.0, -0.5], dvector![1.0, 0.0, 1.0], 1.0),
        Contact::planar("B", dvector![0.0, 1.0, 0.5], dvector![1.0, 0.0, 1.0], 1.0),
    ];
    let mass = DMatrix::from_diagonal(&dvector![1.0, 1.0, 0.4166666666666667]) * mass_scale;
    ImpactProblem::new(mass, dvector![0.0, -0.4429446918888658, 0.0], contacts).unwrap()
}

fn assert_admissible(problem: &ImpactProblem, v: &[f64], what: &str) {
    let v = DVector::from_column_slice(v);
    let un = problem.normal_velocities(&v);
    let ratio = problem.kinetic_energy(&v) / problem.kinetic_energy(problem.velocity());
    assert!(is_admissible(problem, &v), "{what}: Jn v⁺ = {un:?}, E⁺/E⁻ = {ratio}");
    // Independently of `is_admissible`'s tolerances: nothing approaching
    // beyond round-off, no energy gained beyond round-off.
    assert!(un.iter().all(|&x| x >= -1e-9), "{what}: Jn v⁺ = {un:?}");
    assert!(ratio <= 1.0 + 1e-9, "{what}: E⁺/E⁻ = {ratio}");
}

/// The distinct simultaneous velocities, sorted for comparison.
fn simultaneous_velocities(problem: &ImpactProblem) -> Vec<Vec<f64>> {
    let mut v: Vec<Vec<f64>> = simultaneous(problem).outcomes.into_iter().map(|o| o.v_plus).collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v
}

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

#[test]
fn simultaneous_outcomes_do_not_depend_on_the_unit_of_mass() {
    let reference = simultaneous_velocities(&rocking_block(1.0));
    assert_eq!(reference.len(), 1, "{reference:?}");
    for scale in [1e-6, 1e-3, 1e3, 1e6] {
        let problem = rocking_block(scale);
        let outcomes = simultaneous_velocities(&problem);
        assert_eq!(outcomes.len(), reference.len(), "M × {scale:e}: {outcomes:?}");
        for (v, r) in outcomes.iter().zip(&reference) {
            assert!(close(v, r, 1e-9), "M × {scale:e}: {v:?} vs {r:?}");
            assert_admissible(&problem, v, &format!("simultaneous, M × {scale:e}"));
        }
    }
}

#[test]
fn simultaneous_outcomes_on_an_ill_conditioned_mass_matrix_are_solutions() {
    // M = diag(1, 1, 1e-8): the rotation is almost free. Every returned
    // outcome must be a possible one; the enumeration used to return six
    // with `Jn v⁺ ≈ −4e6` and `E⁺/E⁻` up to 1.7e5.
    let contacts = vec![
        Contact::planar("A", dvector![0.0, 1.0, -0.5], dvector![1.0, 0.0, 1.0], 1.0),
        Contact::planar("B", dvector![0.0, 1.0, 0.5], dvector![1.0, 0.0, 1.0], 1.0),
    ];
    let problem =
        ImpactProblem::new(DMatrix::from_diagonal(&dvector![1.0, 1.0, 1e-8]), dvector![0.0, -0.44, 0.0], contacts)
            .unwrap();
    let outcomes = simultaneous_velocities(&problem);
    assert!(!outcomes.is_empty());
    for v in &outcomes {
        assert_admissible(&problem, v, "simultaneous, M = diag(1, 1, 1e-8)");
    }
}

#[test]
fn sequential_outcomes_do_not_depend_on_the_unit_of_mass() {
    let reference: Vec<Vec<f64>> = sequential(&rocking_block(1.0)).into_iter().map(|o| o.v_plus).collect();
    for scale in [1e-6, 1e6] {
        let problem = rocking_block(scale);
        for (o, r) in sequential(&problem).iter().zip(&reference) {
            assert!(close(&o.v_plus, r, 1e-9), "M × {scale:e} {}: {:?} vs {r:?}", o.label, o.v_plus);
            assert_admissible(&problem, &o.v_plus, &format!("{}, M × {scale:e}", o.label));
        }
    }
}

#[test]
fn sampled_sets_do_not_depend_on_the_unit_of_mass() {
    // The problem file's h = 0.3 is an impulse: with M × c the same
    // histories take h = 0.3 c. With the same h, one step resolves the
    // whole impact at M × 1e-6 and every sample must still be accepted.
    for selection in Selection::ALL {
        let options =
            SamplerOptions { samples: 400, selection, step_size: Some(0.3), steps: Some(10), ..Default::default() };
        let reference = impactset::sample_set(&rocking_block(1.0), &options);
        assert_eq!(reference.accepted_count(), 400, "{selection:?}");
        for scale in [1e-6, 1e6] {
            let problem = rocking_block(scale);
            let scaled = SamplerOptions { step_size: Some(0.3 * scale), ..options.clone() };
            let set = impactset::sample_set(&problem, &scaled);
            assert_eq!(set.accepted_count(), 400, "{selection:?}, M × {scale:e}, h × {scale:e}");
            for (a, b) in reference.samples.iter().zip(&set.samples) {
                assert!(close(&a.v_plus, &b.v_plus, 1e-9), "{selection:?}, M × {scale:e}: {a:?} vs {b:?}");
            }
            // At M × 1e6 the same h would need 10⁶ times the steps; at
            // M × 1e-6 it is a coarser history, which must still complete.
            if scale > 1.0 {
                continue;
            }
            let set = impactset::sample_set(&problem, &options);
            assert_eq!(set.accepted_count(), 400, "{selection:?}, M × {scale:e}, h = 0.3");
            for s in set.accepted() {
                assert_admissible(&problem, &s.v_plus, &format!("{selection:?}, M × {scale:e}, h = 0.3"));
            }
        }
    }
}

#[test]
fn built_in_scenes_solve_in_their_own_units() {
    // The Delassus block is rescaled for Lemke only outside [2⁻¹⁰, 2¹⁰]:
    // every built-in scene lies inside, so its outputs are those of the
    // step LCP as written (the golden files check the bits).
    for id in impactset::scene::ids() {
        let scene = impactset::scene::builtin(id).unwrap();
        let ops = scene.problem.operators();
        let largest = ops.largest_mobility();
        assert_eq!(impactset::impact::delassus_scale(ops), 1.0, "{id}: max W_rr = {largest:e}");
    }
}
