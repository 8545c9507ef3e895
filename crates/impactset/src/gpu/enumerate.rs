//! The per-problem constants of the selection rule `all` on the GPU
//! (`shaders/enumerate.wgsl`): the CPU enumerator's reduced Delassus matrix,
//! mode table and tolerances, laid out for the shader.

use super::types::{MAX_GPU_ALL_CONTACTS, MAX_GPU_ALL_SOLUTIONS, MAX_GPU_ALL_TUPLES, RouthParams};
use super::{GpuError, Precision};
use crate::ImpactProblem;
use crate::impact::{
    ACCEPT, ENUMERATED_VIOLATION, EnumeratorOptions, Normal, PRUNE, REPLACED_ABOVE, SAME_DV, StepEnumerator, Tangential,
};
use crate::problem::ContactOperators;

/// Most reduced coordinates (`m (1 + tangents)`) of `all` on the GPU.
const MAX_GPU_ALL_DIM: usize = 12;

/// The private arrays of `enumerate.wgsl` (`MAX_CONTACTS_ALL`, `MAX_DIM`):
/// a problem of up to three contacts gets the module it always had, a wider
/// one arrays for six contacts and twelve coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum AllWidth {
    /// Three contacts, nine coordinates.
    Narrow,
    /// [`MAX_GPU_ALL_CONTACTS`] contacts, twelve coordinates.
    Wide,
}

impl AllWidth {
    /// The width of a problem of `m` contacts (at most three coordinates
    /// each).
    pub(crate) fn of(m: usize) -> Self {
        if m <= 3 { AllWidth::Narrow } else { AllWidth::Wide }
    }

    /// `(MAX_CONTACTS_ALL, MAX_DIM)` of the module.
    pub(crate) fn sizes(self) -> (usize, usize) {
        match self {
            AllWidth::Narrow => (3, 9),
            AllWidth::Wide => (MAX_GPU_ALL_CONTACTS, MAX_GPU_ALL_DIM),
        }
    }
}

/// The mode tuples of one step of `ops`: the product over the contacts of
/// their modes (`modes.rs`: open, then closed and capped each with stick,
/// a vertex per friction direction and, in space, an edge per direction;
/// frictionless contacts open, closed, capped), saturating.
pub fn all_tuples(ops: &ContactOperators) -> u64 {
    let t = ops.dimension.tangents();
    let frictional = 1 + 2 * (1 + ops.d + if t == 2 { ops.d } else { 0 }) as u64;
    ops.friction.iter().fold(1u64, |total, &mu| total.saturating_mul(if mu == 0.0 { 3 } else { frictional }))
}

/// Whether the GPU runs the selection rule `all` on `problem`: at most
/// [`MAX_GPU_ALL_CONTACTS`] contacts, [`MAX_GPU_ALL_TUPLES`] mode tuples a
/// step and twelve reduced coordinates; with restitution
/// ([`GpuError::Restitution`] otherwise), fewer mode tuples a step than
/// the CPU's bound needs ([`EnumeratorOptions::bound_min_tuples`]): a
/// step's works depend on its normal impulses, not on `Δv` alone, and a
/// step the CPU certifies keeps its Lemke solution where the GPU keeps the
/// first tuple with that `Δv`, which on redundant contacts may split the
/// impulses otherwise. A contact with both restitution and friction widens
/// its friction cone as it expands, a step searched with a twin contact
/// (docs/model.md §5b): every such twinned step must fit the same limits.
pub(crate) fn check_all(problem: &ImpactProblem) -> Result<(), GpuError> {
    let ops = problem.operators();
    if problem.has_restitution() {
        let twins_fit = widened_sets(widenable(problem)).all(|mask| twinned_fits(ops, mask));
        if !twins_fit || !searched_by_the_cpu(ops) {
            return Err(GpuError::Restitution);
        }
    }
    fits_all(ops)
}

/// The contacts whose friction cone restitution's expansion may widen
/// (`e > 0` and `μ > 0`: the sampler's `b_γ,i = μ_i o_i`), one bit each.
pub(crate) fn widenable(problem: &ImpactProblem) -> u64 {
    let contacts = problem.contacts().iter().enumerate();
    contacts.filter(|(_, c)| c.restitution > 0.0 && c.friction > 0.0).fold(0, |set, (i, _)| set | 1 << i)
}

