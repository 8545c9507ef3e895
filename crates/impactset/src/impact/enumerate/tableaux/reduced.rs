//! The reduced step problem and its tableau algebra: fixing a contact's
//! mode as a block elimination (written in `eliminate.rs`), and the exact
//! bounds the search prunes with (the search itself is `search/mod.rs`).
//!
//! Unknowns are the reduced impulses `x = (x_0, …, x_(m−1))`,
//! `x_i = (λn_i, f_i)` (`s = 1 + t` each, `D = m·s` in all), and the step
//! is `u⁺ = u + W x` with `W = [Jn; Jt] M⁻¹ [Jn; Jt]ᵀ` the reduced Delassus
//! matrix. A search node has fixed the modes of contacts `0..l`; it keeps a
//! *tableau*: every `x_i` and every `u⁺_i` written as an affine function of
//! the still free impulses `x_l, …, x_(m−1)`. Fixing contact `l`'s mode
//! substitutes `x_l = h p_l x₀ + G y` and eliminates `y` with the mode's `q`
//! equations `C u⁺_l = 0` — a rank-`q` update of the tableau (block Gaussian
//! elimination, one contact at a time). At a leaf nothing is free and the
//! tableau's constants are the mode's solution.
//!
//! Pruning is exact: every solution of the step has each `x_j` in
//! `S_j = {λn ∈ [0, h p_j], f ∈ μ_j λn P}`, a polytope with vertices `0` and
//! `h p_j (1, μ_j d_k)`, so the largest value a fixed contact's inequality
//! can take over the free contacts is a sum of per-contact maxima over those
//! vertices. A node whose bound is negative beyond a margin has no solution
//! in its subtree.

use super::gauss::solve_in_place;
use crate::impact::enumerate::modes::{Inequality, Mode, ModeTable};

/// Per-problem constants of the reduced step.
#[derive(Clone, Debug)]
pub(crate) struct Reduced {
    /// Contacts.
    pub m: usize,
    /// Tangents per contact.
    pub t: usize,
    /// Reduced coordinates per contact, `1 + t`.
    pub s: usize,
    /// `D = m·s`.
    pub dim: usize,
    /// `W`, row-major `D × D`.
    pub w: Vec<f64>,
    /// The modes of every contact.
    pub table: ModeTable,
    /// Friction directions `d_k` on the tangents.
    pub directions: Vec<[f64; 2]>,
    /// `μ` per contact.
    pub friction: Vec<f64>,
    /// `max |W|`.
    pub w_max: f64,
    /// The numerical rank of `W`: a mode tuple with more equations has a
    /// singular system.
    pub rank: usize,
    /// Pivots at most this large make a mode system singular.
    pub singular: f64,
}

/// The data of one step: contact velocities, caps and the problem scales that
/// tolerances are relative to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StepData<'a> {
    /// `u = (u_n, u_t)` per contact (`D`).
    pub u: &'a [f64],
    /// `h p` (`m`).
    pub caps: &'a [f64],
    /// Per contact, the vertices of `S_j` ([`Mode::vertices`]) whose hull
    /// holds every admissible `x_j`.
    pub hull: &'a [u64],
    /// The scales its tolerances are relative to.
    pub scales: ToleranceScales,
}

/// A leaf's impulses `x`, post-impact velocities `u⁺`, and the direct
/// solve's system (`D²`, `D`, `D`).
#[derive(Clone, Debug, Default)]
pub(crate) struct Leaf {
    pub x: Vec<f64>,
    pub up: Vec<f64>,
    pub mat: Vec<f64>,
    pub rhs: Vec<f64>,
    pub u0: Vec<f64>,
}

/// The scales a step's tolerances are relative to (see the module docs of
/// `enumerate`, Tolerances).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct ToleranceScales {
    /// `max(‖u‖∞, max|W| · s · impulse)`.
    pub velocity: f64,
    /// `max_i h p_i (1 + μ_i)`.
    pub impulse: f64,
    /// `max_i h p_i`.
    pub normal: f64,
}

impl StepData<'_> {
    /// The absolute slack of `ineq` for relative tolerance `rel`: each term
    /// weighted by the scale of what it multiplies (`u⁺`: velocity; `λn` and
    /// `h p`: normal impulse; `f`: impulse).
    #[inline]
    pub fn slack(&self, ineq: &Inequality, rel: f64) -> f64 {
        rel * (ineq.au_norm * self.scales.velocity
            + ineq.tangent_norm * self.scales.impulse
            + ineq.normal_norm * self.scales.normal)
    }
}

