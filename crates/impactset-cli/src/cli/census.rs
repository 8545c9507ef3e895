//! `impactset census`: Lemke's outcome on many step LCPs, classified, so that
//! no failure is silent.
//!
//! Every built-in scene and a stream of random census problems
//! ([`census_problem`]: sizes, mass conditioning up to 10⁸, μ from 0 to 10⁵)
//! contribute step LCPs `w = A_R z + b` with random right-hand sides
//! ([`random_step_rhs`]). Each is solved by Lemke's algorithm as the sampler
//! calls it, and its answer is checked here, independently of the solver's
//! own report, by recomputing `w = A z + b` ([`LcpResidual::compute`]).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use anyhow::Result;
use clap::Args;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

use super::InputError;
use impactset::lcp::{LcpError, LcpResidual, LemkeOptions, LemkeWorkspace};
use impactset::scene::random::{census_problem, random_step_rhs};
use impactset::{ImpactProblem, scene};

/// Arguments of `impactset census`.
#[derive(Args, Debug)]
pub struct CensusArgs {
    /// Step LCPs in all (split evenly: every built-in scene gets as many as
    /// the random problems together get per scene; the rest are random).
    #[arg(long, short = 'n', default_value_t = 10_000_000)]
    lcps: u64,
    /// Right-hand sides per random problem.
    #[arg(long, default_value_t = 1000)]
    per_problem: u64,
    /// Seed of the random problems and right-hand sides.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Worker threads [default: all cores].
    #[arg(long)]
    threads: Option<usize>,
    /// Write the table as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
}

/// A solve's outcome, as the census classifies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    /// Lemke returned `z` and the recomputed violation is ≤ 10⁻⁹ (what the
    /// sampler accepts).
    Verified,
    /// Returned within the solver's tolerance (10⁻⁶), above 10⁻⁹: the
    /// sampler rejects the sample that met it.
    Loose,
    /// Lemke itself flagged its `z` (residual above its tolerance).
    Inaccurate,
    /// Secondary ray.
    Ray,
    /// Pivot cap reached.
    PivotCap,
    /// Returned as a solution, but the recomputed violation exceeds the
    /// solver's tolerance: a silent failure.
    Silent,
}

/// Outcome counts of one family of problems.
#[derive(Clone, Debug, Default, Serialize)]
struct Row {
    family: String,
    problems: u64,
    refused_problems: u64,
    lcps: u64,
    verified: u64,
    loose: u64,
    inaccurate: u64,
    ray: u64,
    pivot_cap: u64,
    silent: u64,
    max_pivots: u64,
    max_verified_violation: f64,
}

impl Row {
    fn add(&mut self, other: &Row) {
        self.problems += other.problems;
        self.refused_problems += other.refused_problems;
        self.lcps += other.lcps;
        self.verified += other.verified;
        self.loose += other.loose;
        self.inaccurate += other.inaccurate;
        self.ray += other.ray;
        self.pivot_cap += other.pivot_cap;
        self.silent += other.silent;
        self.max_pivots = self.max_pivots.max(other.max_pivots);
        self.max_verified_violation = self.max_verified_violation.max(other.max_verified_violation);
    }

    fn count(&mut self, outcome: Outcome, pivots: usize, violation: f64) {
        self.lcps += 1;
        self.max_pivots = self.max_pivots.max(pivots as u64);
        match outcome {
            Outcome::Verified => {
                self.verified += 1;
                self.max_verified_violation = self.max_verified_violation.max(violation);
            }
            Outcome::Loose => self.loose += 1,
            Outcome::Inaccurate => self.inaccurate += 1,
            Outcome::Ray => self.ray += 1,
            Outcome::PivotCap => self.pivot_cap += 1,
            Outcome::Silent => self.silent += 1,
        }
    }
}

/// Tolerance of an accepted step (the sampler's default residual tolerance).
const ACCEPT: f64 = 1e-9;

/// `count` step LCPs of `problem` with right-hand sides from `rng`.
fn census_of(problem: &ImpactProblem, rng: &mut ChaCha8Rng, count: u64, done: &AtomicU64, row: &mut Row) {
    let ops = problem.operators();
    let size = ops.step_size_n();
    let options = LemkeOptions::default().resolved_for(&ops.step_matrix, size);
    let tolerance = options.residual_tolerance.unwrap_or(impactset::lcp::DEFAULT_RESIDUAL_TOLERANCE);
    let mut lemke = LemkeWorkspace::new(size);
    let mut w = vec![0.0; size];
    for _ in 0..count {
        let b = random_step_rhs(rng, problem);
        let (outcome, pivots, violation) = match lemke.solve(&ops.step_matrix, &b, &options) {
            Ok(sol) => {
                let violation = LcpResidual::compute(&ops.step_matrix, &b, sol.z, &mut w).violation();
                let outcome = if !sol.within_tolerance {
                    Outcome::Inaccurate
                } else if violation <= ACCEPT {
                    Outcome::Verified
                } else if violation <= tolerance {
                    Outcome::Loose
                } else {
                    Outcome::Silent
                };
                (outcome, sol.pivots, violation)
            }
            Err(LcpError::Ray { pivots }) => (Outcome::Ray, pivots, f64::INFINITY),
            Err(LcpError::Size { .. } | LcpError::CoverSize { .. }) => {
                unreachable!("the workspace and covering vector are sized for the problem")
            }
            Err(LcpError::PivotLimit { pivots }) => (Outcome::PivotCap, pivots, f64::INFINITY),
            Err(LcpError::Inaccurate { pivots }) => (Outcome::Inaccurate, pivots, f64::INFINITY),
        };
        row.count(outcome, pivots, violation);
    }
    done.fetch_add(count, Ordering::Relaxed);
}

