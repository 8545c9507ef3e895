//! Where Algorithm 2 runs: the CPU reference on a thread pool, or the GPU.

use std::sync::Arc;

use super::RunError;
#[cfg(feature = "gpu")]
use crate::ImpactProblem;
#[cfg(feature = "gpu")]
use crate::gpu::{GpuContext, GpuRunOptions, MAX_GPU_ALL_CONTACTS, MAX_GPU_ALL_TUPLES, Precision};
#[cfg(feature = "gpu")]
use crate::impact::Selection;

/// A user's choice of backend, before it is resolved for a problem.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BackendChoice {
    /// The f64 CPU reference, on all cores (rayon). The default.
    #[default]
    Cpu,
    /// The WGSL compute shaders (wgpu).
    Gpu,
    /// A hardware GPU where it runs the selection rule on the problem and
    /// is faster there (`all`: at most [`AUTO_GPU_ALL_TUPLES`] mode tuples a
    /// step, [`crate::gpu::all_tuples`]), else the CPU.
    Auto,
}

crate::names::named_choices! { BackendChoice, UnknownBackend, "backend", [
    Cpu = "cpu": "the f64 CPU reference, on all cores",
    Gpu = "gpu": "the WGSL compute shaders (wgpu, Vulkan)",
    Auto = "auto": "a hardware GPU where it runs the rule on this problem faster (all: at most 64 mode tuples a step), else the CPU",
] }

/// `auto` runs `all` on the GPU for at most this many mode tuples a step.
/// The GPU tries every tuple of every step; the CPU's search prunes and
/// certifies, so its cost grows far slower with the tuples. Measured on an
/// NVIDIA H100 against the host's 16 cores (docs/performance.md, f64): the
/// GPU ahead at 49 tuples (two planar contacts, 1.5–2.4× at 2²⁰ samples),
/// behind at 81 (the cradle, 0.58×) and far behind from 1 225 on (0.40×;
/// 2 401: 0.24×; 16 807: 0.12×; 42 875: 0.003×). A GPU is faster still
/// where `--backend gpu` asks for it on a machine of few cores.
pub const AUTO_GPU_ALL_TUPLES: u64 = 64;

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
    /// problem, under `all` for at most [`AUTO_GPU_ALL_TUPLES`] mode tuples
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
        let m = problem.contacts().len();
        let all = selection.enumerates();
        match all.then(|| crate::gpu::check_all(problem)) {
            Some(Err(crate::gpu::GpuError::Restitution)) if choice == BackendChoice::Auto => {
                return Ok((Backend::cpu(threads)?, BackendReason::Restitution));
            }
            Some(Err(crate::gpu::GpuError::TooLargeForAll { m, tuples })) if choice == BackendChoice::Auto => {
                return Ok((Backend::cpu(threads)?, BackendReason::TooLargeForAll { m, tuples }));
            }
            Some(Err(e @ crate::gpu::GpuError::Restitution)) => return Err(OpenError::Run(RunError::Gpu(e))),
            _ => {}
        }
        let auto = choice == BackendChoice::Auto;
        let tuples = all.then(|| crate::gpu::all_tuples(problem.operators()));
        if let Some(tuples) = tuples.filter(|&t| auto && t > AUTO_GPU_ALL_TUPLES) {
            return Ok((Backend::cpu(threads)?, BackendReason::AllFasterOnCpu { m, tuples }));
        }
        let context = match gpu() {
            Ok(context) => context,
            Err(e) if auto => return Ok((Backend::cpu(threads)?, BackendReason::NoGpu(e))),
            Err(e) => return Err(OpenError::Run(RunError::Gpu(e))),
        };
        if auto && context.is_software() {
            return Ok((Backend::cpu(threads)?, BackendReason::SoftwareAdapter { adapter: context.describe() }));
        }
        let reason = match choice {
            BackendChoice::Auto => BackendReason::AutoFoundGpu { all_tuples: tuples.map(|t| (m, t)) },
            _ => BackendReason::Asked(choice),
        };
        Ok((Backend::gpu(context, precision), reason))
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

