//! Contact-mode statistics of a post-impact set: for every outcome `v⁺` and
//! contact, does the contact separate, stick or slide (and which way)?

use std::collections::BTreeMap;
use std::fmt;

use nalgebra::{DVector, DVectorView};

use crate::{Dimension, ImpactProblem, SampleSet};

/// What one contact does after the impact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ContactMode {
    /// Normal velocity above the separation tolerance: the contact opens.
    Separates,
    /// Restitution: a contact with `e > 0` that was colliding before the
    /// impact (`u_n⁻` below minus the separation tolerance) and opens (its
    /// expansion pushed the bodies apart, docs/model.md §4b).
    Rebounds,
    /// Closed, tangential speed within the slip tolerance.
    Sticks,
    /// Closed, sliding along `+t` (planar).
    SlidesPositive,
    /// Closed, sliding along `−t` (planar).
    SlidesNegative,
    /// Closed and sliding (spatial; the direction is not binned).
    Slides,
}

impl ContactMode {
    /// The verb phrase used in labels: `separates`, `sticks`, `slides +t`,
    /// `slides −t`, `slides`.
    pub fn phrase(self) -> &'static str {
        match self {
            ContactMode::Separates => "separates",
            ContactMode::Rebounds => "rebounds",
            ContactMode::Sticks => "sticks",
            ContactMode::SlidesPositive => "slides +t",
            ContactMode::SlidesNegative => "slides −t",
            ContactMode::Slides => "slides",
        }
    }
}

/// Tolerances of the mode classification, relative to the pre-impact contact
/// speed scale `s = max_i max(|(Jn v⁻)_i|, ‖(Jt v⁻)_i‖)` (the problem's
/// [`velocity_scale`](ImpactProblem::velocity_scale) when every contact is
/// at rest before the impact).
///
/// A contact with normal velocity `u_n` and tangential velocity `u_t`
/// separates when `u_n > separation_tol · s`; otherwise it is closed, and
/// sticks when `‖u_t‖ ≤ slip_tol · s`, else slides. The sampler ends an impact
/// at `u_n ≥ −10⁻⁹ s`, and closed contacts end at `u_n = 0` up to round-off,
/// so the default `10⁻⁶` separates round-off from motion by orders of
/// magnitude on both sides.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ModeOptions {
    /// Relative normal speed above which a contact separates (default 1e-6).
    pub separation_tol: f64,
    /// Relative tangential speed above which a closed contact slides
    /// (default 1e-6).
    pub slip_tol: f64,
}

impl Default for ModeOptions {
    fn default() -> Self {
        ModeOptions { separation_tol: 1e-6, slip_tol: 1e-6 }
    }
}

/// Classifies the contacts of outcomes of one problem.
#[derive(Clone, Debug)]
pub struct ModeClassifier<'a> {
    problem: &'a ImpactProblem,
    separation: f64,
    slip: f64,
    /// `Jn v⁻`.
    before: Vec<f64>,
}

impl<'a> ModeClassifier<'a> {
    /// A classifier for `problem` with absolute tolerances derived from
    /// `options` and the pre-impact contact speed scale.
    pub fn new(problem: &'a ImpactProblem, options: &ModeOptions) -> Self {
        let s = contact_speed_scale(problem);
        ModeClassifier {
            problem,
            separation: options.separation_tol * s,
            slip: options.slip_tol * s,
            before: problem.contact_velocities().as_slice().to_vec(),
        }
    }

    /// The mode of every contact for the outcome `v` (length `n`).
    pub fn classify(&self, v: &[f64]) -> Vec<ContactMode> {
        let mut modes = Vec::new();
        self.classify_into(v, &mut ContactVelocities::default(), &mut modes);
        modes
    }

    /// [`ModeClassifier::classify`] into `modes`, with the contact
    /// velocities computed in `scratch`: no allocation once both are sized.
    fn classify_into(&self, v: &[f64], scratch: &mut ContactVelocities, modes: &mut Vec<ContactMode>) {
        let ops = self.problem.operators();
        let v = DVectorView::from_slice(v, v.len());
        // The products `Jn v` and `Jt v` of `normal_velocities` and
        // `tangent_velocities`, written into kept vectors.
        if scratch.un.len() != ops.jn.nrows() || scratch.ut.len() != ops.jt.nrows() {
            scratch.un = DVector::zeros(ops.jn.nrows());
            scratch.ut = DVector::zeros(ops.jt.nrows());
        }
        scratch.un.gemv(1.0, &ops.jn, &v, 0.0);
        scratch.ut.gemv(1.0, &ops.jt, &v, 0.0);
        let (un, ut) = (&scratch.un, &scratch.ut);
        let t = self.problem.dimension().tangents();
        modes.clear();
        modes.extend((0..self.problem.m()).map(|i| {
            let tangential = &ut.as_slice()[i * t..(i + 1) * t];
            if un[i] > self.separation {
                if self.problem.contacts()[i].restitution > 0.0 && self.before[i] < -self.separation {
                    ContactMode::Rebounds
                } else {
                    ContactMode::Separates
                }
            } else if tangential.iter().map(|x| x * x).sum::<f64>().sqrt() <= self.slip {
                ContactMode::Sticks
            } else if self.problem.dimension() == Dimension::Spatial {
                ContactMode::Slides
            } else if tangential[0] > 0.0 {
                ContactMode::SlidesPositive
            } else {
                ContactMode::SlidesNegative
            }
        }));
    }

