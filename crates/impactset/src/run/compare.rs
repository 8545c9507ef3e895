//! The CPU and the GPU on the same seed, sample by sample: how far the GPU
//! backend is from the reference ([`crate::sample_set`]).

use nalgebra::DVector;
use serde::Serialize;

use crate::analysis::{Metric, covering_radius, hausdorff};
use crate::gpu::{GpuContext, GpuError, GpuPlan, GpuRunOptions, Precision};
use crate::{ImpactProblem, SampleSet, SamplerOptions, sample_set};

/// The outcome of [`compare_backends`]. Distances are in the energy norm
/// `‖x‖_M`, relative to the pre-impact `‖v⁻‖_M`.
///
/// The per-sample figures (agreement, deviation, mismatches) are over the
/// samples the device ran: a sample the host ran again on the CPU
/// ([`host_reruns`](Self::host_reruns)) is a CPU sample, and counting it
/// would report agreement the device did not reach (restitution on
/// lavapipe re-runs nearly every sample). The sets' figures (accepted
/// counts, Hausdorff, covering radii) are over every sample, as a run
/// returns them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// Samples run (both backends ran the same indices).
    pub samples: usize,
    /// Of those, the samples the device ran to the end
    /// (`samples − host_reruns`), over which the per-sample figures are
    /// taken.
    pub device_samples: usize,
    /// The GPU's precision.
    pub precision: Precision,
    /// The GPU adapter ([`GpuContext::describe`]).
    pub adapter: String,
    /// The relative tolerance of `agreement_fraction`.
    pub tolerance: f64,
    /// Fraction of the device's samples whose `v⁺` agree within
    /// `tolerance · ‖v⁻‖_M` (`NaN`, JSON `null`, when the host ran every
    /// sample).
    pub agreement_fraction: f64,
    /// f32: the same fraction (over the device's samples) against the CPU run of the model at f32's
    /// floors ([`Precision::model_options`]), each GPU sample held to the
    /// nearer of the two CPU runs: what f32's arithmetic leaves once the
    /// floors' own effect is set aside (docs/gpu.md). `None` (JSON `null`)
    /// in f64.
    pub agreement_at_floors: Option<f64>,
    /// Largest `‖v⁺_cpu − v⁺_gpu‖_M / ‖v⁻‖_M` over the device's samples.
    pub max_deviation: f64,
    /// The device's samples terminated on one backend and not on the other.
    pub termination_mismatches: usize,
    /// The device's samples accepted on one backend and not on the other.
    pub acceptance_mismatches: usize,
    /// GPU samples the host ran again on the CPU ([`crate::gpu::GpuPlan::host_reruns`]:
    /// restitution's hand-offs, f32's unaccepted samples), which are the
    /// CPU's own: counted here, left out of the per-sample figures.
    pub host_reruns: u64,
    /// Mean steps per sample on the CPU.
    pub mean_steps_cpu: f64,
    /// Mean steps per sample on the GPU.
    pub mean_steps_gpu: f64,
    /// Samples accepted on the CPU.
    pub accepted_cpu: usize,
    /// Samples accepted on the GPU.
    pub accepted_gpu: usize,
    /// Symmetric Hausdorff distance between the accepted sets (relative;
    /// `0` when both are empty, `∞` — `null` in JSON — when one is).
    pub hausdorff: f64,
    /// Covering radius of the CPU's accepted set by the GPU's (relative):
    /// how far a CPU outcome can be from every GPU outcome.
    pub covering_cpu_by_gpu: f64,
    /// Covering radius of the GPU's accepted set by the CPU's (relative).
    pub covering_gpu_by_cpu: f64,
}

