//! Algorithm 1 per sample and Algorithm 2 throughput on one thread and on
//! all threads, per paper scene and selection rule.
//!
//! `sample_one` builds its per-thread workspace on every call (about 4 µs of
//! the Algorithm 1 figures); Algorithm 2 reuses one workspace per thread, so
//! its throughput is the per-sample cost without that setup.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use impactset::{SamplerOptions, Selection, sample_one, sample_set, scene};

const SCENES: [&str; 4] = ["rocking-block", "compass-gait", "box-wall", "ramone"];

fn options(s: &impactset::Scene, samples: usize, selection: Selection, threads: Option<usize>) -> SamplerOptions {
    SamplerOptions {
        samples,
        step_size: Some(s.step_size),
        steps: Some(s.steps),
        selection,
        threads,
        ..Default::default()
    }
}

fn algorithm_1(c: &mut Criterion) {
    let mut group = c.benchmark_group("algorithm_1");
    for id in SCENES {
        let s = scene::builtin(id).unwrap();
        for selection in [Selection::Lemke, Selection::RandomLemke, Selection::All] {
            let o = options(&s, 1, selection, Some(1));
            let mut index = 0u64;
            group.bench_function(format!("{id}/{selection}"), |bench| {
                bench.iter(|| {
                    index += 1;
                    sample_one(&s.problem, &o, index).steps
                })
            });
        }
    }
    group.finish();
}

fn algorithm_2(c: &mut Criterion) {
    let mut group = c.benchmark_group("algorithm_2");
    group.sample_size(10);
    let samples = 1 << 14;
    group.throughput(Throughput::Elements(samples as u64));
    for id in ["compass-gait", "ramone"] {
        let s = scene::builtin(id).unwrap();
        for selection in [Selection::RandomLemke, Selection::All] {
            for (label, threads) in [("1 thread", Some(1)), ("all threads", None)] {
                let o = options(&s, samples, selection, threads);
                group.bench_function(format!("{id}/{selection}/{label}"), |bench| {
                    bench.iter(|| sample_set(&s.problem, &o).samples.len())
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, algorithm_1, algorithm_2);
criterion_main!(benches);
