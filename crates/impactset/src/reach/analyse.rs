//! The row of one state from its samples (docs/model.md §12).

use std::collections::HashMap;

use super::extremes::state_extremes;
use super::table::ReachRow;
use super::{ReachOptions, ReachSchema};
use crate::analysis::{ContactMode, Metric, ModeClassifier, NearestIndex, held_out_certificate, joint_label};
use crate::impact::{sequential, simultaneous};
use crate::sampling::SetTally;
use crate::{ImpactProblem, Sample, SampleSet, SamplerOptions};

/// Who a state is and how it was sampled.
pub(crate) struct StateInfo<'a> {
    pub state: u64,
    pub seed: u64,
    pub name: &'a str,
    pub step_size: f64,
    /// The batch's first problem: its contact names label the joint modes.
    pub template: &'a ImpactProblem,
    /// Where the batch's contact `i` is in this state's problem (`None`:
    /// in the same place).
    pub contact_order: Option<&'a [usize]>,
    /// The state's sampler options (its seed and step size): the search
    /// replays its samples and anchors under them.
    pub sampler: &'a SamplerOptions,
}

/// The row of one state from all its samples (in index order) and, when
/// `keep`, its accepted `v⁺` (row-major, index order).
pub(crate) fn state_row(
    info: StateInfo,
    problem: &ImpactProblem,
    samples: Vec<Sample>,
    directions: &[Vec<f64>],
    schema: &ReachSchema,
    options: &ReachOptions,
) -> (ReachRow, Option<Vec<f64>>) {
    let n = problem.n();
    let set = SampleSet { n, samples };
    let tally: SetTally = set.tally();
    let accepted: Vec<&Sample> = set.accepted().collect();
    let count = accepted.len();
    let energy_before = problem.kinetic_energy(problem.velocity());

    // Energy ratios and support values over the set.
    let (mut ratio_min, mut ratio_max) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut support_max = vec![f64::NEG_INFINITY; directions.len()];
    let mut support_min = vec![f64::INFINITY; directions.len()];
    for s in &accepted {
        if energy_before > 0.0 {
            let r = s.energy_after / energy_before;
            ratio_min = ratio_min.min(r);
            ratio_max = ratio_max.max(r);
        }
        for (j, c) in directions.iter().enumerate() {
            let value: f64 = c.iter().zip(&s.v_plus).map(|(a, b)| a * b).sum();
            support_max[j] = support_max[j].max(value);
            support_min[j] = support_min[j].min(value);
        }
    }
    let none = |x: f64| if count == 0 || !x.is_finite() { f64::NAN } else { x };
    let (ratio_min, ratio_max) = (none(ratio_min), none(ratio_max));
    support_max.iter_mut().chain(support_min.iter_mut()).for_each(|x| *x = none(*x));

    let modes = mode_figures(&info, problem, &accepted, schema, options);

    // ε: the net (index ≢ every − 1) against the held-out samples.
    let embedding = Metric::Energy.embedding(problem);
    let every = options.heldout_every.max(2);
    let held = |s: &&&Sample| s.index % every == every - 1;
    let net = embedding.points_of(accepted.iter().filter(|s| !held(s)).map(|s| s.v_plus.as_slice()));
    let heldout = embedding.points_of(accepted.iter().filter(held).map(|s| s.v_plus.as_slice()));
    let certificate = held_out_certificate(&net, &heldout, options.delta);
    let epsilon = if count == 0 { f64::NAN } else { certificate.epsilon };
    let velocity_norm = problem.energy_norm(problem.velocity());

    // Baselines and the extremes check: distances to the whole set.
    let all = (options.baselines || options.extremes.is_some())
        .then(|| embedding.points_of(accepted.iter().map(|s| s.v_plus.as_slice())));
    let index = all.as_ref().map(NearestIndex::new);
    let (mut sim, mut seq, mut outside) = (Vec::new(), Vec::new(), 0);
    if let (true, Some(index)) = (options.baselines, &index) {
        let distance = |v: &[f64]| index.nearest(&embedding.apply(v)).map_or(f64::INFINITY, |(_, d)| d);
        sim = simultaneous(problem).outcomes.iter().map(|o| distance(&o.v_plus)).collect();
        let own: Vec<f64> = sequential(problem).iter().map(|o| distance(&o.v_plus)).collect();
        seq = match info.contact_order {
            Some(order) => order.iter().map(|&j| own[j]).collect(),
            None => own,
        };
        outside = sim.iter().chain(&seq).filter(|d| **d > epsilon || epsilon.is_nan()).count() as u64;
    }

    let (mut support_extreme, mut extremes_gap) = (Vec::new(), f64::NAN);
    if let (Some(settings), Some(index)) = (&options.extremes, &index) {
        let distance = |v: &[f64]| index.nearest(&embedding.apply(v)).map_or(f64::INFINITY, |(_, d)| d);
        let found = state_extremes(problem, info.sampler, &set.samples, directions, &support_max, settings, distance);
        (support_extreme, extremes_gap) = (found.values, found.gap);
    }

    let kept = options.keep_sets.then(|| set.accepted_velocities());
    let row = ReachRow {
        state: info.state,
        seed: info.seed,
        problem: info.name.to_string(),
        step_size: info.step_size,
        v_minus: problem.velocity().as_slice().to_vec(),
        samples: tally.samples as u64,
        accepted: tally.accepted as u64,
        unterminated: tally.rejected_unterminated() as u64,
        inaccurate: tally.rejected_residual() as u64,
        mean_steps: tally.mean_steps(),
        max_residual: tally.max_residual,
        fallback_steps: tally.fallback_steps,
        energy_before,
        energy_ratio_min: ratio_min,
        energy_ratio_max: ratio_max,
        mode_shares: modes.shares,
        joint_modes: modes.joint_modes,
        top_mode: modes.top_mode,
        top_mode_share: modes.top_mode_share,
        support_max,
        support_min,
        support_extreme,
        velocity_norm,
        epsilon,
        heldout: heldout.len() as u64,
        miss_probability: certificate.miss_probability,
        simultaneous: sim,
        sequential: seq,
        baselines_outside: outside,
        extremes_gap,
    };
    (row, kept)
}

