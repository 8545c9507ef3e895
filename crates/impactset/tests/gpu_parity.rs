//! GPU Algorithm 2 (`sample_set_gpu`) against the CPU (`sample_set`), sample
//! by sample: same caps and selection words, so the same outcomes.

mod common;

use impactset::gpu::{GpuContext, GpuRunOptions, Precision, TableauLayout, sample_set_gpu, sample_set_gpu_with};
use impactset::{Contact, ImpactProblem, SampleSet, SamplerOptions, Selection, sample_set};
use nalgebra::{DMatrix, DVector, Vector3, dmatrix, dvector};

/// The rocking block: a 1×2 box (mass 1, inertia 5/12), both bottom corners
/// on the floor, falling at 0.44294 and turning; planar, N = 10.
fn rocking_block(spin: f64) -> ImpactProblem {
    let mass = dmatrix![1.0, 0.0, 0.0; 0.0, 1.0, 0.0; 0.0, 0.0, 5.0 / 12.0];
    // Corner r = (±0.5, −1): normal velocity ẏ + ω r_x, tangential ẋ − ω r_y.
    let corner = |name: &str, rx: f64| Contact::planar(name, dvector![0.0, 1.0, rx], dvector![1.0, 0.0, 1.0], 0.5);
    ImpactProblem::new(mass, dvector![0.0, -0.44294, spin], vec![corner("A", -0.5), corner("B", 0.5)]).unwrap()
}

/// The rocking block with a point mass 0.5 welded to its centre by two
/// bilateral rows (n = 5): the GPU gets `M̃⁻¹Jᵀ` from the host.
fn welded_rocking_block(spin: f64) -> ImpactProblem {
    let mass = DMatrix::from_diagonal(&dvector![1.0, 1.0, 5.0 / 12.0, 0.5, 0.5]);
    let corner = |name: &str, rx: f64| {
        Contact::planar(name, dvector![0.0, 1.0, rx, 0.0, 0.0], dvector![1.0, 0.0, 1.0, 0.0, 0.0], 0.5)
    };
    let weld = dmatrix![1.0, 0.0, 0.0, -1.0, 0.0; 0.0, 1.0, 0.0, 0.0, -1.0];
    ImpactProblem::new(mass, dvector![0.0, -0.44294, spin, 0.0, -0.44294], vec![corner("A", -0.5), corner("B", 0.5)])
        .unwrap()
        .with_bilateral(weld)
        .unwrap()
}

/// A rigid body in space with two contacts on the floor, d = 8: N = 22.
fn spatial_two_contacts() -> ImpactProblem {
    let mut mass = DMatrix::identity(6, 6);
    mass[(3, 3)] = 0.3;
    mass[(4, 4)] = 0.4;
    mass[(5, 5)] = 0.5;
    // Row for direction e at point r: [e, r × e].
    let row = |r: Vector3<f64>, e: Vector3<f64>| {
        let c = r.cross(&e);
        DVector::from_vec(vec![e.x, e.y, e.z, c.x, c.y, c.z])
    };
    let contact = |name: &str, r: Vector3<f64>, mu: f64| {
        Contact::spatial(name, row(r, Vector3::z()), [row(r, Vector3::x()), row(r, Vector3::y())], mu)
    };
    let contacts =
        vec![contact("A", Vector3::new(0.5, 0.3, -0.5), 0.4), contact("B", Vector3::new(-0.5, -0.2, -0.5), 0.6)];
    ImpactProblem::new(mass, dvector![0.2, -0.1, -1.0, 0.3, -0.2, 0.1], contacts).unwrap()
}

