//! One discrete Routh step (docs/model.md §4): the step LCP with per-contact
//! normal-impulse caps `h·p`, solved under a [`Selection`] rule.

use crate::lcp::{LcpError, LcpMatrix, LcpSolution, LemkeOptions, LemkeWorkspace};
use crate::problem::ContactOperators;
use crate::problem::operators::StepLayout;
use crate::stream::{self, SampleStreams};

use super::basis::StepBasis;
use super::violation::solution_violation;
pub use super::violation::{ENUMERATED_VIOLATION, StepScales, step_violation};
use super::{Selection, StepEnumerator};

/// Per-thread scratch space for [`routh_step`]: reused across steps and
/// samples, so a step allocates nothing. It belongs to the problem it was
/// built for (its enumerator and Lemke tolerance are that problem's).
#[derive(Clone, Debug)]
pub struct StepWorkspace {
    lemke: LemkeWorkspace,
    /// The step matrix `A_R`, prepared for Lemke: its Delassus block
    /// multiplied by [`delassus_scale`] (`f`).
    matrix: LcpMatrix,
    /// `A_R` as it is where `matrix` is scaled, for the residuals of the
    /// `all` rule's solutions.
    unscaled: Option<LcpMatrix>,
    /// Default Lemke options resolved for the step matrix.
    lemke_options: LemkeOptions,
    enumerator: StepEnumerator,
    b: Vec<f64>,
    /// `b` in the units of a Lemke solve ([`LemkeUnits`]).
    b_scaled: Vec<f64>,
    /// The last velocity scale seen and its [`LemkeUnits`].
    units: (f64, LemkeUnits),
    z: Vec<f64>,
    cover: Vec<f64>,
    w: Vec<f64>,
    /// The enumerated solutions kept (index, step violation).
    valid: Vec<(usize, f64)>,
    /// The whole solution `z` of the last step solved with an offset (its
    /// support is what [`factor_support`] factors).
    solved: Vec<f64>,
    /// Its support: the basic `z_j` of a Lemke solution, `z_j > 0` of an
    /// enumerated one.
    support: Vec<bool>,
    /// An enumerated solution's degenerate indices (`z_j = 0`, `w_j = 0` to
    /// [`ENUMERATED_VIOLATION`]), which [`factor_support`] may add to a
    /// singular support; none for a Lemke solution.
    degenerate: Vec<bool>,
    /// `A_R` factored on `support`.
    basis: StepBasis,
}

impl StepWorkspace {
    /// After a Lemke solve with an offset (its `z` in `solved`): the
    /// support is the final basis's basic `z`, with no degenerate index to
    /// add (`A_R` is regular on it).
    fn keep_lemke_support(&mut self) {
        self.lemke.basic_z(&mut self.support);
        self.degenerate.fill(false);
    }

    /// After `all` picked enumerated solution `k` of a step with an offset
    /// (`b` its right-hand side): `solved`, its positive `z` as the
    /// support, and its degenerate indices (`z_j` and `w_j` both 0). Zero is
    /// within [`ENUMERATED_VIOLATION`] of 0 in the value's unit (`w_j` a
    /// velocity on the velocity rows, an impulse on the others, and `z_j`
    /// the other one): a mode tuple's solve leaves a `z_j` that is 0 in
    /// exact arithmetic at its round-off, of either sign, which would move
    /// it in or out of the support by chance.
    fn keep_enumerated_support(&mut self, k: usize, layout: StepLayout, scales: StepScales) {
        self.solved.copy_from_slice(self.enumerator.solution(k));
        let a_r = self.unscaled.as_ref().unwrap_or(&self.matrix);
        solution_violation(a_r, &self.b, &self.solved, &mut self.w, layout, scales);
        let velocity_rows = layout.m..layout.size() - layout.m;
        for r in 0..layout.size() {
            let (w_unit, z_unit) = if velocity_rows.contains(&r) {
                (scales.velocity, scales.impulse)
            } else {
                (scales.impulse, scales.velocity)
            };
            let zero = self.solved[r].abs() <= ENUMERATED_VIOLATION * z_unit;
            self.support[r] = !zero && self.solved[r] > 0.0;
            self.degenerate[r] = zero && self.w[r].abs() <= ENUMERATED_VIOLATION * w_unit;
        }
    }

