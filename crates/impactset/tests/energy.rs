//! Kinetic energy never increases: at every step of every sample, on random
//! problems with 1 to 5 contacts, planar and spatial, under every selection rule.

mod common;

use impactset::sampling::sample_trajectory;
use impactset::{SamplerOptions, Selection};
use nalgebra::DVector;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn energy_never_increases(
        seed in any::<u64>(), n in 2usize..8, m in 1usize..6, spatial in any::<bool>(), rule in 0usize..3,
    ) {
        let selection = [Selection::Lemke, Selection::RandomLemke, Selection::All][rule];
        let problem = common::random_problem(seed, n, m, spatial, 2.0);
        let options = SamplerOptions {
            step_size: Some(problem.default_step_size()), steps: Some(30), seed, selection, ..Default::default()
        };
        let e0 = problem.kinetic_energy(problem.velocity());
        for index in 0..4 {
            let t = sample_trajectory(&problem, &options, index);
            let mut previous = e0;
            for (k, step) in t.steps.iter().enumerate() {
                let e = problem.kinetic_energy(&DVector::from_column_slice(&step.v));
                prop_assert!(e <= previous + 1e-12 * e0, "sample {index} step {k}: energy {previous} -> {e}");
                previous = e;
            }
            prop_assert!(t.sample.energy_after <= t.sample.energy_before * (1.0 + 1e-12));
        }
    }
}
