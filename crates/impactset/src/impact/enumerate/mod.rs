//! Every solution of a Routh step LCP (docs/model.md §4, §5b), by contact-mode
//! enumeration in reduced impulse coordinates.
//!
//! # The problem
//!
//! The step LCP `w = A_R z + b ≥ 0, z ≥ 0, zᵀw = 0`,
//! `z = [σ; λn; λD; γ]`, `b = [h·p; Jn v; JD v; 0]`, can have several
//! solutions with different velocity changes `Δv = M⁻¹Jᵀλ`, even segments of
//! them. [`StepEnumerator`] returns one LCP solution per distinct `Δv`, in a
//! fixed order.
//!
//! # Method
//!
//! `Δv` depends on `λ` only through the reduced impulses `x_i = (λn_i, f_i)`,
//! `f_i = Σ_k λD_(i,k) d_k` the net tangential impulse, and the LCP only sees
//! `v` through `u = (Jn v, Jt v)`; with `W = [Jn; Jt] M⁻¹ [Jn; Jt]ᵀ` the step is
//! `u⁺ = u + W x`. Each contact obeys a box law in the normal direction (open,
//! closed, capped at `h p_i`) and Coulomb's law on the linearized cone (stick,
//! slide at a vertex of the friction polygon, in space also slide on an edge):
//! 7 modes per planar contact, `4d + 3` per spatial one (see `modes.rs`). A
//! choice of mode per contact fixes a square linear system; its solution, if
//! it satisfies the mode's inequalities, is a step solution, and every
//! isolated step solution is found this way. Singular mode systems are
//! skipped: a segment of solutions is represented by its end points, which
//! are solutions of neighbouring non-singular modes. The full `z` is rebuilt
//! from `x` (`σ = −u_n⁺` when capped, `λD` the split of `f` over the one or two
//! directions spanning it, `γ` the slip rate), so every returned `z` solves
//! the LCP to round-off.
//!
//! The modes are searched depth-first over the contacts in index order (see
//! `tableau.rs`, the search in `depth_first.rs`): fixing a contact's mode is one rank-`q` block elimination
//! step on an affine tableau, and a subtree is pruned as soon as some fixed
//! contact's inequality cannot hold for any admissible impulses of the free
//! contacts (`λn_j ∈ [0, h p_j]`, `f_j` in the friction cone, restricted to the
//! hull of the modes still admissible for `j`). Pruning is exact: it only
//! removes subtrees without solutions, with a margin 1000 times wider than the
//! acceptance tolerance. Three layers use the same test:
//!
//! * a root filter tests every mode of every contact alone;
//! * each search node tests all the contacts fixed so far;
//! * with at least two contacts still free, a surviving node *forward-checks*
//!   every admissible mode of every free contact (fixing it alone on the
//!   node's tableau); the survivors are the subtree's domains and a contact
//!   left without modes prunes the node.
//!
//! Two more exact cuts: a tuple whose mode equations outnumber `rank W`
//! has a singular system (`rank(C W G) ≤ rank W`), so its subtree is skipped;
//! and a contact whose mode block is singular at its turn in the elimination
//! is *deferred*: it stays a free column of the tableau (bounded by the hull
//! of its mode), its own inequalities are not tested, and the leaves below it
//! are solved directly (Gaussian elimination with partial pivoting on the
//! assembled mode system). Leaves are also re-solved that way whenever the
//! tableau's solution leaves a mode-equation residual above tolerance, and
//! every accepted leaf is checked on `u⁺ = u + W x` recomputed from the data.
//!
//! Shortcuts that change no value (the elimination's rows are independent,
//! and so are its columns: pivots are chosen on the mode block alone): a
//! node's tableau apart from its constant column depends on `W` and the
//! modes fixed so far only, so the enumerator keeps, per mode prefix and
//! from step to step, what fixing a mode needs of it (each row's
//! substitution, the mode block, the bounds' per-vertex values; `cache.rs`,
//! bounded by [`EnumeratorOptions::cache_bytes`]), and a step computes only
//! the constants and the bounds from them; a node or probe computes the rows
//! of the contact just fixed first, the others only when that contact's
//! inequalities may hold. A first-level node does not repeat its own test
//! when the root filter bounded the other contacts by the same vertices
//! (same constants, same bounds: the mode passed it there), and a bound
//! over a hull holding the origin and every vertex is `h p_j` times the
//! record's largest (or, for a negative cap, least) per-vertex value with
//! `0` (rounding is monotone, so that is the largest product; only the
//! sign of a zero can differ, which no test reads). Where the whole tree
//! of records could not be kept
//! (four spatial contacts), the search computes each tableau from its
//! parent's instead (`direct.rs`: the root filter's tableaux computed once
//! except for their constants, probes computing only the rows and columns
//! their bounds read, the last contact only the constants).
//!
//! # Order
//!
//! Mode tuples are visited in lexicographic order, contact 0 most significant;
//! each contact's modes in the order open, closed × (stick, vertex
//! `0..d`, edge `0..d`), capped × (the same), planar contacts having no edge
//! modes and frictionless ones only open, closed, capped. Solutions are
//! returned in the order of the first mode tuple producing each distinct
//! `Δv` (a later tuple whose `Δv` matches an earlier one within the tolerance
//! below is dropped). Pruning does not change this order, so an
//! implementation that tries every tuple (the GPU, for up to three contacts)
//! returns the same list, up to round-off at the tolerance boundaries.
//!
//! # Tolerances
//!
//! With `P = max_i h p_i (1 + μ_i)` (bounds every impulse coordinate),
//! `Pn = max_i h p_i` (bounds every normal impulse) and
//! `V = max(‖u‖∞, s · max|W| · P)` (the scale of `u⁺` over admissible `x`),
//! pruning drops a node when an inequality `a_xᵀ x + a_uᵀ u⁺ + a₀ h p ≥ 0`,
//! `x = (λn, f)`, is below `−10⁻⁶ (‖a_u‖₁ V + ‖a_f‖₁ P + (|a_λn| + |a₀|) Pn)`
//! everywhere in the node's admissible set: each coefficient weighted by the
//! scale of what it multiplies. A leaf is accepted in the velocity scale of
//! its own terms, `V_x = max(‖u‖∞, max_r Σ_c |W_rc x_c|, s · max|W| · Pn)`
//! (at most `m V`, well inside the pruning margin): a mode equation's
//! residual up to `10⁻⁹ V_x`, an inequality down to
//! `−10⁻⁹ (‖a_u‖₁ V_x + ‖a_f‖₁ P + (|a_λn| + |a₀|) Pn)`. Normal impulses
//! are judged on `Pn` and velocities on `V_x`, not on `P` and `V`, which a
//! large `μ` inflates far beyond them. Each mode's
//! parameter columns `G` are scaled to `max|G_(·k)| = 1`, so every column of a
//! mode system `C W G` is at most `s · max|W|` whatever `μ`, and a pivot
//! (after partial pivoting) at most `10⁻¹¹ · max|W|` is singular. Two velocity
//! changes are the same when they differ by at most
//! `10⁻⁷ max(‖Δv₁‖∞, ‖Δv₂‖∞) + 10⁻¹⁰ max|M⁻¹[Jn;Jt]ᵀ| Pn` in every entry.
//!
//! # Cost and fallback
//!
//! The cost of a step grows with the number of mode tuples the pruning
//! leaves: microseconds for two planar contacts, about a tenth of a
//! millisecond for five planar or two spatial ones, milliseconds for four
//! spatial contacts, where a few percent of the steps exhaust the node budget
//! and are completed by Lemke (below). `cargo bench --bench step_lcp --
//! enumerate` measures it on random problems (the figures are in
//! docs/performance.md). Exact enumeration is affordable up to
//! about three spatial or five planar contacts.
//!
//! The search stops after [`EnumeratorOptions::node_budget`] mode nodes; the
//! enumeration is then *not exhaustive*: the solutions found so far are
//! completed by [`EnumeratorOptions::fallback_solves`] Lemke solves with
//! deterministic pseudo-random covering vectors (index +1 solutions only,
//! docs/model.md §5b), and [`StepEnumerator::exhaustive`] returns `false`.
//!
//! Nothing is allocated per call once the solution buffers have grown to the
//! largest count seen.

