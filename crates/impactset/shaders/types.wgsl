// Host/shader contract. Every struct here is mirrored by a
// `#[repr(C)]` + `bytemuck::Pod` struct in `src/gpu/types.rs` whose size is
// asserted at compile time. Only `u32` fields and flat arrays: no vec3, no
// implicit padding.

// The scalar type of the whole module. The host replaces this one line with
// `alias scalar = f64;` for double precision: the one deliberate string
// substitution (everything else is a pipeline override or buffer data).
alias scalar = f32;

// The sizes the module is compiled for (`gpu::types::ModuleSizes`), as
// written those of the smallest module: step LCPs up to N = m(3 + d) = 44
// (four spatial contacts with 8 friction directions) in private memory, and
// up to 64 generalized velocities. For a larger problem the host replaces
// these seven lines with its size class's (44 · 2^k rows, 64 · 2^j
// velocities; `gpu/shaders.rs`).
//   MAX_N          largest step LCP; mirrors `BASE_LCP_SIZE`
//   MAX_CONTACTS   most contacts: N = m(3 + d) ≥ 3m, so ⌊MAX_N / 3⌋
//   TABLEAU_BLOCK  tableau columns a row operation updates per loop
//                  iteration (lemke.wgsl): 8, 32 in the larger classes
//   MAX_STRIDE     tableau row stride bound: 2 MAX_N + 2 rounded up to a
//                  multiple of TABLEAU_BLOCK; MAX_TABLEAU its tableau's size
//   MAX_DOF        most generalized velocities; mirrors `BASE_VELOCITIES`
//   MAX_PIVOTS     hard bound on Lemke pivots: the CPU's default cap
//                  max(50 N, 10⁴) at N = MAX_N, its largest for N ≤ MAX_N
const MAX_N: u32 = 44u;
const MAX_CONTACTS: u32 = 14u;
const TABLEAU_BLOCK: u32 = 8u;
const MAX_STRIDE: u32 = 96u;
const MAX_TABLEAU: u32 = 4224u;
const MAX_DOF: u32 = 64u;
const MAX_PIVOTS: u32 = 10000u;

// Mirrors `gpu::types::RouthParams` (216 bytes).
struct RouthParams {
    n: u32,            // generalized velocities
    m: u32,            // contacts
    d: u32,            // friction directions per contact
    size: u32,         // step LCP size N = m(3 + d)
    impulses: u32,     // m + m d: rows of J, entries of λ = [λn; λD]
    max_steps: u32,    // step cap K
    selection: u32,    // SELECTION_LEMKE, SELECTION_RANDOM_LEMKE or SELECTION_ALL
    schedule: u32,     // the law of the caps, SCHEDULE_* (schedule.wgsl)
    count: u32,        // samples in this dispatch: rows of row_samples samples
    first_lo: u32,     // index of each row's first sample, low word
    first_hi: u32,     // ... high word
    pivot_cap: u32,    // Lemke pivot cap max(100, 10 N)
    v_stride: u32,     // scalars per sample in `out_v`: n
    off_a: u32,        // offsets into `constants`: A_R (N×N, row-major)
    off_j: u32,        // J = [Jn; JD] (impulses×n, row-major)
    off_minv_jt: u32,  // M⁻¹Jᵀ (n×impulses, row-major)
    off_mass: u32,     // M (n×n)
    off_v: u32,        // v⁻ (n)
    off_scalars: u32,  // h, termination threshold, pivot tolerance, residual tolerance, tie tolerance, velocity scale
    steps_per_dispatch: u32, // steps a sample takes per dispatch before it yields
    probe: u32,        // 2: iterations of the loop-limiter probe
    interleave: u32,   // 1: interleaved Lemke tableaus, 0: contiguous (lemke.wgsl)
    off_scale: u32,    // row scales r (N), column scales c (N) of A_R, covering-vector scales (N) (see routh.wgsl)
    state_stride: u32, // scalars of `constants` per state (packed states, routh.wgsl)
    row_samples: u32,  // samples per row: invocation i runs sample first + i % row_samples
    state_first: u32,  // state of row 0; row r runs state state_first + r
    // Selection `all` only (enumerate.wgsl; zero otherwise). Offsets into
    // `constants`:
    off_enum_scalars: u32, // accept, same_dv, singular, violation, max|B|, max|W|, prune
    off_w: u32,        // W = [Jn;Jt] M⁻¹ [Jn;Jt]ᵀ (dim × dim)
    off_b: u32,        // B = M⁻¹ [Jn;Jt]ᵀ (n × dim)
    off_recovery: u32, // r_k: Jt v from JD v (d × 2)
    off_dirs: u32,     // friction directions d_k (d × 2)
    off_mu: u32,       // μ (m)
    off_modes: u32,    // the mode table (MODE_STRIDE per mode)
    off_ineq: u32,     // the mode inequalities (INEQ_STRIDE each)
    s: u32,            // reduced coordinates per contact, 1 + tangents
    dim: u32,          // D = m s
    rank: u32,         // numerical rank of W
    tuples: u32,       // mode tuples Π_i modes_i
    tuples_per_dispatch: u32, // tuples one sample tries per dispatch before it yields
    kept_cap: u32,     // distinct solutions the scratch holds per step
    enum_value_stride: u32, // scalars per sample in enum_values: ENUM_CAP_SLOTS + kept_cap (n + 1)
    enum_word_stride: u32,  // words per sample in enum_words: ENUM_HEADER + kept_cap
    inequalities: u32, // inequalities in the table
    filter_chunk: u32, // root-filter probes per dispatch (CPU adapters; 0: all)
    mode_start: array<u32, 8>, // first mode of contact i; mode_start[m] = all modes (m ≤ MAX_GPU_ALL_CONTACTS)
    // Restitution only (restitution.wgsl; zero otherwise).
    elastic: u32,      // 1: some contact has e > 0, every step is `elastic_step`
    off_restitution: u32, // E⁻, the works' slack, e_i² (m), W_nn (m × m)
}

