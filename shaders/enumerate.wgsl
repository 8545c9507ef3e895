// Every solution of a Routh step LCP for at most three contacts (model.md
// §4, §5b): the GPU side of the selection rule `all`, the same mode
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
// limiter, docs/gpu-lavapipe.md) and the next one goes on.
//
// Per-problem constants (binding 1, at the offsets in `params`, built by
// src/gpu/enumerate.rs):
//   off_enum_scalars  accept, same_dv, singular, violation, max|B|, max|W|
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
// Assembled after types.wgsl, chacha.wgsl and lemke.wgsl and before
// routh.wgsl (which defines `params`, `constants` and `u` = J v).

// Per-sample scratch: enum_values holds, from i · enum_value_stride, the
// step's caps h·p (4 slots) then the velocity change Δv (n) of each kept
// solution; enum_words holds, from i · enum_word_stride, the cursor (next
// tuple), the number of kept solutions, the selection word, a spare word,
// then per kept solution its tuple with bit 31 set when its step violation
// is within tolerance.
@group(0) @binding(8) var<storage, read_write> enum_values: array<scalar>;
@group(0) @binding(9) var<storage, read_write> enum_words: array<u32>;

const MODE_STRIDE: u32 = 27u;
const INEQ_STRIDE: u32 = 7u;
// Reduced coordinates: three contacts of s ≤ 3.
const MAX_DIM: u32 = 9u;
const MAX_CONTACTS_ALL: u32 = 3u;
const KEPT_VALID: u32 = 0x80000000u;
const NORMAL_OPEN: u32 = 0u;
const NORMAL_CLOSED: u32 = 1u;
const NORMAL_CAPPED: u32 = 2u;
const TANGENTIAL_NONE: u32 = 0u;
const TANGENTIAL_FREE: u32 = 1u;
const TANGENTIAL_STICK: u32 = 2u;
const TANGENTIAL_VERTEX: u32 = 3u;
const TANGENTIAL_EDGE: u32 = 4u;

// What `enumerate_tuples` did.
const ENUM_YIELD: u32 = 0u;     // budget spent, tuples left
const ENUM_DONE: u32 = 1u;      // every tuple tried
const ENUM_OVERFLOW: u32 = 2u;  // more distinct solutions than the scratch holds

// The reduced step: u (reduced contact velocities), x, u⁺ and the mode
// system of the current tuple.
var<private> e_u: array<scalar, MAX_DIM>;
var<private> e_x: array<scalar, MAX_DIM>;
var<private> e_up: array<scalar, MAX_DIM>;
var<private> e_u0: array<scalar, MAX_DIM>;
var<private> e_mat: array<scalar, 81>;
var<private> e_rhs: array<scalar, MAX_DIM>;
var<private> e_choice: array<u32, MAX_CONTACTS_ALL>;
var<private> e_dv: array<scalar, MAX_DOF>;
// The step's scales (enumerate/mod.rs, Tolerances): V and P.
var<private> e_velocity_scale: scalar;
var<private> e_impulse_scale: scalar;

fn mode_int(g: u32, field: u32) -> u32 {
    return u32(constants[params.off_modes + g * MODE_STRIDE + field]);
}

fn mode_offset(g: u32, b: u32) -> scalar {
    return constants[params.off_modes + g * MODE_STRIDE + 6u + b];
}

// Column kk of G, entry b.
fn mode_basis(g: u32, kk: u32, b: u32) -> scalar {
    return constants[params.off_modes + g * MODE_STRIDE + 9u + 3u * kk + b];
}

// Row k of C, entry a.
fn mode_row(g: u32, k: u32, a: u32) -> scalar {
    return constants[params.off_modes + g * MODE_STRIDE + 18u + 3u * k + a];
}

fn reduced_w(r: u32, c: u32) -> scalar {
    return constants[params.off_w + r * params.dim + c];
}

fn enum_scalar(k: u32) -> scalar {
    return constants[params.off_enum_scalars + k];
}

// The caps h·p of the current step (lcp_q[0..m]).
fn cap(i: u32) -> scalar {
    return lcp_q[i];
}