mod bound;
mod cache;
mod depth_first;
mod direct;
mod direct_tableau;
mod fallback;
mod gauss;
mod modes;
mod options;
mod rebuild;
mod tableau;

#[cfg(test)]
mod bound_tests;
#[cfg(test)]
pub(crate) mod brute_force;
#[cfg(test)]
mod tests;

use crate::lcp::{LemkeOptions, LemkeWorkspace};
use crate::problem::ContactOperators;

use bound::{Bound, Reach, Verdict};
use cache::{FixedCache, Slot};
#[cfg(feature = "gpu")]
pub(crate) use modes::{Normal, Tangential};
pub use options::{EnumeratorOptions, RecordPolicy};
use tableau::{Reduced, StepData, StepScales};

/// Relative acceptance tolerance of inequalities and mode equations.
pub(crate) const ACCEPT: f64 = 1e-9;
/// Relative margin of pruning: far wider than [`ACCEPT`], so pruning never
/// removes a tuple that would be accepted.
pub(crate) const PRUNE: f64 = 1e-6;
/// Singular values of `W` at most this fraction of the largest count as zero
/// in its rank.
const RANK_TOLERANCE: f64 = 1e-12;
/// Most rounds of the root filter (a second round, with the hulls of the
/// first, prunes a little more but costs more than it saves on the timed
/// cases).
const ROOT_ROUNDS: usize = 1;
/// Relative tolerance of "same velocity change".
pub(crate) const SAME_DV: f64 = 1e-7;
/// The most contacts the mode search handles (it keeps sets of contacts in
/// 64-bit masks); with more, every enumeration is the Lemke fallback alone
/// (not exhaustive), and no search buffer is allocated.
pub const MAX_SEARCH_CONTACTS: usize = 64;
/// The most entries (`f64`) of the root filter's tableaux the direct search
/// keeps from step to step (2 MiB).
const ROOT_CACHE_LIMIT: usize = 1 << 18;
/// Iterations of the SVD that gives `rank W` before it gives up (the same
/// tolerance as nalgebra's `svd`, which would iterate without end on a
/// matrix holding `inf`; `W` is finite, model.md §1, but a cap keeps any
/// input from looping); without convergence the rank is taken as full, which
/// only disables the rank cut.
const SVD_SWEEPS: usize = 10_000;

