// The coupled correction of a step with restitution (docs/model.md §4b,
// "How much to push") on the GPU: `StepBasis` (src/impact/basis.rs),
// `factor_support`, `offset_response`, `continue_step`
// (src/impact/routh_step.rs) and `Expansion::correct_coupled`
// (src/sampling/restitution/coupled.rs), read side by side. Assembled after
// restitution.wgsl; uses lemke.wgsl's final basis and its tableau slot,
// which is free once a solve has ended: A_R's LU factors on the support
// take its first N² entries, the response, H and the Jacobian the next
// 3m², and a copy of lcp_q and lcp_z the next 2N (N ≥ 3m, and a slot holds
// N (2N + 2) entries).

// The support S (basic z of the last Lemke solve, or positive z of an
// enumerated solution), in increasing order, and the LU factors' row order.
var<private> support: array<u32, MAX_N>;
var<private> support_size: u32;
var<private> support_pivots: array<u32, MAX_N>;
var<private> basic_mask: array<bool, MAX_N>;
// The contacts a coupled correction solves for, and its scratch.
var<private> solving: array<u32, MAX_CONTACTS>;
var<private> solving_count: u32;
var<private> newton_delta: array<scalar, MAX_CONTACTS>;
var<private> newton_held: array<bool, MAX_CONTACTS>;
var<private> newton_bound: array<scalar, MAX_CONTACTS>;
var<private> newton_owed: array<scalar, MAX_CONTACTS>;
var<private> newton_step: array<scalar, MAX_CONTACTS>;
var<private> newton_pivots: array<u32, MAX_N>;
// Where the scratch after the LU factors starts (N²), and m.
var<private> scratch_first: u32;
var<private> scratch_m: u32;

// Mirror SINGULAR (basis.rs; for A_SS relative to its largest entry, for
// the Jacobian, whose rows are scaled, as it stands), NEWTON_ROUNDS and
// NEWTON_DIVERGED (sampling/restitution/coupled.rs).
const SUPPORT_SINGULAR = 1e-12;
// SINGULAR in units of f64's ε (1e-12 ≈ 4504 ε), so that the scalar's own
// round-off is what counts as zero: SINGULAR itself in f64, 5.4e-4 in f32.
fn singular() -> scalar {
    return scalar(SUPPORT_SINGULAR) * (SCALAR_EPSILON / scalar(2.220446049250313e-16));
}
const NEWTON_ROUNDS: u32 = 16u;
const NEWTON_DIVERGED = 1e30;

// A_R's entry as the CPU's `step_matrix` holds it (unscaled: the scales are
// powers of two).
fn step_entry(r: u32, c: u32, size: u32) -> scalar {
    return lcp_matrix(r, c, size) / (row_scale(r) * col_scale(c));
}

// Scratch entries of the tableau slot after the LU factors: the response
// (m × k), H (k × k), the Jacobian (k × k, at jacobian_first), the saved
// lcp_q and lcp_z.
fn response_cell(l: u32, j: u32) -> u32 {
    return cell(scratch_first + l * scratch_m + j);
}
fn h_cell(a: u32, b: u32) -> u32 {
    return cell(scratch_first + scratch_m * scratch_m + a * scratch_m + b);
}
fn jacobian_first() -> u32 {
    return scratch_first + 2u * scratch_m * scratch_m;
}
fn saved_cell(x: u32) -> u32 {
    return cell(scratch_first + 3u * scratch_m * scratch_m + x);
}

// `lu_in_place` on the n × n matrix at `first` (row stride n), row order in
// `newton_pivots` when `jacobian`, else `support_pivots`.
fn lu_factor(first: u32, n: u32, singular: scalar, jacobian: bool) -> bool {
    for (var k = 0u; k < n && k < MAX_N; k++) {
        var best = abs(lemke_tableau[cell(first + k * n + k)]);
        var at = k;
        for (var r = k + 1u; r < n && r < MAX_N; r++) {
            let x = abs(lemke_tableau[cell(first + r * n + k)]);
            if x > best {
                best = x;
                at = r;
            }
        }
        if !(best > singular) {
            return false;
        }
        if at != k {
            for (var c = 0u; c < n && c < MAX_N; c++) {
                let t = lemke_tableau[cell(first + k * n + c)];
                lemke_tableau[cell(first + k * n + c)] = lemke_tableau[cell(first + at * n + c)];
                lemke_tableau[cell(first + at * n + c)] = t;
            }
            if jacobian {
                let t = newton_pivots[k];
                newton_pivots[k] = newton_pivots[at];
                newton_pivots[at] = t;
            } else {
                let t = support_pivots[k];
                support_pivots[k] = support_pivots[at];
                support_pivots[at] = t;
            }
        }
        let p = lemke_tableau[cell(first + k * n + k)];
        for (var r = k + 1u; r < n && r < MAX_N; r++) {
            let f = lemke_tableau[cell(first + r * n + k)] / p;
            lemke_tableau[cell(first + r * n + k)] = f;
            if f != scalar(0.0) {
                for (var c = k + 1u; c < n && c < MAX_N; c++) {
                    lemke_tableau[cell(first + r * n + c)] -= f * lemke_tableau[cell(first + k * n + c)];
                }
            }
        }
    }
    return true;
}

