//! `all`'s enumerator with the bound from one Lemke solution and its
//! uniqueness certificate (docs/model.md §5b), step by step along random
//! walks of Algorithm 1 on random problems up to six spatial contacts:
//!
//! * where the step LCP is small enough for the brute-force oracle (every
//!   complementary index set, `lcp::basic_solutions`), the enumerator finds
//!   exactly its distinct velocity changes, both inclusions;
//! * everywhere, it returns the solutions of the same search without the
//!   bound bit for bit (a certified step its Lemke solution: the same `Δv` to round-off), each a solution of the LCP, and a certified step has
//!   exactly one.

use impactset::impact::{EnumeratorOptions, StepEnumerator};
use impactset::lcp::{LcpResidual, basic_solutions};
use impactset::scene::random::coupled_problem;
use impactset::{ContactOperators, ImpactProblem};
use nalgebra::DVector;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The largest LCP the oracle enumerates (`2^N` solves).
const ORACLE_SIZE: usize = 20;

fn velocity_change(ops: &ContactOperators, z: &[f64]) -> DVector<f64> {
    let impulses = ops.layout().impulses();
    &ops.minv_jt * DVector::from_iterator(impulses.len(), z[impulses].iter().copied())
}

/// The oracle's distinct velocity changes (its candidates hold to `10⁻¹⁰`
/// of their own terms; rows floored at the right-hand side's size).
fn oracle(ops: &ContactOperators, b: &[f64]) -> Vec<DVector<f64>> {
    let floor = b.iter().fold(f64::MIN_POSITIVE, |a, x| a.max(x.abs()));
    let mut out: Vec<DVector<f64>> = Vec::new();
    for z in basic_solutions(&ops.step_matrix, b, 1e-10, &vec![floor; b.len()]) {
        let dv = velocity_change(ops, &z);
        if !out.iter().any(|o| (o - &dv).amax() <= 1e-9 * o.amax().max(dv.amax()).max(1e-3 * floor)) {
            out.push(dv);
        }
    }
    out
}

/// Whether `dv` is one of `set` within `tol` in every entry.
fn among(set: &[DVector<f64>], dv: &DVector<f64>, tol: f64) -> bool {
    set.iter().any(|o| (o - dv).amax() <= tol)
}

#[derive(Default, Debug)]
struct Count {
    steps: usize,
    oracle_steps: usize,
    certified: usize,
    several: usize,
    cut_short: usize,
}

