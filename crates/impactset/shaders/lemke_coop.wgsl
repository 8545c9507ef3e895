// Lemke's method solved by a whole workgroup: COOP_THREADS invocations share
// one sample's tableau (lemke.wgsl's layout, contiguous: the workgroup's
// slot of `lemke_tableau`), so that a large step LCP is not walked by one
// invocation alone (docs/gpu.md, "Kernels"). The pivots, the tolerance
// rule and the lexicographic ratio test are lemke.wgsl's (and the CPU's),
// entry by entry:
//
// * a pivot's row operations are split by columns: invocation t updates
//   columns t, t + COOP_THREADS, … of every row, so neighbouring
//   invocations touch neighbouring words of the storage buffer (coalesced);
//   the pivot row and the entering column are staged in workgroup memory;
// * the ratio test is a parallel reduction: each invocation takes the
//   least ratio of its rows, a tree in workgroup memory the least of all
//   (`min` is exact, so the order of the tree does not matter), and an
//   atomic count the rows that tie with it within the tie tolerance. One
//   such row is the row the CPU's sequential scan picks (see
//   `coop_leaving_row`); where several tie, invocation 0 runs the CPU's
//   scan itself (lemke.wgsl), lexicographic comparisons included.
//
// Every invocation keeps the same private copies of the sample's other
// state (q, the covering vector, z, the basis), computed from the same
// words; what decides control flow is broadcast from invocation 0 through
// workgroup memory (`coop_broadcast`, workgroupUniformLoad), so every
// barrier is met by the whole workgroup in uniform control flow.

// Invocations per workgroup: one sample each workgroup. 64 is two warps
// on NVIDIA hardware, one wave on AMD's, eight of lavapipe's 8-lane
// vectors; a pivot's row update then takes ⌈(2N + 2) / 64⌉ columns a row
// and invocation (3 at N = 88).
const COOP_THREADS: u32 = 64u;

// The pivot row after scaling, and the entering column before the pivot.
var<workgroup> coop_row: array<scalar, MAX_STRIDE>;
var<workgroup> coop_col: array<scalar, MAX_N>;
// lemke.wgsl's `row_bound`, one entry per row, kept by the row's invocation.
var<workgroup> coop_bound: array<scalar, MAX_N>;
// The reduction tree.
var<workgroup> coop_reduce: array<scalar, COOP_THREADS>;
// A word invocation 0 broadcasts.
var<workgroup> coop_word: u32;
// Candidates, rows tied with the least ratio and the first of them, and
// whether a candidate row would turn infeasible at z₀'s ratio (z0_leaves).
var<workgroup> coop_count: atomic<u32>;
var<workgroup> coop_near: atomic<u32>;
var<workgroup> coop_near_row: atomic<u32>;
var<workgroup> coop_blocked: atomic<u32>;
// Set by an invocation whose loop-limiter probe came short (routh_coop.wgsl).
var<workgroup> coop_cut: atomic<u32>;

// This invocation's index in its workgroup.
var<private> coop_t: u32;

// A bound above any ratio of interest: the sentinel of an invocation with
// no candidate row (a ratio beyond it sends the choice to the sequential
// scan, never to a wrong row).
fn coop_huge() -> scalar {
    return scalar(1.0) / SCALAR_MIN_POSITIVE;
}

// Clears the workgroup's counters (invocation 0; a barrier follows before
// their next use).
fn coop_clear() {
    atomicStore(&coop_count, 0u);
    atomicStore(&coop_near, 0u);
    atomicStore(&coop_near_row, 0xffffffffu);
    atomicStore(&coop_blocked, 0u);
}

// Invocation 0's `x`, in every invocation, as a uniform value.
fn coop_broadcast(x: u32) -> u32 {
    workgroupBarrier();
    if coop_t == 0u {
        coop_word = x;
    }
    return workgroupUniformLoad(&coop_word);
}

