//! `--backend auto`'s rule: a pure function of the adapter found and the
//! problem, so that the choice is tested without hardware.

use super::choice::{AUTO_GPU_ALL_TUPLES, BackendReason};
use crate::ImpactProblem;
use crate::gpu::{GpuContext, GpuError};
use crate::impact::Selection;

/// What `auto` found when it opened an adapter.
#[derive(Clone, Debug, PartialEq)]
pub enum AdapterKind {
    /// A GPU (discrete, integrated or virtual), named as
    /// [`GpuContext::describe`](crate::gpu::GpuContext::describe) names it.
    Hardware(String),
    /// A software adapter on the CPU's own cores (Mesa's lavapipe), named.
    Software(String),
    /// No adapter could be opened, and why.
    Unavailable(GpuError),
}

impl From<&GpuContext> for AdapterKind {
    /// The opened adapter: software (lavapipe) or hardware.
    fn from(context: &GpuContext) -> Self {
        match context.is_software() {
            true => AdapterKind::Software(context.describe()),
            false => AdapterKind::Hardware(context.describe()),
        }
    }
}

/// Where `auto` runs a problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoTarget {
    /// The CPU backend.
    Cpu,
    /// The GPU backend on the adapter found.
    Gpu,
}

/// The problem's side of `auto`'s rule, before any adapter is opened:
/// `Some` (the CPU, and why) when the GPU cannot run `selection` on
/// `problem` or runs it slower than the CPU on any adapter — under `all`,
/// restitution the shaders do not model there, more mode tuples a step than
/// the GPU holds, or more than [`AUTO_GPU_ALL_TUPLES`] — else `None`. The
/// Lemke rules run every problem on the GPU.
pub fn cpu_for_problem(problem: &ImpactProblem, selection: Selection) -> Option<BackendReason> {
    if !selection.enumerates() {
        return None;
    }
    match crate::gpu::check_all(problem) {
        Err(GpuError::Restitution) => return Some(BackendReason::Restitution),
        Err(GpuError::TooLargeForAll { m, tuples }) => return Some(BackendReason::TooLargeForAll { m, tuples }),
        _ => {}
    }
    let tuples = crate::gpu::all_tuples(problem.operators());
    (tuples > AUTO_GPU_ALL_TUPLES).then(|| BackendReason::AllFasterOnCpu { m: problem.contacts().len(), tuples })
}

