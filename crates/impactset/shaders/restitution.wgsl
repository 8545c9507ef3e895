// Restitution (docs/model.md §4b) on the GPU: one step with expansion, as
// `elastic_step` in src/sampling/sample.rs and `Expansion` in
// src/sampling/restitution.rs, for the Lemke rules. Assembled after
// lemke.wgsl and before routh.wgsl (whose solve_scaled, step_residual,
// apply_impulse and kinetic-energy helpers it calls).
//
// Binding (group 0):
//   10 expansion_state array<scalar> per sample (stride 2 m): A_i (work
//                                    absorbed by contact i's compression),
//                                    then X_i (work released by its
//                                    expansion), kept between dispatches
//
// The state's constants at `params.off_restitution` (RouthParams): E⁻, the
// works' slack (WORK_TOL · E⁻ in f64), e_i² (m), W_nn (m × m, row-major).
//
// A step that the CPU would finish differently from what a shader can do
// (a Lemke solve that fails, or ends outside the run's residual tolerance:
// the CPU retries it with the `all` enumerator)
// flags its sample FLAG_HOST: the host runs that sample again on the CPU.

@group(0) @binding(10) var<storage, read_write> expansion_state: array<scalar>;

// The sample's accounts A_i, X_i; the step's prescribed impulses o_i, their
// value before the energy guard scaled them, and ũ_i.
var<private> absorbed: array<scalar, MAX_CONTACTS>;
var<private> released: array<scalar, MAX_CONTACTS>;
var<private> expansion_offset: array<scalar, MAX_CONTACTS>;
var<private> expansion_base: array<scalar, MAX_CONTACTS>;
var<private> expansion_mean: array<scalar, MAX_CONTACTS>;
// The step's caps h·p_i and whether each contact approaches at its start
// (schedule.wgsl's `approaching` holds the contacts the caps are drawn for).
var<private> step_cap_values: array<scalar, MAX_CONTACTS>;
var<private> contact_approaching: array<bool, MAX_CONTACTS>;
// v after the step being tried (the energy guard's test).
var<private> v_next: array<scalar, MAX_DOF>;

// Elastic step outcomes.
const ELASTIC_SOLVED: u32 = 0u;
const ELASTIC_FAILED: u32 = 1u;   // Lemke failed where the CPU fails too
const ELASTIC_HOST: u32 = 2u;     // the CPU would retry the step with `all`

// Up to this many contacts the CPU retries a failed Lemke solve of a step
// with restitution with the enumerator. Mirrors ELASTIC_ENUMERATION_CONTACTS.
const ELASTIC_ENUMERATION_CONTACTS: u32 = 8u;
// Mirror CORRECTIONS and GUARD_ROUNDS of src/sampling/restitution.rs.
const EXPANSION_CORRECTIONS: u32 = 4u;
const GUARD_ROUNDS: u32 = 40u;

struct ElasticOutcome {
    status: u32,
    residual: scalar,
}

fn energy_before_constant() -> scalar {
    return constant(params.off_restitution);
}

fn work_tolerance() -> scalar {
    return constant(params.off_restitution + 1u);
}

fn restitution_squared(i: u32) -> scalar {
    return constant(params.off_restitution + 2u + i);
}

fn delassus_nn(i: u32, j: u32, m: u32) -> scalar {
    return constant(params.off_restitution + 2u + m + i * m + j);
}

// The sample's accounts from `expansion_state` (a new sample: zero).
fn load_expansion(i: u32, m: u32, started: bool) {
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        if started {
            absorbed[c] = expansion_state[2u * m * i + c];
            released[c] = expansion_state[2u * m * i + m + c];
        } else {
            absorbed[c] = scalar(0.0);
            released[c] = scalar(0.0);
        }
    }
}

fn store_expansion(i: u32, m: u32) {
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        expansion_state[2u * m * i + c] = absorbed[c];
        expansion_state[2u * m * i + m + c] = released[c];
    }
}

// `Expansion::balance`: ω_i = e_i² A_i − X_i.
fn balance(i: u32) -> scalar {
    return restitution_squared(i) * absorbed[i] - released[i];
}