/// Why [`Backend::open`] chose the backend it did. Front ends say it in
/// their own words with [`BackendReason::describe`].
#[derive(Clone, Debug)]
pub enum BackendReason {
    /// The backend asked for (`cpu` or `gpu`).
    Asked(BackendChoice),
    /// `auto` found a hardware GPU adapter (and, under `all`, the problem
    /// has at most [`AUTO_GPU_ALL_TUPLES`] mode tuples a step).
    #[cfg(feature = "gpu")]
    AutoFoundGpu {
        /// The contacts and the mode tuples of a step, when the rule is `all`.
        all_tuples: Option<(usize, u64)>,
    },
    /// `auto` runs on the CPU: `all` runs on the GPU for at most
    /// [`MAX_GPU_ALL_TUPLES`] mode tuples a step on at most
    /// [`MAX_GPU_ALL_CONTACTS`] contacts.
    #[cfg(feature = "gpu")]
    TooLargeForAll {
        /// The problem's contacts.
        m: usize,
        /// Its mode tuples a step ([`crate::gpu::all_tuples`]).
        tuples: u64,
    },
    /// `auto` runs on the CPU: under `all` the problem has more than
    /// [`AUTO_GPU_ALL_TUPLES`] mode tuples a step, which the CPU's pruned
    /// search runs faster than the GPU's every-tuple enumeration (`gpu`
    /// runs it on the GPU up to [`MAX_GPU_ALL_TUPLES`]).
    #[cfg(feature = "gpu")]
    AllFasterOnCpu {
        /// The problem's contacts.
        m: usize,
        /// Its mode tuples a step ([`crate::gpu::all_tuples`]).
        tuples: u64,
    },
    /// `auto` runs on the CPU: the only adapter is a software one (Mesa's
    /// lavapipe), which runs the shaders on the CPU's own cores, slower
    /// than the CPU backend (`gpu` runs on it).
    #[cfg(feature = "gpu")]
    SoftwareAdapter {
        /// The adapter, as [`crate::gpu::GpuContext::describe`] names it.
        adapter: String,
    },
    /// `auto` runs on the CPU: the problem has restitution and the rule is
    /// `all`, which the GPU shaders model for frictionless expansions on
    /// problems of fewer than 100 mode tuples a step only (the Lemke rules
    /// run any restitution on the GPU).
    #[cfg(feature = "gpu")]
    Restitution,
    /// `auto` runs on the CPU: no GPU adapter could be opened.
    #[cfg(feature = "gpu")]
    NoGpu(crate::gpu::GpuError),
}

impl BackendReason {
    /// The reason in words, with each option spelled by `option(name,
    /// value)` as the front end spells it: `--backend cpu` on the command
    /// line, `backend='cpu'` in Python.
    pub fn describe(&self, option: &dyn Fn(&str, &str) -> String) -> String {
        match self {
            BackendReason::Asked(choice) => option("backend", choice.name()),
            #[cfg(feature = "gpu")]
            BackendReason::AutoFoundGpu { all_tuples: Some((m, tuples)) } => format!(
                "{}: a GPU adapter, and {m} contacts with {tuples} ≤ {AUTO_GPU_ALL_TUPLES} mode tuples a step for {}",
                option("backend", "auto"),
                option("selection", "all")
            ),
            #[cfg(feature = "gpu")]
            BackendReason::AutoFoundGpu { all_tuples: None } => {
                format!("{}: a GPU adapter", option("backend", "auto"))
            }
            #[cfg(feature = "gpu")]
            BackendReason::TooLargeForAll { m, tuples } => {
                format!(
                    "{} runs on the GPU for at most {MAX_GPU_ALL_TUPLES} mode tuples a step on at most {MAX_GPU_ALL_CONTACTS} contacts; this problem has {m} contacts, {tuples} tuples",
                    option("selection", "all")
                )
            }
            #[cfg(feature = "gpu")]
            BackendReason::AllFasterOnCpu { m, tuples } => format!(
                "{}: {} on {m} contacts with {tuples} > {AUTO_GPU_ALL_TUPLES} mode tuples a step runs faster on the CPU, whose search prunes where the GPU tries every tuple ({} runs it on the GPU)",
                option("backend", "auto"),
                option("selection", "all"),
                option("backend", "gpu")
            ),
            #[cfg(feature = "gpu")]
            BackendReason::SoftwareAdapter { adapter } => format!(
                "{}: the only GPU adapter, {adapter}, is software on the CPU's own cores, slower than the CPU backend ({} runs on it)",
                option("backend", "auto"),
                option("backend", "gpu")
            ),
            #[cfg(feature = "gpu")]
            BackendReason::Restitution => {
                format!(
                    "restitution under {} runs on the CPU: the GPU shaders model it there only where a step has fewer than 100 mode tuples and the twinned steps of the contacts with friction and e > 0 fit the GPU's limits (and under lemke and random-lemke)",
                    option("selection", "all")
                )
            }
            #[cfg(feature = "gpu")]
            BackendReason::NoGpu(e) => format!("no GPU ({e})"),
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