/// Every nonempty set of contacts within `widenable` (a bit set of at most
/// [`MAX_GPU_ALL_CONTACTS`] contacts), ascending.
fn widened_sets(widenable: u64) -> impl Iterator<Item = u64> {
    (1..=widenable).filter(move |set| set & !widenable == 0)
}

/// Whether the twinned step of `ops` widened at `mask` fits `all` on the
/// GPU: a twin has the capped modes of its contact (one stick, a vertex per
/// direction and in space an edge per direction), its contact's reduced
/// coordinates and an LCP block of its own.
fn twinned_fits(ops: &ContactOperators, mask: u64) -> bool {
    let twins = mask.count_ones() as usize;
    let t = ops.dimension.tangents();
    let twin_modes = (1 + ops.d + if t == 2 { ops.d } else { 0 }) as u64;
    let tuples = (0..twins).fold(all_tuples(ops), |total, _| total.saturating_mul(twin_modes));
    let m = ops.m + twins;
    m <= MAX_GPU_ALL_CONTACTS
        && tuples <= MAX_GPU_ALL_TUPLES
        && m * (1 + t) <= MAX_GPU_ALL_DIM
        && m * (3 + ops.d) <= super::types::MAX_GPU_ALL_LCP_SIZE
}

/// The module width `all` needs on `problem`: its own contacts, or more
/// with the twins of its widened steps.
pub(crate) fn all_width(problem: &ImpactProblem) -> AllWidth {
    let twins = if problem.has_restitution() { widenable(problem).count_ones() as usize } else { 0 };
    AllWidth::of(problem.operators().m + twins)
}

/// Whether the shaders retry by the enumerator a step with restitution
/// that Lemke's method failed, or solved outside the run's residual
/// tolerance, under the Lemke rules, as the CPU does (for at most
/// [`ELASTIC_ENUMERATION_CONTACTS`](crate::sampling::ELASTIC_ENUMERATION_CONTACTS)
/// contacts): where `all` runs on the GPU with this restitution
/// ([`check_all`]), its widened steps where their twinned tables fit the
/// module the run needs anyway (`StateBlock::new`). Elsewhere the host
/// runs such a sample again.
pub(crate) fn retries_on_device(problem: &ImpactProblem) -> bool {
    check_all(problem).is_ok()
}

/// Whether the CPU searches every step of `ops` rather than certify it
/// (fewer mode tuples a step than
/// [`EnumeratorOptions::bound_min_tuples`]), so that the GPU's enumeration
/// keeps the CPU's own impulses for each `Δv` (the first tuple), not only
/// its `Δv`. A widened step of such a problem is searched in full as a
/// twinned step (no bound there either), as the GPU enumerates it.
fn searched_by_the_cpu(ops: &ContactOperators) -> bool {
    (all_tuples(ops) as f64) < EnumeratorOptions::default().bound_min_tuples
}

/// The size limits of [`check_all`].
fn fits_all(ops: &ContactOperators) -> Result<(), GpuError> {
    let tuples = all_tuples(ops);
    let dim = ops.m * (1 + ops.dimension.tangents());
    if ops.m > MAX_GPU_ALL_CONTACTS || tuples > MAX_GPU_ALL_TUPLES || dim > MAX_GPU_ALL_DIM {
        return Err(GpuError::TooLargeForAll { m: ops.m, tuples });
    }
    Ok(())
}

/// Scalars per mode in the shader's table (`MODE_STRIDE`).
const MODE_STRIDE: usize = 27;

/// Loop iterations (as estimated by [`tuples_per_dispatch`]) a sample may
/// spend on mode tuples in one dispatch on a CPU adapter: lavapipe cuts
/// every loop after 65 535 iterations per dispatch and SIMD vector
/// (docs/gpu-lavapipe.md), and lanes of one vector may be filtering
/// ([`CPU_ADAPTER_FILTER_CHUNK`]) or running a Lemke fallback meanwhile.
/// Measured on cube-edge: 22 tuples per dispatch (this budget), 33 and 60
/// fit, 100 are cut.
const CPU_ADAPTER_TUPLE_ITERATIONS: usize = 16_000;

