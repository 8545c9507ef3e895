//! Why a GPU run did not happen.

use thiserror::Error;

/// A failure of the GPU backend.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum GpuError {
    /// No Vulkan adapter was found.
    #[error("no Vulkan GPU adapter found (for a software one install Mesa's lavapipe: mesa-vulkan-drivers)")]
    NoAdapter,
    /// Double precision was asked for on an adapter without `SHADER_F64`.
    #[error("the GPU adapter `{adapter}` has no 64-bit floats (SHADER_F64): it runs precision f32 only")]
    NoF64 {
        /// The adapter's name.
        adapter: String,
    },
    /// Not one sample fits the device: a buffer the sampler holds per
    /// sample (its Lemke tableau, `N · stride` scalars) or the problem's
    /// constants exceed what the device binds or allocates (`limit`, the
    /// smaller of `max_storage_buffer_binding_size` and `max_buffer_size`).
    /// Smaller problems run in batches sized from the same limits.
    #[error(
        "{what} takes {bytes} bytes for the step LCP of size {size} on {n} velocities, above the GPU's {limit} of {max} bytes: not one sample fits on this device (use the CPU backend)"
    )]
    DeviceLimit {
        /// What does not fit (e.g. "one sample's Lemke tableau").
        what: &'static str,
        /// Its bytes.
        bytes: u64,
        /// The device limit that binds (`max_storage_buffer_binding_size` or `max_buffer_size`).
        limit: &'static str,
        /// The limit's value in bytes.
        max: u64,
        /// `N = m(3 + d)`.
        size: usize,
        /// Generalized velocities.
        n: usize,
    },
    /// The driver cut a shader loop short: lavapipe (Mesa ≤ 22) stops every
    /// loop once an invocation has run 65 535 loop iterations in one
    /// dispatch. Results would be wrong, so none are returned.
    #[error(
        "the GPU driver `{adapter}` cut a shader loop short (lavapipe's loop limiter; use a smaller problem or a real GPU)"
    )]
    LoopLimit {
        /// The adapter's name.
        adapter: String,
    },
    /// The step LCP is too badly scaled for single precision without
    /// equilibration ([`GpuRunOptions::equilibrate`](super::GpuRunOptions::equilibrate)
    /// off): the absolute f32 pivot tolerance would swallow real pivots
    /// (e.g. RAMone's friction 1e5).
    #[error(
        "the step LCP is too badly scaled for f32 without equilibration (‖A_R‖∞ = {norm:.3e}: pivot tolerance {tolerance:.2e}); equilibrate it or run precision f64"
    )]
    PoorlyScaled {
        /// `‖A_R‖∞`.
        norm: f64,
        /// The f32 pivot tolerance it implies.
        tolerance: f64,
    },
    /// The selection rule `all` tries every mode tuple of a step on the GPU,
    /// which is affordable only for few tuples
    /// ([`MAX_GPU_ALL_TUPLES`](super::MAX_GPU_ALL_TUPLES) on at most
    /// [`MAX_GPU_ALL_CONTACTS`](super::MAX_GPU_ALL_CONTACTS) contacts);
    /// larger problems run `all` on the CPU (its depth-first search prunes,
    /// and most steps of real landings are certified without a search).
    #[error(
        "the problem is too large for selection `all` on the GPU: {m} contacts, {tuples} mode tuples a step; the GPU tries every tuple, at most {max_tuples} on at most {max_contacts} contacts (use the CPU backend, or lemke / random-lemke)",
        max_tuples = super::MAX_GPU_ALL_TUPLES,
        max_contacts = super::MAX_GPU_ALL_CONTACTS
    )]
    TooLargeForAll {
        /// Contacts of the problem.
        m: usize,
        /// Mode tuples of one step ([`all_tuples`](super::all_tuples)).
        tuples: u64,
    },
    /// Restitution runs on the GPU under the Lemke rules, and under `all`
    /// only where a step has fewer mode tuples than the CPU's bound needs
    /// (100: the GPU then keeps the CPU's own impulses, which the works of
    /// restitution read) and the twinned steps of its contacts with both
    /// restitution and friction (docs/model.md §5b) fit `all`'s limits.
    #[error(
        "restitution under selection `all` runs on the GPU only where a step has fewer than 100 mode tuples and the twinned steps of its contacts with friction and e > 0 fit the GPU's `all` (at most {max_contacts} contacts with their twins, {max_tuples} mode tuples): use the CPU backend (which `auto` picks for it), or lemke / random-lemke",
        max_tuples = super::MAX_GPU_ALL_TUPLES,
        max_contacts = super::MAX_GPU_ALL_CONTACTS
    )]
    Restitution,
    /// Something the GPU backend does not do (yet).
    #[error("not supported on the GPU: {0}")]
    Unsupported(String),
    /// Device creation, shader compilation or validation failed, or the
    /// driver lost the device (its message names the reason).
    #[error("GPU device error: {0}")]
    Device(String),
    /// Reading results back failed.
    #[error("reading GPU results back failed: {0}")]
    Readback(String),
}
