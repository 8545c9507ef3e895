//! The GPU context for tests.

use impactset::ImpactProblem;
use impactset::gpu::{GpuContext, GpuError, GpuLcp};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// The GPU context, or `None` (test skipped, with a notice) when there is no
/// adapter. With `IMPACTSET_REQUIRE_GPU=1` a missing adapter fails the test.
pub fn gpu() -> Option<GpuContext> {
    match GpuContext::new() {
        Ok(ctx) => {
            eprintln!("GPU: {}", ctx.describe());
            Some(ctx)
        }
        Err(e @ GpuError::NoAdapter) | Err(e @ GpuError::Device(_)) => {
            if std::env::var("IMPACTSET_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                panic!("IMPACTSET_REQUIRE_GPU=1 but no GPU: {e}");
            }
            // Straight to the process's standard error, which the test
            // harness does not capture: a skipped GPU test shows in the log.
            use std::io::Write;
            let _ =
                writeln!(std::io::stderr(), "notice: skipping GPU test (IMPACTSET_REQUIRE_GPU=1 fails instead): {e}");
            None
        }
        Err(e) => panic!("GPU context: {e}"),
    }
}

/// A scene's step size and step cap for tests of what the shaders compute
/// (the GPU against the CPU on the same options), not of the set's
/// convergence in `h`: the bouncing scenes at the inelastic `h` and `K` they
/// are built from (`scene/library/mod.rs`'s table), before the expansion's
/// step size (docs/model.md §4b) makes a sample take hundreds of steps,
/// which lavapipe runs for minutes; every other scene at its own.
#[allow(dead_code)]
pub fn coarse_step(scene: &impactset::scene::Scene) -> (f64, usize) {
    match scene.id {
        "rocking-block-bouncing" => (0.3, 20),
        "cradle" => (0.25, 40),
        _ => (scene.step_size, scene.steps),
    }
}

/// Random step LCPs `(A_R, [h·p; u; 0])` of one problem, with random covers and offsets.
pub fn step_lcps(rng: &mut ChaCha8Rng, problem: &ImpactProblem, count: usize) -> Vec<GpuLcp> {
    let ops = problem.operators();
    let size = ops.step_size_n();
    let m = ops.m;
    let impulses = m + m * ops.d;
    (0..count)
        .map(|k| {
            let mut q = vec![0.0; size];
            for x in &mut q[..m] {
                *x = rng.random_range(0.0..0.5);
            }
            for x in &mut q[m..m + impulses] {
                *x = rng.random_range(-1.0..1.0);
            }
            let randomized = k % 2 == 1;
            GpuLcp {
                a: ops.step_matrix.clone(),
                q,
                cover: randomized.then(|| (0..size).map(|_| rng.random_range(0.01..1.0)).collect()),
                lex_offset: if randomized { rng.random_range(0..size) } else { 0 },
            }
        })
        .collect()
}