// The least of every invocation's `x`, in every invocation.
fn coop_min(x: scalar) -> scalar {
    coop_reduce[coop_t] = x;
    workgroupBarrier();
    for (var s = COOP_THREADS / 2u; s > 0u; s >>= 1u) {
        if coop_t < s {
            coop_reduce[coop_t] = min(coop_reduce[coop_t], coop_reduce[coop_t + s]);
        }
        workgroupBarrier();
    }
    let least = coop_reduce[0];
    workgroupBarrier();
    return least;
}

// `is_pivot_candidate` with the workgroup's row bounds.
fn coop_candidate(a: scalar, i: u32, tol: scalar) -> bool {
    return a > max(tol, lemke_relative_tol * coop_bound[i]);
}

// Entry (i, c) of this workgroup's tableau.
fn coop_entry(i: u32, c: u32, stride: u32) -> scalar {
    return lemke_tableau[cell(i * stride + c)];
}

// `init_tableau`: [I | −A | −d | q] split by columns, the row bounds
// max(1, |aᵢⱼ|, dᵢ) by rows.
fn coop_init_tableau(n: u32) {
    let stride = tableau_stride(n);
    let width = 2u * n + 2u;
    let total = n * width;
    for (var k = coop_t; k < total; k += COOP_THREADS) {
        let i = k / width;
        let c = k - i * width;
        lemke_tableau[cell(i * stride + c)] = initial_entry(i, c, n);
    }
    for (var i = coop_t; i < n; i += COOP_THREADS) {
        var bound = max(scalar(1.0), abs(lcp_cover[i]));
        for (var j = 0u; j < n && j < MAX_N; j++) {
            bound = max(bound, abs(lcp_matrix(i, j, n)));
        }
        coop_bound[i] = bound;
    }
    for (var i = 0u; i < n && i < MAX_N; i++) {
        basis[i] = i;
    }
    storageBarrier();
    workgroupBarrier();
}

// `first_leaving_row`: the lexicographic maximum of the rows divided by
// their z₀ entry. The largest first ratio θ comes from a reduction; when
// exactly one row's ratio ties with θ (compare_tied ≠ −1), the CPU's scan
// ends on that row (it beats every row before it and no later row beats
// it), else invocation 0 runs the scan.
fn coop_first_leaving_row(n: u32, offset: u32, tie: scalar) -> u32 {
    let stride = tableau_stride(n);
    let e = 2u * n;
    var most = -coop_huge();
    for (var i = coop_t; i < n; i += COOP_THREADS) {
        most = max(most, coop_entry(i, e + 1u, stride) / coop_entry(i, e, stride));
    }
    let theta = -coop_min(-most);
    for (var i = coop_t; i < n; i += COOP_THREADS) {
        if compare_tied(coop_entry(i, e + 1u, stride) / coop_entry(i, e, stride), theta, tie) != -1 {
            atomicAdd(&coop_near, 1u);
            atomicMin(&coop_near_row, i);
        }
    }
    workgroupBarrier();
    var choice = 0u;
    if coop_t == 0u {
        let row = atomicLoad(&coop_near_row);
        let unique = atomicLoad(&coop_near) == 1u;
        coop_clear();
        if unique && coop_entry(row, e + 1u, stride) / coop_entry(row, e, stride) == theta {
            choice = row;
        } else {
            choice = first_leaving_row(n, offset, tie);
        }
    }
    return coop_broadcast(choice);
}