// Reduced velocities u = (Jn v, Jt v) from J v (Jt v by least squares from
// JD v) and the step's scales.
fn reduced_step(m: u32, d: u32, s: u32) {
    var u_max = scalar(0.0);
    for (var i = 0u; i < m && i < MAX_CONTACTS_ALL; i++) {
        e_u[i * s] = u[i];
        for (var a = 0u; a + 1u < s && a < 2u; a++) {
            var t = scalar(0.0);
            for (var k = 0u; k < d && k < MAX_N; k++) {
                t += constants[params.off_recovery + 2u * k + a] * u[m + i * d + k];
            }
            e_u[i * s + 1u + a] = t;
        }
    }
    var impulse = scalar(0.0);
    for (var i = 0u; i < m && i < MAX_CONTACTS_ALL; i++) {
        impulse = max(impulse, abs(cap(i)) * (scalar(1.0) + constants[params.off_mu + i]));
    }
    for (var r = 0u; r < m * s && r < MAX_DIM; r++) {
        u_max = max(u_max, abs(e_u[r]));
    }
    e_impulse_scale = impulse;
    e_velocity_scale = max(u_max, scalar(s) * enum_scalar(5u) * impulse);
}

// u⁺ (or u0) = u + W x.
fn post_velocity(dim: u32, into_up: bool) {
    for (var r = 0u; r < dim && r < MAX_DIM; r++) {
        var acc = scalar(0.0);
        for (var c = 0u; c < dim && c < MAX_DIM; c++) {
            acc += reduced_w(r, c) * e_x[c];
        }
        if into_up {
            e_up[r] = e_u[r] + acc;
        } else {
            e_u0[r] = e_u[r] + acc;
        }
    }
}

// `solve_in_place` of gauss.rs for one right-hand side: e_mat (total ×
// total, row-major) and e_rhs; false when a pivot is at most `tiny`.
fn gauss_solve(total: u32, tiny: scalar) -> bool {
    for (var col = 0u; col < total && col < MAX_DIM; col++) {
        var p = col;
        var best = abs(e_mat[col * total + col]);
        for (var r = col + 1u; r < total && r < MAX_DIM; r++) {
            let v = abs(e_mat[r * total + col]);
            if v > best {
                best = v;
                p = r;
            }
        }
        // `!(best > tiny)` also catches NaN, like the CPU's `!is_finite`.
        if !(best > tiny) || best - best != scalar(0.0) {
            return false;
        }
        if p != col {
            for (var c = col; c < total && c < MAX_DIM; c++) {
                let tmp = e_mat[p * total + c];
                e_mat[p * total + c] = e_mat[col * total + c];
                e_mat[col * total + c] = tmp;
            }
            let tmp = e_rhs[p];
            e_rhs[p] = e_rhs[col];
            e_rhs[col] = tmp;
        }
        let inv = scalar(1.0) / e_mat[col * total + col];
        for (var r = col + 1u; r < total && r < MAX_DIM; r++) {
            let f = e_mat[r * total + col] * inv;
            if f != scalar(0.0) {
                for (var c = col + 1u; c < total && c < MAX_DIM; c++) {
                    e_mat[r * total + c] -= f * e_mat[col * total + c];
                }
                e_rhs[r] -= f * e_rhs[col];
            }
        }
    }
    for (var rr = 0u; rr < total && rr < MAX_DIM; rr++) {
        let row = total - 1u - rr;
        let inv = scalar(1.0) / e_mat[row * total + row];
        var acc = e_rhs[row];
        for (var j = row + 1u; j < total && j < MAX_DIM; j++) {
            acc -= e_mat[row * total + j] * e_rhs[j];
        }
        e_rhs[row] = acc * inv;
    }
    return true;
}

// The modes of tuple t: contact 0 most significant.
fn decode_tuple(t: u32, m: u32) {
    var rest = t;
    for (var k = 0u; k < m && k < MAX_CONTACTS_ALL; k++) {
        let i = m - 1u - k;
        let count = params.mode_start[i + 1u] - params.mode_start[i];
        e_choice[i] = params.mode_start[i] + rest % count;
        rest = rest / count;
    }
}

