//! Persistent workers (`GpuRunOptions::workers`): fewer invocations than
//! samples, each taking the next sample of the batch from a counter. A
//! sample's outcome depends on its stream only, so every sample is bit for
//! bit the one-invocation-per-sample kernel's, for any number of workers,
//! batch size, steps per dispatch and split of the range,
//! under each rule, with restitution and with packed states.

mod common;

use impactset::gpu::{GpuContext, GpuPlan, GpuRunOptions, Precision, sample_set_gpu_with};
use impactset::{ImpactProblem, Sample, SampleSet, SamplerOptions, Selection, scene};

/// A built-in scene's problem and options (its coarse step, see
/// `common::gpu::coarse_step`) for `samples` samples under `selection`.
fn case(id: &str, selection: Selection, samples: usize) -> (ImpactProblem, SamplerOptions) {
    let scene = scene::builtin(id).expect("built-in scene");
    let (step_size, steps) = common::gpu::coarse_step(&scene);
    let options = SamplerOptions {
        samples,
        step_size: Some(step_size),
        steps: Some(steps),
        selection,
        seed: 5,
        ..Default::default()
    };
    (scene.problem, options)
}

/// f64 where the adapter has it, else f32.
fn precision(ctx: &GpuContext) -> Precision {
    if ctx.supports_f64() { Precision::F64 } else { Precision::F32 }
}

/// Every field of every sample the same, floats to the bit (their `Debug`
/// form is the shortest text that reads back to the same bits).
fn assert_same(what: &str, a: &[Sample], b: &[Sample]) {
    assert_eq!(a.len(), b.len(), "{what}: sample counts");
    for (x, y) in a.iter().zip(b) {
        assert_eq!(format!("{x:?}"), format!("{y:?}"), "{what}: sample {}", x.index);
    }
}

/// The samples of `options` under `run`, with the host's re-runs.
fn run(ctx: &GpuContext, problem: &ImpactProblem, options: &SamplerOptions, run: GpuRunOptions) -> SampleSet {
    sample_set_gpu_with(ctx, problem, options, precision(ctx), &run, &|_| {}).expect("GPU run")
}

/// `lemke` and `random-lemke` on the compass gait: the same samples with
/// 64 or 40 workers (rounded up to a workgroup) as with one invocation per
/// sample, in batches of 512 or 200 (the last one shorter), with three
/// steps per dispatch, and with the range split in two.
#[test]
fn persistent_workers_change_no_sample_of_the_lemke_rules() {
    let Some(ctx) = common::gpu::gpu() else { return };
    for selection in [Selection::Lemke, Selection::RandomLemke] {
        let (problem, options) = case("compass-gait", selection, 512);
        let reference = run(&ctx, &problem, &options, GpuRunOptions::default());
        assert!(reference.samples.iter().any(|s| s.steps > 1), "{selection}: a case of more than one step");
        let variants = [
            ("64 workers", GpuRunOptions { workers: Some(64), ..Default::default() }),
            (
                "40 workers, batches of 200",
                GpuRunOptions { workers: Some(40), batch_size: Some(200), ..Default::default() },
            ),
            (
                "64 workers, three steps a dispatch",
                GpuRunOptions { workers: Some(64), steps_per_dispatch: Some(3), ..Default::default() },
            ),
            ("as many workers as samples", GpuRunOptions { workers: Some(512), ..Default::default() }),
        ];
        for (what, options_run) in variants {
            let set = run(&ctx, &problem, &options, options_run);
            assert_same(&format!("{selection}, {what}"), &reference.samples, &set.samples);
        }
        let persistent = GpuRunOptions { workers: Some(48), ..Default::default() };
        let mut plan = GpuPlan::new(&ctx, &problem, &options, precision(&ctx), &persistent).expect("plan");
        let mut split = plan.sample_range(0, 300, &|_| {}).expect("first part").samples;
        split.extend(plan.sample_range(300, 212, &|_| {}).expect("second part").samples);
        assert_same(&format!("{selection}, 48 workers, split at 300"), &reference.samples, &split);
    }
}

/// Restitution (the bouncing rocking block: every step is the expansion's)
/// and `all` (the compass gait's enumeration, resumed across dispatches):
/// the same samples, with the same host re-runs, with workers as without.
#[test]
fn persistent_workers_change_no_sample_with_restitution_or_under_all() {
    let Some(ctx) = common::gpu::gpu() else { return };
    for (id, selection, samples) in
        [("rocking-block-bouncing", Selection::RandomLemke, 128), ("compass-gait", Selection::All, 128)]
    {
        let (problem, options) = case(id, selection, samples);
        let reference = run(&ctx, &problem, &options, GpuRunOptions::default());
        let set = run(&ctx, &problem, &options, GpuRunOptions { workers: Some(32), ..Default::default() });
        assert_same(&format!("{id}, {selection}, 32 workers"), &reference.samples, &set.samples);
    }
}

/// States packed into one batch (rows of samples of three seeds): each
/// sample the same with workers as without.
#[test]
fn persistent_workers_change_no_sample_of_packed_states() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let (problem, options) = case("compass-gait", Selection::RandomLemke, 64);
    let seeds: Vec<SamplerOptions> = (0..3).map(|k| SamplerOptions { seed: 20 + k, ..options.clone() }).collect();
    let refs: Vec<(&ImpactProblem, &SamplerOptions)> = seeds.iter().map(|o| (&problem, o)).collect();
    let sample = |run: GpuRunOptions| {
        let mut plan = GpuPlan::packed(&ctx, &refs, precision(&ctx), &run).expect("packed plan");
        let outs = plan.sample_states(0, 64, &|_| {}, &|| false).expect("run").expect("not cancelled");
        outs.into_iter().map(|flat| flat.into_sample_set().samples).collect::<Vec<_>>()
    };
    let reference = sample(GpuRunOptions { batch_size: Some(192), ..Default::default() });
    let persistent = sample(GpuRunOptions { batch_size: Some(192), workers: Some(48), ..Default::default() });
    for (k, (a, b)) in reference.iter().zip(&persistent).enumerate() {
        assert_same(&format!("state {k}, 48 workers"), a, b);
    }
}
