//! Why an f32 GPU sample of a large problem ends unaccepted: an f32 replica
//! of the shaders' Lemke (`shaders/lemke.wgsl` with the f32 rules: the
//! equilibrated step LCP, the pivot test relative to each row's running
//! bound, the tie tolerance `1e-5`, the ray at `z₀ = 0`; docs/model.md §9)
//! and of Algorithm 1's inelastic steps, run on the CPU beside the f64
//! Lemke path of each of its step LCPs (the CPU's pivot and tie
//! tolerances) and the CPU's own f64 sample (docs/gpu.md, "f32 above 44
//! rows", "f32 on the humanoid").
//!
//!     cargo run --release --features gpu --example f32_lemke_paths -- <problem file | random8> [samples] [variant]
//!
//! `random8` is `tests/gpu_large.rs`'s eight random spatial contacts; the
//! run is that test's (seed 3, step cap 10, default step size). `variant`:
//! `shader` (default), `no-ray-rule` (a ray is a failure), `absolute` (the
//! pivot test `100 N ‖A‖∞ ε_f32` of the equilibrated matrix instead of the
//! relative one), `refactor` (the tableau rebuilt from its basis by an f32
//! LU factorization after every pivot). Prints per rule how many samples the
//! replica accepts, how many of those lie within 1e-3 of ‖v⁻‖_M of the
//! CPU's, why the others end (ray, pivot cap, step residual above the f32
//! floor, no termination), and over the step solves: in how many the f32
//! path takes a pivot the f64 path does not (an f32 path that stops short
//! of the f64 one's end has not), and how many f64 paths pass through a basis
//! whose condition number exceeds `1/ε_f32` (the largest too), on `A_R` and
//! on `A_R` rounded to f32. The replica
//! follows the shader's arithmetic in order but not bit for bit (the
//! device may fuse multiply-adds), so single samples can differ from it.

use impactset::scene::random::coupled_problem;
use impactset::stream::{SampleStreams, stream_key, unit};
use impactset::{ImpactProblem, SamplerOptions, Selection, sample_set};
use nalgebra::{DMatrix, DVector};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// How the replica departs from the shader's f32 rules.
#[derive(Clone, Copy, PartialEq)]
enum Variant {
    Shader,
    NoRayRule,
    Absolute,
    Refactor,
}

/// A Lemke tableau `[I | −A | −d | q]` in `f32` or `f64` with its running
/// row bounds and the pivots taken.
struct Tableau<T> {
    n: usize,
    t: Vec<T>,
    bound: Vec<T>,
    basis: Vec<usize>,
    path: Vec<(usize, usize)>,
}

/// What one solve ended with.
#[derive(Clone, Copy, PartialEq, Debug)]
enum End {
    Solved,
    Ray,
    Cap,
}

/// The pivot test and tie rule of one precision.
struct Rules {
    absolute: f64,
    relative: f64,
    tie: f64,
    ray_rule: bool,
}