/// Walks Algorithm 1 under `all` (caps `h·U[0, 1)`, a uniformly drawn
/// solution each step) on `problem`, checking every step.
fn walk(problem: &ImpactProblem, rng: &mut ChaCha8Rng, count: &mut Count) {
    let ops = problem.operators();
    let (m, size) = (ops.m, ops.step_size_n());
    // Every step starts with the bound, however small the problem.
    let mut with =
        StepEnumerator::with_options(ops, EnumeratorOptions { bound_min_tuples: 0.0, ..EnumeratorOptions::default() });
    let mut without =
        StepEnumerator::with_options(ops, EnumeratorOptions { bound: false, ..EnumeratorOptions::default() });
    let h = problem.default_step_size() * rng.random_range(0.5..4.0);
    let scale = problem.velocity_scale();
    let mut v = problem.velocity().clone();
    let mut w = vec![0.0; size];
    for _ in 0..12 {
        let u = &ops.j * &v;
        if (0..m).all(|i| u[i] >= -1e-9 * scale) {
            return;
        }
        let mut b = vec![0.0; size];
        b[..m].iter_mut().for_each(|x| *x = h * rng.random_range(0.0..1.0));
        b[m..m + u.len()].copy_from_slice(u.as_slice());
        let found = with.enumerate(ops, &b);
        let reference = without.enumerate(ops, &b);
        count.steps += 1;
        if !(with.exhaustive() && without.exhaustive()) {
            // The budget ran out: the lists end with Lemke solves.
            count.cut_short += 1;
        } else if with.certified() {
            count.certified += 1;
            assert_eq!((found, reference), (1, 1), "a certified step has one solution; b = {b:?}");
        } else {
            assert_eq!(found, reference, "b = {b:?}");
        }
        let bits = |e: &StepEnumerator, k: usize| e.solution(k).iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        if with.certified() && with.exhaustive() && without.exhaustive() {
            // A certified step keeps its Lemke solution: the search's `Δv`
            // to round-off of the step's scale.
            // (The step's scale: `max |M⁻¹Jᵀ|` times its largest cap or the
            // impulse its largest contact velocity takes.)
            let cap = b[..m].iter().fold(0.0f64, |a, x| a.max(*x));
            let impulse = cap.max(b[m..].iter().fold(0.0f64, |a, x| a.max(x.abs())) / ops.delassus.amax());
            let (a, r) = (with.velocity_change(0), without.velocity_change(0));
            let scale = a.iter().chain(r).fold(ops.minv_jt.amax() * impulse, |x, v| x.max(v.abs()));
            let gap = a.iter().zip(r).fold(0.0f64, |x, (p, q)| x.max((p - q).abs()));
            assert!(gap <= 1e-12 * scale, "certified Δv {gap:e} from the search's of {scale:e}; b = {b:?}");
        } else if with.exhaustive() && without.exhaustive() {
            for k in 0..found {
                assert_eq!(bits(&with, k), bits(&without, k), "solution {k}; b = {b:?}");
            }
        }
        let cap = b[..m].iter().fold(0.0f64, |a, x| a.max(*x));
        let lcp_scale = b.iter().fold(0.0f64, |a, x| a.max(x.abs())) * (1.0 + ops.delassus.amax());
        let changes: Vec<DVector<f64>> = (0..found)
            .map(|k| {
                let r = LcpResidual::compute(&ops.step_matrix, &b, with.solution(k), &mut w);
                assert!(r.violation() <= 1e-9 * lcp_scale.max(1.0), "solution {k}: {r:?}; b = {b:?}");
                DVector::from_column_slice(with.velocity_change(k))
            })
            .collect();
        count.several += usize::from(found > 1);
        if size <= ORACLE_SIZE && with.exhaustive() {
            count.oracle_steps += 1;
            let expected = oracle(ops, &b);
            let tol = 1e-6 * (ops.minv_jt.amax() * cap * (1.0 + ops.friction.iter().fold(0.0f64, |a, &x| a.max(x))));
            assert!(expected.iter().all(|dv| among(&changes, dv, tol)), "an oracle solution is missed; b = {b:?}");
            assert!(changes.iter().all(|dv| among(&expected, dv, tol)), "a solution is not the oracle's; b = {b:?}");
            assert_eq!(changes.len(), expected.len(), "b = {b:?}");
        }
        v += &changes[rng.random_range(0..found)];
    }
}

#[test]
fn all_with_the_certificate_finds_exactly_the_solutions_step_by_step() {
    let mut rng = ChaCha8Rng::seed_from_u64(2033);
    let mut count = Count::default();
    for case in 0..180 {
        // Spatial contacts 1 to 6 (4 friction directions, the oracle's
        // reach up to 2), and planar ones up to 4 (the oracle's reach);
        // every other problem coupled with high friction (several
        // solutions).
        let coupled = case % 2 == 1;
        let (n, m, spatial) = match case % 9 {
            0 | 1 => (6, 1 + case % 2, Some(4)),
            2 => (7, 3, Some(4)),
            3 => (9, 4, Some(4)),
            4 => (10, 5, Some(4)),
            5 => (12, 6, Some(4)),
            6 => (4, 2, None),
            7 => (5, 3, None),
            _ => (6, 4, None),
        };
        let problem = if coupled {
            coupled_problem(&mut rng, n, m, spatial, 0.6, 2.0..4.0)
        } else {
            coupled_problem(&mut rng, n, m, spatial, f64::INFINITY, 0.0..1.0)
        };
        walk(&problem, &mut rng, &mut count);
    }
    println!("{count:?}");
    assert!(count.oracle_steps >= 100, "{count:?}");
    assert!(count.certified >= 20 && count.several >= 10, "{count:?}");
    assert!(count.cut_short * 10 <= count.steps, "{count:?}");
}
