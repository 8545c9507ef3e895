// Algorithm 1 with one workgroup per sample (lemke_coop.wgsl): the
// inelastic steps of `lemke` and `random-lemke`, as routh_sample runs them
// (same words, same order, same outputs), for step LCPs above the plan's
// threshold (docs/gpu.md, "Kernels"). Assembled after routh.wgsl, whose
// bindings and helpers it shares; restitution and `all` keep routh_sample.
//
// Every invocation of the workgroup runs the sample's scalar work (its
// streams, caps, v, u = J v) on private copies, all equal; the Lemke solve
// and the step residual are split among them. Invocation 0 writes the
// outputs. Each loop that holds a barrier exits on a broadcast decision.
//
// Workgroup w runs samples w, w + groups, … of the dispatch (groups =
// the workgroups dispatched, at most the device's limit per dimension), in
// its own tableau slot per sample.

@compute @workgroup_size(COOP_THREADS)
fn routh_sample_coop(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    coop_t = lid;
    if lid == 0u {
        coop_clear();
        atomicStore(&coop_cut, 0u);
    }
    workgroupBarrier();
    let n = params.n;
    let size = params.size;
    if n > MAX_DOF || size > MAX_N || params.impulses > size || params.m == 0u {
        return;
    }
    for (var i = wid.x; i < params.count; i += groups.x) {
        coop_sample(i);
    }
}