// `leaving_row`: the lexicographic minimum-ratio row for entering column e
// among the candidates, z₀'s row where `z0_leaves` says so, N on a
// secondary ray. As in `coop_first_leaving_row`, a row alone within the tie
// tolerance of the least ratio θ is the scan's choice: every candidate
// before it has a ratio above θ by more than the tie (so it replaces them)
// and none after it has a ratio below it (so none replaces it).
fn coop_leaving_row(n: u32, e: u32, z0_row: u32, offset: u32, tol: scalar, tie: scalar) -> u32 {
    let stride = tableau_stride(n);
    let rhs = 2u * n + 1u;
    // z₀'s ratio, for z0_leaves' test of every candidate row (used only
    // where z₀'s row is a candidate itself).
    let theta0 = coop_entry(z0_row, rhs, stride) / coop_entry(z0_row, e, stride);
    var least = coop_huge();
    for (var i = coop_t; i < n; i += COOP_THREADS) {
        let a = coop_entry(i, e, stride);
        if coop_candidate(a, i, tol) {
            let x = coop_entry(i, rhs, stride);
            least = min(least, x / a);
            atomicAdd(&coop_count, 1u);
            if x - theta0 * a < -tie * max(scalar(1.0), abs(x)) {
                atomicOr(&coop_blocked, 1u);
            }
        }
    }
    let theta = coop_min(least);
    for (var i = coop_t; i < n; i += COOP_THREADS) {
        let a = coop_entry(i, e, stride);
        if coop_candidate(a, i, tol) && compare_tied(coop_entry(i, rhs, stride) / a, theta, tie) != 1 {
            atomicAdd(&coop_near, 1u);
            atomicMin(&coop_near_row, i);
        }
    }
    workgroupBarrier();
    var choice = n;
    if coop_t == 0u {
        let candidates = atomicLoad(&coop_count);
        let row = atomicLoad(&coop_near_row);
        let unique = atomicLoad(&coop_near) == 1u;
        let blocked = atomicLoad(&coop_blocked) != 0u;
        coop_clear();
        if candidates > 0u {
            var best = n;
            if unique && coop_entry(row, rhs, stride) / coop_entry(row, e, stride) == theta {
                best = row;
            } else {
                for (var i = 0u; i < n && i < MAX_N; i++) {
                    if coop_candidate(coop_entry(i, e, stride), i, tol) {
                        if best == n || lex_compare(n, i, best, e, offset, tie) == -1 {
                            best = i;
                        }
                    }
                }
            }
            choice = select(best, z0_row, coop_z0_leaves(n, e, best, z0_row, tol, tie, blocked));
        }
    }
    return coop_broadcast(choice);
}

// `z0_leaves` (invocation 0), with its test of every candidate row taken
// in parallel (`blocked`).
fn coop_z0_leaves(n: u32, e: u32, least: u32, z0_row: u32, tol: scalar, tie: scalar, blocked: bool) -> bool {
    let stride = tableau_stride(n);
    let a0 = coop_entry(z0_row, e, stride);
    if least == z0_row || !coop_candidate(a0, z0_row, tol) {
        return false;
    }
    let theta0 = coop_entry(z0_row, 2u * n + 1u, stride) / a0;
    let a = coop_entry(least, e, stride);
    let x = coop_entry(least, 2u * n + 1u, stride);
    if compare_tied(theta0, x / a, tie) == 0 {
        return true;
    }
    if x - theta0 * a < -tie * max(scalar(1.0), abs(x)) {
        return false;
    }
    return !blocked;
}

// `pivot`: Gauss–Jordan on (r, e), split by columns. The same arithmetic
// entry by entry: the pivot row times 1 / a_re (its entry e set to 1), then
// every other row with a nonzero entry f in column e minus f times it (its
// entry e set to 0); the row bounds as lemke.wgsl keeps them.
fn coop_pivot(n: u32, r: u32, e: u32) {
    let stride = tableau_stride(n);
    let width = 2u * n + 2u;
    let inv = scalar(1.0) / coop_entry(r, e, stride);
    let bound_r = coop_bound[r] * abs(inv);
    for (var i = coop_t; i < n; i += COOP_THREADS) {
        coop_col[i] = coop_entry(i, e, stride);
    }
    storageBarrier();
    for (var c = coop_t; c < width; c += COOP_THREADS) {
        let x = select(coop_entry(r, c, stride) * inv, scalar(1.0), c == e);
        lemke_tableau[cell(r * stride + c)] = x;
        coop_row[c] = x;
    }
    workgroupBarrier();
    // The other rows' entries, taken in order (row by row, column by
    // column) COOP_THREADS apart, four per loop iteration (lavapipe's loop
    // limiter counts iterations, docs/gpu-lavapipe.md).
    let total = n * width;
    for (var k = coop_t; k < total; k += 4u * COOP_THREADS) {
        coop_eliminate(k, total, width, stride, r, e);
        coop_eliminate(k + COOP_THREADS, total, width, stride, r, e);
        coop_eliminate(k + 2u * COOP_THREADS, total, width, stride, r, e);
        coop_eliminate(k + 3u * COOP_THREADS, total, width, stride, r, e);
    }
    for (var i = coop_t; i < n; i += COOP_THREADS) {
        let f = coop_col[i];
        if i == r {
            coop_bound[i] = bound_r;
        } else if f != scalar(0.0) {
            coop_bound[i] = max(coop_bound[i], abs(f) * bound_r);
        }
    }
    storageBarrier();
    workgroupBarrier();
}