// `lu_solve` of the factors at `first` on `lcp_cover[..n]` (in place).
fn lu_back(first: u32, n: u32) {
    for (var r = 0u; r < n && r < MAX_N; r++) {
        var s = scalar(0.0);
        for (var c = 0u; c < r; c++) {
            s += lemke_tableau[cell(first + r * n + c)] * lcp_cover[c];
        }
        lcp_cover[r] -= s;
    }
    for (var k = 0u; k < n && k < MAX_N; k++) {
        let r = n - 1u - k;
        var s = scalar(0.0);
        for (var c = r + 1u; c < n && c < MAX_N; c++) {
            s += lemke_tableau[cell(first + r * n + c)] * lcp_cover[c];
        }
        lcp_cover[r] = (lcp_cover[r] - s) / lemke_tableau[cell(first + r * n + r)];
    }
}

// A_SS for the support in `basic_mask` into the slot's first |S|² entries
// (`StepBasis::gather`); its largest entry in magnitude.
fn gather_support(size: u32) -> scalar {
    support_size = 0u;
    for (var k = 0u; k < size && k < MAX_N; k++) {
        if basic_mask[k] {
            support[support_size] = k;
            support_size += 1u;
        }
    }
    let n = support_size;
    scratch_first = size * size;
    var largest = scalar(0.0);
    for (var r = 0u; r < n && r < MAX_N; r++) {
        support_pivots[r] = r;
        for (var c = 0u; c < n && c < MAX_N; c++) {
            let x = step_entry(support[r], support[c], size);
            lemke_tableau[cell(r * n + c)] = x;
            largest = max(largest, abs(x));
        }
    }
    return largest;
}

// `StepBasis::deficit`: |S| − rank A_SS for the support in `basic_mask`
// (Gaussian elimination with full pivoting, a pivot at most `singular()`
// of the largest entry taken as zero).
fn support_deficit(size: u32) -> u32 {
    let largest = gather_support(size);
    let n = support_size;
    let floor = singular() * largest;
    var rank = 0u;
    for (; rank < n && rank < MAX_N; rank++) {
        var best = scalar(0.0);
        var at_r = rank;
        var at_c = rank;
        for (var r = rank; r < n && r < MAX_N; r++) {
            for (var c = rank; c < n && c < MAX_N; c++) {
                let x = abs(lemke_tableau[cell(r * n + c)]);
                if x > best {
                    best = x;
                    at_r = r;
                    at_c = c;
                }
            }
        }
        if best <= floor {
            break;
        }
        for (var c = 0u; c < n && c < MAX_N; c++) {
            let t = lemke_tableau[cell(rank * n + c)];
            lemke_tableau[cell(rank * n + c)] = lemke_tableau[cell(at_r * n + c)];
            lemke_tableau[cell(at_r * n + c)] = t;
        }
        for (var r = 0u; r < n && r < MAX_N; r++) {
            let t = lemke_tableau[cell(r * n + rank)];
            lemke_tableau[cell(r * n + rank)] = lemke_tableau[cell(r * n + at_c)];
            lemke_tableau[cell(r * n + at_c)] = t;
        }
        let p = lemke_tableau[cell(rank * n + rank)];
        for (var r = rank + 1u; r < n && r < MAX_N; r++) {
            let f = lemke_tableau[cell(r * n + rank)] / p;
            for (var c = rank; c < n && c < MAX_N; c++) {
                lemke_tableau[cell(r * n + c)] -= f * lemke_tableau[cell(rank * n + c)];
            }
        }
    }
    return n - rank;
}

// `StepBasis::complete`: an enumerated solution's singular support
// completed with its degenerate indices, each in turn kept where it lowers
// the deficit (in `enumerated_support`, as the CPU keeps the completed
// support for the step's later corrections).
fn complete_support(size: u32) {
    for (var k = 0u; k < size && k < MAX_N; k++) {
        basic_mask[k] = enumerated_support[k];
    }
    var deficit = support_deficit(size);
    for (var k = 0u; k < size && k < MAX_N; k++) {
        if deficit == 0u {
            break;
        }
        if degenerate_support[k] && !basic_mask[k] {
            basic_mask[k] = true;
            let d = support_deficit(size);
            if d < deficit {
                deficit = d;
            } else {
                basic_mask[k] = false;
            }
        }
    }
    for (var k = 0u; k < size && k < MAX_N; k++) {
        enumerated_support[k] = basic_mask[k];
    }
}

