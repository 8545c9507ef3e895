//! Kernel times from timestamp queries (`GpuContext::take_kernel_time`):
//! positive, within the wall time of the calls they measure, and reset by
//! each take.

mod common;

use std::time::Instant;

use impactset::gpu::{Precision, sample_set_gpu};
use impactset::{SamplerOptions, Selection, scene};

#[test]
fn kernel_time_is_positive_and_within_the_wall_time() {
    let Some(ctx) = common::gpu::gpu() else { return };
    if !ctx.supports_timestamps() {
        assert_eq!(ctx.take_kernel_time(), None);
        eprintln!("notice: {} has no timestamp queries", ctx.describe());
        return;
    }
    let scene = scene::builtin("compass-gait").expect("built-in scene");
    let options = SamplerOptions {
        samples: 2048,
        step_size: Some(scene.step_size),
        steps: Some(scene.steps),
        selection: Selection::RandomLemke,
        ..Default::default()
    };
    // Compile the pipelines first: compilation is not kernel time.
    sample_set_gpu(&ctx, &scene.problem, &options, Precision::F32).unwrap();
    ctx.take_kernel_time();
    let start = Instant::now();
    let set = sample_set_gpu(&ctx, &scene.problem, &options, Precision::F32).unwrap();
    let wall = start.elapsed().as_secs_f64();
    assert_eq!(set.samples.len(), 2048);
    let kernel = ctx.take_kernel_time().expect("timestamps supported");
    eprintln!("kernel {:.3} ms, wall {:.3} ms", 1e3 * kernel, 1e3 * wall);
    assert!(kernel > 0.0);
    assert!(kernel <= wall, "kernel time {kernel} s exceeds the wall time {wall} s");
    assert_eq!(ctx.take_kernel_time(), Some(0.0), "a take resets the time");
}

/// The kernel time covers every batch and pass of a run: eight times the
/// samples (eight batches) take well over twice the kernel time of one
/// batch. A timer that saw only the first batch or pass would fail this.
#[test]
fn kernel_time_covers_every_batch() {
    let Some(ctx) = common::gpu::gpu() else { return };
    if !ctx.supports_timestamps() {
        eprintln!("notice: {} has no timestamp queries", ctx.describe());
        return;
    }
    let scene = scene::builtin("compass-gait").expect("built-in scene");
    let options = SamplerOptions {
        samples: 1024,
        step_size: Some(scene.step_size),
        steps: Some(scene.steps),
        selection: Selection::RandomLemke,
        ..Default::default()
    };
    let run = impactset::gpu::GpuRunOptions { batch_size: Some(1024), ..Default::default() };
    let time = |samples: usize| {
        let options = SamplerOptions { samples, ..options.clone() };
        impactset::gpu::sample_set_gpu_with(&ctx, &scene.problem, &options, Precision::F32, &run, &|_| {}).unwrap();
        ctx.take_kernel_time().expect("timestamps supported")
    };
    time(1024); // compile the pipelines
    let (one, eight) = (time(1024), time(8 * 1024));
    eprintln!("kernel time: one batch {:.3} ms, eight batches {:.3} ms", 1e3 * one, 1e3 * eight);
    assert!(eight > 2.0 * one, "eight batches {eight} s vs one {one} s");
}