/// `auto`'s choice for `selection` on `problem` with the adapter found, and
/// why: the CPU for the problems of [`cpu_for_problem`], where no adapter
/// opened, and on a software adapter (it runs the shaders on the cores the
/// CPU backend would use, far slower); else the GPU. On a hardware GPU the
/// Lemke rules run every sample in parallel, with the Lemke tableau of the
/// problem's size class (robot problems included: a quadruped's or a
/// humanoid's feet), and `all` where its every-tuple enumeration is the
/// faster (at most [`AUTO_GPU_ALL_TUPLES`] mode tuples a step).
pub fn auto_decision(
    adapter: &AdapterKind,
    problem: &ImpactProblem,
    selection: Selection,
) -> (AutoTarget, BackendReason) {
    if let Some(reason) = cpu_for_problem(problem, selection) {
        return (AutoTarget::Cpu, reason);
    }
    match adapter {
        AdapterKind::Unavailable(e) => (AutoTarget::Cpu, BackendReason::NoGpu(e.clone())),
        AdapterKind::Software(adapter) => {
            (AutoTarget::Cpu, BackendReason::SoftwareAdapter { adapter: adapter.clone() })
        }
        AdapterKind::Hardware(adapter) => {
            let ops = problem.operators();
            let all_tuples = selection.enumerates().then(|| (problem.contacts().len(), crate::gpu::all_tuples(ops)));
            let reason = BackendReason::AutoFoundGpu {
                adapter: adapter.clone(),
                selection,
                contacts: problem.contacts().len(),
                step_rows: ops.step_size_n(),
                all_tuples,
            };
            (AutoTarget::Gpu, reason)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene;
    use std::path::Path;

    fn humanoid() -> ImpactProblem {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/humanoid-feet-flat.json");
        crate::io::load_problem(&path).expect("the humanoid's problem file").problem
    }

    const H200: &str = "NVIDIA H200 (NVIDIA, Vulkan)";

    /// The Lemke rules go to a hardware GPU on every problem, the robots'
    /// included, and the reason names the adapter, the rule and the size.
    #[test]
    fn lemke_rules_on_robots_take_a_hardware_gpu_and_say_why() {
        let gpu = AdapterKind::Hardware(H200.into());
        let problems = [("cube-flat", scene::builtin("cube-flat").unwrap().problem), ("humanoid", humanoid())];
        for (name, problem) in &problems {
            for selection in [Selection::Lemke, Selection::RandomLemke] {
                let (target, reason) = auto_decision(&gpu, problem, selection);
                assert_eq!(target, AutoTarget::Gpu, "{name} {selection}: {reason:?}");
                let text = reason.describe(&|k, v| format!("--{k} {v}"));
                let rows = problem.operators().step_size_n();
                let m = problem.contacts().len();
                for part in
                    [H200, &format!("--selection {selection}"), &format!("{m} contacts"), &format!("{rows} rows")]
                {
                    assert!(text.contains(part), "{name} {selection}: {part:?} missing from {text:?}");
                }
            }
        }
        // The humanoid's eight spatial contacts: a step LCP of 88 rows.
        assert_eq!(humanoid().operators().step_size_n(), 88);
    }

    /// A software adapter and a missing one leave every problem on the CPU.
    #[test]
    fn software_or_no_adapter_means_the_cpu() {
        let problem = humanoid();
        let lavapipe = AdapterKind::Software("llvmpipe (LLVM 15, 256 bits) (llvmpipe, Vulkan)".into());
        let (target, reason) = auto_decision(&lavapipe, &problem, Selection::RandomLemke);
        assert_eq!(target, AutoTarget::Cpu);
        let text = reason.describe(&|k, v| format!("--{k} {v}"));
        assert!(text.contains("llvmpipe") && text.contains("software"), "{text}");
        let none = AdapterKind::Unavailable(GpuError::NoAdapter);
        let (target, reason) = auto_decision(&none, &problem, Selection::Lemke);
        assert!(target == AutoTarget::Cpu && matches!(reason, BackendReason::NoGpu(GpuError::NoAdapter)));
    }

    /// `all` keeps its GPU limits whatever the adapter: the problem decides
    /// first, and only what it leaves to the GPU goes there.
    #[test]
    fn all_keeps_its_gpu_limits() {
        let gpu = AdapterKind::Hardware(H200.into());
        let cases = [
            ("compass-gait", AutoTarget::Gpu),
            ("disk-stack", AutoTarget::Cpu),
            ("cradle", AutoTarget::Cpu),
            ("cube-flat", AutoTarget::Cpu),
        ];
        for (id, expected) in cases {
            let problem = scene::builtin(id).unwrap().problem;
            let tuples = crate::gpu::all_tuples(problem.operators());
            assert_eq!(expected == AutoTarget::Gpu, tuples <= AUTO_GPU_ALL_TUPLES, "{id}: {tuples} tuples");
            let (target, reason) = auto_decision(&gpu, &problem, Selection::All);
            assert_eq!(target, expected, "{id}: {reason:?}");
            assert_eq!(cpu_for_problem(&problem, Selection::All).is_none(), expected == AutoTarget::Gpu, "{id}");
            if expected == AutoTarget::Gpu {
                let text = reason.describe(&|k, v| format!("--{k} {v}"));
                assert!(text.contains(&format!("{tuples} ≤ {AUTO_GPU_ALL_TUPLES}")), "{text}");
            }
        }
        // Beyond the GPU's own limit: the tuples are named.
        let cube = scene::builtin("cube-flat").unwrap().problem;
        let (_, reason) = auto_decision(&gpu, &cube, Selection::All);
        assert!(matches!(reason, BackendReason::TooLargeForAll { m: 4, .. }), "{reason:?}");
    }
}
