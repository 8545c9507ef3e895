// One step with restitution (docs/model.md §4b), as `elastic_step` in
// src/sampling/elastic.rs: the expansion's prescribed impulses planned
// from the accounts (restitution.wgsl), the step solved, up to four
// corrections (coupled ones continued on the solution's support,
// continuation.wgsl), the energy guard's regula falsi, the works booked.
// Assembled after restitution.wgsl and continuation.wgsl, beside
// routh.wgsl.
//
// The step is a state machine, `elastic_next`, that runs the step's
// bookkeeping up to the next solve and says what that solve is (`ASK_*`);
// the kernel solves it its own way and answers with an `ElasticReply`.
// `elastic_step` below answers with one invocation (routh.wgsl's
// routh_sample); `coop_elastic_step` (routh_coop.wgsl) with the
// workgroup's Lemke solve. The bookkeeping is the same code for both
// kernels, and each kernel calls each of its solves from one place (the
// compiler inlines every call: docs/gpu-lavapipe.md).

// What `elastic_next` asks for.
const ASK_LEMKE: u32 = 0u;      // Lemke on lcp_q and lcp_cover from column `elastic_lex`:
                                // its status and, solved, its step residual
const ASK_ENUMERATE: u32 = 1u;  // `elastic_enumerate` on lcp_q: its outcome
const ASK_CONTINUE: u32 = 2u;   // `coupled_correction`, and where it holds `continue_step`
const ASK_NOTHING: u32 = 3u;    // the step is over: `elastic_outcome`

// The answer to an `ASK_*`: a Lemke status (LEMKE_*) or an elastic outcome
// (ELASTIC_*) with its residual; for ASK_CONTINUE, whether the coupled
// correction held and whether the step continued on its support.
struct ElasticReply {
    status: u32,
    residual: scalar,
    coupled: bool,
    continued: bool,
}

// How a solve of the step solves: by the run's rule, by the enumerator
// (`all`, or the CPU's retry of a Lemke solve under the Lemke rules), or by
// Lemke with covering vector 1 (where no enumerated solution is within the
// filter, as `routh_step` falls back under `all`).
const BY_RULE: u32 = 0u;
const BY_ENUMERATION: u32 = 1u;
const BY_LEMKE_ONE: u32 = 2u;

// What a solve of the step is for.
const SOLVE_CORRECTING: u32 = 0u;  // the step's first solve, or a correction's
const SOLVE_GUARD_LOW: u32 = 1u;   // the energy guard at t = 0
const SOLVE_GUARD_TRY: u32 = 2u;   // the energy guard at t (regula falsi)
const SOLVE_GUARD_FINAL: u32 = 3u; // the energy guard's step at `lo`
// Solves a step may take: the first, a correction's each, the guard's at
// t = 0, its tries and its last.
const ELASTIC_SOLVES: u32 = 1u + EXPANSION_CORRECTIONS + 2u + GUARD_ROUNDS;
// Questions a step may ask: up to three attempts a solve (rule, enumerator,
// Lemke with cover 1), a correction's continuation each, the last.
const ELASTIC_ASKS: u32 = 3u * ELASTIC_SOLVES + EXPANSION_CORRECTIONS + 1u;

// Where `elastic_next` resumes.
const AT_START: u32 = 0u;       // the step's plan
const AT_SOLVE: u32 = 1u;       // a solve's right-hand side
const AT_ATTEMPT: u32 = 2u;     // an attempt at it (by `elastic_by`)
const AT_LEMKE: u32 = 3u;       // a Lemke attempt answered
const AT_ENUMERATED: u32 = 4u;  // an enumerator attempt answered
const AT_SOLVED: u32 = 5u;      // the solve done (`elastic_outcome`)
const AT_CORRECTING: u32 = 6u;  // the corrections from `elastic_round` on
const AT_CONTINUED: u32 = 7u;   // a correction's continuation answered
const AT_CORRECTED: u32 = 8u;   // the corrections done (`elastic_again`: solve again)
const AT_FINISH: u32 = 9u;      // the works booked, v advanced

// The energy guard's regula falsi on t ∈ [0, 1) for the step's energy with
// prescribed impulses t · o (`energy_guard`): the bracket, its values, the
// try, the side last moved (Illinois), the tries taken.
struct GuardSearch {
    lo: scalar,
    hi: scalar,
    f_lo: scalar,
    f_hi: scalar,
    t: scalar,
    side: i32,
    tries: u32,
}

