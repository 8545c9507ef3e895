// Algorithm 1 (docs/model.md §5), one sample per invocation: the same steps, in
// the same order and with the same random words, as `run_sample` in
// src/sampling/sample.rs. Assembled after types.wgsl, chacha.wgsl,
// schedule.wgsl, lemke.wgsl, enumerate.wgsl (selection `all`) and
// restitution.wgsl (a problem with restitution, `params.elastic`: every
// step is elastic_step.wgsl's `elastic_step`, under every rule), before
// slot.wgsl (a slot's start, step checks and end, which the cooperative
// kernel shares).
//
// Bindings (group 0):
//   0  params      RouthParams     sizes, step cap, rule, cap law, batch, offsets
//   1  constants   array<scalar>   per-state constants, one block of
//                                  `state_stride` scalars per state, each
//                                  at the offsets in `params`: A_R, J,
//                                  M⁻¹Jᵀ, M, v⁻, then the scalars h,
//                                  termination threshold −ε_term·s, pivot
//                                  tolerance, residual tolerance, tie
//                                  tolerance (see solve_covered), velocity
//                                  scale, relative pivot tolerance
//                                  (lemke_relative_tol; 0 unless f32
//                                  equilibrated)
//   2  out_v       array<scalar>   per sample (stride n): v (v⁺ when done)
//   3  out_words   array<u32>      per sample (stride 2): steps, FLAG_* bits
//   4  out_stats   array<scalar>   per sample (stride 3): max residual,
//                                  energy before, energy after
//   5  stream_pos  array<u32>      per sample (stride 2): cap-stream and
//                                  selection-stream positions
//
// One buffer per output, so that the host reads back only those asked for.
// A sample takes at most `steps_per_dispatch` steps per dispatch and keeps
// its state (v, residual, steps, stream positions) in these buffers;
// the host dispatches until every sample is FLAG_DONE (out_words and
// stream_pos zeroed first). The result does not depend on `steps_per_dispatch`.
//   7  lemke_tableau array<scalar> N · tableau_stride(N) scratch scalars per sample (lemke.wgsl)
//   8  enum_values   array<scalar> `all` (and restitution's retries): per
//                                  sample, the step's caps and the kept
//                                  velocity changes (enumerate.wgsl)
//   9  enum_words    array<u32>    `all` (and restitution's retries): per
//                                  sample, the enumeration cursor, count,
//                                  selection word and kept tuples
//   6  state_keys    array<u32>    per state, its ChaCha8 key
//                                  (stream_key(seed)) as 8 little-endian words
//  10  expansion_state array<scalar> restitution: per sample, its works
//                                  (restitution.wgsl)
//  11  work_counter  array<atomic<u32>> persistent workers: the next sample
//                                  slot of the dispatch, and the most slots
//                                  an invocation takes (routh_sample)
//
// States of equal sizes are packed: a dispatch runs `count / row_samples`
// rows of `row_samples` samples, row r for state `state_first + r`, so that
// slot i runs sample `first + i % row_samples` of state
// `state_first + i / row_samples` (one state: row_samples = count).

@group(0) @binding(0) var<storage, read> params: RouthParams;
@group(0) @binding(1) var<storage, read> constants: array<scalar>;
@group(0) @binding(2) var<storage, read_write> out_v: array<scalar>;
@group(0) @binding(3) var<storage, read_write> out_words: array<u32>;
@group(0) @binding(4) var<storage, read_write> out_stats: array<scalar>;
@group(0) @binding(5) var<storage, read_write> stream_pos: array<u32>;
@group(0) @binding(6) var<storage, read> state_keys: array<u32>;
@group(0) @binding(11) var<storage, read_write> work_counter: array<atomic<u32>>;

override WORKGROUP_SIZE: u32 = 64u;

// The sample's velocity v and contact velocities u = J v.
var<private> v: array<scalar, MAX_DOF>;
var<private> u: array<scalar, MAX_N>;

