//! The counts and settings of a run of Algorithm 2, as reported in run
//! summaries (JSON) and by the command line.

use serde::Serialize;

use super::{Backend, ChunkedRun};
use crate::SamplerOptions;
use crate::io::finite_or_string;
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
    /// Rejected: the impact had not ended after the step cap `K` (a larger
    /// `K` or `h` would end it).
    pub rejected_unterminated: usize,
    /// Rejected: stopped by a step LCP that could not be solved (a larger
    /// `K` would not help; another selection rule may). The kinds, where
    /// known, are `lcp_rays`, `lcp_pivot_caps`, `lcp_inaccurate`. Not
    /// written when 0.
    #[serde(default, skip_serializing_if = "is_zero_count")]
    pub rejected_failed: usize,
    /// Of `rejected_failed`: Lemke's method ended on a secondary ray. Not
    /// written when 0.
    #[serde(default, skip_serializing_if = "is_zero_count")]
    pub lcp_rays: usize,
    /// Of `rejected_failed`: Lemke's method reached its pivot cap. Not
    /// written when 0.
    #[serde(default, skip_serializing_if = "is_zero_count")]
    pub lcp_pivot_caps: usize,
    /// Of `rejected_failed`: the solve ended outside its residual
    /// tolerance. Not written when 0.
    #[serde(default, skip_serializing_if = "is_zero_count")]
    pub lcp_inaccurate: usize,
    /// Rejected: terminated, residual above tolerance.
    pub rejected_residual: usize,
    /// Total LCP solves divided by samples.
    pub mean_steps: f64,
    /// Largest LCP residual violation (`"inf"` when a step's LCP solve
    /// failed).
    #[serde(serialize_with = "finite_or_string")]
    pub max_residual: f64,
    /// Steps where `all` could not enumerate exhaustively within its budget
    /// and completed its list with Lemke solves.
    pub fallback_steps: u64,
    /// `all`: steps whose `Δv` the bound from one Lemke solve certified
    /// unique (docs/model.md §5b). Not written when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub certified_steps: u64,
    /// Restitution: samples whose expansion the energy guard cut
    /// (docs/model.md §4b). Not written when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub energy_guards: u64,
    /// Largest `E⁺/E⁻` of the accepted samples.
    #[serde(serialize_with = "finite_or_string")]
    pub max_energy_ratio: f64,
    /// Run seed.
    pub seed: u64,
    /// Selection rule.
    pub selection: String,
    /// The law of the caps (docs/model.md §5c).
    pub schedule: String,
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
    /// GPU samples the host ran again on the CPU, which are the CPU's own
    /// (restitution's hand-offs, f32's unaccepted samples; docs/gpu.md).
    /// Not written when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub host_reruns: u64,
    /// Impulse step `h`.
    pub step_size: f64,
    /// Step cap `K` (0 when the options left it unset: front ends resolve it first).
    pub steps: usize,
    /// Index of the first sample.
    pub first_index: u64,
}

impl RunSummary {
    /// The summary of a run of `options` on `backend` named `problem`, from
    /// its `tally`; `run` is what the sampling spent ([`sample_chunks`](super::sample_chunks))
    /// and `backend_reason` why the run went to `backend`.
    pub fn new(
        problem: &str,
        tally: &SetTally,
        options: &SamplerOptions,
        backend: &Backend,
        backend_reason: &str,
        run: &ChunkedRun,
    ) -> RunSummary {
        RunSummary {
            problem: problem.to_string(),
            samples: tally.samples,
            accepted: tally.accepted,
            terminated: tally.terminated,
            rejected_unterminated: tally.rejected_out_of_steps(),
            rejected_failed: tally.lcp_failed,
            lcp_rays: tally.lcp_rays,
            lcp_pivot_caps: tally.lcp_pivot_caps,
            lcp_inaccurate: tally.lcp_inaccurate,
            rejected_residual: tally.rejected_residual(),
            mean_steps: tally.mean_steps(),
            max_residual: tally.max_residual,
            fallback_steps: tally.fallback_steps,
            energy_guards: tally.energy_guards,
            certified_steps: tally.certified_steps,
            max_energy_ratio: tally.max_energy_ratio,
            seed: options.seed,
            selection: options.selection.name().to_string(),
            schedule: options.schedule.name().to_string(),
            backend: backend.name(),
            backend_reason: backend_reason.to_string(),
            precision: backend.precision_name().to_string(),
            threads: options.threads.unwrap_or_else(rayon::current_num_threads),
            elapsed_s: run.elapsed_s,
            host_reruns: run.host_reruns,
            step_size: options.step_size.unwrap_or(f64::NAN),
            steps: options.steps.unwrap_or(0),
            first_index: options.first_index,
        }
    }
}

impl RunSummary {
    /// What went wrong when fewer than 99% of the samples were accepted, and
    /// what to do (docs/model.md §11); `None` otherwise. The options to
    /// change are named by `option` (given `steps`, `step_size`,
    /// `selection`), as the front end spells them: `--step-size` on the
    /// command line, `step_size` in Python.
    pub fn advice(&self, option: &dyn Fn(&str) -> String) -> Option<String> {
        if self.samples == 0 || self.accepted as f64 >= 0.99 * self.samples as f64 {
            return None;
        }
        let percent = |k: usize| 100.0 * k as f64 / self.samples as f64;
        let mut parts = vec![format!(
            "only {} of {} samples ({:.1}%) were accepted",
            self.accepted,
            self.samples,
            percent(self.accepted)
        )];
        if self.rejected_unterminated > 0 {
            parts.push(format!(
                "{} ({:.1}%) did not end the impact within K = {} steps of h = {} (mean {:.2} steps): \
                 raise {}, or {} so that K·h exceeds the normal impulse the impact needs",
                self.rejected_unterminated,
                percent(self.rejected_unterminated),
                self.steps,
                crate::number::readable(self.step_size),
                self.mean_steps,
                option("steps"),
                option("step_size"),
            ));
        }
        if self.rejected_failed > 0 {
            parts.push(format!(
                "{} ({:.1}%) stopped on a step LCP that could not be solved ({} on a secondary ray, {} at the \
                 pivot cap, {} outside the residual tolerance): a larger {} would not end them; another {} may \
                 solve them",
                self.rejected_failed,
                percent(self.rejected_failed),
                self.lcp_rays,
                self.lcp_pivot_caps,
                self.lcp_inaccurate,
                option("steps"),
                option("selection"),
            ));
        }
        if self.rejected_residual > 0 {
            parts.push(format!(
                "{} ({:.1}%) ended with a step LCP residual above the tolerance (largest {:e}): the problem \
                 may be badly conditioned; try another {}",
                self.rejected_residual,
                percent(self.rejected_residual),
                self.max_residual,
                option("selection"),
            ));
        }
        Some(parts.join("; "))
    }
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

fn is_zero_count(x: &usize) -> bool {
    *x == 0
}
