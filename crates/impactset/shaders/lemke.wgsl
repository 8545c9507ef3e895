// Lemke's complementary pivoting with a lexicographic ratio test: the same
// tableau, pivot rule and function names as src/lcp/lemke.rs (read the two
// side by side). Solves w = A z + q ≥ 0, z ≥ 0, zᵀw = 0, N ≤ MAX_N.
//
// The tableau is [I | −A | −d | q | 0], row-major with stride
// `tableau_stride(N)` = 2N + 2 rounded up to a multiple of TABLEAU_BLOCK
// (types.wgsl: 8 in the smallest module, 32 in the larger ones):
//   column   0 .. N       N .. 2N      2N       2N+1             2N+2 ..
//            w_0..w_{N−1} z_0..z_{N−1} z₀ (art.) right-hand side  zero padding
// Row operations go TABLEAU_BLOCK columns per loop iteration (the padding
// stays zero), so that a pivot costs lavapipe's loop limiter
// N·stride/TABLEAU_BLOCK iterations instead of N·stride
// (docs/gpu-lavapipe.md).
// The N · tableau_stride(N) entries of each invocation live in the storage
// buffer `lemke_tableau` (the entry point calls `use_tableau_slot`), in one
// of two layouts chosen by the host: *interleaved*, entry x of invocation i
// of `count` at x · count + i, so that neighbouring invocations touch
// neighbouring words (coalesced memory access on GPUs); or *contiguous*, at
// i · N · stride + x (measured ~20 % faster on lavapipe, whose SIMD lanes
// favour per-invocation locality). A private
// array of MAX_TABLEAU scalars would read more simply, but lavapipe (LLVM
// coroutines) takes tens of minutes to compile one, and GPUs spill an array
// that large to the same global memory anyway. The other arrays are private.
//
// The including module defines `fn lcp_matrix(r: u32, c: u32, n: u32) -> scalar`,
// the entry A[r][c] of its LCP matrix, and fills `lcp_q` and `lcp_cover`.

@group(0) @binding(7) var<storage, read_write> lemke_tableau: array<scalar>;
var<private> tableau_base: u32;
var<private> tableau_step: u32;
var<private> basis: array<u32, MAX_N>;
var<private> lcp_q: array<scalar, MAX_N>;
var<private> lcp_cover: array<scalar, MAX_N>;
var<private> lcp_z: array<scalar, MAX_N>;
// A running bound on the magnitude of the terms summed into each row's
// coefficients (the columns left of the right-hand side): max(1, |aᵢⱼ|, dᵢ)
// at the start, and at each pivot max(bound_i, |f| · bound_r / |a_re|) for a
// row that row r (pivot a_re) is subtracted f / a_re times from. Round-off
// in a row's entries is a few ε times its bound.
var<private> row_bound: array<scalar, MAX_N>;
// With `lemke_relative_tol` > 0 an entry a_ie of the entering column is a
// pivot candidate when it exceeds max(tol, lemke_relative_tol · row_bound[i])
// (the including module sets it; 0, the default, leaves the absolute `tol`).
var<private> lemke_relative_tol: scalar;

struct PivotResult {
    pivots: u32,
    status: u32,   // LEMKE_SOLVED, LEMKE_RAY or LEMKE_PIVOT_LIMIT
}

// Selects invocation i's tableau among `count` for LCPs of size n.
fn use_tableau_slot(i: u32, count: u32, n: u32, interleaved: bool) {
    if interleaved {
        tableau_base = i;
        tableau_step = count;
    } else {
        tableau_base = i * n * tableau_stride(n);
        tableau_step = 1u;
    }
}

// Index in `lemke_tableau` of this invocation's tableau entry x (row-major).
fn cell(x: u32) -> u32 {
    return tableau_base + x * tableau_step;
}

// Row stride of the tableau: 2N + 2 rounded up to a multiple of
// TABLEAU_BLOCK (a power of two). Mirrors `gpu::types::tableau_stride`.
fn tableau_stride(n: u32) -> u32 {
    return (2u * n + 1u + TABLEAU_BLOCK) & ~(TABLEAU_BLOCK - 1u);
}

