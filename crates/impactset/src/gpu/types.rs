//! The host side of `shaders/types.wgsl`: `#[repr(C)]` + `Pod` structs with
//! their sizes asserted at compile time, so host and shader cannot disagree
//! on a layout.

use bytemuck::{Pod, Zeroable};

use crate::sampling::Schedule;

/// Step LCP size (`N = m(3 + d)`) of the smallest sampler module: four
/// spatial contacts with 8 friction directions. Larger problems compile a
/// module of a larger size class (`ModuleSizes`). Mirrors `MAX_N` in
/// `shaders/types.wgsl`.
pub const BASE_LCP_SIZE: usize = 44;

/// Generalized velocities of the smallest sampler module. Mirrors `MAX_DOF`.
pub const BASE_VELOCITIES: usize = 64;

/// Largest step LCP under the selection rule `all` on the GPU (with the
/// twins of its widened steps): its modules keep the smallest size class.
pub const MAX_GPU_ALL_LCP_SIZE: usize = BASE_LCP_SIZE;

/// Tableau columns a Lemke row operation updates per loop iteration in the
/// smallest module (`TABLEAU_BLOCK`; `shaders/lemke.wgsl`).
const BASE_TABLEAU_BLOCK: usize = 8;

/// Tableau columns per loop iteration in the larger modules (8 or 32:
/// `lemke.wgsl` adds three blocks of eight above 8). Lavapipe's loop
/// limiter counts iterations, and with 32 a pivot at `N = 88` would cost
/// about as many as one at `N = 44` with 8; kept at 8, the code the
/// smallest module runs, until its cost in compile time is measured
/// (docs/gpu-lavapipe.md).
const WIDE_TABLEAU_BLOCK: usize = 8;

/// The sizes a sampler module's private arrays are compiled for: the
/// largest step LCP and the most generalized velocities. A problem runs on
/// the smallest class that holds it ([`ModuleSizes::of`]): `44 · 2^k` rows
/// and `64 · 2^j` velocities, so that small problems keep the small
/// module (private memory and lavapipe's compile time grow with the
/// arrays) and every size the CPU runs has a module, bounded only by the
/// device's buffer limits (`plan_setup.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ModuleSizes {
    /// `MAX_N`: the largest step LCP.
    pub lcp: usize,
    /// `MAX_DOF`: the most generalized velocities.
    pub velocities: usize,
}

impl ModuleSizes {
    /// The smallest module, `types.wgsl` as written.
    pub(crate) const BASE: ModuleSizes = ModuleSizes { lcp: BASE_LCP_SIZE, velocities: BASE_VELOCITIES };

    /// The smallest class that holds a step LCP of `size` rows on `n`
    /// generalized velocities.
    pub(crate) fn of(size: usize, n: usize) -> Self {
        let mut sizes = Self::BASE;
        while sizes.lcp < size {
            sizes.lcp *= 2;
        }
        while sizes.velocities < n {
            sizes.velocities *= 2;
        }
        sizes
    }

    /// `MAX_CONTACTS`: `N = m(3 + d) ≥ 3m`, so `⌊MAX_N / 3⌋`.
    pub(crate) fn contacts(self) -> usize {
        self.lcp / 3
    }

    /// `TABLEAU_BLOCK`: tableau columns per loop iteration of a row operation.
    pub(crate) fn block(self) -> usize {
        if self.lcp <= BASE_LCP_SIZE { BASE_TABLEAU_BLOCK } else { WIDE_TABLEAU_BLOCK }
    }

    /// Row stride of this module's tableau for an `n × n` LCP
    /// ([`tableau_stride`] with its block).
    pub(crate) fn stride(self, n: usize) -> usize {
        tableau_stride(n, self.block())
    }

    /// `MAX_PIVOTS`: the CPU's default pivot cap
    /// ([`crate::lcp::LemkeOptions::pivot_cap`], `max(50 N, 10⁴)`) at
    /// `N = MAX_N`, its largest for every LCP the module holds, so that an
    /// LCP the CPU solves within its cap is not cut short on the GPU.
    pub(crate) fn pivots(self) -> usize {
        crate::lcp::LemkeOptions::default().pivot_cap(self.lcp)
    }