    /// A workspace for the step LCPs of one problem.
    pub fn new(ops: &ContactOperators) -> Self {
        let layout = ops.layout();
        let size = layout.size();
        let f = delassus_scale(ops);
        let step_matrix = || LcpMatrix::from_row_major(size, &ops.step_matrix).expect("the step matrix is size × size");
        let (matrix, unscaled, lemke_options) = if f == 1.0 {
            (step_matrix(), None, LemkeOptions::default().resolved_for(&ops.step_matrix, size))
        } else {
            let block = layout.impulses();
            let mut scaled = ops.step_matrix.clone();
            for r in block.clone() {
                for x in &mut scaled[r * size + block.start..r * size + block.end] {
                    *x *= f;
                }
            }
            let matrix = LcpMatrix::from_row_major(size, &scaled).expect("the step matrix is size × size");
            (matrix, Some(step_matrix()), LemkeOptions::default().resolved_for(&scaled, size))
        };
        StepWorkspace {
            lemke: LemkeWorkspace::new(size),
            matrix,
            unscaled,
            lemke_options,
            enumerator: StepEnumerator::new(ops),
            b: vec![0.0; size],
            b_scaled: vec![0.0; size],
            units: (1.0, LemkeUnits::new(ops, 1.0)),
            z: vec![0.0; size],
            cover: vec![0.0; size],
            w: vec![0.0; size],
            valid: Vec::new(),
            solved: vec![0.0; size],
            support: vec![false; size],
            degenerate: vec![false; size],
            basis: StepBasis::default(),
        }
    }
}

/// What one step did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepOutcome {
    /// The residual violation of the LCP solution taken (see [`LcpResidual::violation`](crate::lcp::LcpResidual::violation)).
    pub residual: f64,
    /// Lemke pivots (0 for `all`).
    pub pivots: usize,
    /// Distinct velocity changes the rule chose among (1 for the Lemke rules).
    pub choices: usize,
    /// `all` only: the contact-mode search was exhaustive, so `choices` is the
    /// number of distinct solutions of the step. `false` for the Lemke rules,
    /// and for `all` when the search ran out of node budget and was completed
    /// by randomized Lemke solves (see [`crate::impact::StepEnumerator`]).
    pub exhaustive: bool,
    /// `all` only: the step's `Δv` was certified unique by the bound from
    /// one Lemke solve (docs/model.md §5b), so the search stopped at its
    /// first solution.
    pub certified: bool,
}

/// The power of two `c` by which a step's right-hand side is divided before
/// a Lemke solve (the solution is multiplied back: `LCP(A, b/c)` is solved by
/// `z/c`, exactly, as `c` is a power of two). Lemke's pivot and tie
/// tolerances have absolute floors (model.md §9), so a velocity scale `s`
/// far from 1 is brought near 1; within `[2⁻²⁰, 2²⁰]` it is left alone
/// (`c = 1`), so problems of ordinary scale solve exactly as written.
pub fn lemke_scale(velocity_scale: f64) -> f64 {
    const LIMIT: i32 = 20;
    let k = velocity_scale.log2().round();
    if !k.is_finite() || k.abs() <= LIMIT as f64 { 1.0 } else { 2f64.powi(k as i32) }
}

