//! The pilot run that derives the step cap (docs/model.md §11) is bounded
//! and says what it saw; failed step LCPs are counted as failures, not as
//! samples that ran out of steps (run summaries and the pilot alike); and
//! restitution on wedged contacts is flagged (docs/model.md §4b).

use impactset::run::{Backend, ChunkedRun, RunSummary};
use impactset::sampling::{LcpFailure, PILOT_BUDGET, PILOT_CAP, PILOT_SAMPLES, Sample, SampleSet, default_steps};
use impactset::{Contact, ImpactProblem, ProblemWarning, SamplerOptions, Selection};
use nalgebra::{DMatrix, dvector};

fn data(name: &str) -> ImpactProblem {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name);
    impactset::io::load_problem(&path).unwrap().problem
}

/// The rocking block (examples/problems/rocking-block.json) with friction
/// `mu` at both corners.
fn rocking_block(mu: f64) -> ImpactProblem {
    let m = DMatrix::from_diagonal(&dvector![1.0, 1.0, 1.0 / 2.4]);
    let a = Contact::planar("A", dvector![0.0, 1.0, -0.5], dvector![1.0, 0.0, 1.0], mu);
    let b = Contact::planar("B", dvector![0.0, 1.0, 0.5], dvector![1.0, 0.0, 1.0], mu);
    ImpactProblem::new(m, dvector![0.0, -0.4429446918888658, 0.0], vec![a, b]).unwrap()
}

fn words(name: &str) -> String {
    format!("--{}", name.replace('_', "-"))
}

#[test]
fn the_pilot_on_a_nearly_wedged_problem_with_restitution_stops_within_its_budget_and_says_what_it_saw() {
    let wedge = data("wedge-restitution.json");
    let options = SamplerOptions { selection: Selection::Lemke, threads: Some(1), ..SamplerOptions::default() };
    let cap = default_steps(&wedge, &options);
    assert!(cap.pilot_steps <= PILOT_BUDGET, "{cap:?}");
    assert_eq!(cap.ended + cap.unterminated + cap.failed(), PILOT_SAMPLES, "{cap:?}");
    // Its expansions hardly release work: the pilot stops following its
    // samples before their cap.
    assert!(cap.unterminated > 0 && cap.reached < PILOT_CAP, "{cap:?}");
    assert_eq!(cap.steps, PILOT_CAP, "{cap:?}");
    let warning = cap.warning(&words).unwrap();
    assert!(warning.contains(&format!("had not ended within {} steps", cap.reached)), "{warning}");
    assert!(warning.contains(&format!("{PILOT_BUDGET} steps in all")), "{warning}");
    assert!(warning.contains(&format!("{} of {PILOT_SAMPLES}", cap.ended)) || cap.ended == 0, "{warning}");
}

#[test]
fn the_wedge_without_restitution_ends_every_pilot_sample_and_is_not_flagged() {
    let wedge = data("wedge-restitution.json").with_restitution(&[0.0; 4]).unwrap();
    assert!(!wedge.warnings().iter().any(|w| matches!(w, ProblemWarning::WedgedRestitution { .. })));
    let options = SamplerOptions { selection: Selection::Lemke, threads: Some(1), ..SamplerOptions::default() };
    let cap = default_steps(&wedge, &options);
    assert_eq!((cap.ended, cap.unterminated, cap.failed()), (PILOT_SAMPLES, 0, 0), "{cap:?}");
    assert!(cap.warning(&words).is_none());
}

#[test]
fn restitution_on_wedged_contacts_is_flagged_by_name() {
    // The long-running four-contact repro is nearly wedged but not wedged:
    // a thin cone of velocities separates all four contacts (338 of 400 000
    // random directions), so it is not flagged.
    let nearly = data("wedge-restitution.json");
    assert!(!nearly.warnings().iter().any(|w| matches!(w, ProblemWarning::WedgedRestitution { .. })));
    // A block between floor and ceiling: each contact's push only drives
    // the other into approach. The same block under the floor alone can
    // leave it, and is not flagged.
    let floor = Contact::planar("floor", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.5).with_restitution(0.5);
    let ceiling = Contact::planar("ceiling", dvector![0.0, -1.0], dvector![1.0, 0.0], 0.5).with_restitution(0.5);
    let both = ImpactProblem::new(DMatrix::identity(2, 2), dvector![0.3, -1.0], vec![floor.clone(), ceiling]).unwrap();
    assert!(
        both.warnings()
            .iter()
            .any(|w| matches!(w, ProblemWarning::WedgedRestitution { contacts, .. } if contacts == &[0, 1]))
    );
    let alone = ImpactProblem::new(DMatrix::identity(2, 2), dvector![0.3, -1.0], vec![floor]).unwrap();
    assert!(alone.warnings().is_empty(), "{:?}", alone.warnings());
}

