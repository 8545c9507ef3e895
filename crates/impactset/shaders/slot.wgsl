// A sample slot's dispatch as both Algorithm-1 kernels run it: routh.wgsl's
// `run_slot` (one invocation per sample) and routh_coop.wgsl's
// `coop_sample` (one workgroup per sample). Its start (the sample's
// streams and schedule, its state's step scalars, its v and progress, with
// restitution its works), the checks and right-hand side of each step, and
// its end (its state written back into the output buffers, routh.wgsl's
// bindings). Assembled after routh.wgsl.

// The covering vector of a step's Lemke solve and its column offset:
// random-lemke's d_j ∈ [1/64, 1 + 1/64), then the offset, from `choice`
// where `random`, else d = 1 from column 0.
fn draw_cover(size: u32, random: bool, choice: ptr<function, Stream>) -> u32 {
    if random {
        for (var c = 0u; c < size && c < MAX_N; c++) {
            lcp_cover[c] = cover(next_word(choice));
        }
        return index(next_word(choice), size);
    }
    for (var c = 0u; c < size && c < MAX_N; c++) {
        lcp_cover[c] = scalar(1.0);
    }
    return 0u;
}

// The state's step scalars (see the bindings): h, the termination
// threshold, the pivot and tie tolerances, the velocity scale; the
// relative pivot tolerance goes to lemke.wgsl's `lemke_relative_tol`.
struct StepScalars {
    h: scalar,
    term: scalar,
    tol: scalar,
    tie: scalar,
    velocity_scale: scalar,
}

fn step_scalars() -> StepScalars {
    lemke_relative_tol = constant(params.off_scalars + 6u);
    let at = params.off_scalars;
    return StepScalars(constant(at), constant(at + 1u), constant(at + 2u), constant(at + 4u), constant(at + 5u));
}

// What a sample carries between dispatches besides v: its largest step
// residual, its kinetic energy before the impact, its steps.
struct Progress {
    max_residual: scalar,
    energy_before: scalar,
    steps: u32,
}

// Sample slot i's v and progress: v⁻ and a fresh start where it has not
// started, else where the last dispatch left them.
fn resume_sample(i: u32, n: u32, started: bool) -> Progress {
    if !started {
        for (var k = 0u; k < n && k < MAX_DOF; k++) {
            v[k] = constant(params.off_v + k);
        }
        return Progress(scalar(0.0), kinetic_energy(n), 0u);
    }
    for (var k = 0u; k < n && k < MAX_DOF; k++) {
        v[k] = out_v[i * params.v_stride + k];
    }
    return Progress(out_stats[3u * i], out_stats[3u * i + 1u], out_words[2u * i]);
}

// A sample's streams: its state's key and its 64-bit index `hi:lo`.
struct SampleStream {
    key: array<u32, 8>,
    lo: u32,
    hi: u32,
}

// Starts sample slot `i` of the dispatch: its state's constants
// (`state_base`) and its schedule. Sample index (64 bits) = first + j;
// selection stream = index + 2⁶³, schedule stream = index + 2⁶²
// (schedule.wgsl).
fn start_sample(i: u32, m: u32) -> SampleStream {
    let row_samples = max(params.row_samples, 1u);
    let state = params.state_first + i / row_samples;
    state_base = state * params.state_stride;
    var stream: SampleStream;
    for (var k = 0u; k < 8u; k++) {
        stream.key[k] = state_keys[8u * state + k];
    }
    let j = i % row_samples;
    stream.lo = params.first_lo + j;
    stream.hi = params.first_hi + select(0u, 1u, stream.lo < j);
    schedule_start(params.schedule, stream.key, stream.lo, stream.hi, m, params.max_steps);
    return stream;
}

// What both kernels read at the start of sample slot i's dispatch
// (routh_sample, routh_coop.wgsl's routh_sample_coop): its streams and
// schedule, its state's step scalars, with restitution its works, and its
// v and progress.
struct SlotStart {
    stream: SampleStream,
    scalars: StepScalars,
    progress: Progress,
}

fn begin_slot(i: u32, n: u32, m: u32, started: bool) -> SlotStart {
    let stream = start_sample(i, m);
    let scalars = step_scalars();
    if params.elastic != 0u {
        load_expansion(i, m, started);
    }
    let progress = resume_sample(i, n, started);
    return SlotStart(stream, scalars, progress);
}

// Why a slot takes no further step in this dispatch (u = J v is current):
// every contact separating, and with restitution none owing expansion
// work (STOP_TERMINATED); the step cap (STOP_STEP_CAP); this dispatch's
// steps taken (STOP_DISPATCH); else STOP_NONE.
const STOP_NONE: u32 = 0u;
const STOP_TERMINATED: u32 = 1u;
const STOP_STEP_CAP: u32 = 2u;
const STOP_DISPATCH: u32 = 3u;