// Sample slot i of the dispatch, by the whole workgroup.
fn coop_sample(i: u32) {
    let n = params.n;
    let m = params.m;
    let size = params.size;
    let impulses = params.impulses;
    let stride = params.v_stride;
    var flags = coop_broadcast(out_words[2u * i + 1u]);
    if (flags & FLAG_DONE) != 0u {
        return;
    }
    use_tableau_slot(i, params.count, size, false);
    let stream = start_sample(i, m);
    let key = stream.key;
    let lo = stream.lo;
    let hi = stream.hi;

    let h = constant(params.off_scalars);
    let term = constant(params.off_scalars + 1u);
    let tol = constant(params.off_scalars + 2u);
    let residual_tol = residual_tolerance();
    let tie = constant(params.off_scalars + 4u);
    let velocity_scale = constant(params.off_scalars + 5u);
    lemke_relative_tol = constant(params.off_scalars + 6u);

    var max_residual = scalar(0.0);
    var energy_before = scalar(0.0);
    var steps = 0u;
    if (flags & FLAG_STARTED) == 0u {
        for (var k = 0u; k < n && k < MAX_DOF; k++) {
            v[k] = constant(params.off_v + k);
        }
        energy_before = kinetic_energy(n);
        flags = FLAG_STARTED;
    } else {
        for (var k = 0u; k < n && k < MAX_DOF; k++) {
            v[k] = out_v[i * stride + k];
        }
        max_residual = out_stats[3u * i];
        energy_before = out_stats[3u * i + 1u];
        steps = out_words[2u * i];
    }
    var caps = stream_at(key, lo, hi, stream_pos[2u * i]);
    var choice = stream_at(key, lo, hi ^ 0x80000000u, stream_pos[2u * i + 1u]);

    var taken = 0u;
    for (var guard = 0u; guard <= params.steps_per_dispatch; guard++) {
        contact_velocities(n, impulses);
        var min_normal = u[0];
        for (var c = 1u; c < m && c < MAX_N; c++) {
            min_normal = min(min_normal, u[c]);
        }
        // 1: terminated, 2: at the step cap, 3: this dispatch's steps taken.
        var stop = 0u;
        if min_normal >= term {
            stop = 1u;
        } else if steps >= params.max_steps {
            stop = 2u;
        } else if taken >= params.steps_per_dispatch {
            stop = 3u;
        }
        stop = coop_broadcast(stop);
        if stop == 1u {
            flags |= FLAG_TERMINATED | FLAG_DONE;
            break;
        }
        if stop == 2u {
            flags |= FLAG_DONE;
            break;
        }
        if stop == 3u {
            break;
        }
        for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
            approaching[c] = u[c] < term;
        }
        schedule_draw(&caps, key, lo, hi, steps, m);
        for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
            lcp_q[c] = h * cap_value(step_caps[c]);
        }
        for (var c = 0u; c < impulses && c < MAX_N; c++) {
            lcp_q[m + c] = u[c];
        }
        for (var c = m + impulses; c < size && c < MAX_N; c++) {
            lcp_q[c] = scalar(0.0);
        }
        var offset = 0u;
        if params.selection == SELECTION_RANDOM_LEMKE {
            for (var c = 0u; c < size && c < MAX_N; c++) {
                lcp_cover[c] = cover(next_word(&choice));
            }
            offset = index(next_word(&choice), size);
        } else {
            for (var c = 0u; c < size && c < MAX_N; c++) {
                lcp_cover[c] = scalar(1.0);
            }
        }
        let result = coop_solve_scaled(size, offset, tol, tie, params.pivot_cap);
        steps += 1u;
        taken += 1u;
        if result.status == LEMKE_LOOP_EXHAUSTED {
            flags |= FLAG_LOOP_LIMIT;
        }
        if result.status != LEMKE_SOLVED {
            flags |= FLAG_LCP_FAILED | FLAG_DONE;
            break;
        }
        max_residual = max(max_residual, coop_step_residual(size, m, velocity_scale, h));
        apply_impulse(n, m, impulses);
    }

    // Probe: a driver whose loop limiter has fired runs this loop once.
    var probe = 0u;
    for (var k = 0u; k < params.probe; k++) {
        probe += 1u;
    }
    if probe != params.probe {
        atomicOr(&coop_cut, 1u);
    }
    workgroupBarrier();
    if coop_t == 0u {
        if atomicLoad(&coop_cut) != 0u {
            flags |= FLAG_LOOP_LIMIT;
        }
        atomicStore(&coop_cut, 0u);
        for (var k = 0u; k < n && k < MAX_DOF; k++) {
            out_v[i * stride + k] = v[k];
        }
        out_stats[3u * i] = max_residual;
        out_stats[3u * i + 1u] = energy_before;
        if (flags & FLAG_DONE) != 0u {
            out_stats[3u * i + 2u] = kinetic_energy(n);
            if (flags & FLAG_TERMINATED) != 0u && (flags & FLAG_LCP_FAILED) == 0u && max_residual <= residual_tol {
                flags |= FLAG_ACCEPTED;
            }
        }
        out_words[2u * i] = steps;
        out_words[2u * i + 1u] = flags;
        stream_pos[2u * i] = caps.words;
        stream_pos[2u * i + 1u] = choice.words;
    }
    workgroupBarrier();
}

// `solve_scaled` by the workgroup.
fn coop_solve_scaled(size: u32, offset: u32, tol: scalar, tie: scalar, cap: u32) -> PivotResult {
    for (var c = 0u; c < size && c < MAX_N; c++) {
        lcp_q[c] *= row_scale(c);
        lcp_cover[c] *= cover_scale(c);
    }
    let result = coop_solve_covered(size, offset, tol, tie, cap);
    for (var c = 0u; c < size && c < MAX_N; c++) {
        lcp_q[c] /= row_scale(c);
        lcp_z[c] *= col_scale(c);
    }
    return result;
}

// `step_residual` with the rows split among the invocations (the largest
// term is the same whatever the order).
fn coop_step_residual(size: u32, m: u32, velocity: scalar, impulse: scalar) -> scalar {
    var violation = scalar(0.0);
    for (var i = coop_t; i < size; i += COOP_THREADS) {
        let w = lcp_q[i] + matrix_row_times_z(i, size);
        violation = max(violation, residual_term(i, m, size, w, velocity, impulse));
    }
    return -coop_min(-violation);
}
