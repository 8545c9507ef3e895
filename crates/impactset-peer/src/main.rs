//! `impactset-peer`: impactset's step LCPs against Siconos' `lcp_lexicolemke`,
//! side by side in one run.
//!
//! For each paper scene it records the step LCPs met along `random-lemke`
//! trajectories (`b_R = [h·p; J v; 0]` of every step of samples
//! `0..--trajectories`), then, alternating repetitions so both see the same
//! machine load:
//!
//! * **Siconos**: `lcp_lexicolemke` (covering vector 1, default options) on
//!   every recorded LCP;
//! * **impactset Lemke**: [`LemkeWorkspace::solve_matrix`] on the same LCPs,
//!   the matrix prepared once per scene as the sampler does
//!   (covering vector 1, the same problems);
//! * **impactset Lemke, random covers**: the same solves with the random
//!   covering vectors and column orders a `random-lemke` step draws (drawn
//!   before the clock starts), which no solve shares with another;
//! * **pipeline**: a whole `random-lemke` run on one thread
//!   (`sample_set`, `--samples` samples: random draws, Routh step and Lemke
//!   together), time per step LCP.
//!
//! It prints ns per LCP for each, the ratios, and how many answers of each
//! are wrong (a solver failure, or a residual violation
//! (`LcpResidual::violation`) above `--tolerance`). Without Siconos
//! (Debian: `apt-get install libsiconos-numerics-dev`) it says so and reports
//! impactset alone.
//!
//! ```text
//! cargo run --release -p impactset-peer -- [--trajectories 2000] [--samples 16384] [--repetitions 5] [scene ...]
//! ```

use std::time::Instant;

use impactset::lcp::{LcpMatrix, LemkeOptions, LemkeWorkspace};
use impactset::sampling::sample_trajectory;
use impactset::{SamplerOptions, Selection, sample_set, scene, stream};

#[cfg(siconos)]
mod siconos;

const PAPER_SCENES: [&str; 5] = ["rocking-block", "compass-gait", "box-wall", "ramone", "disk-stack"];

struct Args {
    scenes: Vec<String>,
    trajectories: u64,
    samples: usize,
    repetitions: usize,
    tolerance: f64,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args { scenes: Vec::new(), trajectories: 2000, samples: 1 << 14, repetitions: 5, tolerance: 1e-9 };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--trajectories" => args.trajectories = parse(&value(&a)?, &a)?,
            "--samples" => args.samples = parse(&value(&a)?, &a)?,
            "--repetitions" => args.repetitions = parse::<usize>(&value(&a)?, &a)?.max(1),
            "--tolerance" => args.tolerance = parse(&value(&a)?, &a)?,
            "-h" | "--help" => {
                println!(
                    "impactset-peer [--trajectories N] [--samples N] [--repetitions N] [--tolerance X] [scene ...]"
                );
                std::process::exit(0);
            }
            _ if a.starts_with('-') => return Err(format!("unknown option {a}")),
            _ => args.scenes.push(a),
        }
    }
    if args.scenes.is_empty() {
        args.scenes = PAPER_SCENES.iter().map(|s| s.to_string()).collect();
    }
    Ok(args)
}

fn parse<T: std::str::FromStr>(s: &str, name: &str) -> Result<T, String> {
    s.parse().map_err(|_| format!("{name}: cannot read {s:?}"))
}

/// The step LCPs (`b_R`) along the `random-lemke` trajectories of samples `0..count`.
fn step_lcps(s: &impactset::Scene, count: u64) -> Vec<Vec<f64>> {
    let options = SamplerOptions {
        step_size: Some(s.step_size),
        steps: Some(s.steps),
        selection: Selection::RandomLemke,
        ..Default::default()
    };
    let ops = s.problem.operators();
    let size = ops.layout().size();
    let mut lcps = Vec::new();
    for index in 0..count {
        let trajectory = sample_trajectory(&s.problem, &options, index);
        let mut v = s.problem.velocity().clone();
        for step in &trajectory.steps {
            let u = &ops.j * &v;
            let mut b = vec![0.0; size];
            for (bi, p) in b.iter_mut().zip(&step.p) {
                *bi = s.step_size * p;
            }
            b[ops.m..size - ops.m].copy_from_slice(u.as_slice());
            lcps.push(b);
            v = nalgebra::DVector::from_column_slice(&step.v);
        }
    }
    lcps
}

/// One timed pass of Siconos over `lcps` (ns per LCP, wrong answers), or
/// `None` when it was not found at build time.
fn peer(a: &[f64], lcps: &[Vec<f64>], tolerance: f64) -> Option<(f64, usize)> {
    #[cfg(siconos)]
    return Some(siconos::solve_all(a, lcps, tolerance));
    #[cfg(not(siconos))]
    {
        let _ = (a, lcps, tolerance);
        None
    }
}

/// A covering vector and a column order per LCP, drawn as a `random-lemke`
/// step draws them ([`stream::SampleStreams::random_cover`]), from the
/// selection stream of sample `i` for LCP `i`.
fn random_covers(count: usize, n: usize) -> Vec<(Vec<f64>, usize)> {
    let key = stream::stream_key(0);
    (0..count as u64)
        .map(|i| {
            let mut cover = vec![0.0; n];
            let offset = stream::SampleStreams::new(&key, i).random_cover(&mut cover);
            (cover, offset)
        })
        .collect()
}

