//! Selection rules (docs/model.md §5b): the same outcomes where a step's velocity
//! change is unique; only true solutions where it is not.

mod common;

use impactset::impact::{StepEnumerator, StepScales, StepWorkspace, routh_step};
use impactset::sampling::stream::{SampleStreams, stream_key};
use impactset::{SamplerOptions, Selection, sample_set};
use nalgebra::DVector;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Frictionless contacts: every step's velocity change is unique (the step is
/// a strictly convex QP in the impulses' image), so the rules agree sample by sample.
#[test]
fn rules_agree_where_the_step_is_unique() {
    for seed in 0..6u64 {
        let mut problem = common::random_problem(seed, 6, 1 + (seed % 3) as usize, seed % 2 == 1, 0.0);
        let contacts = problem.contacts().iter().cloned().map(|c| impactset::Contact { friction: 0.0, ..c }).collect();
        problem = impactset::ImpactProblem::new(problem.mass().clone(), problem.velocity().clone(), contacts).unwrap();
        let sets: Vec<_> = [Selection::Lemke, Selection::RandomLemke, Selection::All]
            .map(|selection| {
                sample_set(&problem, &SamplerOptions { samples: 200, seed, selection, ..Default::default() })
            })
            .into();
        let scale = problem.energy_norm(problem.velocity());
        for other in &sets[1..] {
            for (a, b) in sets[0].samples.iter().zip(&other.samples) {
                assert_eq!(a.accepted, b.accepted);
                let d = problem
                    .energy_norm(&(DVector::from_column_slice(&a.v_plus) - DVector::from_column_slice(&b.v_plus)));
                assert!(d <= 1e-9 * scale, "seed {seed} sample {}: rules differ by {d:e}", a.index);
            }
        }
    }
}

/// On random steps, `random-lemke` only ever returns a solution of the step,
/// and that solution is one `all` enumerates.
#[test]
fn random_lemke_returns_enumerated_solutions() {
    let mut checked = 0;
    let mut several = 0;
    for seed in 0..300u64 {
        let m = 1 + (seed % 3) as usize;
        let problem = common::random_problem(seed, 4, m, false, 4.0);
        let ops = problem.operators();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let u = &ops.j * common::random_vector(&mut rng, 4);
        let caps: Vec<f64> = (0..m).map(|_| rng.random_range(0.05..1.0)).collect();
        let mut ws = StepWorkspace::new(ops);
        let mut streams = SampleStreams::new(&stream_key(seed), 0);
        let mut lambda = vec![0.0; ops.m + ops.m * ops.d];
        let Ok(outcome) = routh_step(
            ops,
            u.as_slice(),
            &caps,
            None,
            StepScales { velocity: problem.velocity_scale(), impulse: 1.0 },
            Selection::RandomLemke,
            &mut streams,
            &mut ws,
            &mut lambda,
        ) else {
            panic!("seed {seed}: Lemke failed on a step LCP");
        };
        assert!(outcome.residual <= 1e-9, "seed {seed}: residual {}", outcome.residual);
        let mut enumerator = StepEnumerator::new(ops);
        let layout = ops.layout();
        let size = layout.size();
        let mut b = vec![0.0; size];
        b[..m].copy_from_slice(&caps);
        b[m..size - m].copy_from_slice(u.as_slice());
        let count = enumerator.enumerate(ops, &b);
        several += (count > 1) as usize;
        let dv = &ops.minv_jt * DVector::from_column_slice(&lambda);
        let found = (0..count).any(|k| {
            let z = enumerator.solution(k);
            let other = &ops.minv_jt * DVector::from_column_slice(&z[layout.impulses()]);
            (other - &dv).amax() <= 1e-7 * (1.0 + dv.amax())
        });
        assert!(found, "seed {seed}: random-lemke's step is not among the {count} enumerated");
        checked += 1;
    }
    assert_eq!(checked, 300);
    assert!(several > 0, "no step had several solutions: the test is too weak");
}
