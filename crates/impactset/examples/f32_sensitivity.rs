//! How far a scene's samples move when its data or its termination
//! tolerance change at the level of f32 arithmetic, all on the f64 CPU: the
//! share of samples within `1e-3 ‖v⁻‖_M` of the plain run, the yardstick
//! the GPU's f32 parity is judged by (docs/gpu.md).
//!
//!     cargo run --release --features gpu --example f32_sensitivity -- <scene id or problem file> [samples] [e]
//!
//! A problem file runs at its default step size with a step cap of 10.
//!
//! Runs against the plain one, same seed, under `lemke` and `random-lemke`
//! (`u = 2⁻²⁴`, f32's unit round-off; each perturbation the mean over
//! [`DRAWS`] draws):
//! * `v⁻ rel`: every entry scaled by `1 + u N(0, 1)`, the rounding of one
//!   f32 store (zero entries stay zero);
//! * `v⁻ abs`: every entry moved by `u ‖v⁻‖∞ N(0, 1)`, the error an f32
//!   step leaves on a velocity that should be zero (a resting contact's);
//! * `M`: every diagonal entry scaled by `1 + u N(0, 1)`;
//! * `tol 2u`, `tol 32u`, `tol 512u`: the termination tolerance `ε_term`
//!   (model.md §10) at those multiples of `u` instead of `10⁻⁹`; `512u` is
//!   the f32 GPU's floor (`F32_TERMINATION_FLOOR`), and none can go below
//!   f32's own rounding of `Jn v`, about `2u`;
//! * `work f32`: restitution's works' slack at the f32 GPU's
//!   `F32_WORK_TOL` instead of `WORK_TOL` (`SamplerOptions::work_tol`;
//!   the same as the plain run where no contact has restitution).
//!
//! A share below 99 % in a run that only changes the tolerance says that
//! an f32 run cannot be expected to land within `1e-3` of the f64 one on
//! 99 % of the samples, whatever its arithmetic: the scene's outcome is
//! decided by differences at f32's resolution.

use impactset::gpu::F32_WORK_TOL;
use impactset::{ImpactProblem, SampleSet, SamplerOptions, Selection, sample_set};
use nalgebra::{DMatrix, DVector};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Perturbation draws averaged per column.
const DRAWS: usize = 8;

fn main() {
    let mut args = std::env::args().skip(1);
    let id = args.next().unwrap_or_else(|| "cradle".to_string());
    let samples: usize = args.next().map_or(4096, |s| s.parse().expect("samples: a count"));
    let (mut problem, step_size, steps) = match impactset::scene::builtin(&id) {
        Some(scene) => (scene.problem, Some(scene.step_size), Some(scene.steps)),
        None => {
            let spec = impactset::io::load_problem(std::path::Path::new(&id));
            (spec.expect("a built-in scene id or a problem file").problem, None, Some(10))
        }
    };
    if let Some(e) = args.next() {
        let e: f64 = e.parse().expect("e: a coefficient");
        let m = problem.m();
        problem = problem.with_restitution(&vec![e; m]).expect("valid restitution");
    }
    let unit = (-24f64).exp2();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    // N(0, 1) by Box–Muller.
    let mut normal = move || -> f64 {
        let (a, b): (f64, f64) = (rng.random(), rng.random());
        (-2.0 * (1.0 - a).ln()).sqrt() * (std::f64::consts::TAU * b).cos()
    };
    let v = problem.velocity().clone();
    let v_max = v.amax();
    let restitution: Vec<f64> = problem.contacts().iter().map(|c| c.restitution).collect();
    let rebuild = |mass: DMatrix<f64>, v: DVector<f64>| -> ImpactProblem {
        let p = ImpactProblem::new(mass, v, problem.contacts().to_vec()).expect("a valid problem");
        p.with_restitution(&restitution).expect("valid restitution")
    };
    let scale = problem.energy_norm(&v);
    println!("{id}, {samples} samples, share within 1e-3 ‖v⁻‖_M of the plain f64 run (u = 2⁻²⁴):");
    println!("  rule          v⁻ rel  v⁻ abs  M       tol 2u  tol 32u tol 512u work f32");
    for selection in [Selection::Lemke, Selection::RandomLemke] {
        let options = SamplerOptions { samples, step_size, steps, selection, seed: 5, ..Default::default() };
        let plain = sample_set(&problem, &options);
        let share = |other: &SampleSet| {
            let close = plain
                .samples
                .iter()
                .zip(&other.samples)
                .filter(|(a, b)| {
                    let d = DVector::from_iterator(a.v_plus.len(), a.v_plus.iter().zip(&b.v_plus).map(|(x, y)| x - y));
                    problem.energy_norm(&d) <= 1e-3 * scale
                })
                .count();
            close as f64 / samples as f64
        };
        let mean = |perturb: &mut dyn FnMut() -> ImpactProblem| {
            (0..DRAWS).map(|_| share(&sample_set(&perturb(), &options))).sum::<f64>() / DRAWS as f64
        };
        let relative = mean(&mut || {
            let moved = DVector::from_iterator(v.len(), v.iter().map(|x| x * (1.0 + unit * normal())));
            rebuild(problem.mass().clone(), moved)
        });
        let absolute = mean(&mut || {
            let moved = DVector::from_iterator(v.len(), v.iter().map(|x| x + unit * v_max * normal()));
            rebuild(problem.mass().clone(), moved)
        });
        let mass = mean(&mut || {
            let mut mass = problem.mass().clone();
            for k in 0..mass.nrows() {
                mass[(k, k)] *= 1.0 + unit * normal();
            }
            rebuild(mass, v.clone())
        });
        let tolerance =
            |k: f64| share(&sample_set(&problem, &SamplerOptions { termination_tol: k * unit, ..options.clone() }));
        let work = share(&sample_set(&problem, &SamplerOptions { work_tol: F32_WORK_TOL, ..options.clone() }));
        println!(
            "  {:<13} {relative:.4}  {absolute:.4}  {mass:.4}  {:.4}  {:.4}  {:.4}  {work:.4}",
            selection.to_string(),
            tolerance(2.0),
            tolerance(32.0),
            tolerance(512.0),
        );
    }
}