// Entry k of the rows' `total` = N · width coefficients (row k / width)
// minus f times the pivot row's, f its entry in the entering column e (0
// at e itself); the pivot row and rows with f = 0 stay.
fn coop_eliminate(k: u32, total: u32, width: u32, stride: u32, r: u32, e: u32) {
    if k >= total {
        return;
    }
    let i = k / width;
    let c = k - i * width;
    let f = coop_col[i];
    if i != r && f != scalar(0.0) {
        let x = lemke_tableau[cell(i * stride + c)] - f * coop_row[c];
        lemke_tableau[cell(i * stride + c)] = select(x, scalar(0.0), c == e);
    }
}

// `run_pivots` by the workgroup: every decision (the rows, the leaving
// variable) is broadcast, so all invocations run the same iterations.
fn coop_run_pivots(n: u32, offset: u32, tol: scalar, tie: scalar, cap: u32) -> PivotResult {
    let z0 = 2u * n;
    let z0_row = coop_first_leaving_row(n, offset, tie);
    coop_pivot(n, z0_row, z0);
    var entering = coop_broadcast(complement(basis[z0_row], n));
    basis[z0_row] = z0;
    var pivots = 1u;
    for (var k = 0u; k < MAX_PIVOTS; k++) {
        if pivots >= cap {
            return PivotResult(pivots, LEMKE_PIVOT_LIMIT);
        }
        let r = coop_leaving_row(n, entering, z0_row, offset, tol, tie);
        if r >= n {
            // f32: a ray at z₀ = 0 within round-off ends at a solution (lemke.wgsl).
            let solved = coop_broadcast(select(0u, 1u, z0_at_zero(n, z0_row)));
            return PivotResult(pivots, select(LEMKE_RAY, LEMKE_SOLVED, solved == 1u));
        }
        coop_pivot(n, r, entering);
        pivots += 1u;
        let leaving = coop_broadcast(basis[r]);
        basis[r] = entering;
        if leaving == z0 {
            return PivotResult(pivots, LEMKE_SOLVED);
        }
        entering = complement(leaving, n);
    }
    // Only reachable when a driver cut the loop short (lavapipe's loop limiter).
    return PivotResult(pivots, LEMKE_LOOP_EXHAUSTED);
}

// `solve_covered` by the workgroup: z = 0 without pivots when q ≥ 0, else
// the pivots from [I | −A | −d | q]; z read off the final basis by every
// invocation.
fn coop_solve_covered(n: u32, lex_offset: u32, tol: scalar, tie: scalar, cap: u32) -> PivotResult {
    var nonnegative = 1u;
    for (var i = 0u; i < n && i < MAX_N; i++) {
        if lcp_q[i] < scalar(0.0) {
            nonnegative = 0u;
        }
    }
    if coop_broadcast(nonnegative) == 1u {
        for (var j = 0u; j < n && j < MAX_N; j++) {
            lcp_z[j] = scalar(0.0);
            basis[j] = j;
        }
        return PivotResult(0u, LEMKE_SOLVED);
    }
    coop_init_tableau(n);
    let result = coop_run_pivots(n, lex_offset % n, tol, tie, cap);
    if result.status == LEMKE_SOLVED {
        extract_solution(n);
    }
    return result;
}
