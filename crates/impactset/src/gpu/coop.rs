//! Which Lemke kernel a plan runs: one invocation per sample
//! (`shaders/routh.wgsl`) or one workgroup per sample
//! (`shaders/routh_coop.wgsl`, `shaders/lemke_coop.wgsl`), chosen by one
//! rule on the step LCP's size ([`LemkeKernel::for_problem`]).

use super::GpuError;
use super::types::{BASE_LCP_SIZE, ModuleSizes};

/// Invocations per workgroup of the cooperative kernel (`COOP_THREADS` in
/// `shaders/lemke_coop.wgsl`).
pub const COOP_THREADS: u32 = 64;

/// Smallest step LCP the cooperative kernel runs by default: every problem
/// above the smallest module (`N > 44`, more than four spatial contacts
/// with eight friction directions). The smallest module's problems keep the
/// kernel whose speed was measured on hardware; above it one invocation
/// walks a tableau of 88 × 184 entries or more alone, and on lavapipe the
/// loop limiter cut every such sample (docs/gpu.md, "Kernels"; the
/// crossover on hardware is still to be measured).
pub const COOP_MIN_LCP_SIZE: usize = BASE_LCP_SIZE + 1;

/// How a plan solves its step LCPs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LemkeKernel {
    /// One invocation per sample walks its whole tableau.
    PerSample,
    /// One workgroup of [`COOP_THREADS`] invocations per sample shares each
    /// pivot's row operations and ratio test: `lemke` and `random-lemke`,
    /// with restitution too (not `all`).
    Cooperative,
}

impl LemkeKernel {
    /// The rule: [`LemkeKernel::Cooperative`] for `lemke` and
    /// `random-lemke` runs (with or without restitution) whose step LCP has
    /// at least [`COOP_MIN_LCP_SIZE`] rows, else
    /// [`LemkeKernel::PerSample`] (under `all` always).
    pub fn for_problem(size: usize, all: bool) -> LemkeKernel {
        if !all && size >= COOP_MIN_LCP_SIZE { LemkeKernel::Cooperative } else { LemkeKernel::PerSample }
    }
}

/// Bytes of workgroup memory the cooperative kernel of `sizes` takes with
/// scalars of `scalar` bytes: the pivot row, the entering column, the row
/// bounds, the reduction tree and six words.
pub(crate) fn workgroup_bytes(sizes: ModuleSizes, scalar: usize) -> u64 {
    let scalars = sizes.stride(sizes.lcp) + 2 * sizes.lcp + COOP_THREADS as usize;
    (scalars * scalar + 6 * 4) as u64
}

/// The kernel a plan runs: `asked` (or the rule's) where the device holds
/// the cooperative kernel's workgroup memory; the rule falls back to one
/// invocation per sample where it does not, an asked cooperative kernel is
/// refused ([`GpuError::DeviceLimit`], naming
/// `max_compute_workgroup_storage_size`), as it is under `all`
/// ([`GpuError::Unsupported`]).
pub(crate) fn choose(
    limits: &wgpu::Limits,
    asked: Option<LemkeKernel>,
    sizes: ModuleSizes,
    scalar: usize,
    (size, n, all): (usize, usize, bool),
) -> Result<LemkeKernel, GpuError> {
    let bytes = workgroup_bytes(sizes, scalar);
    let max = limits.max_compute_workgroup_storage_size as u64;
    match asked {
        Some(LemkeKernel::Cooperative) if all => {
            Err(GpuError::Unsupported("the cooperative Lemke kernel runs `lemke` and `random-lemke` only".into()))
        }
        Some(LemkeKernel::Cooperative) if bytes > max => Err(GpuError::DeviceLimit {
            what: "the cooperative Lemke kernel's workgroup memory",
            bytes,
            limit: "max_compute_workgroup_storage_size",
            max,
            size,
            n,
        }),
        Some(kernel) => Ok(kernel),
        None => Ok(match LemkeKernel::for_problem(size, all) {
            LemkeKernel::Cooperative if bytes > max => LemkeKernel::PerSample,
            kernel => kernel,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule: the smallest module's problems and every run under `all`
    /// on one invocation per sample, larger Lemke runs (restitution or not)
    /// on a workgroup per sample.
    #[test]
    fn the_rule_takes_the_cooperative_kernel_above_the_smallest_module() {
        assert_eq!(LemkeKernel::for_problem(44, false), LemkeKernel::PerSample);
        assert_eq!(LemkeKernel::for_problem(45, false), LemkeKernel::Cooperative);
        assert_eq!(LemkeKernel::for_problem(176, false), LemkeKernel::Cooperative);
        assert_eq!(LemkeKernel::for_problem(88, true), LemkeKernel::PerSample);
    }

    /// A forced cooperative kernel is refused under `all` only (restitution
    /// runs on it), whatever the size.
    #[test]
    fn a_forced_cooperative_kernel_is_refused_under_all_only() {
        let limits = wgpu::Limits::default();
        let cooperative = Some(LemkeKernel::Cooperative);
        for (size, n) in [(24, 6), (88, 27)] {
            let sizes = ModuleSizes::of(size, n);
            assert_eq!(choose(&limits, cooperative, sizes, 8, (size, n, false)).unwrap(), LemkeKernel::Cooperative);
            let err = choose(&limits, cooperative, sizes, 8, (size, n, true)).unwrap_err();
            assert!(matches!(err, GpuError::Unsupported(_)), "{err}");
        }
    }

    /// A device with too little workgroup memory: the rule falls back, an
    /// asked cooperative kernel is refused naming the limit.
    #[test]
    fn workgroup_memory_binds_by_name() {
        let sizes = ModuleSizes::of(176, 40);
        let small = wgpu::Limits { max_compute_workgroup_storage_size: 1024, ..Default::default() };
        let case = (176, 40, false);
        assert_eq!(choose(&small, None, sizes, 8, case).unwrap(), LemkeKernel::PerSample);
        let err = choose(&small, Some(LemkeKernel::Cooperative), sizes, 8, case).unwrap_err();
        assert!(err.to_string().contains("max_compute_workgroup_storage_size"), "{err}");
        let ample = wgpu::Limits::default();
        assert!(workgroup_bytes(sizes, 8) <= ample.max_compute_workgroup_storage_size as u64);
        assert_eq!(choose(&ample, None, sizes, 8, case).unwrap(), LemkeKernel::Cooperative);
    }
}
