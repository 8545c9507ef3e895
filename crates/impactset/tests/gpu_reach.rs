//! A batch on the GPU against the CPU: the same state seeds, so the same
//! samples up to the parity tolerances of `gpu_parity.rs` (f64 1e-9, f32
//! 1e-3 of `‖v⁻‖_M`), hence the same counts and support values (and, in
//! f64, contact-mode shares). States of equal sizes run packed, whole states
//! per dispatch: each packed sample is bit for bit the sample its state
//! computes alone on the GPU.

mod common;

use std::sync::Arc;

use std::sync::atomic::{AtomicUsize, Ordering};

use impactset::gpu::{GpuContext, GpuPlan, GpuRunOptions, Precision};
use impactset::reach::{ReachInput, ReachOptions, StateProblem, reach, state_seed};
use impactset::run::{Backend, RunControl};
use impactset::sampling::FlatSamples;
use impactset::{ImpactProblem, SamplerOptions, Selection, sample_set, scene};

#[test]
fn gpu_batch_rows_match_the_cpu() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let ctx = Arc::new(ctx);
    let s = scene::builtin("compass-gait").unwrap();
    let v = s.problem.velocity().clone();
    let velocities: Vec<f64> =
        [0.7, 1.0, 1.3].iter().flat_map(|f| (&v * *f).iter().copied().collect::<Vec<_>>()).collect();
    let base = StateProblem { name: "compass-gait".into(), problem: s.problem.clone(), step_size: Some(s.step_size) };
    let input = ReachInput::velocities(base, velocities).unwrap();
    for selection in [Selection::Lemke, Selection::RandomLemke] {
        let options = ReachOptions {
            sampler: SamplerOptions { samples: 128, steps: Some(s.steps), seed: 3, selection, ..Default::default() },
            keep_sets: true,
            ..Default::default()
        };
        let cpu = reach(&Backend::cpu(Some(2)).unwrap(), &input, &options, &RunControl::default()).unwrap();
        for precision in ctx.precisions() {
            let tol = match precision {
                impactset::gpu::Precision::F64 => 1e-9,
                impactset::gpu::Precision::F32 => 1e-3,
            };
            let gpu =
                reach(&Backend::gpu(ctx.clone(), Some(precision)), &input, &options, &RunControl::default()).unwrap();
            for (c, g) in cpu.rows.iter().zip(&gpu.rows) {
                assert_eq!((c.state, c.seed, c.accepted), (g.state, g.seed, g.accepted), "{selection} {precision}");
                let scale = c.velocity_norm;
                for (a, b) in c.support_max.iter().zip(&g.support_max).chain(c.support_min.iter().zip(&g.support_min)) {
                    assert!((a - b).abs() <= tol * scale, "{selection} {precision} state {}: {a} vs {b}", c.state);
                }
                // Modes are told apart at 1e-6 of the contact speed, finer
                // than f32 round-off: compared in f64 only.
                if precision == impactset::gpu::Precision::F32 {
                    continue;
                }
                for (a, b) in c.mode_shares.iter().zip(&g.mode_shares) {
                    assert!((a - b).abs() <= 1.0 / 128.0 + 1e-12, "{selection} {precision}: mode shares {a} vs {b}");
                }
            }
            eprintln!("{selection} {precision}: rows agree");
        }
    }
}

/// `k` states of `scene` whose `v⁻` are the scene's scaled by 0.6 … 1.4.
fn scaled_states(id: &str, k: usize) -> (Vec<ImpactProblem>, f64, usize) {
    let s = scene::builtin(id).unwrap();
    let v = s.problem.velocity().clone();
    let velocities: Vec<f64> =
        (0..k).flat_map(|j| (&v * (0.6 + 0.8 * j as f64 / k as f64)).iter().copied().collect::<Vec<_>>()).collect();
    let base = StateProblem { name: id.into(), problem: s.problem.clone(), step_size: Some(s.step_size) };
    let input = ReachInput::velocities(base, velocities).unwrap();
    let problems = (0..k).map(|j| input.state(j).unwrap().problem.clone()).collect();
    (problems, s.step_size, s.steps)
}

/// Sampler options of state `k` as a batch gives them.
fn state_options(k: usize, selection: Selection, h: f64, steps: usize) -> SamplerOptions {
    SamplerOptions {
        seed: state_seed(5, k as u64),
        step_size: Some(h),
        steps: Some(steps),
        selection,
        ..Default::default()
    }
}