// Entry (i, c) of the initial tableau [I | −A | −d | q | 0].
fn initial_entry(i: u32, c: u32, n: u32) -> scalar {
    if c < n {
        return select(scalar(0.0), scalar(1.0), i == c);
    }
    if c < 2u * n {
        return -lcp_matrix(i, c - n, n);
    }
    if c == 2u * n {
        return -lcp_cover[i];
    }
    if c == 2u * n + 1u {
        return lcp_q[i];
    }
    return scalar(0.0);
}

// Writes entry (i, c) of the initial tableau at `row + c`; returns its
// magnitude if it is a coefficient (0 for the right-hand side and padding).
fn init_entry(i: u32, c: u32, n: u32, row: u32) -> scalar {
    let x = initial_entry(i, c, n);
    lemke_tableau[cell(row + c)] = x;
    return select(abs(x), scalar(0.0), c > 2u * n);
}

// Writes entries (i, c) .. (i, c + 8) of the initial tableau; returns the
// largest magnitude of its coefficients among them.
fn init_eight(i: u32, c: u32, n: u32, row: u32) -> scalar {
    let low = max(max(init_entry(i, c, n, row), init_entry(i, c + 1u, n, row)),
                  max(init_entry(i, c + 2u, n, row), init_entry(i, c + 3u, n, row)));
    let high = max(max(init_entry(i, c + 4u, n, row), init_entry(i, c + 5u, n, row)),
                   max(init_entry(i, c + 6u, n, row), init_entry(i, c + 7u, n, row)));
    return max(low, high);
}

// Fills [I | −A | −d | q | 0], the initial basis w and the row bounds.
fn init_tableau(n: u32) {
    let stride = tableau_stride(n);
    for (var i = 0u; i < n && i < MAX_N; i++) {
        let row = i * stride;
        var bound = scalar(1.0);
        for (var c = 0u; c < stride && c < MAX_STRIDE; c += TABLEAU_BLOCK) {
            bound = max(bound, init_eight(i, c, n, row));
            if TABLEAU_BLOCK > 8u {
                bound = max(bound, max(init_eight(i, c + 8u, n, row), init_eight(i, c + 16u, n, row)));
                bound = max(bound, init_eight(i, c + 24u, n, row));
            }
        }
        row_bound[i] = bound;
        basis[i] = i;
    }
}

// Whether entry `a` of row i of the entering column is a pivot candidate.
fn is_pivot_candidate(a: scalar, i: u32, tol: scalar) -> bool {
    return a > max(tol, lemke_relative_tol * row_bound[i]);
}

// `compare_tied`: −1, 0, 1 as x is below, tied with, or above y; x and y
// tie when |x − y| ≤ tie · max(1, |x|, |y|).
fn compare_tied(x: scalar, y: scalar, tie: scalar) -> i32 {
    let band = tie * max(scalar(1.0), max(abs(x), abs(y)));
    if x < y - band {
        return -1;
    }
    if x > y + band {
        return 1;
    }
    return 0;
}

// Lexicographic comparison of rows i and k for entering column e: compares
// (rhs, B⁻¹ row) divided by the row's entry in column e, the B⁻¹ columns read
// from `offset` on. Values within the tie tolerance tie.
fn lex_compare(n: u32, i: u32, k: u32, e: u32, offset: u32, tie: scalar) -> i32 {
    let stride = tableau_stride(n);
    let ai = lemke_tableau[cell(i * stride + e)];
    let ak = lemke_tableau[cell(k * stride + e)];
    let first = compare_tied(lemke_tableau[cell(i * stride + 2u * n + 1u)] / ai, lemke_tableau[cell(k * stride + 2u * n + 1u)] / ak, tie);
    if first != 0 {
        return first;
    }
    for (var j = 0u; j < n && j < MAX_N; j++) {
        let c = (offset + j) % n;
        let o = compare_tied(lemke_tableau[cell(i * stride + c)] / ai, lemke_tableau[cell(k * stride + c)] / ak, tie);
        if o != 0 {
            return o;
        }
    }
    return 0;
}