    /// The human label of a joint mode: `"A sticks, B separates"`.
    pub fn label(&self, modes: &[ContactMode]) -> String {
        joint_label(self.problem, modes)
    }
}

/// The pre-impact contact speed scale `s` of [`ModeOptions`].
pub fn contact_speed_scale(problem: &ImpactProblem) -> f64 {
    let v = problem.velocity();
    let un = problem.normal_velocities(v);
    let ut = problem.tangent_velocities(v);
    let t = problem.dimension().tangents();
    let s = (0..problem.m())
        .map(|i| {
            let tangential = ut.as_slice()[i * t..(i + 1) * t].iter().map(|x| x * x).sum::<f64>().sqrt();
            un[i].abs().max(tangential)
        })
        .fold(0.0, f64::max);
    if s > 0.0 { s } else { problem.velocity_scale() }
}

/// `"A sticks, B separates"` for a joint mode of `problem`'s contacts.
pub fn joint_label(problem: &ImpactProblem, modes: &[ContactMode]) -> String {
    problem
        .contacts()
        .iter()
        .zip(modes)
        .map(|(c, m)| format!("{} {}", c.name, m.phrase()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One joint mode of a [`ModeHistogram`].
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ModeEntry {
    /// The mode of each contact, in contact order.
    pub modes: Vec<ContactMode>,
    /// Human label, e.g. `"A sticks, B separates"`.
    pub label: String,
    /// Outcomes with this joint mode.
    pub count: usize,
    /// `count / total`.
    pub fraction: f64,
}

/// How often each joint contact mode occurs in a set of outcomes.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ModeHistogram {
    /// Contact names, in contact order.
    pub contacts: Vec<String>,
    /// Outcomes classified.
    pub total: usize,
    /// The tolerances used.
    pub options: ModeOptions,
    /// Joint modes, most frequent first (ties in mode order).
    pub entries: Vec<ModeEntry>,
}

impl ModeHistogram {
    /// The joint modes of the velocities `outcomes` (each of length `n`).
    pub fn of<'a>(
        problem: &ImpactProblem,
        outcomes: impl IntoIterator<Item = &'a [f64]>,
        options: &ModeOptions,
    ) -> ModeHistogram {
        let mut tally = ModeTally::new(problem, options);
        for v in outcomes {
            tally.add(v);
        }
        tally.histogram()
    }

    /// The fraction of outcomes with exactly this joint mode (0 if absent).
    pub fn fraction(&self, modes: &[ContactMode]) -> f64 {
        self.entries.iter().find(|e| e.modes == modes).map_or(0.0, |e| e.fraction)
    }
}

/// Contact velocities `Jn v` and `Jt v` of one outcome, kept between
/// outcomes.
#[derive(Clone, Debug)]
struct ContactVelocities {
    un: DVector<f64>,
    ut: DVector<f64>,
}

impl Default for ContactVelocities {
    fn default() -> Self {
        ContactVelocities { un: DVector::zeros(0), ut: DVector::zeros(0) }
    }
}

/// A [`ModeHistogram`] accumulated outcome by outcome (a streamed run adds
/// each chunk's accepted outcomes and drops them).
pub struct ModeTally<'a> {
    classifier: ModeClassifier<'a>,
    contacts: Vec<String>,
    options: ModeOptions,
    counts: BTreeMap<Vec<ContactMode>, usize>,
    total: usize,
    /// The contact velocities and joint mode of the outcome being added.
    velocities: ContactVelocities,
    modes: Vec<ContactMode>,
}

impl<'a> ModeTally<'a> {
    /// An empty tally for outcomes of `problem`.
    pub fn new(problem: &'a ImpactProblem, options: &ModeOptions) -> Self {
        ModeTally {
            classifier: ModeClassifier::new(problem, options),
            contacts: problem.contacts().iter().map(|c| c.name.clone()).collect(),
            options: *options,
            counts: BTreeMap::new(),
            total: 0,
            velocities: ContactVelocities::default(),
            modes: Vec::new(),
        }
    }

