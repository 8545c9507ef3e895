//! Restitution's host re-runs: the samples a shader flags `FLAG_HOST` (a
//! step the CPU would finish differently from what the shader can do, or a
//! dispatch the driver's loop limiter cut short) run again on the CPU, so
//! every sample of a GPU run with restitution is the CPU's sample, up to
//! round-off, or the CPU's sample itself.

use std::sync::atomic::Ordering;

use rayon::prelude::*;

use super::plan::{GpuPlan, Rows};
use super::types::{FLAG_HOST, FLAG_LOOP_LIMIT};
use crate::sampling::{FlatSamples, Sample, sample_one};

impl GpuPlan<'_> {
    /// Samples of this plan's runs so far that the host ran again on the
    /// CPU (restitution only; docs/gpu.md).
    pub fn host_reruns(&self) -> u64 {
        self.host_reruns.load(Ordering::Relaxed)
    }

    /// Of [`host_reruns`](Self::host_reruns), those whose dispatch the
    /// driver's loop limiter cut short (lavapipe, docs/gpu-lavapipe.md);
    /// the others are steps whose Lemke solve failed, which the CPU retries
    /// with the enumerator.
    pub fn loop_limit_reruns(&self) -> u64 {
        self.loop_limit_reruns.load(Ordering::Relaxed)
    }

    /// Runs the samples of the batch `rows` whose flags (`flags(i)`) ask
    /// for it again on the CPU and writes them into `out`.
    pub(super) fn rerun_on_host(&self, rows: &Rows, flags: &dyn Fn(usize) -> u32, out: &mut FlatSamples) {
        let flagged: Vec<usize> = (0..rows.count()).filter(|&i| flags(i) & FLAG_HOST != 0).collect();
        if flagged.is_empty() {
            return;
        }
        let cut = flagged.iter().filter(|&&i| flags(i) & FLAG_LOOP_LIMIT != 0).count();
        self.loop_limit_reruns.fetch_add(cut as u64, Ordering::Relaxed);
        let samples: Vec<(usize, Sample)> = flagged
            .into_par_iter()
            .map(|i| {
                let state = rows.state + i / rows.row_samples;
                let index = rows.first.wrapping_add((i % rows.row_samples) as u64);
                let cpu = self.cpu_states[state].as_ref().expect("only a state with restitution flags FLAG_HOST");
                let (problem, options) = &**cpu;
                (i, sample_one(problem, options, index))
            })
            .collect();
        self.host_reruns.fetch_add(samples.len() as u64, Ordering::Relaxed);
        for (i, sample) in &samples {
            put(out, *i, sample);
        }
    }
}

/// Sample `i` of `out` replaced by `sample`.
fn put(out: &mut FlatSamples, i: usize, sample: &Sample) {
    let n = out.n;
    if out.has_velocities() {
        out.v_plus[i * n..(i + 1) * n].copy_from_slice(&sample.v_plus);
    }
    out.steps[i] = sample.steps;
    out.terminated[i] = sample.terminated;
    out.accepted[i] = sample.accepted;
    out.max_residual[i] = sample.max_residual;
    out.energy_before[i] = sample.energy_before;
    out.energy_after[i] = sample.energy_after;
    let len = out.len();
    if sample.fallback_steps > 0 || !out.fallback_steps.is_empty() {
        out.fallback_steps.resize(len, 0);
        out.fallback_steps[i] = sample.fallback_steps;
    }
    if sample.certified_steps > 0 || !out.certified_steps.is_empty() {
        out.certified_steps.resize(len, 0);
        out.certified_steps[i] = sample.certified_steps;
    }
    if sample.lcp_failure.is_some() || !out.lcp_failure.is_empty() {
        out.lcp_failure.resize(len, None);
        out.lcp_failure[i] = sample.lcp_failure;
    }
    if sample.energy_guard || !out.energy_guard.is_empty() {
        out.energy_guard.resize(len, false);
        out.energy_guard[i] = sample.energy_guard;
    }
}