#[test]
fn built_in_scenes_with_restitution_are_not_flagged_as_wedged() {
    for id in impactset::scene::ids() {
        let scene = impactset::scene::builtin(id).unwrap();
        let e = vec![0.5; scene.problem.m()];
        let elastic = scene.problem.with_restitution(&e).unwrap();
        assert!(!elastic.warnings().iter().any(|w| matches!(w, ProblemWarning::WedgedRestitution { .. })), "{id}");
    }
}

#[test]
fn the_pilot_does_not_read_failed_lemke_solves_as_needing_more_steps() {
    // At μ = 10¹² Lemke's pivot tolerance, which scales with ‖A_R‖∞ ≈ μ,
    // hides entries of the Delassus block and some random-lemke solves fail
    // (docs/model.md §9): the pilot counts those apart and derives K from
    // the samples that ended.
    let problem = rocking_block(1e12);
    let options = SamplerOptions { selection: Selection::RandomLemke, threads: Some(1), ..SamplerOptions::default() };
    let cap = default_steps(&problem, &options);
    assert!(cap.failed() > 0, "{cap:?}");
    assert_eq!(cap.unterminated, 0, "{cap:?}");
    assert_eq!(cap.ended + cap.failed(), PILOT_SAMPLES);
    assert!(cap.steps < PILOT_CAP && cap.steps >= 2 * cap.pilot_max, "{cap:?}");
    let warning = cap.warning(&words).unwrap();
    assert!(warning.contains("could not be solved") && warning.contains("--selection"), "{warning}");
    assert!(!warning.contains("had not ended"), "{warning}");
}

fn sample(index: u64, terminated: bool, failure: Option<LcpFailure>) -> Sample {
    Sample {
        index,
        v_plus: vec![0.0],
        steps: 3,
        terminated,
        accepted: terminated,
        max_residual: if failure.is_some() { f64::INFINITY } else { 0.0 },
        energy_before: 1.0,
        energy_after: 0.5,
        fallback_steps: 0,
        certified_steps: 0,
        energy_guard: false,
        lcp_failure: failure,
    }
}

#[test]
fn failed_lemke_solves_are_reported_as_failures_not_as_running_out_of_steps() {
    let set = SampleSet {
        n: 1,
        samples: vec![
            sample(0, true, None),
            sample(1, false, Some(LcpFailure::Ray)),
            sample(2, false, Some(LcpFailure::Inaccurate)),
            sample(3, false, None),
        ],
    };
    let tally = set.tally();
    assert_eq!((tally.lcp_failed, tally.rejected_out_of_steps(), tally.rejected_unterminated()), (2, 1, 3));
    let options = SamplerOptions { samples: 4, steps: Some(20), step_size: Some(0.3), ..SamplerOptions::default() };
    let backend = Backend::cpu(None).unwrap();
    let summary = RunSummary::new("p", &tally, &options, &backend, "", &ChunkedRun::default());
    assert_eq!((summary.rejected_unterminated, summary.rejected_failed), (1, 2));
    assert_eq!((summary.lcp_rays, summary.lcp_inaccurate), (1, 1));
    let advice = summary.advice(&words).unwrap();
    assert!(advice.contains("2 (50.0%) stopped on a step LCP that could not be solved"), "{advice}");
    assert!(advice.contains("1 (25.0%) did not end the impact within K = 20"), "{advice}");
    let json = serde_json::to_value(&summary).unwrap();
    assert_eq!((json["rejected_failed"].as_u64(), json["lcp_rays"].as_u64()), (Some(2), Some(1)));
}