/// Root-filter probes (one mode of one contact fixed alone, about as costly
/// as a tuple) a sample makes per dispatch on a CPU adapter; such a dispatch
/// tries no tuples. The 8 lanes of a SIMD vector share lavapipe's loop
/// counter, so a dispatch where some lanes filter and others try tuples
/// costs both.
pub(crate) const CPU_ADAPTER_FILTER_CHUNK: usize = 8;

/// Tuples per dispatch on GPUs: every step of up to two spatial contacts
/// (`35² = 1225`) in one dispatch, while a three-contact spatial step
/// (`35³ = 42 875` tuples) is split so that no dispatch runs long enough to
/// meet a driver's watchdog (untested: no hardware GPU was available).
const GPU_TUPLES_PER_DISPATCH: usize = 8192;

/// Tolerances of the enumeration in the shader's precision: f64 the CPU's
/// (see `impact::enumerate`, Tolerances); f32 scaled to single-precision
/// round-off (measured, docs/gpu-lavapipe.md).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct EnumerationTolerances {
    /// Relative acceptance of mode equations and inequalities.
    pub accept: f64,
    /// Relative tolerance of "same velocity change".
    pub same_dv: f64,
    /// Pivots at most this are singular.
    pub singular: f64,
    /// Largest step violation of a solution that may be picked.
    pub violation: f64,
    /// Relative margin of the root filter's pruning (1000 × `accept`).
    pub prune: f64,
    /// A kept solution whose violation in the step's own scales exceeds
    /// this gives way to a later one with the same `Δv` and a smaller
    /// violation: the CPU's `REPLACED_ABOVE` in f64, never in f32.
    pub replaced_above: f64,
}

/// f32 acceptance of mode equations and inequalities: round-off in
/// `u + W x` is a few `ε_f32` of the velocity scale.
const F32_ACCEPT: f64 = 3e-6;
/// f32 "same velocity change".
const F32_SAME_DV: f64 = 1e-4;
/// f32 singular pivots, relative to the CPU's `10⁻¹¹ max|W|` (mode bases
/// scaled to `max |G| = 1`).
const F32_SINGULAR_FACTOR: f64 = 1e5;

impl EnumerationTolerances {
    /// The tolerances for `precision`; `residual_tol` is the run's step
    /// residual tolerance (the f32 violation filter is a tenth of it, as
    /// [`ENUMERATED_VIOLATION`] is a tenth of the default `1e-9`).
    pub fn new(precision: Precision, singular: f64, residual_tol: f64) -> Self {
        match precision {
            Precision::F64 => EnumerationTolerances {
                accept: ACCEPT,
                same_dv: SAME_DV,
                singular,
                violation: ENUMERATED_VIOLATION,
                prune: PRUNE,
                replaced_above: REPLACED_ABOVE,
            },
            Precision::F32 => EnumerationTolerances {
                accept: F32_ACCEPT,
                same_dv: F32_SAME_DV,
                singular: singular * F32_SINGULAR_FACTOR,
                violation: 0.1 * residual_tol,
                prune: 1000.0 * F32_ACCEPT,
                // No CPU counterpart in f32: the first tuple is kept.
                replaced_above: f64::INFINITY,
            },
        }
    }
}

