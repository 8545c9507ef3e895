//! Where Algorithm 2 runs: the CPU reference on a thread pool, or the GPU.

use std::sync::Arc;

use super::RunError;
#[cfg(feature = "gpu")]
use super::auto::{AdapterKind, AutoTarget};
#[cfg(feature = "gpu")]
use super::choice::{BackendChoice, BackendReason};
#[cfg(feature = "gpu")]
use crate::ImpactProblem;
#[cfg(feature = "gpu")]
use crate::gpu::{GpuContext, GpuRunOptions, Precision};
#[cfg(feature = "gpu")]
use crate::impact::Selection;

/// Where samples are computed, opened once and used for any number of runs.
#[derive(Clone)]
pub enum Backend {
    /// The f64 CPU reference on a rayon pool: its own pool of `threads`
    /// workers, or (`None`) the global pool over all cores.
    Cpu {
        /// Worker threads (`None`: all cores).
        threads: Option<usize>,
        /// The pool (`None`: rayon's global pool).
        pool: Option<Arc<rayon::ThreadPool>>,
    },
    /// The GPU in `precision`, with how runs are split into dispatches.
    #[cfg(feature = "gpu")]
    Gpu {
        /// Device, queue and pipelines.
        context: Arc<GpuContext>,
        /// Scalar type of the shaders.
        precision: Precision,
        /// Batching and layout (results do not depend on them).
        options: GpuRunOptions,
    },
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Backend({}, {}, {} threads)", self.name(), self.precision_name(), self.threads())
    }
}

impl Backend {
    /// The CPU backend with `threads` workers (`None`: all cores).
    ///
    /// Errors: [`RunError::ThreadPool`] for 0 threads or when the system
    /// cannot start them.
    pub fn cpu(threads: Option<usize>) -> Result<Backend, RunError> {
        if threads == Some(0) {
            return Err(RunError::ThreadPool { threads: 0, reason: "at least one is needed".into() });
        }
        let pool = match threads {
            None => None,
            Some(t) => Some(Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build()
                    .map_err(|e| RunError::ThreadPool { threads: t, reason: e.to_string() })?,
            )),
        };
        Ok(Backend::Cpu { threads, pool })
    }

    /// The GPU backend on `context` in `precision` (`None`: f64 where the
    /// adapter has it, else f32), with the default batching.
    #[cfg(feature = "gpu")]
    pub fn gpu(context: Arc<GpuContext>, precision: Option<Precision>) -> Backend {
        let precision = precision.unwrap_or(context.default_precision());
        Backend::Gpu { context, precision, options: GpuRunOptions::default() }
    }

    /// Resolves `choice` for `problem` and `selection`: the backend and why it
    /// was chosen (for run summaries). `auto` takes the GPU when a hardware
    /// adapter exists (not a software one such as Mesa's lavapipe, which
    /// runs on the CPU's own cores) and the GPU runs `selection` on this
    /// problem, under `all` for at most [`AUTO_GPU_ALL_TUPLES`](super::AUTO_GPU_ALL_TUPLES) mode tuples
    /// a step; else the CPU. `precision` applies to the GPU (`None`:
    /// [`GpuContext::default_precision`]); the CPU runs f64 only, so asking it
    /// for f32 is an error.
    #[cfg(feature = "gpu")]
    pub fn open(
        choice: BackendChoice,
        precision: Option<Precision>,
        problem: &ImpactProblem,
        selection: Selection,
        threads: Option<usize>,
    ) -> Result<(Backend, BackendReason), OpenError> {
        Backend::open_with(choice, precision, problem, selection, threads, || GpuContext::new().map(Arc::new))
    }

    /// [`Backend::open`] with the GPU context from `gpu`, called only when
    /// the choice needs one (a front end that keeps one context for its
    /// process passes it here).
    #[cfg(feature = "gpu")]
    pub fn open_with(
        choice: BackendChoice,
        precision: Option<Precision>,
        problem: &ImpactProblem,
        selection: Selection,
        threads: Option<usize>,
        gpu: impl FnOnce() -> Result<Arc<GpuContext>, crate::gpu::GpuError>,
    ) -> Result<(Backend, BackendReason), OpenError> {
        if choice == BackendChoice::Cpu {
            if precision == Some(Precision::F32) {
                return Err(OpenError::CpuIsF64);
            }
            return Ok((Backend::cpu(threads)?, BackendReason::Asked(choice)));
        }
        if choice == BackendChoice::Gpu {
            if selection.enumerates()
                && let Err(e @ crate::gpu::GpuError::Restitution) = crate::gpu::check_all(problem)
            {
                return Err(OpenError::Run(RunError::Gpu(e)));
            }
            let context = gpu().map_err(|e| OpenError::Run(RunError::Gpu(e)))?;
            return Ok((Backend::gpu(context, precision), BackendReason::Asked(choice)));
        }
        // `auto`: the problem decides first, without opening an adapter.
        if let Some(reason) = super::auto::cpu_for_problem(problem, selection) {
            return Ok((Backend::cpu(threads)?, reason));
        }
        let (context, adapter) = match gpu() {
            Ok(context) => {
                let kind = AdapterKind::from(&*context);
                (Some(context), kind)
            }
            Err(e) => (None, AdapterKind::Unavailable(e)),
        };
        match (super::auto::auto_decision(&adapter, problem, selection), context) {
            ((AutoTarget::Gpu, reason), Some(context)) => Ok((Backend::gpu(context, precision), reason)),
            ((_, reason), _) => Ok((Backend::cpu(threads)?, reason)),
        }
    }

    /// `cpu`, or `gpu (<adapter>)`.
    pub fn name(&self) -> String {
        match self {
            Backend::Cpu { .. } => "cpu".into(),
            #[cfg(feature = "gpu")]
            Backend::Gpu { context, .. } => format!("gpu ({})", context.describe()),
        }
    }

    /// Whether this is the CPU backend.
    pub fn is_cpu(&self) -> bool {
        matches!(self, Backend::Cpu { .. })
    }

    /// `f64` on the CPU, the GPU's precision otherwise.
    pub fn precision_name(&self) -> &'static str {
        match self {
            Backend::Cpu { .. } => "f64",
            #[cfg(feature = "gpu")]
            Backend::Gpu { precision, .. } => precision.name(),
        }
    }

    /// CPU worker threads (0 for the GPU).
    pub fn threads(&self) -> usize {
        match self {
            Backend::Cpu { threads, .. } => threads.unwrap_or_else(rayon::current_num_threads),
            #[cfg(feature = "gpu")]
            Backend::Gpu { .. } => 0,
        }
    }
}

