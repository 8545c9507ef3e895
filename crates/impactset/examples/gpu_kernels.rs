//! The two Lemke kernels of the GPU sampler side by side on one problem:
//! one invocation per sample and one workgroup per sample (docs/gpu.md,
//! "Kernels"), with the wall time of each run after a warm-up run that
//! compiles its module.
//!
//!     cargo run --release --features gpu --example gpu_kernels -- <scene id | problem file> [samples] [f32|f64]
//!
//! Prints, per kernel and Lemke rule: samples, seconds, samples/s and how
//! many samples agree within 1e-9 (f64) or 1e-3 (f32) of ‖v⁻‖_M with the
//! other kernel. Wall times include the host's share (plan set-up, read
//! back); on a software adapter (lavapipe) they measure the CPU's cores,
//! not a GPU.

use std::time::Instant;

use impactset::gpu::{GpuContext, GpuPlan, GpuRunOptions, LemkeKernel, Precision};
use impactset::{ImpactProblem, SampleSet, SamplerOptions, Selection};
use nalgebra::DVector;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "cube-flat".to_string());
    let samples: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(256);
    let ctx = GpuContext::new()?;
    let precision: Precision = match args.next() {
        Some(p) => p.parse()?,
        None => ctx.default_precision(),
    };
    let (problem, step_size, steps) = match impactset::scene::builtin(&name) {
        Some(scene) => (scene.problem, Some(scene.step_size), scene.steps),
        None => (impactset::io::load_problem(std::path::Path::new(&name))?.problem, None, 10),
    };
    println!("{name}: N = {}, {} on {}", problem.operators().step_size_n(), precision, ctx.describe());
    for selection in [Selection::Lemke, Selection::RandomLemke] {
        let options = SamplerOptions { samples, step_size, steps: Some(steps), selection, ..Default::default() };
        let mut runs = Vec::new();
        for kernel in [LemkeKernel::PerSample, LemkeKernel::Cooperative] {
            let run = GpuRunOptions { lemke_kernel: Some(kernel), ..Default::default() };
            let mut plan = GpuPlan::new(&ctx, &problem, &options, precision, &run)?;
            plan.sample_range(0, 1, &|_| {})?;
            let started = Instant::now();
            let set = plan.sample_range(0, samples, &|_| {})?;
            let seconds = started.elapsed().as_secs_f64();
            println!(
                "  {selection} {kernel:?}: {samples} samples in {seconds:.3} s, {:.0}/s",
                samples as f64 / seconds
            );
            runs.push(set);
        }
        let tol = if precision == Precision::F64 { 1e-9 } else { 1e-3 };
        println!("  {selection}: {} of {samples} agree within {tol:e}", agreeing(&problem, &runs[0], &runs[1], tol));
    }
    Ok(())
}

/// Samples of `a` and `b` within `tol · ‖v⁻‖_M` of each other.
fn agreeing(problem: &ImpactProblem, a: &SampleSet, b: &SampleSet, tol: f64) -> usize {
    let scale = problem.energy_norm(problem.velocity());
    a.samples
        .iter()
        .zip(&b.samples)
        .filter(|(x, y)| {
            let diff = DVector::from_vec(x.v_plus.clone()) - DVector::from_vec(y.v_plus.clone());
            problem.energy_norm(&diff) <= tol * scale
        })
        .count()
}