// `factor_support`: A_R's LU factors on the support of the last solve: the
// basic z of a Lemke solution, the positive z of an enumerated one
// (restitution.wgsl's `support_enumerated`), completed with its degenerate
// indices where A_SS is singular.
fn factor_support(size: u32) -> bool {
    for (var k = 0u; k < size && k < MAX_N; k++) {
        basic_mask[k] = support_enumerated && enumerated_support[k];
    }
    if !support_enumerated {
        for (var i = 0u; i < size && i < MAX_N; i++) {
            let b = basis[i];
            if b >= size && b < 2u * size {
                basic_mask[b - size] = true;
            }
        }
    }
    let largest = gather_support(size);
    if lu_factor(0u, support_size, singular() * largest, false) {
        return true;
    }
    var degenerate = false;
    for (var k = 0u; k < size && k < MAX_N; k++) {
        degenerate = degenerate || degenerate_support[k];
    }
    if !support_enumerated || !degenerate {
        return false;
    }
    complete_support(size);
    let completed = gather_support(size);
    return lu_factor(0u, support_size, singular() * completed, false);
}

// `StepBasis::solve`: lcp_z = z with z_S = −A_SS⁻¹ rhs_S, zero off S, for
// the right-hand side in lcp_q.
fn solve_support(size: u32) {
    let n = support_size;
    for (var r = 0u; r < n && r < MAX_N; r++) {
        lcp_cover[r] = -lcp_q[support[support_pivots[r]]];
    }
    lu_back(0u, n);
    for (var k = 0u; k < size && k < MAX_N; k++) {
        lcp_z[k] = scalar(0.0);
    }
    for (var r = 0u; r < n && r < MAX_N; r++) {
        lcp_z[support[r]] = lcp_cover[r];
    }
}

// `Expansion::select_solving`: the contacts pushing below their caps, or
// overshooting.
fn select_solving(m: u32) {
    let tol = work_tolerance();
    solving_count = 0u;
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        let o = expansion_offset[c];
        if o > scalar(0.0) && (o < step_cap_values[c] || o * expansion_mean[c] > owed(c, m) + tol) {
            solving[solving_count] = c;
            solving_count += 1u;
        }
    }
}

// `offset_response` for each contact solved for, into the response cells
// (m × k); lcp_q and lcp_z, its scratch, are saved and restored.
fn response_columns(m: u32, size: u32) {
    for (var r = 0u; r < size && r < MAX_N; r++) {
        lemke_tableau[saved_cell(r)] = lcp_q[r];
        lemke_tableau[saved_cell(size + r)] = lcp_z[r];
    }
    for (var j = 0u; j < solving_count && j < MAX_CONTACTS; j++) {
        let column = m + solving[j];
        for (var r = 0u; r < size && r < MAX_N; r++) {
            lcp_q[r] = select(step_entry(r, column, size), scalar(0.0), r < m);
        }
        solve_support(size);
        for (var l = 0u; l < m && l < MAX_CONTACTS; l++) {
            lemke_tableau[response_cell(l, j)] = lcp_z[m + l] + select(scalar(0.0), scalar(1.0), l == solving[j]);
        }
    }
    for (var r = 0u; r < size && r < MAX_N; r++) {
        lcp_q[r] = lemke_tableau[saved_cell(r)];
        lcp_z[r] = lemke_tableau[saved_cell(size + r)];
    }
}

