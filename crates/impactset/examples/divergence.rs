//! How unevenly the work of a run is spread over its samples, from the CPU
//! reference: what the threads of a GPU warp would wait for (docs/gpu.md,
//! "Divergence").
//!
//!     cargo run --release --example divergence -- [samples] [problem ...] [--json PATH]
//!
//! For each problem (built-in scene ids or problem files; default: every
//! built-in scene and the robot problem files of the tests), samples
//! `0 .. samples` (default 2¹⁴) of `random-lemke` with the problem's step
//! size and step cap (the pilot's where the problem gives none), as the GPU
//! runs them. Per sample: its LCP steps and its Lemke pivots (summed over
//! its steps; a step whose Lemke solve failed is not counted). Printed: the
//! mean, the 99th percentile and the maximum of each, and the SIMT
//! efficiency `Σ w / (32 · Σ_warps max w)` of warps of 32 lanes with work
//! `w` per sample (steps, or pivots + steps: a step's fixed work counted as
//! one pivot's):
//!
//! * `warp`: one sample per lane, lanes `32k .. 32k + 31` running samples
//!   `32k .. 32k + 31` (the one-invocation kernel): each warp runs as long
//!   as its slowest sample;
//! * `persistent ×s`: persistent workers taking the next sample index from
//!   a shared counter, `s` samples a lane on average (`samples / s` lanes):
//!   a lane that finishes takes the next index, so only the run's tail
//!   waits. An estimate: it counts a lane's work as if the lanes of a warp
//!   were independent (on hardware, lanes at different points of the loop
//!   still share the warp's instruction stream).
//!
//! `--json PATH` also writes, per problem, its name (as `impactset bench`
//! names it), `N`, the Lemke tableau's row stride on the GPU and the mean
//! steps and pivots a sample: what `scripts/device-bench.sh` turns into
//! the pivots' arithmetic rate on the device (a dense pivot updates `N`
//! rows of `stride` scalars, one multiply-add each: `2 · N · stride`
//! flops, an upper bound, since the shaders skip a row whose entry in the
//! pivot column is zero).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use impactset::sampling::sample_trajectory;
use impactset::{ImpactProblem, SamplerOptions, Selection};

/// Lanes of a warp (an NVIDIA warp; AMD's waves are 32 or 64).
const WARP: usize = 32;

/// Columns a shader row operation updates per loop iteration: the GPU's
/// tableau rows are `2N + 2` rounded up to a multiple of it (`lemke.wgsl`).
const TABLEAU_BLOCK: usize = 8;

/// The robot problem files of the tests, beside the built-in scenes.
const PROBLEM_FILES: [&str; 2] = ["tests/data/go2-landing.json", "tests/data/humanoid-feet-flat.json"];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1).peekable();
    let samples: usize = match args.peek().map(|a| a.parse::<usize>()) {
        Some(Ok(n)) => {
            args.next();
            n
        }
        _ => 1 << 14,
    };
    let mut names = Vec::new();
    let mut json = None;
    while let Some(arg) = args.next() {
        if arg == "--json" {
            json = Some(args.next().ok_or("--json needs a path")?);
        } else {
            names.push(arg);
        }
    }
    if names.is_empty() {
        names = impactset::scene::ids().iter().map(|s| s.to_string()).collect();
        let root = env!("CARGO_MANIFEST_DIR");
        names.extend(PROBLEM_FILES.iter().map(|f| format!("{root}/{f}")));
    }
    println!("random-lemke, samples 0 .. {samples}; work per sample w = steps, or pivots + steps");
    println!(
        "| problem | N | K | steps mean / p99 / max | pivots mean / p99 / max | failed | warp eff. (steps) | warp eff. (pivots + steps) | persistent ×4 | persistent ×16 |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut records = Vec::new();
    for name in &names {
        let (label, problem, options) = load(name, samples)?;
        let runs = work(&problem, &options);
        let steps: Vec<u64> = runs.iter().map(|r| r.steps).collect();
        let work: Vec<u64> = runs.iter().map(|r| r.pivots + r.steps).collect();
        let failed = runs.iter().filter(|r| r.failed).count();
        let pivots: Vec<u64> = runs.iter().map(|r| r.pivots).collect();
        println!(
            "| {label} | {} | {} | {} | {} | {failed} | {:.2} | {:.2} | {:.2} | {:.2} |",
            problem.operators().step_size_n(),
            options.steps.unwrap_or(0),
            spread(&steps),
            spread(&pivots),
            warp_efficiency(&steps),
            warp_efficiency(&work),
            persistent_efficiency(&work, samples.div_ceil(4)),
            persistent_efficiency(&work, samples.div_ceil(16)),
        );
        let n = problem.operators().step_size_n();
        let mean = |w: &[u64]| w.iter().sum::<u64>() as f64 / w.len().max(1) as f64;
        records.push(serde_json::json!({
            "problem": label,
            "n": n,
            "stride": (2 * n + 2).next_multiple_of(TABLEAU_BLOCK),
            "samples": samples,
            "steps_mean": mean(&steps),
            "pivots_mean": mean(&pivots),
        }));
    }
    if let Some(path) = json {
        std::fs::write(&path, serde_json::to_string_pretty(&records)? + "\n")?;
        println!("wrote {path}");
    }
    Ok(())
}

