// Every solution of a Routh step LCP of at most six contacts and
// MAX_GPU_ALL_TUPLES mode tuples (docs/model.md §4, §5b): the GPU side of
// the selection rule `all`, and of the retries of restitution's steps under
// the Lemke rules (restitution.wgsl), the same mode
// equations, tolerances, deduplication and z rebuild as the CPU's
// `StepEnumerator` (src/impact/enumerate/), read the two side by side.
//
// The CPU searches mode tuples depth-first with exact pruning; here every
// tuple is tried, in the same lexicographic order (contact 0 most
// significant), and its mode system solved directly as in `solve_leaf`
// (Gaussian elimination with partial pivoting). Pruning never removes an
// accepted tuple, so both return the same list of distinct velocity changes
// in the same order, up to round-off at the tolerance boundaries.
//
// A tuple is one index t < Π_i (modes of contact i); the enumeration of one
// step is resumable: it keeps its cursor, its kept solutions and the step's
// caps and selection word in per-sample scratch (bindings 8 and 9), so a
// dispatch may stop after `params.tuples_per_dispatch` tuples (lavapipe's loop
// limiter, docs/gpu-lavapipe.md) and the next one goes on. A step with
// restitution runs each of its enumerations whole, in one dispatch.
//
// Per-problem constants (binding 1, at the offsets in `params`, built by
// src/gpu/enumerate.rs):
//   off_enum_scalars  accept, same_dv, singular, violation, max|B|, max|W|,
//                     prune, replaced above (keep.rs `REPLACED_ABOVE`)
//   off_w             W = [Jn;Jt] M⁻¹ [Jn;Jt]ᵀ, D × D row-major (D = m s)
//   off_b             B = M⁻¹ [Jn;Jt]ᵀ, n × D row-major: Δv = B x
//   off_recovery      r_k (d × 2): u_t = Σ_k r_k (JD v)_k
//   off_dirs          friction directions d_k on the tangents (d × 2)
//   off_mu            μ (m)
//   off_modes         MODE_STRIDE scalars per mode (all contacts, in order):
//                     q, normal, tangential, k, first and end inequality
//                     (small integers), offset x₀ (3), basis G (3 columns of
//                     3), rows C (3 rows of 3)
//   off_ineq          7 scalars per inequality: a_x (3), a_u (3), a₀
// `params.mode_start[i]` is contact i's first mode, `mode_start[m]` the total.
//
// The mode system of one tuple is mode_system.wgsl, the rebuild of z
// rebuild.wgsl, the root filter (the CPU's first pruning layer, exact; it
// leaves the tuples in the same order) root_filter.wgsl. Assembled after types.wgsl, chacha.wgsl and lemke.wgsl and
// before routh.wgsl (which defines `params`, `constant` (this state's constants) and `u` = J v).

// Per-sample scratch: enum_values holds, from i · enum_value_stride, the
// step's caps h·p (ENUM_CAP_SLOTS slots), the velocity change Δv (n) of each
// of the kept_cap solutions, then each one's step violation in the step's
// own scales; enum_words holds, from i · enum_word_stride, the cursor (next
// tuple among those the root filter left), the number of kept solutions,
// the selection word, the sample's Lemke fallback steps so far (kept across
// steps), the root filter's progress (contact · 64 + mode), a spare word, the
// root filter's bit sets of modes (two words per contact), then per kept
// solution its tuple with bit 31 set when its step violation is within
// tolerance (from ENUM_HEADER on).
@group(0) @binding(8) var<storage, read_write> enum_values: array<scalar>;
@group(0) @binding(9) var<storage, read_write> enum_words: array<u32>;

// Reduced coordinates: contacts and their s ≤ 3 coordinates. These two
// lines are the module's width (src/gpu/shaders.rs replaces them, from
// `AllWidth` in src/gpu/enumerate.rs): three contacts, or up to six of
// twelve coordinates for problems with more contacts and few enough tuples.
const MAX_CONTACTS_ALL: u32 = 3u;
const MAX_DIM: u32 = 9u;
const KEPT_VALID: u32 = 0x80000000u;
// Slots of enum_values before the kept velocity changes (the caps) and
// words of enum_words before the kept tuples, for every width. Mirror
// `ENUM_CAP_SLOTS` and `ENUM_HEADER` in src/gpu/enumerate.rs.
const ENUM_CAP_SLOTS: u32 = 6u;
const ENUM_HEADER: u32 = 18u;
// Contacts of a twinned step's directory index (2^6 sets), the scalar of
// the enumeration holding the directory's offset, and the fields of a
// twinned step's header before its mode starts. Mirror
// `MAX_GPU_ALL_CONTACTS`, `TWINNED_SLOT` and `HEADER_STARTS` in
// src/gpu/enumerate.rs.
const MAX_GPU_ALL_CONTACTS_BITS: u32 = 6u;
const TWINNED_SLOT: u32 = 8u;
const HEADER_STARTS: u32 = 12u;

