//! The per-state search of a batch (docs/model.md §12, "Extremes"):
//! `<direction>_extreme` bounds the sampled support from above, is a
//! function of the seed and the state only, and is the single run's search
//! under the state seed, each outcome replayable; tables with and without
//! it are different batches. And the extremes check of `analyze` (§6).

use impactset::analysis::{ExtremesGapOptions, Metric, extremes_gap};
use impactset::reach::{
    BatchIdentity, ReachError, ReachExtremes, ReachInput, ReachOptions, StateProblem, StateResult, reach, reach_stream,
    schema, search_selection,
};
use impactset::run::{Backend, RunControl};
use impactset::sampling::{ExtremesOptions, anchors, extremes_from, replay};
use impactset::{ImpactProblem, SamplerOptions, Selection, sample_set, scene};
use nalgebra::DVector;

/// `cube-edge` (two spatial contacts) at its velocity scaled by `0.7 … 1.3`.
fn cube_edge(states: usize) -> (StateProblem, Vec<f64>) {
    let s = scene::builtin("cube-edge").unwrap();
    let v = s.problem.velocity().clone();
    let velocities = (0..states).flat_map(|k| (&v * (0.7 + 0.6 * k as f64 / states as f64)).data.as_vec().clone());
    let base = StateProblem { name: "cube-edge".into(), problem: s.problem.clone(), step_size: Some(s.step_size) };
    (base, velocities.collect())
}

fn options(selection: Selection) -> ReachOptions {
    ReachOptions {
        sampler: SamplerOptions { samples: 48, seed: 5, steps: Some(10), selection, ..Default::default() },
        extremes: Some(ReachExtremes { budget: 32, ..ReachExtremes::default() }),
        ..Default::default()
    }
}

fn run(input: &ReachInput, options: &ReachOptions, threads: usize) -> impactset::reach::Reach {
    reach(&Backend::cpu(Some(threads)).unwrap(), input, options, &RunControl::default()).unwrap()
}

#[test]
fn every_extreme_bounds_the_sampled_support_and_the_gap_is_a_distance() {
    let (base, velocities) = cube_edge(4);
    let input = ReachInput::velocities(base, velocities).unwrap();
    let batch = run(&input, &options(Selection::All), 2);
    let names: Vec<&str> = batch.schema.columns().iter().map(|c| c.name.as_str()).collect();
    assert!(names.contains(&"v0_extreme") && names.contains(&"A_normal_extreme") && names.contains(&"extremes_gap"));
    let mut gains = 0;
    for row in &batch.rows {
        assert_eq!(row.support_extreme.len(), row.support_max.len());
        for (j, (e, m)) in row.support_extreme.iter().zip(&row.support_max).enumerate() {
            assert!(e >= m, "state {} direction {j}: extreme {e} < sampled {m}", row.state);
            gains += usize::from(e > m);
        }
        assert!(row.extremes_gap.is_finite() && row.extremes_gap >= 0.0, "state {}", row.state);
    }
    // 48 samples fall short of the search somewhere.
    assert!(gains > 0);
    // Without the search: no such columns, and the other cells unchanged.
    let plain = run(&input, &ReachOptions { extremes: None, ..options(Selection::All) }, 2);
    assert!(!plain.schema.columns().iter().any(|c| c.name.contains("extreme")));
    for (a, b) in plain.rows.iter().zip(&batch.rows) {
        assert_eq!((&a.support_max, a.epsilon, &a.simultaneous), (&b.support_max, b.epsilon, &b.simultaneous));
        assert!(a.support_extreme.is_empty() && a.extremes_gap.is_nan());
    }
}

#[test]
fn the_extremes_do_not_depend_on_threads_windows_or_shards() {
    let (base, velocities) = cube_edge(5);
    let input = ReachInput::velocities(base, velocities).unwrap();
    let opts = options(Selection::RandomLemke);
    let whole = run(&input, &opts, 1);
    let text = |rows: &[&impactset::reach::ReachRow]| format!("{rows:?}");
    let rows: Vec<_> = whole.rows.iter().collect();
    for (threads, window) in [(2, 1 << 16), (3, 48)] {
        let other = run(&input, &ReachOptions { window_samples: window, ..opts.clone() }, threads);
        assert_eq!(text(&other.rows.iter().collect::<Vec<_>>()), text(&rows), "{threads} threads, window {window}");
    }
    let backend = Backend::cpu(Some(2)).unwrap();
    let mut shards = Vec::new();
    for range in [3..5, 0..3] {
        reach_stream(&backend, &input, &opts, range, &RunControl::default(), &mut |r: StateResult| {
            shards.push(r.row);
            Ok::<_, ReachError>(())
        })
        .unwrap();
    }
    shards.sort_by_key(|r| r.state);
    assert_eq!(text(&shards.iter().collect::<Vec<_>>()), text(&rows));
}

