//! Joint feasibility of a search node's inequalities (docs/model.md#5b2-a-nodes-inequalities-together).
//!
//! The bounds of `tableaux/reduced.rs` test a fixed contact's inequalities one at a
//! time, each at its own best free impulses. A node can pass every one of
//! them while no single choice of the free impulses satisfies them
//! together. Here they are tested together: every fixed, eliminated
//! contact's inequality is affine in the free contacts' impulses, and each
//! free `x_j` lies in the hull of its admissible vertices (`0` and
//! `h p_j (1, μ_j d_k)`), so the node has a solution only if the linear
//! program
//!
//! ```text
//! find α ≥ 0:   g_r + Σ_(j,k) α_jk g_r(v_jk) ≥ −slack_r      (every inequality r)
//!               Σ_k α_jk ≤ 1   (= 1 where the hull lacks the vertex 0)
//! ```
//!
//! is feasible (`x_j = Σ_k α_jk v_jk`). The rows are the bounds' own, with
//! their pruning margin; phase one of the simplex method (`simplex.rs`)
//! decides, and a program that does not finish within its pivots counts as
//! feasible, so the test never prunes a node the bounds keep by mistake.

use crate::impact::enumerate::PRUNE;
use crate::impact::enumerate::simplex::Simplex;
use crate::impact::enumerate::tableaux::reduced::{Reduced, StepData, bits, low_bits};

/// The phase-one objective above which the program is infeasible, in the
/// rows' units (each inequality divided by its slack scale, in which the
/// pruning margin is [`PRUNE`] = `10⁻⁶` and the search accepts solutions
/// within `10⁻⁹`). Phase one stops where no reduced cost is below
/// `−`[`TINY`], so a feasible point `y` bounds the objective by `TINY Σ y`;
/// the weights sum to at most one per contact and the slacks are of the
/// order of the rows' entries (normalized: about one), so a node with a
/// solution ends far below this.
const INFEASIBLE: f64 = 1e-9;

/// A reduced cost or pivot at most this large counts as zero.
const TINY: f64 = 1e-12;

/// Pivots at most this many (a few dozen rows: far more than phase one takes).
const MAX_PIVOTS: usize = 200;

/// The program's buffers, kept from node to node.
#[derive(Clone, Debug, Default)]
pub(crate) struct NodeLp {
    /// Per vertex column, its free contact and friction direction.
    cols: Vec<(usize, usize)>,
    /// Rows × (`cols`, a slack per row, right-hand side), then the
    /// objective row of phase one. Each row that starts on an artificial
    /// variable has it in the basis as column `cols + rows + row` (read only
    /// by Bland's rule): artificials never enter, so their own columns are
    /// not kept.
    lp: Simplex,
}

/// Where the program is read: the node's tableau and fixed modes.
#[derive(Clone, Copy)]
pub(crate) struct NodeAt<'a> {
    /// The node's tableau (contacts `0..=depth` fixed).
    pub tab: &'a [f64],
    pub depth: usize,
    /// Fixed contacts whose block was singular (their inequalities are not
    /// read; they are free).
    pub deferred: u64,
    /// The free contacts.
    pub free: u64,
    pub choice: &'a [usize],
}