// The step's state between questions.
var<private> elastic_at: u32;
var<private> elastic_outcome: ElasticOutcome;
// The selection words every solve of the step draws.
var<private> elastic_words: Stream;
var<private> elastic_planned: bool;
var<private> elastic_phase: u32;
var<private> elastic_with_offset: bool;
var<private> elastic_round: u32;
var<private> elastic_again: bool;
var<private> elastic_cut: bool;
var<private> elastic_solves: u32;
var<private> elastic_by: u32;
var<private> elastic_attempt: u32;
// The asked Lemke solve's column offset (random-lemke's lexicographic start).
var<private> elastic_lex: u32;
// `all`: the step ended on a Lemke fallback (counted by routh_sample's
// driver, which holds `all`'s scratch).
var<private> elastic_counts_fallback: bool;
var<private> guard_search: GuardSearch;

// λn = y + o: the prescribed impulses (zero without an offset) added to
// the LCP's own normal impulses.
fn add_offsets(m: u32) {
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        lcp_z[m + c] += expansion_offset[c];
    }
}

// Starts a step (`elastic_next` then plans it).
fn elastic_begin() {
    elastic_at = AT_START;
    elastic_counts_fallback = false;
}

// The step from where it stopped up to its next question, `reply` the
// answer to the last one. Each solve (`routh_step`) starts from u and the
// step's caps, with the prescribed impulses when `elastic_with_offset`: b
// moved by A_R's λn columns outside the cap rows (`shift_by_offset`),
// λn = y + o afterwards; its residual is the LCP's (of y). Random words
// from `choice`, the same for every solve. On ASK_NOTHING the step is
// over: on success v is advanced and the works booked, and `guarded` says
// whether the energy guard cut the step.
fn elastic_next(n: u32, m: u32, size: u32, impulses: u32, velocity_scale: scalar, h: scalar,
                choice: ptr<function, Stream>, guarded: ptr<function, bool>, reply: ElasticReply) -> u32 {
    // Each hop moves to another state; a question comes within ten.
    for (var hop = 0u; hop < 16u; hop++) {
        let at = elastic_at;
        if at == AT_START {
            let planned = plan_expansion(m);
            var all_zero = true;
            for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
                if step_cap_values[c] != scalar(0.0) {
                    all_zero = false;
                }
            }
            if !planned && all_zero {
                // No contact may take impulse: λ = 0.
                for (var c = 0u; c < size && c < MAX_N; c++) {
                    lcp_z[c] = scalar(0.0);
                }
                measure_expansion(m);
                commit_expansion(m);
                elastic_outcome = ElasticOutcome(ELASTIC_SOLVED, scalar(0.0));
                return ASK_NOTHING;
            }
            elastic_words = *choice;
            elastic_planned = planned;
            elastic_outcome = ElasticOutcome(ELASTIC_SOLVED, scalar(0.0));
            elastic_phase = SOLVE_CORRECTING;
            elastic_with_offset = planned;
            elastic_round = 0u;
            elastic_cut = false;
            elastic_solves = 0u;
            guard_search = GuardSearch(scalar(0.0), scalar(1.0), scalar(0.0), scalar(0.0), scalar(0.0), 0i, 0u);
            elastic_at = AT_SOLVE;
        } else if at == AT_SOLVE {
            if elastic_solves >= ELASTIC_SOLVES {
                elastic_at = AT_FINISH;
                continue;
            }
            // Every solve draws the same selection words (the first finds
            // the stream at them already).
            *choice = elastic_words;
            step_rhs(m, size, impulses, elastic_with_offset);
            elastic_by = select(BY_RULE, BY_ENUMERATION, params.selection == SELECTION_ALL);
            elastic_attempt = 0u;
            elastic_at = AT_ATTEMPT;
        } else if at == AT_ATTEMPT {
            if elastic_attempt >= 3u {
                elastic_outcome = ElasticOutcome(ELASTIC_FAILED, scalar(0.0));
                elastic_at = AT_SOLVED;
                continue;
            }
            if elastic_by == BY_ENUMERATION {
                elastic_at = AT_ENUMERATED;
                return ASK_ENUMERATE;
            }
            support_enumerated = false;
            let random = elastic_by == BY_RULE && params.selection == SELECTION_RANDOM_LEMKE;
            elastic_lex = draw_cover(size, random, choice);
            elastic_at = AT_LEMKE;
            return ASK_LEMKE;
        } else if at == AT_ENUMERATED {
            elastic_attempt += 1u;
            elastic_at = AT_SOLVED;
            elastic_outcome = ElasticOutcome(reply.status, reply.residual);
            if reply.status == ELASTIC_HOST {
                continue;
            }
            elastic_fallback = reply.status != ELASTIC_SOLVED;
            if !elastic_fallback {
                add_offsets(m);
                continue;
            }
            elastic_by = BY_LEMKE_ONE;
            elastic_at = AT_ATTEMPT;
        } else if at == AT_LEMKE {
            elastic_attempt += 1u;
            elastic_at = AT_SOLVED;
            // Under the Lemke rules the CPU retries a failed solve, or one
            // outside the run's residual tolerance, with `all` (elastic.rs,
            // `elastic_step`): here too where the enumerator's constants
            // are uploaded (`params.tuples`, src/gpu/enumerate.rs
            // `retries_on_device`), else the host runs the sample.
            let retries = params.selection != SELECTION_ALL && m <= ELASTIC_ENUMERATION_CONTACTS;
            let solved = reply.status == LEMKE_SOLVED;
            if elastic_by == BY_RULE && retries && (!solved || reply.residual > residual_tolerance()) {
                if params.tuples == 0u {
                    elastic_outcome = ElasticOutcome(ELASTIC_HOST, scalar(0.0));
                    continue;
                }
                // The step LCP's right-hand side built again, as the CPU's
                // retry builds it (Lemke's scaling of it round-trips
                // exactly only where nothing underflows).
                step_rhs(m, size, impulses, elastic_with_offset);
                elastic_by = BY_ENUMERATION;
                elastic_at = AT_ATTEMPT;
                continue;
            }
            if !solved {
                elastic_outcome = ElasticOutcome(ELASTIC_FAILED, scalar(0.0));
                continue;
            }
            add_offsets(m);
            elastic_outcome = ElasticOutcome(ELASTIC_SOLVED, reply.residual);
        } else if at == AT_SOLVED {
            if elastic_outcome.status != ELASTIC_SOLVED {
                return ASK_NOTHING;
            }
            if elastic_phase == SOLVE_GUARD_FINAL {
                elastic_cut = true;
                elastic_at = AT_FINISH;
            } else if elastic_phase == SOLVE_CORRECTING {
                elastic_at = select(AT_FINISH, AT_CORRECTING, elastic_planned);
            } else {
                guard_step(n, m, impulses);
                elastic_solves += 1u;
                elastic_at = AT_SOLVE;
            }
        } else if at == AT_CORRECTING {
            elastic_again = false;
            elastic_at = AT_CORRECTED;
            if elastic_round > EXPANSION_CORRECTIONS {
                continue;
            }
            measure_expansion(m);
            // Two tests, not `||`: needs_correction after the last round
            // would be one test too many (both operands of `||` were
            // evaluated on lavapipe, docs/gpu-lavapipe.md).
            if elastic_round == EXPANSION_CORRECTIONS {
                continue;
            }
            if !needs_correction(m) {
                continue;
            }
            // The coupled correction, continued on the solution's support
            // where it stays a solution; else solved again.
            elastic_at = AT_CONTINUED;
            return ASK_CONTINUE;
        } else if at == AT_CONTINUED {
            if reply.coupled && reply.continued {
                elastic_outcome = ElasticOutcome(ELASTIC_SOLVED, reply.residual);
                elastic_round += 1u;
                elastic_at = AT_CORRECTING;
                continue;
            }
            elastic_at = AT_CORRECTED;
            // Nested, not `&&`: correct_expansion changes the offsets, and
            // both operands were evaluated on lavapipe (as for `||`).
            if !reply.coupled {
                if !correct_expansion(m) {
                    continue;
                }
            }
            elastic_again = true;
            elastic_round += 1u;
        } else if at == AT_CORRECTED {
            elastic_solves += 1u;
            elastic_at = AT_SOLVE;
            if elastic_again {
                elastic_with_offset = true;
                continue;
            }
            let energy = step_energy(n, m, impulses);
            let goal = energy_before_constant();
            if !(energy > goal + work_tolerance()) {
                elastic_at = AT_FINISH;
                continue;
            }
            // The energy guard, first at t = 0 (the inelastic step).
            for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
                expansion_base[c] = expansion_offset[c];
                expansion_offset[c] = scalar(0.0) * expansion_base[c];
            }
            guard_search.f_hi = energy - goal;
            elastic_with_offset = false;
            elastic_phase = SOLVE_GUARD_LOW;
        } else {
            measure_expansion(m);
            commit_expansion(m);
            if elastic_cut {
                settle_expansion(m);
                *guarded = true;
            }
            elastic_counts_fallback = params.selection == SELECTION_ALL && elastic_fallback;
            velocity_after_step(n, m, impulses);
            for (var r = 0u; r < n && r < MAX_DOF; r++) {
                v[r] = v_next[r];
            }
            return ASK_NOTHING;
        }
    }
    // Not reached: every state moves on within the hops above.
    elastic_outcome = ElasticOutcome(ELASTIC_HOST, scalar(0.0));
    return ASK_NOTHING;
}

