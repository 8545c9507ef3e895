// From a mode solution (x, u⁺) to the full step-LCP solution
// z = [σ; λn; λD; γ] in lcp_z: the GPU side of
// src/impact/enumerate/rebuild.rs. Part of the `all` enumeration
// (enumerate.wgsl).

// Σ_a d_k[a] u⁺_t[a] of contact i.
fn along(i: u32, k: u32, s: u32) -> scalar {
    var acc = scalar(0.0);
    for (var a = 0u; a + 1u < s && a < 2u; a++) {
        acc += constant(params.off_dirs + 2u * k + a) * e_up[i * s + 1u + a];
    }
    return acc;
}

// f = a d_k + b d_j, clamped at zero (`split_on` of rebuild.rs).
fn split_on(k: u32, j: u32, f0: scalar, f1: scalar) -> vec2<scalar> {
    let dk0 = constant(params.off_dirs + 2u * k);
    let dk1 = constant(params.off_dirs + 2u * k + 1u);
    let dj0 = constant(params.off_dirs + 2u * j);
    let dj1 = constant(params.off_dirs + 2u * j + 1u);
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
        let mu = constant(all_table.off_mu + i);
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
                let kk = select(1u, 0u, f * constant(params.off_dirs) >= scalar(0.0));
                lcp_z[lam + kk] += max(f * constant(params.off_dirs + 2u * kk), scalar(0.0));
            } else {
                let f0 = e_x[i * s + 1u];
                let f1 = e_x[i * s + 2u];
                var best = 0u;
                var best_dot = constant(params.off_dirs) * f0 + constant(params.off_dirs + 1u) * f1;
                for (var kk = 1u; kk < d && kk < MAX_N; kk++) {
                    let dot = constant(params.off_dirs + 2u * kk) * f0 + constant(params.off_dirs + 2u * kk + 1u) * f1;
                    if dot > best_dot {
                        best_dot = dot;
                        best = kk;
                    }
                }
                let next = (best + 1u) % d;
                let prev = (best + d - 1u) % d;
                let dot_next = constant(params.off_dirs + 2u * next) * f0 + constant(params.off_dirs + 2u * next + 1u) * f1;
                let dot_prev = constant(params.off_dirs + 2u * prev) * f0 + constant(params.off_dirs + 2u * prev + 1u) * f1;
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