/// Runs `impactset census`.
pub fn run(args: CensusArgs) -> Result<()> {
    if args.lcps == 0 || args.per_problem == 0 {
        return Err(InputError("--lcps and --per-problem must be at least 1".into()).into());
    }
    let threads = args.threads.unwrap_or(0);
    if threads > impactset::sampling::MAX_THREADS {
        return Err(InputError(format!("--threads {threads}: at most {}", impactset::sampling::MAX_THREADS)).into());
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
    let ids = scene::ids();
    let families = ids.len() as u64 + 1;
    let per_scene = args.lcps / families;
    let random_lcps = args.lcps - per_scene * ids.len() as u64;
    let done = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let bar = super::progress::bar(args.lcps, "LCPs", false);
    let start = std::time::Instant::now();
    let (scene_rows, random_row) = pool.install(|| {
        std::thread::scope(|s| {
            let ticker = s.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    bar.set_position(done.load(Ordering::Relaxed));
                    std::thread::sleep(std::time::Duration::from_millis(200));
                }
            });
            // Scenes: chunks of right-hand sides, each chunk its own stream.
            let chunk = args.per_problem.max(1);
            let scene_rows: Vec<Row> = ids
                .iter()
                .enumerate()
                .map(|(k, id)| {
                    let problem = scene::builtin(id).expect("listed scene builds").problem;
                    let chunks = per_scene.div_ceil(chunk);
                    let mut row = (0..chunks)
                        .into_par_iter()
                        .map(|c| {
                            let mut rng = ChaCha8Rng::seed_from_u64(args.seed ^ ((k as u64 + 1) << 48) ^ c);
                            let count = chunk.min(per_scene - c * chunk);
                            let mut row = Row::default();
                            census_of(&problem, &mut rng, count, &done, &mut row);
                            row
                        })
                        .reduce(Row::default, |mut a, b| {
                            a.add(&b);
                            a
                        });
                    row.family = (*id).to_string();
                    row.problems = 1;
                    row
                })
                .collect();
            let problems = random_lcps.div_ceil(chunk);
            let mut random_row = (0..problems)
                .into_par_iter()
                .map(|p| {
                    let mut rng = ChaCha8Rng::seed_from_u64(args.seed ^ (0xC0FFEE << 40) ^ p);
                    let count = chunk.min(random_lcps - p * chunk);
                    let mut row = Row { problems: 1, ..Row::default() };
                    match census_problem(&mut rng) {
                        Ok(problem) => census_of(&problem, &mut rng, count, &done, &mut row),
                        Err(_) => {
                            row.refused_problems = 1;
                            done.fetch_add(count, Ordering::Relaxed);
                        }
                    }
                    row
                })
                .reduce(Row::default, |mut a, b| {
                    a.add(&b);
                    a
                });
            random_row.family = "random (census_problem)".into();
            stop.store(true, Ordering::Relaxed);
            ticker.join().expect("progress ticker");
            (scene_rows, random_row)
        })
    });
    bar.finish_and_clear();
    let elapsed = start.elapsed().as_secs_f64();
    let mut rows = scene_rows;
    rows.push(random_row);
    let mut total = Row { family: "all".into(), ..Row::default() };
    for row in &rows {
        total.add(row);
    }
    rows.push(total);
    print_table(&rows);
    println!(
        "{} step LCPs in {elapsed:.1} s ({:.2} µs each on {} threads); verified: recomputed violation ≤ {ACCEPT:e}",
        args.lcps,
        elapsed * 1e6 / args.lcps as f64,
        pool.current_num_threads()
    );
    if let Some(path) = &args.json {
        impactset::io::write_json(path, &rows).map_err(|e| anyhow::anyhow!("--json {}: {e}", path.display()))?;
    }
    let silent = rows.last().map_or(0, |r| r.silent);
    if silent > 0 {
        anyhow::bail!("{silent} step LCPs were returned as solved with a residual above the solver's tolerance");
    }
    Ok(())
}

/// The table, as Markdown.
fn print_table(rows: &[Row]) {
    println!(
        "| family | problems | step LCPs | verified | loose (≤1e-6) | inaccurate (flagged) | ray | pivot cap | silent | max pivots |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let problems = if r.refused_problems > 0 {
            format!("{} ({} refused)", r.problems, r.refused_problems)
        } else {
            r.problems.to_string()
        };
        println!(
            "| {} | {problems} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.family, r.lcps, r.verified, r.loose, r.inaccurate, r.ray, r.pivot_cap, r.silent, r.max_pivots
        );
    }
}
