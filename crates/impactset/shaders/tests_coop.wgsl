// `lemke_solve` by one workgroup per problem (lemke_coop.wgsl), compared
// with the CPU and with the one-invocation kernel by tests/gpu_coop.rs.
// Assembled after tests.wgsl (its bindings and `lcp_matrix`) and
// lemke_coop.wgsl; workgroup w solves problems w, w + groups, …

@compute @workgroup_size(COOP_THREADS)
fn lemke_solve_coop(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    coop_t = lid;
    if lid == 0u {
        coop_clear();
    }
    workgroupBarrier();
    let n = test_params.size;
    if n > MAX_N || n == 0u {
        return;
    }
    let per = n * n + 2u * n;
    let tol = test_scalars_in[test_params.count * per];
    let tie = test_scalars_in[test_params.count * per + 1u];
    for (var i = wid.x; i < test_params.count; i += groups.x) {
        test_a_offset = i * per;
        use_tableau_slot(i, test_params.count, n, false);
        for (var j = 0u; j < n; j++) {
            lcp_q[j] = test_scalars_in[i * per + n * n + j];
            lcp_cover[j] = test_scalars_in[i * per + n * n + n + j];
        }
        let result = coop_solve_covered(n, test_words_in[i], tol, tie, test_params.pivot_cap);
        if lid == 0u {
            let violation = lcp_residual(n);
            for (var j = 0u; j < n; j++) {
                test_scalars_out[i * (n + 1u) + j] = lcp_z[j];
            }
            test_scalars_out[i * (n + 1u) + n] = violation;
            test_words_out[2u * i] = result.pivots;
            test_words_out[2u * i + 1u] = result.status;
        }
        workgroupBarrier();
    }
}