// `Expansion::owed`: ω_i⁺ · max(0, Σ ω_j) / Σ ω_j⁺.
fn owed(i: u32, m: u32) -> scalar {
    let own = balance(i);
    if own <= scalar(0.0) {
        return scalar(0.0);
    }
    var total = scalar(0.0);
    var positive = scalar(0.0);
    for (var j = 0u; j < m && j < MAX_CONTACTS; j++) {
        let b = balance(j);
        total += b;
        positive += max(b, scalar(0.0));
    }
    if total >= positive {
        return own;
    }
    return own * (max(total, scalar(0.0)) / positive);
}

fn expanding(i: u32, m: u32) -> bool {
    return owed(i, m) > work_tolerance();
}

fn any_expanding(m: u32) -> bool {
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        if expanding(c, m) {
            return true;
        }
    }
    return false;
}

// `impulse_for_work`: the positive root of ½ w o² + r o = work.
fn impulse_for_work(work: scalar, r: scalar, w: scalar) -> scalar {
    if work <= scalar(0.0) {
        return scalar(0.0);
    }
    let root = sqrt(r * r + scalar(2.0) * w * work);
    if r >= scalar(0.0) {
        return scalar(2.0) * work / (r + root);
    }
    return (root - r) / w;
}

// `Expansion::plan`: whether some contact expands.
fn plan_expansion(m: u32) -> bool {
    var any = false;
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        var o = scalar(0.0);
        if !contact_approaching[c] && step_cap_values[c] > scalar(0.0) && expanding(c, m) {
            any = true;
            o = min(impulse_for_work(owed(c, m), u[c], delassus_nn(c, c, m)), step_cap_values[c]);
        }
        expansion_offset[c] = o;
    }
    return any;
}

// `Expansion::measure`: ũ_i = u_i + ½ (W_nn λn)_i, λn = lcp_z[m ..].
fn measure_expansion(m: u32) {
    for (var r = 0u; r < m && r < MAX_CONTACTS; r++) {
        var wn = scalar(0.0);
        for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
            wn += delassus_nn(r, c, m) * lcp_z[m + c];
        }
        expansion_mean[r] = u[r] + scalar(0.5) * wn;
    }
}

// `Expansion::off_account`: contact c's work overshot what it owes, or
// missed it while finishing (pushing below its cap).
fn off_account(c: u32, m: u32) -> bool {
    let o = expansion_offset[c];
    if o == scalar(0.0) {
        return false;
    }
    let due = owed(c, m);
    let work = o * expansion_mean[c];
    return work > due + work_tolerance() || (o < step_cap_values[c] && abs(work - due) > work_tolerance());
}

// `Expansion::needs_correction`: some contact's account is off.
fn needs_correction(m: u32) -> bool {
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        if off_account(c, m) {
            return true;
        }
    }
    return false;
}

// `Expansion::correct`: whether some prescribed impulse changed.
fn correct_expansion(m: u32) -> bool {
    var changed = false;
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        if off_account(c, m) {
            let o = expansion_offset[c];
            let w = delassus_nn(c, c, m);
            let r = expansion_mean[c] - scalar(0.5) * w * o;
            let next = min(impulse_for_work(owed(c, m), r, w), step_cap_values[c]);
            changed = changed || next != o;
            expansion_offset[c] = next;
        }
    }
    return changed;
}

// `Expansion::commit`: A_i −= (λn_i − o_i) ũ_i, X_i += o_i ũ_i.
fn commit_expansion(m: u32) {
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        let o = expansion_offset[c];
        absorbed[c] -= (lcp_z[m + c] - o) * expansion_mean[c];
        released[c] += o * expansion_mean[c];
    }
}

// `Expansion::settle` after a step the guard cut: X_i = e_i² A_i.
fn settle_expansion(m: u32) {
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        released[c] = restitution_squared(c) * absorbed[c];
    }
}

// v + M⁻¹Jᵀλ into v_next, each impulse added onto v in turn as the CPU's
// `gemv` does (the energy guard's root depends on the last bits of the
// energy, so the sums follow the CPU's order).
fn velocity_after_step(n: u32, m: u32, impulses: u32) {
    for (var r = 0u; r < n && r < MAX_DOF; r++) {
        var x = v[r];
        for (var c = 0u; c < impulses && c < MAX_N; c++) {
            x += constant(params.off_minv_jt + r * impulses + c) * lcp_z[m + c];
        }
        v_next[r] = x;
    }
}

