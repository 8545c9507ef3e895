//! A batch on the GPU (state by state through the runner) against the CPU:
//! the same state seeds, so the same samples up to the parity tolerances of
//! `gpu_parity.rs` (f64 1e-9, f32 1e-3 of `‖v⁻‖_M`), hence the same counts
//! and support values (and, in f64, contact-mode shares).

mod common;

use std::sync::Arc;

use impactset::reach::{ReachInput, ReachOptions, StateProblem, reach};
use impactset::run::{Backend, RunControl};
use impactset::{SamplerOptions, Selection, scene};

#[test]
fn gpu_batch_rows_match_the_cpu() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let ctx = Arc::new(ctx);
    let s = scene::builtin("compass-gait").unwrap();
    let v = s.problem.velocity().clone();
    let velocities: Vec<f64> =
        [0.7, 1.0, 1.3].iter().flat_map(|f| (&v * *f).iter().copied().collect::<Vec<_>>()).collect();
    let base = StateProblem { name: "compass-gait".into(), problem: s.problem.clone(), step_size: Some(s.step_size) };
    let input = ReachInput::velocities(base, velocities).unwrap();
    for selection in [Selection::Lemke, Selection::RandomLemke] {
        let options = ReachOptions {
            sampler: SamplerOptions { samples: 128, steps: s.steps, seed: 3, selection, ..Default::default() },
            keep_sets: true,
            ..Default::default()
        };
        let cpu = reach(&Backend::cpu(Some(2)).unwrap(), &input, &options, &RunControl::default()).unwrap();
        for precision in ctx.precisions() {
            let tol = match precision {
                impactset::gpu::Precision::F64 => 1e-9,
                impactset::gpu::Precision::F32 => 1e-3,
            };
            let gpu =
                reach(&Backend::gpu(ctx.clone(), Some(precision)), &input, &options, &RunControl::default()).unwrap();
            for (c, g) in cpu.rows.iter().zip(&gpu.rows) {
                assert_eq!((c.state, c.seed, c.accepted), (g.state, g.seed, g.accepted), "{selection} {precision}");
                let scale = c.velocity_norm;
                for (a, b) in c.support_max.iter().zip(&g.support_max).chain(c.support_min.iter().zip(&g.support_min)) {
                    assert!((a - b).abs() <= tol * scale, "{selection} {precision} state {}: {a} vs {b}", c.state);
                }
                // Modes are told apart at 1e-6 of the contact speed, finer
                // than f32 round-off: compared in f64 only.
                if precision == impactset::gpu::Precision::F32 {
                    continue;
                }
                for (a, b) in c.mode_shares.iter().zip(&g.mode_shares) {
                    assert!((a - b).abs() <= 1.0 / 128.0 + 1e-12, "{selection} {precision}: mode shares {a} vs {b}");
                }
            }
            eprintln!("{selection} {precision}: rows agree");
        }
    }
}