// Where this invocation's state's constants start.
var<private> state_base: u32;

// Constant k of this invocation's state.
fn constant(k: u32) -> scalar {
    return constants[state_base + k];
}

// The run's step residual tolerance (the state's scalars, see the bindings):
// a sample is accepted below it, and restitution.wgsl hands a step above it
// to the host.
fn residual_tolerance() -> scalar {
    return constant(params.off_scalars + 3u);
}

// The step matrix A_R, read by lemke.wgsl.
fn lcp_matrix(r: u32, c: u32, n: u32) -> scalar {
    return constant(params.off_a + r * n + c);
}

// ½ vᵀ M v.
fn kinetic_energy(n: u32) -> scalar {
    var e = scalar(0.0);
    for (var i = 0u; i < n && i < MAX_DOF; i++) {
        var mv = scalar(0.0);
        for (var j = 0u; j < n && j < MAX_DOF; j++) {
            mv += constant(params.off_mass + i * n + j) * v[j];
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
            s += constant(params.off_j + r * n + c) * v[c];
        }
        u[r] = s;
    }
}

// v ← v + M⁻¹Jᵀ λ, λ = z[m .. m + impulses] of the step LCP.
fn apply_impulse(n: u32, m: u32, impulses: u32) {
    for (var r = 0u; r < n && r < MAX_DOF; r++) {
        var s = scalar(0.0);
        for (var c = 0u; c < impulses && c < MAX_N; c++) {
            s += constant(params.off_minv_jt + r * impulses + c) * lcp_z[m + c];
        }
        v[r] += s;
    }
}

// The scales of A_R: the equilibration in f32 (norms::equilibrate on the
// host), else the CPU's Lemke units (LemkeUnits, all 1 for a problem of
// ordinary units): lcp_matrix is diag(r) A_R diag(c).
fn row_scale(i: u32) -> scalar {
    return constant(params.off_scale + i);
}

fn col_scale(j: u32) -> scalar {
    return constant(params.off_scale + params.size + j);
}

// What the covering vector is multiplied by: the row scale r when A_R is
// equilibrated (so Lemke pivots as on A_R itself), 1 when the scales are the
// CPU's Lemke units (whose covering vector is drawn in those units).
fn cover_scale(j: u32) -> scalar {
    return constant(params.off_scale + 2u * params.size + j);
}

// solve_covered on the scaled step LCP: q scaled by r and the covering
// vector d by cover_scale, z' mapped back to z = c z'. The scales are powers
// of two, so q is restored exactly.
fn solve_scaled(size: u32, offset: u32, tol: scalar, tie: scalar, cap: u32) -> PivotResult {
    scale_step_lcp(size);
    let result = solve_covered(size, offset, tol, tie, cap);
    unscale_step_lcp(size);
    return result;
}

// q and the covering vector into the scaled step LCP's units, before a solve.
fn scale_step_lcp(size: u32) {
    for (var c = 0u; c < size && c < MAX_N; c++) {
        lcp_q[c] *= row_scale(c);
        lcp_cover[c] *= cover_scale(c);
    }
}

// q and the solution z back into the step LCP's units, after a solve.
fn unscale_step_lcp(size: u32) {
    for (var c = 0u; c < size && c < MAX_N; c++) {
        lcp_q[c] /= row_scale(c);
        lcp_z[c] *= col_scale(c);
    }
}

