//! Parameters of Algorithms 1 and 2.

use thiserror::Error;

use super::Schedule;
use crate::ImpactProblem;
use crate::impact::Selection;
use crate::number::readable;
use crate::problem::RANGE;

/// The largest step cap `K` accepted: a sample that never terminates stops
/// after `K` steps, so `K` bounds a run's time.
pub const MAX_STEPS: usize = 1_000_000;

/// Samples `S` of a run that names no count (nor does its problem file).
pub const DEFAULT_SAMPLES: usize = 4096;

/// The most worker threads accepted (each holds a workspace).
pub const MAX_THREADS: usize = 1024;

/// A [`SamplerOptions`] field outside its domain.
#[derive(Clone, Debug, Error, PartialEq)]
#[error("{field} {value}: {why}")]
pub struct OptionsError {
    /// The field (`samples`, `steps`, `step_size`, `threads`, `first_index`,
    /// `termination_tol`, `residual_tol`, `work_tol`).
    pub field: &'static str,
    /// Its value, as given.
    pub value: String,
    /// What is wrong.
    pub why: String,
}

/// Parameters of the Routh sampler. Every field has a documented default.
#[derive(Clone, Debug, PartialEq)]
pub struct SamplerOptions {
    /// Number of samples `S` (default [`DEFAULT_SAMPLES`]).
    pub samples: usize,
    /// Index of the first sample (default 0): a run split into shards
    /// `[first, first + samples)` gives the same samples as one run.
    pub first_index: u64,
    /// Impulse step `h > 0`. Default (`None`): the problem file's value, else
    /// [`default_step_size`](super::default_step_size) (with restitution
    /// no coarser than the expansion asks for, docs/model.md §4b).
    pub step_size: Option<f64>,
    /// Step cap `K`. Default (`None`): the problem file's value where the
    /// options come from [`ProblemSpec::sampler_options`](crate::io::ProblemSpec::sampler_options),
    /// else the pilot run's (docs/model.md §11), which every run resolves
    /// once before it samples ([`resolve_steps`](Self::resolve_steps)).
    pub steps: Option<usize>,
    /// Run seed (default 0); see [`crate::stream`].
    pub seed: u64,
    /// Step-selection rule (default [`Selection::DEFAULT`]).
    pub selection: Selection,
    /// The law of the caps (default [`Schedule::Mixed`]; docs/model.md §5c).
    pub schedule: Schedule,
    /// Worker threads (default `None`: all cores). Results do not depend on it.
    pub threads: Option<usize>,
    /// The impact is over when `min_i (Jn v)_i ≥ −termination_tol · s`, `s` the
    /// problem's [`velocity_scale`](ImpactProblem::velocity_scale)
    /// (default 1e-9).
    pub termination_tol: f64,
    /// A terminated sample is accepted when every step's LCP residual
    /// violation ([`LcpResidual::violation`](crate::lcp::LcpResidual::violation),
    /// relative to the size of `z` and `b`) is at most this (default 1e-9).
    pub residual_tol: f64,
    /// Restitution (docs/model.md §4b): a contact owes expansion work only
    /// above `work_tol · E⁻`, and no step may end above `E⁻ (1 + work_tol)`
    /// (default [`WORK_TOL`](super::WORK_TOL), `1e-12`: the round-off of
    /// the works' sums in f64; the f32 GPU raises it to `F32_WORK_TOL`,
    /// `1e-6`, as it raises `termination_tol` to its floor; docs/gpu.md).
    pub work_tol: f64,
}

impl Default for SamplerOptions {
    fn default() -> Self {
        SamplerOptions {
            samples: DEFAULT_SAMPLES,
            first_index: 0,
            step_size: None,
            steps: None,
            seed: 0,
            selection: Selection::DEFAULT,
            schedule: Schedule::Mixed,
            threads: None,
            termination_tol: 1e-9,
            residual_tol: 1e-9,
            work_tol: super::WORK_TOL,
        }
    }
}

