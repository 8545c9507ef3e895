//! One step-LCP solve per paper scene: Lemke (covering vector 1 and a random
//! one) and the `all` enumeration, on the scene's first step with caps
//! `h·p`, `p = 0.5`.
//!
//! `enumerate/*`: the mode enumerator's cost table (module docs of
//! `impact::enumerate`): per case, 1000 steps (20 random problems with
//! coupled contacts and `μ ∈ [2, 4)`, 50 steps each with `h` = the problem's
//! default step times `U[0.2, 2)`, `p ~ U[0, 1)`, velocities `v⁻` or random),
//! all enumerated in each iteration (time per 1000 steps; the throughput is
//! steps per second). The setup prints the search's fixes per step and the
//! steps not searched exhaustively. Run alone with
//! `cargo bench --bench step_lcp -- enumerate`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use impactset::impact::StepEnumerator;
use impactset::lcp::{LemkeOptions, LemkeWorkspace};
use impactset::scene;
use impactset::scene::random::{coupled_problem, random_step_rhs};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

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
    for id in scene::PAPER_SCENES {
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

fn enumerate(c: &mut Criterion) {
    let cases = [
        ("2 planar contacts (n = 4)", 4, 2, None),
        ("5 planar contacts (n = 9)", 9, 5, None),
        ("2 spatial contacts, d = 8 (n = 6)", 6, 2, Some(8)),
        ("4 spatial contacts, d = 8 (n = 12)", 12, 4, Some(8)),
        ("4 spatial contacts on one body, d = 8 (n = 6)", 6, 4, Some(8)),
    ];
    let mut group = c.benchmark_group("enumerate");
    group.sample_size(10);
    for (name, n, m, spatial) in cases {
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        let mut steps: Vec<(usize, Vec<f64>)> = Vec::new();
        let mut problems = Vec::new();
        for p in 0..20 {
            let problem = coupled_problem(&mut rng, n, m, spatial, 0.6, 2.0..4.0);
            for _ in 0..50 {
                steps.push((p, random_step_rhs(&mut rng, &problem)));
            }
            problems.push(problem);
        }
        let mut enumerators: Vec<StepEnumerator> =
            problems.iter().map(|p| StepEnumerator::new(p.operators())).collect();
        let (mut fixes, mut inexhaustive) = (0, 0);
        for (p, b) in &steps {
            enumerators[*p].enumerate(problems[*p].operators(), b);
            fixes += enumerators[*p].nodes();
            inexhaustive += usize::from(!enumerators[*p].exhaustive());
        }
        eprintln!(
            "enumerate/{name}: {:.0} fixes/step, {inexhaustive} of {} steps not exhaustive",
            fixes as f64 / steps.len() as f64,
            steps.len()
        );
        // One iteration enumerates every step: costs are heavy-tailed, so a
        // subset would not give the mean.
        group.throughput(Throughput::Elements(steps.len() as u64));
        group.bench_function(name, |bench| {
            bench.iter(|| {
                steps
                    .iter()
                    .map(|(p, b)| enumerators[*p].enumerate(problems[*p].operators(), black_box(b)))
                    .sum::<usize>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, step_lcp, enumerate);
criterion_main!(benches);
