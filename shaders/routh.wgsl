// Algorithm 1 (model.md §5), one sample per invocation: the same steps, in
// the same order and with the same random words, as `run_sample` in
// src/sampling/sample.rs. Assembled after types.wgsl, chacha.wgsl and
// lemke.wgsl.
//
// Bindings (group 0):
//   0  params      RouthParams     sizes, step cap, rule, batch, offsets, key
//   1  constants   array<scalar>   per-problem constants shared by every
//                                  invocation, at the offsets in `params`:
//                                  A_R, J, M⁻¹Jᵀ, M, v⁻, then the scalars
//                                  h, termination threshold −ε_term·s,
//                                  pivot tolerance, residual tolerance
//   2  out_values  array<scalar>   per sample (stride n + 3): v⁺ (n),
//                                  max residual, energy before, energy after
//   3  out_words   array<u32>      per sample (stride 2): steps, FLAG_* bits
//   7  lemke_tableau array<scalar> N(2N + 2) scratch scalars per sample (lemke.wgsl)

@group(0) @binding(0) var<storage, read> params: RouthParams;
@group(0) @binding(1) var<storage, read> constants: array<scalar>;
@group(0) @binding(2) var<storage, read_write> out_values: array<scalar>;
@group(0) @binding(3) var<storage, read_write> out_words: array<u32>;

override WORKGROUP_SIZE: u32 = 64u;

// The sample's velocity v and contact velocities u = J v.
var<private> v: array<scalar, MAX_DOF>;
var<private> u: array<scalar, MAX_N>;

// The step matrix A_R, read by lemke.wgsl.
fn lcp_matrix(r: u32, c: u32, n: u32) -> scalar {
    return constants[params.off_a + r * n + c];
}

// ½ vᵀ M v.
fn kinetic_energy(n: u32) -> scalar {
    var e = scalar(0.0);
    for (var i = 0u; i < n && i < MAX_DOF; i++) {
        var mv = scalar(0.0);
        for (var j = 0u; j < n && j < MAX_DOF; j++) {
            mv += constants[params.off_mass + i * n + j] * v[j];
        }
        e += v[i] * mv;
    }
    return scalar(0.5) * e;
}

// u = J v.
fn contact_velocities(n: u32, impulses: u32) {
    for (var r = 0u; r < impulses && r < MAX_N; r++) {
        var s = scalar(0.0);
        for (var c = 0u; c < n && c < MAX_DOF; c++) {
            s += constants[params.off_j + r * n + c] * v[c];
        }
        u[r] = s;
    }
}

// v ← v + M⁻¹Jᵀ λ, λ = z[m .. m + impulses] of the step LCP.
fn apply_impulse(n: u32, m: u32, impulses: u32) {
    for (var r = 0u; r < n && r < MAX_DOF; r++) {
        var s = scalar(0.0);
        for (var c = 0u; c < impulses && c < MAX_N; c++) {
            s += constants[params.off_minv_jt + r * impulses + c] * lcp_z[m + c];
        }
        v[r] += s;
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn routh_sample(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let n = params.n;
    let m = params.m;
    let size = params.size;
    let impulses = params.impulses;
    if i >= params.count || n > MAX_DOF || size > MAX_N || impulses > size {
        return;
    }
    // Sample index (64 bits) = first + i; selection stream = index + 2⁶³.
    let lo = params.first_lo + i;
    let hi = params.first_hi + select(0u, 1u, lo < i);
    tableau_base = i * size * (2u * size + 2u);
    var caps = stream_new(params.key, lo, hi);
    var choice = stream_new(params.key, lo, hi ^ 0x80000000u);

    let h = constants[params.off_scalars];
    let term = constants[params.off_scalars + 1u];
    let tol = constants[params.off_scalars + 2u];
    let residual_tol = constants[params.off_scalars + 3u];

    for (var k = 0u; k < n && k < MAX_DOF; k++) {
        v[k] = constants[params.off_v + k];
    }
    let energy_before = kinetic_energy(n);
    var max_residual = scalar(0.0);
    var steps = 0u;
    var terminated = false;
    var failed = false;
    // At most K + 1 velocity checks; K + 2 bounds the loop.
    for (var guard = 0u; guard <= params.max_steps + 1u; guard++) {
        contact_velocities(n, impulses);
        var min_normal = u[0];
        for (var c = 1u; c < m && c < MAX_N; c++) {
            min_normal = min(min_normal, u[c]);
        }
        if min_normal >= term {
            terminated = true;
            break;
        }
        if steps >= params.max_steps {
            break;
        }
        // b_R = [h·p; J v; 0].
        for (var c = 0u; c < m && c < MAX_N; c++) {
            lcp_q[c] = h * unit(next_word(&caps));
        }
        for (var c = 0u; c < impulses && c < MAX_N; c++) {
            lcp_q[m + c] = u[c];
        }
        for (var c = m + impulses; c < size && c < MAX_N; c++) {
            lcp_q[c] = scalar(0.0);
        }
        var offset = 0u;
        if params.selection == 1u {
            // random-lemke: covering vector d_j ∈ (0, 1], then the column offset.
            for (var c = 0u; c < size && c < MAX_N; c++) {
                lcp_cover[c] = positive_unit(next_word(&choice));
            }
            offset = index(next_word(&choice), size);
        } else {
            for (var c = 0u; c < size && c < MAX_N; c++) {
                lcp_cover[c] = scalar(1.0);
            }
        }
        let result = solve_covered(size, offset, tol, params.pivot_cap);
        steps += 1u;
        if result.status != LEMKE_SOLVED {
            failed = true;
            break;
        }
        max_residual = max(max_residual, lcp_residual(size));
        apply_impulse(n, m, impulses);
    }
    let energy_after = kinetic_energy(n);

    let stride = params.out_stride;
    for (var k = 0u; k < n && k < MAX_DOF; k++) {
        out_values[i * stride + k] = v[k];
    }
    out_values[i * stride + n] = max_residual;
    out_values[i * stride + n + 1u] = energy_before;
    out_values[i * stride + n + 2u] = energy_after;
    var flags = 0u;
    if terminated {
        flags |= FLAG_TERMINATED;
    }
    if terminated && !failed && max_residual <= residual_tol {
        flags |= FLAG_ACCEPTED;
    }
    if failed {
        flags |= FLAG_LCP_FAILED;
    }
    out_words[2u * i] = steps;
    out_words[2u * i + 1u] = flags;
}
