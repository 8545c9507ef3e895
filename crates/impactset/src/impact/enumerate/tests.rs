//! Tests of the mode enumerator against the brute-force oracle and Lemke.

use nalgebra::DVector;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{EnumeratorOptions, StepEnumerator, brute_force};
use crate::lcp::{LcpResidual, LemkeOptions, LemkeWorkspace};
use crate::scene::random::{coupled_problem, random_step_rhs as random_b};
use crate::{Contact, ImpactProblem};

/// A random impact problem: `m` contacts (planar, or spatial with `d`
/// directions). `coupled`: the contacts' rows are small perturbations of one
/// another and friction is high (compass-gait-like steps with several
/// solutions).
fn random_problem(rng: &mut ChaCha8Rng, n: usize, m: usize, spatial: Option<usize>, coupled: bool) -> ImpactProblem {
    if coupled {
        coupled_problem(rng, n, m, spatial, 0.6, 2.0..4.0)
    } else {
        coupled_problem(rng, n, m, spatial, f64::INFINITY, 0.0..1.5)
    }
}

/// Scale of velocity changes for comparisons.
fn dv_scale(problem: &ImpactProblem, b: &[f64]) -> f64 {
    let ops = problem.operators();
    let cap = b[..ops.m].iter().fold(0.0f64, |a, &x| a.max(x));
    ops.minv_jt.amax() * cap * (1.0 + ops.friction.iter().fold(0.0f64, |a, &x| a.max(x))) + 1e-300
}

fn contains(set: &[Vec<f64>], dv: &[f64], scale: f64) -> bool {
    set.iter().any(|s| s.iter().zip(dv).all(|(a, b)| (a - b).abs() <= 1e-6 * scale))
}

fn enumerated_changes(e: &StepEnumerator, count: usize) -> Vec<Vec<f64>> {
    (0..count).map(|k| e.velocity_change(k).to_vec()).collect()
}

/// Enumerates the step `b`, asserts the search exhaustive and every
/// solution valid; returns their velocity changes.
fn enumerate_checked(problem: &ImpactProblem, e: &mut StepEnumerator, b: &[f64]) -> Vec<Vec<f64>> {
    let count = e.enumerate(problem.operators(), b);
    assert!(e.exhaustive());
    assert_solutions_valid(problem, e, count, b);
    enumerated_changes(e, count)
}

/// Checks every returned solution against the LCP and against its reported
/// `Δv`; returns the residual bound used.
fn assert_solutions_valid(problem: &ImpactProblem, e: &StepEnumerator, count: usize, b: &[f64]) {
    let ops = problem.operators();
    let size = ops.step_size_n();
    let scale = b.iter().fold(0.0f64, |a, x| a.max(x.abs())) * (1.0 + ops.delassus.amax()) + 1e-300;
    let mut w = vec![0.0; size];
    for k in 0..count {
        let z = e.solution(k);
        let r = LcpResidual::compute(&ops.step_matrix, b, z, &mut w);
        assert!(r.violation() <= 1e-9 * scale * scale.max(1.0), "solution {k} residual {r:?}, scale {scale}");
        let lambda = DVector::from_iterator(ops.m + ops.m * ops.d, z[ops.layout().impulses()].iter().copied());
        let dv = &ops.minv_jt * lambda;
        let reported = e.velocity_change(k);
        let s = dv_scale(problem, b);
        assert!(dv.iter().zip(reported).all(|(a, b)| (a - b).abs() <= 1e-8 * s), "Δv of solution {k}");
    }
}

