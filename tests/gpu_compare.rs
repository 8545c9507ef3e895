//! `compare_backends` on the built-in scenes: the GPU against the CPU on the
//! same seed, sample by sample, with the targets (f64: ≥ 99.9% of
//! samples within 1e-9 of ‖v⁻‖_M and accepted sets within 1e-6 Hausdorff;
//! f32: ≥ 99% within 1e-3). 512 samples per case: lavapipe is slow.

mod common;

use impactset::gpu::{Comparison, GpuError, Precision, compare_backends};
use impactset::{SamplerOptions, Selection, scene};

const SCENES: [&str; 4] = ["rocking-block", "compass-gait", "box-wall", "ramone"];

fn run(precision: Precision, tolerance: f64) -> Option<Vec<(String, Comparison)>> {
    let ctx = common::gpu::gpu()?;
    if precision == Precision::F64 && !ctx.supports_f64() {
        eprintln!("notice: {} has no f64, f64 comparison skipped", ctx.describe());
        return None;
    }
    let mut out = Vec::new();
    for id in SCENES {
        let scene = scene::builtin(id).expect("built-in scene");
        for selection in [Selection::Lemke, Selection::RandomLemke] {
            let options = SamplerOptions {
                samples: 512,
                step_size: Some(scene.step_size),
                steps: scene.steps,
                selection,
                seed: 3,
                ..Default::default()
            };
            let c = match compare_backends(&ctx, &scene.problem, &options, precision, tolerance) {
                Ok(c) => c,
                // RAMone's friction of 1e5 makes ‖A_R‖∞ ≈ 1e5: an f32 pivot
                // tolerance of 100·N·‖A_R‖∞·ε_f32 ≈ 12 swallows every real
                // pivot (measured before the refusal existed: agreement 0,
                // wrong outcomes accepted). f32 refuses it; f64 runs it.
                Err(GpuError::PoorlyScaled { .. }) if precision == Precision::F32 && id == "ramone" => {
                    eprintln!("{id} {selection} f32: refused as too badly scaled for f32");
                    continue;
                }
                Err(e) => panic!("{id} {selection} {precision}: {e}"),
            };
            eprintln!(
                "{id} {selection} {precision}: {:.4} within {tolerance:e}, max deviation {:.2e}, hausdorff {:.2e} \
                 (covering {:.2e} / {:.2e}), mismatches termination {} acceptance {}, accepted {}/{}, \
                 mean steps {:.2}/{:.2}",
                c.agreement_fraction,
                c.max_deviation,
                c.hausdorff,
                c.covering_cpu_by_gpu,
                c.covering_gpu_by_cpu,
                c.termination_mismatches,
                c.acceptance_mismatches,
                c.accepted_cpu,
                c.accepted_gpu,
                c.mean_steps_cpu,
                c.mean_steps_gpu
            );
            out.push((format!("{id} {selection}"), c));
        }
    }
    Some(out)
}

#[test]
fn gpu_f64_matches_cpu_on_builtin_scenes() {
    let Some(results) = run(Precision::F64, 1e-9) else { return };
    for (name, c) in &results {
        assert!(c.agreement_fraction >= 0.999, "{name}: {c:?}");
        assert!(c.hausdorff < 1e-6, "{name}: {c:?}");
    }
}

#[test]
fn gpu_f32_matches_cpu_on_builtin_scenes() {
    let Some(results) = run(Precision::F32, 1e-3) else { return };
    assert!(!results.iter().any(|(name, _)| name.starts_with("ramone")), "ramone must be refused in f32");
    assert_eq!(results.len(), 6, "the three other scenes, two rules each");
    for (name, c) in &results {
        assert!(c.agreement_fraction >= 0.99, "{name}: {c:?}");
    }
}
