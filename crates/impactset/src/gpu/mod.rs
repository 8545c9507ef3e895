//! The GPU backend (wgpu, WGSL compute): Algorithm 1 with one sample per
//! invocation, the same Lemke tableau and pivot rule as [`crate::lcp`], and
//! the ChaCha8 streams of [`crate::sampling::stream`], so a sample's words —
//! and, in double precision, its outcome up to round-off — do not depend on
//! the backend.
//!
//! * [`GpuContext`]: adapter, device, queue and pipelines, built once.
//! * [`sample_set_gpu`]: Algorithm 2 on the GPU, in batches.
//! * [`chacha_words_gpu`], [`solve_lcps_gpu`]: the building blocks alone, for
//!   parity tests.
//!
//! The selection rules `lemke` and `random-lemke` run for any problem the
//! shaders hold; `all` for at most [`MAX_GPU_ALL_CONTACTS`] contacts (every
//! mode tuple of a step is tried, `shaders/enumerate.wgsl`).
//!
//! Shaders live in `shaders/` (types, chacha, lemke, enumerate, routh, tests).

mod context;
mod enumerate;
mod error;
mod kernels;
mod sampler;
mod shaders;
mod types;

pub use context::GpuContext;
pub use enumerate::{MAX_GPU_ALL_CONTACTS, MAX_GPU_ALL_SOLUTIONS};
pub use error::GpuError;
pub use kernels::{
    F32_TIE_TOLERANCE, GpuLcp, GpuLcpSolution, chacha_words_gpu, pivot_tolerance, solve_lcps_gpu, tie_tolerance,
};
pub use sampler::{
    DEFAULT_BATCH, F32_TERMINATION_FLOOR, GpuPlan, GpuRunOptions, MAX_F32_PIVOT_TOLERANCE, MAX_GPU_STEPS,
    TableauLayout, sample_set_gpu, sample_set_gpu_with,
};
pub use types::{MAX_LCP_SIZE, MAX_VELOCITIES};

/// Floating-point precision of a GPU run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// Single precision: every GPU has it; agreement with the CPU to about 1e-3.
    F32,
    /// Double precision (needs `SHADER_F64`): agreement with the CPU to round-off.
    #[default]
    F64,
}

impl Precision {
    /// Both precisions.
    pub const ALL: [Precision; 2] = [Precision::F32, Precision::F64];

    /// One line on what the precision gives (for help texts).
    pub fn summary(self) -> &'static str {
        match self {
            Precision::F32 => "single precision: every GPU has it; agreement with the CPU to about 1e-3",
            Precision::F64 => "double precision (needs SHADER_F64): agreement with the CPU to round-off",
        }
    }

    /// `"f32"` or `"f64"`.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        }
    }

    /// The unit round-off of the scalar type.
    pub fn epsilon(self) -> f64 {
        match self {
            Precision::F32 => f32::EPSILON as f64,
            Precision::F64 => f64::EPSILON,
        }
    }

    /// Bytes per scalar.
    pub fn bytes(self) -> usize {
        match self {
            Precision::F32 => 4,
            Precision::F64 => 8,
        }
    }

    pub(crate) fn slot(self) -> usize {
        match self {
            Precision::F32 => 0,
            Precision::F64 => 1,
        }
    }
}

/// A precision name other than `f32` and `f64`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown precision {0:?}: expected f32 or f64")]
pub struct UnknownPrecision(pub String);

impl std::str::FromStr for Precision {
    type Err = UnknownPrecision;

    /// Parses `f32` or `f64`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Precision::ALL.into_iter().find(|p| p.name() == s).ok_or_else(|| UnknownPrecision(s.to_string()))
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