/// The mode enumerator and the brute-force oracle agree on the set of
/// distinct velocity changes (both inclusions), over `cases` random steps.
/// Returns how many steps had more than one solution.
fn agree_with_oracle(seed: u64, cases: usize, n: usize, m: usize, spatial: Option<usize>, coupled: bool) -> usize {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut several = 0;
    for case in 0..cases {
        let problem = random_problem(&mut rng, n, m, spatial, coupled);
        let ops = problem.operators();
        let mut e = StepEnumerator::new(ops);
        for _ in 0..3 {
            let b = random_b(&mut rng, &problem);
            let found = enumerate_checked(&problem, &mut e, &b);
            let oracle: Vec<Vec<f64>> =
                brute_force::solutions(ops, &b).into_iter().map(|(_, dv)| dv.as_slice().to_vec()).collect();
            let scale = dv_scale(&problem, &b);
            for (k, dv) in oracle.iter().enumerate() {
                assert!(
                    contains(&found, dv, scale),
                    "seed {seed} case {case}: oracle solution {k} {dv:?} missed; found {found:?}"
                );
            }
            for (k, dv) in found.iter().enumerate() {
                assert!(
                    contains(&oracle, dv, scale),
                    "seed {seed} case {case}: solution {k} {dv:?} not in oracle {oracle:?}"
                );
            }
            assert_eq!(found.len(), oracle.len(), "seed {seed} case {case}: {found:?} vs {oracle:?}");
            several += usize::from(found.len() > 1);
        }
    }
    several
}

#[test]
fn one_planar_contact_matches_the_oracle() {
    agree_with_oracle(1, 60, 3, 1, None, false);
}

#[test]
fn two_planar_contacts_match_the_oracle() {
    agree_with_oracle(2, 60, 4, 2, None, false);
}

#[test]
fn coupled_planar_contacts_with_several_solutions_match_the_oracle() {
    // n = 3 < 4 reduced rows: a singular reduced Delassus matrix.
    let several = agree_with_oracle(3, 60, 3, 2, None, true) + agree_with_oracle(13, 60, 4, 2, None, true);
    // The construction must actually produce steps with several solutions (about 7 % of them).
    assert!(several >= 10, "only {several} steps had several solutions");
}

#[test]
fn three_planar_contacts_match_the_oracle() {
    agree_with_oracle(4, 8, 7, 3, None, false);
    agree_with_oracle(5, 8, 7, 3, None, true);
}

#[test]
fn spatial_contacts_match_the_oracle() {
    agree_with_oracle(6, 40, 6, 1, Some(4), false);
    agree_with_oracle(7, 15, 6, 2, Some(4), false);
    let several = agree_with_oracle(8, 40, 4, 2, Some(4), true);
    assert!(several >= 1, "no spatial step had several solutions");
}

#[test]
fn frictionless_contacts_and_zero_caps_match_the_oracle() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    for case in 0..80 {
        let problem = random_problem(&mut rng, 4, 2, None, case % 2 == 0);
        // Contact 0 frictionless.
        let mut contacts = problem.contacts().to_vec();
        contacts[0].friction = 0.0;
        let problem = ImpactProblem::new(problem.mass().clone(), problem.velocity().clone(), contacts).unwrap();
        let ops = problem.operators();
        let mut e = StepEnumerator::new(ops);
        let mut b = random_b(&mut rng, &problem);
        if case % 3 == 0 {
            // p = 0 for one contact: its cap is zero.
            b[case % 2] = 0.0;
        }
        let count = e.enumerate(ops, &b);
        assert_solutions_valid(&problem, &e, count, &b);
        let found = enumerated_changes(&e, count);
        let oracle: Vec<Vec<f64>> =
            brute_force::solutions(ops, &b).into_iter().map(|(_, dv)| dv.as_slice().to_vec()).collect();
        let scale = dv_scale(&problem, &b);
        assert_eq!(found.len(), oracle.len(), "case {case}: {found:?} vs {oracle:?}");
        assert!(oracle.iter().all(|dv| contains(&found, dv, scale)), "case {case}");
    }
}