impl Reduced {
    /// Columns of a tableau row: `D` coefficients and the constant.
    pub fn stride(&self) -> usize {
        self.dim + 1
    }

    /// Entries of one tableau: rows `x_0..x_D` then `u⁺_0..u⁺_D`.
    pub fn tableau_len(&self) -> usize {
        2 * self.dim * self.stride()
    }

    /// The root tableau: `x = x`, `u⁺ = u + W x`.
    pub fn init_tableau(&self, u: &[f64], tab: &mut [f64]) {
        let (dim, st) = (self.dim, self.stride());
        tab[..self.tableau_len()].iter_mut().for_each(|v| *v = 0.0);
        for r in 0..dim {
            tab[r * st + r] = 1.0;
            let row = &mut tab[(dim + r) * st..(dim + r + 1) * st];
            row[..dim].copy_from_slice(&self.w[r * dim..(r + 1) * dim]);
            row[dim] = u[r];
        }
    }

    /// Appends, for each inequality of contact `i` (fixed in `mode` on the
    /// tableau `tab`), each free contact `j` in the bit set `free`
    /// (ascending) and each direction `k`, the value `a_0 + μ_j d_kᵀ a_t` of
    /// the inequality's coefficients `a` on `x_j` at the vertex
    /// `(1, μ_j d_k)` of `S_j` per unit cap. The largest of `h p_j` times
    /// these (and `0` for the origin) over the hull of `x_j`'s admissible
    /// vertices bounds the inequality's `x_j` term, so a node's bounds need
    /// only its constants and these values (see the module docs). After
    /// each free contact's values come their largest and their least with
    /// `0`: `h p_j` times one of them is that bound when the hull holds the
    /// origin and every vertex (rounding is monotone, so it is the largest
    /// of the products bit for bit, up to the sign of a zero).
    pub fn bound_values(&self, tab: &[f64], i: usize, mode: &Mode, free: u64, out: &mut Vec<f64>) {
        let (dim, st, s, t) = (self.dim, self.stride(), self.s, self.t);
        let free = free & low_bits(self.m);
        let (x_rows, u_rows) = (i * s * st, (dim + i * s - s) * st);
        for ineq in self.table.inequalities_of(mode) {
            // Column `col` of the combination of tableau rows (x_i then u⁺_i
            // per coordinate).
            let mut terms = [(0.0, 0usize); 6];
            for (term, &(a, index)) in terms.iter_mut().zip(ineq.terms()) {
                *term = (a, if index < s { x_rows + index * st } else { u_rows + index * st });
            }
            let terms = &terms[..ineq.term_count];
            let column = |col: usize| terms.iter().fold(0.0, |v, &(a, row)| v + a * tab[row + col]);
            for j in bits(free) {
                let mut a = [0.0; 3];
                for (c, v) in a.iter_mut().enumerate().take(s) {
                    *v = column(j * s + c);
                }
                let mu = self.friction[j];
                let first = out.len();
                for dk in &self.directions {
                    let along: f64 = (0..t).map(|c| a[1 + c] * dk[c]).sum();
                    out.push(a[0] + mu * along);
                }
                // The extremes over the origin and every vertex.
                let (high, low) = out[first..].iter().fold((0.0f64, 0.0f64), |(h, l), &v| (h.max(v), l.min(v)));
                out.extend([high, low]);
            }
        }
    }

    /// Solves the mode system of the leaf `choice` (one global mode index per
    /// contact) directly, by Gaussian elimination with partial pivoting on the
    /// assembled `Σq × Σq` system. Writes `leaf.x`; returns `false` when
    /// singular.
    pub fn solve_leaf(&self, choice: &[usize], step: &StepData, leaf: &mut Leaf) -> bool {
        let Leaf { x, mat, rhs, u0, .. } = leaf;
        let (dim, s, m) = (self.dim, self.s, self.m);
        let modes = &self.table.modes;
        for (j, &c) in choice.iter().enumerate() {
            for b in 0..s {
                x[j * s + b] = step.caps[j] * modes[c].offset[b];
            }
        }
        self.post_velocity(step.u, x, u0);
        let total: usize = choice.iter().map(|&c| modes[c].params).sum();
        if total > 0 {
            let (mut row, mut col_start) = (0, [0usize; 64]);
            let mut acc = 0;
            for (j, &c) in choice.iter().enumerate() {
                col_start[j] = acc;
                acc += modes[c].params;
            }
            for (i, &ci) in choice.iter().enumerate() {
                let mi = &modes[ci];
                for k in 0..mi.params {
                    let crow = &mi.rows[k];
                    rhs[row] = -(0..s).map(|a| crow[a] * u0[i * s + a]).sum::<f64>();
                    for (j, &cj) in choice.iter().enumerate().take(m) {
                        let mj = &modes[cj];
                        for kk in 0..mj.params {
                            let g = &mj.basis[kk];
                            let mut v = 0.0;
                            for (a, &ca) in crow.iter().enumerate().take(s) {
                                if ca != 0.0 {
                                    let wrow = &self.w[(i * s + a) * dim + j * s..][..s];
                                    v += ca * wrow.iter().zip(g).map(|(w, g)| w * g).sum::<f64>();
                                }
                            }
                            mat[row * total + col_start[j] + kk] = v;
                        }
                    }
                    row += 1;
                }
            }
            if !solve_in_place(mat, total, rhs, 1, self.singular) {
                return false;
            }
            for (j, &c) in choice.iter().enumerate() {
                let mj = &modes[c];
                for kk in 0..mj.params {
                    let y = rhs[col_start[j] + kk];
                    for b in 0..s {
                        x[j * s + b] += y * mj.basis[kk][b];
                    }
                }
            }
        }
        true
    }