fn stop_before_step(m: u32, term: scalar, steps: u32, taken: u32) -> u32 {
    var min_normal = u[0];
    for (var c = 1u; c < m && c < MAX_N; c++) {
        min_normal = min(min_normal, u[c]);
    }
    var owes_work = false;
    if params.elastic != 0u {
        owes_work = any_expanding(m);
    }
    if min_normal >= term && !owes_work {
        return STOP_TERMINATED;
    }
    if steps >= params.max_steps {
        return STOP_STEP_CAP;
    }
    if taken >= params.steps_per_dispatch {
        return STOP_DISPATCH;
    }
    return STOP_NONE;
}

// The flags a slot stops with (STOP_DISPATCH: none, the sample goes on in
// the next dispatch).
fn stop_flags(stop: u32) -> u32 {
    if stop == STOP_TERMINATED {
        return FLAG_TERMINATED | FLAG_DONE;
    }
    if stop == STOP_STEP_CAP {
        return FLAG_DONE;
    }
    return 0u;
}

// The step's caps: p drawn by the sample's law over the contacts
// approaching now (schedule.wgsl; with restitution also those owing
// expansion work), b_R's first m rows h·p.
fn draw_step_caps(caps: ptr<function, Stream>, stream: SampleStream, steps: u32, m: u32, h: scalar, term: scalar) {
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        approaching[c] = u[c] < term;
    }
    if params.elastic != 0u {
        mark_expanding(m);
    }
    schedule_draw(caps, stream.key, stream.lo, stream.hi, steps, m);
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        lcp_q[c] = h * cap_value(step_caps[c]);
    }
    if params.elastic != 0u {
        keep_step_caps(m);
    }
}

// b_R's rows after the caps, for an inelastic step: J v, then zeros.
fn fill_step_rhs(m: u32, impulses: u32, size: u32) {
    for (var c = 0u; c < impulses && c < MAX_N; c++) {
        lcp_q[m + c] = u[c];
    }
    for (var c = m + impulses; c < size && c < MAX_N; c++) {
        lcp_q[c] = scalar(0.0);
    }
}

// The flags an elastic step's outcome ends its sample with (none: solved).
fn elastic_end_flags(status: u32) -> u32 {
    if status == ELASTIC_HOST {
        return FLAG_HOST | FLAG_DONE;
    }
    if status != ELASTIC_SOLVED {
        return FLAG_LCP_FAILED | FLAG_DONE;
    }
    return 0u;
}

// The flags a failed Lemke solve ends its sample with: a solve the loop
// bound cut (LEMKE_LOOP_EXHAUSTED) is also the loop limit's.
fn lemke_end_flags(status: u32) -> u32 {
    return FLAG_LCP_FAILED | FLAG_DONE | select(0u, FLAG_LOOP_LIMIT, status == LEMKE_LOOP_EXHAUSTED);
}

// Whether the driver's loop limiter fired in this dispatch: one that has
// runs this loop once.
fn loop_limit_fired() -> bool {
    var probe = 0u;
    for (var k = 0u; k < params.probe; k++) {
        probe += 1u;
    }
    return probe != params.probe;
}

// What sample slot i keeps at the end of its dispatch.
struct SlotEnd {
    flags: u32,
    steps: u32,
    max_residual: scalar,
    energy_before: scalar,
    guarded: bool,
    caps_words: u32,
    choice_words: u32,
}

// Writes sample slot i's state into the output buffers: v, its progress,
// its stream positions, with restitution its works, and, when it is done,
// E⁺ and whether it is accepted. `cut`: the loop limiter fired (a sample
// with restitution is then run again on the host).
fn end_slot(i: u32, n: u32, m: u32, end: SlotEnd, cut: bool) {
    var flags = end.flags;
    let elastic = params.elastic != 0u;
    if cut {
        flags |= FLAG_LOOP_LIMIT;
        if elastic {
            flags |= FLAG_HOST | FLAG_DONE;
        }
    }
    if elastic {
        store_expansion(i, m);
        if end.guarded {
            flags |= FLAG_GUARDED;
        }
    }
    for (var k = 0u; k < n && k < MAX_DOF; k++) {
        out_v[i * params.v_stride + k] = v[k];
    }
    out_stats[3u * i] = end.max_residual;
    out_stats[3u * i + 1u] = end.energy_before;
    if (flags & FLAG_DONE) != 0u {
        out_stats[3u * i + 2u] = kinetic_energy(n);
        if (flags & FLAG_TERMINATED) != 0u && (flags & FLAG_LCP_FAILED) == 0u && end.max_residual <= residual_tolerance() {
            flags |= FLAG_ACCEPTED;
        }
    }
    out_words[2u * i] = end.steps;
    out_words[2u * i + 1u] = flags;
    stream_pos[2u * i] = end.caps_words;
    stream_pos[2u * i + 1u] = end.choice_words;
}
