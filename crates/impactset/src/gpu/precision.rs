//! The scalar type of a GPU run and what depends on it: tolerances scaled
//! to its round-off and the conversion of host `f64` data to the shader's
//! bytes. The sampler and the single-solve kernels both take them from here.

use crate::lcp::{DEFAULT_TIE_TOLERANCE, norms};

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

/// The Lemke pivot tolerance of `A` in `precision`: f64 the CPU's default
/// `10 · N · max(1, ‖A‖∞) · ε_f64` ([`crate::lcp::LemkeOptions`]); f32
/// `100 · N · max(1, ‖A‖∞) · ε_f32` (measured: fewer f32 failures than
/// `10 · N`, far fewer than `10`).
pub fn pivot_tolerance(a: &[f64], n: usize, precision: Precision) -> f64 {
    match precision {
        Precision::F64 => norms::pivot_tolerance(a, n, 10.0, f64::EPSILON),
        Precision::F32 => norms::pivot_tolerance(a, n, 100.0, f32::EPSILON as f64),
    }
}

/// The f32 tie tolerance of [`tie_tolerance`]: `1e-5 ≈ 84 ε_f32`.
///
/// Measured on lavapipe (tests/gpu_lemke.rs, tests/gpu_parity.rs): at `1e-6`
/// to `4e-6` a few random step LCPs (N = 22, covers down to 0.01) end the
/// f32 Lemke path on a spurious ray, round-off having broken a degenerate
/// tie the wrong way; at `1e-4` and `1e-3` ratios that differ genuinely tie
/// (spatial lemke agreement with the CPU 98.0% and 59.2% within 1e-3); at
/// `1e-5` every test LCP solves and every parity case is ≥ 99.8% within 1e-3.
pub const F32_TIE_TOLERANCE: f64 = 1e-5;

/// The Lemke tie tolerance in `precision` (ratios tie when
/// `|x − y| ≤ tie · max(1, |x|, |y|)`, [`crate::lcp::LemkeOptions::tie_tolerance`]): f64
/// the CPU's [`DEFAULT_TIE_TOLERANCE`]; f32 [`F32_TIE_TOLERANCE`], scaled to
/// single-precision round-off.
pub fn tie_tolerance(precision: Precision) -> f64 {
    match precision {
        Precision::F64 => DEFAULT_TIE_TOLERANCE,
        Precision::F32 => F32_TIE_TOLERANCE,
    }
}

/// Scalars as the shader's scalar type, little-endian bytes.
pub(crate) fn to_bytes(x: &[f64], precision: Precision) -> Vec<u8> {
    match precision {
        Precision::F32 => x.iter().flat_map(|&v| (v as f32).to_le_bytes()).collect(),
        Precision::F64 => x.iter().flat_map(|&v| v.to_le_bytes()).collect(),
    }
}

/// The inverse of [`to_bytes`].
pub(crate) fn from_bytes(bytes: &[u8], precision: Precision) -> Vec<f64> {
    match precision {
        Precision::F32 => bytemuck::pod_collect_to_vec::<u8, f32>(bytes).into_iter().map(f64::from).collect(),
        Precision::F64 => bytemuck::pod_collect_to_vec(bytes),
    }
}