macro_rules! lemke_impl {
    ($t:ty) => {
        impl Tableau<$t> {
            fn new(a: &[$t], q: &[$t], d: &[$t]) -> Self {
                let n = q.len();
                let w = 2 * n + 2;
                let mut t = vec![0.0; n * w];
                let mut bound = vec![1.0 as $t; n];
                for i in 0..n {
                    t[i * w + i] = 1.0;
                    for j in 0..n {
                        t[i * w + n + j] = -a[i * n + j];
                        bound[i] = bound[i].max(a[i * n + j].abs());
                    }
                    t[i * w + 2 * n] = -d[i];
                    bound[i] = bound[i].max(d[i].abs());
                    t[i * w + 2 * n + 1] = q[i];
                }
                Tableau { n, t, bound, basis: (0..n).collect(), path: Vec::new() }
            }

            fn at(&self, i: usize, c: usize) -> $t {
                self.t[i * (2 * self.n + 2) + c]
            }

            fn tied(x: $t, y: $t, tie: $t) -> i32 {
                let band = tie * (1.0 as $t).max(x.abs().max(y.abs()));
                if x < y - band {
                    -1
                } else if x > y + band {
                    1
                } else {
                    0
                }
            }

            /// `lex_compare` of lemke.wgsl.
            fn lex(&self, i: usize, k: usize, e: usize, offset: usize, tie: $t) -> i32 {
                let n = self.n;
                let (ai, ak) = (self.at(i, e), self.at(k, e));
                let first = Self::tied(self.at(i, 2 * n + 1) / ai, self.at(k, 2 * n + 1) / ak, tie);
                if first != 0 {
                    return first;
                }
                (0..n)
                    .map(|j| (offset + j) % n)
                    .map(|c| Self::tied(self.at(i, c) / ai, self.at(k, c) / ak, tie))
                    .find(|&o| o != 0)
                    .unwrap_or(0)
            }

            fn candidate(&self, a: $t, i: usize, rules: &Rules) -> bool {
                a > (rules.absolute as $t).max(rules.relative as $t * self.bound[i])
            }

            /// `leaving_row` and `z0_leaves` of lemke.wgsl; `n` on a ray.
            fn leaving(&self, e: usize, z0_row: usize, offset: usize, rules: &Rules) -> usize {
                let n = self.n;
                let tie = rules.tie as $t;
                let mut best = n;
                for i in 0..n {
                    if self.candidate(self.at(i, e), i, rules) && (best == n || self.lex(i, best, e, offset, tie) == -1)
                    {
                        best = i;
                    }
                }
                if best == n || best == z0_row || !self.candidate(self.at(z0_row, e), z0_row, rules) {
                    return best;
                }
                let rhs = 2 * n + 1;
                let theta0 = self.at(z0_row, rhs) / self.at(z0_row, e);
                let (a, x) = (self.at(best, e), self.at(best, rhs));
                if Self::tied(theta0, x / a, tie) == 0 {
                    return z0_row;
                }
                let feasible = |i: usize| {
                    let (ai, xi) = (self.at(i, e), self.at(i, rhs));
                    !self.candidate(ai, i, rules) || xi - theta0 * ai >= -tie * (1.0 as $t).max(xi.abs())
                };
                if (0..n).all(feasible) { z0_row } else { best }
            }

            /// `pivot` of lemke.wgsl, with the row bounds.
            fn pivot(&mut self, r: usize, e: usize) {
                let w = 2 * self.n + 2;
                let inv = 1.0 / self.t[r * w + e];
                for c in 0..w {
                    self.t[r * w + c] *= inv;
                }
                self.t[r * w + e] = 1.0;
                self.bound[r] *= inv.abs();
                for i in (0..self.n).filter(|&i| i != r) {
                    let f = self.t[i * w + e];
                    if f != 0.0 {
                        for c in 0..w {
                            let x = self.t[r * w + c];
                            self.t[i * w + c] -= f * x;
                        }
                        self.t[i * w + e] = 0.0;
                        self.bound[i] = self.bound[i].max(f.abs() * self.bound[r]);
                    }
                }
                self.path.push((r, e));
            }

            /// The tableau rebuilt from its basis: `B X = [I | −A | −d | q]`
            /// by LU with partial pivoting in this precision.
            fn refactor(&mut self, initial: &[$t]) {
                let (n, w) = (self.n, 2 * self.n + 2);
                let b = DMatrix::<$t>::from_fn(n, n, |i, k| initial[i * w + self.basis[k]]);
                let rhs = DMatrix::<$t>::from_fn(n, w, |i, c| initial[i * w + c]);
                if let Some(x) = b.lu().solve(&rhs) {
                    for k in 0..n {
                        for c in 0..w {
                            self.t[k * w + c] = x[(k, c)];
                        }
                        self.bound[k] = (0..2 * n + 1).fold(1.0, |m: $t, c| m.max(x[(k, c)].abs()));
                    }
                }
            }

            /// Lemke's method from this tableau (`run_pivots`, the ray rule
            /// of lemke.wgsl's `z0_at_zero` where `rules.ray_rule`).
            fn solve(&mut self, offset: usize, rules: &Rules, refactor: bool) -> End {
                let n = self.n;
                if (0..n).all(|i| self.at(i, 2 * n + 1) >= 0.0) {
                    return End::Solved;
                }
                let initial = self.t.clone();
                let z0 = 2 * n;
                let z0_row = (1..n)
                    .fold(0, |best, i| if self.lex(i, best, z0, offset, rules.tie as $t) == 1 { i } else { best });
                self.pivot(z0_row, z0);
                let complement = |v: usize| if v < n { v + n } else { v - n };
                let mut entering = complement(self.basis[z0_row]);
                self.basis[z0_row] = z0;
                while self.path.len() < 10_000 {
                    let r = self.leaving(entering, z0_row, offset, rules);
                    if r >= n {
                        let largest = (0..n).fold(1.0 as $t, |m, i| m.max(self.at(i, 2 * n + 1).abs()));
                        let at_zero = self.at(z0_row, 2 * n + 1).abs() <= rules.relative as $t * largest;
                        return if rules.ray_rule && at_zero { End::Solved } else { End::Ray };
                    }
                    self.pivot(r, entering);
                    let leaving = std::mem::replace(&mut self.basis[r], entering);
                    if refactor {
                        self.refactor(&initial);
                    }
                    if leaving == z0 {
                        return End::Solved;
                    }
                    entering = complement(leaving);
                }
                End::Cap
            }
        }
    };
}

