//! One step-LCP solve per paper scene: Lemke (covering vector 1 and a random
//! one) and the `all` enumeration, on the scene's first step with caps
//! `h·p`, `p = 0.5`.

use criterion::{Criterion, criterion_group, criterion_main};
use impactset::impact::StepEnumerator;
use impactset::lcp::{LemkeOptions, LemkeWorkspace};
use impactset::scene;
use std::hint::black_box;

const SCENES: [&str; 5] = ["rocking-block", "compass-gait", "box-wall", "ramone", "disk-stack"];

/// `b_R = [h·p; J v⁻; 0]` of a scene's first step.
fn first_step(id: &str) -> (impactset::Scene, Vec<f64>) {
    let s = scene::builtin(id).expect("built-in scene");
    let ops = s.problem.operators();
    let size = ops.layout().size();
    let u = &ops.j * s.problem.velocity();
    let mut b = vec![0.0; size];
    b[..ops.m].iter_mut().for_each(|x| *x = 0.5 * s.step_size);
    b[ops.m..size - ops.m].copy_from_slice(u.as_slice());
    (s, b)
}

fn step_lcp(c: &mut Criterion) {
    let mut group = c.benchmark_group("step_lcp");
    for id in SCENES {
        let (s, b) = first_step(id);
        let ops = s.problem.operators();
        let size = b.len();
        let mut ws = LemkeWorkspace::new(size);
        let options = LemkeOptions::default();
        group.bench_function(format!("{id}/lemke (N = {size})"), |bench| {
            bench.iter(|| ws.solve(&ops.step_matrix, black_box(&b), &options).map(|s| s.pivots))
        });
        let cover: Vec<f64> = (0..size).map(|j| 0.2 + 0.7 * ((j * 37 % 11) as f64 / 11.0)).collect();
        group.bench_function(format!("{id}/random-lemke (N = {size})"), |bench| {
            bench
                .iter(|| ws.solve_covered(&ops.step_matrix, black_box(&b), Some(&cover), 3, &options).map(|s| s.pivots))
        });
        let mut enumerator = StepEnumerator::new(ops);
        group.bench_function(format!("{id}/all (N = {size})"), |bench| {
            bench.iter(|| enumerator.enumerate(ops, black_box(&b)))
        });
    }
    group.finish();
}

criterion_group!(benches, step_lcp);
criterion_main!(benches);