/// The power of two `f` by which a Lemke solve multiplies the Delassus
/// block `W` of `A_R`, so that its largest diagonal entry `max_r W_rr`
/// ([`ContactOperators::largest_mobility`]) lies within `[2⁻¹⁰, 2¹⁰]`: `1`
/// when it does already (problems of ordinary units solve exactly as
/// written), else `2^−round(log₂ max_r W_rr)`.
///
/// With impulses measured in `c·f` and velocities in `c` ([`lemke_scale`]),
/// the step LCP is the same LCP in those units: `A_R` with `W f` in place of
/// `W` and the other blocks (`±I`, `E`, `U`, `−Eᵀ`) unchanged, right-hand
/// side `[h p/(c f); u/c; 0]`; its solution is multiplied back exactly.
/// Lemke's pivot, tie and residual tolerances have absolute floors
/// (model.md §9), so without it a mass matrix in grams instead of kilograms
/// (`W` × 10³, impulses × 10⁻³) or a nearly free coordinate makes solves fail
/// or flag as inaccurate.
pub fn delassus_scale(ops: &ContactOperators) -> f64 {
    const LIMIT: f64 = 10.0;
    let k = ops.largest_mobility().log2().round();
    if !k.is_finite() || k.abs() <= LIMIT { 1.0 } else { 2f64.powi(-(k as i32)) }
}

/// The units a Lemke solve of a step LCP measures velocities and impulses
/// in: `c` ([`lemke_scale`]) and `c·f` ([`delassus_scale`]), both powers
/// of two, 1 for problems of ordinary units. The CPU's [`routh_step`] and
/// the GPU's shaders solve the same LCP in them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LemkeUnits {
    /// `c`: the unit of `σ`, `γ`, `w_n`, `w_D`.
    pub velocity: f64,
    /// `c·f`: the unit of `λn`, `λD`, `w_σ`, `w_γ`.
    pub impulse: f64,
}

impl LemkeUnits {
    /// The units of `ops`'s step LCPs for a problem of velocity scale `s`.
    pub fn new(ops: &ContactOperators, velocity_scale: f64) -> Self {
        let c = lemke_scale(velocity_scale);
        LemkeUnits { velocity: c, impulse: c * delassus_scale(ops) }
    }

    /// Whether both units are 1 (the LCP is solved as written).
    pub fn are_one(self) -> bool {
        self.velocity == 1.0 && self.impulse == 1.0
    }

    /// Each unknown's unit, in `z` order (`σ`, `λn`, `λD`, `γ`); the LCP in
    /// these units is `diag(1/row) A_R diag(col)` with `row` =
    /// [`row_units`](Self::row_units).
    pub fn column_units(self, layout: StepLayout) -> Vec<f64> {
        let impulses = layout.impulses();
        (0..layout.size()).map(|k| if impulses.contains(&k) { self.impulse } else { self.velocity }).collect()
    }

    /// `b` in these units (velocity rows over `c`, impulse rows over
    /// `c·f`), into `out`. Kept out of line: problems of ordinary units
    /// never call it, and the step's hot path stays as small as without it.
    #[inline(never)]
    fn into_lemke_units(self, layout: StepLayout, b: &[f64], out: &mut [f64]) {
        let velocities = layout.m..layout.size() - layout.m;
        for (k, (x, b)) in out.iter_mut().zip(b).enumerate() {
            *x = if velocities.contains(&k) { b / self.velocity } else { b / self.impulse };
        }
    }

    /// A solution `(z, w)` in these units multiplied back into `(z_out,
    /// w_out)`: `σ`, `γ`, `w_n`, `w_D` by `c`, `λ`, `w_σ`, `w_γ` by `c·f`
    /// (model.md §4's units). Out of line, as [`into_lemke_units`](Self::into_lemke_units).
    #[inline(never)]
    fn out_of_lemke_units(self, layout: StepLayout, z: &[f64], w: &[f64], z_out: &mut [f64], w_out: &mut [f64]) {
        let impulses = layout.impulses();
        for (k, (x, y)) in z_out.iter_mut().zip(z).enumerate() {
            *x = y * if impulses.contains(&k) { self.impulse } else { self.velocity };
        }
        for (k, (x, y)) in w_out.iter_mut().zip(w).enumerate() {
            *x = y * if impulses.contains(&k) { self.velocity } else { self.impulse };
        }
    }