// The kinetic energy after the step just solved (v_next).
fn step_energy(n: u32, m: u32, impulses: u32) -> scalar {
    velocity_after_step(n, m, impulses);
    var e = scalar(0.0);
    for (var i = 0u; i < n && i < MAX_DOF; i++) {
        var mv = scalar(0.0);
        for (var j = 0u; j < n && j < MAX_DOF; j++) {
            mv += constant(params.off_mass + i * n + j) * v_next[j];
        }
        e += v_next[i] * mv;
    }
    return scalar(0.5) * e;
}

// `shift_by_offset`: lcp_q moved by A_R's λn columns times the prescribed
// impulses, outside the cap rows.
fn shift_by_offset(m: u32, size: u32) {
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        let o = expansion_offset[c];
        if o == scalar(0.0) {
            continue;
        }
        // A_R's column m + c, from the scaled matrix (exact: the scales
        // are powers of two).
        let column = m + c;
        for (var r = m; r < size && r < MAX_N; r++) {
            lcp_q[r] += lcp_matrix(r, column, size) / (row_scale(r) * col_scale(column)) * o;
        }
    }
}

// `step_rhs`: lcp_q = b_R = [h·p; u; 0], moved by the prescribed impulses
// when `with_offset`.
fn step_rhs(m: u32, size: u32, impulses: u32, with_offset: bool) {
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        lcp_q[c] = step_cap_values[c];
    }
    for (var c = 0u; c < impulses && c < MAX_N; c++) {
        lcp_q[m + c] = u[c];
    }
    for (var c = m + impulses; c < size && c < MAX_N; c++) {
        lcp_q[c] = scalar(0.0);
    }
    if with_offset {
        shift_by_offset(m, size);
    }
}

// One solve of the step LCP (`routh_step` under lemke / random-lemke) from
// u and the step's caps, with the prescribed impulses when `with_offset`:
// b moved by A_R's λn columns outside the cap rows (`shift_by_offset`),
// λn = y + o afterwards. The residual is the LCP's (of y). Random words
// from `choice`.
fn elastic_solve(m: u32, size: u32, impulses: u32, with_offset: bool, tol: scalar, tie: scalar,
                 velocity_scale: scalar, h: scalar, choice: ptr<function, Stream>) -> ElasticOutcome {
    step_rhs(m, size, impulses, with_offset);
    var offset = 0u;
    if params.selection == SELECTION_RANDOM_LEMKE {
        for (var c = 0u; c < size && c < MAX_N; c++) {
            lcp_cover[c] = cover(next_word(choice));
        }
        offset = index(next_word(choice), size);
    } else {
        for (var c = 0u; c < size && c < MAX_N; c++) {
            lcp_cover[c] = scalar(1.0);
        }
    }
    let result = solve_scaled(size, offset, tol, tie, params.pivot_cap);
    if result.status != LEMKE_SOLVED {
        if m <= ELASTIC_ENUMERATION_CONTACTS {
            return ElasticOutcome(ELASTIC_HOST, scalar(0.0));
        }
        return ElasticOutcome(ELASTIC_FAILED, scalar(0.0));
    }
    let residual = step_residual(size, m, velocity_scale, h);
    // A solution outside the run's residual tolerance: the CPU retries the
    // step with `all` (sample.rs, `elastic_step`), so the host runs it.
    if residual > residual_tolerance() && m <= ELASTIC_ENUMERATION_CONTACTS {
        return ElasticOutcome(ELASTIC_HOST, scalar(0.0));
    }
    if with_offset {
        for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
            lcp_z[m + c] += expansion_offset[c];
        }
    }
    return ElasticOutcome(ELASTIC_SOLVED, residual);
}

