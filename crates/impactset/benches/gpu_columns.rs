//! The host's share of a GPU run: a run's outputs, as the device writes
//! them, turned into the columns of `FlatSamples`. 2²⁰ compass-gait-sized
//! samples (n = 4) in batches of 2¹⁸ (the default on a GPU), f32 and f64:
//! `serial_appended` reads one sample at a time into each batch's own
//! columns and appends them (the host's way before its columns were built
//! in parallel), `in_place/<threads>` is `impactset::gpu::columns_from_outputs`
//! on pools of 1 thread and of every core. No GPU is needed: the outputs
//! are synthetic (every flag combination, random scalars).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use impactset::gpu::{Precision, columns_from_outputs};
use impactset::sampling::FlatSamples;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SAMPLES: usize = 1 << 20;
const BATCH: usize = 1 << 18;
const N: usize = 4;

/// The old path: per batch, one sample at a time into growing columns, then
/// appended to the run's.
fn serial_appended(words: &[u32], stats: &[f32], v: &[f32]) -> FlatSamples {
    let mut run = FlatSamples::with_capacity(N, 0, 0);
    for first in (0..SAMPLES).step_by(BATCH) {
        let mut out = FlatSamples::with_capacity(N, first as u64, BATCH);
        let flags = |i: usize| words[2 * i + 1];
        for i in first..first + BATCH {
            out.steps.push(words[2 * i]);
            out.terminated.push(flags(i) & 1 != 0 && flags(i) & 32 == 0);
            out.accepted.push(flags(i) & 2 != 0 && flags(i) & 32 == 0);
            out.max_residual.push(if flags(i) & 36 != 0 { f64::INFINITY } else { stats[3 * i] as f64 });
            out.energy_before.push(stats[3 * i + 1] as f64);
            out.energy_after.push(stats[3 * i + 2] as f64);
        }
        out.v_plus.extend(v[first * N..(first + BATCH) * N].iter().map(|&x| x as f64));
        run.append(out);
    }
    run
}

fn host_columns(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let words: Vec<u32> = (0..SAMPLES).flat_map(|_| [rng.random_range(1..20), 16 | rng.random_range(0..8)]).collect();
    let stats32: Vec<f32> = (0..3 * SAMPLES).map(|_| rng.random()).collect();
    let v32: Vec<f32> = (0..N * SAMPLES).map(|_| rng.random()).collect();
    let stats64: Vec<f64> = stats32.iter().map(|&x| x as f64).collect();
    let v64: Vec<f64> = v32.iter().map(|&x| x as f64).collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut group = c.benchmark_group("gpu_host_columns");
    group.sample_size(10);
    group.throughput(Throughput::Elements(SAMPLES as u64));
    group.bench_function("serial_appended/f32", |b| b.iter(|| serial_appended(&words, &stats32, &v32).len()));
    for threads in [1, cores] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let f32_bytes: (&[u8], &[u8]) = (bytemuck::cast_slice(&stats32), bytemuck::cast_slice(&v32));
        let f64_bytes: (&[u8], &[u8]) = (bytemuck::cast_slice(&stats64), bytemuck::cast_slice(&v64));
        for (precision, (stats, v)) in [(Precision::F32, f32_bytes), (Precision::F64, f64_bytes)] {
            group.bench_function(format!("in_place/{precision}/{threads}"), |b| {
                b.iter(|| pool.install(|| columns_from_outputs(&words, stats, v, precision, N, BATCH).len()))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, host_columns);
criterion_main!(benches);