impl NodeLp {
    /// Whether some free impulses in their hulls satisfy every inequality
    /// of the node's fixed, eliminated contacts together (`false`: no
    /// solution below the node).
    pub(crate) fn feasible(&mut self, red: &Reduced, at: NodeAt, step: &StepData) -> bool {
        let (s, dim) = (red.s, red.dim);
        let free = at.free & low_bits(red.m);
        self.cols.clear();
        for j in bits(free) {
            for k in 0..red.directions.len() {
                if step.hull[j] & (1 << (1 + k)) != 0 {
                    self.cols.push((j, k));
                }
            }
        }
        let fixed = (0..=at.depth).filter(|&i| at.deferred & (1 << i) == 0);
        let inequalities: usize =
            fixed.clone().map(|i| red.table.inequalities_of(&red.table.modes[at.choice[i]]).len()).sum();
        let rows = inequalities + free.count_ones() as usize;
        let nv = self.cols.len();
        let width = nv + rows + 1;
        self.lp.reset(rows, width);
        let rhs = width - 1;
        let mut r = 0;
        for i in fixed {
            let mode = &red.table.modes[at.choice[i]];
            for ineq in red.table.inequalities_of(mode) {
                let terms = red.inequality_rows(i, ineq);
                let column =
                    |col: usize| terms[..ineq.term_count].iter().fold(0.0, |v, &(a, row)| v + a * at.tab[row + col]);
                let scale = step.slack(ineq, 1.0);
                let scale = if scale > 0.0 { scale } else { 1.0 };
                // `g + Σ coef α ≥ −PRUNE`, written `−Σ coef α + slack = g + PRUNE`.
                let row = self.lp.row_mut(r);
                // The inequality's coefficients on contact `j`'s impulse,
                // read once per contact (the columns come grouped by contact).
                let mut a = (usize::MAX, [0.0; 3]);
                for (c, &(j, k)) in self.cols.iter().enumerate() {
                    if a.0 != j {
                        a = (j, [0.0; 3]);
                        for (t, v) in a.1.iter_mut().enumerate().take(s) {
                            *v = column(j * s + t);
                        }
                    }
                    let dk = red.directions[k];
                    let along: f64 = (0..s - 1).map(|t| a.1[1 + t] * dk[t]).sum();
                    row[c] = -step.caps[j] * (a.1[0] + red.friction[j] * along) / scale;
                }
                row[nv + r] = 1.0;
                row[rhs] = (column(dim) + ineq.a0 * step.caps[i]) / scale + PRUNE;
                r += 1;
            }
        }
        for j in bits(free) {
            let row = self.lp.row_mut(r);
            for (c, &(jj, _)) in self.cols.iter().enumerate() {
                row[c] = f64::from(u8::from(jj == j));
            }
            // Without the vertex 0 the weights sum to one: no slack.
            if step.hull[j] & 1 != 0 {
                row[nv + r] = 1.0;
            }
            row[rhs] = 1.0;
            r += 1;
        }
        // The slack is basic where it is feasible at `α = 0`; elsewhere the
        // row (its sign turned so the right-hand side is positive) starts on
        // an artificial, and phase one minimizes their sum.
        let mut any = false;
        for r in 0..rows {
            let (row, obj) = self.lp.row_and_objective(r);
            if row[nv + r] == 1.0 && row[rhs] >= 0.0 {
                self.lp.basis.push(nv + r);
                continue;
            }
            if row[rhs] < 0.0 {
                row.iter_mut().for_each(|v| *v = -*v);
            }
            for (o, &v) in obj.iter_mut().zip(row.iter()) {
                *o -= v;
            }
            self.lp.basis.push(nv + rows + r);
            any = true;
        }
        if !any {
            return true;
        }
        self.phase_one(width, nv + rows)
    }

    /// Phase one from the start above: `false` when it ends with artificials
    /// above [`INFEASIBLE`] in all; `true` when they reach zero or the pivots
    /// run out. Columns `0..eligible` (impulses and slacks) may enter.
    fn phase_one(&mut self, width: usize, eligible: usize) -> bool {
        let lp = &mut self.lp;
        for _ in 0..MAX_PIVOTS {
            if -lp.objective()[width - 1] <= INFEASIBLE {
                return true;
            }
            let Some(enter) = lp.entering(eligible, TINY) else {
                return false;
            };
            let Some(r) = lp.leaving(enter, TINY) else {
                // A phase-one objective is bounded below: no entering column
                // can be unbounded. Round-off; keep the node.
                return true;
            };
            lp.pivot(r, enter);
        }
        true
    }
}