// What `enumerate_tuples` did.
const ENUM_YIELD: u32 = 0u;     // budget spent, tuples left
const ENUM_DONE: u32 = 1u;      // every tuple tried
const ENUM_OVERFLOW: u32 = 2u;  // more distinct solutions than the scratch holds
const ENUM_WAS_DONE: u32 = 3u;  // every tuple had been tried in an earlier dispatch

// The reduced step: u (reduced contact velocities), x, u⁺ and the mode
// system of the current tuple.
var<private> e_u: array<scalar, MAX_DIM>;
var<private> e_x: array<scalar, MAX_DIM>;
var<private> e_up: array<scalar, MAX_DIM>;
var<private> e_u0: array<scalar, MAX_DIM>;
// The linear system of gauss_solve (mode_system.wgsl): a mode system, or a
// mode block of the root filter with its right-hand sides.
var<private> g_mat: array<scalar, MAX_DIM * MAX_DIM>;
var<private> g_rhs: array<scalar, 3u * F_STRIDE>;
var<private> e_choice: array<u32, MAX_CONTACTS_ALL>;
var<private> e_dv: array<scalar, MAX_DOF>;
// The step's scales (enumerate/mod.rs, Tolerances): V, P and Pn.
var<private> e_velocity_scale: scalar;
var<private> e_impulse_scale: scalar;
var<private> e_normal_scale: scalar;

// Twinned steps (docs/model.md §5b, src/impact/enumerate/widened.rs). A
// step with restitution whose friction cone a prescribed impulse widens
// (b_γ ≠ 0) is the twinned step: its contacts, then a twin per widened
// contact (its contact's tangent rows, a zero normal row, capped modes only
// at cap b_γ,i / μ_i). The enumeration reads the tables of `all_table`: the
// problem's own (from `params`), or the twinned step's of the widened
// contacts' set, from the directory whose offset is enumeration scalar
// TWINNED_SLOT (per set, a bit set over the contacts, the offset of its header, 0 for
// none; src/gpu/enumerate.rs `push_constants`). A header holds m, D, N, rank
// W, inequalities, the offsets of the scalars, W, B, μ, the modes, the
// inequalities and the twinned step LCP's matrix (N × N, row-major, not
// equilibrated), then the mode starts (m + 1).
struct AllTable {
    m: u32,
    dim: u32,
    size: u32,
    rank: u32,
    inequalities: u32,
    off_scalars: u32,
    off_w: u32,
    off_b: u32,
    off_mu: u32,
    off_modes: u32,
    off_ineq: u32,
    // The twinned step's LCP matrix; 0: the problem's own table.
    off_matrix: u32,
    mode_start: array<u32, 8>,
}

var<private> all_table: AllTable;
// The widened contacts of the twinned table in use (bits), and the widened
// step's right-hand side while lcp_q holds the twinned one.
var<private> twin_mask: u32;
var<private> widened_q: array<scalar, MAX_N>;
var<private> twinned_z: array<scalar, MAX_N>;

// The problem's own tables.
fn use_own_table() {
    all_table = AllTable(params.m, params.dim, params.size, params.rank, params.inequalities,
        params.off_enum_scalars, params.off_w, params.off_b, params.off_mu, params.off_modes, params.off_ineq,
        0u, params.mode_start);
    twin_mask = 0u;
}