    /// The constants of `types.wgsl` that fix the module's sizes, as its
    /// lines (the host replaces the smallest module's lines with these,
    /// `shaders.rs`).
    pub(crate) fn wgsl_lines(self) -> String {
        let stride = self.stride(self.lcp);
        [
            ("MAX_N", self.lcp),
            ("MAX_CONTACTS", self.contacts()),
            ("TABLEAU_BLOCK", self.block()),
            ("MAX_STRIDE", stride),
            ("MAX_TABLEAU", self.lcp * stride),
            ("MAX_DOF", self.velocities),
            ("MAX_PIVOTS", self.pivots()),
        ]
        .map(|(name, value)| format!("const {name}: u32 = {value}u;\n"))
        .concat()
    }
}

/// Most contacts for which the GPU runs the selection rule `all`. It tries
/// every mode tuple of a step (`7^m` planar, `3^m` frictionless,
/// `(4d + 3)^m` spatial), so the problem must also have at most
/// [`MAX_GPU_ALL_TUPLES`] tuples and twelve reduced coordinates (`m (1 +
/// tangents)`): up to three spatial contacts, and more where they have few
/// modes (the five planar contacts of `disk-stack`: `7⁵ = 16 807`).
pub const MAX_GPU_ALL_CONTACTS: usize = 6;

/// Most mode tuples a step may have for `all` on the GPU: those of three
/// spatial contacts with eight friction directions (`35³`), the most the
/// GPU enumerated before it took more than three contacts. Four such
/// contacts have `35⁴ ≈ 1.5·10⁶` tuples a step: they need the CPU's
/// depth-first search and its certificates on the device.
pub const MAX_GPU_ALL_TUPLES: u64 = 42_875;

/// Distinct solutions one step may have on the GPU (the per-sample scratch
/// holds this many velocity changes); a sample with a step of more runs
/// again on the host (the built-in scenes' steps have at most three in
/// f64; f32's near-duplicates can pass it).
pub const MAX_GPU_ALL_SOLUTIONS: usize = 16;

/// Row stride of the Lemke tableau for an `n × n` LCP: `2n + 2` rounded up
/// to a multiple of `block` (the shaders update rows `block` columns per
/// loop iteration). Mirrors `tableau_stride` in `shaders/lemke.wgsl`.
pub(crate) const fn tableau_stride(n: usize, block: usize) -> usize {
    (2 * n + 2).next_multiple_of(block)
}

/// Mirrors `RouthParams` in `shaders/types.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct RouthParams {
    pub n: u32,
    pub m: u32,
    pub d: u32,
    pub size: u32,
    pub impulses: u32,
    pub max_steps: u32,
    pub selection: u32,
    pub schedule: u32,
    pub count: u32,
    pub first_lo: u32,
    pub first_hi: u32,
    pub pivot_cap: u32,
    pub v_stride: u32,
    pub off_a: u32,
    pub off_j: u32,
    pub off_minv_jt: u32,
    pub off_mass: u32,
    pub off_v: u32,
    pub off_scalars: u32,
    pub steps_per_dispatch: u32,
    pub probe: u32,
    pub interleave: u32,
    pub off_scale: u32,
    pub state_stride: u32,
    pub row_samples: u32,
    pub state_first: u32,
    pub off_enum_scalars: u32,
    pub off_w: u32,
    pub off_b: u32,
    pub off_recovery: u32,
    pub off_dirs: u32,
    pub off_mu: u32,
    pub off_modes: u32,
    pub off_ineq: u32,
    pub s: u32,
    pub dim: u32,
    pub rank: u32,
    pub tuples: u32,
    pub tuples_per_dispatch: u32,
    pub kept_cap: u32,
    pub enum_value_stride: u32,
    pub enum_word_stride: u32,
    pub inequalities: u32,
    pub filter_chunk: u32,
    pub mode_start: [u32; 8],
    pub elastic: u32,
    pub off_restitution: u32,
}

/// Mirrors `TestParams` in `shaders/types.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct TestParams {
    pub count: u32,
    pub size: u32,
    pub pivot_cap: u32,
    pub interleave: u32,
    pub key: [u32; 8],
}

