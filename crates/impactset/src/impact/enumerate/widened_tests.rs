//! Tests of the widened steps (`widened.rs`): every solution of a step
//! whose friction cone a prescribed normal impulse widens, against the
//! brute-force oracle on the widened LCP itself.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{EnumeratorOptions, EnumeratorTuning, StepEnumerator, brute_force};
use crate::lcp::LcpResidual;
use crate::scene::random::{coupled_problem, random_step_rhs};

/// A friction cone widened by a prescribed normal impulse (`b_γ = μ o`,
/// the step of `y = λn − o`, `b = b_R + A_R [0; o; 0; 0]`): the enumerator
/// finds exactly the oracle's velocity changes (both inclusions), each a
/// solution of the widened LCP to round-off, and says it was exhaustive,
/// with the bound (certified or searched) and without it (searched).
#[test]
fn a_widened_step_has_exactly_the_oracles_solutions() {
    let mut rng = ChaCha8Rng::seed_from_u64(43);
    let (mut certified, mut several, mut steps) = (0, 0, 0);
    for case in 0..600 {
        let (n, m, spatial) = match case % 3 {
            0 => (6, 1, Some(4)),
            1 => (6, 2, Some(4)),
            _ => (5, 3, None),
        };
        // Three problems in four coupled with high friction: steps with
        // several solutions.
        let problem = if case % 4 == 0 {
            coupled_problem(&mut rng, n, m, spatial, f64::INFINITY, 0.1..1.0)
        } else {
            coupled_problem(&mut rng, n, m, spatial, 0.6, 2.0..4.0)
        };
        let ops = problem.operators();
        let size = ops.step_size_n();
        let mut b = random_step_rhs(&mut rng, &problem);
        // o_i ∈ [0, 0.3 h p_i] on some contacts: the remaining cap h p_i − o_i.
        for i in 0..m {
            if rng.random_bool(0.25) {
                continue;
            }
            let o = b[i] * rng.random_range(0.0..0.3);
            for (r, x) in b.iter_mut().enumerate() {
                *x += ops.step_matrix[r * size + m + i] * o;
            }
        }
        assert!(b[size - m..].iter().all(|&g| g >= 0.0));
        let expected: Vec<_> = brute_force::solutions(ops, &b).into_iter().map(|(_, dv)| dv).collect();
        // The step's scale of velocity changes: a change that is 0 comes
        // out of a Lemke solve at round-off of it.
        let cap = b[..m].iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let s = expected.iter().fold(ops.minv_jt.amax() * cap + 1e-300, |a, dv| a.max(dv.amax()));
        let scale = b.iter().fold(0.0f64, |a, x| a.max(x.abs())) * (1.0 + ops.delassus.amax()) + 1e-300;
        // With the bound and without; with records kept (the default store)
        // and computed directly (no store).
        for (bound, cache_bytes) in [(true, 32 << 20), (false, 32 << 20), (true, 0)] {
            let options = EnumeratorOptions {
                bound,
                bound_min_tuples: 0.0,
                tuning: EnumeratorTuning { cache_bytes, ..Default::default() },
                ..EnumeratorOptions::default()
            };
            let mut e = StepEnumerator::with_options(ops, options);
            let count = e.enumerate(ops, &b);
            assert!(e.exhaustive(), "case {case}: not exhaustive");
            let found: Vec<&[f64]> = (0..count).map(|k| e.velocity_change(k)).collect();
            let same = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-7 * s);
            for (k, dv) in found.iter().enumerate() {
                assert!(
                    expected.iter().any(|o| same(o.as_slice(), dv)),
                    "case {case}: solution {k} is not the oracle's"
                );
                let mut w = vec![0.0; size];
                let r = LcpResidual::compute(&ops.step_matrix, &b, e.solution(k), &mut w);
                assert!(r.violation() <= 1e-9 * scale * scale.max(1.0), "case {case}: solution {k} residual {r:?}");
            }
            for (k, o) in expected.iter().enumerate() {
                assert!(
                    found.iter().any(|dv| same(o.as_slice(), dv)),
                    "case {case}: the oracle's solution {k} is missed"
                );
            }
            if bound && cache_bytes > 0 {
                steps += 1;
                certified += usize::from(e.certified());
                several += usize::from(count > 1);
            }
        }
    }
    println!("{steps} widened steps: {certified} certified, {several} with several solutions");
    assert!(certified >= 30 && several >= 8, "{certified} certified, {several} several");
}

/// Below the bound's size (`bound_min_tuples`: two planar contacts, 49
/// mode tuples a step) a widened step takes no bound and certifies
/// nothing: it keeps the first mode tuple of each `Δv` of its twinned
/// search, bit for bit what a search with no bound at all keeps (the GPU's
/// enumeration, docs/gpu.md), where a certified widened step would keep its
/// Lemke solution (`bound_min_tuples: 0`, which differs on some steps).
#[test]
fn a_small_widened_step_keeps_the_first_tuple_of_its_twinned_search() {
    let mut rng = ChaCha8Rng::seed_from_u64(47);
    let (mut steps, mut lemke_differs) = (0, 0);
    for case in 0..300 {
        let m = 1 + case % 2;
        let problem = coupled_problem(&mut rng, 4, m, None, 0.6, 0.2..2.0);
        let ops = problem.operators();
        let size = ops.step_size_n();
        let mut b = random_step_rhs(&mut rng, &problem);
        for i in 0..m {
            let o = b[i] * rng.random_range(0.01..0.3);
            for (r, x) in b.iter_mut().enumerate() {
                *x += ops.step_matrix[r * size + m + i] * o;
            }
        }
        let run = |options: EnumeratorOptions| {
            let mut e = StepEnumerator::with_options(ops, options);
            let count = e.enumerate(ops, &b);
            assert!(e.exhaustive(), "case {case}: not exhaustive");
            (0..count).map(|k| (e.solution(k).to_vec(), e.velocity_change(k).to_vec())).collect::<Vec<_>>()
        };
        let default = run(EnumeratorOptions::default());
        let searched = run(EnumeratorOptions { bound_min_tuples: f64::INFINITY, ..EnumeratorOptions::default() });
        assert_eq!(default, searched, "case {case}");
        let lemke = run(EnumeratorOptions { bound_min_tuples: 0.0, ..EnumeratorOptions::default() });
        lemke_differs += usize::from(lemke != searched);
        steps += 1;
    }
    println!("{steps} small widened steps: {lemke_differs} kept otherwise where certified widened steps keep Lemke's");
    assert!(lemke_differs > 0, "the test sees no step a certified widened step keeps otherwise");
}