// The tables of the twinned step widened at the contacts `mask`; false
// where there are none (the host runs the sample).
fn use_twinned_table(mask: u32) -> bool {
    let directory = u32(constant(params.off_enum_scalars + TWINNED_SLOT));
    if directory == 0u || mask >= (1u << MAX_GPU_ALL_CONTACTS_BITS) {
        return false;
    }
    let h = u32(constant(directory + mask));
    if h == 0u {
        return false;
    }
    var starts: array<u32, 8>;
    let m = u32(constant(h));
    for (var i = 0u; i <= m && i < 8u; i++) {
        starts[i] = u32(constant(h + HEADER_STARTS + i));
    }
    all_table = AllTable(m, u32(constant(h + 1u)), u32(constant(h + 2u)), u32(constant(h + 3u)),
        u32(constant(h + 4u)), u32(constant(h + 5u)), u32(constant(h + 6u)), u32(constant(h + 7u)),
        u32(constant(h + 8u)), u32(constant(h + 9u)), u32(constant(h + 10u)), u32(constant(h + 11u)), starts);
    twin_mask = mask;
    return true;
}

// The widened contact contact p of the twinned step stands for: itself for
// p < m, else the (p − m)-th widened contact.
fn twin_source(p: u32, m: u32) -> u32 {
    if p < m {
        return p;
    }
    var rest = twin_mask;
    for (var k = m; k < p && k < 8u + m; k++) {
        rest &= rest - 1u;
    }
    return firstTrailingBit(rest);
}

// The twinned step's right-hand side into lcp_q (`enumerate_widened`), the
// widened one kept in widened_q: caps (a twin's b_γ,i / μ_i), normal
// velocities (a twin's 0), its contact's friction rows, γ rows 0.
fn twin_rhs(m: u32, d: u32, size: u32) {
    let mt = all_table.m;
    let st = all_table.size;
    for (var c = 0u; c < size && c < MAX_N; c++) {
        widened_q[c] = lcp_q[c];
    }
    for (var p = 0u; p < mt && p < MAX_CONTACTS_ALL; p++) {
        let i = twin_source(p, m);
        let twin = p >= m;
        if twin {
            lcp_q[p] = widened_q[size - m + i] / constant(params.off_mu + i);
            lcp_q[mt + p] = scalar(0.0);
        } else {
            lcp_q[p] = widened_q[i];
            lcp_q[mt + p] = widened_q[m + i];
        }
        for (var k = 0u; k < d && k < MAX_N; k++) {
            lcp_q[2u * mt + p * d + k] = widened_q[2u * m + i * d + k];
        }
        lcp_q[st - mt + p] = scalar(0.0);
    }
}

// A twinned solution (lcp_z, kept in twinned_z) mapped back to the widened
// step into lcp_z: each contact's σ and λn, the friction of both parts
// added in the contacts' order, γ the larger slip rate.
fn twin_map_back(m: u32, d: u32, size: u32) {
    let mt = all_table.m;
    let st = all_table.size;
    for (var c = 0u; c < st && c < MAX_N; c++) {
        twinned_z[c] = lcp_z[c];
    }
    for (var c = 0u; c < size && c < MAX_N; c++) {
        lcp_z[c] = scalar(0.0);
    }
    for (var p = 0u; p < mt && p < MAX_CONTACTS_ALL; p++) {
        let i = twin_source(p, m);
        if p < m {
            lcp_z[i] = twinned_z[p];
            lcp_z[m + i] = twinned_z[mt + p];
        }
        for (var k = 0u; k < d && k < MAX_N; k++) {
            lcp_z[2u * m + i * d + k] += twinned_z[2u * mt + p * d + k];
        }
        lcp_z[size - m + i] = max(lcp_z[size - m + i], twinned_z[st - mt + p]);
    }
}

// Back to the widened step after a twinned enumeration: lcp_q restored,
// lcp_z (a twinned solution) mapped back when `map`, the own tables.
fn leave_twinned(map: bool) {
    let m = params.m;
    let size = params.size;
    if map {
        twin_map_back(m, params.d, size);
    }
    for (var c = 0u; c < size && c < MAX_N; c++) {
        lcp_q[c] = widened_q[c];
    }
    use_own_table();
}

// `step_residual` of the twinned step (its LCP matrix from the table).
fn twinned_residual(size: u32, m: u32, velocity: scalar, impulse: scalar) -> scalar {
    var violation = scalar(0.0);
    for (var i = 0u; i < size && i < MAX_N; i++) {
        var w = lcp_q[i];
        for (var j = 0u; j < size && j < MAX_N; j++) {
            w += constant(all_table.off_matrix + i * size + j) * lcp_z[j];
        }
        violation = max(violation, residual_term(i, m, size, w, velocity, impulse));
    }
    return violation;
}

