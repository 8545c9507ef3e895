//! The pilot-derived default step cap (docs/model.md §11): random
//! well-posed problems accept at least 99 % of their samples under it, and
//! the cap depends on the problem, `h` and the rule only.

use impactset::scene::random::{coupled_problem, random_problem};
use impactset::{ImpactProblem, SamplerOptions, Selection, sample_set};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Twenty random problems of several shapes: independent and coupled
/// contacts, planar and spatial, low and high friction.
fn problems() -> Vec<(String, ImpactProblem)> {
    let mut out = Vec::new();
    for seed in 0..10u64 {
        let (n, m) = (3 + (seed % 4) as usize, 1 + (seed % 3) as usize);
        out.push((format!("random {seed}"), random_problem(seed, n, m, seed % 2 == 1, 2.0)));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    for k in 0..10usize {
        let spatial = (k % 2 == 1).then_some(4);
        let coupling = [0.05, 0.3, f64::INFINITY][k % 3];
        let problem = coupled_problem(&mut rng, 4 + k % 3, 2 + k % 2, spatial, coupling, 0.2..3.0);
        out.push((format!("coupled {k}"), problem));
    }
    out
}

#[test]
fn random_problems_accept_99_percent_under_the_derived_cap() {
    let mut fixed_cap_failures = 0;
    for (name, problem) in problems() {
        let base = SamplerOptions {
            samples: 2048,
            seed: 5,
            selection: Selection::RandomLemke,
            threads: Some(2),
            ..SamplerOptions::default()
        };
        let cap = impactset::sampling::default_steps(&problem, &base);
        assert_eq!(cap.unterminated, 0, "{name}: a well-posed random problem's pilot impacts all end ({cap:?})");
        let set = sample_set(&problem, &SamplerOptions { steps: Some(cap.steps), ..base.clone() });
        let share = set.accepted_count() as f64 / 2048.0;
        assert!(share >= 0.99, "{name}: K = {} accepted {share} ({cap:?})", cap.steps);
        let fixed = sample_set(&problem, &SamplerOptions { steps: Some(10), ..base });
        if (fixed.accepted_count() as f64) < 0.99 * 2048.0 {
            fixed_cap_failures += 1;
        }
        println!(
            "{name}: K = {} (pilot max {}), accepted {share:.4}, at K = 10: {:.4}",
            cap.steps,
            cap.pilot_max,
            fixed.accepted_count() as f64 / 2048.0
        );
    }
    println!("{fixed_cap_failures} of 20 accept under 99 % with K = 10");
    assert!(fixed_cap_failures > 0, "the problems should include some that a fixed K = 10 fails");
}

#[test]
fn the_cap_does_not_depend_on_the_seed_or_the_thread_count() {
    for (name, problem) in problems().into_iter().take(6) {
        let options = SamplerOptions { selection: Selection::All, ..SamplerOptions::default() };
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let a = one.install(|| impactset::sampling::default_steps(&problem, &options));
        let b = impactset::sampling::default_steps(&problem, &SamplerOptions { seed: 99, ..options.clone() });
        assert_eq!(a, b, "{name}");
        let c = impactset::sampling::default_steps(&problem, &SamplerOptions { threads: Some(3), ..options.clone() });
        assert_eq!(a, c, "{name}: on a pool of the run's own threads");
        assert!(a.steps >= 2 * a.pilot_max && a.steps >= impactset::sampling::MIN_STEPS, "{name}: {a:?}");
    }
}

#[test]
fn an_impact_that_cannot_end_is_reported() {
    // A tiny step: the pilot's impacts need far more than its cap.
    let problem = random_problem(3, 4, 2, false, 1.0);
    let h = problem.default_step_size() * 1e-5;
    let options = SamplerOptions { step_size: Some(h), selection: Selection::Lemke, ..SamplerOptions::default() };
    let cap = impactset::sampling::default_steps(&problem, &options);
    assert!(cap.unterminated > 0, "{cap:?}");
    assert_eq!(cap.steps, impactset::sampling::PILOT_CAP);
    assert!(cap.warning(&|name| name.to_string()).unwrap().contains("had not ended within"));
}

#[test]
fn a_cancelled_pilot_gives_no_cap_and_an_uncancelled_one_the_same_cap() {
    use std::sync::atomic::AtomicBool;
    for (name, problem) in problems().into_iter().take(3) {
        let options = SamplerOptions { selection: Selection::All, ..SamplerOptions::default() };
        let cap = impactset::sampling::default_steps(&problem, &options);
        let running = AtomicBool::new(false);
        assert_eq!(
            impactset::sampling::default_steps_with(&problem, &options, &|_| {}, Some(&running)),
            Some(cap),
            "{name}"
        );
        let cancelled = AtomicBool::new(true);
        assert_eq!(
            impactset::sampling::default_steps_with(&problem, &options, &|_| {}, Some(&cancelled)),
            None,
            "{name}"
        );
    }
}

/// A run that leaves `K` unset samples under the pilot's `K`, whichever
/// entry point it goes through; a set `K` is kept and runs no pilot; and a
/// cancelled pilot leaves `K` unset.
#[test]
fn an_unset_cap_is_resolved_once_to_the_pilots() {
    use impactset::run::{Backend, RunControl};
    use std::sync::atomic::AtomicBool;
    for (name, problem) in problems().into_iter().take(4) {
        let unset = SamplerOptions { samples: 64, seed: 3, threads: Some(1), ..SamplerOptions::default() };
        assert_eq!(unset.steps, None, "the library's default leaves K to the pilot");
        let pilot = impactset::sampling::default_steps(&problem, &unset);
        let mut resolved = unset.clone();
        let found = resolved.resolve_steps(&problem, &|_| {}, None).unwrap();
        assert_eq!((resolved.steps, found), (Some(pilot.steps), Some(pilot)), "{name}");
        let given = sample_set(&problem, &resolved);
        assert_eq!(sample_set(&problem, &unset), given, "{name}: sample_set");
        let backend = Backend::cpu(Some(1)).unwrap();
        let run = impactset::run::sample(&backend, &problem, &unset, &RunControl::default()).unwrap();
        assert_eq!(run, given, "{name}: run::sample");
        let one = impactset::sampling::sample_one(&problem, &unset, 7);
        assert_eq!(one, given.samples[7], "{name}: sample_one");

        let mut set = SamplerOptions { steps: Some(pilot.steps + 1), ..unset.clone() };
        let never = |_: usize| panic!("a set K runs no pilot");
        assert_eq!(set.resolve_steps(&problem, &never, None), Ok(None), "{name}");
        assert_eq!(set.steps, Some(pilot.steps + 1), "{name}");

        let mut cancelled = unset.clone();
        let flag = AtomicBool::new(true);
        let refused = cancelled.resolve_steps(&problem, &|_| {}, Some(&flag));
        assert_eq!((refused, cancelled.steps), (Err(impactset::sampling::PilotCancelled), None), "{name}");
    }
}
