//! [`FlatSamples`]: the samples of a run as columns (one array per output),
//! the form the GPU reads back and the NPY writers want, without a
//! [`Sample`] (and its `Vec`) per sample.

use super::{LcpFailure, Sample, SampleSet, SetTally};

/// The samples `first_index .. first_index + len()` of a run, column by
/// column: sample `i`'s `v⁺` is `v_plus[i·n .. (i+1)·n]` and its other
/// fields are entry `i` of their columns. Holds the same values as the
/// [`SampleSet`] of the same run ([`FlatSamples::into_sample_set`],
/// [`FlatSamples::from_set`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlatSamples {
    /// Generalized velocities per sample, `n`.
    pub n: usize,
    /// Index of the first sample.
    pub first_index: u64,
    /// `v⁺` of every sample, row-major `len × n` (empty when the velocities
    /// were not asked for).
    pub v_plus: Vec<f64>,
    /// LCP steps taken.
    pub steps: Vec<u32>,
    /// No contact was colliding at the end.
    pub terminated: Vec<bool>,
    /// Terminated, and every step's residual within tolerance.
    pub accepted: Vec<bool>,
    /// The largest step-LCP residual violation (`∞` if Lemke failed).
    pub max_residual: Vec<f64>,
    /// `½ v⁻ᵀ M v⁻`.
    pub energy_before: Vec<f64>,
    /// `½ v⁺ᵀ M v⁺`.
    pub energy_after: Vec<f64>,
    /// Steps where `all` fell back to Lemke solves (empty: none for every sample).
    pub fallback_steps: Vec<u32>,
    /// Why a step LCP failed, per sample (empty: none failed).
    pub lcp_failure: Vec<Option<LcpFailure>>,
    /// `all`: steps certified unique, per sample (empty: none for every sample).
    pub certified_steps: Vec<u32>,
    /// Restitution's energy guard fired, per sample (empty: for none).
    pub energy_guard: Vec<bool>,
}

