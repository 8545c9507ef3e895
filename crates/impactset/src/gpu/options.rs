//! The options of a GPU run (how it is split, whether f32 equilibrates)
//! and the limits and f32 tolerance floors every part of the GPU sampler
//! reads: constants flow from here to the sampler and the state blocks.

use super::layout::TableauLayout;

/// Largest step cap `K` the GPU accepts (keeps the shader's loop bound finite).
pub const MAX_GPU_STEPS: usize = 1 << 20;

/// Default samples per batch on CPU adapters.
pub const DEFAULT_BATCH: usize = 1 << 16;

/// Default samples per batch on GPUs (lowered to what the device's buffer
/// and dispatch limits allow): large enough to fill a large GPU.
pub const DEFAULT_GPU_BATCH: usize = 1 << 18;

/// How a GPU run is split (results do not depend on it), and whether an f32
/// run equilibrates the step LCP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuRunOptions {
    /// Samples per batch (one submission). Default (`None`): [`DEFAULT_BATCH`]
    /// on CPU adapters, [`DEFAULT_GPU_BATCH`] on GPUs, lowered to what the
    /// device's dispatch and buffer limits allow. A plan of one state
    /// ([`GpuPlan::new`](super::GpuPlan::new)) also lowers it to the run's
    /// samples.
    pub batch_size: Option<usize>,
    /// Steps a sample takes per dispatch before the next dispatch resumes it.
    /// Default (`None`): 1 on CPU adapters (lavapipe stops any invocation
    /// after 65 535 loop iterations per dispatch), else the step cap `K`
    /// (one dispatch per batch).
    pub steps_per_dispatch: Option<usize>,
    /// Layout of the Lemke tableaus in their scratch buffer. Default
    /// (`None`): [`TableauLayout::for_adapter`].
    pub tableau_layout: Option<TableauLayout>,
    /// Selection `all` only: mode tuples a sample tries per dispatch before
    /// the next dispatch resumes its step. Default (`None`): on CPU adapters
    /// as many as fit in lavapipe's loop limit with a wide margin, elsewhere
    /// every tuple of a step up to 8192 (a step of three spatial contacts,
    /// 42 875 tuples, is split).
    pub tuples_per_dispatch: Option<usize>,
    /// Threads per workgroup. Default (`None`): 64.
    pub workgroup_size: Option<u32>,
    /// Leave `v⁺` on the device: [`GpuPlan::sample_range_flat`](super::GpuPlan::sample_range_flat) returns
    /// empty velocities (counts and statistics only). Default: `false`.
    pub skip_velocities: bool,
    /// f32 only: run Lemke on the equilibrated step LCP
    /// `diag(r) A_R diag(c)` ([`crate::lcp::norms::equilibrate`]: powers of
    /// two, so scaling is exact; positive row and column scaling keeps the
    /// solutions, and with covering vector `diag(r) d` the Lemke path is the
    /// same in exact arithmetic) with a pivot tolerance relative to each
    /// tableau row's magnitude
    /// ([`relative_pivot_tolerance`](super::relative_pivot_tolerance)).
    /// Default: `true`. With `false` f32 pivots on `A_R` as it is with the
    /// absolute tolerance [`pivot_tolerance`](super::pivot_tolerance) and
    /// refuses badly scaled problems ([`GpuError::PoorlyScaled`](super::GpuError::PoorlyScaled): RAMone's
    /// friction of 1e5). No effect in f64. docs/gpu-lavapipe.md gives the
    /// agreement with the CPU it reaches on every built-in scene.
    pub equilibrate: bool,
    /// Keep the indices of the samples the host runs again
    /// ([`GpuPlan::host_rerun_indices`](super::GpuPlan::host_rerun_indices)),
    /// as [`compare_backends`](crate::run::compare_backends) does to hold
    /// the device's samples apart from the host's. Default: `false` (a long
    /// run would keep one index per re-run).
    pub keep_rerun_indices: bool,
    /// Selection `all` only, for tests: distinct solutions the shader keeps
    /// per step, below [`MAX_GPU_ALL_SOLUTIONS`](super::MAX_GPU_ALL_SOLUTIONS),
    /// so that a test reaches the host's re-run of a step with more.
    /// Default (`None`): [`MAX_GPU_ALL_SOLUTIONS`](super::MAX_GPU_ALL_SOLUTIONS).
    #[doc(hidden)]
    pub kept_solutions: Option<usize>,
    /// The Lemke kernel: one invocation or one workgroup per sample.
    /// Default (`None`): [`LemkeKernel::for_problem`](super::LemkeKernel::for_problem)'s
    /// rule (a workgroup per sample above the smallest module's 44 rows).
    pub lemke_kernel: Option<super::LemkeKernel>,
    /// Persistent workers for the one-invocation kernel: each dispatch runs
    /// at most this many invocations (rounded up to whole workgroups), each
    /// taking the next sample of the batch from a shared counter until
    /// every sample has had its turn, so that an invocation whose sample
    /// ends early goes on with another instead of idling until the slowest
    /// sample of its warp ends (docs/gpu.md, "Divergence"); on CPU adapters
    /// an invocation takes at most its share of a dispatch's samples
    /// (lavapipe's loop limiter). The samples do not depend on it. Default (`None`): one invocation per sample (the
    /// speed of both on hardware is still to be compared). No effect on the
    /// cooperative kernel, or where the batch has at most this many samples.
    pub workers: Option<u32>,
}

impl Default for GpuRunOptions {
    fn default() -> Self {
        GpuRunOptions {
            batch_size: None,
            steps_per_dispatch: None,
            tableau_layout: None,
            tuples_per_dispatch: None,
            workgroup_size: None,
            skip_velocities: false,
            equilibrate: true,
            keep_rerun_indices: false,
            kept_solutions: None,
            lemke_kernel: None,
            workers: None,
        }
    }
}

/// Largest absolute f32 pivot tolerance accepted when the step LCP is not
/// equilibrated ([`GpuRunOptions::equilibrate`] off): above it, entries of
/// the entering column that matter would be taken for zeros (RAMone's
/// friction of 1e5 gives 12), so such f32 runs are refused with
/// [`GpuError::PoorlyScaled`](super::GpuError::PoorlyScaled).
pub const MAX_F32_PIVOT_TOLERANCE: f64 = 0.1;