// The energy guard after a solve at t: the bracket moved by the step's
// energy (Illinois' halving on a side moved twice), then the next t, or
// `lo` for the last solve.
fn guard_step(n: u32, m: u32, impulses: u32) {
    let slack = work_tolerance();
    let f = step_energy(n, m, impulses) - energy_before_constant();
    if elastic_phase == SOLVE_GUARD_LOW {
        guard_search.f_lo = f;
    } else if f > slack {
        guard_search.hi = guard_search.t;
        guard_search.f_hi = f;
        if guard_search.side == 1i {
            guard_search.f_lo *= scalar(0.5);
        }
        guard_search.side = 1i;
    } else {
        guard_search.lo = guard_search.t;
        guard_search.f_lo = f;
        if guard_search.side == -1i {
            guard_search.f_hi *= scalar(0.5);
        }
        guard_search.side = -1i;
    }
    var next = false;
    if guard_search.tries < GUARD_ROUNDS && guard_search.f_lo < -slack {
        guard_search.t = clamp((guard_search.lo * guard_search.f_hi - guard_search.hi * guard_search.f_lo) / (guard_search.f_hi - guard_search.f_lo), guard_search.lo, guard_search.hi);
        next = guard_search.t > guard_search.lo && guard_search.t < guard_search.hi;
    }
    if next {
        guard_search.tries += 1u;
        elastic_phase = SOLVE_GUARD_TRY;
    } else {
        // The last try may have been above: the step at `lo` again.
        guard_search.t = guard_search.lo;
        elastic_phase = SOLVE_GUARD_FINAL;
    }
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        expansion_offset[c] = guard_search.t * expansion_base[c];
    }
    elastic_with_offset = guard_search.t > scalar(0.0);
}