/// Enumerates the solutions of the step LCPs of one problem: a reusable
/// per-thread workspace (docs/model.md §4, §5b; method, order and tolerances in the
/// module docs).
///
/// ```
/// use impactset::impact::StepEnumerator;
/// use impactset::{Contact, ImpactProblem};
/// use nalgebra::{dmatrix, dvector};
///
/// // A point mass falling onto a frictionless floor: one solution.
/// let floor = Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.0);
/// let problem = ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], dvector![0.0, -1.0], vec![floor])?;
/// let ops = problem.operators();
/// let mut e = StepEnumerator::new(ops);
/// // b = [h p; Jn v; JD v; 0] with h p = 0.25, v = (0, −1).
/// assert_eq!(e.enumerate(ops, &[0.25, -1.0, 0.0, 0.0, 0.0]), 1);
/// assert!(e.exhaustive());
/// // The cap is taken: λn = 0.25, σ = 0.75.
/// assert!((e.solution(0)[1] - 0.25).abs() < 1e-15 && (e.solution(0)[0] - 0.75).abs() < 1e-15);
/// # Ok::<(), impactset::ProblemError>(())
/// ```
#[derive(Clone, Debug)]
pub struct StepEnumerator {
    reduced: Reduced,
    options: EnumeratorOptions,
    /// LCP size `N`.
    size: usize,
    /// Generalized velocities `n`.
    n: usize,
    /// Friction directions per contact.
    d: usize,
    /// `M⁻¹ [Jn; Jt]ᵀ`, row-major `n × D`: `Δv = B x`.
    dv_map: Vec<f64>,
    /// `max |B|`.
    dv_map_max: f64,
    /// `u_t = Σ_k r_k (JD v)_k`: the least-squares recovery of `Jt v`.
    tangent_recovery: Vec<[f64; 2]>,
    /// The search's buffers (boxed: [`enumerate`](Self::enumerate) takes
    /// them out for the search and puts them back by moving a pointer).
    scratch: Option<Box<Scratch>>,
    /// Solutions, `N` entries each.
    solutions: Vec<f64>,
    /// Their velocity changes, `n` entries each.
    changes: Vec<f64>,
    count: usize,
    exhaustive: bool,
    nodes: usize,
    /// What the bound from a Lemke solution said of the last step.
    verdict: Verdict,
    /// Per contact, how far `u⁺` moves per unit of the bound (`bound.rs`).
    reach: Reach,
    /// The scales of the step being enumerated.
    scales: StepScales,
    lemke: LemkeWorkspace,
}