/// Appends the constants of `all` to `constants` and fills the matching
/// fields of `params` (offsets, sizes, the mode starts): the tables of the
/// problem's own steps, then those of the twinned step of every set of
/// contacts in `widenable` ([`widenable`]) with a directory of them
/// (`enumerate.wgsl`, "Twinned steps"). The caller has checked the problem
/// with [`check_all`].
pub(crate) fn push_constants(
    ops: &ContactOperators,
    widenable: u64,
    precision: Precision,
    residual_tol: f64,
    constants: &mut Vec<f64>,
    params: &mut RouthParams,
) {
    assert!(fits_all(ops).is_ok(), "`all` on the GPU for a problem it does not fit");
    let mut push = |values: &[f64]| {
        let offset = constants.len() as u32;
        constants.extend_from_slice(values);
        offset
    };
    let enumerator = StepEnumerator::new(ops);
    let own = push_table(ops, &enumerator, precision, residual_tol, &mut push);
    let red = enumerator.reduced();
    params.off_recovery = push(&enumerator.tangent_recovery().iter().flatten().copied().collect::<Vec<_>>());
    params.off_dirs = push(&red.directions.iter().flatten().copied().collect::<Vec<_>>());
    // The directory: per set of widened contacts (a bit set over at most
    // six contacts), the offset of its twinned step's header, 0 for none.
    let mut directory = vec![0.0; 1 << MAX_GPU_ALL_CONTACTS];
    for mask in widened_sets(widenable) {
        assert!(twinned_fits(ops, mask), "a twinned step `all` on the GPU does not fit");
        let (twinned, enumerator) = crate::impact::twinned_step(ops, mask);
        let table = push_table(&twinned, &enumerator, precision, residual_tol, &mut push);
        let matrix = push(&twinned.step_matrix);
        let mut header = vec![
            twinned.m as f64,
            table.dim as f64,
            twinned.step_size_n() as f64,
            table.rank as f64,
            table.inequalities as f64,
            table.off_scalars as f64,
            table.off_w as f64,
            table.off_b as f64,
            table.off_mu as f64,
            table.off_modes as f64,
            table.off_ineq as f64,
            matrix as f64,
        ];
        debug_assert_eq!(header.len(), HEADER_STARTS);
        header.extend(table.mode_start.iter().map(|&x| x as f64));
        directory[mask as usize] = push(&header) as f64;
    }
    let directory = if widenable == 0 { 0 } else { push(&directory) };
    // The directory's offset follows the own table's scalars.
    constants[own.off_scalars as usize + TWINNED_SLOT] = directory as f64;
    params.off_enum_scalars = own.off_scalars;
    params.off_w = own.off_w;
    params.off_b = own.off_b;
    params.off_mu = own.off_mu;
    params.off_modes = own.off_modes;
    params.off_ineq = own.off_ineq;
    params.s = red.s as u32;
    params.dim = own.dim;
    params.rank = own.rank;
    params.tuples = red.table.start.windows(2).map(|w| w[1] - w[0]).product::<usize>() as u32;
    params.kept_cap = MAX_GPU_ALL_SOLUTIONS as u32;
    params.enum_value_stride = value_stride(ops.n) as u32;
    params.enum_word_stride = word_stride() as u32;
    params.inequalities = own.inequalities;
    params.mode_start = own.mode_start;
}

/// The slot of the enumeration's scalars that holds the offset of the
/// twinned steps' directory (0: none). Mirrors `TWINNED_SLOT` in
/// `shaders/enumerate.wgsl`.
const TWINNED_SLOT: usize = 8;

/// The fields of a twinned step's header before its mode starts. Mirrors
/// `HEADER_STARTS` in `shaders/enumerate.wgsl`.
const HEADER_STARTS: usize = 12;

/// Where one step's tables lie in `constants` (`enumerate.wgsl`'s
/// `AllTable`, less the twinned LCP matrix).
struct Table {
    off_scalars: u32,
    off_w: u32,
    off_b: u32,
    off_mu: u32,
    off_modes: u32,
    off_ineq: u32,
    dim: u32,
    rank: u32,
    inequalities: u32,
    mode_start: [u32; 8],
}

