//! Unit tests of the dense and product-form Lemke solvers (`lemke.rs`).

use super::*;
use crate::lcp::fixtures::{CUBE_FLAT, PAPER_SCENES};

#[test]
fn nonnegative_q_gives_zero_without_pivots() {
    let mut ws = LemkeWorkspace::new(2);
    let sol = ws.solve(&[1.0, 0.0, 0.0, 1.0], &[1.0, 0.0], &LemkeOptions::default()).unwrap();
    assert_eq!(sol.z, &[0.0, 0.0]);
    assert_eq!(sol.pivots, 0);
}

#[test]
fn infeasible_lcp_ends_on_a_ray() {
    // w = −z − 1 can never be ≥ 0.
    let mut ws = LemkeWorkspace::new(1);
    let err = ws.solve(&[-1.0], &[-1.0], &LemkeOptions::default()).unwrap_err();
    assert!(matches!(err, LcpError::Ray { .. }));
    // A copositive-plus (PSD) matrix with an infeasible q: w1 = z2 − 1, w2 = −z1 − 1.
    let err = ws.solve(&[0.0, 1.0, -1.0, 0.0], &[-1.0, -1.0], &LemkeOptions::default()).unwrap_err();
    assert!(matches!(err, LcpError::Ray { .. }));
}

#[test]
fn pivot_cap_is_enforced() {
    let mut ws = LemkeWorkspace::new(2);
    let options = LemkeOptions { max_pivots: Some(1), ..Default::default() };
    let err = ws.solve(&[2.0, 1.0, 1.0, 2.0], &[-5.0, -6.0], &options).unwrap_err();
    assert_eq!(err, LcpError::PivotLimit { pivots: 1 });
}

#[test]
fn degenerate_problem_terminates() {
    // PSD and singular, q with ties and a zero: every ratio test ties.
    let a = [1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0];
    let q = [-1.0, -1.0, 0.0];
    let mut ws = LemkeWorkspace::new(3);
    let sol = ws.solve(&a, &q, &LemkeOptions::default()).unwrap();
    assert!(sol.residual.violation() < 1e-12, "{:?}", sol.residual);
}

/// The dense path of `(a, q, cover, offset)`: `z` (as bits) and pivots.
fn dense_reference(a: &[f64], q: &[f64], cover: Option<&[f64]>, offset: usize) -> Result<(Vec<u64>, usize), LcpError> {
    let n = q.len();
    let mut t = vec![0.0; n * (2 * n + 2)];
    let mut basis = vec![0; n];
    let tol = Tolerances { pivot: default_tolerance(a, n), tie: DEFAULT_TIE_TOLERANCE };
    let cap = LemkeOptions::default().pivot_cap(n);
    let at: Vec<f64> = (0..n * n).map(|k| a[(k % n) * n + k / n]).collect();
    let p = LcpData { at: &at, q, cover };
    let pivots = solve_dense(&mut t, &mut basis, p, offset, tol, cap)?;
    let mut z = vec![0.0; n];
    extract_solution(&t, &EtaFile::default(), &basis, n, true, &mut z);
    Ok((z.iter().map(|x| x.to_bits()).collect(), pivots))
}

/// The product-form phase (with its switch to the dense tableau at every
/// possible pivot) gives the dense solver's pivots and `z`, bit for bit:
/// on step LCPs of the paper scenes (`fixtures`) along random velocities
/// and caps, and on small integer LCPs full of ties (the lexicographic
/// test decides).
/// On a processor with AVX2 the product form's column replays run
/// compiled for it and the dense reference does not, so this also checks
/// that the two builds agree.
#[test]
fn product_form_matches_the_dense_tableau_bit_for_bit() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let mut cases: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
    for lcp in PAPER_SCENES {
        for _ in 0..60 {
            let mut b = lcp.random_rhs(&mut rng);
            if rng.random_bool(0.3) {
                b[lcp.contacts] = 0.0;
            }
            cases.push((lcp.matrix.to_vec(), b));
        }
    }
    // Every size the product form is compiled for (`with_size!`) and a few others.
    for n in [5, 10, 11, 15, 20, 22, 25, 8] {
        for _ in 0..12 {
            let a: Vec<f64> = (0..n * n).map(|_| f64::from(rng.random_range(-1i8..3))).collect();
            let q: Vec<f64> = (0..n).map(|_| f64::from(rng.random_range(-2i8..2))).collect();
            cases.push((a, q));
        }
    }
    for _ in 0..400 {
        let n = rng.random_range(1..7);
        let a: Vec<f64> = (0..n * n).map(|_| f64::from(rng.random_range(-2i8..3))).collect();
        let q: Vec<f64> = (0..n).map(|_| f64::from(rng.random_range(-2i8..2))).collect();
        cases.push((a, q));
    }
    let mut compared = 0;
    for (a, q) in &cases {
        let n = q.len();
        let cover: Vec<f64> = (0..n).map(|_| 1.0 / 64.0 + f64::from(rng.random_range(0u8..8)) / 8.0).collect();
        let offset = rng.random_range(0..n);
        for (cover, offset) in [(None, 0), (Some(&cover[..]), offset)] {
            let reference = dense_reference(a, q, cover, offset);
            for limit in [2, 3, 5, n.max(2), 1000] {
                let mut ws = LemkeWorkspace::new(n);
                ws.eta_limit = limit;
                ws.etas = EtaFile::new(n, limit);
                let got = ws
                    .solve_covered(a, q, cover, offset, &LemkeOptions::default())
                    .map(|s| (s.z.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), s.pivots));
                let reference = if q.iter().all(|&x| x >= 0.0) { Ok((vec![0; n], 0)) } else { reference.clone() };
                assert_eq!(got, reference, "A = {a:?}, q = {q:?}, cover {cover:?}, offset {offset}, limit {limit}");
                compared += 1;
            }
        }
    }
    assert!(compared > 3000);
}