/// Buffers of one enumeration.
#[derive(Clone, Debug, Default)]
struct Scratch {
    /// The bound a Lemke solution puts on the step's solutions (`bound.rs`).
    bound: Bound,
    u: Vec<f64>,
    caps: Vec<f64>,
    /// The constant column of the tableau at each search depth
    /// (`2D` entries per level; level 0 the root's).
    consts: Vec<f64>,
    /// The record of each level's tableau.
    slots: Vec<Slot>,
    /// The fixed-mode records (see `cache.rs`).
    cache: FixedCache,
    /// The solved mode equations of the last fix.
    e: [f64; 3],
    /// Whether the search keeps fixed-mode records (`cache.rs`); otherwise
    /// it computes every tableau from its parent's (`direct.rs`) with the
    /// buffers below.
    cached: bool,
    tableaux: Vec<f64>,
    eq: Vec<f64>,
    r: Vec<f64>,
    /// A tableau for forward checking, and the columns a probe computes.
    probe: Vec<f64>,
    probe_cols: Vec<usize>,
    /// The root tableau with one contact fixed in one mode, per global mode
    /// index (the root filter's; contact 0's are reused by the search's
    /// first level), and whether that mode's block was regular. With
    /// `root_cached` every mode's tableau is kept, its columns other than
    /// the constants (which depend on `W` and the mode alone) computed once,
    /// when the enumerator is built; otherwise only contact 0's are kept and
    /// each is computed in full on every step.
    root_fixed: Vec<f64>,
    root_regular: Vec<bool>,
    root_cached: bool,
    /// Modes still admissible at each search depth `l` (level 0: after the
    /// root filter): contact `i`'s are
    /// `allowed[(l·m + i)·max_modes..][..allowed_count[l·m + i]]`.
    allowed: Vec<usize>,
    allowed_count: Vec<usize>,
    max_modes: usize,
    /// Per level and contact, the union of [`modes::Mode::vertices`] over its
    /// allowed modes.
    hull: Vec<u64>,
    /// The constants of a forward-checking probe (and of the root
    /// filter's tableaux of contacts other than 0).
    probe_consts: Vec<f64>,
    /// The constants of the root filter's tableaux of contact 0, per mode:
    /// the search's first level reuses them.
    root_consts: Vec<f64>,
    /// The hulls of the node being forward-checked.
    node_hull: Vec<u64>,
    next_hull: Vec<u64>,
    /// Whether the root filter's last round bounded every contact but 0
    /// by the hulls the first level reads (the same vertices): its own
    /// bounds then hold at the first level as they did in the filter.
    first_level_bounds_kept: bool,
    choice: Vec<usize>,
    x: Vec<f64>,
    up: Vec<f64>,
    mat: Vec<f64>,
    rhs: Vec<f64>,
    u0: Vec<f64>,
    z: Vec<f64>,
    dv: Vec<f64>,
    cover: Vec<f64>,
}

impl StepEnumerator {
    /// An enumerator for the step LCPs of `ops`, with default options.
    pub fn new(ops: &ContactOperators) -> Self {
        Self::with_options(ops, EnumeratorOptions::default())
    }