/// The contact modes of a state's accepted samples, in the batch's contact
/// order: each contact's share of each mode, the joint modes seen and the
/// most frequent one.
struct ModeFigures {
    shares: Vec<f64>,
    joint_modes: u64,
    top_mode: String,
    top_mode_share: f64,
}

fn mode_figures(
    info: &StateInfo,
    problem: &ImpactProblem,
    accepted: &[&Sample],
    schema: &ReachSchema,
    options: &ReachOptions,
) -> ModeFigures {
    let classifier = ModeClassifier::new(problem, &options.modes);
    let modes = schema.modes();
    let mut shares = vec![0.0; problem.m() * modes.len()];
    let mut joint: HashMap<Vec<ContactMode>, u64> = HashMap::new();
    let batch_order = |c: Vec<ContactMode>| match info.contact_order {
        Some(order) => order.iter().map(|&j| c[j]).collect(),
        None => c,
    };
    for s in accepted {
        let c = batch_order(classifier.classify(&s.v_plus));
        for (i, mode) in c.iter().enumerate() {
            if let Some(j) = modes.iter().position(|m| m == mode) {
                shares[i * modes.len() + j] += 1.0;
            }
        }
        *joint.entry(c).or_default() += 1;
    }
    let scale = if accepted.is_empty() { f64::NAN } else { 1.0 / accepted.len() as f64 };
    shares.iter_mut().for_each(|x| *x *= scale);
    let top = joint.iter().max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)));
    let (top_mode, top_mode_share) =
        top.map_or((String::new(), f64::NAN), |(modes, c)| (joint_label(info.template, modes), *c as f64 * scale));
    ModeFigures { shares, joint_modes: joint.len() as u64, top_mode, top_mode_share }
}
