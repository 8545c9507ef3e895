//! The step size of the expansion phase (docs/model.md §4b, "The step
//! size"): on every built-in scene with restitution, the set at the scene's
//! step size is the converged set (the set at a much finer `h`) to within
//! the seed-to-seed noise of the sampled sets.

use impactset::sampling::expansion_step_size;
use impactset::{ImpactProblem, SamplerOptions, Selection, sample_set};

/// Samples per set: small, so that each scene takes seconds.
const SAMPLES: usize = 512;

/// How much finer the reference sets' `h` is.
const FINER: usize = 4;

/// The accepted `v⁺` of `problem` at step size `h` with step cap `steps`.
fn set(problem: &ImpactProblem, h: f64, steps: usize, seed: u64) -> Vec<Vec<f64>> {
    let options = SamplerOptions {
        samples: SAMPLES,
        step_size: Some(h),
        steps: Some(steps),
        selection: Selection::RandomLemke,
        seed,
        ..Default::default()
    };
    let set = sample_set(problem, &options);
    assert_eq!(set.accepted_count(), SAMPLES, "h = {h}, K = {steps}: every sample ends within K");
    set.samples.into_iter().map(|s| s.v_plus).collect()
}

/// The Hausdorff distance of two sets in the energy norm, relative to
/// `‖v⁻‖_M`.
fn hausdorff(problem: &ImpactProblem, a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    let cholesky = problem.mass().clone().cholesky().expect("M is positive definite");
    let lt = cholesky.l().transpose();
    let map = |s: &[Vec<f64>]| -> Vec<Vec<f64>> {
        s.iter().map(|v| (&lt * nalgebra::DVector::from_column_slice(v)).as_slice().to_vec()).collect()
    };
    let (a, b) = (map(a), map(b));
    let dist2 = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(p, q)| (p - q) * (p - q)).sum::<f64>();
    let one_way = |x: &[Vec<f64>], y: &[Vec<f64>]| {
        x.iter().map(|p| y.iter().map(|q| dist2(p, q)).fold(f64::INFINITY, f64::min)).fold(0.0, f64::max)
    };
    one_way(&a, &b).max(one_way(&b, &a)).sqrt() / problem.energy_norm(problem.velocity())
}

/// Each sampled set lies within some `δ` of the converged set `Σ`; the
/// distance between two fine sets of other seeds estimates `δ` (the larger
/// of two such pairs), and two sets each within `δ` of `Σ` are within `2δ`
/// of each other (the triangle inequality). So the set at the scene's `h`
/// must lie within `2δ` of a fine set; at the inelastic step sizes these
/// scenes had, `rocking-block-bouncing` lay 0.12 ‖v⁻‖_M away against a
/// noise of 0.02.
#[test]
fn every_restitution_scene_samples_the_converged_set_at_its_step_size() {
    let mut checked = 0;
    for id in impactset::scene::ids() {
        let scene = impactset::scene::builtin(id).unwrap();
        let p = &scene.problem;
        if !p.has_restitution() {
            continue;
        }
        let expansion = expansion_step_size(p).expect("restitution with v⁻ ≠ 0");
        assert!(scene.step_size <= expansion, "{id}: h = {} above the expansion's {expansion}", scene.step_size);
        let (h, k) = (scene.step_size, scene.steps);
        let fine = |seed| set(p, h / FINER as f64, k * FINER, seed);
        let (reference, second, third) = (fine(1), fine(2), fine(3));
        let noise = hausdorff(p, &reference, &second).max(hausdorff(p, &reference, &third));
        let at_h = hausdorff(p, &set(p, h, k, 4), &reference);
        eprintln!("{id}: h = {h:.3e}, distance to h/{FINER} {at_h:.4}, seed-to-seed {noise:.4}");
        assert!(at_h <= 2.0 * noise, "{id}: the set at h = {h} lies {at_h} from the set at h/{FINER} (noise {noise})");
        checked += 1;
    }
    assert!(checked >= 2, "the bouncing scenes are built-in");
}