    /// An enumerator for the step LCPs of `ops`.
    pub fn with_options(ops: &ContactOperators, options: EnumeratorOptions) -> Self {
        let (m, d, n) = (ops.m, ops.d, ops.n);
        let searchable = m <= MAX_SEARCH_CONTACTS;
        let t = ops.dimension.tangents();
        let s = 1 + t;
        let dim = m * s;
        // Reduced rows [Jn; Jt] grouped by contact.
        let jr = nalgebra::DMatrix::from_fn(dim, n, |r, c| {
            let (i, a) = (r / s, r % s);
            if a == 0 { ops.jn[(i, c)] } else { ops.jt[(i * t + a - 1, c)] }
        });
        let b = &ops.mass_inv * jr.transpose();
        let mut w = &jr * &b;
        w = (&w + w.transpose()) * 0.5;
        let w_rows: Vec<f64> = (0..dim * dim).map(|k| w[(k / dim, k % dim)]).collect();
        let dv_map: Vec<f64> = (0..n * dim).map(|k| b[(k / dim, k % dim)]).collect();
        let w_max = w_rows.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let rank = if searchable {
            match nalgebra::SVD::try_new_unordered(w.clone(), false, false, 5.0 * f64::EPSILON, SVD_SWEEPS) {
                Some(svd) => {
                    let sigma = svd.singular_values;
                    let sigma_max = sigma.iter().fold(0.0f64, |a, &x| a.max(x));
                    sigma.iter().filter(|&&x| x > RANK_TOLERANCE * sigma_max).count()
                }
                None => dim,
            }
        } else {
            dim
        };
        // Σ_k d_k d_kᵀ (t × t) and its inverse applied to each d_k.
        let mut g = [[0.0; 2]; 2];
        for dk in &ops.directions {
            for a in 0..t {
                for c in 0..t {
                    g[a][c] += dk[a] * dk[c];
                }
            }
        }
        let tangent_recovery = ops
            .directions
            .iter()
            .map(|dk| {
                if t == 1 {
                    [dk[0] / g[0][0], 0.0]
                } else {
                    let det = g[0][0] * g[1][1] - g[0][1] * g[1][0];
                    [(g[1][1] * dk[0] - g[0][1] * dk[1]) / det, (g[0][0] * dk[1] - g[1][0] * dk[0]) / det]
                }
            })
            .collect();
        let table = modes::ModeTable::new(t, &ops.directions, &ops.friction);
        let max_modes = (0..m).map(|i| table.of(i).len()).max().unwrap_or(0);
        let reduced = Reduced {
            m,
            t,
            s,
            dim,
            w: w_rows,
            table,
            directions: ops.directions.clone(),
            friction: ops.friction.clone(),
            w_max,
            rank,
            singular: 1e-11 * w_max.max(f64::MIN_POSITIVE),
        };
        let size = ops.layout().size();
        let first_modes = if m == 0 { 0 } else { reduced.table.of(0).len() };
        // The records are kept when the whole tree of search nodes (at most
        // Π modes per level) would fit twice the store: `cache_bytes` bounds
        // what is kept, the estimate only decides whether keeping pays (the
        // deep nodes of four spatial contacts could not be kept, and
        // computing records that are not kept costs more than the direct
        // search).
        let cached = options.cache_bytes > 0
            && (options.records == RecordPolicy::Always || tree_estimate(&reduced) <= 2.0 * options.cache_bytes as f64);
        let root_cached = !cached && reduced.table.modes.len() * reduced.tableau_len() <= ROOT_CACHE_LIMIT;
        let root_modes = if root_cached { reduced.table.modes.len() } else { first_modes };
        let mut scratch = if !searchable {
            Scratch {
                u: vec![0.0; dim],
                caps: vec![0.0; m],
                z: vec![0.0; size],
                dv: vec![0.0; n],
                cover: vec![0.0; size],
                ..Scratch::default()
            }
        } else {
            Scratch {
                bound: Bound::new(&reduced),
                u: vec![0.0; dim],
                caps: vec![0.0; m],
                consts: vec![0.0; (m + 1) * 2 * dim],
                slots: vec![FixedCache::root(); m + 1],
                cache: if cached { FixedCache::new(&reduced, options.cache_bytes) } else { FixedCache::default() },
                e: [0.0; 3],
                cached,
                tableaux: if cached { Vec::new() } else { vec![0.0; (m + 1) * reduced.tableau_len()] },
                eq: if cached { Vec::new() } else { vec![0.0; 3 * reduced.stride()] },
                r: vec![0.0; 9],
                probe: if cached { Vec::new() } else { vec![0.0; reduced.tableau_len()] },
                probe_cols: Vec::with_capacity(dim + 1),
                root_fixed: if cached { Vec::new() } else { vec![0.0; root_modes * reduced.tableau_len()] },
                root_regular: vec![false; root_modes],
                root_cached,
                allowed: vec![0; (m + 1) * m * max_modes],
                allowed_count: vec![0; (m + 1) * m],
                max_modes,
                hull: vec![u64::MAX; (m + 1) * m],
                probe_consts: vec![0.0; 2 * dim],
                root_consts: vec![0.0; first_modes * 2 * dim],
                node_hull: vec![0; m],
                next_hull: vec![u64::MAX; m],
                first_level_bounds_kept: false,
                choice: vec![0; m],
                x: vec![0.0; dim],
                up: vec![0.0; dim],
                mat: vec![0.0; dim * dim],
                rhs: vec![0.0; dim],
                u0: vec![0.0; dim],
                z: vec![0.0; size],
                dv: vec![0.0; n],
                cover: vec![0.0; size],
            }
        };
        if searchable && root_cached {
            scratch.cache_root_tableaux(&reduced);
        }
        let reach = if searchable { Reach::new(&reduced) } else { Reach::default() };
        const RESERVED: usize = 16;
        StepEnumerator {
            reduced,
            options,
            size,
            n,
            d,
            dv_map_max: dv_map.iter().fold(0.0f64, |a, x| a.max(x.abs())),
            dv_map,
            tangent_recovery,
            scratch: Some(Box::new(scratch)),
            solutions: Vec::with_capacity(RESERVED * size),
            changes: Vec::with_capacity(RESERVED * n),
            count: 0,
            exhaustive: true,
            nodes: 0,
            verdict: Verdict::None,
            reach,
            scales: StepScales::default(),
            lemke: LemkeWorkspace::new(size),
        }
    }