// Whether the solution just rebuilt into lcp_z is within the violation
// filter in the run's units (`velocity`, `impulse`): of the step itself,
// or for a twinned one, mapped back, of the widened step (the CPU filters
// the widened step's solutions); lcp_z and lcp_q are left as they were.
fn kept_valid(velocity: scalar, impulse: scalar) -> bool {
    if all_table.off_matrix == 0u {
        return step_residual(all_table.size, all_table.m, velocity, impulse) <= enum_scalar(3u);
    }
    let m = params.m;
    let size = params.size;
    let st = all_table.size;
    twin_map_back(m, params.d, size);
    var twinned_q: array<scalar, MAX_N>;
    for (var c = 0u; c < MAX_N; c++) {
        twinned_q[c] = lcp_q[c];
        lcp_q[c] = widened_q[c];
    }
    let valid = step_residual(size, m, velocity, impulse) <= enum_scalar(3u);
    for (var c = 0u; c < MAX_N; c++) {
        lcp_q[c] = twinned_q[c];
        lcp_z[c] = select(scalar(0.0), twinned_z[c], c < st);
    }
    return valid;
}

fn enum_scalar(k: u32) -> scalar {
    return constant(all_table.off_scalars + k);
}

// The caps h·p of the current step (lcp_q[0..m]).
fn cap(i: u32) -> scalar {
    return lcp_q[i];
}

// Reduced velocities u = (Jn v, Jt v) from the velocity rows of b_R in
// lcp_q (J v, or J v moved by prescribed impulses in a step with
// restitution; Jt v by least squares from JD v), and the step's scales, as
// `StepEnumerator::enumerate` reads them from its right-hand side.
fn reduced_step(m: u32, d: u32, s: u32) {
    var u_max = scalar(0.0);
    for (var i = 0u; i < m && i < MAX_CONTACTS_ALL; i++) {
        e_u[i * s] = lcp_q[m + i];
        for (var a = 0u; a + 1u < s && a < 2u; a++) {
            var t = scalar(0.0);
            for (var k = 0u; k < d && k < MAX_N; k++) {
                t += constant(params.off_recovery + 2u * k + a) * lcp_q[2u * m + i * d + k];
            }
            e_u[i * s + 1u + a] = t;
        }
    }
    var impulse = scalar(0.0);
    var normal = scalar(0.0);
    for (var i = 0u; i < m && i < MAX_CONTACTS_ALL; i++) {
        impulse = max(impulse, abs(cap(i)) * (scalar(1.0) + constant(all_table.off_mu + i)));
        normal = max(normal, abs(cap(i)));
    }
    for (var r = 0u; r < m * s && r < MAX_DIM; r++) {
        u_max = max(u_max, abs(e_u[r]));
    }
    e_impulse_scale = impulse;
    e_normal_scale = normal;
    e_velocity_scale = max(u_max, scalar(s) * enum_scalar(5u) * impulse);
}

// Δv = B x into e_dv.
fn velocity_change(n: u32, dim: u32) {
    for (var r = 0u; r < n && r < MAX_DOF; r++) {
        var acc = scalar(0.0);
        for (var c = 0u; c < dim && c < MAX_DIM; c++) {
            acc += constant(all_table.off_b + r * dim + c) * e_x[c];
        }
        e_dv[r] = acc;
    }
}

// `keep` of enumerate/keep.rs: the kept solution whose Δv equals e_dv, or
// `count` when none does.
fn duplicate_of(n: u32, count: u32, values: u32) -> u32 {
    let same = enum_scalar(1u);
    let floor = scalar(1e-3) * same * enum_scalar(4u) * e_normal_scale;
    var norm = scalar(0.0);
    for (var r = 0u; r < n && r < MAX_DOF; r++) {
        norm = max(norm, abs(e_dv[r]));
    }
    for (var k = 0u; k < count && k < params.kept_cap; k++) {
        let base = values + ENUM_CAP_SLOTS + k * n;
        var scale = norm;
        for (var r = 0u; r < n && r < MAX_DOF; r++) {
            scale = max(scale, abs(enum_values[base + r]));
        }
        var equal = true;
        for (var r = 0u; r < n && r < MAX_DOF; r++) {
            if abs(enum_values[base + r] - e_dv[r]) > same * scale + floor {
                equal = false;
                break;
            }
        }
        if equal {
            return k;
        }
    }
    return count;
}