// `elastic_step` by one invocation: the step from u and step_cap_values
// (and contact_approaching), each question answered with the
// one-invocation Lemke solve, the enumerator and the continuation.
fn elastic_step(n: u32, m: u32, size: u32, impulses: u32, tol: scalar, tie: scalar, velocity_scale: scalar,
                h: scalar, choice: ptr<function, Stream>, guarded: ptr<function, bool>) -> ElasticOutcome {
    elastic_begin();
    var reply = ElasticReply(ELASTIC_SOLVED, scalar(0.0), false, false);
    for (var ask = 0u; ask < ELASTIC_ASKS; ask++) {
        let what = elastic_next(n, m, size, impulses, velocity_scale, h, choice, guarded, reply);
        if what == ASK_NOTHING {
            if elastic_counts_fallback {
                count_fallback_step(elastic_sample);
            }
            return elastic_outcome;
        }
        if what == ASK_LEMKE {
            let result = solve_scaled(size, elastic_lex, tol, tie, params.pivot_cap);
            var residual = scalar(0.0);
            if result.status == LEMKE_SOLVED {
                residual = step_residual(size, m, velocity_scale, h);
            }
            reply = ElasticReply(result.status, residual, false, false);
        } else if what == ASK_ENUMERATE {
            let outcome = elastic_enumerate(m, size, velocity_scale, h, choice);
            reply = ElasticReply(outcome.status, outcome.residual, false, false);
        } else {
            reply = elastic_continue(m, size, impulses, velocity_scale, h);
        }
    }
    return ElasticOutcome(ELASTIC_HOST, scalar(0.0));
}

// ASK_CONTINUE answered by one invocation.
fn elastic_continue(m: u32, size: u32, impulses: u32, velocity_scale: scalar, h: scalar) -> ElasticReply {
    var residual = scalar(0.0);
    let coupled = coupled_correction(m, size, velocity_scale);
    var continued = false;
    if coupled {
        continued = continue_step(m, size, impulses, velocity_scale, h, &residual);
    }
    return ElasticReply(ELASTIC_SOLVED, residual, coupled, continued);
}