impl SamplerOptions {
    /// Checks every field's domain (for `problem`, whose default step size
    /// is used when none is set): `samples ≥ 1`, `1 ≤ K ≤` [`MAX_STEPS`] when set,
    /// `h` within `[1/RANGE, RANGE]` ([`RANGE`](crate::problem::RANGE)),
    /// `1 ≤ threads ≤` [`MAX_THREADS`], `first_index + samples ≤ 2⁶⁴`
    /// (indices do not wrap), tolerances finite and non-negative.
    pub fn validate(&self, problem: &ImpactProblem) -> Result<(), OptionsError> {
        let err = |field: &'static str, value: String, why: &str| Err(OptionsError { field, value, why: why.into() });
        if self.samples == 0 {
            return err("samples", "0".into(), "must be at least 1");
        }
        if self.steps == Some(0) {
            return err("steps", "0".into(), "must be at least 1 (no sample could end its impact)");
        }
        if let Some(k) = self.steps.filter(|&k| k > MAX_STEPS) {
            return err("steps", k.to_string(), &format!("must be at most {MAX_STEPS}"));
        }
        let h = self.step_size_for(problem);
        if !(h.is_finite() && h > 0.0) {
            return err("step_size", readable(h), "must be a positive number");
        }
        if !(1.0 / RANGE..=RANGE).contains(&h) {
            return err(
                "step_size",
                format!("{h:e}"),
                &format!("must lie within [{:e}, {RANGE:e}] (model.md §1, Range); rescale the units", 1.0 / RANGE),
            );
        }
        if let Some(t) = self.threads
            && !(1..=MAX_THREADS).contains(&t)
        {
            return err("threads", t.to_string(), &format!("must lie within 1 … {MAX_THREADS}"));
        }
        // The last index, `first_index + samples − 1`, must fit in a u64
        // (`samples ≥ 1` here): a run may end exactly at 2⁶⁴.
        if u128::from(self.first_index) + self.samples as u128 > 1u128 << 64 {
            return err(
                "first_index",
                self.first_index.to_string(),
                &format!("with {} samples the indices would pass 2⁶⁴ and wrap", self.samples),
            );
        }
        for (field, x) in [
            ("termination_tol", self.termination_tol),
            ("residual_tol", self.residual_tol),
            ("work_tol", self.work_tol),
        ] {
            if !(x.is_finite() && x >= 0.0) {
                return err(field, readable(x), "must be a finite non-negative number");
            }
        }
        Ok(())
    }

    /// The step size `h` used for `problem`.
    pub fn step_size_for(&self, problem: &ImpactProblem) -> f64 {
        self.step_size.unwrap_or_else(|| super::default_step_size(problem))
    }

    /// The step cap `K` of options whose cap is resolved: every entry
    /// point that samples resolves it first ([`Self::with_steps`]).
    pub(crate) fn cap(&self) -> usize {
        self.steps.expect("the step cap is resolved before a run samples (SamplerOptions::with_steps)")
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::{DMatrix, dvector};

    use super::*;
    use crate::Contact;

    fn point() -> ImpactProblem {
        let contact = Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.5);
        ImpactProblem::new(DMatrix::identity(2, 2), dvector![0.0, -1.0], vec![contact]).unwrap()
    }

    #[test]
    fn a_run_ending_exactly_at_2_pow_64_is_accepted() {
        let p = point();
        let ends_at_2_64 = SamplerOptions { first_index: u64::MAX - 9, samples: 10, ..Default::default() };
        assert!(ends_at_2_64.validate(&p).is_ok());
        let last = SamplerOptions { first_index: u64::MAX, samples: 1, ..Default::default() };
        assert!(last.validate(&p).is_ok());
        let past = SamplerOptions { first_index: u64::MAX - 8, samples: 10, ..Default::default() };
        assert_eq!(past.validate(&p).unwrap_err().field, "first_index");
    }

    #[test]
    fn a_tolerance_outside_its_domain_is_named() {
        let p = point();
        for field in ["termination_tol", "residual_tol", "work_tol"] {
            for bad in [-1e-9, f64::NAN, f64::INFINITY] {
                let mut o = SamplerOptions::default();
                match field {
                    "termination_tol" => o.termination_tol = bad,
                    "residual_tol" => o.residual_tol = bad,
                    _ => o.work_tol = bad,
                }
                assert_eq!(o.validate(&p).unwrap_err().field, field, "{bad}");
            }
        }
        assert_eq!(SamplerOptions::default().work_tol, crate::sampling::WORK_TOL);
    }
}