#[test]
fn routh_step_all_reports_every_choice_and_exhaustiveness() {
    use crate::Selection;
    use crate::impact::{StepScales, StepWorkspace, routh_step};
    use crate::stream::{SampleStreams, stream_key};

    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let mut several = 0;
    for case in 0..100 {
        let problem = random_problem(&mut rng, 4, 2, None, true);
        let ops = problem.operators();
        let b = random_b(&mut rng, &problem);
        let (caps, u) = (&b[..ops.m], &b[ops.m..ops.step_size_n() - ops.m]);
        let mut ws = StepWorkspace::new(ops);
        let mut streams = SampleStreams::new(&stream_key(case), 0);
        let mut lambda = vec![0.0; ops.m + ops.m * ops.d];
        let scales = StepScales { velocity: problem.velocity_scale(), impulse: 1.0 };
        let outcome =
            routh_step(ops, u, caps, None, scales, Selection::All, &mut streams, &mut ws, &mut lambda).unwrap();
        assert!(outcome.exhaustive, "case {case}");
        assert!(outcome.residual < 1e-9, "case {case}: {outcome:?}");
        let mut e = StepEnumerator::new(ops);
        assert_eq!(outcome.choices, e.enumerate(ops, &b));
        several += usize::from(outcome.choices > 1);
        // The impulse taken is one of the enumerated solutions.
        let impulses = ops.layout().impulses();
        assert!((0..outcome.choices).any(|k| e.solution(k)[impulses.clone()] == lambda[..]), "case {case}");
        let lemke =
            routh_step(ops, u, caps, None, scales, Selection::Lemke, &mut streams, &mut ws, &mut lambda).unwrap();
        assert!(!lemke.exhaustive);
    }
    assert!(several > 0);
}

#[test]
fn unique_steps_give_one_solution_equal_to_lemke() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut lemke = LemkeWorkspace::new(1);
    for case in 0..200 {
        // A single contact (any friction), or several frictionless ones.
        let (m, spatial) = match case % 4 {
            0 => (1, None),
            1 => (1, Some(8)),
            2 => (3, None),
            _ => (2, Some(4)),
        };
        let mut problem = random_problem(&mut rng, 7, m, spatial, false);
        if m > 1 {
            let contacts = problem.contacts().iter().map(|c| Contact { friction: 0.0, ..c.clone() }).collect();
            let d = Some(problem.friction_directions());
            problem = ImpactProblem::with_friction_directions(
                problem.mass().clone(),
                problem.velocity().clone(),
                contacts,
                d,
            )
            .unwrap();
        }
        let ops = problem.operators();
        let mut e = StepEnumerator::new(ops);
        let b = random_b(&mut rng, &problem);
        let count = e.enumerate(ops, &b);
        assert_eq!(count, 1, "case {case}");
        let sol = lemke.solve(&ops.step_matrix, &b, &LemkeOptions::default()).unwrap();
        let lambda = DVector::from_iterator(ops.m + ops.m * ops.d, sol.z[ops.layout().impulses()].iter().copied());
        let dv = &ops.minv_jt * lambda;
        let s = dv_scale(&problem, &b);
        assert!(dv.iter().zip(e.velocity_change(0)).all(|(a, b)| (a - b).abs() <= 1e-7 * s), "case {case}");
    }
}

