//! The host's re-runs: the samples a shader flags `FLAG_HOST` (restitution:
//! a step the CPU would finish differently from what the shader can do, or
//! a dispatch the driver's loop limiter cut short) or
//! `FLAG_TOO_MANY_SOLUTIONS` (`all`: a step of more distinct solutions than
//! the shader keeps, [`MAX_GPU_ALL_SOLUTIONS`](super::MAX_GPU_ALL_SOLUTIONS))
//! and, in f32, the samples
//! that end unaccepted (an LCP that failed or was cut short, a residual
//! above the f32 floor, no termination within the step cap) run again on
//! the CPU, so such a sample is the CPU's sample itself: f32's resolution
//! does not drop from the set a sample the CPU accepts (docs/gpu.md).

use std::sync::atomic::Ordering;

use rayon::prelude::*;

use super::plan::{GpuPlan, Rows};
use super::precision::Precision;
use super::types::{FLAG_HOST, FLAG_LOOP_LIMIT, FLAG_TOO_MANY_SOLUTIONS};
use crate::sampling::{FlatSamples, samples_at};

/// The flags that send a sample to the host.
const ASKS: u32 = FLAG_HOST | FLAG_TOO_MANY_SOLUTIONS;

impl GpuPlan<'_> {
    /// Samples of this plan's runs so far that the host ran again on the
    /// CPU (restitution's `FLAG_HOST`, `all`'s steps of more distinct
    /// solutions than the shader keeps, f32's unaccepted samples; docs/gpu.md).
    pub fn host_reruns(&self) -> u64 {
        self.host_reruns.load(Ordering::Relaxed)
    }

    /// Of [`host_reruns`](Self::host_reruns), those whose dispatch the
    /// driver's loop limiter cut short (lavapipe, docs/gpu-lavapipe.md);
    /// the others are restitution's steps whose Lemke solve failed, which
    /// the CPU retries with the enumerator, and f32's unaccepted samples.
    pub fn loop_limit_reruns(&self) -> u64 {
        self.loop_limit_reruns.load(Ordering::Relaxed)
    }

    /// With [`GpuRunOptions::keep_rerun_indices`](super::GpuRunOptions::keep_rerun_indices),
    /// the sample indices of the plan's first state that the host ran
    /// again so far, in increasing order (`None` without the option).
    pub fn host_rerun_indices(&self) -> Option<Vec<u64>> {
        let kept = self.rerun_indices.as_ref()?.lock().unwrap_or_else(|e| e.into_inner());
        let mut indices: Vec<u64> = kept.iter().filter(|(state, _)| *state == 0).map(|&(_, j)| j).collect();
        indices.sort_unstable();
        Some(indices)
    }

    /// Runs the samples of the batch `rows` whose flags (`words[2i + 1]`)
    /// ask for it, and in f32 those written unaccepted, again on the CPU
    /// and writes them over the device's: row `r` in `outs[r]` at `at`
    /// ([`read_back`](Self::read_back)).
    pub(super) fn rerun_on_host(&self, rows: &Rows, words: &[u32], outs: &mut [FlatSamples], at: usize) {
        let f32 = self.precision == Precision::F32;
        let rs = rows.row_samples;
        let flags = |i: usize| words[2 * i + 1];
        let flagged: Vec<usize> = (0..rows.count())
            .into_par_iter()
            .filter(|&i| flags(i) & ASKS != 0 || f32 && !outs[i / rs].accepted[at + i % rs])
            .collect();
        let cut = flagged.iter().filter(|&&i| flags(i) & FLAG_LOOP_LIMIT != 0).count();
        self.loop_limit_reruns.fetch_add(cut as u64, Ordering::Relaxed);
        self.host_reruns.fetch_add(flagged.len() as u64, Ordering::Relaxed);
        // Rows in order, so each state's samples are one run of `flagged`.
        for group in flagged.chunk_by(|&a, &b| a / rs == b / rs) {
            let row = group[0] / rs;
            let state = rows.state + row;
            let cpu = self.cpu_states[state]
                .as_ref()
                .expect("a state with restitution, under `all`, or any in f32, keeps its CPU run");
            let (problem, options) = &**cpu;
            let indices: Vec<u64> = group.iter().map(|&i| rows.first.wrapping_add((i % rs) as u64)).collect();
            for (&i, sample) in group.iter().zip(samples_at(problem, options, &indices)) {
                outs[row].set(at + i % rs, &sample);
            }
            if let Some(kept) = &self.rerun_indices {
                kept.lock().unwrap_or_else(|e| e.into_inner()).extend(indices.iter().map(|&j| (state, j)));
            }
        }
    }
}
