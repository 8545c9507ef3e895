//! The host side of `shaders/types.wgsl`: `#[repr(C)]` + `Pod` structs with
//! their sizes asserted at compile time (style.md item 7).

use bytemuck::{Pod, Zeroable};

/// Largest step LCP (`N = m(3 + d)`) the shaders hold: four spatial contacts
/// with 8 friction directions. Mirrors `MAX_N` in `shaders/types.wgsl`.
pub const MAX_LCP_SIZE: usize = 44;

/// Largest number of generalized velocities. Mirrors `MAX_DOF`.
pub const MAX_VELOCITIES: usize = 64;

/// Hard pivot bound of the shaders, `max(100, 10·MAX_LCP_SIZE)`. Mirrors `MAX_PIVOTS`.
pub const MAX_PIVOTS: usize = 440;

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
    pub pad0: u32,
    pub key: [u32; 8],
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
    pub mode_start: [u32; 4],
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

const _: () = assert!(std::mem::size_of::<RouthParams>() == 208);
const _: () = assert!(std::mem::size_of::<TestParams>() == 48);
const _: () = assert!(MAX_PIVOTS == if 10 * MAX_LCP_SIZE > 100 { 10 * MAX_LCP_SIZE } else { 100 });

/// Selection rules of `RouthParams::selection`, mirroring `SELECTION_*` in `types.wgsl`.
pub(crate) const SELECTION_LEMKE: u32 = 0;
pub(crate) const SELECTION_RANDOM_LEMKE: u32 = 1;
pub(crate) const SELECTION_ALL: u32 = 2;

/// Flags of `out_words[2i + 1]`, mirroring `FLAG_*` in `types.wgsl`.
pub(crate) const FLAG_TERMINATED: u32 = 1;
pub(crate) const FLAG_ACCEPTED: u32 = 2;
pub(crate) const FLAG_LCP_FAILED: u32 = 4;
pub(crate) const FLAG_DONE: u32 = 16;
pub(crate) const FLAG_LOOP_LIMIT: u32 = 32;
pub(crate) const FLAG_TOO_MANY_SOLUTIONS: u32 = 128;

/// Lemke status codes, mirroring `LEMKE_*`.
pub(crate) const LEMKE_SOLVED: u32 = 0;
pub(crate) const LEMKE_RAY: u32 = 1;
pub(crate) const LEMKE_LOOP_EXHAUSTED: u32 = 3;

/// The key words of a 32-byte ChaCha key (little-endian).
pub(crate) fn key_words(key: &[u8; 32]) -> [u32; 8] {
    std::array::from_fn(|i| u32::from_le_bytes([key[4 * i], key[4 * i + 1], key[4 * i + 2], key[4 * i + 3]]))
}
