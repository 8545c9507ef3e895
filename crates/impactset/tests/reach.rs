//! Batch reachability (docs/model.md §12): the table is a function of the
//! seed and the states only, each state is the single run of its state
//! seed, and the figures agree with independent computations.

use impactset::analysis::{Metric, held_out_certificate};
use impactset::impact::{sequential, simultaneous};
use impactset::reach::{
    Direction, DirectionKind, ReachError, ReachInput, ReachOptions, StateProblem, StateResult, reach, reach_stream,
    state_seed,
};
use impactset::run::{Backend, RunControl, RunError};
use impactset::{Contact, ImpactProblem, SamplerOptions, Selection, sample_set, scene};
use nalgebra::{DVector, dmatrix, dvector};

/// The compass gait at its scene configuration with a grid of pre-impact
/// velocities: the scene's leg rate scaled by `0.6 … 1.4`, the hip
/// velocity tilted by `±0.1`.
fn compass_gait_grid(k: usize) -> (StateProblem, Vec<f64>) {
    let s = scene::builtin("compass-gait").unwrap();
    let v = s.problem.velocity().clone();
    let mut velocities = Vec::new();
    for j in 0..k {
        let scale = 0.6 + 0.8 * j as f64 / (k.max(2) - 1) as f64;
        let tilt = 0.1 * ((j % 3) as f64 - 1.0);
        let mut w = &v * scale;
        w[0] += tilt * v[1];
        velocities.extend(w.iter());
    }
    (StateProblem { name: "compass-gait".into(), problem: s.problem, step_size: Some(s.step_size) }, velocities)
}

fn options(samples: usize, selection: Selection) -> ReachOptions {
    ReachOptions {
        sampler: SamplerOptions { samples, seed: 7, steps: Some(5), selection, ..Default::default() },
        keep_sets: true,
        ..Default::default()
    }
}

fn run(input: &ReachInput, options: &ReachOptions, threads: usize) -> impactset::reach::Reach {
    reach(&Backend::cpu(Some(threads)).unwrap(), input, options, &RunControl::default()).unwrap()
}

/// NaN-aware bitwise equality of rows (a NaN figure equals itself).
fn same_bits(a: &impactset::reach::Reach, b: &impactset::reach::Reach) -> bool {
    format!("{:?}{:?}", a.rows, a.sets) == format!("{:?}{:?}", b.rows, b.sets)
}

#[test]
fn the_table_does_not_depend_on_threads_windows_or_shards() {
    let (base, velocities) = compass_gait_grid(9);
    let input = ReachInput::velocities(base, velocities).unwrap();
    let opts = options(100, Selection::RandomLemke);
    let whole = run(&input, &opts, 1);
    for (threads, window) in [(2, 1 << 16), (3, 100), (2, 1)] {
        let other = run(&input, &ReachOptions { window_samples: window, ..opts.clone() }, threads);
        assert!(same_bits(&whole, &other), "{threads} threads, window {window}");
    }
    // Shards [0, 4) and [4, 9), in any order, are the whole batch.
    let backend = Backend::cpu(Some(2)).unwrap();
    let mut rows = Vec::new();
    for range in [4..9, 0..4] {
        reach_stream(&backend, &input, &opts, range, &RunControl::default(), &mut |r: StateResult| {
            rows.push(r);
            Ok::<_, ReachError>(())
        })
        .unwrap();
    }
    rows.sort_by_key(|r| r.row.state);
    assert_eq!(format!("{:?}", rows.iter().map(|r| &r.row).collect::<Vec<_>>()), format!("{:?}", whole.rows));
}

#[test]
fn each_state_is_the_single_run_of_its_state_seed() {
    let (base, velocities) = compass_gait_grid(5);
    let input = ReachInput::velocities(base.clone(), velocities.clone()).unwrap();
    let opts = options(64, Selection::All);
    let batch = run(&input, &opts, 2);
    for (k, row) in batch.rows.iter().enumerate() {
        assert_eq!(row.state, k as u64);
        assert_eq!(row.seed, state_seed(7, k as u64));
        let problem = ImpactProblem::new(
            base.problem.mass().clone(),
            DVector::from_column_slice(&velocities[4 * k..4 * k + 4]),
            base.problem.contacts().to_vec(),
        )
        .unwrap();
        let single = SamplerOptions { seed: row.seed, step_size: base.step_size, ..opts.sampler.clone() };
        let set = sample_set(&problem, &single);
        assert_eq!(batch.sets.as_ref().unwrap()[k], set.accepted_velocities(), "state {k}");
        assert_eq!(row.accepted as usize, set.accepted_count());
        assert_eq!(row.mean_steps, set.mean_steps());
        assert_eq!(row.v_minus, velocities[4 * k..4 * k + 4]);
    }
}