const _: () = assert!(std::mem::size_of::<RouthParams>() == 216);
const _: () = assert!(std::mem::size_of::<TestParams>() == 48);

/// Selection rules of `RouthParams::selection`, mirroring `SELECTION_*` in `types.wgsl`.
pub(crate) const SELECTION_LEMKE: u32 = 0;
pub(crate) const SELECTION_RANDOM_LEMKE: u32 = 1;
pub(crate) const SELECTION_ALL: u32 = 2;

/// Laws of the caps of `RouthParams::schedule`, mirroring `SCHEDULE_*` in
/// `types.wgsl`; the first four in the order of `mixed`'s pick.
pub(crate) const SCHEDULE_UNIFORM: u32 = 0;
pub(crate) const SCHEDULE_EXTREME: u32 = 1;
pub(crate) const SCHEDULE_ORDERED: u32 = 2;
pub(crate) const SCHEDULE_HELD: u32 = 3;
pub(crate) const SCHEDULE_MIXED: u32 = 4;

/// The shader's code of `schedule`.
pub(crate) fn schedule_code(schedule: Schedule) -> u32 {
    match schedule {
        Schedule::Uniform => SCHEDULE_UNIFORM,
        Schedule::Extreme => SCHEDULE_EXTREME,
        Schedule::Ordered => SCHEDULE_ORDERED,
        Schedule::Held => SCHEDULE_HELD,
        Schedule::Mixed => SCHEDULE_MIXED,
    }
}

/// Flags of `out_words[2i + 1]`, mirroring `FLAG_*` in `types.wgsl`.
pub(crate) const FLAG_TERMINATED: u32 = 1;
pub(crate) const FLAG_ACCEPTED: u32 = 2;
pub(crate) const FLAG_LCP_FAILED: u32 = 4;
pub(crate) const FLAG_DONE: u32 = 16;
pub(crate) const FLAG_LOOP_LIMIT: u32 = 32;
pub(crate) const FLAG_TOO_MANY_SOLUTIONS: u32 = 128;
pub(crate) const FLAG_GUARDED: u32 = 256;
pub(crate) const FLAG_HOST: u32 = 512;

/// Lemke status codes, mirroring `LEMKE_*`.
pub(crate) const LEMKE_SOLVED: u32 = 0;
pub(crate) const LEMKE_RAY: u32 = 1;
pub(crate) const LEMKE_LOOP_EXHAUSTED: u32 = 3;