/// Murty's matrix (lower triangular, 1 on the diagonal, 2 below) with
/// `q = −1`: a P-matrix, so the LCP has exactly one solution, `z = e₀`
/// (`w_i = 2 − 1` below the first row), and Lemke needs `2^N − 1` pivots
/// (Murty 1978), past the old cap of `max(100, 10 N)` from `N = 7`.
#[test]
fn murty_problem_is_solved_to_its_unique_solution() {
    for n in 7..=12 {
        let a: Vec<f64> = (0..n * n)
            .map(|k| match (k / n, k % n) {
                (i, j) if i == j => 1.0,
                (i, j) if i > j => 2.0,
                _ => 0.0,
            })
            .collect();
        let q = vec![-1.0; n];
        let mut ws = LemkeWorkspace::new(n);
        let sol = ws.solve(&a, &q, &LemkeOptions::default()).unwrap_or_else(|e| panic!("N = {n}: {e}"));
        let mut expected = vec![0.0; n];
        expected[0] = 1.0;
        assert_eq!(sol.z, &expected[..], "N = {n}");
        assert!(sol.within_tolerance && sol.pivots > 10 * n, "N = {n}: {} pivots", sol.pivots);
    }
}

/// Tridiagonal `tridiag(−1, 2, −1)` of size 100 (symmetric positive
/// definite: one solution) with patterned and random right-hand sides.
#[test]
fn tridiagonal_100_is_solved() {
    use rand::{Rng, SeedableRng};
    let n = 100;
    let a: Vec<f64> = (0..n * n)
        .map(|k| match (k / n) as isize - (k % n) as isize {
            0 => 2.0,
            1 | -1 => -1.0,
            _ => 0.0,
        })
        .collect();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut longest = 0;
    for trial in 0..40 {
        let q: Vec<f64> = (0..n)
            .map(|i| match trial {
                0 => {
                    if i % 2 == 0 {
                        -1.0
                    } else {
                        1.0
                    }
                }
                1 => (i as f64 * 0.37).sin(),
                2 => -(i as f64) / n as f64 + 0.5,
                3 => (i as f64) / n as f64 - 0.5,
                4 => {
                    if i % 3 == 0 {
                        1.0
                    } else {
                        -1.0
                    }
                }
                5 => -1.0,
                _ => rng.random_range(-1.0..1.0),
            })
            .collect();
        let mut ws = LemkeWorkspace::new(n);
        let sol = ws.solve(&a, &q, &LemkeOptions::default()).unwrap();
        assert!(sol.within_tolerance && sol.residual.violation() < 1e-9, "{:?}", sol.residual);
        longest = longest.max(sol.pivots);
    }
    assert!(longest >= n, "{longest}");
    // Paths of up to 15 N pivots are met on such problems; the default cap leaves room.
    assert!(LemkeOptions::default().pivot_cap(n) >= 15 * n);
}

/// Ill-conditioned LCPs (`A = Q diag(σ) Qᵀ + skew`, `σ` from 1 down to
/// 1e-17, `Q` a random rotation): some paths end at a point that is no
/// solution. The result flags exactly those, by its own residual.
#[test]
fn ill_conditioned_solution_is_flagged() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
    let n = 8;
    let mut flagged = 0;
    for _ in 0..400 {
        let g = nalgebra::DMatrix::from_fn(n, n, |_, _| rng.random_range(-1.0..1.0));
        let q_rot = g.qr().q();
        let sigma = nalgebra::DVector::from_fn(n, |i, _| 10f64.powf(-17.0 * i as f64 / (n - 1) as f64));
        let skew = nalgebra::DMatrix::from_fn(n, n, |i, j| {
            if i < j {
                1e-9 * (i + j) as f64
            } else if i > j {
                -1e-9 * (i + j) as f64
            } else {
                0.0
            }
        });
        let m = &q_rot * nalgebra::DMatrix::from_diagonal(&sigma) * q_rot.transpose() + skew;
        let a: Vec<f64> = m.transpose().iter().copied().collect();
        let q: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let mut ws = LemkeWorkspace::new(n);
        if let Ok(sol) = ws.solve(&a, &q, &LemkeOptions::default()) {
            assert_eq!(sol.within_tolerance, sol.residual.violation() <= DEFAULT_RESIDUAL_TOLERANCE);
            if !sol.within_tolerance {
                flagged += 1;
            }
        }
    }
    assert!(flagged > 0, "no ill-conditioned path ended off a solution");
}

