//! What `all`'s steps cost and how they are settled: certified unique by the
//! bound from one Lemke solve, searched in full, or cut short by the node
//! budget (docs/model.md §5b), on one thread.
//!
//!     cargo run --release --example all_shares -- <scene id | problem file> [samples] [--no-bound] [--budget N]
//!
//! Walks Algorithm 1 with one [`StepEnumerator`]: caps `h·U[0, 1)` (the
//! uniform law) at the problem's default step size (a file's own `h` when it
//! gives one), up to 64 steps, a uniformly drawn solution each step, from
//! `v⁻`. Prints the shares of steps, the mean time of a step and the
//! search's mode fixes (mean over the searched steps, and the most); with
//! `--no-bound`, of the search alone (the same solutions); `--budget N`
//! sets the search's node budget (default 2²⁴ mode fixes).

use std::time::Instant;

use impactset::ImpactProblem;
use impactset::impact::{EnumeratorOptions, StepEnumerator};
use nalgebra::DVector;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(source) = args.next() else {
        eprintln!("usage: all_shares <scene id | problem file> [samples]");
        std::process::exit(2);
    };
    let samples: usize = args.next().map_or(64, |s| s.parse().expect("samples: a count"));
    let rest: Vec<String> = args.collect();
    let bound = !rest.iter().any(|a| a == "--no-bound");
    let budget = rest.iter().position(|a| a == "--budget").map(|k| rest[k + 1].parse().expect("--budget: a count"));
    let (problem, step_size): (ImpactProblem, f64) = match impactset::scene::builtin(&source) {
        Some(scene) => (scene.problem, scene.step_size),
        None => {
            let spec = impactset::io::load_problem(std::path::Path::new(&source)).expect("a problem file");
            let h = spec.step_size.unwrap_or_else(|| spec.problem.default_step_size());
            (spec.problem, h)
        }
    };
    let ops = problem.operators();
    let (m, size) = (ops.m, ops.step_size_n());
    let scale = problem.velocity_scale();
    let defaults = EnumeratorOptions::default();
    let options = EnumeratorOptions { bound, node_budget: budget.unwrap_or(defaults.node_budget), ..defaults };
    let mut enumerator = StepEnumerator::with_options(ops, options);
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let mut b = vec![0.0; size];
    let start = Instant::now();
    let (mut fixes, mut most) = (0usize, 0usize);
    for _ in 0..samples {
        let mut v = problem.velocity().clone();
        for _ in 0..64 {
            let u = &ops.j * &v;
            if (0..m).all(|i| u[i] >= -1e-9 * scale) {
                break;
            }
            b[..m].iter_mut().for_each(|x| *x = step_size * rng.random_range(0.0..1.0));
            b[m..m + u.len()].copy_from_slice(u.as_slice());
            b[size - m..].iter_mut().for_each(|x| *x = 0.0);
            let count = enumerator.enumerate(ops, &b);
            fixes += enumerator.nodes();
            most = most.max(enumerator.nodes());
            if count == 0 {
                break;
            }
            v += DVector::from_column_slice(enumerator.velocity_change(rng.random_range(0..count)));
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    let c = enumerator.counts();
    let share = |k: u64| 100.0 * k as f64 / c.steps.max(1) as f64;
    println!(
        "{source}: {m} contacts, {samples} samples, {} steps: {:.1} % certified unique, {:.1} % enumerated, \
         {:.1} % not exhaustive (budget); {:.3} ms a step, {:.3} s a sample; {:.0} mode fixes a searched \
         step, {} at most",
        c.steps,
        share(c.certified),
        share(c.enumerated),
        share(c.not_exhaustive),
        1e3 * elapsed / c.steps.max(1) as f64,
        elapsed / samples as f64,
        fixes as f64 / (c.enumerated + c.not_exhaustive).max(1) as f64,
        most,
    );
}