    /// The velocity scale a leaf `x` is accepted in:
    /// `max(‖u‖∞, max_r Σ_c |W_rc x_c|, s · max|W| · max_i h p_i)`, the size of
    /// the terms of `u⁺ = u + W x` (not the bound [`ToleranceScales::velocity`]
    /// over every admissible `x`, `μ` times larger for sliding contacts);
    /// `terms` is `max_r Σ_c |W_rc x_c|` ([`Reduced::leaf_velocity`]).
    pub fn leaf_velocity_scale(&self, step: &StepData, terms: f64) -> f64 {
        let u_max = step.u.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        u_max.max(terms).max(self.s as f64 * self.w_max * step.scales.normal)
    }

    /// `u⁺ = u + W x`.
    pub fn post_velocity(&self, u: &[f64], x: &[f64], up: &mut [f64]) {
        self.leaf_velocity(u, x, up);
    }

    /// [`post_velocity`](Self::post_velocity), and the size of its terms
    /// `max_r Σ_c |W_rc x_c|` from the same products (each sum from `−0`, as
    /// `Iterator::sum`, so both are the separate sums bit for bit).
    pub fn leaf_velocity(&self, u: &[f64], x: &[f64], up: &mut [f64]) -> f64 {
        let (dim, x) = (self.dim, &x[..self.dim]);
        let mut terms = 0.0f64;
        for r in 0..dim {
            let (mut sum, mut size) = (-0.0, -0.0);
            let row = &self.w[r * dim..][..dim];
            for c in 0..dim {
                let term = row[c] * x[c];
                sum += term;
                size += term.abs();
            }
            up[r] = u[r] + sum;
            terms = terms.max(size);
        }
        terms
    }

    /// Largest violation of the leaf's mode equations `C u⁺_i = 0`, relative
    /// to the velocity scale.
    pub fn equation_residual(&self, choice: &[usize], up: &[f64], step: &StepData) -> f64 {
        let s = self.s;
        let mut worst: f64 = 0.0;
        for (i, &c) in choice.iter().enumerate() {
            let mode = &self.table.modes[c];
            for row in &mode.rows[..mode.params] {
                let v: f64 = (0..s).map(|a| row[a] * up[i * s + a]).sum();
                worst = worst.max(v.abs());
            }
        }
        worst / step.scales.velocity.max(f64::MIN_POSITIVE)
    }

    /// Whether `(x, u⁺)` satisfies every inequality of the leaf within `rel`.
    pub fn inequalities_hold(&self, choice: &[usize], x: &[f64], up: &[f64], step: &StepData, rel: f64) -> bool {
        let s = self.s;
        choice.iter().enumerate().all(|(i, &c)| {
            self.table.inequalities_of(&self.table.modes[c]).iter().all(|ineq| {
                let v: f64 = (0..s).map(|a| ineq.ax[a] * x[i * s + a] + ineq.au[a] * up[i * s + a]).sum::<f64>()
                    + ineq.a0 * step.caps[i];
                v >= -step.slack(ineq, rel)
            })
        })
    }
}

/// The bit set `{0, …, k − 1}`.
pub(crate) fn low_bits(k: usize) -> u64 {
    if k >= 64 { u64::MAX } else { (1u64 << k) - 1 }
}

/// The indices of the set bits of `set`, lowest first.
pub(crate) fn bits(mut set: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let j = set.trailing_zeros() as usize;
            set &= set - 1;
            j
        })
    })
}