/// One timed pass of impactset's Lemke over `lcps`, with covering vector 1
/// or with the covering vectors and column orders of `covers`: (ns per LCP,
/// wrong answers).
fn ours(a: &[f64], lcps: &[Vec<f64>], covers: Option<&[(Vec<f64>, usize)]>, tolerance: f64) -> (f64, usize) {
    let n = lcps[0].len();
    let mut ws = LemkeWorkspace::new(n);
    let options = LemkeOptions::default().resolved_for(a, n);
    let matrix = LcpMatrix::from_row_major(n, a).expect("the step matrix is n × n");
    let mut wrong = 0;
    let start = Instant::now();
    for (k, q) in lcps.iter().enumerate() {
        let (cover, offset) = covers.map_or((None, 0), |c| (Some(&c[k].0[..]), c[k].1));
        match ws.solve_matrix(&matrix, q, cover, offset, &options) {
            Ok(sol) if sol.residual.violation() <= tolerance => {}
            _ => wrong += 1,
        }
    }
    (start.elapsed().as_nanos() as f64 / lcps.len() as f64, wrong)
}

/// One timed `random-lemke` run on one thread: ns per step LCP.
fn pipeline(s: &impactset::Scene, samples: usize, selection: Selection) -> f64 {
    let options = SamplerOptions {
        samples,
        step_size: Some(s.step_size),
        steps: Some(s.steps),
        selection,
        threads: Some(1),
        ..Default::default()
    };
    let start = Instant::now();
    let set = sample_set(&s.problem, &options);
    let elapsed = start.elapsed().as_nanos() as f64;
    let lcps: u64 = set.samples.iter().map(|x| x.steps as u64).sum();
    elapsed / lcps as f64
}

fn median(mut x: Vec<f64>) -> f64 {
    x.sort_by(f64::total_cmp);
    x[x.len() / 2]
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("impactset-peer: {e}");
            std::process::exit(2);
        }
    };
    #[cfg(siconos)]
    println!("peer: Siconos numerics, lcp_lexicolemke (default options, pivot cap {})", siconos::max_iterations());
    #[cfg(not(siconos))]
    println!(
        "peer: Siconos numerics not found at build time (apt-get install libsiconos-numerics-dev, then rebuild): impactset only"
    );
    println!(
        "{} repetitions (medians), residual tolerance {:.0e}; 'wrong' = failed or residual violation above it",
        args.repetitions, args.tolerance
    );
    println!(
        "{:<14} {:>3} {:>7} | {:>10} {:>6} | {:>10} {:>6} | {:>10} {:>6} | {:>12} {:>12} | {:>9} {:>9} {:>9} {:>9}",
        "scene",
        "N",
        "LCPs",
        "siconos ns",
        "wrong",
        "lemke ns",
        "wrong",
        "l-rand ns",
        "wrong",
        "rl-pipe ns",
        "l-pipe ns",
        "sic/lemke",
        "sic/l-rnd",
        "sic/rl-p",
        "sic/l-p"
    );
    for id in &args.scenes {
        let Some(s) = scene::builtin(id) else {
            eprintln!("impactset-peer: unknown scene {id:?}");
            std::process::exit(2);
        };
        let lcps = step_lcps(&s, args.trajectories);
        if lcps.is_empty() {
            continue;
        }
        let a = &s.problem.operators().step_matrix;
        let n = lcps[0].len();
        let covers = random_covers(lcps.len(), n);
        let (mut ours_ns, mut peer_ns, mut rl_ns, mut l_ns) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut covered_ns = Vec::new();
        let (mut ours_wrong, mut covered_wrong, mut peer_wrong) = (0, 0, None::<usize>);
        for _ in 0..args.repetitions {
            if let Some((ns, wrong)) = peer(a, &lcps, args.tolerance) {
                peer_ns.push(ns);
                peer_wrong = Some(wrong);
            }
            let (ns, wrong) = ours(a, &lcps, None, args.tolerance);
            ours_ns.push(ns);
            ours_wrong = wrong;
            let (ns, wrong) = ours(a, &lcps, Some(&covers), args.tolerance);
            covered_ns.push(ns);
            covered_wrong = wrong;
            rl_ns.push(pipeline(&s, args.samples, Selection::RandomLemke));
            l_ns.push(pipeline(&s, args.samples, Selection::Lemke));
        }
        let (o, oc, rl, l) = (median(ours_ns), median(covered_ns), median(rl_ns), median(l_ns));
        let (p, pw) = match peer_wrong {
            Some(w) => (median(peer_ns), w.to_string()),
            None => (f64::NAN, "–".into()),
        };
        println!(
            "{id:<14} {n:>3} {:>7} | {p:>10.1} {pw:>6} | {o:>10.1} {ours_wrong:>6} | {oc:>10.1} {covered_wrong:>6} | {rl:>12.1} {l:>12.1} | {:>8.2}× {:>8.2}× {:>8.2}× {:>8.2}×",
            lcps.len(),
            p / o,
            p / oc,
            p / rl,
            p / l
        );
    }
}
