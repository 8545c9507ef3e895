//! The fixed-mode records' store changes nothing (`tableaux/records/`, `recorded.rs`,
//! `direct.rs`): enumerators with the records kept, none, or a small store
//! that fills and starts afresh return the same solutions bit for bit, on
//! ordinary steps and on widened ones (`widened.rs`).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::search::scratch::{Scratch, Search};
use super::{EnumeratorOptions, EnumeratorTuning, StepEnumerator};
use crate::ContactOperators;
use crate::scene::random::{coupled_problem, random_step_rhs};

/// An enumerator that keeps records whenever its store of `cache_bytes`
/// allows, so that a small store fills and starts afresh.
fn recording(ops: &ContactOperators, cache_bytes: usize) -> StepEnumerator {
    StepEnumerator::with_options(
        ops,
        EnumeratorOptions { tuning: EnumeratorTuning { cache_bytes, record_always: true }, ..Default::default() },
    )
}

/// The bits of the last enumeration's `count` solutions.
fn bits(e: &StepEnumerator, count: usize) -> Vec<u64> {
    (0..count).flat_map(|k| e.solution(k).iter().map(|x| x.to_bits()).collect::<Vec<_>>()).collect()
}

/// The fixed-mode records kept from step to step change nothing: an
/// enumerator that keeps them, one that keeps none (the direct search, every
/// tableau computed from its parent's) and one whose small store fills and
/// is emptied again and again return the same solutions bit for bit, the
/// two that keep records with the same node counts.
#[test]
fn kept_records_give_bit_identical_results() {
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    let (mut evictions, mut pruned_together) = (0, 0);
    for (n, m, spatial, coupled) in [(4, 2, None, true), (6, 3, None, true), (8, 4, None, false), (6, 2, Some(4), true)]
    {
        let problem = if coupled {
            coupled_problem(&mut rng, n, m, spatial, 0.6, 2.0..4.0)
        } else {
            coupled_problem(&mut rng, n, m, spatial, f64::INFINITY, 0.0..1.5)
        };
        let ops = problem.operators();
        let (mut kept, mut none, mut small) = (recording(ops, 64 << 20), recording(ops, 0), recording(ops, 24 << 10));
        for _ in 0..60 {
            let b = random_step_rhs(&mut rng, &problem);
            let count = kept.enumerate(ops, &b);
            assert_eq!(none.enumerate(ops, &b), count);
            assert_eq!(small.enumerate(ops, &b), count);
            let full = |sc: &Scratch| matches!(&sc.search, Search::Recorded(tableaux) if tableaux.is_full());
            evictions += usize::from(small.scratch.as_deref().is_some_and(full));
            let reference = bits(&kept, count);
            assert_eq!(bits(&none, count), reference);
            assert_eq!(bits(&small, count), reference);
            // The direct search also tests a node's inequalities together
            // (`node_lp.rs`), so it may fix fewer modes, never more.
            assert_eq!(small.nodes(), kept.nodes());
            assert!(none.nodes() <= kept.nodes(), "{} > {}", none.nodes(), kept.nodes());
            pruned_together += usize::from(none.nodes() < kept.nodes());
            assert_eq!(none.exhaustive(), kept.exhaustive());
        }
    }
    assert!(evictions > 0, "the small store never filled");
    // The solutions above are the same although the joint test pruned.
    assert!(pruned_together > 0, "the joint test of a node's inequalities never pruned");
}

/// The twinned search gives the same solutions bit for bit whatever its
/// records' store (kept, none, a small one that fills and starts afresh,
/// the default policy, an eighth of the default store), over a sequence of
/// widened steps of one problem.
#[test]
fn widened_steps_do_not_depend_on_the_records_store() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let block = crate::scene::builtin("rocking-block").unwrap().problem;
    for (n, m, spatial) in [(3, 2, None), (5, 3, None), (6, 2, Some(4)), (0, 0, None)] {
        let problem = if n == 0 { block.clone() } else { coupled_problem(&mut rng, n, m, spatial, 0.6, 0.5..2.0) };
        let m = problem.m();
        let ops = problem.operators();
        let size = ops.step_size_n();
        let (mut kept, mut none, mut small) = (recording(ops, 64 << 20), recording(ops, 0), recording(ops, 24 << 10));
        let mut plain = StepEnumerator::new(ops);
        let mut eighth = StepEnumerator::with_options(
            ops,
            EnumeratorOptions {
                tuning: EnumeratorTuning { cache_bytes: 4 << 20, ..Default::default() },
                ..Default::default()
            },
        );
        for step in 0..80 {
            let mut b = random_step_rhs(&mut rng, &problem);
            for i in 0..m {
                let o = b[i] * rng.random_range(0.0..0.5);
                for (r, x) in b.iter_mut().enumerate() {
                    *x += ops.step_matrix[r * size + m + i] * o;
                }
            }
            let count = kept.enumerate(ops, &b);
            let reference = bits(&kept, count);
            for (name, e) in [
                ("no store", &mut none),
                ("small store", &mut small),
                ("default policy", &mut plain),
                ("4 MiB", &mut eighth),
            ] {
                assert_eq!(e.enumerate(ops, &b), count, "{n} {m} step {step}: {name}");
                assert_eq!(bits(e, count), reference, "{n} {m} step {step}: {name}");
            }
        }
    }
}