// The step violation of lcp_z in the step's own scales (its velocity scale
// and largest cap), as `keep.rs` measures a kept solution against a later
// one with the same Δv.
fn own_violation(size: u32, m: u32) -> scalar {
    let velocity = max(e_velocity_scale, SCALAR_MIN_POSITIVE);
    let impulse = max(e_normal_scale, SCALAR_MIN_POSITIVE);
    if all_table.off_matrix != 0u {
        return twinned_residual(size, m, velocity, impulse);
    }
    return step_residual(size, m, velocity, impulse);
}

// Keeps solution k of sample `values`/`words`: e_dv, the tuple `cursor`
// with its validity (lcp_z rebuilt, its violation in the run's units
// within tolerance) and its own violation.
fn keep_solution(k: u32, n: u32, values: u32, words: u32, cursor: u32, valid: bool, own: scalar) {
    for (var r = 0u; r < n && r < MAX_DOF; r++) {
        enum_values[values + ENUM_CAP_SLOTS + k * n + r] = e_dv[r];
    }
    enum_values[values + ENUM_CAP_SLOTS + params.kept_cap * n + k] = own;
    enum_words[words + ENUM_HEADER + k] = cursor | select(0u, KEPT_VALID, valid);
}

// Starts the enumeration of sample `sample`'s step: the caps (lcp_q[0..m])
// and the selection word are kept for the dispatches that resume it.
fn begin_enumeration(sample: u32, m: u32, word: u32) {
    let values = sample * params.enum_value_stride;
    let words = sample * params.enum_word_stride;
    for (var i = 0u; i < m && i < MAX_CONTACTS_ALL; i++) {
        enum_values[values + i] = lcp_q[i];
    }
    enum_words[words] = 0u;
    enum_words[words + 1u] = 0u;
    enum_words[words + 2u] = word;
    enum_words[words + 4u] = 0u;
}

// The root filter's bit sets of sample `sample`'s step.
fn filter_masks(words: u32) -> array<vec2<u32>, MAX_CONTACTS_ALL> {
    var masks: array<vec2<u32>, MAX_CONTACTS_ALL>;
    for (var i = 0u; i < MAX_CONTACTS_ALL; i++) {
        masks[i] = vec2<u32>(enum_words[words + 6u + 2u * i], enum_words[words + 7u + 2u * i]);
    }
    return masks;
}

// Tuples left by the root filter: Π_i |masks[i]|.
fn filtered_tuples(m: u32, masks: array<vec2<u32>, MAX_CONTACTS_ALL>) -> u32 {
    var total = 1u;
    for (var i = 0u; i < m && i < MAX_CONTACTS_ALL; i++) {
        total *= countOneBits(masks[i].x) + countOneBits(masks[i].y);
    }
    return total;
}

// The caps of a step in progress back into lcp_q[0..m].
fn resume_enumeration(sample: u32, m: u32) {
    let values = sample * params.enum_value_stride;
    for (var i = 0u; i < m && i < MAX_CONTACTS_ALL; i++) {
        lcp_q[i] = enum_values[values + i];
    }
}

// A new sample has taken no Lemke fallback step.
fn reset_fallback_steps(sample: u32) {
    enum_words[sample * params.enum_word_stride + 3u] = 0u;
}

// A step where no enumerated solution was within tolerance, so Lemke ran
// (the CPU's `fallback_steps`).
fn count_fallback_step(sample: u32) {
    enum_words[sample * params.enum_word_stride + 3u] += 1u;
}