    /// Each row's unit, in `w` order (`w_σ`, `w_n`, `w_D`, `w_γ`).
    pub fn row_units(self, layout: StepLayout) -> Vec<f64> {
        let impulses = layout.impulses();
        (0..layout.size()).map(|k| if impulses.contains(&k) { self.velocity } else { self.impulse }).collect()
    }
}

/// Solves one Routh step LCP and writes the impulse `λ = [λn; λD]` it takes.
///
/// `u = J v` holds the current contact velocities (`m + m·d`), `caps` the
/// normal-impulse caps `h·p` (`m`). The LCP is
/// `w = A_R z + b_R`, `b_R = [h·p; Jn v; JD v; 0]`, with `A_R` from
/// [`ContactOperators::step_matrix`]. Selection words are drawn from
/// `streams` as documented in [`crate::stream`]. The outcome's
/// residual is [`step_violation`] in `scales`.
///
/// `offset`, when given, holds each contact's prescribed normal impulse
/// `o_i ∈ [0, h·p_i]` of the step (the expansion phase of restitution,
/// docs/model.md §4b): the contact takes `λn_i = o_i + y_i`, where `y_i`
/// is the LCP's own normal unknown (still capped at `h·p_i`) and its
/// friction cone is `μ_i λn_i`. That LCP is the step LCP with `b_R`
/// moved by the `λn` columns of `A_R` applied to `o` outside the cap rows,
/// and `lambda` receives the whole impulse, `o` included. `None` (no contact expanding) solves the
/// step as written.
///
/// `ws` must have been built for `ops` ([`StepWorkspace::new`]).
///
/// Errors: Lemke's failure (it cannot fail on a step LCP in exact arithmetic:
/// `A_R` is copositive and the LCP feasible), including a solve that ended
/// outside its residual tolerance ([`LcpError::Inaccurate`]): such an answer is
/// never taken.
#[allow(clippy::too_many_arguments)]
pub fn routh_step(
    ops: &ContactOperators,
    u: &[f64],
    caps: &[f64],
    offset: Option<&[f64]>,
    scales: StepScales,
    selection: Selection,
    streams: &mut SampleStreams,
    ws: &mut StepWorkspace,
    lambda: &mut [f64],
) -> Result<StepOutcome, LcpError> {
    let layout = ops.layout();
    let m = ops.m;
    step_rhs(ops, u, caps, offset, &mut ws.b);
    let options = ws.lemke_options;
    let impulses = layout.impulses();
    if ws.units.0 != scales.velocity {
        ws.units = (scales.velocity, LemkeUnits::new(ops, scales.velocity));
    }
    // Velocities are measured in `c`, impulses in `c·f` ([`LemkeUnits`]).
    let units = ws.units.1;
    let scaled = !units.are_one();
    if scaled {
        units.into_lemke_units(layout, &ws.b, &mut ws.b_scaled);
    }
    // The right-hand side Lemke solves (`b` itself when nothing is scaled).
    let b_lemke = if scaled { &ws.b_scaled } else { &ws.b };
    // A Lemke solution, multiplied back from Lemke's units (nothing to do
    // unscaled), and its outcome.
    let keep = offset.is_some();
    let lemke_outcome = |sol: crate::lcp::LcpSolution,
                         z: &mut [f64],
                         w: &mut [f64],
                         solved: &mut [f64],
                         lambda: &mut [f64]|
     -> StepOutcome {
        let (z, w) = if !scaled {
            (sol.z, sol.w)
        } else {
            units.out_of_lemke_units(layout, sol.z, sol.w, z, w);
            (&*z, &*w)
        };
        if keep {
            solved.copy_from_slice(z);
        }
        lambda.copy_from_slice(&z[impulses.clone()]);
        StepOutcome {
            residual: step_violation(layout, z, w, scales),
            pivots: sol.pivots,
            choices: 1,
            exhaustive: false,
            certified: false,
        }
    };
    let outcome = match selection {
        Selection::Lemke => {
            let sol = checked(ws.lemke.solve_matrix(&ws.matrix, b_lemke, None, 0, &options))?;
            let outcome = lemke_outcome(sol, &mut ws.z, &mut ws.w, &mut ws.solved, lambda);
            if keep {
                ws.keep_lemke_support();
            }
            outcome
        }
        Selection::RandomLemke => {
            let offset = streams.random_cover(&mut ws.cover);
            let sol = checked(ws.lemke.solve_matrix(&ws.matrix, b_lemke, Some(&ws.cover), offset, &options))?;
            let outcome = lemke_outcome(sol, &mut ws.z, &mut ws.w, &mut ws.solved, lambda);
            if keep {
                ws.keep_lemke_support();
            }
            outcome
        }
        Selection::All => {
            let word = streams.selection_word();
            let count = ws.enumerator.enumerate(ops, &ws.b);
            let a_r = ws.unscaled.as_ref().unwrap_or(&ws.matrix);
            ws.valid.clear();
            for k in 0..count {
                let violation = solution_violation(a_r, &ws.b, ws.enumerator.solution(k), &mut ws.w, layout, scales);
                if violation <= ENUMERATED_VIOLATION {
                    ws.valid.push((k, violation));
                }
            }
            if ws.valid.is_empty() {
                // Round-off hid every vertex: fall back to the deterministic rule.
                let sol = checked(ws.lemke.solve_matrix(&ws.matrix, b_lemke, None, 0, &options))?;
                let outcome = lemke_outcome(sol, &mut ws.z, &mut ws.w, &mut ws.solved, lambda);
                if keep {
                    ws.keep_lemke_support();
                }
                outcome
            } else {
                let choices = ws.valid.len();
                let (k, residual) = ws.valid[stream::index(word, choices.min(1 << 16))];
                if keep {
                    ws.keep_enumerated_support(k, layout, scales);
                }
                lambda.copy_from_slice(&ws.enumerator.solution(k)[impulses]);
                let exhaustive = ws.enumerator.exhaustive();
                let certified = ws.enumerator.certified();
                StepOutcome { residual, pivots: 0, choices, exhaustive, certified }
            }
        }
    };
    if let Some(o) = offset {
        for (l, o) in lambda[..m].iter_mut().zip(o) {
            *l += o;
        }
    }
    Ok(outcome)
}

