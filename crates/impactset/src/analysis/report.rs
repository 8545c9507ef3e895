//! Composite measures used by the `analyze` and `figures` commands: the
//! classic baselines, how far each baseline outcome lies
//! from a sampled set, and an ε report (covering radius, Hausdorff distance,
//! held-out certificate, convergence) with every figure also given relative
//! to the pre-impact speed.

use serde::Serialize;

use super::{
    Convergence, Embedding, HeldOutCertificate, Metric, NearestIndex, PointCloud, convergence, covering_radius,
    hausdorff, held_out_certificate,
};
use crate::ImpactProblem;
use crate::impact::{ImpactOutcome, sequential, simultaneous};

/// The baseline outcomes of `problem`: every simultaneous outcome
/// (labels `simultaneous k/N`) followed by one sequential outcome per starting
/// contact (labels `sequential from A`, …).
pub fn baseline_outcomes(problem: &ImpactProblem) -> Vec<ImpactOutcome> {
    let mut outcomes = simultaneous(problem).outcomes;
    outcomes.extend(sequential(problem));
    outcomes
}

/// The norm of the pre-impact velocity in `embedding`'s metric (`‖v⁻‖_M`
/// for the energy metric): the scale of the relative ε figures.
pub fn velocity_norm(problem: &ImpactProblem, embedding: &Embedding) -> f64 {
    embedding.apply(problem.velocity().as_slice()).iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// `value / scale`, or `NaN` when the scale is 0 (no relative figure).
fn relative(value: f64, scale: f64) -> f64 {
    if scale > 0.0 { value / scale } else { f64::NAN }
}

/// How far one baseline outcome lies from a sampled set.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BaselineDistance {
    /// The baseline's label, e.g. `simultaneous 1/3` or `sequential from A`.
    pub label: String,
    /// Distance from the baseline outcome to the nearest accepted sample, in
    /// the metric (`∞` for an empty set).
    pub distance: f64,
    /// `distance / ‖v⁻‖` in the same metric.
    pub relative: f64,
    /// Whether `distance ≤ epsilon`, the set's covering radius estimate.
    pub within_epsilon: bool,
}

/// The distance from every baseline outcome of `problem` to the set `net`
/// (accepted outcomes embedded with `embedding`), relative to `‖v⁻‖`, and
/// whether it is within `epsilon` (the set's covering radius, e.g. the
/// [`HeldOutCertificate::epsilon`] against a held-out set).
pub fn baseline_distances(
    problem: &ImpactProblem,
    embedding: &Embedding,
    net: &PointCloud,
    epsilon: f64,
) -> Vec<BaselineDistance> {
    let scale = velocity_norm(problem, embedding);
    let index = NearestIndex::new(net);
    baseline_outcomes(problem)
        .into_iter()
        .map(|o| {
            let distance = index.nearest(&embedding.apply(&o.v_plus)).map_or(f64::INFINITY, |(_, d)| d);
            BaselineDistance {
                label: o.label,
                distance,
                relative: relative(distance, scale),
                within_epsilon: distance <= epsilon,
            }
        })
        .collect()
}

/// A distance and the same distance relative to `‖v⁻‖`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Figure {
    /// In the metric's units.
    pub absolute: f64,
    /// Divided by `‖v⁻‖` in the metric.
    pub relative: f64,
}

/// The ε figures of a sampled set (docs/model.md §6).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EpsilonReport {
    /// The metric of every distance.
    pub metric: Metric,
    /// `‖v⁻‖` in the metric: the scale of every relative figure.
    pub velocity_norm: f64,
    /// Accepted outcomes in the set.
    pub net_size: usize,
    /// Covering radius `ε(S; R)` against the reference set, if one was given.
    pub covering_radius: Option<Figure>,
    /// Symmetric Hausdorff distance between the set and the reference.
    pub hausdorff: Option<Figure>,
    /// Size of the reference set.
    pub reference_size: Option<usize>,
    /// The held-out certificate, if held-out samples were given: coverage
    /// under the sampling law, not the distance to the set's extremes
    /// ([`HeldOutCertificate::certifies`]).
    pub certificate: Option<HeldOutCertificate>,
    /// The certificate's ε relative to `‖v⁻‖`.
    pub certificate_relative: Option<f64>,
    /// How the covering radius of prefixes of the set shrinks against the
    /// reference (only with a reference).
    pub convergence: Option<Convergence>,
}