lemke_impl!(f32);
lemke_impl!(f64);

impl Tableau<f32> {
    /// Basic `z_j` clamped at 0 (`extract_solution`).
    fn z(&self) -> Vec<f32> {
        let n = self.n;
        let mut z = vec![0.0; n];
        for (i, &b) in self.basis.iter().enumerate() {
            if (n..2 * n).contains(&b) {
                z[b - n] = self.at(i, 2 * n + 1).max(0.0);
            }
        }
        z
    }
}

/// The largest condition number of the bases along `path` (from the
/// initial basis of `[I | −A | −d]`) and how many exceed `limit`.
fn path_condition(a: &[f64], d: &[f64], path: &[(usize, usize)], limit: f64) -> (f64, usize) {
    let n = d.len();
    let column = |i: usize, c: usize| match c {
        c if c < n => f64::from(u8::from(i == c)),
        c if c < 2 * n => -a[i * n + c - n],
        _ => -d[i],
    };
    let mut basis: Vec<usize> = (0..n).collect();
    let (mut worst, mut above) = (0.0f64, 0);
    for &(r, e) in path {
        basis[r] = e;
        let sv = DMatrix::from_fn(n, n, |i, k| column(i, basis[k])).singular_values();
        let kappa = sv.max() / sv.min();
        worst = worst.max(kappa);
        above += usize::from(kappa > limit);
    }
    (worst, above)
}

