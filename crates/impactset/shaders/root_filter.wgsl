// The root filter of the CPU's mode search (src/impact/enumerate/
// depth_first.rs `search`, with search.rs `fix` and `may_hold`): each mode of
// contact i is fixed alone, every other contact free, and dropped when one
// of its inequalities cannot hold for any admissible impulses of the others
// (x_j ∈ S_j = {λn ∈ [0, h p_j], f ∈ μ_j λn P}), beyond the pruning margin
// (1000 times the acceptance tolerance). Exact: it removes only tuples
// without solutions, so the tuples left, in their order, give the same
// solutions. Part of the `all` enumeration (enumerate.wgsl).
//
// Only contact i's rows of the CPU's tableau are needed: x_i and u⁺_i (s
// rows each), as affine functions of the free impulses (D columns and a
// constant).

// Rows 0..s: x_i, rows 3..3 + s: u⁺_i; stride MAX_DIM + 1.
var<private> f_rows: array<scalar, 6u * F_STRIDE>;
// The mode equations C u⁺_i = 0 as R y = E (q × q and q × (D + 1)) live in
// gauss_solve's g_mat and g_rhs (row stride F_STRIDE).
var<private> f_coef: array<scalar, F_STRIDE>;

const F_STRIDE: u32 = MAX_DIM + 1u;

// The largest value of aᵀ x_j over S_j (all its vertices: the origin and
// h p_j (1, μ_j d_k)), a = f_coef[j s .. j s + s] (`max_over_hull`).
fn max_over_vertices(j: u32, s: u32, d: u32) -> scalar {
    let mu = constant(all_table.off_mu + j);
    let c = cap(j);
    var best = scalar(0.0);
    for (var k = 0u; k < d && k < MAX_N; k++) {
        var along_k = scalar(0.0);
        for (var a = 0u; a + 1u < s && a < 2u; a++) {
            along_k += f_coef[j * s + 1u + a] * constant(params.off_dirs + 2u * k + a);
        }
        best = max(best, c * (f_coef[j * s] + mu * along_k));
    }
    return best;
}

// Whether mode g of contact i, fixed alone, may hold (`fix` then
// `may_hold` on the root tableau; a singular mode block keeps the mode).
fn mode_may_hold_alone(i: u32, g: u32, m: u32, s: u32, dim: u32, d: u32) -> bool {
    let cols = dim + 1u;
    let l0 = i * s;
    let c_i = cap(i);
    // The root rows: x_i = x_i, u⁺_i = u_i + W_i x.
    for (var a = 0u; a < s && a < 3u; a++) {
        for (var c = 0u; c < dim && c < MAX_DIM; c++) {
            f_rows[a * F_STRIDE + c] = select(scalar(0.0), scalar(1.0), c == l0 + a);
            f_rows[(3u + a) * F_STRIDE + c] = reduced_w(l0 + a, c);
        }
        f_rows[a * F_STRIDE + dim] = scalar(0.0);
        f_rows[(3u + a) * F_STRIDE + dim] = e_u[l0 + a];
    }
    // x_i = cap x₀ + G y: y takes contact i's first q columns.
    let q = mode_int(g, 0u);
    for (var rr = 0u; rr < 6u; rr++) {
        if rr % 3u >= s {
            continue;
        }
        var shift = scalar(0.0);
        var y = array<scalar, 3>(scalar(0.0), scalar(0.0), scalar(0.0));
        for (var c = 0u; c < s && c < 3u; c++) {
            let a = f_rows[rr * F_STRIDE + l0 + c];
            if a != scalar(0.0) {
                shift += a * mode_offset(g, c);
                for (var k = 0u; k < q && k < 3u; k++) {
                    y[k] += a * mode_basis(g, k, c);
                }
            }
        }
        f_rows[rr * F_STRIDE + dim] += c_i * shift;
        for (var c = 0u; c < s && c < 3u; c++) {
            f_rows[rr * F_STRIDE + l0 + c] = select(scalar(0.0), y[min(c, 2u)], c < q);
        }
    }
    if q > 0u {
        // C u⁺_i = 0 as R y = −(the rest).
        for (var k = 0u; k < q && k < 3u; k++) {
            for (var c = 0u; c < cols && c < F_STRIDE; c++) {
                var e = scalar(0.0);
                for (var a = 0u; a < s && a < 3u; a++) {
                    e -= mode_row(g, k, a) * f_rows[(3u + a) * F_STRIDE + c];
                }
                g_rhs[k * F_STRIDE + c] = e;
            }
            for (var kk = 0u; kk < q && kk < 3u; kk++) {
                g_mat[k * q + kk] = -g_rhs[k * F_STRIDE + l0 + kk];
                g_rhs[k * F_STRIDE + l0 + kk] = scalar(0.0);
            }
        }
        if !gauss_solve(q, cols, F_STRIDE, enum_scalar(2u)) {
            return true;
        }
        for (var rr = 0u; rr < 6u; rr++) {
            if rr % 3u >= s {
                continue;
            }
            var y = array<scalar, 3>(scalar(0.0), scalar(0.0), scalar(0.0));
            for (var k = 0u; k < q && k < 3u; k++) {
                y[k] = f_rows[rr * F_STRIDE + l0 + k];
                f_rows[rr * F_STRIDE + l0 + k] = scalar(0.0);
            }
            for (var k = 0u; k < q && k < 3u; k++) {
                if y[k] != scalar(0.0) {
                    for (var c = 0u; c < cols && c < F_STRIDE; c++) {
                        f_rows[rr * F_STRIDE + c] += y[k] * g_rhs[k * F_STRIDE + c];
                    }
                }
            }
        }
    }
    // Contact i's inequalities, bounded over the free contacts.
    let prune = enum_scalar(6u);
    let end = mode_int(g, 5u);
    for (var e = mode_int(g, 4u); e < end && e < all_table.inequalities; e++) {
        let base = all_table.off_ineq + e * INEQ_STRIDE;
        // Slack per scale (StepData::slack): λn and h p normal, f impulse.
        let l1n = abs(constant(base + 6u)) + abs(constant(base));
        let l1x = abs(constant(base + 1u)) + abs(constant(base + 2u));
        var l1u = scalar(0.0);
        for (var a = 0u; a < 3u; a++) {
            l1u += abs(constant(base + 3u + a));
        }
        for (var c = 0u; c < cols && c < F_STRIDE; c++) {
            var acc = scalar(0.0);
            for (var a = 0u; a < s && a < 3u; a++) {
                acc += constant(base + a) * f_rows[a * F_STRIDE + c] + constant(base + 3u + a) * f_rows[(3u + a) * F_STRIDE + c];
            }
            f_coef[c] = acc;
        }
        var upper = f_coef[dim] + constant(base + 6u) * c_i;
        for (var j = 0u; j < m && j < MAX_CONTACTS_ALL; j++) {
            if j != i {
                upper += max_over_vertices(j, s, d);
            }
        }
        if upper < -prune * (l1u * e_velocity_scale + l1x * e_impulse_scale + l1n * e_normal_scale) {
            return false;
        }
    }
    return true;
}

// The index of the k-th set bit of a 64-bit set (low, high word).
fn nth_set_bit(mask: vec2<u32>, k: u32) -> u32 {
    let low = countOneBits(mask.x);
    var v = mask.x;
    var skip = k;
    var base = 0u;
    if k >= low {
        v = mask.y;
        skip = k - low;
        base = 32u;
    }
    for (var j = 0u; j < skip && j < 32u; j++) {
        v &= v - 1u;
    }
    return base + firstTrailingBit(v);
}
