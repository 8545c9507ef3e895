//! Completing a search cut short by its budget with randomized Lemke solves.

use super::scratch::Scratch;
use crate::impact::enumerate::StepEnumerator;
use crate::lcp::LemkeOptions;
use crate::problem::ContactOperators;

impl StepEnumerator {
    /// Completes a search cut short: Lemke solves with covering vector `1` and
    /// then pseudo-random ones (a fixed hash of the solve and row index, so
    /// the result is a function of `b` alone).
    pub(crate) fn fallback(&mut self, ops: &ContactOperators, b: &[f64], sc: &mut Scratch) {
        let options = LemkeOptions::default();
        let impulses = ops.layout().impulses();
        let impulse_scale = (0..ops.m).map(|i| b[i].abs() * (1.0 + ops.friction[i])).fold(0.0f64, f64::max);
        let velocity_scale = b.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let Scratch { cover, z, dv, .. } = sc;
        for solve in 0..self.options.fallback_solves {
            for (row, c) in cover.iter_mut().enumerate() {
                *c = if solve == 0 { 1.0 } else { exponential(solve as u64, row as u64) };
            }
            let Ok(sol) = self.lemke.solve_covered(&ops.step_matrix, b, Some(cover), solve, &options) else {
                continue;
            };
            if sol.residual.violation() > 1e-8 * velocity_scale.max(impulse_scale).max(f64::MIN_POSITIVE) {
                continue;
            }
            z.copy_from_slice(sol.z);
            for (r, v) in dv.iter_mut().enumerate() {
                *v = impulses.clone().map(|c| ops.minv_jt[(r, c - ops.m)] * z[c]).sum();
            }
            self.keep(ops, z, dv, b[..ops.m].iter().fold(0.0f64, |a, x| a.max(x.abs())));
        }
    }
}

/// The covering vector of the bound's Lemke solve (`certificates/mod.rs`):
/// entries of the `random-lemke` rule's law, `2⁻⁶ + U[0, 1)` in 2⁻²⁴ steps
/// ([`crate::stream::cover`]), from a fixed hash of the row (as the
/// fallback's, solve number 0), so the solve is a function of the step.
pub(crate) fn hashed_cover(size: usize) -> Vec<f64> {
    (0..size).map(|row| crate::stream::cover((splitmix(0, row as u64) >> 32) as u32)).collect()
}

/// A deterministic `Exp(1)` draw from `(solve, row)`.
fn exponential(solve: u64, row: u64) -> f64 {
    let unit = ((splitmix(solve, row) >> 11) as f64 + 1.0) * (1.0 / (1u64 << 53) as f64);
    -unit.ln()
}

/// SplitMix64's finalizer of `(solve, row)`.
fn splitmix(solve: u64, row: u64) -> u64 {
    let mut x = solve.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ row.wrapping_add(0xD1B5_4A32_D192_ED03);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}