impl FlatSamples {
    /// Empty columns for `capacity` samples of `n` velocities from `first_index`.
    pub fn with_capacity(n: usize, first_index: u64, capacity: usize) -> Self {
        FlatSamples {
            n,
            first_index,
            v_plus: Vec::with_capacity(capacity * n),
            steps: Vec::with_capacity(capacity),
            terminated: Vec::with_capacity(capacity),
            accepted: Vec::with_capacity(capacity),
            max_residual: Vec::with_capacity(capacity),
            energy_before: Vec::with_capacity(capacity),
            energy_after: Vec::with_capacity(capacity),
            fallback_steps: Vec::new(),
            lcp_failure: Vec::new(),
            certified_steps: Vec::new(),
            energy_guard: Vec::new(),
        }
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Whether `v⁺` is held (it is unless a run asked for statistics only).
    pub fn has_velocities(&self) -> bool {
        self.v_plus.len() == self.len() * self.n
    }

    /// Sample `i` (of this set, not its run index) as a [`Sample`]; `v⁺` is
    /// empty when the velocities were not kept.
    pub fn sample(&self, i: usize) -> Sample {
        Sample {
            index: self.first_index.wrapping_add(i as u64),
            v_plus: if self.has_velocities() { self.v_plus[i * self.n..(i + 1) * self.n].to_vec() } else { Vec::new() },
            steps: self.steps[i],
            terminated: self.terminated[i],
            accepted: self.accepted[i],
            max_residual: self.max_residual[i],
            energy_before: self.energy_before[i],
            energy_after: self.energy_after[i],
            fallback_steps: self.fallback_steps.get(i).copied().unwrap_or(0),
            certified_steps: self.certified_steps.get(i).copied().unwrap_or(0),
            energy_guard: self.energy_guard.get(i).copied().unwrap_or(false),
            lcp_failure: self.lcp_failure.get(i).copied().flatten(),
        }
    }

    /// Sample `i` replaced by `sample` (an optional column is grown when
    /// `sample` needs it; the GPU's host re-runs).
    #[cfg(feature = "gpu")]
    pub(crate) fn set(&mut self, i: usize, sample: &Sample) {
        let (n, len) = (self.n, self.len());
        if self.has_velocities() {
            self.v_plus[i * n..(i + 1) * n].copy_from_slice(&sample.v_plus);
        }
        self.steps[i] = sample.steps;
        self.terminated[i] = sample.terminated;
        self.accepted[i] = sample.accepted;
        self.max_residual[i] = sample.max_residual;
        self.energy_before[i] = sample.energy_before;
        self.energy_after[i] = sample.energy_after;
        if sample.fallback_steps > 0 || !self.fallback_steps.is_empty() {
            self.fallback_steps.resize(len, 0);
            self.fallback_steps[i] = sample.fallback_steps;
        }
        if sample.certified_steps > 0 || !self.certified_steps.is_empty() {
            self.certified_steps.resize(len, 0);
            self.certified_steps[i] = sample.certified_steps;
        }
        if sample.lcp_failure.is_some() || !self.lcp_failure.is_empty() {
            self.lcp_failure.resize(len, None);
            self.lcp_failure[i] = sample.lcp_failure;
        }
        if sample.energy_guard || !self.energy_guard.is_empty() {
            self.energy_guard.resize(len, false);
            self.energy_guard[i] = sample.energy_guard;
        }
    }

    /// The same samples as a [`SampleSet`].
    pub fn into_sample_set(self) -> SampleSet {
        SampleSet { n: self.n, samples: (0..self.len()).map(|i| self.sample(i)).collect() }
    }

    /// The samples of `set` as columns (`first_index` is the first sample's
    /// index, 0 for an empty set).
    pub fn from_set(set: &SampleSet) -> Self {
        let first = set.samples.first().map_or(0, |s| s.index);
        let mut flat = FlatSamples::with_capacity(set.n, first, set.samples.len());
        for s in &set.samples {
            flat.v_plus.extend_from_slice(&s.v_plus);
            flat.steps.push(s.steps);
            flat.terminated.push(s.terminated);
            flat.accepted.push(s.accepted);
            flat.max_residual.push(s.max_residual);
            flat.energy_before.push(s.energy_before);
            flat.energy_after.push(s.energy_after);
        }
        if set.samples.iter().any(|s| s.fallback_steps != 0) {
            flat.fallback_steps = set.samples.iter().map(|s| s.fallback_steps).collect();
        }
        if set.samples.iter().any(|s| s.certified_steps != 0) {
            flat.certified_steps = set.samples.iter().map(|s| s.certified_steps).collect();
        }
        if set.samples.iter().any(|s| s.energy_guard) {
            flat.energy_guard = set.samples.iter().map(|s| s.energy_guard).collect();
        }
        if set.samples.iter().any(|s| s.lcp_failure.is_some()) {
            flat.lcp_failure = set.samples.iter().map(|s| s.lcp_failure).collect();
        }
        flat
    }

    /// Splits the samples at `at`: these keep `..at`, the samples `at..`
    /// are returned (as [`Vec::split_off`]; `at ≤ len`).
    pub fn split_off(&mut self, at: usize) -> FlatSamples {
        let split = |column: &mut Vec<u32>| if column.is_empty() { Vec::new() } else { column.split_off(at) };
        let lcp_failure = if self.lcp_failure.is_empty() { Vec::new() } else { self.lcp_failure.split_off(at) };
        FlatSamples {
            n: self.n,
            first_index: self.first_index.wrapping_add(at as u64),
            v_plus: if self.has_velocities() { self.v_plus.split_off(at * self.n) } else { Vec::new() },
            steps: self.steps.split_off(at),
            terminated: self.terminated.split_off(at),
            accepted: self.accepted.split_off(at),
            max_residual: self.max_residual.split_off(at),
            energy_before: self.energy_before.split_off(at),
            energy_after: self.energy_after.split_off(at),
            fallback_steps: split(&mut self.fallback_steps),
            certified_steps: split(&mut self.certified_steps),
            lcp_failure,
            energy_guard: if self.energy_guard.is_empty() { Vec::new() } else { self.energy_guard.split_off(at) },
        }
    }

    /// Appends the samples of `other`, which must follow these (same `n`).
    pub fn append(&mut self, mut other: FlatSamples) {
        if self.is_empty() {
            // The first part (a one-batch GPU run's only one) is taken as it is.
            *self = other;
            return;
        }
        if !other.fallback_steps.is_empty() || !self.fallback_steps.is_empty() {
            self.fallback_steps.resize(self.len(), 0);
            other.fallback_steps.resize(other.len(), 0);
            self.fallback_steps.append(&mut other.fallback_steps);
        }
        if !other.certified_steps.is_empty() || !self.certified_steps.is_empty() {
            self.certified_steps.resize(self.len(), 0);
            other.certified_steps.resize(other.len(), 0);
            self.certified_steps.append(&mut other.certified_steps);
        }
        if !other.energy_guard.is_empty() || !self.energy_guard.is_empty() {
            self.energy_guard.resize(self.len(), false);
            other.energy_guard.resize(other.len(), false);
            self.energy_guard.append(&mut other.energy_guard);
        }
        if !other.lcp_failure.is_empty() || !self.lcp_failure.is_empty() {
            self.lcp_failure.resize(self.len(), None);
            other.lcp_failure.resize(other.len(), None);
            self.lcp_failure.append(&mut other.lcp_failure);
        }
        self.v_plus.append(&mut other.v_plus);
        self.steps.append(&mut other.steps);
        self.terminated.append(&mut other.terminated);
        self.accepted.append(&mut other.accepted);
        self.max_residual.append(&mut other.max_residual);
        self.energy_before.append(&mut other.energy_before);
        self.energy_after.append(&mut other.energy_after);
    }

    /// The accepted `v⁺` as a row-major `accepted × n` array.
    pub fn accepted_velocities(&self) -> Vec<f64> {
        if !self.has_velocities() {
            return Vec::new();
        }
        let n = self.n;
        self.accepted
            .iter()
            .enumerate()
            .filter(|(_, a)| **a)
            .flat_map(|(i, _)| &self.v_plus[i * n..(i + 1) * n])
            .copied()
            .collect()
    }

    /// The run's counts and extremes, as [`SampleSet::tally`] gives them.
    pub fn tally(&self) -> SetTally {
        let mut tally = SetTally { samples: self.len(), ..Default::default() };
        for i in 0..self.len() {
            tally.accepted += self.accepted[i] as usize;
            tally.terminated += self.terminated[i] as usize;
            tally.steps += self.steps[i] as u64;
            let recorded = self.lcp_failure.get(i).is_some_and(|f| f.is_some());
            tally.lcp_failed += usize::from(super::set::failed(self.terminated[i], self.max_residual[i], recorded));
            tally.max_residual = tally.max_residual.max(self.max_residual[i]);
            if self.accepted[i] && self.energy_before[i] > 0.0 {
                tally.max_energy_ratio = tally.max_energy_ratio.max(self.energy_after[i] / self.energy_before[i]);
            }
        }
        tally.fallback_steps = self.fallback_steps.iter().map(|&k| k as u64).sum();
        tally.energy_guards = self.energy_guard.iter().filter(|&&g| g).count() as u64;
        tally.certified_steps = self.certified_steps.iter().map(|&k| k as u64).sum();
        for failure in self.lcp_failure.iter().flatten() {
            match failure {
                LcpFailure::Ray => tally.lcp_rays += 1,
                LcpFailure::PivotCap => tally.lcp_pivot_caps += 1,
                LcpFailure::Inaccurate => tally.lcp_inaccurate += 1,
            }
        }
        tally
    }

    /// LCP steps per sample.
    pub fn mean_steps(&self) -> f64 {
        self.steps.iter().map(|&k| k as u64).sum::<u64>() as f64 / self.len().max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Contact, ImpactProblem, SamplerOptions, Selection, sample_set};
    use nalgebra::{dmatrix, dvector};

    #[test]
    fn columns_round_trip_and_tally_like_the_set() {
        let a = Contact::planar("A", dvector![0.0, 1.0, 0.3], dvector![1.0, 0.0, 0.2], 0.6);
        let b = Contact::planar("B", dvector![0.0, 1.0, -0.4], dvector![1.0, 0.0, -0.1], 0.6);
        let mass = dmatrix![1.0, 0.0, 0.0; 0.0, 1.0, 0.0; 0.0, 0.0, 0.2];
        let problem = ImpactProblem::new(mass, dvector![0.5, -1.0, 0.3], vec![a, b]).unwrap();
        for selection in Selection::ALL {
            let options = SamplerOptions { samples: 57, first_index: 9, selection, ..Default::default() };
            let set = sample_set(&problem, &options);
            let flat = FlatSamples::from_set(&set);
            assert_eq!(flat.len(), 57);
            assert_eq!(flat.tally(), set.tally(), "{selection}");
            assert_eq!(flat.accepted_velocities(), set.accepted_velocities());
            assert_eq!(flat.mean_steps(), set.mean_steps());
            // Split and appended, then back to a set: the same samples.
            let (head, tail) = (
                FlatSamples::from_set(&SampleSet { n: 3, samples: set.samples[..20].to_vec() }),
                FlatSamples::from_set(&SampleSet { n: 3, samples: set.samples[20..].to_vec() }),
            );
            let mut joined = head;
            joined.append(tail);
            assert_eq!(joined.into_sample_set(), set, "{selection}");
        }
    }
}