/// Pushes the tables of `enumerator`'s steps of `ops`: its tolerances
/// (and a slot for the twinned directory), `W`, `B`, `μ`, the mode table
/// and its inequalities.
fn push_table(
    ops: &ContactOperators,
    enumerator: &StepEnumerator,
    precision: Precision,
    residual_tol: f64,
    push: &mut impl FnMut(&[f64]) -> u32,
) -> Table {
    let red = enumerator.reduced();
    let (dv_map, dv_map_max) = enumerator.dv_map();
    let tolerances = EnumerationTolerances::new(precision, red.singular, residual_tol);
    let off_scalars = push(&[
        tolerances.accept,
        tolerances.same_dv,
        tolerances.singular,
        tolerances.violation,
        dv_map_max,
        red.w_max,
        tolerances.prune,
        tolerances.replaced_above,
        0.0,
    ]);
    let off_w = push(&red.w);
    let off_b = push(dv_map);
    let off_mu = push(&red.friction);
    let table = &red.table;
    let mut modes = Vec::with_capacity(table.modes.len() * MODE_STRIDE);
    for mode in &table.modes {
        let normal = match mode.normal {
            Normal::Open => 0,
            Normal::Closed => 1,
            Normal::Capped => 2,
        };
        let (tangential, k) = match mode.tangential {
            Tangential::None => (0, 0),
            Tangential::Free => (1, 0),
            Tangential::Stick => (2, 0),
            Tangential::Vertex(k) => (3, k),
            Tangential::Edge(k) => (4, k),
        };
        modes.extend([
            mode.params as f64,
            normal as f64,
            tangential as f64,
            k as f64,
            mode.first_inequality as f64,
            mode.end_inequality as f64,
        ]);
        modes.extend(mode.offset);
        modes.extend(mode.basis.iter().flatten());
        modes.extend(mode.rows.iter().flatten());
    }
    let off_modes = push(&modes);
    let inequalities: Vec<f64> =
        table.inequalities.iter().flat_map(|e| e.ax.into_iter().chain(e.au).chain([e.a0])).collect();
    let off_ineq = push(&inequalities);
    let mut mode_start = [0u32; 8];
    for (i, start) in table.start.iter().enumerate() {
        mode_start[i] = *start as u32;
    }
    debug_assert_eq!(ops.m + 1, table.start.len());
    Table {
        off_scalars,
        off_w,
        off_b,
        off_mu,
        off_modes,
        off_ineq,
        dim: red.dim as u32,
        rank: red.rank as u32,
        inequalities: table.inequalities.len() as u32,
        mode_start,
    }
}

/// Slots of `enum_values` before the kept velocity changes: the caps.
/// Mirrors `ENUM_CAP_SLOTS` in `shaders/enumerate.wgsl`.
const ENUM_CAP_SLOTS: usize = MAX_GPU_ALL_CONTACTS;

/// Scalars of `enum_values` per sample: the caps, the kept velocity
/// changes, then their violations.
pub(crate) fn value_stride(n: usize) -> usize {
    ENUM_CAP_SLOTS + MAX_GPU_ALL_SOLUTIONS * (n + 1)
}

/// Words of `enum_words` before the kept tuples: cursor, count, word,
/// fallback steps, contacts filtered, a spare, the root filter's bit sets
/// (two words per contact). Mirrors `ENUM_HEADER` in `shaders/enumerate.wgsl`.
const ENUM_HEADER: usize = 6 + 2 * MAX_GPU_ALL_CONTACTS;

/// Words of `enum_words` per sample: the header, then the kept tuples.
pub(crate) fn word_stride() -> usize {
    ENUM_HEADER + MAX_GPU_ALL_SOLUTIONS
}

/// Tuples a sample tries per dispatch: on CPU adapters as many as fit in
/// [`CPU_ADAPTER_TUPLE_ITERATIONS`] loop iterations (a conservative count
/// of one tuple's: its mode system, `u⁺` twice, `Δv`, the checks), elsewhere
/// all of a step's tuples up to [`GPU_TUPLES_PER_DISPATCH`].
/// `tuples` is [`RouthParams::tuples`].
pub(crate) fn tuples_per_dispatch(ops: &ContactOperators, tuples: usize, cpu_adapter: bool) -> usize {
    if !cpu_adapter {
        return tuples.min(GPU_TUPLES_PER_DISPATCH);
    }
    let s = 1 + ops.dimension.tangents();
    let dim = ops.m * s;
    // (The decoding of a tuple among the modes the root filter left walks up
    // to 4d + 3 bits per contact.)
    let per_tuple =
        2 * dim * dim + dim * dim * s * s + dim * dim * dim + ops.n * (dim + 1) + (16 + 4 * ops.d + 3) * ops.m + 32;
    (CPU_ADAPTER_TUPLE_ITERATIONS / per_tuple).clamp(1, tuples)
}

#[cfg(test)]
#[path = "enumerate_tests.rs"]
mod tests;
