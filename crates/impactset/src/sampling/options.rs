//! Parameters of Algorithms 1 and 2.

use crate::ImpactProblem;
use crate::impact::Selection;

/// Parameters of the Routh sampler. Every field has a documented default.
#[derive(Clone, Debug, PartialEq)]
pub struct SamplerOptions {
    /// Number of samples `S` (default 4096).
    pub samples: usize,
    /// Index of the first sample (default 0): a run split into shards
    /// `[first, first + samples)` gives the same samples as one run.
    pub first_index: u64,
    /// Impulse step `h > 0`. Default (`None`): the problem file's value, else
    /// [`ImpactProblem::default_step_size`].
    pub step_size: Option<f64>,
    /// Step cap `K` (default 10).
    pub steps: usize,
    /// Run seed (default 0); see [`crate::stream`].
    pub seed: u64,
    /// Step-selection rule (default [`Selection::All`]).
    pub selection: Selection,
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
}

impl Default for SamplerOptions {
    fn default() -> Self {
        SamplerOptions {
            samples: 4096,
            first_index: 0,
            step_size: None,
            steps: 10,
            seed: 0,
            selection: Selection::All,
            threads: None,
            termination_tol: 1e-9,
            residual_tol: 1e-9,
        }
    }
}

impl SamplerOptions {
    /// The step size `h` used for `problem`.
    pub fn step_size_for(&self, problem: &ImpactProblem) -> f64 {
        self.step_size.unwrap_or_else(|| problem.default_step_size())
    }
}