// The row where z₀ enters: the lexicographic maximum of the rows divided by
// their (negative) z₀ entry.
fn first_leaving_row(n: u32, offset: u32, tie: scalar) -> u32 {
    let e = 2u * n;
    var best = 0u;
    for (var i = 1u; i < n && i < MAX_N; i++) {
        if lex_compare(n, i, best, e, offset, tie) == 1 {
            best = i;
        }
    }
    return best;
}

// The lexicographic minimum-ratio row for entering column e, or N (a
// secondary ray) when no entry exceeds the pivot tolerance `tol`. z₀'s row
// leaves instead where `z0_leaves` says so: that ends the path at a
// solution (the usual rule when the ratios tie; it also keeps round-off
// from turning a degenerate tie into a wrong, non-lexicographic choice).
fn leaving_row(n: u32, e: u32, z0_row: u32, offset: u32, tol: scalar, tie: scalar) -> u32 {
    let stride = tableau_stride(n);
    var best = n;
    for (var i = 0u; i < n && i < MAX_N; i++) {
        if is_pivot_candidate(lemke_tableau[cell(i * stride + e)], i, tol) {
            if best == n || lex_compare(n, i, best, e, offset, tie) == -1 {
                best = i;
            }
        }
    }
    if best == n {
        return n;
    }
    return select(best, z0_row, z0_leaves(n, e, best, z0_row, tol, tie));
}

// `lcp::pivot::z0_leaves`: z₀ leaves instead of row `least` when its ratio
// θ₀ ties with the least, or when moving the entering variable to θ₀ leaves
// every candidate row feasible to the tie tolerance,
// x_i − θ₀ a_i ≥ −tie · max(1, |x_i|) (round-off entries in both rows near
// the end of a path, whose ratios differ by more than the tie).
fn z0_leaves(n: u32, e: u32, least: u32, z0_row: u32, tol: scalar, tie: scalar) -> bool {
    let stride = tableau_stride(n);
    let a0 = lemke_tableau[cell(z0_row * stride + e)];
    if least == z0_row || !is_pivot_candidate(a0, z0_row, tol) {
        return false;
    }
    let theta0 = lemke_tableau[cell(z0_row * stride + 2u * n + 1u)] / a0;
    let a = lemke_tableau[cell(least * stride + e)];
    let x = lemke_tableau[cell(least * stride + 2u * n + 1u)];
    if compare_tied(theta0, x / a, tie) == 0 {
        return true;
    }
    if x - theta0 * a < -tie * max(scalar(1.0), abs(x)) {
        return false;
    }
    for (var i = 0u; i < n && i < MAX_N; i++) {
        let ai = lemke_tableau[cell(i * stride + e)];
        let xi = lemke_tableau[cell(i * stride + 2u * n + 1u)];
        if is_pivot_candidate(ai, i, tol) && xi - theta0 * ai < -tie * max(scalar(1.0), abs(xi)) {
            return false;
        }
    }
    return true;
}

// Tableau entries first .. first + TABLEAU_BLOCK times `factor`.
fn scale_block(first: u32, factor: scalar) {
    scale_eight(first, factor);
    if TABLEAU_BLOCK > 8u {
        scale_eight(first + 8u, factor);
        scale_eight(first + 16u, factor);
        scale_eight(first + 24u, factor);
    }
}

// Tableau entries first .. first + TABLEAU_BLOCK minus f times those at
// pivot_first .. pivot_first + TABLEAU_BLOCK.
fn eliminate_block(first: u32, pivot_first: u32, f: scalar) {
    eliminate_eight(first, pivot_first, f);
    if TABLEAU_BLOCK > 8u {
        eliminate_eight(first + 8u, pivot_first + 8u, f);
        eliminate_eight(first + 16u, pivot_first + 16u, f);
        eliminate_eight(first + 24u, pivot_first + 24u, f);
    }
}

// Tableau entries first .. first + 8 times `factor`.
fn scale_eight(first: u32, factor: scalar) {
    lemke_tableau[cell(first)] *= factor;
    lemke_tableau[cell(first + 1u)] *= factor;
    lemke_tableau[cell(first + 2u)] *= factor;
    lemke_tableau[cell(first + 3u)] *= factor;
    lemke_tableau[cell(first + 4u)] *= factor;
    lemke_tableau[cell(first + 5u)] *= factor;
    lemke_tableau[cell(first + 6u)] *= factor;
    lemke_tableau[cell(first + 7u)] *= factor;
}