/// Runs [`crate::sample_set`] and [`crate::gpu::sample_set_gpu`] with the same `options`
/// (seed, sample indices, step size and cap, selection rule) and compares
/// them sample by sample. `tolerance` is relative to `‖v⁻‖_M`; the project's
/// parity targets are 99.9% within `1e-9` in f64 and 99% within `1e-3` in f32.
///
/// ```no_run
/// use impactset::gpu::{GpuContext, Precision};
/// use impactset::run::compare_backends;
/// use impactset::{SamplerOptions, Selection, scene};
///
/// let scene = scene::builtin("rocking-block").unwrap();
/// let options = SamplerOptions {
///     samples: 512,
///     step_size: Some(scene.step_size),
///     steps: Some(scene.steps),
///     selection: Selection::RandomLemke,
///     ..Default::default()
/// };
/// let ctx = GpuContext::new()?;
/// let c = compare_backends(&ctx, &scene.problem, &options, Precision::F32, 1e-3)?;
/// println!("{:.4} agree within 1e-3, Hausdorff {:.1e}", c.agreement_fraction, c.hausdorff);
/// # Ok::<(), impactset::gpu::GpuError>(())
/// ```
///
/// Errors: those of [`crate::gpu::sample_set_gpu`] (e.g.
/// [`GpuError::TooLargeForAll`] for [`crate::Selection::All`] on a problem
/// with too many mode tuples a step).
pub fn compare_backends(
    ctx: &GpuContext,
    problem: &ImpactProblem,
    options: &SamplerOptions,
    precision: Precision,
    tolerance: f64,
) -> Result<Comparison, GpuError> {
    let run = GpuRunOptions { keep_rerun_indices: true, ..GpuRunOptions::default() };
    let mut plan = GpuPlan::new(ctx, problem, options, precision, &run)?;
    let gpu = plan.sample_range(options.first_index, options.samples, &|_| {})?;
    let reruns = plan.host_rerun_indices().expect("the plan keeps its re-runs' indices");
    let on_device = |s: &crate::Sample| reruns.binary_search(&s.index).is_err();
    let cpu = sample_set(problem, options);
    let mut comparison = compare_sets(problem, &cpu, &gpu, &on_device, precision, ctx.describe(), tolerance);
    comparison.host_reruns = plan.host_reruns();
    if precision == Precision::F32 {
        let floored = sample_set(problem, &precision.model_options(options));
        let scale = velocity_norm(problem);
        let close = |a: &crate::Sample, b: &crate::Sample| deviation(problem, scale, a, b) <= tolerance;
        let agree = (gpu.samples.iter().zip(&cpu.samples).zip(&floored.samples))
            .filter(|((g, c), f)| on_device(g) && (close(c, g) || close(f, g)))
            .count();
        comparison.agreement_at_floors = Some(fraction(agree, comparison.device_samples));
    }
    Ok(comparison)
}

/// `part / whole`, `NaN` when `whole` is 0 (no sample to judge by).
fn fraction(part: usize, whole: usize) -> f64 {
    if whole == 0 { f64::NAN } else { part as f64 / whole as f64 }
}

/// `‖v⁻‖_M`, the comparison's unit (1 where it is 0).
fn velocity_norm(problem: &ImpactProblem) -> f64 {
    let scale = problem.energy_norm(problem.velocity());
    if scale > 0.0 { scale } else { 1.0 }
}

/// `‖v⁺_a − v⁺_b‖_M / scale`; a NaN counts as a disagreement and as
/// infinitely large.
fn deviation(problem: &ImpactProblem, scale: f64, a: &crate::Sample, b: &crate::Sample) -> f64 {
    let diff = DVector::from_column_slice(&a.v_plus) - DVector::from_column_slice(&b.v_plus);
    let dev = problem.energy_norm(&diff) / scale;
    if dev.is_nan() { f64::INFINITY } else { dev }
}

