//! A small dense two-phase simplex method, for the combined rows of the
//! null pattern (`null_space.rs`): `min cᵀy` subject to `A y = b`, `y ≥ 0`,
//! with a few equations (the null directions) and a few dozen unknowns
//! (the contacts' admissible-impulse rows).
//!
//! Only feasibility matters to the certificate: any `y ≥ 0` gives a valid
//! row, and its caller measures what `A y` misses of `b` itself. The
//! optimum only makes the row tight. Bland's rule keeps it from cycling.

/// Pivots at most this many times in all (a few equations: far more than
/// either phase takes).
const MAX_PIVOTS: usize = 500;

/// A reduced cost, a ratio's pivot or a phase-one residual at most this
/// (relative to the problem's entries) counts as zero.
const TINY: f64 = 1e-11;

/// `y ≥ 0` with `A y = b` (`a`: `rows × cols`, row-major) minimizing `cᵀy`,
/// or `None` where phase one finds no feasible point (within [`TINY`] of
/// the largest `|b|`) or the pivots run out. An unbounded objective returns
/// the feasible vertex reached.
pub(super) fn minimize(a: &[f64], rows: usize, cols: usize, b: &[f64], c: &[f64]) -> Option<Vec<f64>> {
    debug_assert_eq!(a.len(), rows * cols);
    // Tableau: `rows` constraint rows, then the objective row; columns: the
    // unknowns, one artificial per row, the right-hand side.
    let width = cols + rows + 1;
    let mut tab = vec![0.0; (rows + 1) * width];
    let scale = a.iter().chain(b).fold(0.0f64, |m, x| m.max(x.abs())).max(f64::MIN_POSITIVE);
    for r in 0..rows {
        let sign = if b[r] < 0.0 { -1.0 } else { 1.0 };
        for j in 0..cols {
            tab[r * width + j] = sign * a[r * cols + j];
        }
        tab[r * width + cols + r] = 1.0;
        tab[r * width + width - 1] = sign * b[r];
    }
    let mut basis: Vec<usize> = (cols..cols + rows).collect();
    // Phase one: minimize the artificials' sum (objective row = −Σ rows).
    let obj = rows * width;
    for r in 0..rows {
        for j in 0..width {
            if !(cols..cols + rows).contains(&j) {
                tab[obj + j] -= tab[r * width + j];
            }
        }
    }
    let mut pivots = 0;
    if !run(&mut tab, &mut basis, rows, width, cols + rows, scale, &mut pivots) {
        return None;
    }
    if -tab[obj + width - 1] > TINY * scale {
        return None;
    }
    // Artificials left in the basis at zero: pivot them out where a column
    // of the unknowns can take their place (else the row is redundant).
    for r in 0..rows {
        if basis[r] >= cols {
            if let Some(j) = (0..cols).find(|&j| tab[r * width + j].abs() > TINY * scale) {
                pivot(&mut tab, &mut basis, rows, width, r, j);
            }
        }
    }
    // Phase two: the objective row from `c`, reduced by the basis.
    for j in 0..width {
        tab[obj + j] = if j < cols { c[j] } else { 0.0 };
    }
    for r in 0..rows {
        let k = basis[r];
        if k < cols && c[k] != 0.0 {
            let f = c[k];
            for j in 0..width {
                tab[obj + j] -= f * tab[r * width + j];
            }
        }
    }
    // Artificials never re-enter (`cols` columns eligible).
    run(&mut tab, &mut basis, rows, width, cols, scale, &mut pivots);
    let mut y = vec![0.0; cols];
    for r in 0..rows {
        if basis[r] < cols {
            y[basis[r]] = tab[r * width + width - 1].max(0.0);
        }
    }
    Some(y)
}

/// Pivots by Bland's rule among the first `eligible` columns until no
/// reduced cost is negative (`true`), the objective is unbounded (`true`:
/// the vertex stays) or the pivots run out (`false`).
fn run(
    tab: &mut [f64],
    basis: &mut [usize],
    rows: usize,
    width: usize,
    eligible: usize,
    scale: f64,
    pivots: &mut usize,
) -> bool {
    let obj = rows * width;
    loop {
        let Some(enter) = (0..eligible).find(|&j| tab[obj + j] < -TINY * scale) else {
            return true;
        };
        let mut leave: Option<(usize, f64)> = None;
        for r in 0..rows {
            let p = tab[r * width + enter];
            if p > TINY * scale {
                let ratio = tab[r * width + width - 1] / p;
                let better = match leave {
                    None => true,
                    Some((l, best)) => ratio < best || (ratio == best && basis[r] < basis[l]),
                };
                if better {
                    leave = Some((r, ratio));
                }
            }
        }
        let Some((r, _)) = leave else {
            return true;
        };
        *pivots += 1;
        if *pivots > MAX_PIVOTS {
            return false;
        }
        pivot(tab, basis, rows, width, r, enter);
    }
}

/// Makes column `j` basic in row `r`.
fn pivot(tab: &mut [f64], basis: &mut [usize], rows: usize, width: usize, r: usize, j: usize) {
    let p = tab[r * width + j];
    for k in 0..width {
        tab[r * width + k] /= p;
    }
    for q in 0..=rows {
        if q != r {
            let f = tab[q * width + j];
            if f != 0.0 {
                for k in 0..width {
                    tab[q * width + k] -= f * tab[r * width + k];
                }
            }
        }
    }
    basis[r] = j;
}

#[cfg(test)]
mod tests {
    use super::minimize;

    #[test]
    fn finds_the_least_cost_combination() {
        // y₀ + y₁ + y₂ = 1, y₀ − y₁ = 0: the cheapest is y₂ = 1 when it
        // costs less than y₀ = y₁ = ½.
        let a = [1.0, 1.0, 1.0, 1.0, -1.0, 0.0];
        let y = minimize(&a, 2, 3, &[1.0, 0.0], &[1.0, 1.0, 0.5]).expect("feasible");
        assert!((y[2] - 1.0).abs() < 1e-14 && y[0].abs() < 1e-14 && y[1].abs() < 1e-14);
        let y = minimize(&a, 2, 3, &[1.0, 0.0], &[1.0, 1.0, 3.0]).expect("feasible");
        assert!((y[0] - 0.5).abs() < 1e-14 && (y[1] - 0.5).abs() < 1e-14 && y[2].abs() < 1e-14);
    }

    #[test]
    fn says_when_no_nonnegative_combination_exists() {
        // y₀ + y₁ = −1 has no solution with y ≥ 0.
        assert!(minimize(&[1.0, 1.0], 1, 2, &[-1.0], &[1.0, 1.0]).is_none());
    }

    #[test]
    fn keeps_redundant_rows() {
        // Two copies of one equation, negative right-hand side.
        let a = [-1.0, -2.0, -1.0, -2.0];
        let y = minimize(&a, 2, 2, &[-2.0, -2.0], &[1.0, 1.0]).expect("feasible");
        assert!((y[0] + 2.0 * y[1] - 2.0).abs() < 1e-14);
        assert!((y[0] + y[1] - 1.0).abs() < 1e-14, "the cheaper vertex: y₁ = 1");
    }
}