// Tableau entries first .. first + 8 minus f times those at pivot_first .. pivot_first + 8.
fn eliminate_eight(first: u32, pivot_first: u32, f: scalar) {
    lemke_tableau[cell(first)] -= f * lemke_tableau[cell(pivot_first)];
    lemke_tableau[cell(first + 1u)] -= f * lemke_tableau[cell(pivot_first + 1u)];
    lemke_tableau[cell(first + 2u)] -= f * lemke_tableau[cell(pivot_first + 2u)];
    lemke_tableau[cell(first + 3u)] -= f * lemke_tableau[cell(pivot_first + 3u)];
    lemke_tableau[cell(first + 4u)] -= f * lemke_tableau[cell(pivot_first + 4u)];
    lemke_tableau[cell(first + 5u)] -= f * lemke_tableau[cell(pivot_first + 5u)];
    lemke_tableau[cell(first + 6u)] -= f * lemke_tableau[cell(pivot_first + 6u)];
    lemke_tableau[cell(first + 7u)] -= f * lemke_tableau[cell(pivot_first + 7u)];
}

// Gauss–Jordan pivot on (r, e), TABLEAU_BLOCK columns per loop iteration
// (the same arithmetic as the CPU entry by entry; see the header on the
// loop limiter).
fn pivot(n: u32, r: u32, e: u32) {
    let stride = tableau_stride(n);
    let row_r = r * stride;
    let inv = scalar(1.0) / lemke_tableau[cell(row_r + e)];
    for (var c = 0u; c < stride && c < MAX_STRIDE; c += TABLEAU_BLOCK) {
        scale_block(row_r + c, inv);
    }
    lemke_tableau[cell(row_r + e)] = scalar(1.0);
    row_bound[r] *= abs(inv);
    for (var i = 0u; i < n && i < MAX_N; i++) {
        if i == r {
            continue;
        }
        let row = i * stride;
        let f = lemke_tableau[cell(row + e)];
        if f != scalar(0.0) {
            for (var c = 0u; c < stride && c < MAX_STRIDE; c += TABLEAU_BLOCK) {
                eliminate_block(row + c, row_r + c, f);
            }
            lemke_tableau[cell(row + e)] = scalar(0.0);
            row_bound[i] = max(row_bound[i], abs(f) * row_bound[r]);
        }
    }
}

// The complement of variable v (w_j ↔ z_j).
fn complement(v: u32, n: u32) -> u32 {
    return select(v - n, v + n, v < n);
}

// Complementary pivoting from the initial tableau until z₀ leaves.
fn run_pivots(n: u32, offset: u32, tol: scalar, tie: scalar, cap: u32) -> PivotResult {
    let z0 = 2u * n;
    let z0_row = first_leaving_row(n, offset, tie);
    pivot(n, z0_row, z0);
    var entering = complement(basis[z0_row], n);
    basis[z0_row] = z0;
    var pivots = 1u;
    for (var k = 0u; k < MAX_PIVOTS; k++) {
        if pivots >= cap {
            return PivotResult(pivots, LEMKE_PIVOT_LIMIT);
        }
        let r = leaving_row(n, entering, z0_row, offset, tol, tie);
        if r >= n {
            return PivotResult(pivots, select(LEMKE_RAY, LEMKE_SOLVED, z0_at_zero(n, z0_row)));
        }
        pivot(n, r, entering);
        pivots += 1u;
        let leaving = basis[r];
        basis[r] = entering;
        if leaving == z0 {
            return PivotResult(pivots, LEMKE_SOLVED);
        }
        entering = complement(leaving, n);
    }
    // Only reachable when a driver cut the loop short (lavapipe's loop limiter).
    return PivotResult(pivots, LEMKE_LOOP_EXHAUSTED);
}

