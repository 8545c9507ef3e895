//! The host side of `shaders/types.wgsl`: `#[repr(C)]` + `Pod` structs with
//! their sizes asserted at compile time, so host and shader cannot disagree
//! on a layout.

use bytemuck::{Pod, Zeroable};

use crate::sampling::Schedule;

/// Largest step LCP (`N = m(3 + d)`) the shaders hold: four spatial contacts
/// with 8 friction directions. Mirrors `MAX_N` in `shaders/types.wgsl`.
pub const MAX_LCP_SIZE: usize = 44;

/// Most contacts of a step LCP the shaders hold (`N = m(3 + d) ≥ 3m`).
/// Mirrors `MAX_CONTACTS`.
pub(crate) const MAX_CONTACTS: usize = MAX_LCP_SIZE / 3;

/// Largest number of generalized velocities. Mirrors `MAX_DOF`.
pub const MAX_VELOCITIES: usize = 64;

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

/// Hard pivot bound of the shaders: the CPU's default pivot cap
/// ([`crate::lcp::LemkeOptions::pivot_cap`], `max(50 N, 10⁴)`) for every
/// `N ≤ MAX_LCP_SIZE`, so that an LCP the CPU solves within its cap is not
/// cut short on the GPU. Mirrors `MAX_PIVOTS`.
pub const MAX_PIVOTS: usize = 10_000;

/// Row stride of the Lemke tableau for an `n × n` LCP: `2n + 2` rounded up
/// to a multiple of 8 (the shaders update rows eight columns at a time).
/// Mirrors `tableau_stride` in `shaders/lemke.wgsl`.
pub(crate) const fn tableau_stride(n: usize) -> usize {
    (2 * n + 9) & !7
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
            crate::gpu::shaders::Module::Routh(crate::gpu::enumerate::AllWidth::Narrow),
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

    #[test]
    fn the_shader_pivot_bound_is_the_cpu_cap() {
        let caps: Vec<usize> = (1..=MAX_LCP_SIZE).map(|n| crate::lcp::LemkeOptions::default().pivot_cap(n)).collect();
        assert!(caps.iter().all(|&cap| cap <= MAX_PIVOTS), "{caps:?}");
        assert_eq!(caps.iter().max(), Some(&MAX_PIVOTS));
    }

    #[test]
    fn wgsl_constants_are_the_hosts() {
        let module = module();
        for (name, value) in [
            ("MAX_N", MAX_LCP_SIZE as u32),
            ("MAX_DOF", MAX_VELOCITIES as u32),
            ("MAX_PIVOTS", MAX_PIVOTS as u32),
            ("MAX_STRIDE", tableau_stride(MAX_LCP_SIZE) as u32),
            ("MAX_TABLEAU", (MAX_LCP_SIZE * tableau_stride(MAX_LCP_SIZE)) as u32),
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
            ("MAX_CONTACTS", MAX_CONTACTS as u32),
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