    /// Classifies one outcome `v`.
    pub fn add(&mut self, v: &[f64]) {
        self.classifier.classify_into(v, &mut self.velocities, &mut self.modes);
        match self.counts.get_mut(&self.modes[..]) {
            Some(count) => *count += 1,
            None => {
                self.counts.insert(self.modes.clone(), 1);
            }
        }
        self.total += 1;
    }

    /// Classifies the accepted outcomes of `set`.
    pub fn add_accepted(&mut self, set: &SampleSet) {
        for s in set.accepted() {
            self.add(&s.v_plus);
        }
    }

    /// The histogram: joint modes, most frequent first (ties in mode order).
    pub fn histogram(self) -> ModeHistogram {
        let total = self.total;
        let classifier = &self.classifier;
        let mut entries: Vec<ModeEntry> = self
            .counts
            .into_iter()
            .map(|(modes, count)| ModeEntry {
                label: classifier.label(&modes),
                fraction: count as f64 / total as f64,
                modes,
                count,
            })
            .collect();
        entries.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.modes.cmp(&b.modes)));
        ModeHistogram { contacts: self.contacts, total, options: self.options, entries }
    }
}

/// The joint-mode histogram of the accepted outcomes of `set`.
pub fn mode_histogram(problem: &ImpactProblem, set: &SampleSet, options: &ModeOptions) -> ModeHistogram {
    ModeHistogram::of(problem, set.accepted().map(|s| s.v_plus.as_slice()), options)
}

