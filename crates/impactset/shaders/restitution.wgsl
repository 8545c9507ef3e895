// Restitution (docs/model.md §4b) on the GPU: the accounts of the
// expansion, as `Expansion` in src/sampling/restitution.rs, and the
// enumerator's solve of a step with prescribed impulses, for every
// selection rule; elastic_step.wgsl takes a step with them. Assembled
// after lemke.wgsl and enumerate.wgsl and before routh.wgsl (whose
// step_residual, apply_impulse and kinetic-energy helpers it calls).
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
// (under the Lemke rules, a Lemke solve that fails, or ends outside the
// run's residual tolerance: the CPU retries it with the `all` enumerator;
// under `all`, a step with more distinct solutions than the scratch holds)
// flags its sample FLAG_HOST:
// the host runs that sample again on the CPU.

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
// The sample this invocation runs (its `all` scratch, enumerate.wgsl).
var<private> elastic_sample: u32;
// Whether the last solve's solution is an enumerated one (`all`): its
// support is then its positive z (`enumerated_support`), completed with its
// degenerate indices (`degenerate_support`) where singular
// (continuation.wgsl), rather than Lemke's final basis.
var<private> support_enumerated: bool;
var<private> enumerated_support: array<bool, MAX_N>;
var<private> degenerate_support: array<bool, MAX_N>;
// `all`: whether the last solve fell back to Lemke (no enumerated solution
// within the filter); a step whose solution is such counts as a fallback
// step, as the CPU counts a step whose outcome is not exhaustive.
var<private> elastic_fallback: bool;

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

// The contacts a step with restitution draws its caps for (schedule.wgsl's
// `approaching`): those approaching at its start (kept in
// `contact_approaching`) and those still owing expansion work.
fn mark_expanding(m: u32) {
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        contact_approaching[c] = approaching[c];
        approaching[c] = approaching[c] || expanding(c, m);
    }
}

// The step's caps h·p_i, from lcp_q's cap rows, for elastic_step.
fn keep_step_caps(m: u32) {
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        step_cap_values[c] = lcp_q[c];
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

// `keep_enumerated_support` (src/impact/routh_step.rs): the picked
// enumerated solution's support, its positive z, and its degenerate indices
// (z_j and w_j both 0), from lcp_z before the prescribed impulses are added.
// Zero is within the enumeration's violation filter of 0 in the value's
// unit (w_j a velocity on the velocity rows, z_j then an impulse, and the
// other way round elsewhere), so that round-off of either sign in a mode
// tuple's solve does not move an index in or out of the support.
fn keep_enumerated_support(m: u32, size: u32, velocity_scale: scalar, h: scalar) {
    support_enumerated = true;
    for (var r = 0u; r < size && r < MAX_N; r++) {
        let w = lcp_q[r] + matrix_row_times_z(r, size);
        let velocity_row = r >= m && r < size - m;
        let w_unit = select(h, velocity_scale, velocity_row);
        let z_unit = select(velocity_scale, h, velocity_row);
        let zero = abs(lcp_z[r]) <= enum_scalar(3u) * z_unit;
        enumerated_support[r] = !zero && lcp_z[r] > scalar(0.0);
        degenerate_support[r] = zero && abs(w) <= enum_scalar(3u) * w_unit;
    }
}

// `all` within a step with restitution (`routh_step` under `all`, the
// whole enumeration in this dispatch): every solution of the step LCP in
// lcp_q, one picked with one word from `choice`; ELASTIC_SOLVED with lcp_z
// holding it (offsets not added yet), ELASTIC_FAILED when none is within
// the violation filter (the caller runs Lemke, as the CPU does), and
// ELASTIC_HOST where the CPU does what the shaders do not.
fn elastic_enumerate(m: u32, size: u32, velocity_scale: scalar, h: scalar, choice: ptr<function, Stream>) -> ElasticOutcome {
    // A prescribed impulse on a contact with friction widens its cone
    // (b_γ ≠ 0): the CPU searches that step with a twin contact per
    // widened one (docs/model.md §5b), and so does the enumeration here,
    // on the twinned step's tables (enumerate.wgsl, "Twinned steps").
    var widened = 0u;
    for (var c = 0u; c < m && c < MAX_N; c++) {
        if lcp_q[size - m + c] != scalar(0.0) {
            widened |= 1u << c;
        }
    }
    if widened != 0u {
        if !use_twinned_table(widened) {
            return ElasticOutcome(ELASTIC_HOST, scalar(0.0));
        }
        twin_rhs(m, params.d, size);
    }
    begin_enumeration(elastic_sample, all_table.m, next_word(choice));
    let status = enumerate_tuples(elastic_sample, 0xffffffffu, velocity_scale, h, 0u);
    if status != ENUM_DONE {
        // More distinct solutions than the scratch holds (the CPU has no
        // such limit).
        if widened != 0u {
            leave_twinned(false);
        }
        return ElasticOutcome(ELASTIC_HOST, scalar(0.0));
    }
    let picked = pick_enumerated(elastic_sample);
    if widened != 0u {
        leave_twinned(picked != 0u);
    }
    if picked == 0u {
        return ElasticOutcome(ELASTIC_FAILED, scalar(0.0));
    }
    let residual = step_residual(size, m, velocity_scale, h);
    keep_enumerated_support(m, size, velocity_scale, h);
    return ElasticOutcome(ELASTIC_SOLVED, residual);
}
