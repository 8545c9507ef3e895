//! The GPU backend (wgpu, WGSL compute): Algorithm 1 with one sample per
//! invocation, the same Lemke tableau and pivot rule as [`crate::lcp`], and
//! the ChaCha8 streams of [`crate::sampling::stream`], so a sample's words —
//! and, in double precision, its outcome up to round-off — do not depend on
//! the backend.
//!
//! * [`GpuContext`]: adapter, device, queue and pipelines, built once.
//! * [`sample_set_gpu`]: Algorithm 2 on the GPU, in batches.
//! * [`chacha_words_gpu`], [`schedule_caps_gpu`], [`solve_lcps_gpu`]: the
//!   building blocks alone, for parity tests.
//!
//! The selection rules `lemke` and `random-lemke` run for any problem the
//! shaders hold, with restitution too (`shaders/restitution.wgsl`); `all`
//! for problems of at most [`MAX_GPU_ALL_TUPLES`] mode tuples a step on at
//! most [`MAX_GPU_ALL_CONTACTS`] contacts ([`all_tuples`]; every mode tuple
//! of a step is tried, `shaders/enumerate.wgsl`), with restitution where
//! no contact with `e > 0` has friction and a step has fewer than 100 mode
//! tuples.
//!
//! Shaders live in `shaders/` (types, chacha, schedule, lemke, enumerate,
//! restitution, routh, tests).

mod columns;
mod context;
mod coop;
mod enumerate;
mod error;
mod kernels;
mod layout;
mod options;
mod plan;
mod plan_setup;
mod precision;
mod readback;
mod rerun;
mod sampler;
mod shaders;
mod state;
mod types;

#[doc(hidden)]
pub use columns::columns_from_outputs;
pub use context::GpuContext;
pub use coop::{COOP_MIN_LCP_SIZE, COOP_THREADS, LemkeKernel};
pub use enumerate::all_tuples;
pub(crate) use enumerate::check_all;
pub use error::GpuError;
pub use kernels::{
    CapQuery, GpuLcp, GpuLcpSolution, chacha_words_gpu, schedule_caps_gpu, solve_lcps_gpu, solve_lcps_gpu_with,
};
pub use layout::TableauLayout;
pub use options::{DEFAULT_BATCH, DEFAULT_GPU_BATCH, GpuRunOptions, MAX_F32_PIVOT_TOLERANCE, MAX_GPU_STEPS};
pub use plan::GpuPlan;
pub use precision::{
    F32_TERMINATION_FLOOR, F32_TIE_TOLERANCE, F32_WORK_TOL, Precision, UnknownPrecision, pivot_tolerance,
    relative_pivot_tolerance, tie_tolerance,
};
pub use sampler::{sample_set_gpu, sample_set_gpu_with};
pub(crate) use state::StateBlock;
pub use types::{
    BASE_LCP_SIZE, BASE_VELOCITIES, MAX_GPU_ALL_CONTACTS, MAX_GPU_ALL_LCP_SIZE, MAX_GPU_ALL_SOLUTIONS,
    MAX_GPU_ALL_TUPLES,
};