// One sample per invocation, or persistent workers: a dispatch of fewer
// invocations than samples (`GpuRunOptions::workers`) has each invocation
// take the next sample slot from `work_counter[0]` (zeroed by the host
// before every dispatch) until the batch's slots are all taken, so that an
// invocation whose sample ends early goes on with another instead of
// waiting for the slowest of its warp. An invocation takes at most
// `work_counter[1]` slots a dispatch (set by the host: every slot is still
// taken when it is at least count / invocations; on CPU adapters it is
// that share, so that lavapipe's loop limiter, which counts an
// invocation's iterations over the whole dispatch, sees a bounded number
// of slots). A slot's outcome depends only on its sample's stream and its
// own buffers, never on the invocation that runs it.
@compute @workgroup_size(WORKGROUP_SIZE)
fn routh_sample(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    // One call of run_slot: the driver's compiler inlines it once.
    let persistent = groups.x * WORKGROUP_SIZE < params.count;
    var i = gid.x;
    var left = 1u;
    if persistent {
        i = atomicAdd(&work_counter[0], 1u);
        left = atomicLoad(&work_counter[1]);
    }
    loop {
        if i >= params.count || left == 0u {
            break;
        }
        run_slot(i);
        left -= 1u;
        if !persistent || left == 0u {
            break;
        }
        i = atomicAdd(&work_counter[0], 1u);
    }
}

// Sample slot `i` of the dispatch: at most `steps_per_dispatch` more steps
// of its sample, from and into its state in the output buffers.
fn run_slot(i: u32) {
    let n = params.n;
    let m = params.m;
    let size = params.size;
    let impulses = params.impulses;
    if i >= params.count || n > MAX_DOF || size > MAX_N || impulses > size || m == 0u {
        return;
    }
    var flags = out_words[2u * i + 1u];
    if (flags & FLAG_DONE) != 0u {
        return;
    }
    use_tableau_slot(i, params.count, size, params.interleave != 0u);
    use_own_table();
    let start = begin_slot(i, n, m, (flags & FLAG_STARTED) != 0u);
    let stream = start.stream;
    let sc = start.scalars;
    let elastic = params.elastic != 0u;
    var guarded = (flags & FLAG_GUARDED) != 0u;
    var max_residual = start.progress.max_residual;
    var steps = start.progress.steps;
    if (flags & FLAG_STARTED) == 0u {
        flags = FLAG_STARTED;
        if params.selection == SELECTION_ALL {
            reset_fallback_steps(i);
        }
    }
    var caps = stream_at(stream.key, stream.lo, stream.hi, stream_pos[2u * i]);
    var choice = stream_at(stream.key, stream.lo, stream.hi ^ 0x80000000u, stream_pos[2u * i + 1u]);

    var taken = 0u;
    // At most steps_per_dispatch steps and one more check; with `all`, a step
    // whose enumeration spent this dispatch's tuple budget yields and resumes
    // in the next dispatch (FLAG_ENUMERATING).
    for (var guard = 0u; guard <= params.steps_per_dispatch; guard++) {
        contact_velocities(n, impulses);
        let resuming = (flags & FLAG_ENUMERATING) != 0u;
        if !resuming {
            let stop = stop_before_step(m, sc.term, steps, taken);
            if stop != STOP_NONE {
                flags |= stop_flags(stop);
                break;
            }
            if params.selection == SELECTION_ALL && params.filter_chunk != 0u && taken > 0u {
                // `all` on CPU adapters: a step starts (with its root filter)
                // in a dispatch of its own (lavapipe's loop budget).
                break;
            }
            draw_step_caps(&caps, stream, steps, m, sc.h, sc.term);
            if elastic {
                elastic_sample = i;
                let outcome = elastic_step(n, m, size, impulses, sc.tol, sc.tie, sc.velocity_scale, sc.h, &choice, &guarded);
                steps += 1u;
                taken += 1u;
                let ended = elastic_end_flags(outcome.status);
                if ended != 0u {
                    flags |= ended;
                    break;
                }
                max_residual = max(max_residual, outcome.residual);
                continue;
            }
        } else {
            resume_enumeration(i, m);
        }
        fill_step_rhs(m, impulses, size);
        var enumerated = false;
        if params.selection == SELECTION_ALL {
            // all: one word, the pick among the distinct solutions within
            // tolerance; Lemke (cover 1) when none is.
            if !resuming {
                begin_enumeration(i, m, next_word(&choice));
                flags |= FLAG_ENUMERATING;
            }
            let status = enumerate_tuples(i, params.tuples_per_dispatch, sc.velocity_scale, sc.h, params.filter_chunk);
            if status == ENUM_YIELD {
                break;
            }
            if status == ENUM_OVERFLOW {
                steps += 1u;
                flags |= FLAG_TOO_MANY_SOLUTIONS | FLAG_LCP_FAILED | FLAG_DONE;
                break;
            }
            enumerated = pick_enumerated(i) > 0u;
            if !enumerated && status == ENUM_DONE {
                // The Lemke fallback gets a dispatch of its own (the loop
                // limiter's budget, docs/gpu-lavapipe.md).
                break;
            }
            flags &= ~FLAG_ENUMERATING;
            if !enumerated {
                count_fallback_step(i);
            }
        }
        let offset = draw_cover(size, params.selection == SELECTION_RANDOM_LEMKE, &choice);
        var result = PivotResult(0u, LEMKE_SOLVED);
        if !enumerated {
            result = solve_scaled(size, offset, sc.tol, sc.tie, params.pivot_cap);
        }
        steps += 1u;
        taken += 1u;
        if result.status != LEMKE_SOLVED {
            flags |= lemke_end_flags(result.status);
            break;
        }
        max_residual = max(max_residual, step_residual(size, m, sc.velocity_scale, sc.h));
        apply_impulse(n, m, impulses);
    }

    let cut = loop_limit_fired();
    end_slot(i, n, m, SlotEnd(flags, steps, max_residual, start.progress.energy_before, guarded, caps.words, choice.words), cut);
}