/// The step LCP's right-hand side `b_R = [h·p; u; 0]`, moved by the
/// prescribed impulses `offset` ([`shift_by_offset`]), into `b`.
fn step_rhs(ops: &ContactOperators, u: &[f64], caps: &[f64], offset: Option<&[f64]>, b: &mut [f64]) {
    let (size, m) = (ops.layout().size(), ops.m);
    b[..m].copy_from_slice(caps);
    b[m..size - m].copy_from_slice(u);
    b[size - m..].iter_mut().for_each(|x| *x = 0.0);
    if let Some(o) = offset {
        shift_by_offset(ops, o, b);
    }
}

/// After a [`routh_step`] with an offset: factors `A_R` on the support of
/// the solution the step took (docs/model.md §4b), an enumerated
/// solution's completed with its degenerate indices where it is singular
/// (`StepBasis::complete`). Returns whether that matrix is regular;
/// [`offset_response`] and [`continue_step`] need it.
pub fn factor_support(ops: &ContactOperators, ws: &mut StepWorkspace) -> bool {
    let size = ops.layout().size();
    if ws.basis.factor(&ops.step_matrix, size, &ws.support) {
        return true;
    }
    if !ws.degenerate.contains(&true) {
        return false;
    }
    ws.basis.complete(&ops.step_matrix, size, &mut ws.support, &ws.degenerate);
    ws.basis.factor(&ops.step_matrix, size, &ws.support)
}

