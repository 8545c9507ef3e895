//! Algorithm 2 throughput on the GPU (wall time: upload, kernels, read-back),
//! per paper scene, rule and precision, next to `sampling.rs`'s CPU figures.
//! Without an adapter the group is empty and a notice is printed. The kernel
//! time alone (timestamp queries) is in `impactset bench`'s `kernel ms`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use impactset::gpu::{GpuContext, sample_set_gpu};
use impactset::{SamplerOptions, Selection, scene};

fn algorithm_2_gpu(c: &mut Criterion) {
    let ctx = match GpuContext::new() {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("notice: no GPU ({e}); GPU benchmarks skipped");
            return;
        }
    };
    eprintln!("GPU: {}", ctx.describe());
    let mut group = c.benchmark_group("algorithm_2_gpu");
    group.sample_size(10);
    // lavapipe runs ~10⁴ samples/s; a real GPU gets a set worth its launch.
    let samples = if ctx.adapter_info().device_type == wgpu::DeviceType::Cpu { 1 << 12 } else { 1 << 20 };
    group.throughput(Throughput::Elements(samples as u64));
    for id in ["compass-gait", "rocking-block", "box-wall", "ramone", "disk-stack"] {
        let s = scene::builtin(id).unwrap();
        for selection in [Selection::Lemke, Selection::RandomLemke] {
            for precision in ctx.precisions() {
                let o = SamplerOptions {
                    samples,
                    step_size: Some(s.step_size),
                    steps: s.steps,
                    selection,
                    ..Default::default()
                };
                // Refusals (RAMone in f32) are skipped with their reason.
                if let Err(e) = sample_set_gpu(&ctx, &s.problem, &o, precision) {
                    eprintln!("notice: {id}/{selection}/{precision}: {e}");
                    continue;
                }
                group.bench_function(format!("{id}/{selection}/{precision}"), |bench| {
                    bench.iter(|| sample_set_gpu(&ctx, &s.problem, &o, precision).unwrap().samples.len())
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, algorithm_2_gpu);
criterion_main!(benches);