/// Why [`Backend::open`] could not open a backend.
#[cfg(feature = "gpu")]
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// `f32` was asked of the CPU backend.
    #[error("precision f32: the CPU backend runs in f64 only (the GPU backend runs f32)")]
    CpuIsF64,
    /// The backend could not start.
    #[error(transparent)]
    Run(#[from] RunError),
}

#[cfg(all(test, feature = "gpu"))]
mod tests {
    use super::*;
    use crate::gpu::GpuError;
    use crate::run::AUTO_GPU_ALL_TUPLES;

    /// `auto` under `all` decides by the mode tuples before it opens an
    /// adapter: above [`AUTO_GPU_ALL_TUPLES`] the CPU without asking for
    /// one, at or below it the GPU when one opens (here none does).
    #[test]
    fn auto_runs_all_of_many_tuples_on_the_cpu_without_opening_a_gpu() {
        let open = |id: &str, selection| {
            let problem = crate::scene::builtin(id).expect("a built-in scene").problem;
            Backend::open_with(BackendChoice::Auto, None, &problem, selection, Some(1), || Err(GpuError::NoAdapter))
                .map(|(backend, reason)| (backend.is_cpu(), reason))
                .expect("a backend")
        };
        // The disk stack's five planar contacts: 7⁵ tuples.
        let (cpu, reason) = open("disk-stack", Selection::All);
        assert!(cpu && matches!(reason, BackendReason::AllFasterOnCpu { m: 5, tuples: 16_807 }), "{reason:?}");
        let text = reason.describe(&|name, value| format!("--{name} {value}"));
        assert!(text.contains("16807 > 64") && text.contains("--backend gpu"), "{text}");
        // Two planar contacts, 7² = 49: the GPU is asked for.
        let (cpu, reason) = open("compass-gait", Selection::All);
        assert!(cpu && matches!(reason, BackendReason::NoGpu(GpuError::NoAdapter)), "{reason:?}");
        // The help text names the bound.
        assert!(BackendChoice::Auto.summary().contains(&format!("at most {AUTO_GPU_ALL_TUPLES} mode tuples")));
        // The Lemke rules do not count tuples.
        let (_, reason) = open("disk-stack", Selection::RandomLemke);
        assert!(matches!(reason, BackendReason::NoGpu(GpuError::NoAdapter)), "{reason:?}");
    }
}