#[test]
fn every_lemke_solution_is_enumerated() {
    let mut rng = ChaCha8Rng::seed_from_u64(10);
    let mut lemke = LemkeWorkspace::new(1);
    let mut total_solutions = 0;
    let mut lemke_failures = 0;
    for case in 0..60 {
        let (n, m, spatial, coupled) = match case % 5 {
            0 => (4, 2, None, true),
            1 => (9, 5, None, false),
            2 => (8, 4, None, true),
            3 => (6, 2, Some(8), true),
            _ => (12, 3, Some(6), false),
        };
        let problem = random_problem(&mut rng, n, m, spatial, coupled);
        let ops = problem.operators();
        let size = ops.step_size_n();
        let mut e = StepEnumerator::new(ops);
        for _ in 0..3 {
            let b = random_b(&mut rng, &problem);
            let found = enumerate_checked(&problem, &mut e, &b);
            total_solutions += found.len();
            let scale = dv_scale(&problem, &b);
            for trial in 0..12 {
                let cover: Vec<f64> = (0..size).map(|_| -rng.random_range(1e-9f64..1.0).ln()).collect();
                let cover = if trial == 0 { vec![1.0; size] } else { cover };
                let sol = match lemke.solve_covered(&ops.step_matrix, &b, Some(&cover), trial, &LemkeOptions::default())
                {
                    Ok(sol) => sol,
                    Err(err) => {
                        println!("case {case} trial {trial}: Lemke failed: {err:?}");
                        lemke_failures += 1;
                        continue;
                    }
                };
                assert!(sol.residual.violation() < 1e-9, "{:?}", sol.residual);
                let lambda =
                    DVector::from_iterator(ops.m + ops.m * ops.d, sol.z[ops.layout().impulses()].iter().copied());
                let dv = (&ops.minv_jt * lambda).as_slice().to_vec();
                assert!(contains(&found, &dv, scale), "case {case} trial {trial}: Lemke's {dv:?} not in {found:?}");
            }
        }
    }
    assert!(total_solutions > 180, "{total_solutions}");
    assert!(lemke_failures < 20, "{lemke_failures} Lemke failures");
}

#[test]
fn order_is_deterministic_and_budget_exhaustion_is_reported() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let problem = random_problem(&mut rng, 4, 2, None, true);
    let ops = problem.operators();
    let mut e = StepEnumerator::new(ops);
    let mut tight = StepEnumerator::with_options(
        ops,
        EnumeratorOptions { node_budget: 3, fallback_solves: 8, ..EnumeratorOptions::default() },
    );
    for _ in 0..50 {
        let b = random_b(&mut rng, &problem);
        let count = e.enumerate(ops, &b);
        let first: Vec<f64> = (0..count).flat_map(|k| e.solution(k).to_vec()).collect();
        assert_eq!(e.enumerate(ops, &b), count);
        let again: Vec<f64> = (0..count).flat_map(|k| e.solution(k).to_vec()).collect();
        assert_eq!(first, again);
        // A budget too small to finish: not exhaustive, but every solution returned is a true one.
        let c = tight.enumerate(ops, &b);
        if tight.nodes() > 3 {
            assert!(!tight.exhaustive());
        }
        assert!(c >= 1);
        assert_solutions_valid(&problem, &tight, c, &b);
    }
}