#[test]
fn support_energy_and_mode_figures_match_the_set() {
    let (base, velocities) = compass_gait_grid(4);
    let input = ReachInput::velocities(base, velocities).unwrap();
    let opts = options(200, Selection::All);
    let batch = run(&input, &opts, 2);
    let s = scene::builtin("compass-gait").unwrap();
    let directions = Direction::defaults(&s.problem);
    assert_eq!(directions.len(), 4 + 2 * 2);
    for (row, set) in batch.rows.iter().zip(batch.sets.as_ref().unwrap()) {
        assert!(row.accepted > 0);
        let points: Vec<&[f64]> = set.chunks(4).collect();
        // Coordinates: the extremes of each column of the set.
        for i in 0..4 {
            let hi = points.iter().map(|p| p[i]).fold(f64::NEG_INFINITY, f64::max);
            let lo = points.iter().map(|p| p[i]).fold(f64::INFINITY, f64::min);
            assert_eq!((row.support_max[i], row.support_min[i]), (hi, lo));
        }
        // Contacts at rest or separating afterwards: every normal velocity ≥ −ε.
        for c in [4, 6] {
            assert!(row.support_min[c] >= -1e-9 * row.velocity_norm, "{}", row.support_min[c]);
        }
        // Energy never grows; the shares of each contact's modes sum to 1.
        assert!(row.energy_ratio_min <= row.energy_ratio_max && row.energy_ratio_max <= 1.0 + 1e-9);
        for contact in row.mode_shares.chunks(4) {
            assert!((contact.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
        assert!(row.top_mode_share > 0.0 && row.top_mode_share <= 1.0 && row.joint_modes >= 1);
        // The ε split: every 4th accepted sample held out.
        assert!(row.heldout > 0 && row.heldout < row.accepted);
        assert!((row.miss_probability - (20f64.ln() / row.heldout as f64).min(1.0)).abs() < 1e-15);
        assert!(row.epsilon.is_finite() && row.epsilon >= 0.0);
        assert_eq!(row.sequential.len(), 2);
        assert!(!row.simultaneous.is_empty());
    }
}

#[test]
fn epsilon_is_the_held_out_certificate_and_baselines_are_their_distances() {
    let (base, velocities) = compass_gait_grid(3);
    let input = ReachInput::velocities(base.clone(), velocities.clone()).unwrap();
    let opts = options(256, Selection::All);
    let batch = run(&input, &opts, 2);
    for (k, row) in batch.rows.iter().enumerate() {
        let problem = ImpactProblem::new(
            base.problem.mass().clone(),
            DVector::from_column_slice(&velocities[4 * k..4 * k + 4]),
            base.problem.contacts().to_vec(),
        )
        .unwrap();
        let single = SamplerOptions { seed: row.seed, step_size: base.step_size, ..opts.sampler.clone() };
        let set = sample_set(&problem, &single);
        let embed = Metric::Energy.embedding(&problem);
        let net = embed.points_of(set.accepted().filter(|s| s.index % 4 != 3).map(|s| s.v_plus.as_slice()));
        let held = embed.points_of(set.accepted().filter(|s| s.index % 4 == 3).map(|s| s.v_plus.as_slice()));
        assert_eq!(row.epsilon, held_out_certificate(&net, &held, 0.05).epsilon);
        // Brute-force distance of every baseline to the whole set.
        let all = embed.points(&set.accepted_velocities());
        let distance = |v: &[f64]| {
            let q = embed.apply(v);
            all.iter()
                .map(|p| p.iter().zip(&q).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt())
                .fold(f64::INFINITY, f64::min)
        };
        let sim: Vec<f64> = simultaneous(&problem).outcomes.iter().map(|o| distance(&o.v_plus)).collect();
        let seq: Vec<f64> = sequential(&problem).iter().map(|o| distance(&o.v_plus)).collect();
        for (a, b) in row.simultaneous.iter().zip(&sim).chain(row.sequential.iter().zip(&seq)) {
            assert!((a - b).abs() <= 1e-12 * (1.0 + b), "{a} vs {b}");
        }
        let outside = sim.iter().chain(&seq).filter(|d| **d > row.epsilon).count() as u64;
        assert_eq!(row.baselines_outside, outside);
    }
}

/// A unit point mass sliding on a floor (μ = 1/2) at `(ẋ, −1)`: one contact,
/// one outcome `(max(ẋ − 1/2, 0), 0)` for ẋ ≥ 0: the support values are it.
#[test]
fn a_sliding_point_mass_has_its_analytic_outcome_in_every_state() {
    let floor = Contact::planar("floor", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.5);
    let problem = ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], dvector![0.0, -1.0], vec![floor]).unwrap();
    let xs = [0.0, 0.25, 0.5, 1.0, 2.0, 3.5];
    let velocities: Vec<f64> = xs.iter().flat_map(|x| [*x, -1.0]).collect();
    let input =
        ReachInput::velocities(StateProblem { name: "point".into(), problem, step_size: None }, velocities).unwrap();
    let custom = Direction { name: "speed_sum".into(), kind: DirectionKind::Vector(vec![1.0, 1.0]) };
    for samples in [1, 3, 50] {
        let opts = ReachOptions {
            sampler: SamplerOptions { samples, steps: Some(40), ..Default::default() },
            directions: Some(vec![custom.clone()]),
            ..Default::default()
        };
        let batch = run(&input, &opts, 2);
        for (row, x) in batch.rows.iter().zip(xs) {
            let expected = (x - 0.5f64).max(0.0);
            assert_eq!(row.accepted, samples as u64, "ẋ = {x}");
            assert!((row.support_max[0] - expected).abs() < 1e-9 && (row.support_min[0] - expected).abs() < 1e-9);
            let e = (expected * expected) / (x * x + 1.0);
            assert!((row.energy_ratio_max - e).abs() < 1e-9);
            // The only baseline outcomes are the same point.
            assert!(row.simultaneous.iter().chain(&row.sequential).all(|d| *d < 1e-9), "{row:?}");
            let share = |mode: usize| row.mode_shares[mode];
            if expected > 0.0 { assert_eq!(share(2), 1.0) } else { assert_eq!(share(1), 1.0) }
        }
    }
}

#[test]
fn problems_of_other_sizes_and_bad_inputs_are_errors() {
    let a = scene::builtin("compass-gait").unwrap();
    let b = scene::builtin("rocking-block").unwrap();
    let state = |s: &scene::Scene| StateProblem { name: s.id.into(), problem: s.problem.clone(), step_size: None };
    let err = ReachInput::problems(vec![state(&a), state(&a), state(&b)]).unwrap_err();
    assert!(matches!(err, ReachError::Shape { state: 2, .. }), "{err}");
    assert!(err.to_string().contains("rocking-block"), "{err}");
    let err = ReachInput::velocities(state(&a), vec![0.0; 7]).unwrap_err();
    assert!(err.to_string().contains("n = 4"), "{err}");
    let err = ReachInput::velocities(state(&a), vec![0.0, f64::NAN, 0.0, 0.0]).unwrap_err();
    assert!(err.to_string().contains("velocities[0][1]"), "{err}");
    let input = ReachInput::problems(vec![state(&a), state(&a)]).unwrap();
    let bad = Direction { name: "c".into(), kind: DirectionKind::Vector(vec![1.0; 3]) };
    let opts = ReachOptions { directions: Some(vec![bad]), ..Default::default() };
    let err = reach(&Backend::cpu(Some(1)).unwrap(), &input, &opts, &RunControl::default()).unwrap_err();
    assert!(err.to_string().contains("direction c"), "{err}");
    let opts = ReachOptions { sampler: SamplerOptions { samples: 0, ..Default::default() }, ..Default::default() };
    assert!(reach(&Backend::cpu(Some(1)).unwrap(), &input, &opts, &RunControl::default()).is_err());
    let empty = ReachInput::problems(Vec::new()).unwrap();
    assert!(matches!(
        reach(&Backend::cpu(None).unwrap(), &empty, &opts, &RunControl::default()),
        Err(ReachError::Empty)
    ));
}

#[test]
fn a_list_of_problems_runs_each_with_its_own_step_size() {
    let scenes = ["compass-gait", "compass-gait"].map(|id| scene::builtin(id).unwrap());
    let states: Vec<StateProblem> = scenes
        .iter()
        .zip([Some(0.25), None])
        .map(|(s, h)| StateProblem { name: s.id.into(), problem: s.problem.clone(), step_size: h })
        .collect();
    let input = ReachInput::problems(states).unwrap();
    let batch = run(&input, &options(32, Selection::Lemke), 2);
    assert_eq!(batch.rows[0].step_size, 0.25);
    assert_eq!(batch.rows[1].step_size, scenes[1].problem.default_step_size());
    assert_eq!(batch.rows[0].problem, "compass-gait");
}

#[test]
fn a_set_cancel_flag_stops_a_batch() {
    let (base, velocities) = compass_gait_grid(50);
    let input = ReachInput::velocities(base, velocities).unwrap();
    let flag = std::sync::atomic::AtomicBool::new(true);
    let control = RunControl { cancel: Some(&flag), ..Default::default() };
    let result = reach(&Backend::cpu(Some(2)).unwrap(), &input, &options(100, Selection::All), &control);
    assert!(matches!(result, Err(ReachError::Run(RunError::Cancelled))), "{result:?}");
}

/// A unit point mass in the plane at `v⁻ = (1, −1)` against a frictionless
/// floor (normal `+y`) and a wall it moves away from (normal `+x`), the
/// contacts in the order of `names`: one outcome, the floor stops the fall
/// and slides along `+x`, the wall separates.
fn floor_and_wall(name: &str, names: [&str; 2]) -> StateProblem {
    let contact = |which: &str| match which {
        "floor" => Contact::planar("floor", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.0),
        _ => Contact::planar("wall", dvector![1.0, 0.0], dvector![0.0, 1.0], 0.0),
    };
    let problem =
        ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], dvector![1.0, -1.0], names.map(contact).to_vec()).unwrap();
    StateProblem { name: name.into(), problem, step_size: None }
}

