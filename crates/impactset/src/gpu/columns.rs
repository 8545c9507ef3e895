//! A batch's outputs, as the device wrote them, turned into the columns of
//! [`FlatSamples`] by all host cores (rayon), in place: each run's columns
//! are allocated once at their full length and every batch writes its own
//! range of them, so no batch is copied twice and the pages are first
//! touched by the threads that fill them. Each value is a function of its
//! sample's outputs alone, so the columns are the same bit for bit for any
//! thread count.

use rayon::prelude::*;

use super::precision::Precision;
use super::types::{FLAG_ACCEPTED, FLAG_GUARDED, FLAG_LCP_FAILED, FLAG_LOOP_LIMIT, FLAG_TERMINATED};
use crate::sampling::FlatSamples;

/// Samples per task: large enough that rayon's overhead is lost in the
/// copying, small enough that a batch of 2¹⁶ is split among 16 cores.
const CHUNK: usize = 2048;

/// Scalars of the shader's type in mapped bytes.
#[derive(Clone, Copy)]
pub(crate) enum Scalars<'a> {
    F32(&'a [f32]),
    F64(&'a [f64]),
}

impl<'a> Scalars<'a> {
    pub(crate) fn new(bytes: &'a [u8], precision: Precision) -> Self {
        match precision {
            Precision::F32 => Scalars::F32(bytemuck::cast_slice(bytes)),
            Precision::F64 => Scalars::F64(bytemuck::cast_slice(bytes)),
        }
    }

    fn get(&self, i: usize) -> f64 {
        match self {
            Scalars::F32(x) => x[i] as f64,
            Scalars::F64(x) => x[i],
        }
    }

    /// `out` from the scalars at `from .. from + out.len()`, as f64.
    fn copy_into(&self, from: usize, out: &mut [f64]) {
        let len = out.len();
        match self {
            Scalars::F32(x) => out.iter_mut().zip(&x[from..from + len]).for_each(|(o, &v)| *o = v as f64),
            Scalars::F64(x) => out.copy_from_slice(&x[from..from + len]),
        }
    }
}

/// One batch's outputs in mapped memory, in the layout of `types.wgsl`.
#[derive(Clone, Copy)]
pub(crate) struct Outputs<'a> {
    /// Steps and flags, two words a sample.
    pub words: &'a [u32],
    /// Largest residual, `E⁻` and `E⁺`, three scalars a sample.
    pub stats: Scalars<'a>,
    /// `v⁺`, `n` scalars a sample (`None`: left on the device).
    pub v: Option<Scalars<'a>>,
    /// `all`: the enumeration words and their stride (word 3 counts the
    /// steps that fell back to Lemke).
    pub enum_words: Option<(&'a [u32], usize)>,
    /// Velocities a sample.
    pub n: usize,
}

/// Zeroed columns for `len` samples from `first_index`, that batches fill
/// in place ([`Outputs::write`]): `v⁺` when `velocities`, the Lemke
/// fallback steps when `fallback` (selection `all`).
pub(crate) fn presized(n: usize, first_index: u64, len: usize, velocities: bool, fallback: bool) -> FlatSamples {
    FlatSamples {
        v_plus: if velocities { vec![0.0; len * n] } else { Vec::new() },
        steps: vec![0; len],
        terminated: vec![false; len],
        accepted: vec![false; len],
        max_residual: vec![0.0; len],
        energy_before: vec![0.0; len],
        energy_after: vec![0.0; len],
        fallback_steps: if fallback { vec![0; len] } else { Vec::new() },
        ..FlatSamples::with_capacity(n, first_index, 0)
    }
}

/// `dst[k] = value(k)` for every `k`, in parallel.
fn column<T: Send>(dst: &mut [T], value: impl Fn(usize) -> T + Sync) {
    dst.par_chunks_mut(CHUNK).enumerate().for_each(|(c, part)| {
        let base = c * CHUNK;
        for (k, d) in part.iter_mut().enumerate() {
            *d = value(base + k);
        }
    });
}

impl Outputs<'_> {
    fn flags(&self, i: usize) -> u32 {
        self.words[2 * i + 1]
    }

    /// Samples `from .. from + len` of the batch written into samples
    /// `at .. at + len` of `out` (presized, [`presized`]). A sample whose
    /// loops the driver cut short (`FLAG_LOOP_LIMIT`) failed like an LCP
    /// over its pivot cap (lavapipe's loop limiter, docs/gpu-lavapipe.md).
    pub(crate) fn write(&self, from: usize, len: usize, out: &mut FlatSamples, at: usize) {
        let ok = |f: u32, bit: u32| f & bit != 0 && f & FLAG_LOOP_LIMIT == 0;
        // The per-sample columns in one pass over the outputs: each task
        // reads its samples' words and statistics once.
        let range = at..at + len;
        out.steps[range.clone()]
            .par_chunks_mut(CHUNK)
            .zip(out.terminated[range.clone()].par_chunks_mut(CHUNK))
            .zip(out.accepted[range.clone()].par_chunks_mut(CHUNK))
            .zip(out.max_residual[range.clone()].par_chunks_mut(CHUNK))
            .zip(out.energy_before[range.clone()].par_chunks_mut(CHUNK))
            .zip(out.energy_after[range].par_chunks_mut(CHUNK))
            .enumerate()
            .for_each(|(c, (((((steps, terminated), accepted), residual), before), after))| {
                for k in 0..steps.len() {
                    let i = from + c * CHUNK + k;
                    let f = self.flags(i);
                    steps[k] = self.words[2 * i];
                    terminated[k] = ok(f, FLAG_TERMINATED);
                    accepted[k] = ok(f, FLAG_ACCEPTED);
                    residual[k] = if f & (FLAG_LCP_FAILED | FLAG_LOOP_LIMIT) != 0 {
                        f64::INFINITY
                    } else {
                        self.stats.get(3 * i)
                    };
                    before[k] = self.stats.get(3 * i + 1);
                    after[k] = self.stats.get(3 * i + 2);
                }
            });
        if let (Some(v), true) = (&self.v, out.has_velocities()) {
            let n = self.n;
            out.v_plus[at * n..(at + len) * n]
                .par_chunks_mut(CHUNK * n.max(1))
                .enumerate()
                .for_each(|(c, part)| v.copy_into((from + c * CHUNK) * n, part));
        }
        if let Some((words, stride)) = self.enum_words {
            column(&mut out.fallback_steps[at..at + len], |k| words[(from + k) * stride + 3]);
        }
        let guarded = |k: usize| self.flags(from + k) & FLAG_GUARDED != 0;
        if (0..len).into_par_iter().with_min_len(CHUNK).any(guarded) {
            if out.energy_guard.is_empty() {
                out.energy_guard.resize(out.len(), false);
            }
            column(&mut out.energy_guard[at..at + len], guarded);
        }
    }
}