/// Fraction of samples whose v⁺ agree within `tol · ‖v⁻‖_M` (and whose
/// flags and step counts agree), and the largest relative deviation.
fn agreement(problem: &ImpactProblem, cpu: &SampleSet, gpu: &SampleSet, tol: f64) -> (f64, f64, usize) {
    assert_eq!(cpu.samples.len(), gpu.samples.len());
    let scale = problem.energy_norm(problem.velocity());
    let mut close = 0;
    let mut same_flags = 0;
    let mut max_dev: f64 = 0.0;
    for (c, g) in cpu.samples.iter().zip(&gpu.samples) {
        assert_eq!(c.index, g.index);
        let diff = DVector::from_vec(c.v_plus.clone()) - DVector::from_vec(g.v_plus.clone());
        let dev = problem.energy_norm(&diff) / scale;
        max_dev = max_dev.max(dev);
        close += (dev <= tol) as usize;
        if dev > tol && std::env::var("IMPACTSET_DEBUG_GPU").is_ok() {
            eprintln!(
                "  {} dev {dev:.2e} cpu steps {} accepted {} residual {:.1e}; gpu steps {} accepted {} residual {:.1e}",
                c.index, c.steps, c.accepted, c.max_residual, g.steps, g.accepted, g.max_residual
            );
        }
        same_flags += (c.accepted == g.accepted && c.terminated == g.terminated && c.steps == g.steps) as usize;
    }
    (close as f64 / cpu.samples.len() as f64, max_dev, same_flags)
}

/// `floors`: the fractions of samples required within 1e-9 (f64) and 1e-3
/// (f32); every case is held to the targets 0.999 and 0.99.
fn check(ctx: &GpuContext, name: &str, problem: &ImpactProblem, options: &SamplerOptions, floors: (f64, f64)) {
    let cpu = sample_set(problem, options);
    for precision in ctx.precisions() {
        let started = std::time::Instant::now();
        let gpu = sample_set_gpu(ctx, problem, options, precision).unwrap();
        let tol = match precision {
            Precision::F64 => 1e-9,
            Precision::F32 => 1e-3,
        };
        let (fraction, max_dev, same_flags) = agreement(problem, &cpu, &gpu, tol);
        eprintln!(
            "{name} {} {precision}: {:.4} within {tol:e} (max deviation {max_dev:.2e}), flags and steps equal {}/{}, \
             accepted cpu {} gpu {}, {:.1}s",
            options.selection,
            fraction,
            same_flags,
            cpu.samples.len(),
            cpu.accepted_count(),
            gpu.accepted_count(),
            started.elapsed().as_secs_f64()
        );
        match precision {
            Precision::F64 => {
                assert!(fraction >= floors.0, "{name} f64: {fraction}");
                let accepted_ratio = gpu.accepted().map(|s| s.energy_after / s.energy_before).fold(0.0, f64::max);
                assert!(accepted_ratio <= 1.0 + 1e-9, "{name}: accepted sample gained energy");
            }
            Precision::F32 => assert!(fraction >= floors.1, "{name} f32: {fraction}"),
        }
    }
}

/// The agreement targets: 99.9% of f64 samples within 1e-9, 99% of f32 within 1e-3.
const TARGET: (f64, f64) = (0.999, 0.99);

fn options(selection: Selection, samples: usize, first_index: u64) -> SamplerOptions {
    SamplerOptions { samples, first_index, selection, seed: 11, steps: Some(10), ..Default::default() }
}

#[test]
fn gpu_rocking_block_matches_cpu() {
    let Some(ctx) = common::gpu::gpu() else { return };
    for selection in [Selection::Lemke, Selection::RandomLemke] {
        check(&ctx, "rocking block", &rocking_block(0.0), &options(selection, 1024, 0), TARGET);
        // Turning, and sample indices across 2³².
        check(&ctx, "rocking block (spin)", &rocking_block(0.7), &options(selection, 1024, (1 << 32) - 300), TARGET);
    }
}