// f32 (a relative pivot tolerance set): whether the ray met at the end of a
// path is round-off's, z₀ being zero within it, so that the basis already
// holds a solution (docs/model.md §9, "f32"). In exact arithmetic the path
// reached z₀ = 0 at a degenerate vertex and its last pivot moves nothing (θ
// = 0): z₀ leaves at zero. In f32 z₀ keeps its round-off, the path can take
// another degenerate pivot instead and then meet an entering column whose
// entries are all round-off: no row is a candidate. With |z₀| at most
// N·ε_f32 (`lemke_relative_tol`) times the largest right-hand side (at
// least 1), the basis with z₀ taken as 0 is complementary and feasible to
// that round-off; the step residual, recomputed from the data, still judges
// it.
fn z0_at_zero(n: u32, z0_row: u32) -> bool {
    if lemke_relative_tol <= scalar(0.0) {
        return false;
    }
    let stride = tableau_stride(n);
    var largest = scalar(1.0);
    for (var i = 0u; i < n && i < MAX_N; i++) {
        largest = max(largest, abs(lemke_tableau[cell(i * stride + 2u * n + 1u)]));
    }
    return abs(lemke_tableau[cell(z0_row * stride + 2u * n + 1u)]) <= lemke_relative_tol * largest;
}

// Reads z off the final basis (basic z_j = its row's right-hand side, clamped
// at 0 against round-off; non-basic z_j = 0; z₀, basic only where
// `z0_at_zero` ended the path, is dropped).
fn extract_solution(n: u32) {
    let stride = tableau_stride(n);
    for (var j = 0u; j < n && j < MAX_N; j++) {
        lcp_z[j] = scalar(0.0);
    }
    for (var i = 0u; i < n && i < MAX_N; i++) {
        let b = basis[i];
        if b >= n && b < 2u * n {
            lcp_z[b - n] = max(lemke_tableau[cell(i * stride + 2u * n + 1u)], scalar(0.0));
        }
    }
}

// `LemkeWorkspace::solve_covered`: z = 0 without pivots when q ≥ 0, else
// pivots from [I | −A | −d | q]. `offset` is taken modulo N. `tol` is the
// pivot tolerance and `tie` the relative tie tolerance (`Tolerances` on the
// CPU); the host passes the CPU's values in f64 and f32-scaled ones in f32
// (`gpu::pivot_tolerance`, `gpu::tie_tolerance`).
fn solve_covered(n: u32, lex_offset: u32, tol: scalar, tie: scalar, cap: u32) -> PivotResult {
    var all_nonnegative = true;
    for (var i = 0u; i < n && i < MAX_N; i++) {
        if lcp_q[i] < scalar(0.0) {
            all_nonnegative = false;
        }
    }
    if all_nonnegative {
        for (var j = 0u; j < n && j < MAX_N; j++) {
            lcp_z[j] = scalar(0.0);
            // The initial basis, every w (continuation.wgsl reads it).
            basis[j] = j;
        }
        return PivotResult(0u, LEMKE_SOLVED);
    }
    init_tableau(n);
    let result = run_pivots(n, lex_offset % n, tol, tie, cap);
    if result.status == LEMKE_SOLVED {
        extract_solution(n);
    }
    return result;
}

// `LcpResidual::violation` of lcp_z, relative to Z = max(1, ‖z‖∞) and
// Q = max(1, ‖q‖∞): max(0, −min z / Z, −min w / Q, max |z∘w| / (Z Q)),
// w = A z + q recomputed from the data.
fn lcp_residual(n: u32) -> scalar {
    var z_norm = scalar(1.0);
    var q_norm = scalar(1.0);
    for (var i = 0u; i < n && i < MAX_N; i++) {
        z_norm = max(z_norm, abs(lcp_z[i]));
        q_norm = max(q_norm, abs(lcp_q[i]));
    }
    var violation = scalar(0.0);
    for (var i = 0u; i < n && i < MAX_N; i++) {
        var sum = scalar(0.0);
        for (var j = 0u; j < n && j < MAX_N; j++) {
            sum += lcp_matrix(i, j, n) * lcp_z[j];
        }
        let w = lcp_q[i] + sum;
        violation = max(violation, max(-lcp_z[i] / z_norm, max(-w / q_norm, abs(lcp_z[i] * w) / (z_norm * q_norm))));
    }
    return violation;
}