// Σ_j A_R[i][j] z_j in index order from the equilibrated matrix
// (r_i A_R[i][j] c_j · z_j / c_j, divided by r_i; exact scalings), four terms
// per loop iteration (lavapipe's loop limiter counts iterations,
// docs/gpu-lavapipe.md).
fn matrix_row_times_z(i: u32, size: u32) -> scalar {
    var sum = scalar(0.0);
    var j = 0u;
    for (; j + 4u <= size && j + 4u <= MAX_N; j += 4u) {
        sum += lcp_matrix(i, j, size) * (lcp_z[j] / col_scale(j));
        sum += lcp_matrix(i, j + 1u, size) * (lcp_z[j + 1u] / col_scale(j + 1u));
        sum += lcp_matrix(i, j + 2u, size) * (lcp_z[j + 2u] / col_scale(j + 2u));
        sum += lcp_matrix(i, j + 3u, size) * (lcp_z[j + 3u] / col_scale(j + 3u));
    }
    for (; j < size && j < MAX_N; j++) {
        sum += lcp_matrix(i, j, size) * (lcp_z[j] / col_scale(j));
    }
    return sum / row_scale(i);
}

// `step_violation` of src/impact/routh_step.rs: the residual of lcp_z in the
// problem's units, `velocity` for σ, γ, w_n, w_D and `impulse` for λn, λD,
// w_σ, w_γ; every product z_i w_i is an impulse times a velocity.
fn step_residual(size: u32, m: u32, velocity: scalar, impulse: scalar) -> scalar {
    var violation = scalar(0.0);
    for (var i = 0u; i < size && i < MAX_N; i++) {
        let w = lcp_q[i] + matrix_row_times_z(i, size);
        violation = max(violation, residual_term(i, m, size, w, velocity, impulse));
    }
    return violation;
}

// Row i's part of `step_residual`: lcp_z[i] and w_i below zero and their
// product, each in its unknown's units.
fn residual_term(i: u32, m: u32, size: u32, w: scalar, velocity: scalar, impulse: scalar) -> scalar {
    let velocity_unknown = i < m || i >= size - m;
    let zu = select(impulse, velocity, velocity_unknown);
    let wu = select(velocity, impulse, velocity_unknown);
    return max(-lcp_z[i] / zu, max(-w / wu, abs(lcp_z[i] * w) / (velocity * impulse)));
}