    /// Finds every solution of `w = A_R z + b` (`A_R` =
    /// [`ContactOperators::step_matrix`], `b = [h·p; Jn v; JD v; 0]` as built by
    /// [`crate::impact::routh_step`]), one per distinct velocity change
    /// `Δv = M⁻¹Jᵀλ`, in the order documented in the module docs; returns how
    /// many. The `JD v` part of `b` must be the friction directions applied to
    /// some tangential velocity (it is read back by least squares).
    ///
    /// When the search exceeds its node budget the result is completed by
    /// Lemke solves and [`exhaustive`](Self::exhaustive) is `false`.
    pub fn enumerate(&mut self, ops: &ContactOperators, b: &[f64]) -> usize {
        assert_eq!(b.len(), self.size, "right-hand side of the wrong size");
        self.solutions.clear();
        self.changes.clear();
        self.count = 0;
        self.exhaustive = true;
        self.nodes = 0;
        let (m, s, d) = (self.reduced.m, self.reduced.s, self.d);
        let mut scratch = self.scratch.take().expect("the buffers are back after every enumeration");
        for i in 0..m {
            scratch.caps[i] = b[i];
            scratch.u[i * s] = b[m + i];
            for a in 0..s - 1 {
                scratch.u[i * s + 1 + a] = (0..d).map(|k| self.tangent_recovery[k][a] * b[2 * m + i * d + k]).sum();
            }
        }
        self.scales = self.step_scales(&scratch.u, &scratch.caps);
        self.verdict = Verdict::None;
        // A friction cone widened by `b_γ` (a prescribed normal impulse) is
        // outside the contact modes: only the bound can settle such a step.
        let widened = b[self.size - m..].iter().any(|&g| g != 0.0);
        if m > MAX_SEARCH_CONTACTS {
            self.exhaustive = false;
        } else {
            self.bound_step(ops, b, &mut scratch);
            if !widened {
                self.search(ops, &mut scratch);
            } else if self.verdict == Verdict::Unique {
                let normal_scale = scratch.caps.iter().fold(0.0f64, |a, x| a.max(x.abs()));
                let impulses = ops.layout().impulses();
                for (r, v) in scratch.dv.iter_mut().enumerate() {
                    *v = impulses.clone().map(|c| ops.minv_jt[(r, c - ops.m)] * scratch.z[c]).sum();
                }
                self.keep(&scratch.z, &scratch.dv, normal_scale);
            } else {
                self.exhaustive = false;
            }
        }
        if !self.exhaustive {
            self.fallback(ops, b, &mut scratch);
        }
        self.scratch = Some(scratch);
        self.count
    }