/// The comparison of two sets of the same samples (`cpu` and `gpu` in the
/// same index order), sample by sample over the GPU samples `on_device`.
fn compare_sets(
    problem: &ImpactProblem,
    cpu: &SampleSet,
    gpu: &SampleSet,
    on_device: &dyn Fn(&crate::Sample) -> bool,
    precision: Precision,
    adapter: String,
    tolerance: f64,
) -> Comparison {
    let scale = velocity_norm(problem);
    let samples = cpu.samples.len().min(gpu.samples.len());
    let mut close = 0usize;
    let mut max_deviation: f64 = 0.0;
    let (mut termination_mismatches, mut acceptance_mismatches, mut device_samples) = (0, 0, 0);
    for (c, g) in cpu.samples.iter().zip(&gpu.samples).filter(|(_, g)| on_device(g)) {
        debug_assert_eq!(c.index, g.index);
        device_samples += 1;
        let dev = deviation(problem, scale, c, g);
        max_deviation = max_deviation.max(dev);
        close += (dev <= tolerance) as usize;
        termination_mismatches += (c.terminated != g.terminated) as usize;
        acceptance_mismatches += (c.accepted != g.accepted) as usize;
    }
    let mean_steps = |set: &SampleSet| {
        let total: f64 = set.samples.iter().map(|s| s.steps as f64).sum();
        total / set.samples.len().max(1) as f64
    };
    let embed = Metric::Energy.embedding(problem);
    let (pc, pg) = (embed.points(&cpu.accepted_velocities()), embed.points(&gpu.accepted_velocities()));
    let covering_cpu_by_gpu = covering_radius(&pg, &pc) / scale;
    let covering_gpu_by_cpu = covering_radius(&pc, &pg) / scale;
    Comparison {
        samples,
        device_samples,
        precision,
        adapter,
        tolerance,
        agreement_fraction: fraction(close, device_samples),
        max_deviation,
        termination_mismatches,
        host_reruns: 0,
        agreement_at_floors: None,
        acceptance_mismatches,
        mean_steps_cpu: mean_steps(cpu),
        mean_steps_gpu: mean_steps(gpu),
        accepted_cpu: cpu.accepted_count(),
        accepted_gpu: gpu.accepted_count(),
        hausdorff: hausdorff(&pc, &pg) / scale,
        covering_cpu_by_gpu,
        covering_gpu_by_cpu,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Contact;
    use nalgebra::{dmatrix, dvector};

    #[test]
    fn a_set_compared_with_itself_agrees_everywhere() {
        let floor = Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.5);
        let problem = ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], dvector![1.0, -2.0], vec![floor]).unwrap();
        let options = SamplerOptions { samples: 16, selection: crate::Selection::Lemke, ..Default::default() };
        let set = sample_set(&problem, &options);
        let c = compare_sets(&problem, &set, &set, &|_| true, Precision::F64, "none".into(), 1e-9);
        assert_eq!((c.samples, c.device_samples), (16, 16));
        assert_eq!(c.agreement_fraction, 1.0);
        assert_eq!((c.max_deviation, c.hausdorff, c.covering_cpu_by_gpu), (0.0, 0.0, 0.0));
        assert_eq!((c.termination_mismatches, c.acceptance_mismatches), (0, 0));
        assert_eq!(c.mean_steps_cpu, c.mean_steps_gpu);
    }

    /// A sample the host ran again is the CPU's own: it agrees by
    /// construction, so it must not count towards the device's agreement.
    #[test]
    fn host_reruns_do_not_count_towards_the_agreement() {
        let floor = Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.5);
        let problem = ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], dvector![1.0, -2.0], vec![floor]).unwrap();
        let options = SamplerOptions { samples: 16, selection: crate::Selection::Lemke, ..Default::default() };
        let cpu = sample_set(&problem, &options);
        // The "device" is off by 10 % of ‖v⁻‖ on samples 0..4; 4..16 are host re-runs.
        let mut gpu = cpu.clone();
        for s in &mut gpu.samples[..4] {
            s.v_plus[0] += 0.1 * problem.energy_norm(problem.velocity());
        }
        let c = compare_sets(&problem, &cpu, &gpu, &|s| s.index < 4, Precision::F64, "none".into(), 1e-9);
        assert_eq!((c.samples, c.device_samples), (16, 4));
        assert_eq!(c.agreement_fraction, 0.0, "12 of 16 samples agree, none of the device's");
        assert!((c.max_deviation - 0.1).abs() < 1e-12, "{}", c.max_deviation);
        let all_host = compare_sets(&problem, &cpu, &gpu, &|_| false, Precision::F64, "none".into(), 1e-9);
        assert_eq!(all_host.device_samples, 0);
        assert!(all_host.agreement_fraction.is_nan(), "no device sample: no agreement to report");
    }
}