/// Every column of `a` and `b` bit for bit.
fn assert_same_bits(a: &FlatSamples, b: &FlatSamples, what: &str) {
    assert_eq!(a.first_index, b.first_index, "{what}: first index");
    assert_eq!((&a.steps, &a.terminated, &a.accepted), (&b.steps, &b.terminated, &b.accepted), "{what}");
    let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    for (x, y, column) in [
        (&a.v_plus, &b.v_plus, "v+"),
        (&a.max_residual, &b.max_residual, "residual"),
        (&a.energy_before, &b.energy_before, "energy before"),
        (&a.energy_after, &b.energy_after, "energy after"),
    ] {
        assert_eq!(bits(x), bits(y), "{what}: {column}");
    }
    assert_eq!(a.fallback_steps, b.fallback_steps, "{what}: fallback steps");
}

/// The states packed (small batches so rows straddle nothing and batches
/// hold several states) against each state alone, and against the CPU.
fn packed_matches_alone(ctx: &GpuContext, id: &str, selection: Selection, k: usize, samples: usize, batch: usize) {
    let (problems, h, steps) = scaled_states(id, k);
    let options: Vec<SamplerOptions> = (0..k).map(|j| state_options(j, selection, h, steps)).collect();
    let states: Vec<(&ImpactProblem, &SamplerOptions)> = problems.iter().zip(&options).collect();
    let run = GpuRunOptions { batch_size: Some(batch), ..Default::default() };
    for precision in ctx.precisions() {
        let batches = AtomicUsize::new(0);
        let mut plan = GpuPlan::packed(ctx, &states, precision, &run).unwrap();
        assert_eq!(plan.states(), k);
        let packed = plan
            .sample_states(7, samples, &|_| _ = batches.fetch_add(1, Ordering::Relaxed), &|| false)
            .unwrap()
            .unwrap();
        // Whole states share a batch: ⌈k / ⌊batch / samples⌋⌉ batches, or
        // ⌈samples / batch⌉ per state when a state fills batches alone.
        let expected = if samples <= batch { k.div_ceil(batch / samples) } else { k * samples.div_ceil(batch) };
        assert_eq!(batches.load(Ordering::Relaxed), expected, "{id} {selection} {precision}: batches");
        let tol = match precision {
            Precision::F64 => 1e-9,
            Precision::F32 => 1e-3,
        };
        for (j, ((problem, o), flat)) in states.iter().zip(&packed).enumerate() {
            let mut alone = GpuPlan::new(ctx, problem, o, precision, &run).unwrap();
            let alone = alone.sample_range_flat(7, samples, &|_| {}, &|| false).unwrap().unwrap();
            assert_same_bits(flat, &alone, &format!("{id} {selection} {precision} state {j}"));
            let cpu = sample_set(problem, &SamplerOptions { samples, first_index: 7, ..(*o).clone() });
            let scale = problem.velocity_scale();
            let mut agree = 0;
            for (i, c) in cpu.samples.iter().enumerate() {
                let g = flat.sample(i);
                assert_eq!(g.index, c.index);
                let close = g.v_plus.iter().zip(&c.v_plus).all(|(a, b)| (a - b).abs() <= tol * scale);
                agree += (close && g.accepted == c.accepted) as usize;
            }
            // f64: every sample; f32 round-off may tip a rare pick.
            let needed = if precision == Precision::F64 { samples } else { samples * 9 / 10 };
            assert!(agree >= needed, "{id} {selection} {precision} state {j}: {agree}/{samples} agree with the CPU");
        }
        eprintln!("{id} {selection} {precision}: {k} states packed, {expected} batches, bit for bit alone");
    }
}

#[test]
fn packed_states_are_bit_for_bit_the_states_alone() {
    let Some(ctx) = common::gpu::gpu() else { return };
    for selection in [Selection::Lemke, Selection::RandomLemke] {
        // 24 states of 40 samples in batches of 128: three states per batch, 8 batches.
        packed_matches_alone(&ctx, "compass-gait", selection, 24, 40, 128);
    }
    // A state larger than a batch: split over batches, never packed.
    packed_matches_alone(&ctx, "rocking-block", Selection::RandomLemke, 3, 100, 32);
    // `all`: spatial contacts, the enumeration tables per state.
    packed_matches_alone(&ctx, "box-wall", Selection::All, 4, 8, 16);
}

