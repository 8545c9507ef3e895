//! The counts and settings of a run of Algorithm 2, as reported in run
//! summaries (JSON) and by the command line.

use serde::Serialize;

use super::Backend;
use crate::SamplerOptions;
use crate::sampling::SetTally;

/// The summary of a run of Algorithm 2.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunSummary {
    /// Problem or scene name.
    pub problem: String,
    /// Samples run.
    pub samples: usize,
    /// Accepted samples.
    pub accepted: usize,
    /// Samples that terminated.
    pub terminated: usize,
    /// Rejected: not terminated within the step cap.
    pub rejected_unterminated: usize,
    /// Rejected: terminated, residual above tolerance.
    pub rejected_residual: usize,
    /// Total LCP solves divided by samples.
    pub mean_steps: f64,
    /// Largest LCP residual violation.
    pub max_residual: f64,
    /// Steps where `all` could not enumerate exhaustively within its budget
    /// and completed its list with Lemke solves.
    pub fallback_steps: u64,
    /// Largest `E⁺/E⁻`.
    pub max_energy_ratio: f64,
    /// Run seed.
    pub seed: u64,
    /// Selection rule.
    pub selection: String,
    /// `cpu` or `gpu (adapter)`.
    pub backend: String,
    /// Why the run went to that backend (`--backend auto` decides per run:
    /// no GPU adapter, a selection rule or problem size the GPU does not run).
    pub backend_reason: String,
    /// `f64` or `f32`.
    pub precision: String,
    /// Worker threads of the CPU (the thread pool's size also for GPU runs).
    pub threads: usize,
    /// Wall time of the sampling.
    pub elapsed_s: f64,
    /// Impulse step `h`.
    pub step_size: f64,
    /// Step cap `K`.
    pub steps: usize,
    /// Index of the first sample.
    pub first_index: u64,
}

impl RunSummary {
    /// The summary of a run of `options` on `backend` named `problem`, from
    /// its `tally`; `elapsed_s` is the sampling's wall time and
    /// `backend_reason` why the run went to `backend`.
    pub fn new(
        problem: &str,
        tally: &SetTally,
        options: &SamplerOptions,
        backend: &Backend,
        backend_reason: &str,
        elapsed_s: f64,
    ) -> RunSummary {
        RunSummary {
            problem: problem.to_string(),
            samples: tally.samples,
            accepted: tally.accepted,
            terminated: tally.terminated,
            rejected_unterminated: tally.rejected_unterminated(),
            rejected_residual: tally.rejected_residual(),
            mean_steps: tally.mean_steps(),
            max_residual: tally.max_residual,
            fallback_steps: tally.fallback_steps,
            max_energy_ratio: tally.max_energy_ratio,
            seed: options.seed,
            selection: options.selection.name().to_string(),
            backend: backend.name(),
            backend_reason: backend_reason.to_string(),
            precision: backend.precision_name().to_string(),
            threads: options.threads.unwrap_or_else(rayon::current_num_threads),
            elapsed_s,
            step_size: options.step_size.unwrap_or(f64::NAN),
            steps: options.steps,
            first_index: options.first_index,
        }
    }
}