    /// One Lemke solve (covering vector 1) and the bound it puts on every
    /// solution of the step (`bound.rs`): the modes the search may skip, and
    /// whether `Δv` is unique. Leaves the Lemke solution in `sc.z`.
    fn bound_step(&mut self, ops: &ContactOperators, b: &[f64], sc: &mut Scratch) {
        let m = self.reduced.m;
        let solved = if self.options.bound {
            self.lemke.solve(&ops.step_matrix, b, &LemkeOptions::default()).ok()
        } else {
            None
        };
        self.verdict = match solved {
            // A solution to round-off in the step's own scales (its errors
            // are then far inside the bound's slack).
            Some(sol)
                if {
                    let (r, v, p) = (sol.residual, self.scales.velocity, self.scales.impulse);
                    let floor = -ACCEPT * v.min(p);
                    r.min_z >= floor && r.min_w >= floor && r.complementarity * self.size as f64 <= ACCEPT * v * p
                } =>
            {
                sc.z.copy_from_slice(sol.z);
                let g = &b[self.size - m..];
                sc.bound.compute(&self.reduced, &self.reach, &sc.u, &sc.caps, g, &sc.z, self.d, self.scales)
            }
            _ => Verdict::None,
        };
        if self.verdict == Verdict::None {
            sc.bound.allow_all();
        }
    }

    /// Whether the search may stop: the step's `Δv` is certified unique and
    /// a solution is found (the first in the search's order, as a complete
    /// search would return it).
    #[inline]
    fn settled(&self) -> bool {
        self.verdict == Verdict::Unique && self.count > 0
    }

    /// Whether the last enumeration's step was certified to have a single
    /// `Δv` by the bound from a Lemke solution (docs/model.md §5b).
    pub fn certified(&self) -> bool {
        self.verdict == Verdict::Unique
    }

    /// Solution `k` of the last enumeration: a full LCP solution `z` (`N`
    /// entries).
    pub fn solution(&self, k: usize) -> &[f64] {
        &self.solutions[k * self.size..(k + 1) * self.size]
    }

    /// The velocity change `Δv = M⁻¹Jᵀλ` of solution `k` (`n` entries).
    pub fn velocity_change(&self, k: usize) -> &[f64] {
        &self.changes[k * self.n..(k + 1) * self.n]
    }

    /// Whether the last enumeration searched every mode (`false`: it ran out of
    /// node budget and was completed by Lemke solves).
    pub fn exhaustive(&self) -> bool {
        self.exhaustive
    }

    /// Mode fixes (search nodes and forward-checking probes) the last
    /// enumeration made.
    pub fn nodes(&self) -> usize {
        self.nodes
    }

    /// The per-problem constants of the enumeration (`W`, its rank, the mode
    /// table, …), for the GPU port (`src/gpu/enumerate.rs`).
    #[cfg(feature = "gpu")]
    pub(crate) fn reduced(&self) -> &Reduced {
        &self.reduced
    }

    /// `B = M⁻¹ [Jn; Jt]ᵀ` (row-major `n × D`, `Δv = B x`) and `max |B|`, for
    /// the GPU port.
    #[cfg(feature = "gpu")]
    pub(crate) fn dv_map(&self) -> (&[f64], f64) {
        (&self.dv_map, self.dv_map_max)
    }

