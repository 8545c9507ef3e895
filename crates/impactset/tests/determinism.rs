//! Reproducibility: a seed fixes every sample, whatever the thread count or
//! the split into shards.

mod common;

use impactset::{SamplerOptions, Selection, sample_set};

#[test]
fn same_seed_is_bit_identical_with_one_and_two_threads() {
    for (seed, m, spatial) in [(1u64, 2usize, false), (2, 3, false), (3, 2, true)] {
        let problem = common::random_problem(seed, 5, m, spatial, 1.5);
        for selection in [Selection::Lemke, Selection::RandomLemke, Selection::All] {
            let base = SamplerOptions { samples: 3000, seed: 42, selection, ..Default::default() };
            let one = sample_set(&problem, &SamplerOptions { threads: Some(1), ..base.clone() });
            let two = sample_set(&problem, &SamplerOptions { threads: Some(2), ..base.clone() });
            assert_eq!(one.samples.len(), 3000);
            // The whole outputs, bit for bit: a shorter or empty second run fails.
            let bits = |set: &impactset::SampleSet| -> Vec<Vec<u64>> {
                set.samples.iter().map(|s| s.v_plus.iter().map(|x| x.to_bits()).collect()).collect()
            };
            assert_eq!(bits(&one), bits(&two), "seed {seed}, {selection}");
            assert_eq!(one.samples, two.samples, "seed {seed}, {selection}");
        }
    }
}

/// With restitution too: a sample's expansion state, its corrections'
/// factors and Newton's scratch live in a per-thread workspace reused
/// from sample to sample (docs/model.md §4b), and none of it may carry
/// over: one thread and two, and a run split in two, give the same
/// samples bit for bit, under every rule.
#[test]
fn restitution_is_reproducible_whatever_the_threads_and_the_split() {
    for (seed, m, spatial) in [(4u64, 2usize, false), (6, 3, false), (8, 2, true)] {
        let problem = common::random_problem(seed, 5, m, spatial, 1.5);
        let problem = problem.with_restitution(&vec![0.5; m]).expect("valid restitution");
        for selection in [Selection::Lemke, Selection::RandomLemke, Selection::All] {
            let base = SamplerOptions { samples: 600, seed: 42, selection, ..Default::default() };
            let one = sample_set(&problem, &SamplerOptions { threads: Some(1), ..base.clone() });
            let two = sample_set(&problem, &SamplerOptions { threads: Some(2), ..base.clone() });
            assert_eq!(one.samples.len(), 600);
            assert_eq!(one.samples, two.samples, "seed {seed}, {selection}");
            let first = sample_set(&problem, &SamplerOptions { samples: 250, threads: Some(1), ..base.clone() });
            let rest = sample_set(
                &problem,
                &SamplerOptions { samples: 350, first_index: 250, threads: Some(1), ..base.clone() },
            );
            let joined: Vec<_> = first.samples.into_iter().chain(rest.samples).collect();
            assert_eq!(one.samples, joined, "seed {seed}, {selection}");
        }
    }
}

#[test]
fn shards_reproduce_one_run() {
    let problem = common::random_problem(9, 4, 2, false, 2.0);
    let whole = sample_set(&problem, &SamplerOptions { samples: 2500, seed: 7, ..Default::default() });
    let first = sample_set(&problem, &SamplerOptions { samples: 1100, seed: 7, ..Default::default() });
    let rest =
        sample_set(&problem, &SamplerOptions { samples: 1400, first_index: 1100, seed: 7, ..Default::default() });
    let joined: Vec<_> = first.samples.into_iter().chain(rest.samples).collect();
    assert_eq!(whole.samples, joined);
}

#[test]
fn different_seeds_give_different_samples() {
    let problem = common::random_problem(5, 4, 2, false, 2.0);
    let a = sample_set(&problem, &SamplerOptions { samples: 64, seed: 1, ..Default::default() });
    let b = sample_set(&problem, &SamplerOptions { samples: 64, seed: 2, ..Default::default() });
    assert_ne!(a.samples, b.samples);
}