// `Expansion::correct_coupled`: Newton's method on the works of the
// contacts solved for. Whether the offsets changed.
fn correct_coupled(m: u32, velocity_scale: scalar) -> bool {
    let k = solving_count;
    let tol = work_tolerance();
    // `Expansion::at_rest`: a ũ_i within singular() of the velocity scale
    // is its terms' round-off, taken as zero.
    let at_rest = singular() * velocity_scale;
    for (var a = 0u; a < k && a < MAX_CONTACTS; a++) {
        let i = solving[a];
        for (var b = 0u; b < k && b < MAX_CONTACTS; b++) {
            var s = scalar(0.0);
            for (var l = 0u; l < m && l < MAX_CONTACTS; l++) {
                s += delassus_nn(i, l, m) * lemke_tableau[response_cell(l, b)];
            }
            lemke_tableau[h_cell(a, b)] = scalar(0.5) * s;
        }
        newton_owed[a] = owed(i, m);
        newton_delta[a] = scalar(0.0);
        newton_held[a] = false;
        newton_bound[a] = scalar(0.0);
    }
    var settled = false;
    for (var round = 0u; round < NEWTON_ROUNDS; round++) {
        var largest = scalar(0.0);
        var jammed = false;
        for (var a = 0u; a < k && a < MAX_CONTACTS; a++) {
            let i = solving[a];
            let o = expansion_offset[i] + newton_delta[a];
            var hu = scalar(0.0);
            for (var b = 0u; b < k && b < MAX_CONTACTS; b++) {
                hu += lemke_tableau[h_cell(a, b)] * newton_delta[b];
            }
            let u_raw = expansion_mean[i] + hu;
            let u_mean = select(u_raw, scalar(0.0), abs(u_raw) <= at_rest);
            // Each row in the units of its contact's ũ: over |ũ_i| + o_i W_ii.
            let row = abs(u_mean) + o * delassus_nn(i, i, m);
            if !newton_held[a] && !(row > scalar(0.0)) {
                jammed = true;
            }
            for (var b = 0u; b < k && b < MAX_CONTACTS; b++) {
                var x = select(scalar(0.0), scalar(1.0), a == b);
                if !newton_held[a] {
                    x = (o * lemke_tableau[h_cell(a, b)] + select(scalar(0.0), u_mean, a == b)) / row;
                }
                lemke_tableau[cell(jacobian_first() + a * k + b)] = x;
            }
            if newton_held[a] {
                newton_step[a] = scalar(0.0);
            } else {
                let f = o * u_mean - newton_owed[a];
                largest = max(largest, abs(f));
                newton_step[a] = -f / row;
            }
        }
        if jammed {
            break;
        }
        if !(largest < scalar(NEWTON_DIVERGED)) {
            break;
        }
        if largest <= scalar(0.25) * tol {
            settled = true;
            break;
        }
        for (var a = 0u; a < k && a < MAX_CONTACTS; a++) {
            newton_pivots[a] = a;
        }
        let first = jacobian_first();
        if !lu_factor(first, k, singular(), true) {
            break;
        }
        for (var a = 0u; a < k && a < MAX_CONTACTS; a++) {
            lcp_cover[a] = newton_step[newton_pivots[a]];
        }
        lu_back(first, k);
        var moved = scalar(0.0);
        for (var a = 0u; a < k && a < MAX_CONTACTS; a++) {
            if newton_held[a] {
                continue;
            }
            let i = solving[a];
            let o = expansion_offset[i];
            let step = lcp_cover[a];
            let next = o + newton_delta[a] + step;
            moved = max(moved, abs(step / max(abs(next), SCALAR_MIN_POSITIVE)));
            if next >= step_cap_values[i] || next <= scalar(0.0) {
                newton_held[a] = true;
                newton_bound[a] = select(scalar(0.0), step_cap_values[i], next > scalar(0.0));
                newton_delta[a] = newton_bound[a] - o;
            } else {
                newton_delta[a] = next - o;
            }
        }
        if moved <= scalar(4.0) * SCALAR_EPSILON || round + 1u == NEWTON_ROUNDS {
            settled = true;
            break;
        }
    }
    var changed = false;
    if settled {
        for (var a = 0u; a < k && a < MAX_CONTACTS; a++) {
            let i = solving[a];
            // A held impulse is its cap (or zero) exactly, as on the CPU.
            let next = select(expansion_offset[i] + newton_delta[a], newton_bound[a], newton_held[a]);
            changed = changed || next != expansion_offset[i];
            expansion_offset[i] = next;
        }
    }
    return changed;
}

// `coupled_correction` (src/sampling/elastic.rs).
fn coupled_correction(m: u32, size: u32, velocity_scale: scalar) -> bool {
    scratch_m = m;
    if !factor_support(size) {
        return false;
    }
    select_solving(m);
    response_columns(m, size);
    return correct_coupled(m, velocity_scale);
}

// `continue_step`: the step at the corrected offsets on the factored
// support; whether it is a solution of the step LCP there (then lcp_z holds
// it, λn with o, as after `elastic_solve`, and `residual` its violation).
fn continue_step(m: u32, size: u32, impulses: u32, velocity_scale: scalar, h: scalar,
                 residual: ptr<function, scalar>) -> bool {
    step_rhs(m, size, impulses, true);
    solve_support(size);
    let violation = step_residual(size, m, velocity_scale, h);
    if !(violation <= min(residual_tolerance(), CONTINUATION_VIOLATION)) {
        return false;
    }
    for (var c = 0u; c < m && c < MAX_CONTACTS; c++) {
        lcp_z[m + c] += expansion_offset[c];
    }
    *residual = violation;
    return true;
}
