// Algorithm 1 with one workgroup per sample (lemke_coop.wgsl): the steps
// of `lemke` and `random-lemke`, with restitution too (elastic_step.wgsl),
// as routh_sample runs them (same words, same order, same outputs), for
// step LCPs above the plan's threshold (docs/gpu.md, "Kernels").
// Assembled after routh.wgsl, whose bindings (and restitution's, 10) and
// helpers it shares; `all` keeps routh_sample.
//
// Every invocation of the workgroup runs the sample's scalar work (its
// streams, caps, v, u = J v, restitution's accounts) on private copies,
// all equal; the Lemke solve and the step residual are split among them.
// A coupled correction's continuation (LU factors in the sample's tableau
// slot) runs on invocation 0 and its results are broadcast; a step the CPU
// would retry by the enumerator goes to the host (FLAG_HOST), which it
// does on no problem above 44 rows (src/gpu/enumerate.rs,
// `retries_on_device`). Invocation 0 writes the outputs. Each loop that
// holds a barrier exits on a broadcast decision.
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

    let scalars = step_scalars();
    let h = scalars.h;
    let term = scalars.term;
    let tol = scalars.tol;
    let residual_tol = residual_tolerance();
    let tie = scalars.tie;
    let velocity_scale = scalars.velocity_scale;

    let elastic = params.elastic != 0u;
    var guarded = (flags & FLAG_GUARDED) != 0u;
    if elastic {
        load_expansion(i, m, (flags & FLAG_STARTED) != 0u);
    }
    let progress = resume_sample(i, n, (flags & FLAG_STARTED) != 0u);
    var max_residual = progress.max_residual;
    let energy_before = progress.energy_before;
    var steps = progress.steps;
    flags |= FLAG_STARTED;
    var caps = stream_at(key, lo, hi, stream_pos[2u * i]);
    var choice = stream_at(key, lo, hi ^ 0x80000000u, stream_pos[2u * i + 1u]);

    var taken = 0u;
    for (var guard = 0u; guard <= params.steps_per_dispatch; guard++) {
        contact_velocities(n, impulses);
        var min_normal = u[0];
        for (var c = 1u; c < m && c < MAX_N; c++) {
            min_normal = min(min_normal, u[c]);
        }
        // With restitution the impact also goes on while a contact owes
        // expansion work.
        var owes_work = false;
        if elastic {
            owes_work = any_expanding(m);
        }
        // 1: terminated, 2: at the step cap, 3: this dispatch's steps taken.
        var stop = 0u;
        if min_normal >= term && !owes_work {
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
        if elastic {
            mark_expanding(m);
        }
        schedule_draw(&caps, key, lo, hi, steps, m);
        for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
            lcp_q[c] = h * cap_value(step_caps[c]);
        }
        if elastic {
            keep_step_caps(m);
            elastic_sample = i;
            let outcome = coop_elastic_step(n, m, size, impulses, tol, tie, velocity_scale, h, &choice, &guarded);
            steps += 1u;
            taken += 1u;
            let status = coop_broadcast(outcome.status);
            if status == ELASTIC_HOST {
                flags |= FLAG_HOST | FLAG_DONE;
                break;
            }
            if status != ELASTIC_SOLVED {
                flags |= FLAG_LCP_FAILED | FLAG_DONE;
                break;
            }
            max_residual = max(max_residual, outcome.residual);
            continue;
        }
        for (var c = 0u; c < impulses && c < MAX_N; c++) {
            lcp_q[m + c] = u[c];
        }
        for (var c = m + impulses; c < size && c < MAX_N; c++) {
            lcp_q[c] = scalar(0.0);
        }
        let offset = draw_cover(size, params.selection == SELECTION_RANDOM_LEMKE, &choice);
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
            if elastic {
                // Restitution: the host runs the sample again on the CPU.
                flags |= FLAG_HOST | FLAG_DONE;
            }
        }
        atomicStore(&coop_cut, 0u);
        if elastic {
            store_expansion(i, m);
            if guarded {
                flags |= FLAG_GUARDED;
            }
        }
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

// `elastic_step` by the workgroup: each question of elastic_next (every
// invocation runs it on its equal private copies; the question is
// broadcast) answered with the workgroup's Lemke solve and step residual,
// the continuation on invocation 0 (`coop_continue`); the enumerator's
// retry goes to the host.
fn coop_elastic_step(n: u32, m: u32, size: u32, impulses: u32, tol: scalar, tie: scalar, velocity_scale: scalar,
                     h: scalar, choice: ptr<function, Stream>, guarded: ptr<function, bool>) -> ElasticOutcome {
    elastic_begin();
    var reply = ElasticReply(ELASTIC_SOLVED, scalar(0.0), false, false);
    for (var ask = 0u; ask < ELASTIC_ASKS; ask++) {
        let what = coop_broadcast(elastic_next(n, m, size, impulses, velocity_scale, h, choice, guarded, reply));
        if what == ASK_NOTHING {
            return elastic_outcome;
        }
        if what == ASK_LEMKE {
            let result = coop_solve_scaled(size, elastic_lex, tol, tie, params.pivot_cap);
            let status = coop_broadcast(result.status);
            var residual = scalar(0.0);
            if status == LEMKE_SOLVED {
                residual = coop_step_residual(size, m, velocity_scale, h);
            }
            reply = ElasticReply(status, residual, false, false);
        } else if what == ASK_ENUMERATE {
            reply = ElasticReply(ELASTIC_HOST, scalar(0.0), false, false);
        } else {
            reply = coop_continue(m, size, impulses, velocity_scale, h);
        }
    }
    return ElasticOutcome(ELASTIC_HOST, scalar(0.0));
}

// ASK_CONTINUE: invocation 0 runs `elastic_continue` (its LU factors in
// the sample's tableau slot, which the last solve has left) and
// broadcasts what the step reads after it: lcp_z, lcp_q, the prescribed
// impulses, the residual and the two answers.
fn coop_continue(m: u32, size: u32, impulses: u32, velocity_scale: scalar, h: scalar) -> ElasticReply {
    storageBarrier();
    workgroupBarrier();
    var answers = 0u;
    if coop_t == 0u {
        let reply = elastic_continue(m, size, impulses, velocity_scale, h);
        answers = select(0u, 1u, reply.coupled) | select(0u, 2u, reply.continued);
        for (var c = 0u; c < size && c < MAX_N; c++) {
            coop_row[c] = lcp_z[c];
            coop_col[c] = lcp_q[c];
        }
        for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
            coop_row[size + c] = expansion_offset[c];
        }
        coop_reduce[0] = reply.residual;
    }
    storageBarrier();
    answers = coop_broadcast(answers);
    for (var c = 0u; c < size && c < MAX_N; c++) {
        lcp_z[c] = coop_row[c];
        lcp_q[c] = coop_col[c];
    }
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        expansion_offset[c] = coop_row[size + c];
    }
    let residual = coop_reduce[0];
    workgroupBarrier();
    return ElasticReply(ELASTIC_SOLVED, residual, (answers & 1u) != 0u, (answers & 2u) != 0u);
}