// `solve_leaf` of search.rs, then the leaf checks of depth_first.rs: the
// tuple in e_choice solved for x and u⁺ (e_x, e_up); true when its mode
// equations and inequalities hold within `accept`.
fn solve_tuple(m: u32, s: u32, dim: u32) -> bool {
    var total = 0u;
    var col_start: array<u32, MAX_CONTACTS_ALL>;
    for (var j = 0u; j < m && j < MAX_CONTACTS_ALL; j++) {
        col_start[j] = total;
        total += mode_int(e_choice[j], 0u);
    }
    if total > params.rank {
        // rank(C W G) ≤ rank W: singular (the CPU skips these subtrees).
        return false;
    }
    for (var j = 0u; j < m && j < MAX_CONTACTS_ALL; j++) {
        for (var b = 0u; b < s && b < 3u; b++) {
            e_x[j * s + b] = cap(j) * mode_offset(e_choice[j], b);
        }
    }
    if total > 0u {
        post_velocity(dim, false);
        var row = 0u;
        for (var i = 0u; i < m && i < MAX_CONTACTS_ALL; i++) {
            let gi = e_choice[i];
            for (var k = 0u; k < mode_int(gi, 0u) && k < 3u; k++) {
                var r = scalar(0.0);
                for (var a = 0u; a < s && a < 3u; a++) {
                    r += mode_row(gi, k, a) * e_u0[i * s + a];
                }
                e_rhs[row] = -r;
                for (var j = 0u; j < m && j < MAX_CONTACTS_ALL; j++) {
                    let gj = e_choice[j];
                    for (var kk = 0u; kk < mode_int(gj, 0u) && kk < 3u; kk++) {
                        var v = scalar(0.0);
                        for (var a = 0u; a < s && a < 3u; a++) {
                            let ca = mode_row(gi, k, a);
                            if ca != scalar(0.0) {
                                var wg = scalar(0.0);
                                for (var b = 0u; b < s && b < 3u; b++) {
                                    wg += reduced_w(i * s + a, j * s + b) * mode_basis(gj, kk, b);
                                }
                                v += ca * wg;
                            }
                        }
                        e_mat[row * total + col_start[j] + kk] = v;
                    }
                }
                row += 1u;
            }
        }
        if !gauss_solve(total, enum_scalar(2u)) {
            return false;
        }
        for (var j = 0u; j < m && j < MAX_CONTACTS_ALL; j++) {
            let gj = e_choice[j];
            for (var kk = 0u; kk < mode_int(gj, 0u) && kk < 3u; kk++) {
                let y = e_rhs[col_start[j] + kk];
                for (var b = 0u; b < s && b < 3u; b++) {
                    e_x[j * s + b] += y * mode_basis(gj, kk, b);
                }
            }
        }
    }
    post_velocity(dim, true);
    let accept = enum_scalar(0u);
    let velocity = e_velocity_scale;
    let impulse = e_impulse_scale;
    // Mode equations C u⁺_i = 0.
    for (var i = 0u; i < m && i < MAX_CONTACTS_ALL; i++) {
        let gi = e_choice[i];
        for (var k = 0u; k < mode_int(gi, 0u) && k < 3u; k++) {
            var r = scalar(0.0);
            for (var a = 0u; a < s && a < 3u; a++) {
                r += mode_row(gi, k, a) * e_up[i * s + a];
            }
            if abs(r) > accept * velocity {
                return false;
            }
        }
    }
    // Inequalities a_xᵀ x_i + a_uᵀ u⁺_i + a₀ h p_i ≥ −slack.
    for (var i = 0u; i < m && i < MAX_CONTACTS_ALL; i++) {
        let gi = e_choice[i];
        let end = mode_int(gi, 5u);
        for (var e = mode_int(gi, 4u); e < end && e < params.inequalities; e++) {
            let base = params.off_ineq + e * INEQ_STRIDE;
            var v = constants[base + 6u] * cap(i);
            var l1x = abs(constants[base + 6u]);
            var l1u = scalar(0.0);
            for (var a = 0u; a < 3u; a++) {
                let ax = constants[base + a];
                let au = constants[base + 3u + a];
                l1x += abs(ax);
                l1u += abs(au);
                if a < s {
                    v += ax * e_x[i * s + a] + au * e_up[i * s + a];
                }
            }
            if v < -accept * (l1u * velocity + l1x * impulse) {
                return false;
            }
        }
    }
    return true;
}

// Δv = B x into e_dv.
fn velocity_change(n: u32, dim: u32) {
    for (var r = 0u; r < n && r < MAX_DOF; r++) {
        var acc = scalar(0.0);
        for (var c = 0u; c < dim && c < MAX_DIM; c++) {
            acc += constants[params.off_b + r * dim + c] * e_x[c];
        }
        e_dv[r] = acc;
    }
}