/// One workspace solving LCPs whose matrices change between solves (so
/// the transpose it keeps goes stale), and prepared matrices, give bit
/// for bit what a fresh workspace gives for each.
#[test]
fn changed_and_prepared_matrices_solve_as_fresh() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(23);
    let mut ws = LemkeWorkspace::new(3);
    for k in 0..60 {
        let n = [3, 5, 10][k % 3];
        // Positive definite plus skew: every LCP has a solution.
        let g: Vec<f64> = (0..n * n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let a: Vec<f64> = (0..n * n)
            .map(|e| {
                let (i, j) = (e / n, e % n);
                (0..n).map(|l| g[i * n + l] * g[j * n + l]).sum::<f64>() + if i == j { 0.1 } else { 0.0 }
            })
            .collect();
        let q: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
        let cover: Vec<f64> = (0..n).map(|_| rng.random_range(0.5..1.5)).collect();
        let options = LemkeOptions::default();
        let bits = |s: LcpSolution| (s.z.iter().chain(s.w).map(|x| x.to_bits()).collect::<Vec<_>>(), s.pivots);
        let fresh = bits(LemkeWorkspace::new(n).solve_covered(&a, &q, Some(&cover), k, &options).unwrap());
        assert_eq!(bits(ws.solve_covered(&a, &q, Some(&cover), k, &options).unwrap()), fresh);
        let matrix = LcpMatrix::from_row_major(n, &a).unwrap();
        assert_eq!(matrix.row_major(), &a[..]);
        assert_eq!(bits(ws.solve_matrix(&matrix, &q, Some(&cover), k, &options).unwrap()), fresh);
    }
    assert!(LcpMatrix::from_row_major(3, &[1.0; 8]).is_err());
}

/// One workspace solving many LCPs with covering vector 1 (whose paths
/// it keeps, see `memo`) gives bit for bit what a fresh workspace gives
/// for each: step LCPs of the paper scenes and `cube-flat` (`fixtures`)
/// along random velocities and caps, with the column order, the matrix
/// and the tolerances changing now and then (each change starts the kept
/// paths anew), and small integer LCPs full of ties.
#[test]
fn kept_paths_solve_as_fresh() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
    let bits = |s: Result<LcpSolution, LcpError>| {
        s.map(|s| (s.z.iter().chain(s.w).map(|x| x.to_bits()).collect::<Vec<_>>(), s.pivots))
    };
    let mut ws = LemkeWorkspace::new(1);
    let mut solved = 0;
    for lcp in PAPER_SCENES.into_iter().chain([&CUBE_FLAT]) {
        let size = lcp.size();
        let matrix = LcpMatrix::from_row_major(size, lcp.matrix).unwrap();
        for k in 0..400 {
            let b = lcp.random_rhs(&mut rng);
            let offset = if k % 50 < 40 { 0 } else { k % 7 };
            let options = if k % 100 < 90 {
                LemkeOptions::default()
            } else {
                LemkeOptions { tie_tolerance: Some(1e-9), ..Default::default() }
            };
            let fresh = bits(LemkeWorkspace::new(size).solve_covered(lcp.matrix, &b, None, offset, &options));
            assert_eq!(bits(ws.solve_matrix(&matrix, &b, None, offset, &options)), fresh, "{}, LCP {k}", lcp.scene);
            solved += 1;
        }
    }
    for n in [3, 4, 6] {
        let a: Vec<f64> = (0..n * n).map(|_| f64::from(rng.random_range(-1i8..3))).collect();
        let matrix = LcpMatrix::from_row_major(n, &a).unwrap();
        for _ in 0..300 {
            let q: Vec<f64> = (0..n).map(|_| f64::from(rng.random_range(-2i8..2))).collect();
            let fresh = bits(LemkeWorkspace::new(n).solve(&a, &q, &LemkeOptions::default()));
            assert_eq!(
                bits(ws.solve_matrix(&matrix, &q, None, 0, &LemkeOptions::default())),
                fresh,
                "A = {a:?}, q = {q:?}"
            );
            solved += 1;
        }
    }
    assert_eq!(solved, 6 * 400 + 3 * 300);
}

#[test]
fn size_mismatch_is_an_error() {
    let mut ws = LemkeWorkspace::new(2);
    assert!(matches!(ws.solve(&[1.0], &[1.0, 2.0], &LemkeOptions::default()), Err(LcpError::Size { .. })));
    // A covering vector of the wrong length is named as such.
    let a = [2.0, 1.0, 1.0, 2.0];
    let e = ws.solve_covered(&a, &[-1.0, -1.0], Some(&[1.0]), 0, &LemkeOptions::default()).unwrap_err();
    assert_eq!(e, LcpError::CoverSize { expected: 2, got: 1 });
}