#[test]
fn problems_with_contacts_in_another_order_fill_the_columns_of_their_names() {
    let input = ReachInput::problems(vec![
        floor_and_wall("first", ["floor", "wall"]),
        floor_and_wall("swapped", ["wall", "floor"]),
    ])
    .unwrap();
    let mut opts = options(16, Selection::All);
    opts.sampler.steps = Some(100);
    let batch = run(&input, &opts, 2);
    let col = |name: &str| batch.schema.columns().iter().position(|c| c.name == name).unwrap();
    for row in &batch.rows {
        let values = batch.schema.values(row);
        let f = |name: &str| match values[col(name)] {
            impactset::reach::Value::F64(x) => x,
            ref v => panic!("{name}: {v:?}"),
        };
        assert_eq!(row.accepted, 16, "{}", row.problem);
        // The floor slides along +x, the wall separates: in every state,
        // whatever the place of its contacts.
        assert_eq!(f("floor_slides_pos"), 1.0, "{}", row.problem);
        assert_eq!(f("wall_separates"), 1.0, "{}", row.problem);
        assert_eq!(f("floor_separates"), 0.0, "{}", row.problem);
        assert!(f("floor_normal_max").abs() < 1e-12 && (f("wall_normal_max") - 1.0).abs() < 1e-12, "{}", row.problem);
        assert!(row.top_mode.starts_with("floor "), "{}: {}", row.problem, row.top_mode);
        assert!(f("sequential_floor").is_finite() && f("sequential_wall").is_finite());
    }
    assert_eq!(batch.rows[0].top_mode, batch.rows[1].top_mode);
    assert_eq!(batch.rows[0].sequential, batch.rows[1].sequential);
}

