//! The scalar type of a GPU run and what depends on it: tolerances scaled
//! to its round-off and the conversion of host `f64` data to the shader's
//! bytes. The sampler and the single-solve kernels both take them from here.

use crate::SamplerOptions;
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

crate::names::named_choices! { Precision, UnknownPrecision, "precision", [
    F32 = "f32": "single precision: every GPU has it; agreement with the CPU to about 1e-3",
    F64 = "f64": "double precision (needs SHADER_F64): agreement with the CPU to round-off",
] }

impl Precision {
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

    /// The run's options as the shaders run the model in this precision:
    /// f64 as given; f32 with the termination tolerance at least
    /// [`F32_TERMINATION_FLOOR`] and restitution's works' slack
    /// ([`SamplerOptions::work_tol`], which also bounds the energy guard)
    /// at least [`F32_WORK_TOL`], above the round-off of an f32 energy, so
    /// that a step conserving energy (`e = 1`) does not fire the guard on
    /// round-off alone and a contact's account can be settled in f32.
    /// The CPU run of these options is what an f32 GPU run can agree with
    /// beyond its arithmetic: the floors alone move some samples of a scene
    /// (docs/gpu.md). (The f32 residual tolerance's floor, which depends on
    /// the step matrix, decides acceptance only and is left out.)
    pub fn model_options(self, options: &SamplerOptions) -> SamplerOptions {
        match self {
            Precision::F64 => options.clone(),
            Precision::F32 => SamplerOptions {
                termination_tol: options.termination_tol.max(F32_TERMINATION_FLOOR),
                work_tol: options.work_tol.max(F32_WORK_TOL),
                ..options.clone()
            },
        }
    }
}

/// Single-precision floor of the termination tolerance (relative to the
/// velocity scale): `256 · ε_f32 ≈ 3.1e-5`. Round-off in `J v` is of order
/// `ε_f32 · s`, so the f64 default `1e-9` could never be met.
pub const F32_TERMINATION_FLOOR: f64 = 256.0 * f32::EPSILON as f64;

/// The f32 slack of restitution's works and energy guard, relative to `E⁻`:
/// `1e-6 ≈ 8 ε_f32` ([`Precision::model_options`]). Measured on lavapipe
/// (tests/gpu_restitution.rs, 256 samples per case): at `1e-7` the rocking
/// block with `e = 1` agreed with the CPU within 1e-3 on 97.7 % of samples
/// (round-off kept contacts expanding), at `1e-5` the cradle on 82 %, at
/// `1e-6` every case but the cradle on 100 % and the cradle on 86–89 %.
pub const F32_WORK_TOL: f64 = 1e-6;

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

/// The relative pivot tolerance of an f32 run on the equilibrated step LCP
/// ([`GpuRunOptions::equilibrate`](super::GpuRunOptions::equilibrate)):
/// `N · ε_f32`. An entry `a_ie` of the entering column is a pivot when
/// `a_ie > N · ε_f32 · bound_i`, where `bound_i` bounds the magnitude of the
/// terms summed into row `i` of the tableau (`max(1, |a_ij|, d_i)` of the
/// equilibrated row at the start, then at each pivot on `(r, e)`
/// `max(bound_i, |t_ie| · bound_r / |t_re|)`; `shaders/lemke.wgsl`,
/// `row_bound`), so that round-off, a few `ε_f32 · bound_i`, is not taken
/// for a pivot while small but genuine entries are.
///
/// An absolute tolerance scaled by `‖A‖∞` cannot do both: RAMone's friction
/// cone rows `μ λn − Σ λD` (μ = 1e5) keep entries `1/μ` of their row's
/// largest even after equilibration (positive scaling cannot balance `μ`
/// against 1 in the same row and also `W_nn` against `W_nD` in the normal
/// rows), and the friction cone row of the resting foot decides the Lemke path
/// with entries of 1e-4 (the equilibrated `100 · N · ‖A‖∞ · ε_f32` is
/// 4.8e-4). The factor 1 of `N · ε_f32` is the one that kept every built-in
/// scene and rule at ≥ 99 % agreement with the CPU on lavapipe: smaller lets
/// round-off through, larger swallows real pivots (docs/gpu-lavapipe.md,
/// "Why RAMone needed a relative pivot tolerance", has the measurements).
pub fn relative_pivot_tolerance(n: usize) -> f64 {
    n as f64 * f32::EPSILON as f64
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