// `keep` of enumerate/mod.rs: whether e_dv equals the Δv of a kept solution.
fn is_duplicate(n: u32, count: u32, values: u32) -> bool {
    let same = enum_scalar(1u);
    let floor = scalar(1e-3) * same * enum_scalar(4u) * e_impulse_scale;
    var norm = scalar(0.0);
    for (var r = 0u; r < n && r < MAX_DOF; r++) {
        norm = max(norm, abs(e_dv[r]));
    }
    for (var k = 0u; k < count && k < params.kept_cap; k++) {
        let base = values + 4u + k * n;
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
            return true;
        }
    }
    return false;
}

// Σ_a d_k[a] u⁺_t[a] of contact i.
fn along(i: u32, k: u32, s: u32) -> scalar {
    var acc = scalar(0.0);
    for (var a = 0u; a + 1u < s && a < 2u; a++) {
        acc += constants[params.off_dirs + 2u * k + a] * e_up[i * s + 1u + a];
    }
    return acc;
}

// f = a d_k + b d_j, clamped at zero (`split_on` of rebuild.rs).
fn split_on(k: u32, j: u32, f0: scalar, f1: scalar) -> vec2<scalar> {
    let dk0 = constants[params.off_dirs + 2u * k];
    let dk1 = constants[params.off_dirs + 2u * k + 1u];
    let dj0 = constants[params.off_dirs + 2u * j];
    let dj1 = constants[params.off_dirs + 2u * j + 1u];
    let det = dk0 * dj1 - dk1 * dj0;
    let a = (f0 * dj1 - f1 * dj0) / det;
    let b = (dk0 * f1 - dk1 * f0) / det;
    return vec2<scalar>(max(a, scalar(0.0)), max(b, scalar(0.0)));
}

// `rebuild` of rebuild.rs: the full step-LCP solution z of (e_choice, e_x,
// e_up) into lcp_z.
fn rebuild_z(m: u32, d: u32, s: u32, size: u32) {
    for (var c = 0u; c < size && c < MAX_N; c++) {
        lcp_z[c] = scalar(0.0);
    }
    for (var i = 0u; i < m && i < MAX_CONTACTS_ALL; i++) {
        let g = e_choice[i];
        let normal = mode_int(g, 1u);
        let tangential = mode_int(g, 2u);
        let k = mode_int(g, 3u);
        let mu = constants[params.off_mu + i];
        let lam = 2u * m + i * d;
        var lambda_n = scalar(0.0);
        if normal == NORMAL_CLOSED {
            lambda_n = clamp(e_x[i * s], scalar(0.0), max(cap(i), scalar(0.0)));
        } else if normal == NORMAL_CAPPED {
            lambda_n = cap(i);
            lcp_z[i] = max(-e_up[i * s], scalar(0.0));
        }
        lcp_z[m + i] = lambda_n;
        var gamma = scalar(0.0);
        if tangential == TANGENTIAL_NONE || tangential == TANGENTIAL_FREE {
            for (var kk = 0u; kk < d && kk < MAX_N; kk++) {
                gamma = max(gamma, -along(i, kk, s));
            }
        } else if tangential == TANGENTIAL_STICK {
            if s == 2u {
                let f = e_x[i * s + 1u];
                let kk = select(1u, 0u, f * constants[params.off_dirs] >= scalar(0.0));
                lcp_z[lam + kk] += max(f * constants[params.off_dirs + 2u * kk], scalar(0.0));
            } else {
                let f0 = e_x[i * s + 1u];
                let f1 = e_x[i * s + 2u];
                var best = 0u;
                var best_dot = constants[params.off_dirs] * f0 + constants[params.off_dirs + 1u] * f1;
                for (var kk = 1u; kk < d && kk < MAX_N; kk++) {
                    let dot = constants[params.off_dirs + 2u * kk] * f0 + constants[params.off_dirs + 2u * kk + 1u] * f1;
                    if dot > best_dot {
                        best_dot = dot;
                        best = kk;
                    }
                }
                let next = (best + 1u) % d;
                let prev = (best + d - 1u) % d;
                let dot_next = constants[params.off_dirs + 2u * next] * f0 + constants[params.off_dirs + 2u * next + 1u] * f1;
                let dot_prev = constants[params.off_dirs + 2u * prev] * f0 + constants[params.off_dirs + 2u * prev + 1u] * f1;
                let j = select(prev, next, dot_next >= dot_prev);
                let ab = split_on(best, j, f0, f1);
                lcp_z[lam + best] += ab.x;
                lcp_z[lam + j] += ab.y;
            }
        } else if tangential == TANGENTIAL_VERTEX {
            lcp_z[lam + k] = mu * lambda_n;
            gamma = max(-along(i, k, s), scalar(0.0));
        } else {
            let j = (k + 1u) % d;
            let ab = split_on(k, j, e_x[i * s + 1u], e_x[i * s + 2u]);
            lcp_z[lam + k] = ab.x;
            lcp_z[lam + j] = ab.y;
            gamma = max(scalar(-0.5) * (along(i, k, s) + along(i, j, s)), scalar(0.0));
        }
        lcp_z[size - m + i] = gamma;
    }
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
}

