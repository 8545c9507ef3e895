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
