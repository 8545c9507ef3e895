//! The data of a [`GpuPlan`]: its pipeline, sizes, device buffers and
//! read-back slots, and the batches it runs. Built in `plan_setup.rs`, run
//! in `sampler.rs`, read back in `readback.rs`.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use super::context::GpuContext;
use super::precision::Precision;
use super::types::RouthParams;
use crate::{ImpactProblem, SamplerOptions};

/// Algorithm 2 on the GPU for one problem and one set of sampler options, or
/// for many states of equal sizes packed together, prepared once: the
/// options validated for the device, the tolerances of the precision
/// resolved, each state's constants (`A_R`, `J`, `M⁻¹Jᵀ`, `M`, `v⁻`, the
/// enumerator's tables for `all`) and key uploaded, and the batch buffers,
/// the read-back buffers and the bind group allocated.
/// [`GpuPlan::sample_range`] then runs any range of sample indices of the
/// first state, [`GpuPlan::sample_states`] the same range of every state; a
/// sample's outcome depends only on its state and index, so splitting a run
/// into ranges or packing states together changes nothing.
///
/// A run goes in batches of at most [`GpuPlan::batch_size`] samples, one
/// submission each (the dispatches of a batch, then copies of its outputs
/// into mappable buffers). A batch holds the samples of one state, or of as
/// many whole states as fit, so that 10,000 states of 256 samples take 40
/// batches of 2¹⁶. Two sets of read-back buffers alternate: batch `k + 1`
/// is submitted before batch `k` is read back, so the device computes while
/// the host converts. Each output has its own buffer (`v⁺`, steps and
/// flags, residual and energies), read straight into the columns of
/// [`FlatSamples`](crate::sampling::FlatSamples).
pub struct GpuPlan<'c> {
    pub(super) ctx: &'c GpuContext,
    pub(super) pipeline: wgpu::ComputePipeline,
    pub(super) precision: Precision,
    pub(super) n: usize,
    pub(super) states: usize,
    pub(super) all: bool,
    pub(super) batch: usize,
    /// The device limit that lowered `batch` below the asked (or default)
    /// batch size, if one did.
    pub(super) batch_bound: Option<String>,
    pub(super) workgroup_size: u32,
    /// One invocation or one workgroup per sample.
    pub(super) kernel: super::LemkeKernel,
    /// Persistent workers of the one-invocation kernel
    /// ([`GpuRunOptions::workers`](super::GpuRunOptions::workers)), and
    /// their sample counter.
    pub(super) workers: Option<u32>,
    pub(super) work_counter: wgpu::Buffer,
    pub(super) word_stride: usize,
    pub(super) read_velocities: bool,
    pub(super) params: RouthParams,
    /// Dispatches per round, and the most a batch may take in all.
    pub(super) round: u32,
    pub(super) max_passes: u64,
    pub(super) params_buf: wgpu::Buffer,
    pub(super) v_out: wgpu::Buffer,
    pub(super) words_out: wgpu::Buffer,
    pub(super) stats_out: wgpu::Buffer,
    pub(super) stream_pos: wgpu::Buffer,
    pub(super) enum_words: wgpu::Buffer,
    pub(super) bind_group: wgpu::BindGroup,
    pub(super) slots: [ReadbackSlot; 2],
    /// Restitution: each state's problem and options, for the samples the
    /// host runs again on the CPU (`None` for an inelastic state).
    pub(super) cpu_states: Vec<Option<Arc<(ImpactProblem, SamplerOptions)>>>,
    /// Samples run again on the CPU so far, and those of them whose
    /// dispatch the driver's loop limiter cut short.
    pub(super) host_reruns: AtomicU64,
    pub(super) loop_limit_reruns: AtomicU64,
    /// With [`GpuRunOptions::keep_rerun_indices`](super::GpuRunOptions::keep_rerun_indices):
    /// the (state, sample index) of every re-run so far.
    pub(super) rerun_indices: Option<std::sync::Mutex<Vec<(usize, u64)>>>,
}

/// Mappable copies of one batch's outputs, and its timestamp queries.
pub(super) struct ReadbackSlot {
    pub(super) v: wgpu::Buffer,
    pub(super) words: wgpu::Buffer,
    pub(super) stats: wgpu::Buffer,
    /// `all` only: the enumeration words (the Lemke fallback steps).
    pub(super) enum_words: Option<wgpu::Buffer>,
    pub(super) timing: Option<(wgpu::QuerySet, wgpu::Buffer, wgpu::Buffer)>,
}

/// One batch: `rows` rows of `row_samples` samples, row `r` running samples
/// `first .. first + row_samples` of state `state + r`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Rows {
    pub(super) state: usize,
    pub(super) rows: usize,
    pub(super) row_samples: usize,
    pub(super) first: u64,
}

impl Rows {
    pub(super) fn count(&self) -> usize {
        self.rows * self.row_samples
    }
}

/// A batch submitted and not yet read back.
pub(super) struct Pending {
    pub(super) slot: usize,
    pub(super) rows: Rows,
    pub(super) submission: wgpu::SubmissionIndex,
}