// The caps of a step in progress back into lcp_q[0..m].
fn resume_enumeration(sample: u32, m: u32) {
    let values = sample * params.enum_value_stride;
    for (var i = 0u; i < m && i < MAX_CONTACTS_ALL; i++) {
        lcp_q[i] = enum_values[values + i];
    }
}

// The next tuple of sample `sample`'s enumeration (`params.tuples`: done).
fn enumeration_cursor(sample: u32) -> u32 {
    return enum_words[sample * params.enum_word_stride];
}

// Tries at most `budget` tuples from the cursor on. Needs lcp_q = b_R and
// u = J v. Each new distinct Δv is kept with its tuple and whether its step
// violation (in the problem's units `velocity`, `impulse`) is within
// tolerance.
fn enumerate_tuples(sample: u32, budget: u32, velocity: scalar, impulse: scalar) -> u32 {
    let m = params.m;
    let d = params.d;
    let n = params.n;
    let s = params.s;
    let dim = params.dim;
    let size = params.size;
    let values = sample * params.enum_value_stride;
    let words = sample * params.enum_word_stride;
    reduced_step(m, d, s);
    var cursor = enum_words[words];
    var count = enum_words[words + 1u];
    var status = ENUM_YIELD;
    for (var tried = 0u; tried < budget; tried++) {
        if cursor >= params.tuples {
            break;
        }
        decode_tuple(cursor, m);
        if solve_tuple(m, s, dim) {
            velocity_change(n, dim);
            if !is_duplicate(n, count, values) {
                if count >= params.kept_cap {
                    status = ENUM_OVERFLOW;
                    break;
                }
                rebuild_z(m, d, s, size);
                let valid = step_residual(size, m, velocity, impulse) <= enum_scalar(3u);
                for (var r = 0u; r < n && r < MAX_DOF; r++) {
                    enum_values[values + 4u + count * n + r] = e_dv[r];
                }
                enum_words[words + 4u + count] = cursor | select(0u, KEPT_VALID, valid);
                count += 1u;
            }
        }
        cursor += 1u;
    }
    enum_words[words] = cursor;
    enum_words[words + 1u] = count;
    if status == ENUM_OVERFLOW {
        return ENUM_OVERFLOW;
    }
    return select(ENUM_YIELD, ENUM_DONE, cursor >= params.tuples);
}

// The pick of a finished enumeration: `index(word, k)` among the k kept
// solutions within tolerance, its z rebuilt into lcp_z; the number k of
// choices (0: none, the caller falls back to Lemke).
fn pick_enumerated(sample: u32) -> u32 {
    let words = sample * params.enum_word_stride;
    let count = enum_words[words + 1u];
    var valid = 0u;
    for (var k = 0u; k < count && k < params.kept_cap; k++) {
        valid += select(0u, 1u, (enum_words[words + 4u + k] & KEPT_VALID) != 0u);
    }
    if valid == 0u {
        return 0u;
    }
    let chosen = index(enum_words[words + 2u], valid);
    var seen = 0u;
    for (var k = 0u; k < count && k < params.kept_cap; k++) {
        let kept = enum_words[words + 4u + k];
        if (kept & KEPT_VALID) != 0u {
            if seen == chosen {
                reduced_step(params.m, params.d, params.s);
                decode_tuple(kept & ~KEPT_VALID, params.m);
                // Deterministic: the same solve as when it was kept.
                if !solve_tuple(params.m, params.s, params.dim) {
                    return 0u;
                }
                rebuild_z(params.m, params.d, params.s, params.size);
                break;
            }
            seen += 1u;
        }
    }
    return valid;
}
