// Test kernels: the ChaCha8 words, the caps of a step and single Lemke
// solves, compared with the CPU by tests/gpu_chacha.rs, tests/gpu_schedule.rs
// and tests/gpu_lemke.rs. Assembled after types.wgsl, chacha.wgsl,
// schedule.wgsl and lemke.wgsl.
//
// Bindings (group 0):
//   0  test_params       TestParams        count, sizes, key
//   1  test_words_in     array<u32>        chacha: (stream_lo, stream_hi) per stream;
//                                          schedule: (index lo, index hi, law, step, approaching bits) per query;
//                                          lemke: lexicographic offset per problem
//   2  test_scalars_in   array<scalar>     lemke: per problem A (N×N), q (N), cover (N); pivot and tie tolerances at the end
//   3  test_words_out    array<u32>        chacha: `size` words per stream; schedule: `size` caps P per query;
//                                          lemke: (pivots, status) per problem
//   4  test_scalars_out  array<scalar>     lemke: z (N) and residual violation per problem
//   7  lemke_tableau     array<scalar>     lemke: N · tableau_stride(N) scratch scalars per problem (lemke.wgsl)

@group(0) @binding(0) var<storage, read> test_params: TestParams;
@group(0) @binding(1) var<storage, read> test_words_in: array<u32>;
@group(0) @binding(2) var<storage, read> test_scalars_in: array<scalar>;
@group(0) @binding(3) var<storage, read_write> test_words_out: array<u32>;
@group(0) @binding(4) var<storage, read_write> test_scalars_out: array<scalar>;

override WORKGROUP_SIZE: u32 = 64u;

// Offset of the current problem's A in `test_scalars_in` (read by lcp_matrix).
var<private> test_a_offset: u32;

fn lcp_matrix(r: u32, c: u32, n: u32) -> scalar {
    return test_scalars_in[test_a_offset + r * n + c];
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn chacha_words(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i >= test_params.count || i >= arrayLength(&test_words_in) / 2u {
        return;
    }
    var s = stream_new(test_params.key, test_words_in[2u * i], test_words_in[2u * i + 1u]);
    let words = test_params.size;
    for (var k = 0u; k < words && k < 4096u; k++) {
        test_words_out[i * words + k] = next_word(&s);
    }
}

// The caps P_i of one step of one sample for m = `size` contacts (as
// routh.wgsl draws them): the law resolved from the schedule stream, the cap
// stream at word step·m (where `uniform` and `extreme`, which read m words
// a step, leave it), contact i approaching when bit i is set, the step cap K
// last (six words a query).
@compute @workgroup_size(WORKGROUP_SIZE)
fn schedule_caps(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let m = test_params.size;
    if i >= test_params.count || i >= arrayLength(&test_words_in) / 6u || m > MAX_CONTACTS {
        return;
    }
    let lo = test_words_in[6u * i];
    let hi = test_words_in[6u * i + 1u];
    let step = test_words_in[6u * i + 3u];
    let bits = test_words_in[6u * i + 4u];
    schedule_start(test_words_in[6u * i + 2u], test_params.key, lo, hi, m, test_words_in[6u * i + 5u]);
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        approaching[c] = ((bits >> c) & 1u) == 1u;
    }
    var caps = stream_at(test_params.key, lo, hi, step * m);
    schedule_draw(&caps, test_params.key, lo, hi, step, m);
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        test_words_out[i * m + c] = step_caps[c];
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn lemke_solve(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let n = test_params.size;
    if i >= test_params.count || n > MAX_N || n == 0u {
        return;
    }
    let per = n * n + 2u * n;
    test_a_offset = i * per;
    use_tableau_slot(i, test_params.count, n, test_params.interleave != 0u);
    for (var j = 0u; j < n; j++) {
        lcp_q[j] = test_scalars_in[i * per + n * n + j];
        lcp_cover[j] = test_scalars_in[i * per + n * n + n + j];
    }
    let tol = test_scalars_in[test_params.count * per];
    let tie = test_scalars_in[test_params.count * per + 1u];
    let result = solve_covered(n, test_words_in[i], tol, tie, test_params.pivot_cap);
    let violation = lcp_residual(n);
    for (var j = 0u; j < n; j++) {
        test_scalars_out[i * (n + 1u) + j] = lcp_z[j];
    }
    test_scalars_out[i * (n + 1u) + n] = violation;
    test_words_out[2u * i] = result.pivots;
    test_words_out[2u * i + 1u] = result.status;
}