// Mirrors `gpu::types::TestParams` (48 bytes): the Lemke and ChaCha test kernels.
struct TestParams {
    count: u32,        // problems (or streams) in this dispatch
    size: u32,         // LCP size N (or words per stream)
    pivot_cap: u32,
    interleave: u32,   // 1: interleaved Lemke tableaus, 0: contiguous (lemke.wgsl)
    key: array<u32, 8>,
}

// Sample flags in `out_words[2 i + 1]`.
const FLAG_TERMINATED: u32 = 1u;
const FLAG_ACCEPTED: u32 = 2u;
const FLAG_LCP_FAILED: u32 = 4u;
const FLAG_STARTED: u32 = 8u;     // state holds a sample in progress
const FLAG_DONE: u32 = 16u;       // Algorithm 1 has stopped
const FLAG_LOOP_LIMIT: u32 = 32u; // the driver cut a loop short
const FLAG_ENUMERATING: u32 = 64u; // a step's enumeration is in progress (`all`)
const FLAG_TOO_MANY_SOLUTIONS: u32 = 128u; // a step had more distinct solutions than `kept_cap`
const FLAG_GUARDED: u32 = 256u;   // restitution: the energy guard fired in this sample
const FLAG_HOST: u32 = 512u;      // restitution: the host runs this sample again on the CPU

// Selection rules (`RouthParams::selection`).
const SELECTION_LEMKE: u32 = 0u;
const SELECTION_RANDOM_LEMKE: u32 = 1u;
const SELECTION_ALL: u32 = 2u;       // enumerate.wgsl

// Laws of the caps (`RouthParams::schedule`, schedule.wgsl); the first four
// in the order of `mixed`'s pick.
const SCHEDULE_UNIFORM: u32 = 0u;
const SCHEDULE_EXTREME: u32 = 1u;
const SCHEDULE_ORDERED: u32 = 2u;
const SCHEDULE_HELD: u32 = 3u;
const SCHEDULE_MIXED: u32 = 4u;
// The cap p = 1 as the integer P = 2²⁴ (p = P · 2⁻²⁴), and the floor below
// which the laws other than `uniform` round a cap to 0. Mirror `CAP_ONE` and
// `CAP_FLOOR` of src/sampling/schedule.rs.
const CAP_ONE: u32 = 16777216u;
const CAP_FLOOR: u32 = 16u;

// Lemke status codes.
const LEMKE_SOLVED: u32 = 0u;
const LEMKE_RAY: u32 = 1u;
const LEMKE_PIVOT_LIMIT: u32 = 2u;
const LEMKE_LOOP_EXHAUSTED: u32 = 3u; // a driver cut a loop short
