//! Tests of the GPU context (`context.rs`).

use super::*;
use crate::{SamplerOptions, scene};

/// wgpu drops a lost device's submissions without an error, so a run on
/// it used to fail in its wait with "a submission index that has not been
/// returned by a successful submission". It must say the device was lost.
#[test]
fn a_run_on_a_lost_device_says_the_device_was_lost() {
    let Ok(ctx) = GpuContext::new() else {
        assert!(std::env::var("IMPACTSET_REQUIRE_GPU").map_or(true, |v| v != "1"), "no GPU");
        return;
    };
    ctx.device.destroy();
    // The loss is reported once the device is maintained.
    ctx.device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let problem = scene::builtin("compass-gait").unwrap().problem;
    let options = SamplerOptions { samples: 4, ..Default::default() };
    let precision = if ctx.supports_f64() { Precision::F64 } else { Precision::F32 };
    let error = super::super::sample_set_gpu(&ctx, &problem, &options, precision).unwrap_err();
    assert!(matches!(&error, GpuError::Device(m) if m.contains("lost")), "{error}");
}
