// Algorithm 1 with one workgroup per sample (lemke_coop.wgsl): the steps
// of `lemke` and `random-lemke`, with restitution too (elastic_step.wgsl),
// as routh_sample runs them (same words, same order, same outputs), for
// step LCPs above the plan's threshold (docs/gpu.md, "Kernels").
// Assembled after routh.wgsl and slot.wgsl, whose bindings (and
// restitution's, 10) and helpers (a slot's start, step checks and end) it
// shares; `all` keeps routh_sample.
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
    var flags = coop_broadcast(out_words[2u * i + 1u]);
    if (flags & FLAG_DONE) != 0u {
        return;
    }
    use_tableau_slot(i, params.count, size, false);
    let start = begin_slot(i, n, m, (flags & FLAG_STARTED) != 0u);
    let stream = start.stream;
    let sc = start.scalars;
    let elastic = params.elastic != 0u;
    var guarded = (flags & FLAG_GUARDED) != 0u;
    var max_residual = start.progress.max_residual;
    var steps = start.progress.steps;
    flags |= FLAG_STARTED;
    var caps = stream_at(stream.key, stream.lo, stream.hi, stream_pos[2u * i]);
    var choice = stream_at(stream.key, stream.lo, stream.hi ^ 0x80000000u, stream_pos[2u * i + 1u]);

    var taken = 0u;
    for (var guard = 0u; guard <= params.steps_per_dispatch; guard++) {
        contact_velocities(n, impulses);
        let stop = coop_broadcast(stop_before_step(m, sc.term, steps, taken));
        if stop != STOP_NONE {
            flags |= stop_flags(stop);
            break;
        }
        draw_step_caps(&caps, stream, steps, m, sc.h, sc.term);
        if elastic {
            elastic_sample = i;
            let outcome = coop_elastic_step(n, m, size, impulses, sc.tol, sc.tie, sc.velocity_scale, sc.h, &choice, &guarded);
            steps += 1u;
            taken += 1u;
            let ended = elastic_end_flags(coop_broadcast(outcome.status));
            if ended != 0u {
                flags |= ended;
                break;
            }
            max_residual = max(max_residual, outcome.residual);
            continue;
        }
        fill_step_rhs(m, impulses, size);
        let offset = draw_cover(size, params.selection == SELECTION_RANDOM_LEMKE, &choice);
        let result = coop_solve_scaled(size, offset, sc.tol, sc.tie, params.pivot_cap);
        steps += 1u;
        taken += 1u;
        if result.status != LEMKE_SOLVED {
            flags |= lemke_end_flags(result.status);
            break;
        }
        max_residual = max(max_residual, coop_step_residual(size, m, sc.velocity_scale, sc.h));
        apply_impulse(n, m, impulses);
    }

    if loop_limit_fired() {
        atomicOr(&coop_cut, 1u);
    }
    workgroupBarrier();
    if coop_t == 0u {
        let cut = atomicLoad(&coop_cut) != 0u;
        atomicStore(&coop_cut, 0u);
        end_slot(i, n, m, SlotEnd(flags, steps, max_residual, start.progress.energy_before, guarded, caps.words, choice.words), cut);
    }
    workgroupBarrier();
}

// `solve_scaled` by the workgroup.
fn coop_solve_scaled(size: u32, offset: u32, tol: scalar, tie: scalar, cap: u32) -> PivotResult {
    scale_step_lcp(size);
    let result = coop_solve_covered(size, offset, tol, tie, cap);
    unscale_step_lcp(size);
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