/// The step violation of docs/model.md §10 (`impact::step_violation`).
fn violation(z: &[f64], w: &[f64], m: usize, velocity: f64, impulse: f64) -> f64 {
    let size = z.len();
    (0..size).fold(0.0, |v: f64, i| {
        let velocity_unknown = i < m || i >= size - m;
        let (zu, wu) = if velocity_unknown { (velocity, impulse) } else { (impulse, velocity) };
        v.max(-z[i] / zu).max(-w[i] / wu).max((z[i] * w[i]).abs() / (velocity * impulse))
    })
}

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "random8".into());
    let samples: usize = args.next().map_or(32, |s| s.parse().expect("samples: a count"));
    let variant = match args.next().as_deref() {
        None | Some("shader") => Variant::Shader,
        Some("no-ray-rule") => Variant::NoRayRule,
        Some("absolute") => Variant::Absolute,
        Some("refactor") => Variant::Refactor,
        Some(other) => panic!("unknown variant {other}"),
    };
    let problem: ImpactProblem = if which == "random8" {
        coupled_problem(&mut ChaCha8Rng::seed_from_u64(21), 30, 8, Some(8), f64::INFINITY, 0.3..0.8)
    } else {
        impactset::io::load_problem(std::path::Path::new(&which)).expect("a problem file").problem
    };
    let ops = problem.operators();
    let (n, m, size) = (ops.n, ops.m, ops.step_size_n());
    let impulses = ops.j.nrows();
    let s = problem.velocity_scale();
    let eps = f64::from(f32::EPSILON);
    let a = &ops.step_matrix;
    let (rows, cols) = impactset::lcp::norms::equilibrate(a, size);
    let a_eq: Vec<f64> = (0..size * size).map(|k| rows[k / size] * a[k] * cols[k % size]).collect();
    let a32: Vec<f32> = a_eq.iter().map(|&x| x as f32).collect();
    let a_rounded: Vec<f64> = a32.iter().map(|&x| f64::from(x)).collect();
    let norm = impactset::lcp::norms::infinity_norm(a, size);
    let norm_eq = impactset::lcp::norms::infinity_norm(&a_eq, size);
    let residual_tol = (1024.0 * eps * norm.max(1.0)).max(1e-9);
    let rules32 = Rules {
        absolute: if variant == Variant::Absolute { 100.0 * size as f64 * norm_eq.max(1.0) * eps } else { 0.0 },
        relative: if variant == Variant::Absolute { 0.0 } else { size as f64 * eps },
        tie: 1e-5,
        ray_rule: variant != Variant::NoRayRule,
    };
    let rules64 = Rules {
        absolute: 10.0 * size as f64 * norm_eq.max(1.0) * f64::EPSILON,
        relative: 0.0,
        tie: 1e-11,
        ray_rule: false,
    };
    let j32: Vec<f32> = (0..impulses * n).map(|k| ops.j[(k / n, k % n)] as f32).collect();
    let minv_jt32: Vec<f32> = (0..n * impulses).map(|k| ops.minv_jt[(k / impulses, k % impulses)] as f32).collect();
    println!(
        "{which}: N = {size}, residual floor {residual_tol:.2e}, {samples} samples, variant {}",
        match variant {
            Variant::Shader => "shader",
            Variant::NoRayRule => "no-ray-rule",
            Variant::Absolute => "absolute",
            Variant::Refactor => "refactor",
        }
    );
    for selection in [Selection::Lemke, Selection::RandomLemke] {
        let options = SamplerOptions { samples, selection, seed: 3, steps: Some(10), ..Default::default() };
        let h = options.step_size_for(&problem);
        let cpu = sample_set(&problem, &options);
        let key = stream_key(options.seed);
        let (mut accepted, mut close, mut rays, mut caps, mut over, mut open) = (0, 0, 0, 0, 0, 0);
        let (mut solves, mut parted, mut ill, mut worst) = (0, 0, 0, 0.0f64);
        let (mut ill_rounded, mut worst_rounded) = (0, 0.0f64);
        for (index, cpu_sample) in cpu.samples.iter().enumerate() {
            let mut streams = SampleStreams::new(&key, index as u64);
            let mut v: Vec<f32> = problem.velocity().iter().map(|&x| x as f32).collect();
            let (mut residual, mut end, mut terminated) = (0.0f64, End::Solved, false);
            for step in 0..=10 {
                let u: Vec<f32> =
                    (0..impulses).map(|r| (0..n).fold(0.0f32, |acc, c| acc + j32[r * n + c] * v[c])).collect();
                if f64::from(u[..m].iter().fold(f32::INFINITY, |x, &y| x.min(y))) >= -256.0 * eps * s {
                    terminated = true;
                    break;
                }
                if step == 10 {
                    break;
                }
                let mut q = vec![0.0f32; size];
                for qc in &mut q[..m] {
                    *qc = h as f32 * unit(streams.cap_word()) as f32;
                }
                q[m..m + impulses].copy_from_slice(&u);
                let (cover, offset) = if selection == Selection::RandomLemke {
                    let mut d = vec![0.0; size];
                    let offset = streams.random_cover(&mut d);
                    (d, offset)
                } else {
                    (vec![1.0; size], 0)
                };
                let q_eq: Vec<f32> = (0..size).map(|c| q[c] * rows[c] as f32).collect();
                let d_eq: Vec<f32> = (0..size).map(|c| (cover[c] * rows[c]) as f32).collect();
                let mut t32 = Tableau::<f32>::new(&a32, &q_eq, &d_eq);
                end = t32.solve(offset, &rules32, variant == Variant::Refactor);
                // The f64 path of the same (f32-rounded) step LCP.
                let d64: Vec<f64> = d_eq.iter().map(|&x| f64::from(x)).collect();
                let q64: Vec<f64> = q_eq.iter().map(|&x| f64::from(x)).collect();
                let mut t64 = Tableau::<f64>::new(&a_eq, &q64, &d64);
                if t64.solve(offset, &rules64, false) == End::Solved {
                    solves += 1;
                    parted += usize::from(t32.path.iter().zip(&t64.path).any(|(x, y)| x != y));
                    let (kappa, above) = path_condition(&a_eq, &d64, &t64.path, 1.0 / eps);
                    ill += usize::from(above > 0);
                    worst = worst.max(kappa);
                }
                // The f64 path of the step LCP whose matrix is rounded to f32 (the shader's data).
                let mut rounded = Tableau::<f64>::new(&a_rounded, &q64, &d64);
                if rounded.solve(offset, &rules64, false) == End::Solved {
                    let (kappa, above) = path_condition(&a_rounded, &d64, &rounded.path, 1.0 / eps);
                    ill_rounded += usize::from(above > 0);
                    worst_rounded = worst_rounded.max(kappa);
                }
                if end != End::Solved {
                    break;
                }
                let z: Vec<f32> = t32.z().iter().zip(&cols).map(|(&x, &c)| x * c as f32).collect();
                let w: Vec<f64> = (0..size)
                    .map(|i| {
                        let sum = (0..size).fold(0.0f32, |acc, k| acc + a32[i * size + k] * (z[k] / cols[k] as f32));
                        f64::from(q[i] + sum / rows[i] as f32)
                    })
                    .collect();
                let z64: Vec<f64> = z.iter().map(|&x| f64::from(x)).collect();
                residual = residual.max(violation(&z64, &w, m, s, h));
                for (r, vr) in v.iter_mut().enumerate() {
                    *vr += (0..impulses).fold(0.0f32, |acc, c| acc + minv_jt32[r * impulses + c] * z[m + c]);
                }
            }
            match end {
                End::Ray => rays += 1,
                End::Cap => caps += 1,
                End::Solved if !terminated => open += 1,
                End::Solved if residual > residual_tol => over += 1,
                End::Solved => {
                    accepted += 1;
                    let diff =
                        DVector::from_iterator(n, v.iter().zip(&cpu_sample.v_plus).map(|(&x, y)| f64::from(x) - y));
                    close += usize::from(problem.energy_norm(&diff) <= 1e-3 * problem.energy_norm(problem.velocity()));
                }
            }
        }
        println!(
            "{selection}: CPU accepts {}; replica accepts {accepted} ({close} within 1e-3); rays {rays}, pivot caps \
             {caps}, residual above the floor {over}, not terminated {open}",
            cpu.accepted_count()
        );
        println!(
            "  {solves} step solves: the f32 path takes a pivot the f64 one does not in {parted}; the f64 path passes a basis of \
             condition number above 1/ε_f32 in {ill} (largest {worst:.2e}), on the matrix rounded to f32 in {ill_rounded} \
             (largest {worst_rounded:.2e})"
        );
    }
}
