//! Regression tests of the simultaneous baseline's acceptance check
//! (docs/model.md §2, "The acceptance check"): an outcome friction cannot
//! produce, spurious outcomes at large μ, and an enumeration that keeps
//! nothing, each checked against the LCP's own definition.

use impactset::impact::{SolutionMethod, definition_violation, simultaneous};
use impactset::{Contact, ImpactProblem, scene};
use nalgebra::{DMatrix, DVector, dvector};

/// The slide `x⁺` of every listed outcome, and that each solves the LCP.
fn listed(problem: &ImpactProblem) -> (SolutionMethod, Vec<DVector<f64>>) {
    let sim = simultaneous(problem);
    for (o, lambda) in sim.outcomes.iter().zip(&sim.impulses) {
        let violation = definition_violation(problem, lambda);
        assert!(violation <= 1.0, "{}: {:?} violates the LCP ({violation:e})", o.label, o.v_plus);
        assert!(lambda.iter().all(|&l| l >= 0.0), "{}: a negative impulse {lambda:?}", o.label);
    }
    (sim.method, sim.outcomes.iter().map(|o| DVector::from_column_slice(&o.v_plus)).collect())
}

/// A block between floor and ceiling sliding at 0.3: friction only slows
/// the slide, so no outcome has `|ẋ⁺| > 0.3`; the sliding outcome
/// `v⁺ = (0.05, 0, 0)` (both floor contacts slipping at the cone's edge:
/// `λn = (1/12, 5/12)`, friction `μ Σλn = 0.25`) is listed.
#[test]
fn a_wedged_block_gets_no_outcome_faster_than_its_slide() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/block-between-floor-and-ceiling.json");
    let problem = impactset::io::load_problem(&path).unwrap().problem;
    let (method, outcomes) = listed(&problem);
    assert_eq!(method, SolutionMethod::Enumerated);
    for v in &outcomes {
        assert!(v[0].abs() <= 0.3 + 1e-12, "the slide sped up: {v:?}");
    }
    let slide = dvector![0.05, 0.0, 0.0];
    assert!(outcomes.iter().any(|v| (v - &slide).amax() <= 1e-12), "{outcomes:?}");
}

fn rocking_block(mu: f64, twin: bool) -> ImpactProblem {
    let p = scene::builtin("rocking-block").unwrap().problem;
    let mut contacts = p.contacts().to_vec();
    contacts.iter_mut().for_each(|c| c.friction = mu);
    if twin {
        let mut t = contacts[0].clone();
        t.name = "twin".into();
        contacts.push(t);
    }
    ImpactProblem::new(p.mass().clone(), p.velocity().clone(), contacts).unwrap()
}

/// The rocking block dropped flat with μ ≥ 10⁷: both corners stick and it
/// stops, `v⁺ = 0` (the plastic impact of a block that cannot slide), the
/// only outcome; no spurious ones carried by round-off of huge friction.
#[test]
fn a_huge_friction_coefficient_gives_no_spurious_simultaneous_outcome() {
    for (mu, twin) in [(1e12, false), (1e8, false), (1e7, true)] {
        let problem = rocking_block(mu, twin);
        let (method, outcomes) = listed(&problem);
        assert_eq!(method, SolutionMethod::Enumerated, "μ = {mu:e}");
        assert_eq!(outcomes.len(), 1, "μ = {mu:e}: {outcomes:?}");
        let speed = problem.energy_norm(problem.velocity());
        assert!(problem.energy_norm(&outcomes[0]) <= 1e-8 * speed, "μ = {mu:e}: {:?}", outcomes[0]);
    }
}

/// A block whose rotation has an inertia of 10⁻⁸ lands on two corners
/// with μ = 0.3: both corners stick (`v⁺ = 0`, friction 0.2 of the 0.3
/// the normal impulse 1 allows). The LCP always has a solution, and it is
/// listed despite the round-off of the 10⁸ mobility.
#[test]
fn an_ill_conditioned_block_gets_its_simultaneous_outcome() {
    let problem = ImpactProblem::new(
        DMatrix::from_diagonal(&dvector![1.0, 1.0, 1e-8]),
        dvector![0.2, -1.0, 0.0],
        vec![
            Contact::planar("A", dvector![0.0, 1.0, -1.0], dvector![1.0, 0.0, 0.5], 0.3),
            Contact::planar("B", dvector![0.0, 1.0, 1.0], dvector![1.0, 0.0, 0.5], 0.3),
        ],
    )
    .unwrap();
    let (method, outcomes) = listed(&problem);
    assert_ne!(method, SolutionMethod::Failed);
    assert_eq!(outcomes.len(), 1, "{outcomes:?}");
    assert!(outcomes[0].amax() <= 1e-6, "{:?}", outcomes[0]);
}