/// A built-in scene (its step size and cap) or a problem file (its own, the
/// pilot's cap where it gives none), with `samples` samples of
/// `random-lemke`.
fn load(name: &str, samples: usize) -> Result<(String, ImpactProblem, SamplerOptions), Box<dyn std::error::Error>> {
    let base = SamplerOptions { samples, selection: Selection::RandomLemke, ..Default::default() };
    if let Some(scene) = impactset::scene::builtin(name) {
        let options = SamplerOptions { step_size: Some(scene.step_size), steps: Some(scene.steps), ..base };
        return Ok((name.to_string(), scene.problem, options));
    }
    let spec = impactset::io::load_problem(std::path::Path::new(name))?;
    let mut options = SamplerOptions { samples, selection: Selection::RandomLemke, ..spec.sampler_options() };
    options.resolve_steps(&spec.problem, &|_| {}, None).map_err(|_| "the pilot was cancelled")?;
    Ok((spec.name.clone(), spec.problem, options))
}

/// One sample's work.
struct Work {
    steps: u64,
    pivots: u64,
    failed: bool,
}

/// The work of samples `0 .. options.samples`, on every core.
fn work(problem: &ImpactProblem, options: &SamplerOptions) -> Vec<Work> {
    use rayon::prelude::*;
    (0..options.samples as u64)
        .into_par_iter()
        .map(|index| {
            let trajectory = sample_trajectory(problem, options, index);
            Work {
                steps: trajectory.sample.steps as u64,
                pivots: trajectory.steps.iter().map(|s| s.pivots as u64).sum(),
                failed: trajectory.sample.lcp_failure.is_some(),
            }
        })
        .collect()
}

/// `mean / p99 / max` of `w`.
fn spread(w: &[u64]) -> String {
    let mut sorted = w.to_vec();
    sorted.sort_unstable();
    let mean = sorted.iter().sum::<u64>() as f64 / sorted.len().max(1) as f64;
    let p99 = sorted[(sorted.len() * 99 / 100).min(sorted.len() - 1)];
    format!("{mean:.1} / {p99} / {}", sorted[sorted.len() - 1])
}

/// `Σ w / (32 · Σ_warps max w)`: warps of 32 consecutive samples, each as
/// long as its slowest.
fn warp_efficiency(w: &[u64]) -> f64 {
    let total: u64 = w.iter().sum();
    let held: u64 = w.chunks(WARP).map(|warp| WARP as u64 * warp.iter().max().unwrap_or(&0)).sum();
    total as f64 / held.max(1) as f64
}

/// `Σ w / (lanes · makespan)` of `lanes` lanes taking the samples in index
/// order, each the next one when it finishes its last (ties to the lowest
/// lane), the whole run as long as its last lane.
fn persistent_efficiency(w: &[u64], lanes: usize) -> f64 {
    let lanes = lanes.max(1);
    let mut free: BinaryHeap<Reverse<(u64, usize)>> = (0..lanes).map(|l| Reverse((0, l))).collect();
    let mut makespan = 0;
    for &work in w {
        let Reverse((at, lane)) = free.pop().expect("lanes > 0");
        let done = at + work;
        makespan = makespan.max(done);
        free.push(Reverse((done, lane)));
    }
    w.iter().sum::<u64>() as f64 / (lanes as u64 * makespan).max(1) as f64
}