#[test]
fn problems_whose_contact_names_differ_are_refused() {
    let mut other = floor_and_wall("other", ["floor", "wall"]);
    let mut contacts = other.problem.contacts().to_vec();
    contacts[1].name = "ceiling".into();
    other.problem =
        ImpactProblem::new(other.problem.mass().clone(), other.problem.velocity().clone(), contacts).unwrap();
    let err = ReachInput::problems(vec![floor_and_wall("first", ["floor", "wall"]), other]).unwrap_err();
    assert!(matches!(err, ReachError::Shape { state: 1, .. }), "{err}");
    assert!(err.to_string().contains("contacts floor, ceiling"), "{err}");
}

#[test]
fn column_collisions_are_refused_naming_the_direction_or_contact() {
    let input = ReachInput::problems(vec![floor_and_wall("first", ["floor", "wall"])]).unwrap();
    for name in ["energy_ratio", "simultaneous", "floor_normal"] {
        let d = Direction { name: name.into(), kind: DirectionKind::Vector(vec![1.0, 0.0]) };
        let taken = Direction { name: "floor_normal".into(), kind: DirectionKind::Normal(0) };
        let directions = if name == "floor_normal" {
            // Given twice (the defaults are replaced by what is given).
            vec![taken.clone(), Direction { name: name.into(), kind: DirectionKind::Coordinate(1) }]
        } else {
            vec![d]
        };
        let opts = ReachOptions { directions: Some(directions), ..Default::default() };
        let err = impactset::reach::schema(&input, &opts).unwrap_err();
        assert!(matches!(&err, ReachError::Direction { name: n, .. } if n == name), "{name}: {err}");
    }
    // Two contacts whose stems coincide would share every column.
    let mut p = floor_and_wall("p", ["floor", "wall"]);
    let mut contacts = p.problem.contacts().to_vec();
    contacts[0].name = "left foot".into();
    contacts[1].name = "left_foot".into();
    p.problem = ImpactProblem::new(p.problem.mass().clone(), p.problem.velocity().clone(), contacts).unwrap();
    let input = ReachInput::problems(vec![p]).unwrap();
    let err = impactset::reach::schema(&input, &ReachOptions::default()).unwrap_err();
    assert!(matches!(&err, ReachError::Contact { name, .. } if name == "left_foot"), "{err}");
    // Every column of a valid schema is distinct.
    let input = ReachInput::problems(vec![floor_and_wall("first", ["floor", "wall"])]).unwrap();
    let schema = impactset::reach::schema(&input, &ReachOptions::default()).unwrap();
    let names: std::collections::HashSet<&str> = schema.columns().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names.len(), schema.columns().len());
}