/// A mass matrix in other units (`M × 10⁻⁶` and `h × 10⁻⁶`, or `× 10⁶`):
/// both backends solve the step LCPs in the same Lemke units (`LemkeUnits`),
/// so they agree sample by sample and accept every sample.
#[test]
fn gpu_matches_cpu_in_other_units_of_mass() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let base = rocking_block(0.7);
    for scale in [1e-6, 1e6] {
        let problem =
            ImpactProblem::new(base.mass() * scale, base.velocity().clone(), base.contacts().to_vec()).unwrap();
        for selection in [Selection::Lemke, Selection::RandomLemke] {
            let options =
                SamplerOptions { step_size: Some(0.1 * scale), steps: Some(40), ..options(selection, 512, 0) };
            assert_eq!(sample_set(&problem, &options).accepted_count(), 512, "M × {scale:e}, {selection}");
            check(&ctx, &format!("rocking block, M × {scale:e}"), &problem, &options, TARGET);
        }
    }
}

#[test]
fn gpu_welded_rocking_block_matches_cpu() {
    let Some(ctx) = common::gpu::gpu() else { return };
    for selection in [Selection::Lemke, Selection::RandomLemke] {
        check(&ctx, "welded rocking block (spin)", &welded_rocking_block(0.7), &options(selection, 512, 3), TARGET);
    }
}

#[test]
fn gpu_spatial_two_contacts_matches_cpu() {
    let Some(ctx) = common::gpu::gpu() else { return };
    check(&ctx, "spatial 2 contacts d=8", &spatial_two_contacts(), &options(Selection::Lemke, 512, 5), TARGET);
    // At target since the CPU's covering vector is bounded below (2⁻⁶, no
    // tiny d_j amplifying round-off by 1/d_j) and ratios tie relatively, z₀'s
    // row leaving on a tie: measured on lavapipe f64 1.0000 (max deviation
    // 2.8e-15), f32 1.0000 within 1e-3 (max 8.4e-5); before, 0.939 and 0.967.
    check(&ctx, "spatial 2 contacts d=8", &spatial_two_contacts(), &options(Selection::RandomLemke, 512, 5), TARGET);
}

#[test]
fn gpu_output_does_not_depend_on_batching() {
    let Some(ctx) = common::gpu::gpu() else { return };
    // lavapipe cuts loops after 65 535 iterations per dispatch and SIMD lanes
    // share that budget, so there a long Lemke path can fail its neighbours,
    // which depend on the batch: keep to problems far from the limit there
    // (docs/gpu-lavapipe.md), and to one step per dispatch.
    let cpu_adapter = ctx.is_software();
    let splits = if cpu_adapter { [(64, 1), (100, 1), (1000, 1)] } else { [(64, 1), (100, 3), (1000, 10)] };
    let precision = if ctx.supports_f64() { Precision::F64 } else { Precision::F32 };
    let cases = [
        (rocking_block(0.7), options(Selection::RandomLemke, 300, 17)),
        (spatial_two_contacts(), options(Selection::Lemke, 300, 17)),
    ];
    for (problem, options) in &cases {
        let whole = sample_set_gpu(&ctx, problem, options, precision).unwrap();
        for ((batch, steps), layout) in splits.into_iter().zip(TableauLayout::ALL.into_iter().cycle()) {
            let run = GpuRunOptions {
                batch_size: Some(batch),
                steps_per_dispatch: Some(steps),
                tableau_layout: Some(layout),
                ..Default::default()
            };
            let split = sample_set_gpu_with(&ctx, problem, options, precision, &run, &|_| {}).unwrap();
            assert_eq!(whole, split, "batch {batch}, {steps} steps per dispatch, {layout:?} tableaus");
        }
        // Shards: [17, 117) and [117, 317) are the run [17, 317).
        let a = sample_set_gpu(&ctx, problem, &SamplerOptions { samples: 100, ..options.clone() }, precision).unwrap();
        let b = sample_set_gpu(
            &ctx,
            problem,
            &SamplerOptions { samples: 200, first_index: 117, ..options.clone() },
            precision,
        )
        .unwrap();
        assert_eq!([a.samples, b.samples].concat(), whole.samples);
    }
}
