//! A user's choice of backend ([`BackendChoice`]) and why a run went where
//! it did ([`BackendReason`]): what `--backend` says and what the run
//! summary reports, below both the backends and `auto`'s rule.

#[cfg(feature = "gpu")]
use crate::gpu::{MAX_GPU_ALL_CONTACTS, MAX_GPU_ALL_TUPLES};
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
    /// step, `gpu::all_tuples`), else the CPU.
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

/// Why `Backend::open` (feature `gpu`) chose the backend it did. Front ends say it in
/// their own words with [`BackendReason::describe`].
#[derive(Clone, Debug)]
pub enum BackendReason {
    /// The backend asked for (`cpu` or `gpu`).
    Asked(BackendChoice),
    /// `auto` found a hardware GPU adapter, which runs the rule on the
    /// problem (under `all`, of at most [`AUTO_GPU_ALL_TUPLES`] mode tuples
    /// a step; [`super::auto_decision`]).
    #[cfg(feature = "gpu")]
    AutoFoundGpu {
        /// The adapter, as [`crate::gpu::GpuContext::describe`] names it.
        adapter: String,
        /// The selection rule.
        selection: Selection,
        /// The problem's contacts.
        contacts: usize,
        /// Rows of its step LCP (the Lemke tableau's height).
        step_rows: usize,
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
            BackendReason::AutoFoundGpu { adapter, all_tuples: Some((m, tuples)), .. } => format!(
                "{}: a hardware GPU adapter, {adapter}, and {m} contacts with {tuples} ≤ {AUTO_GPU_ALL_TUPLES} mode tuples a step for {}",
                option("backend", "auto"),
                option("selection", "all")
            ),
            #[cfg(feature = "gpu")]
            BackendReason::AutoFoundGpu { adapter, selection, contacts, step_rows, all_tuples: None } => format!(
                "{}: a hardware GPU adapter, {adapter}, runs {} on this problem's {contacts} contacts \
                 (a step LCP of {step_rows} rows) with every sample in parallel ({} keeps it on the CPU)",
                option("backend", "auto"),
                option("selection", selection.name()),
                option("backend", "cpu")
            ),
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