impl EpsilonReport {
    /// Measures `net` (the set's accepted outcomes, embedded with
    /// `embedding`) against an optional independent `reference` (covering
    /// radius, Hausdorff distance, convergence from 16 samples doubling) and
    /// optional `held_out` samples (certificate at confidence `1 − delta`).
    ///
    /// # Panics
    /// If `delta` is not in `(0, 1)` or the clouds' dimensions differ.
    pub fn new(
        problem: &ImpactProblem,
        embedding: &Embedding,
        net: &PointCloud,
        reference: Option<&PointCloud>,
        held_out: Option<&PointCloud>,
        delta: f64,
    ) -> Self {
        let scale = velocity_norm(problem, embedding);
        let figure = |absolute: f64| Figure { absolute, relative: relative(absolute, scale) };
        let certificate = held_out.map(|h| held_out_certificate(net, h, delta));
        EpsilonReport {
            metric: embedding.metric(),
            velocity_norm: scale,
            net_size: net.len(),
            covering_radius: reference.map(|r| figure(covering_radius(net, r))),
            hausdorff: reference.map(|r| figure(hausdorff(net, r))),
            reference_size: reference.map(PointCloud::len),
            certificate_relative: certificate.as_ref().map(|c| relative(c.epsilon, scale)),
            certificate,
            convergence: reference.map(|r| convergence(net, r, 16)),
        }
    }

    /// The best covering-radius estimate available: against the reference
    /// if there is one, else the held-out certificate's ε (`None` with
    /// neither).
    pub fn epsilon(&self) -> Option<f64> {
        self.covering_radius.map(|f| f.absolute).or(self.certificate.as_ref().map(|c| c.epsilon))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SamplerOptions, sample_set, scene};

    /// 4096 samples and a held-out set of 4096 more (independent indices).
    fn sets(id: &str, metric: Metric) -> (ImpactProblem, Embedding, PointCloud, PointCloud) {
        let s = scene::builtin(id).unwrap();
        let options = SamplerOptions {
            samples: 4096,
            step_size: Some(s.step_size),
            steps: Some(s.steps),
            seed: 11,
            ..SamplerOptions::default()
        };
        let net = sample_set(&s.problem, &options);
        let held = sample_set(&s.problem, &SamplerOptions { first_index: 1 << 40, ..options });
        let embedding = metric.embedding(&s.problem);
        let (a, b) = (embedding.points(&net.accepted_velocities()), embedding.points(&held.accepted_velocities()));
        (s.problem, embedding, a, b)
    }

    /// Every simultaneous and sequential outcome of the compass gait lies
    /// within the covering radius of a 4096-sample set (estimated against an
    /// equal held-out set), and so does the rocking block's simultaneous
    /// outcome. The rocking block's two sequential outcomes do *not*: they
    /// lie 1–2.5 % of `‖v⁻‖_M` from the nearest sample while ε is about
    /// 1.2 %; sequential-from-A stays at 0.59 % of `‖v⁻‖_M` from 16 384 to
    /// 65 536 samples (h = 0.3, K = 10), so with this step size it is outside
    /// the sampled set rather than merely rarely sampled. The test pins that
    /// finding (a small relative gap) instead of hiding it.
    #[test]
    fn baselines_of_the_rocking_block_and_compass_gait_against_the_covering_radius() {
        for id in ["rocking-block", "compass-gait"] {
            let (problem, embedding, net, held) = sets(id, Metric::Energy);
            let report = EpsilonReport::new(&problem, &embedding, &net, None, Some(&held), 0.05);
            let eps = report.epsilon().unwrap();
            let distances = baseline_distances(&problem, &embedding, &net, eps);
            assert_eq!(distances.len(), baseline_outcomes(&problem).len());
            for d in &distances {
                eprintln!("{id}: {} at {:.3e} (relative {:.3e}), ε = {eps:.3e}", d.label, d.distance, d.relative);
                if id == "rocking-block" && d.label.starts_with("sequential") {
                    assert!(d.relative < 0.03, "{id}: {} at {} ‖v⁻‖", d.label, d.relative);
                } else {
                    assert!(d.within_epsilon, "{id}: {} at {} > ε = {eps}", d.label, d.distance);
                }
            }
        }
    }

    #[test]
    fn report_figures_are_consistent() {
        let (problem, embedding, net, held) = sets("rocking-block", Metric::Energy);
        let report = EpsilonReport::new(&problem, &embedding, &net, Some(&held), Some(&held), 0.05);
        let cover = report.covering_radius.unwrap();
        // The same reference as held-out set: the certificate's ε is the covering radius.
        assert_eq!(cover.absolute, report.certificate.as_ref().unwrap().epsilon);
        assert!(report.hausdorff.unwrap().absolute >= cover.absolute);
        let scale = (2.0 * problem.kinetic_energy(problem.velocity())).sqrt();
        assert!((report.velocity_norm - scale).abs() < 1e-12 * scale);
        assert!((cover.relative - cover.absolute / scale).abs() < 1e-15);
        assert_eq!(report.convergence.as_ref().unwrap().points.last().unwrap().epsilon, cover.absolute);
        assert_eq!(report.epsilon(), Some(cover.absolute));
        let baselines = baseline_outcomes(&problem);
        assert_eq!(baselines[0].label, "simultaneous 1/1");
        assert_eq!(baselines.len(), 3);
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["metric"], "energy");
    }
}
