//! From a mode solution in reduced coordinates `(x, u⁺)` to a full step-LCP
//! solution `z = [σ; λn; λD; γ]`.

use super::scratch::Scratch;
use crate::impact::enumerate::StepEnumerator;
use crate::impact::enumerate::modes::{Normal, Tangential};
use crate::problem::ContactOperators;

impl StepEnumerator {
    /// The full LCP solution `z` of the leaf `(choice, x, u⁺)`.
    pub(crate) fn rebuild(&self, ops: &ContactOperators, sc: &mut Scratch) {
        let red = &self.reduced;
        let layout = ops.layout();
        let (s, d) = (red.s, self.full.d);
        let dirs = &red.directions;
        let z = &mut sc.z;
        z.iter_mut().for_each(|v| *v = 0.0);
        for i in 0..red.m {
            let mode = &red.table.modes[sc.domains.choice[i]];
            let cap = sc.caps[i];
            let mu = red.friction[i];
            let x = &sc.leaf.x[i * s..(i + 1) * s];
            let up = &sc.leaf.up[i * s..(i + 1) * s];
            let along = |k: usize| -> f64 { (0..s - 1).map(|a| dirs[k][a] * up[1 + a]).sum() };
            let lambda_n = match mode.normal {
                Normal::Open => 0.0,
                Normal::Closed => x[0].clamp(0.0, cap.max(0.0)),
                Normal::Capped => cap,
            };
            if mode.normal == Normal::Capped {
                z[layout.sigma(i)] = (-up[0]).max(0.0);
            }
            z[layout.lambda_n(i)] = lambda_n;
            let mut gamma = 0.0;
            match mode.tangential {
                Tangential::None | Tangential::Free => {
                    gamma = (0..d).map(|k| -along(k)).fold(0.0, f64::max);
                }
                Tangential::Stick => {
                    let (k, j, a, b) = split(dirs, &x[1..]);
                    z[layout.lambda_d(i, k)] += a;
                    z[layout.lambda_d(i, j)] += b;
                }
                Tangential::Vertex(k) => {
                    z[layout.lambda_d(i, k)] = mu * lambda_n;
                    gamma = (-along(k)).max(0.0);
                }
                Tangential::Edge(k) => {
                    let j = (k + 1) % d;
                    let (a, b) = split_on(dirs[k], dirs[j], &x[1..]);
                    z[layout.lambda_d(i, k)] = a;
                    z[layout.lambda_d(i, j)] = b;
                    gamma = (-0.5 * (along(k) + along(j))).max(0.0);
                }
            }
            z[layout.gamma(i)] = gamma;
        }
    }
}

/// `f` (on the tangents) as `a d_k + b d_j ≥ 0` with `d_k, d_j` the directions
/// spanning it (in the plane `j = k`, `b = 0`).
fn split(dirs: &[[f64; 2]], f: &[f64]) -> (usize, usize, f64, f64) {
    if f.len() == 1 {
        let k = if f[0] * dirs[0][0] >= 0.0 { 0 } else { 1 };
        return (k, k, (f[0] * dirs[k][0]).max(0.0), 0.0);
    }
    let d = dirs.len();
    let dot = |k: usize| dirs[k][0] * f[0] + dirs[k][1] * f[1];
    let k = (0..d).fold(0, |best, k| if dot(k) > dot(best) { k } else { best });
    let (next, prev) = ((k + 1) % d, (k + d - 1) % d);
    let j = if dot(next) >= dot(prev) { next } else { prev };
    let (a, b) = split_on(dirs[k], dirs[j], f);
    (k, j, a, b)
}

/// Solves `f = a d_k + b d_j` (clamped at zero against round-off).
fn split_on(dk: [f64; 2], dj: [f64; 2], f: &[f64]) -> (f64, f64) {
    let det = dk[0] * dj[1] - dk[1] * dj[0];
    let a = (f[0] * dj[1] - f[1] * dj[0]) / det;
    let b = (dk[0] * f[1] - dk[1] * f[0]) / det;
    (a.max(0.0), b.max(0.0))
}