#[test]
fn a_batch_of_problems_runs_packed_and_matches_the_cpu() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let ctx = Arc::new(ctx);
    // Compass gaits with heavier and lighter legs: other A_R, J, M⁻¹Jᵀ and M per state.
    let s = scene::builtin("compass-gait").unwrap();
    let states: Vec<StateProblem> = [1.0, 0.5, 2.0, 1.5, 0.8]
        .iter()
        .map(|f| {
            let problem =
                ImpactProblem::new(s.problem.mass() * *f, s.problem.velocity().clone(), s.problem.contacts().to_vec())
                    .unwrap();
            StateProblem { name: format!("mass x{f}"), problem, step_size: Some(s.step_size) }
        })
        .collect();
    let input = ReachInput::problems(states).unwrap();
    let options = ReachOptions {
        sampler: SamplerOptions {
            samples: 64,
            steps: Some(s.steps),
            seed: 11,
            selection: Selection::RandomLemke,
            ..Default::default()
        },
        keep_sets: true,
        ..Default::default()
    };
    let cpu = reach(&Backend::cpu(Some(2)).unwrap(), &input, &options, &RunControl::default()).unwrap();
    for precision in ctx.precisions() {
        let gpu = reach(&Backend::gpu(ctx.clone(), Some(precision)), &input, &options, &RunControl::default()).unwrap();
        let tol = if precision == Precision::F64 { 1e-9 } else { 1e-3 };
        for (c, g) in cpu.rows.iter().zip(&gpu.rows) {
            assert_eq!((c.state, &c.problem, c.samples), (g.state, &g.problem, g.samples));
            let scale = c.velocity_norm;
            for (a, b) in c.support_max.iter().zip(&g.support_max).chain(c.support_min.iter().zip(&g.support_min)) {
                assert!((a - b).abs() <= tol * scale, "{precision} state {}: {a} vs {b}", c.state);
            }
        }
    }
}

#[test]
fn states_of_other_sizes_are_not_packed() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let gait = scene::builtin("compass-gait").unwrap();
    let block = scene::builtin("rocking-block").unwrap();
    let options = SamplerOptions { steps: Some(100), ..Default::default() };
    let states = [(&gait.problem, &options), (&block.problem, &options)];
    let e = GpuPlan::packed(&ctx, &states, Precision::F32, &GpuRunOptions::default()).err().expect("refused");
    assert!(e.to_string().contains("state 1"), "{e}");
    let longer = SamplerOptions { steps: Some(200), ..Default::default() };
    let states = [(&gait.problem, &options), (&gait.problem, &longer)];
    assert!(GpuPlan::packed(&ctx, &states, Precision::F32, &GpuRunOptions::default()).is_err(), "other step caps");
}

/// `k` configurations of a robot: the cube landing on two corners
/// (`cube-edge`, two spatial contacts) with its mass matrix, contact rows
/// and `v⁻` perturbed per state, so every state has its own `M`, `J` and
/// `v⁻` at the same sizes (a robustness study's shape).
fn configurations(k: usize) -> Vec<StateProblem> {
    use rand::{Rng, SeedableRng};
    let s = scene::builtin("cube-edge").unwrap();
    let n = s.problem.n();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
    (0..k)
        .map(|j| {
            let mut jitter = |x: &nalgebra::DVector<f64>, size: f64| x.map(|v| v + size * rng.random_range(-1.0..1.0));
            let contacts = s
                .problem
                .contacts()
                .iter()
                .map(|c| impactset::Contact {
                    normal: jitter(&c.normal, 0.05),
                    tangents: c.tangents.iter().map(|t| jitter(t, 0.05)).collect(),
                    ..c.clone()
                })
                .collect();
            let v = jitter(s.problem.velocity(), 0.1);
            let a = nalgebra::DMatrix::from_fn(n, n, |_, _| rng.random_range(-0.1..0.1));
            let mass = s.problem.mass() + &a * a.transpose();
            let problem = ImpactProblem::new(mass, v, contacts).expect("a perturbed cube is a valid problem");
            StateProblem { name: format!("cube {j}"), problem, step_size: Some(s.step_size) }
        })
        .collect()
}