/// After [`factor_support`]: how the step's normal impulses `λn = o + y`
/// move with contact `k`'s prescribed impulse while the support stays,
/// `∂λn/∂o_k = e_k − A_SS⁻¹ (A_R's column m + k outside the cap rows)` on
/// the `y` rows, into `out` (`m`).
pub fn offset_response(ops: &ContactOperators, ws: &mut StepWorkspace, k: usize, out: &mut [f64]) {
    let (size, m) = (ops.layout().size(), ops.m);
    let column = m + k;
    for (r, x) in ws.w.iter_mut().enumerate() {
        *x = if r < m { 0.0 } else { ops.step_matrix[r * size + column] };
    }
    ws.basis.solve(&ws.w, &mut ws.z);
    for (j, x) in out.iter_mut().enumerate() {
        *x = ws.z[m + j] + if j == k { 1.0 } else { 0.0 };
    }
}

/// The step at the prescribed impulses `offset` on the support
/// [`factor_support`] factored, without solving the LCP again: the
/// solution is taken (into `lambda`, `o` included) when it is one of the
/// step LCP there, within `ENUMERATED_VIOLATION.min(residual_tol)`;
/// `None` when the support changes (a `z_S` or a `w` off `S` turns
/// negative). The outcome is `first`'s with the new residual and no pivots.
#[allow(clippy::too_many_arguments)]
pub fn continue_step(
    ops: &ContactOperators,
    u: &[f64],
    caps: &[f64],
    offset: &[f64],
    scales: StepScales,
    residual_tol: f64,
    first: StepOutcome,
    ws: &mut StepWorkspace,
    lambda: &mut [f64],
) -> Option<StepOutcome> {
    let layout = ops.layout();
    step_rhs(ops, u, caps, Some(offset), &mut ws.b);
    ws.basis.solve(&ws.b, &mut ws.z);
    let a_r = ws.unscaled.as_ref().unwrap_or(&ws.matrix);
    let residual = solution_violation(a_r, &ws.b, &ws.z, &mut ws.w, layout, scales);
    if residual.is_nan() || residual > ENUMERATED_VIOLATION.min(residual_tol) {
        return None;
    }
    ws.solved.copy_from_slice(&ws.z);
    lambda.copy_from_slice(&ws.z[layout.impulses()]);
    for (l, o) in lambda[..ops.m].iter_mut().zip(offset) {
        *l += o;
    }
    Some(StepOutcome { residual, pivots: 0, ..first })
}

/// `b += A_R [0; o; 0; 0]` outside the cap rows: the step LCP of the
/// unknown `y = λn − o` when each contact takes the prescribed normal
/// impulse `o_i` besides it (its velocities moved by `W o`, its friction
/// cone widened by `μ_i o_i`).
fn shift_by_offset(ops: &ContactOperators, o: &[f64], b: &mut [f64]) {
    let size = ops.layout().size();
    let m = ops.m;
    for (i, &oi) in o.iter().enumerate() {
        if oi == 0.0 {
            continue;
        }
        // The cap rows stay `h·p`: the LCP's own impulse `y_i` keeps its
        // cap (a zero cap row would make every cap-bound expansion step a
        // degenerate LCP).
        let column = m + i;
        for (r, x) in b.iter_mut().enumerate().skip(m) {
            *x += ops.step_matrix[r * size + column] * oi;
        }
    }
}

/// A Lemke solution outside its residual tolerance is a failure.
fn checked(sol: Result<LcpSolution<'_>, LcpError>) -> Result<LcpSolution<'_>, LcpError> {
    match sol {
        Ok(s) if !s.within_tolerance => Err(LcpError::Inaccurate { pivots: s.pivots }),
        other => other,
    }
}