// `elastic_step`: one step with restitution from u and step_cap_values
// (and contact_approaching); on success v is advanced and the accounts
// booked, and `guarded` says whether the energy guard cut the step.
fn elastic_step(n: u32, m: u32, size: u32, impulses: u32, tol: scalar, tie: scalar, velocity_scale: scalar,
                h: scalar, choice: ptr<function, Stream>, guarded: ptr<function, bool>) -> ElasticOutcome {
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
        return ElasticOutcome(ELASTIC_SOLVED, scalar(0.0));
    }
    let words = *choice;
    var outcome = elastic_solve(m, size, impulses, planned, tol, tie, velocity_scale, h, choice);
    if outcome.status != ELASTIC_SOLVED {
        return outcome;
    }
    var cut = false;
    if planned {
        for (var round = 0u; round <= EXPANSION_CORRECTIONS; round++) {
            measure_expansion(m);
            // Two tests, not `||`: correct_expansion changes the offsets, and
            // both operands of `||` were evaluated on lavapipe
            // (docs/gpu-lavapipe.md).
            if round == EXPANSION_CORRECTIONS {
                break;
            }
            if !needs_correction(m) {
                break;
            }
            // The coupled correction, continued on the solution's support
            // where it stays a solution; else solved again.
            if coupled_correction(m, size) {
                var residual = scalar(0.0);
                if continue_step(m, size, impulses, velocity_scale, h, &residual) {
                    outcome = ElasticOutcome(ELASTIC_SOLVED, residual);
                    continue;
                }
            } else if !correct_expansion(m) {
                break;
            }
            *choice = words;
            outcome = elastic_solve(m, size, impulses, true, tol, tie, velocity_scale, h, choice);
            if outcome.status != ELASTIC_SOLVED {
                return outcome;
            }
        }
        let energy = step_energy(n, m, impulses);
        let slack = work_tolerance();
        let goal = energy_before_constant();
        if energy > goal + slack {
            // The energy guard: regula falsi on t ∈ [0, 1) for the step's
            // energy with prescribed impulses t · o (`energy_guard`).
            for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
                expansion_base[c] = expansion_offset[c];
            }
            var lo = scalar(0.0);
            var hi = scalar(1.0);
            var f_hi = energy - goal;
            for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
                expansion_offset[c] = scalar(0.0) * expansion_base[c];
            }
            *choice = words;
            outcome = elastic_solve(m, size, impulses, false, tol, tie, velocity_scale, h, choice);
            if outcome.status != ELASTIC_SOLVED {
                return outcome;
            }
            var f_lo = step_energy(n, m, impulses) - goal;
            var side = 0i;
            for (var k = 0u; k < GUARD_ROUNDS; k++) {
                if f_lo >= -slack {
                    break;
                }
                let t = clamp((lo * f_hi - hi * f_lo) / (f_hi - f_lo), lo, hi);
                if !(t > lo && t < hi) {
                    break;
                }
                for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
                    expansion_offset[c] = t * expansion_base[c];
                }
                *choice = words;
                outcome = elastic_solve(m, size, impulses, t > scalar(0.0), tol, tie, velocity_scale, h, choice);
                if outcome.status != ELASTIC_SOLVED {
                    return outcome;
                }
                let f = step_energy(n, m, impulses) - goal;
                if f > slack {
                    hi = t;
                    f_hi = f;
                    if side == 1i {
                        f_lo *= scalar(0.5);
                    }
                    side = 1i;
                } else {
                    lo = t;
                    f_lo = f;
                    if side == -1i {
                        f_hi *= scalar(0.5);
                    }
                    side = -1i;
                }
            }
            // The last try may have been above: the step at `lo` again.
            for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
                expansion_offset[c] = lo * expansion_base[c];
            }
            *choice = words;
            outcome = elastic_solve(m, size, impulses, lo > scalar(0.0), tol, tie, velocity_scale, h, choice);
            if outcome.status != ELASTIC_SOLVED {
                return outcome;
            }
            cut = true;
        }
    }
    measure_expansion(m);
    commit_expansion(m);
    if cut {
        settle_expansion(m);
        *guarded = true;
    }
    velocity_after_step(n, m, impulses);
    for (var r = 0u; r < n && r < MAX_DOF; r++) {
        v[r] = v_next[r];
    }
    return outcome;
}