/// The key words of a 32-byte ChaCha key (little-endian).
pub(crate) fn key_words(key: &[u8; 32]) -> [u32; 8] {
    std::array::from_fn(|i| u32::from_le_bytes([key[4 * i], key[4 * i + 1], key[4 * i + 2], key[4 * i + 3]]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    fn module() -> naga::Module {
        naga::front::wgsl::parse_str(include_str!("../../shaders/types.wgsl")).expect("types.wgsl parses")
    }

    /// Member name → byte offset, and the size, of the WGSL struct `name`.
    fn wgsl_struct(module: &naga::Module, name: &str) -> (Vec<(String, u32)>, u32) {
        let ty = module.types.iter().find(|(_, t)| t.name.as_deref() == Some(name)).expect(name).1;
        match &ty.inner {
            naga::TypeInner::Struct { members, span } => {
                (members.iter().map(|m| (m.name.clone().unwrap(), m.offset)).collect(), *span)
            }
            other => panic!("{name} is {other:?}"),
        }
    }

    fn wgsl_u32(module: &naga::Module, name: &str) -> u32 {
        let constant = module.constants.iter().find(|(_, c)| c.name.as_deref() == Some(name)).expect(name).1;
        match module.global_expressions[constant.init] {
            naga::Expression::Literal(naga::Literal::U32(v)) => v,
            ref other => panic!("{name} = {other:?}"),
        }
    }

    macro_rules! offsets {
        ($ty:ty; $($field:ident),* $(,)?) => {
            vec![$((stringify!($field).to_string(), offset_of!($ty, $field) as u32)),*]
        };
    }

    #[test]
    fn wgsl_structs_have_the_host_layout() {
        let module = module();
        let routh = offsets!(RouthParams; n, m, d, size, impulses, max_steps, selection, schedule, count, first_lo, first_hi,
            pivot_cap, v_stride, off_a, off_j, off_minv_jt, off_mass, off_v, off_scalars, steps_per_dispatch, probe,
            interleave, off_scale, state_stride, row_samples, state_first, off_enum_scalars, off_w, off_b, off_recovery, off_dirs, off_mu, off_modes,
            off_ineq, s, dim, rank, tuples, tuples_per_dispatch, kept_cap, enum_value_stride, enum_word_stride,
            inequalities, filter_chunk, mode_start, elastic, off_restitution);
        assert_eq!(wgsl_struct(&module, "RouthParams"), (routh, std::mem::size_of::<RouthParams>() as u32));
        let test = offsets!(TestParams; count, size, pivot_cap, interleave, key);
        assert_eq!(wgsl_struct(&module, "TestParams"), (test, std::mem::size_of::<TestParams>() as u32));
    }

    /// restitution.wgsl's constants are the CPU's (`sampling::restitution`,
    /// `sampling::sample`), read from the assembled sampler module.
    #[test]
    fn restitution_constants_are_the_cpus() {
        let source = crate::gpu::shaders::source(
            crate::gpu::shaders::Module::Routh(crate::gpu::enumerate::AllWidth::Narrow, ModuleSizes::BASE),
            crate::gpu::Precision::F32,
        );
        let module = naga::front::wgsl::parse_str(&source).expect("the sampler module parses");
        for (name, value) in [
            ("EXPANSION_CORRECTIONS", crate::sampling::CORRECTIONS),
            ("GUARD_ROUNDS", crate::sampling::GUARD_ROUNDS),
            ("ELASTIC_ENUMERATION_CONTACTS", crate::sampling::ELASTIC_ENUMERATION_CONTACTS),
        ] {
            assert_eq!(wgsl_u32(&module, name), value as u32, "{name}");
        }
    }

    /// The size classes of the first few doublings, and those of the
    /// problems the GPU is asked for most: a humanoid on both feet (eight
    /// spatial contacts, `N = 88`, 27 velocities) and sixteen spatial
    /// contacts (`N = 176`).
    fn classes() -> Vec<ModuleSizes> {
        let mut classes: Vec<ModuleSizes> = (0..5).map(|k| ModuleSizes::of(BASE_LCP_SIZE << k, 0)).collect();
        classes.extend([ModuleSizes::of(88, 27), ModuleSizes::of(176, 100), ModuleSizes::of(45, 65)]);
        classes
    }

    #[test]
    fn size_classes_hold_their_problems_in_the_smallest_class() {
        assert_eq!(ModuleSizes::of(1, 1), ModuleSizes::BASE);
        assert_eq!(ModuleSizes::of(BASE_LCP_SIZE, BASE_VELOCITIES), ModuleSizes::BASE);
        for size in 1..=800 {
            for n in [1, 27, 64, 65, 200] {
                let sizes = ModuleSizes::of(size, n);
                assert!(sizes.lcp >= size && sizes.velocities >= n);
                assert!(sizes.lcp == BASE_LCP_SIZE || sizes.lcp / 2 < size, "{size}: {sizes:?}");
                assert!(sizes.velocities == BASE_VELOCITIES || sizes.velocities / 2 < n, "{n}: {sizes:?}");
                // Every row operation covers whole blocks of the row.
                assert_eq!(sizes.stride(size) % sizes.block(), 0);
                assert!(sizes.stride(size) >= 2 * size + 2 && sizes.stride(size) <= sizes.stride(sizes.lcp));
            }
        }
        assert_eq!(ModuleSizes::of(88, 27), ModuleSizes { lcp: 88, velocities: 64 });
        assert_eq!(ModuleSizes::of(176, 27).lcp, 176);
    }

    /// Every class's pivot bound is the CPU's cap for every LCP it holds.
    #[test]
    fn the_shader_pivot_bound_is_the_cpu_cap() {
        for sizes in classes() {
            let caps: Vec<usize> = (1..=sizes.lcp).map(|n| crate::lcp::LemkeOptions::default().pivot_cap(n)).collect();
            assert!(caps.iter().all(|&cap| cap <= sizes.pivots()), "{sizes:?}: {caps:?}");
            assert_eq!(caps.iter().max(), Some(&sizes.pivots()), "{sizes:?}");
        }
        assert_eq!(ModuleSizes::BASE.pivots(), 10_000);
    }

    /// The sizes of the assembled sampler module are its class's, for each
    /// class (`types.wgsl` as written is the smallest, checked below).
    #[test]
    fn each_size_class_compiles_its_own_constants() {
        use crate::gpu::enumerate::AllWidth;
        use crate::gpu::shaders::{Module, source};
        for sizes in classes() {
            let module = naga::front::wgsl::parse_str(&source(
                Module::Routh(AllWidth::Narrow, sizes),
                crate::gpu::Precision::F64,
            ))
            .expect("the sampler module parses");
            let stride = sizes.stride(sizes.lcp);
            for (name, value) in [
                ("MAX_N", sizes.lcp),
                ("MAX_CONTACTS", sizes.lcp / 3),
                ("MAX_DOF", sizes.velocities),
                ("MAX_PIVOTS", sizes.pivots()),
                ("TABLEAU_BLOCK", sizes.block()),
                ("MAX_STRIDE", tableau_stride(sizes.lcp, sizes.block())),
                ("MAX_TABLEAU", sizes.lcp * stride),
            ] {
                assert_eq!(wgsl_u32(&module, name), value as u32, "{sizes:?} {name}");
            }
        }
    }

    #[test]
    fn wgsl_constants_are_the_hosts() {
        let module = module();
        let base = ModuleSizes::BASE;
        for (name, value) in [
            ("MAX_N", BASE_LCP_SIZE as u32),
            ("MAX_DOF", BASE_VELOCITIES as u32),
            ("MAX_PIVOTS", base.pivots() as u32),
            ("TABLEAU_BLOCK", BASE_TABLEAU_BLOCK as u32),
            ("MAX_STRIDE", tableau_stride(BASE_LCP_SIZE, BASE_TABLEAU_BLOCK) as u32),
            ("MAX_TABLEAU", (BASE_LCP_SIZE * tableau_stride(BASE_LCP_SIZE, BASE_TABLEAU_BLOCK)) as u32),
            ("MAX_CONTACTS", (BASE_LCP_SIZE / 3) as u32),
            ("SELECTION_LEMKE", SELECTION_LEMKE),
            ("SELECTION_RANDOM_LEMKE", SELECTION_RANDOM_LEMKE),
            ("SELECTION_ALL", SELECTION_ALL),
            ("SCHEDULE_UNIFORM", SCHEDULE_UNIFORM),
            ("SCHEDULE_EXTREME", SCHEDULE_EXTREME),
            ("SCHEDULE_ORDERED", SCHEDULE_ORDERED),
            ("SCHEDULE_HELD", SCHEDULE_HELD),
            ("SCHEDULE_MIXED", SCHEDULE_MIXED),
            ("CAP_ONE", crate::sampling::CAP_ONE),
            ("CAP_FLOOR", crate::sampling::CAP_FLOOR),
            ("FLAG_TERMINATED", FLAG_TERMINATED),
            ("FLAG_ACCEPTED", FLAG_ACCEPTED),
            ("FLAG_LCP_FAILED", FLAG_LCP_FAILED),
            ("FLAG_DONE", FLAG_DONE),
            ("FLAG_LOOP_LIMIT", FLAG_LOOP_LIMIT),
            ("FLAG_TOO_MANY_SOLUTIONS", FLAG_TOO_MANY_SOLUTIONS),
            ("FLAG_GUARDED", FLAG_GUARDED),
            ("FLAG_HOST", FLAG_HOST),
            ("LEMKE_SOLVED", LEMKE_SOLVED),
            ("LEMKE_RAY", LEMKE_RAY),
            ("LEMKE_LOOP_EXHAUSTED", LEMKE_LOOP_EXHAUSTED),
        ] {
            assert_eq!(wgsl_u32(&module, name), value, "{name}");
        }
    }
}
