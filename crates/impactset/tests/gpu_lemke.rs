//! The GPU's Lemke (shaders/lemke.wgsl) against the CPU's (src/lcp/lemke.rs)
//! on random LCPs of Routh-step structure.

mod common;

use common::gpu::step_lcps;
use impactset::ImpactProblem;
use impactset::gpu::{BASE_LCP_SIZE, GpuError, GpuLcp, Precision, solve_lcps_gpu};
use impactset::lcp::{LemkeOptions, LemkeWorkspace};
use impactset::scene::random::coupled_problem;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A random problem with `m` independent contacts (spatial with `d`
/// directions, or planar) on `n` velocities.
fn random_problem(rng: &mut ChaCha8Rng, n: usize, m: usize, spatial: Option<usize>) -> ImpactProblem {
    coupled_problem(rng, n, m, spatial, f64::INFINITY, 0.3..0.8)
}

struct Agreement {
    total: usize,
    same_pivots: usize,
    close: usize,
    /// GPU solves that ended on a ray or the pivot cap (counted as not close).
    failed: usize,
    max_dev: f64,
}

fn compare(ctx: &impactset::gpu::GpuContext, precision: Precision, lcps: &[GpuLcp], tol: f64) -> Option<Agreement> {
    let gpu = match solve_lcps_gpu(ctx, precision, lcps) {
        Ok(gpu) => gpu,
        // lavapipe's loop limiter: reported, never a wrong answer.
        Err(e @ GpuError::LoopLimit { .. }) if ctx.is_software() => {
            eprintln!("notice: {e}");
            return None;
        }
        Err(e) => panic!("{e}"),
    };
    let mut ws = LemkeWorkspace::new(lcps[0].q.len());
    let mut a = Agreement { total: lcps.len(), same_pivots: 0, close: 0, failed: 0, max_dev: 0.0 };
    for (lcp, g) in lcps.iter().zip(&gpu) {
        let options = match precision {
            Precision::F64 => LemkeOptions::default(),
            Precision::F32 => LemkeOptions {
                pivot_tolerance: Some(impactset::gpu::pivot_tolerance(&lcp.a, lcp.q.len(), Precision::F32)),
                tie_tolerance: Some(impactset::gpu::tie_tolerance(Precision::F32)),
                ..Default::default()
            },
        };
        let cpu = ws.solve_covered(&lcp.a, &lcp.q, lcp.cover.as_deref(), lcp.lex_offset, &options).unwrap();
        let Ok(g) = g else {
            eprintln!("{precision}: the GPU failed where the CPU solved in {} pivots: {g:?}", cpu.pivots);
            a.failed += 1;
            continue;
        };
        let scale = cpu.z.iter().fold(1.0f64, |s, x| s.max(x.abs()));
        let dev = cpu.z.iter().zip(&g.z).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max) / scale;
        a.max_dev = a.max_dev.max(dev);
        a.close += (dev <= tol) as usize;
        a.same_pivots += (cpu.pivots == g.pivots) as usize;
    }
    eprintln!(
        "{precision}: {}/{} within {tol:e}, {}/{} same pivots, {} failed, max relative deviation {:.3e}",
        a.close, a.total, a.same_pivots, a.total, a.failed, a.max_dev
    );
    Some(a)
}

#[test]
fn gpu_lemke_matches_cpu_on_step_lcps() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    // N = 5, 10 (planar), 22 (two spatial, d = 8), 44 (four spatial, d = 8;
    // fits lavapipe's loop limiter up to ~120 pivots, docs/gpu-lavapipe.md).
    let shapes = [(3, 1, None), (3, 2, None), (6, 2, Some(8)), (12, 4, Some(8))];
    for (n, m, d) in shapes {
        let problem = random_problem(&mut rng, n, m, d);
        let lcps = step_lcps(&mut rng, &problem, 64);
        eprintln!("N = {}", lcps[0].q.len());
        if ctx.supports_f64() {
            if let Some(a) = compare(&ctx, Precision::F64, &lcps, 1e-9) {
                assert_eq!(a.close, a.total);
                assert!(a.same_pivots as f64 >= 0.99 * a.total as f64);
            }
        }
        if let Some(a) = compare(&ctx, Precision::F32, &lcps, 1e-3) {
            // f32 may fail (a secondary ray where round-off has eaten the
            // entering column), never answer wrongly. Measured: no failure up
            // to N = 22, 3 of 64 at N = 44.
            assert_eq!(a.close + a.failed, a.total, "an f32 solution off by more than 1e-3");
            let allowed = if lcps[0].q.len() <= 22 { 0.01 } else { 0.1 };
            assert!(a.failed as f64 <= allowed * a.total as f64);
        }
    }
}

/// Above the smallest module's 44 rows the Lemke kernel runs in the module
/// of the LCP's size class (larger private arrays): five spatial contacts
/// (N = 55, the class of 88), once refused, solve as on the CPU (the
/// sampler on such problems: tests/gpu_large.rs).
#[test]
fn gpu_lemke_solves_lcps_above_the_smallest_module() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let problem = random_problem(&mut rng, 12, 5, Some(8));
    assert!(problem.operators().step_size_n() > BASE_LCP_SIZE);
    let lcps = step_lcps(&mut rng, &problem, 32);
    let precision = ctx.default_precision();
    let tol = if precision == Precision::F64 { 1e-9 } else { 1e-3 };
    if let Some(a) = compare(&ctx, precision, &lcps, tol) {
        assert_eq!(a.close + a.failed, a.total, "a solution off by more than {tol:e}");
        if precision == Precision::F64 {
            assert_eq!(a.close, a.total);
        }
    }
}

/// Murty's problem (lower triangular, 1 on the diagonal, 2 below; `q = −1`):
/// one solution `z = e₀`, reached after `2^N − 1` pivots plus the entry of
/// `z₀`, past the shaders' old bound of 440 from `N = 9`. The GPU takes the CPU's pivots to the same
/// answer; lavapipe's loop limiter (docs/gpu-lavapipe.md) cuts the longest
/// ones, which is reported, never answered wrongly.
#[test]
fn gpu_solves_murty_problems_past_the_old_pivot_bound() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let cpu_adapter = ctx.is_software();
    for n in 7..=12usize {
        let a: Vec<f64> = (0..n * n)
            .map(|k| match (k / n, k % n) {
                (i, j) if i == j => 1.0,
                (i, j) if i > j => 2.0,
                _ => 0.0,
            })
            .collect();
        let lcp = GpuLcp { a: a.clone(), q: vec![-1.0; n], cover: None, lex_offset: 0 };
        let cpu = LemkeWorkspace::new(n).solve(&a, &lcp.q, &LemkeOptions::default()).unwrap().pivots;
        assert_eq!(cpu, 1 << n, "N = {n}");
        for precision in ctx.precisions() {
            match solve_lcps_gpu(&ctx, precision, std::slice::from_ref(&lcp)) {
                Ok(gpu) => {
                    let gpu = gpu[0].as_ref().unwrap_or_else(|e| panic!("N = {n} {precision}: {e}"));
                    let mut expected = vec![0.0; n];
                    expected[0] = 1.0;
                    assert_eq!((gpu.pivots, &gpu.z), (cpu, &expected), "N = {n} {precision}");
                }
                Err(e @ GpuError::LoopLimit { .. }) if cpu_adapter && n > 9 => {
                    eprintln!("notice: N = {n} {precision}: {e}");
                }
                Err(e) => panic!("N = {n} {precision}: {e}"),
            }
        }
    }
}