/// The reach options of the configuration tests: few samples per state,
/// the sets kept, every sample compared.
fn configuration_options(samples: usize, selection: Selection) -> ReachOptions {
    let steps = scene::builtin("cube-edge").unwrap().steps;
    ReachOptions {
        sampler: SamplerOptions { samples, steps: Some(steps), seed: 23, selection, ..Default::default() },
        keep_sets: true,
        baselines: false,
        ..Default::default()
    }
}

/// Many problems of equal sizes, few samples each, through the packed
/// plan (whole states per dispatch): in f64 every state's set is the CPU's,
/// sample by sample, within 1e-9 of `‖v⁻‖_M`, with the same counts.
#[test]
fn robot_configurations_on_the_gpu_are_the_cpu_samples() {
    let Some(ctx) = common::gpu::gpu() else { return };
    if !ctx.supports_f64() {
        return;
    }
    let ctx = Arc::new(ctx);
    let input = ReachInput::problems(configurations(12)).unwrap();
    for selection in [Selection::Lemke, Selection::RandomLemke] {
        let options = configuration_options(24, selection);
        let cpu = reach(&Backend::cpu(Some(2)).unwrap(), &input, &options, &RunControl::default()).unwrap();
        let gpu =
            reach(&Backend::gpu(ctx.clone(), Some(Precision::F64)), &input, &options, &RunControl::default()).unwrap();
        let (cpu_sets, gpu_sets) = (cpu.sets.unwrap(), gpu.sets.unwrap());
        let mut compared = 0;
        for (k, (c, g)) in cpu.rows.iter().zip(&gpu.rows).enumerate() {
            assert_eq!((c.state, c.seed, c.samples, c.accepted), (g.state, g.seed, g.samples, g.accepted), "{k}");
            assert_eq!(cpu_sets[k].len(), gpu_sets[k].len(), "{selection} state {k}: accepted v⁺");
            let scale = c.velocity_norm;
            for (i, (a, b)) in cpu_sets[k].iter().zip(&gpu_sets[k]).enumerate() {
                assert!((a - b).abs() <= 1e-9 * scale, "{selection} state {k} entry {i}: CPU {a}, GPU {b}");
            }
            compared += cpu_sets[k].len();
        }
        assert!(compared > 0, "{selection}: no accepted sample to compare");
        eprintln!("{selection}: {compared} accepted velocities of 12 configurations agree in f64");
    }
}

/// The GPU batch of configurations is the same bit for bit whatever its
/// split: batches of other sizes (states straddling batches, or many per
/// batch), windows of one or several states, pools of 1 or 3 threads for
/// the rows and columns, and the states run as two shards.
#[test]
fn gpu_reach_is_independent_of_batch_window_threads_and_shards() {
    let Some(ctx) = common::gpu::gpu() else { return };
    let ctx = Arc::new(ctx);
    let precision = ctx.default_precision();
    let input = ReachInput::problems(configurations(7)).unwrap();
    let options = configuration_options(20, Selection::RandomLemke);
    let backend = |batch: Option<usize>| Backend::Gpu {
        context: ctx.clone(),
        precision,
        options: GpuRunOptions { batch_size: batch, ..Default::default() },
    };
    let run = |backend: &Backend, options: &ReachOptions, states: std::ops::Range<usize>| {
        let mut results = Vec::new();
        impactset::reach::reach_stream(backend, &input, options, states, &RunControl::default(), &mut |r| {
            results.push(r);
            Ok::<_, impactset::reach::ReachError>(())
        })
        .unwrap();
        // Debug text: NaN columns compare equal, every float is exact.
        results.iter().map(|r| format!("{r:?}")).collect::<Vec<_>>()
    };
    let reference = run(&backend(None), &options, 0..7);
    assert_eq!(reference.len(), 7);
    for batch in [Some(7), Some(45), Some(1000)] {
        assert_eq!(run(&backend(batch), &options, 0..7), reference, "batch {batch:?}");
    }
    for window in [20, 60] {
        let windowed = ReachOptions { window_samples: window, ..options.clone() };
        assert_eq!(run(&backend(None), &windowed, 0..7), reference, "window of {window} samples");
    }
    for threads in [1, 3] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        assert_eq!(pool.install(|| run(&backend(None), &options, 0..7)), reference, "{threads} threads");
    }
    let mut sharded = run(&backend(None), &options, 0..3);
    sharded.extend(run(&backend(Some(45)), &options, 3..7));
    assert_eq!(sharded, reference, "two shards");
}
