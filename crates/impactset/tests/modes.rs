//! Contact modes of sampled sets against the classic baselines:
//! every joint mode a baseline predicts occurs among the samples.

use impactset::analysis::{ModeClassifier, ModeOptions, baseline_outcomes, mode_histogram};
use impactset::{SamplerOptions, Selection, sample_set, scene};

fn check(id: &str, samples: usize, selection: Selection) {
    let s = scene::builtin(id).unwrap();
    let options =
        SamplerOptions { samples, step_size: Some(s.step_size), steps: Some(s.steps), selection, ..Default::default() };
    let set = sample_set(&s.problem, &options);
    let mode_options = ModeOptions::default();
    let histogram = mode_histogram(&s.problem, &set, &mode_options);
    let classifier = ModeClassifier::new(&s.problem, &mode_options);
    for outcome in baseline_outcomes(&s.problem) {
        if outcome.label.contains("unfinished") {
            continue;
        }
        let modes = classifier.classify(&outcome.v_plus);
        let entry = histogram.entries.iter().find(|e| e.modes == modes);
        assert!(
            entry.is_some_and(|e| e.count > 0),
            "{id}: the baseline `{}` has modes {modes:?}, which no sample shows:\n{histogram}",
            outcome.label
        );
    }
}

#[test]
fn compass_gait_samples_show_every_baseline_mode() {
    // Simultaneous: A sticks with B sticking, sliding or lifting off; sequential: B lifts off.
    check("compass-gait", 4096, Selection::All);
}

#[test]
fn rocking_block_and_box_wall_samples_show_every_baseline_mode() {
    check("rocking-block", 4096, Selection::All);
    check("box-wall", 4096, Selection::All);
}

#[test]
fn lemke_misses_compass_gait_modes_that_all_finds() {
    // The published rule misses the "trailing foot closed and sliding" branch
    // (docs/model.md §5b): some baseline mode has no Lemke sample.
    let s = scene::builtin("compass-gait").unwrap();
    let options = SamplerOptions {
        samples: 4096,
        step_size: Some(s.step_size),
        steps: Some(s.steps),
        selection: Selection::Lemke,
        ..Default::default()
    };
    let set = sample_set(&s.problem, &options);
    let mode_options = ModeOptions::default();
    let histogram = mode_histogram(&s.problem, &set, &mode_options);
    let classifier = ModeClassifier::new(&s.problem, &mode_options);
    let missing = baseline_outcomes(&s.problem)
        .iter()
        .filter(|o| !histogram.entries.iter().any(|e| e.modes == classifier.classify(&o.v_plus)))
        .count();
    assert!(missing > 0, "lemke reached every baseline mode:\n{histogram}");
}