/// More reduced contact rows than velocities (`W` singular, like a box on a
/// table): solution sets can be segments, represented by their vertices; every
/// Lemke solution (a vertex) must be among them.
#[test]
fn singular_delassus_lemke_solutions_are_enumerated() {
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    let mut lemke = LemkeWorkspace::new(1);
    for (n, m, spatial, problems) in [(6, 4, Some(4), 12), (3, 2, None, 30), (6, 3, None, 30)] {
        let (mut checked, mut bad_lemke) = (0, 0);
        for _ in 0..problems {
            let problem = random_problem(&mut rng, n, m, spatial, true);
            let ops = problem.operators();
            let mut e = StepEnumerator::new(ops);
            let size = ops.step_size_n();
            for _ in 0..4 {
                let b = random_b(&mut rng, &problem);
                let found = enumerate_checked(&problem, &mut e, &b);
                let scale = dv_scale(&problem, &b);
                for trial in 0..6 {
                    let cover: Vec<f64> = (0..size).map(|_| -rng.random_range(1e-9f64..1.0).ln()).collect();
                    let options = LemkeOptions::default();
                    let Ok(sol) = lemke.solve_covered(&ops.step_matrix, &b, Some(&cover), trial, &options) else {
                        bad_lemke += 1;
                        continue;
                    };
                    if sol.residual.violation() > 1e-9 {
                        // Lemke's degenerate-case failures are not solutions.
                        bad_lemke += 1;
                        continue;
                    }
                    let impulses = sol.z[ops.layout().impulses()].iter().copied();
                    let dv =
                        (&ops.minv_jt * DVector::from_iterator(ops.m + ops.m * ops.d, impulses)).as_slice().to_vec();
                    assert!(contains(&found, &dv, scale), "n {n} m {m}: Lemke's {dv:?} not in {found:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 10 * bad_lemke.max(1), "n {n} m {m}: {checked} checked, {bad_lemke} Lemke failures");
    }
}

/// The step violation of enumerated solution `k` (`routh_step`'s filter), in
/// units of `max(velocity scale, ‖u‖∞)` and the largest cap.
fn enumerated_violation(problem: &ImpactProblem, e: &StepEnumerator, k: usize, b: &[f64]) -> f64 {
    use crate::impact::{StepScales, step_violation};
    let ops = problem.operators();
    let m = ops.m;
    let velocity = b[m..].iter().fold(problem.velocity_scale(), |a, x| a.max(x.abs()));
    let impulse = b[..m].iter().fold(f64::MIN_POSITIVE, |a, x| a.max(*x));
    let mut w = vec![0.0; ops.step_size_n()];
    LcpResidual::compute(&ops.step_matrix, b, e.solution(k), &mut w);
    step_violation(ops.layout(), e.solution(k), &w, StepScales { velocity, impulse })
}

/// Like [`agree_with_oracle`] for coupled contacts with friction
/// `μ ∈ [mu, 2 mu)`, with velocity changes compared relative to the largest
/// one (not to `μ h p`, which would merge distinct solutions) and every
/// enumerated solution at round-off. Returns how many steps had several
/// solutions.
fn high_friction_agrees_with_oracle(
    seed: u64,
    cases: usize,
    n: usize,
    m: usize,
    spatial: Option<usize>,
    mu: f64,
) -> usize {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut several = 0;
    for case in 0..cases {
        let problem = coupled_problem(&mut rng, n, m, spatial, 0.6, mu..2.0 * mu);
        let ops = problem.operators();
        let mut e = StepEnumerator::new(ops);
        for step in 0..3 {
            let b = random_b(&mut rng, &problem);
            let found = enumerate_checked(&problem, &mut e, &b);
            for k in 0..found.len() {
                let v = enumerated_violation(&problem, &e, k, &b);
                assert!(
                    v <= crate::impact::ENUMERATED_VIOLATION,
                    "seed {seed} case {case} step {step}: solution {k} violation {v:e}"
                );
            }
            let oracle: Vec<Vec<f64>> =
                brute_force::solutions(ops, &b).into_iter().map(|(_, dv)| dv.as_slice().to_vec()).collect();
            let cap = b[..m].iter().fold(0.0f64, |a, &x| a.max(x));
            let largest = found.iter().chain(&oracle).flatten().fold(0.0f64, |a, x| a.max(x.abs()));
            let scale = largest + ops.minv_jt.amax() * cap * 1e-3 + 1e-300;
            let context = format!("seed {seed} case {case} step {step}: found {found:?}, oracle {oracle:?}");
            assert!(oracle.iter().all(|dv| contains(&found, dv, scale)), "oracle solution missed; {context}");
            assert!(found.iter().all(|dv| contains(&oracle, dv, scale)), "solution not in the oracle; {context}");
            assert_eq!(found.len(), oracle.len(), "{context}");
            several += usize::from(found.len() > 1);
        }
    }
    several
}

#[test]
fn high_friction_planar_contacts_match_the_oracle() {
    for (seed, mu) in [(21, 1e3), (22, 1e5)] {
        let several = high_friction_agrees_with_oracle(seed, 60, 4, 2, None, mu)
            + high_friction_agrees_with_oracle(seed + 10, 60, 3, 2, None, mu)
            + high_friction_agrees_with_oracle(seed + 20, 6, 7, 3, None, mu);
        assert!(several >= 5, "μ = {mu}: only {several} steps had several solutions");
    }
}

#[test]
fn high_friction_spatial_contacts_match_the_oracle() {
    for (seed, mu) in [(23, 1e3), (24, 1e5)] {
        let several = high_friction_agrees_with_oracle(seed, 20, 4, 2, Some(4), mu)
            + high_friction_agrees_with_oracle(seed + 10, 20, 6, 1, Some(4), mu);
        assert!(several >= 1, "μ = {mu}: no spatial step had several solutions");
    }
}

/// RAMone (μ = 10⁵, the paper's value): `all` never falls back to Lemke,
/// and at the first step it finds exactly the oracle's solutions, among them
/// every outcome Lemke and covered Lemke reach.
#[test]
fn ramone_all_is_complete_without_fallback() {
    use crate::{SamplerOptions, Selection, sample_one};
    let scene = crate::scene::builtin("ramone").unwrap();
    let problem = &scene.problem;
    let options = SamplerOptions {
        step_size: Some(scene.step_size),
        steps: Some(scene.steps),
        selection: Selection::All,
        ..SamplerOptions::default()
    };
    for index in 0..300 {
        let sample = sample_one(problem, &options, index);
        assert_eq!(sample.fallback_steps, 0, "sample {index}: {sample:?}");
        assert!(sample.accepted && sample.max_residual <= 1e-12, "sample {index}: {sample:?}");
    }
    let ops = problem.operators();
    let (m, size) = (ops.m, ops.step_size_n());
    let u = &ops.j * problem.velocity();
    let mut e = StepEnumerator::new(ops);
    let mut lemke = LemkeWorkspace::new(size);
    let mut rng = ChaCha8Rng::seed_from_u64(25);
    let mut several = 0;
    for case in 0..200 {
        let mut b = vec![0.0; size];
        b[..m].iter_mut().for_each(|x| *x = scene.step_size * rng.random_range(0.0..1.0));
        b[m..m + u.len()].copy_from_slice(u.as_slice());
        let count = e.enumerate(ops, &b);
        assert!(e.exhaustive());
        for k in 0..count {
            let v = enumerated_violation(problem, &e, k, &b);
            assert!(v <= crate::impact::ENUMERATED_VIOLATION, "case {case}: solution {k} violation {v:e}");
        }
        let found = enumerated_changes(&e, count);
        let largest = found.iter().flatten().fold(0.0f64, |a, x| a.max(x.abs()));
        let scale = largest + 1e-300;
        let oracle: Vec<Vec<f64>> =
            brute_force::solutions(ops, &b).into_iter().map(|(_, dv)| dv.as_slice().to_vec()).collect();
        assert_eq!(found.len(), oracle.len(), "case {case}: {found:?} vs {oracle:?}");
        assert!(oracle.iter().all(|dv| contains(&found, dv, scale)), "case {case}: {found:?} vs {oracle:?}");
        for trial in 0..8 {
            let cover: Vec<f64> = (0..size).map(|_| -rng.random_range(1e-9f64..1.0).ln()).collect();
            let cover = if trial == 0 { vec![1.0; size] } else { cover };
            let sol = lemke.solve_covered(&ops.step_matrix, &b, Some(&cover), trial, &LemkeOptions::default()).unwrap();
            let lambda = DVector::from_iterator(m + m * ops.d, sol.z[ops.layout().impulses()].iter().copied());
            let dv = (&ops.minv_jt * lambda).as_slice().to_vec();
            assert!(contains(&found, &dv, scale), "case {case} trial {trial}: Lemke's {dv:?} not in {found:?}");
        }
        several += usize::from(count > 1);
    }
    assert!(several >= 100, "only {several} first steps had several solutions");
}
