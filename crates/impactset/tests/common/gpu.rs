//! The GPU context for tests.

use impactset::gpu::{GpuContext, GpuError};

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