impl fmt::Display for ModeHistogram {
    /// One line per joint mode: `A sticks, B separates: 31.2%`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for e in &self.entries {
            writeln!(f, "{}: {:.1}%", e.label, 100.0 * e.fraction)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Contact, SamplerOptions, sample_set};
    use ContactMode::*;
    use nalgebra::{dmatrix, dvector};

    /// A unit point mass on a slope of angle θ (coordinates `x`, `z`),
    /// falling straight down at 1 (docs/model.md §8).
    fn slope(theta: f64, mu: f64) -> ImpactProblem {
        let (s, c) = theta.sin_cos();
        let contact = Contact::planar("A", dvector![s, c], dvector![c, -s], mu);
        ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], dvector![0.0, -1.0], vec![contact]).unwrap()
    }

    fn histogram(problem: &ImpactProblem) -> ModeHistogram {
        let options = SamplerOptions { samples: 64, steps: Some(40), threads: Some(1), ..Default::default() };
        let set = sample_set(problem, &options);
        assert_eq!(set.accepted_count(), 64);
        mode_histogram(problem, &set, &ModeOptions::default())
    }

    #[test]
    fn point_on_a_slope_sticks_iff_friction_reaches_tan_theta() {
        let theta = 30f64.to_radians();
        // Tangent t = (cos θ, −sin θ) points down the slope: v⁻ has u_t = sin θ > 0.
        for mu in [theta.tan() + 1e-3, 1.0, 2.0] {
            let h = histogram(&slope(theta, mu));
            assert_eq!(h.fraction(&[Sticks]), 1.0, "μ = {mu}: {h}");
        }
        for mu in [0.0, 0.2, theta.tan() - 1e-3] {
            let h = histogram(&slope(theta, mu));
            assert_eq!(h.fraction(&[SlidesPositive]), 1.0, "μ = {mu}: {h}");
            assert_eq!(h.entries[0].label, "A slides +t");
        }
    }

    #[test]
    fn frictionless_single_contact_slides_or_separates() {
        let floor = |v: DVector<f64>| {
            let a = Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.0);
            ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], v, vec![a]).unwrap()
        };
        assert_eq!(histogram(&floor(dvector![1.0, -2.0])).fraction(&[SlidesPositive]), 1.0);
        assert_eq!(histogram(&floor(dvector![-1.0, -2.0])).fraction(&[SlidesNegative]), 1.0);
        // Moving away: no impact, the contact separates.
        assert_eq!(histogram(&floor(dvector![1.0, 2.0])).fraction(&[Separates]), 1.0);
        // Head-on, frictionless: plastic impact to rest.
        assert_eq!(histogram(&floor(dvector![0.0, -2.0])).fraction(&[Sticks]), 1.0);
    }

    /// A unit point mass in the corner of a floor (A) and a wall at its left (B).
    fn corner() -> ImpactProblem {
        let a = Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.5);
        let b = Contact::planar("B", dvector![1.0, 0.0], dvector![0.0, -1.0], 0.5);
        ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], dvector![-1.0, -1.0], vec![a, b]).unwrap()
    }

    #[test]
    fn hand_made_outcomes_have_their_modes() {
        let p = corner();
        let c = ModeClassifier::new(&p, &ModeOptions::default());
        // B's tangent is (0, −1): moving up along the wall is sliding −t.
        assert_eq!(c.classify(&[0.0, 0.5]), vec![Separates, SlidesNegative]);
        assert_eq!(c.classify(&[0.5, 0.0]), vec![SlidesPositive, Separates]);
        assert_eq!(c.classify(&[0.0, 0.0]), vec![Sticks, Sticks]);
        assert_eq!(c.classify(&[1e-9, 2e-8]), vec![Sticks, Sticks]);
        assert_eq!(c.classify(&[0.3, 0.2]), vec![Separates, Separates]);
        assert_eq!(c.label(&[Sticks, Separates]), "A sticks, B separates");

        let outcomes: Vec<Vec<f64>> = vec![vec![0.0, 0.5], vec![0.0, 0.4], vec![0.0, 0.0], vec![0.5, 0.0]];
        let h = ModeHistogram::of(&p, outcomes.iter().map(Vec::as_slice), &ModeOptions::default());
        assert_eq!(h.total, 4);
        assert_eq!(h.entries[0].modes, vec![Separates, SlidesNegative]);
        assert_eq!(h.entries[0].count, 2);
        assert_eq!(h.to_string().lines().next(), Some("A separates, B slides −t: 50.0%"));
        let json = serde_json::to_value(&h).unwrap();
        assert_eq!(json["entries"][0]["modes"][0], "separates");
        assert_eq!(json["entries"][0]["label"], "A separates, B slides −t");
    }

    #[test]
    fn spatial_contacts_slide_without_a_direction() {
        let a = Contact::spatial("A", dvector![0.0, 0.0, 1.0], [dvector![1.0, 0.0, 0.0], dvector![0.0, 1.0, 0.0]], 0.5);
        let p = ImpactProblem::new(nalgebra::DMatrix::identity(3, 3), dvector![0.3, 0.0, -1.0], vec![a]).unwrap();
        let c = ModeClassifier::new(&p, &ModeOptions::default());
        assert_eq!(c.classify(&[0.1, -0.2, 0.0]), vec![Slides]);
        assert_eq!(c.classify(&[0.0, 0.0, 0.0]), vec![Sticks]);
        assert_eq!(c.classify(&[0.1, 0.0, 0.2]), vec![Separates]);
        assert_eq!(joint_label(&p, &[Slides]), "A slides");
    }

    /// The tally, which keeps its buffers between outcomes, counts the modes
    /// that the problem's own contact velocities (`Jn v`, `Jt v`) give each
    /// outcome, on planar and spatial scenes.
    #[test]
    fn tally_agrees_with_the_contact_velocities_of_each_outcome() {
        for id in ["compass-gait", "box-wall", "cube-edge"] {
            let scene = crate::scene::builtin(id).unwrap();
            let p = &scene.problem;
            let options = SamplerOptions {
                samples: 400,
                selection: crate::Selection::RandomLemke,
                step_size: Some(scene.step_size),
                ..Default::default()
            };
            let set = sample_set(p, &options);
            let s = contact_speed_scale(p);
            let t = p.dimension().tangents();
            let mut expected: Vec<(Vec<ContactMode>, usize)> = Vec::new();
            for v in set.accepted().map(|x| DVector::from_column_slice(&x.v_plus)) {
                let (un, ut) = (p.normal_velocities(&v), p.tangent_velocities(&v));
                let modes: Vec<ContactMode> = (0..p.m())
                    .map(|i| {
                        let slip = (0..t).map(|k| ut[i * t + k].powi(2)).sum::<f64>().sqrt();
                        match () {
                            _ if un[i] > 1e-6 * s => Separates,
                            _ if slip <= 1e-6 * s => Sticks,
                            _ if t == 2 => Slides,
                            _ if ut[i] > 0.0 => SlidesPositive,
                            _ => SlidesNegative,
                        }
                    })
                    .collect();
                match expected.iter_mut().find(|(m, _)| *m == modes) {
                    Some((_, count)) => *count += 1,
                    None => expected.push((modes, 1)),
                }
            }
            let h = mode_histogram(p, &set, &ModeOptions::default());
            assert_eq!(h.total, set.accepted_count(), "{id}");
            assert_eq!(h.entries.len(), expected.len(), "{id}: {h}");
            for (modes, count) in &expected {
                let entry = h.entries.iter().find(|e| &e.modes == modes).unwrap();
                assert_eq!(entry.count, *count, "{id}: {modes:?}");
            }
            assert!(expected.len() > 1 || id == "box-wall", "{id}: one joint mode only");
        }
    }
}
