// The mode system of one tuple of contact modes (the GPU side of
// src/impact/enumerate/search.rs `solve_leaf` and gauss.rs): the mode table
// read from `constants`, x = h p x₀ + G y, the equations C u⁺ = 0 assembled
// and solved by Gaussian elimination with partial pivoting, then the leaf
// checks of depth_first.rs (equation residual, inequalities) within the
// acceptance tolerance. Part of the `all` enumeration (enumerate.wgsl).

// The layout of the mode table (src/gpu/enumerate.rs): scalars per mode and
// per inequality, and the codes of the normal and tangential parts.
const MODE_STRIDE: u32 = 27u;
const INEQ_STRIDE: u32 = 7u;
const NORMAL_OPEN: u32 = 0u;
const NORMAL_CLOSED: u32 = 1u;
const NORMAL_CAPPED: u32 = 2u;
const TANGENTIAL_NONE: u32 = 0u;
const TANGENTIAL_FREE: u32 = 1u;
const TANGENTIAL_STICK: u32 = 2u;
const TANGENTIAL_VERTEX: u32 = 3u;
const TANGENTIAL_EDGE: u32 = 4u;

fn mode_int(g: u32, field: u32) -> u32 {
    return u32(constant(all_table.off_modes + g * MODE_STRIDE + field));
}

fn mode_offset(g: u32, b: u32) -> scalar {
    return constant(all_table.off_modes + g * MODE_STRIDE + 6u + b);
}

// Column kk of G, entry b.
fn mode_basis(g: u32, kk: u32, b: u32) -> scalar {
    return constant(all_table.off_modes + g * MODE_STRIDE + 9u + 3u * kk + b);
}

// Row k of C, entry a.
fn mode_row(g: u32, k: u32, a: u32) -> scalar {
    return constant(all_table.off_modes + g * MODE_STRIDE + 18u + 3u * k + a);
}

fn reduced_w(r: u32, c: u32) -> scalar {
    return constant(all_table.off_w + r * all_table.dim + c);
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

// Gaussian elimination with partial pivoting (`solve_in_place` of
// gauss.rs), the one linear solver of the `all` shaders: g_mat holds an
// n × n matrix (row-major, n ≤ MAX_DIM) and g_rhs `cols` right-hand sides
// (row r's at r · stride, cols ≤ GAUSS_MAX_COLS), which become the
// solutions; false when a pivot is at most `tiny` (or NaN). The mode systems
// solve one right-hand side, the root filter's mode blocks several.
const GAUSS_MAX_COLS: u32 = MAX_DIM + 1u;

fn gauss_solve(n: u32, cols: u32, stride: u32, tiny: scalar) -> bool {
    for (var col = 0u; col < n && col < MAX_DIM; col++) {
        var p = col;
        var best = abs(g_mat[col * n + col]);
        for (var r = col + 1u; r < n && r < MAX_DIM; r++) {
            let v = abs(g_mat[r * n + col]);
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
            for (var c = col; c < n && c < MAX_DIM; c++) {
                let tmp = g_mat[p * n + c];
                g_mat[p * n + c] = g_mat[col * n + c];
                g_mat[col * n + c] = tmp;
            }
            for (var c = 0u; c < cols && c < GAUSS_MAX_COLS; c++) {
                let tmp = g_rhs[p * stride + c];
                g_rhs[p * stride + c] = g_rhs[col * stride + c];
                g_rhs[col * stride + c] = tmp;
            }
        }
        let inv = scalar(1.0) / g_mat[col * n + col];
        for (var r = col + 1u; r < n && r < MAX_DIM; r++) {
            let f = g_mat[r * n + col] * inv;
            if f != scalar(0.0) {
                for (var c = col + 1u; c < n && c < MAX_DIM; c++) {
                    g_mat[r * n + c] -= f * g_mat[col * n + c];
                }
                for (var c = 0u; c < cols && c < GAUSS_MAX_COLS; c++) {
                    g_rhs[r * stride + c] -= f * g_rhs[col * stride + c];
                }
            }
        }
    }
    for (var rr = 0u; rr < n && rr < MAX_DIM; rr++) {
        let row = n - 1u - rr;
        let inv = scalar(1.0) / g_mat[row * n + row];
        for (var c = 0u; c < cols && c < GAUSS_MAX_COLS; c++) {
            var acc = g_rhs[row * stride + c];
            for (var j = row + 1u; j < n && j < MAX_DIM; j++) {
                acc -= g_mat[row * n + j] * g_rhs[j * stride + c];
            }
            g_rhs[row * stride + c] = acc * inv;
        }
    }
    return true;
}

// The modes of tuple t among the modes left by the root filter (bit sets
// `masks[i]` over contact i's modes): contact 0 most significant, each
// contact's modes in table order.
fn decode_tuple(t: u32, m: u32, masks: array<vec2<u32>, MAX_CONTACTS_ALL>) {
    var rest = t;
    for (var k = 0u; k < m && k < MAX_CONTACTS_ALL; k++) {
        let i = m - 1u - k;
        let count = countOneBits(masks[i].x) + countOneBits(masks[i].y);
        e_choice[i] = all_table.mode_start[i] + nth_set_bit(masks[i], rest % count);
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
    if total > all_table.rank {
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
                g_rhs[row] = -r;
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
                        g_mat[row * total + col_start[j] + kk] = v;
                    }
                }
                row += 1u;
            }
        }
        if !gauss_solve(total, 1u, 1u, enum_scalar(2u)) {
            return false;
        }
        for (var j = 0u; j < m && j < MAX_CONTACTS_ALL; j++) {
            let gj = e_choice[j];
            for (var kk = 0u; kk < mode_int(gj, 0u) && kk < 3u; kk++) {
                let y = g_rhs[col_start[j] + kk];
                for (var b = 0u; b < s && b < 3u; b++) {
                    e_x[j * s + b] += y * mode_basis(gj, kk, b);
                }
            }
        }
    }
    post_velocity(dim, true);
    let accept = enum_scalar(0u);
    // `leaf_velocity_scale` of search.rs: the size of the terms of u + W x.
    var velocity = scalar(s) * enum_scalar(5u) * e_normal_scale;
    for (var r = 0u; r < dim && r < MAX_DIM; r++) {
        var terms = scalar(0.0);
        for (var c = 0u; c < dim && c < MAX_DIM; c++) {
            terms += abs(reduced_w(r, c) * e_x[c]);
        }
        velocity = max(velocity, max(abs(e_u[r]), terms));
    }
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
        for (var e = mode_int(gi, 4u); e < end && e < all_table.inequalities; e++) {
            let base = all_table.off_ineq + e * INEQ_STRIDE;
            var v = constant(base + 6u) * cap(i);
            // Slack per scale (StepData::slack): λn and h p normal, f impulse.
            let l1n = abs(constant(base + 6u)) + abs(constant(base));
            var l1x = scalar(0.0);
            var l1u = scalar(0.0);
            for (var a = 0u; a < 3u; a++) {
                let ax = constant(base + a);
                let au = constant(base + 3u + a);
                if a > 0u {
                    l1x += abs(ax);
                }
                l1u += abs(au);
                if a < s {
                    v += ax * e_x[i * s + a] + au * e_up[i * s + a];
                }
            }
            if v < -accept * (l1u * velocity + l1x * impulse + l1n * e_normal_scale) {
                return false;
            }
        }
    }
    return true;
}