/// State `k`'s `<direction>_extreme` is the search of a single run with its
/// state seed (seeded by that run's samples and anchors, under the search's
/// rule), and the outcome found replays to its value.
#[test]
fn each_extreme_is_the_single_runs_search_and_replays() {
    let (base, velocities) = cube_edge(3);
    let input = ReachInput::velocities(base.clone(), velocities.clone()).unwrap();
    let opts = options(Selection::All);
    let batch = run(&input, &opts, 2);
    let directions: Vec<Vec<f64>> =
        impactset::reach::directions(&input, &opts).unwrap().iter().map(|d| d.vector(&base.problem)).collect();
    let settings = opts.extremes.clone().unwrap();
    let n = base.problem.n();
    for (k, row) in batch.rows.iter().enumerate() {
        let problem = ImpactProblem::new(
            base.problem.mass().clone(),
            DVector::from_column_slice(&velocities[n * k..n * (k + 1)]),
            base.problem.contacts().to_vec(),
        )
        .unwrap();
        let single = SamplerOptions { seed: row.seed, step_size: base.step_size, ..opts.sampler.clone() };
        let set = sample_set(&problem, &single);
        let search = SamplerOptions { selection: search_selection(single.selection), ..single.clone() };
        let anchors = anchors(&problem, &search, settings.anchors);
        let budget = ExtremesOptions { budget: settings.budget, ..ExtremesOptions::default() };
        let found = extremes_from(&problem, &search, &directions, &budget, &set.samples, &anchors);
        for (j, e) in found.iter().enumerate() {
            assert_eq!(row.support_extreme[j], e.value.max(row.support_max[j]), "state {k} direction {j}");
            let again = replay(&problem, &search, &e.schedule, e.index).sample;
            assert!(again.accepted);
            let value: f64 = directions[j].iter().zip(&again.v_plus).map(|(c, v)| c * v).sum();
            assert_eq!(value, e.value, "state {k} direction {j}: the replay");
        }
    }
}

#[test]
fn batches_with_and_without_extremes_or_with_other_budgets_are_different_batches() {
    let (base, velocities) = cube_edge(2);
    let input = ReachInput::velocities(base, velocities).unwrap();
    let on = options(Selection::All);
    let identity = |o: &ReachOptions| {
        let directions = impactset::reach::directions(&input, o).unwrap();
        BatchIdentity::new(&input, o, &directions)
    };
    let off = ReachOptions { extremes: None, ..on.clone() };
    let other = ReachOptions { extremes: Some(ReachExtremes { budget: 33, anchors: 24 }), ..on.clone() };
    assert_ne!(identity(&on), identity(&off));
    assert_ne!(identity(&on), identity(&other));
    // A table without the search keeps the metadata it always had.
    assert!(!serde_json::to_string(&identity(&off)).unwrap().contains("extremes"));
    assert!(schema(&input, &on).unwrap().columns().len() > schema(&input, &off).unwrap().columns().len());
    let budget = impactset::sampling::MAX_EXTREMES_BUDGET + 1;
    let too_big = ReachOptions { extremes: Some(ReachExtremes { budget, anchors: 24 }), ..on };
    assert!(impactset::reach::validate(&input, &too_big, 0..2).is_err());
}

/// The extremes check: a set's own anchors lie in it (gap 0 against a net
/// that holds them), and against a law's samples the gap is finite and
/// measured in the metric of ε.
#[test]
fn the_extremes_check_measures_distances_to_the_set() {
    let s = scene::builtin("cube-flat").unwrap();
    let options =
        SamplerOptions { samples: 2048, step_size: Some(s.step_size), steps: Some(s.steps), ..Default::default() };
    let embedding = Metric::Energy.embedding(&s.problem);
    let set = sample_set(&s.problem, &options);
    let net = embedding.points(&set.accepted_velocities());
    let check = ExtremesGapOptions { budget: 64, ..ExtremesGapOptions::default() };
    let gap = extremes_gap(&s.problem, &options, &embedding, &net, &check).unwrap();
    assert_eq!((gap.anchors, gap.directions), (24, 4));
    assert!(gap.gap.absolute.is_finite() && gap.gap.absolute > 0.0, "{gap:?}");
    let scale = (2.0 * s.problem.kinetic_energy(s.problem.velocity())).sqrt();
    assert!((gap.gap.relative - gap.gap.absolute / scale).abs() < 1e-12);
    assert!(gap.farthest.starts_with("anchor") || gap.farthest.starts_with("search"));
    // The anchors' own outcomes as the net: every anchor at distance 0.
    let none = ExtremesGapOptions { directions: 0, ..check };
    let own = anchors(&s.problem, &SamplerOptions { selection: Selection::RandomLemke, ..options.clone() }, 24);
    let vs: Vec<f64> = own.iter().flat_map(|a| a.trajectory.sample.v_plus.clone()).collect();
    let anchor_net = embedding.points(&vs);
    let search = SamplerOptions { selection: Selection::RandomLemke, ..options };
    let zero = extremes_gap(&s.problem, &search, &embedding, &anchor_net, &none).unwrap();
    assert_eq!(zero.gap.absolute, 0.0, "{zero:?}");
}