#[test]
fn reach_refuses_the_sampler_options_that_sample_refuses() {
    let input = ReachInput::problems(vec![floor_and_wall("first", ["floor", "wall"])]).unwrap();
    let backend = Backend::cpu(Some(1)).unwrap();
    let with = |sampler: SamplerOptions| ReachOptions { sampler, ..Default::default() };
    for (sampler, field) in [
        (SamplerOptions { samples: 8, threads: Some(5000), ..Default::default() }, "threads"),
        (SamplerOptions { samples: 8, steps: Some(0), ..Default::default() }, "steps"),
        (SamplerOptions { samples: 8, step_size: Some(1e-200), ..Default::default() }, "step_size"),
        (SamplerOptions { samples: 8, step_size: Some(1e200), ..Default::default() }, "step_size"),
        (SamplerOptions { samples: 1 << 40, ..Default::default() }, "samples"),
    ] {
        // The same verdict as a single run's validation (but for `samples`,
        // which a batch bounds by the memory one state's samples take).
        if field != "samples" {
            assert!(sampler.validate(&input.template().unwrap().problem).is_err(), "{field}");
        }
        let err = reach(&backend, &input, &with(sampler), &RunControl::default()).unwrap_err();
        assert!(matches!(&err, ReachError::Sampler { source, .. } if source.field == field), "{field}: {err}");
    }
}

#[test]
fn a_bad_velocity_row_is_refused_before_any_state_runs() {
    let (base, mut velocities) = compass_gait_grid(40);
    // A speed scale beyond the range, in the last state only.
    let n = base.problem.n();
    velocities[39 * n..].iter_mut().for_each(|x| *x = 1e150);
    let input = ReachInput::velocities(base.clone(), velocities).unwrap();
    let opts = ReachOptions { window_samples: 8, ..options(8, Selection::Lemke) };
    let mut seen = 0;
    let result = reach_stream::<ReachError>(
        &Backend::cpu(Some(1)).unwrap(),
        &input,
        &opts,
        0..40,
        &RunControl::default(),
        &mut |_| {
            seen += 1;
            Ok(())
        },
    );
    assert!(matches!(result, Err(ReachError::Problem { state: 39, .. })), "{result:?}");
    assert_eq!(seen, 0, "no state handed over before the check");
    // Out of range entries are refused when the input is made.
    let err = ReachInput::velocities(base, vec![1e200, 0.0, 0.0, 0.0]).unwrap_err();
    assert!(err.to_string().contains("velocities[0][0]"), "{err}");
}

#[test]
fn an_empty_batch_has_no_default_step_cap_and_no_panic() {
    let (base, _) = compass_gait_grid(1);
    let input = ReachInput::velocities(base, Vec::new()).unwrap();
    assert!(matches!(impactset::reach::default_steps(&input, &ReachOptions::default()), Err(ReachError::Empty)));
}

#[test]
fn a_cancelled_batch_pilot_gives_no_cap() {
    use std::sync::atomic::AtomicBool;
    let (base, velocities) = compass_gait_grid(2);
    let input = ReachInput::velocities(base, velocities).unwrap();
    let options = options(16, Selection::All);
    let cap = impactset::reach::default_steps(&input, &options).unwrap();
    let running = AtomicBool::new(false);
    assert_eq!(impactset::reach::default_steps_with(&input, &options, &|_| {}, Some(&running)).unwrap(), Some(cap));
    let cancelled = AtomicBool::new(true);
    assert_eq!(impactset::reach::default_steps_with(&input, &options, &|_| {}, Some(&cancelled)).unwrap(), None);
    let empty = ReachInput::velocities(compass_gait_grid(1).0, Vec::new()).unwrap();
    assert!(matches!(
        impactset::reach::default_steps_with(&empty, &options, &|_| {}, Some(&cancelled)),
        Err(ReachError::Empty)
    ));
}