    /// The least-squares recovery of `Jt v` from `JD v` (`r_k` per direction),
    /// for the GPU port.
    #[cfg(feature = "gpu")]
    pub(crate) fn tangent_recovery(&self) -> &[[f64; 2]] {
        &self.tangent_recovery
    }

    /// The step's data and scales (see the module docs, Tolerances).
    fn step_data<'a>(&self, u: &'a [f64], caps: &'a [f64], hull: &'a [u64]) -> StepData<'a> {
        let StepScales { velocity: velocity_scale, impulse: impulse_scale, normal: normal_scale } = self.scales;
        StepData { u, caps, hull, velocity_scale, impulse_scale, normal_scale }
    }

    /// The scales of the step `(u, caps)`: computed once per enumeration,
    /// read by [`step_data`](Self::step_data).
    fn step_scales(&self, u: &[f64], caps: &[f64]) -> StepScales {
        let red = &self.reduced;
        let impulse_scale = (0..red.m).map(|i| caps[i].abs() * (1.0 + red.friction[i])).fold(0.0f64, f64::max);
        let normal_scale = caps.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let u_max = u.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        StepScales {
            velocity: u_max.max(red.s as f64 * red.w_max * impulse_scale),
            impulse: impulse_scale,
            normal: normal_scale,
        }
    }

    /// Appends `(z, Δv)` unless an equal `Δv` is already kept (`normal_scale`:
    /// `max_i h p_i`).
    fn keep(&mut self, z: &[f64], dv: &[f64], normal_scale: f64) {
        let n = self.n;
        let floor = 1e-3 * SAME_DV * self.dv_map_max * normal_scale;
        let norm = dv.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let duplicate = self.changes.chunks_exact(n).any(|other| {
            let scale = other.iter().fold(norm, |a, x| a.max(x.abs()));
            other.iter().zip(dv).all(|(a, b)| (a - b).abs() <= SAME_DV * scale + floor)
        });
        if !duplicate {
            self.solutions.extend_from_slice(z);
            self.changes.extend_from_slice(dv);
            self.count += 1;
        }
    }
}

/// Bytes of the fixed-mode records of every search node of `red` (an upper
/// estimate: probes share most of them).
fn tree_estimate(red: &Reduced) -> f64 {
    let (dim, modes) = (red.dim as f64, red.table.modes.len() as f64);
    let leaf = 8.0 * (6.0 * dim + 9.0 + 32.0) + 128.0;
    let inner = leaf + 8.0 * red.tableau_len() as f64 + 4.0 * modes;
    let (mut nodes, mut bytes) = (1.0, 0.0);
    for i in 0..red.m {
        nodes *= red.table.of(i).len() as f64;
        bytes += nodes * if i + 1 < red.m { inner } else { leaf };
    }
    bytes
}

impl Scratch {
    /// Contacts `next..m` keep at level `next` the admissible modes they had
    /// at level `depth` (no filter ran in between).
    fn inherit_allowed(&mut self, depth: usize, next: usize, m: usize) {
        let mm = self.max_modes;
        for j in next..m {
            let count = self.allowed_count[depth * m + j];
            self.allowed_count[next * m + j] = count;
            self.allowed.copy_within((depth * m + j) * mm..(depth * m + j) * mm + count, (next * m + j) * mm);
        }
    }

    /// Computes every root-filter tableau once ([`Scratch::root_fixed`]):
    /// its columns other than the constants do not depend on `u` or the caps
    /// (taken as zero here), so each step needs only its constants.
    fn cache_root_tableaux(&mut self, red: &Reduced) {
        let len = red.tableau_len();
        let root = &mut self.tableaux[..len];
        red.init_tableau(&vec![0.0; red.dim], root);
        for (g, mode) in red.table.modes.iter().enumerate() {
            let i = red.table.start.partition_point(|&start| start <= g) - 1;
            let tab = &mut self.root_fixed[g * len..(g + 1) * len];
            self.root_regular[g] =
                red.fix(root, tab, 0, i, mode, 0.0, tableau::low_bits(red.m), &mut self.eq, &mut self.r, false);
        }
    }
}