// Root-filters the modes not filtered yet (at most `chunk` per dispatch, 0:
// all, and then no tuples in that dispatch: lavapipe's loop budget), then
// tries at most `budget` tuples from the cursor on. Needs lcp_q = b_R. Each
// new distinct Δv is kept with its tuple and whether its step violation (in
// the problem's units `velocity`, `impulse`) is within tolerance.
fn enumerate_tuples(sample: u32, budget: u32, velocity: scalar, impulse: scalar, chunk: u32) -> u32 {
    let m = all_table.m;
    let d = params.d;
    let n = params.n;
    let s = params.s;
    let dim = all_table.dim;
    let size = all_table.size;
    let values = sample * params.enum_value_stride;
    let words = sample * params.enum_word_stride;
    reduced_step(m, d, s);
    // Root filter progress: contact · 64 + its next mode.
    var progress = enum_words[words + 4u];
    var probes = 0u;
    for (var guard = 0u; guard < MAX_CONTACTS_ALL * 65u && progress < m * 64u; guard++) {
        let i = progress / 64u;
        let local = progress % 64u;
        let first = all_table.mode_start[i];
        if local == 0u {
            enum_words[words + 6u + 2u * i] = 0u;
            enum_words[words + 7u + 2u * i] = 0u;
        }
        if local >= all_table.mode_start[i + 1u] - first {
            progress = (i + 1u) * 64u;
            continue;
        }
        if chunk != 0u && probes >= chunk {
            break;
        }
        if mode_may_hold_alone(i, first + local, m, s, dim, d) {
            let w = words + 6u + 2u * i + local / 32u;
            enum_words[w] |= 1u << (local % 32u);
        }
        progress += 1u;
        probes += 1u;
    }
    enum_words[words + 4u] = progress;
    if progress < m * 64u || (chunk != 0u && probes > 0u) {
        return ENUM_YIELD;
    }
    let masks = filter_masks(words);
    let total = filtered_tuples(m, masks);
    var cursor = enum_words[words];
    if cursor >= total {
        return ENUM_WAS_DONE;
    }
    var count = enum_words[words + 1u];
    var status = ENUM_YIELD;
    for (var tried = 0u; tried < budget; tried++) {
        if cursor >= total {
            break;
        }
        decode_tuple(cursor, m, masks);
        if solve_tuple(m, s, dim) {
            velocity_change(n, dim);
            let k = duplicate_of(n, count, values);
            let fresh = k == count;
            if fresh && count >= params.kept_cap {
                status = ENUM_OVERFLOW;
                break;
            }
            // A kept solution off round-off by more than `REPLACED_ABOVE`
            // gives way to a later tuple with the same Δv and a smaller
            // violation (keep.rs). One rebuild and one measure for both
            // cases (the compiler inlines every call, docs/gpu-lavapipe.md).
            var kept = scalar(0.0);
            if !fresh {
                kept = enum_values[values + ENUM_CAP_SLOTS + params.kept_cap * n + k];
            }
            if fresh || kept > enum_scalar(7u) {
                rebuild_z(m, d, s, size);
                let own = own_violation(size, m);
                if fresh || own < kept {
                    keep_solution(k, n, values, words, cursor, kept_valid(velocity, impulse), own);
                    count += select(0u, 1u, fresh);
                }
            }
        }
        cursor += 1u;
    }
    enum_words[words] = cursor;
    enum_words[words + 1u] = count;
    if status == ENUM_OVERFLOW {
        return ENUM_OVERFLOW;
    }
    return select(ENUM_YIELD, ENUM_DONE, cursor >= total);
}

// The pick of a finished enumeration: `index(word, k)` among the k kept
// solutions within tolerance, its z rebuilt into lcp_z; the number k of
// choices (0: none, the caller falls back to Lemke).
fn pick_enumerated(sample: u32) -> u32 {
    let words = sample * params.enum_word_stride;
    let count = enum_words[words + 1u];
    var valid = 0u;
    for (var k = 0u; k < count && k < params.kept_cap; k++) {
        valid += select(0u, 1u, (enum_words[words + ENUM_HEADER + k] & KEPT_VALID) != 0u);
    }
    if valid == 0u {
        return 0u;
    }
    let chosen = index(enum_words[words + 2u], valid);
    var seen = 0u;
    for (var k = 0u; k < count && k < params.kept_cap; k++) {
        let kept = enum_words[words + ENUM_HEADER + k];
        if (kept & KEPT_VALID) != 0u {
            if seen == chosen {
                reduced_step(all_table.m, params.d, params.s);
                decode_tuple(kept & ~KEPT_VALID, all_table.m, filter_masks(words));
                // Deterministic: the same solve as when it was kept.
                if !solve_tuple(all_table.m, params.s, all_table.dim) {
                    return 0u;
                }
                rebuild_z(all_table.m, params.d, params.s, all_table.size);
                break;
            }
            seen += 1u;
        }
    }
    return valid;
}