/// The columns of a run's outputs as the device writes them (`words`: two
/// `u32` a sample, steps and flags; `stats`: three scalars a sample;
/// `v`: `n` a sample, empty to leave `v⁺` out; scalars of `precision` as
/// bytes), read in batches of `batch` samples into one set of columns as
/// [`GpuPlan`](super::GpuPlan) reads its batches, on the current rayon
/// pool. For benchmarks of the host's share of a GPU run
/// (`benches/gpu_columns.rs`); no sample runs again on the CPU here.
#[doc(hidden)]
pub fn columns_from_outputs(
    words: &[u32],
    stats: &[u8],
    v: &[u8],
    precision: Precision,
    n: usize,
    batch: usize,
) -> FlatSamples {
    let count = words.len() / 2;
    let bytes = precision.bytes();
    let mut out = presized(n, 0, count, !v.is_empty(), false);
    for first in (0..count).step_by(batch.max(1)) {
        let len = batch.min(count - first);
        let outputs = Outputs {
            words: &words[2 * first..2 * (first + len)],
            stats: Scalars::new(&stats[3 * first * bytes..3 * (first + len) * bytes], precision),
            v: (!v.is_empty()).then(|| Scalars::new(&v[n * first * bytes..n * (first + len) * bytes], precision)),
            enum_words: None,
            n,
        };
        outputs.write(0, len, &mut out, first);
    }
    out
}

#[cfg(test)]
#[path = "columns_tests.rs"]
mod tests;
