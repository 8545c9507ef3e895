//! The columns Lemke's product-form phase computed along earlier paths of
//! LCPs that share everything but `q`.
//!
//! With the matrix, the covering vector, the column order and the
//! tolerances fixed, every column of the tableau after a sequence of pivots
//! is a function of the pivot rows chosen so far alone: `q` only moves the
//! right-hand side, which decides the next pivot row. Solves with the same
//! matrix (every step LCP of one problem under the `lemke` rule) walk a tree
//! of such sequences, mostly along the same few branches. A node of the tree
//! keeps the entering column and the `B⁻¹` columns the ratio tests read
//! there, exactly as the eta file's replay computed them the first time, so a
//! later solve reaching the node reads them instead of replaying: the same
//! values, the same pivots, the same solution bit for bit. It also keeps the
//! outcome of each lexicographic tie-break between two rows there, which
//! reads only those columns, the column order and the tie tolerance.

use std::cmp::Ordering;

/// What must match for two solves to share a tree: the matrix, by
/// [`super::LcpMatrix`] identity (the covering vector is `1`), and, for the
/// kept tie-breaks, the column order and the tie tolerance (as bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct MemoKey {
    pub(super) matrix: u64,
    pub(super) offset: usize,
    pub(super) tie_tolerance: u64,
}

/// No child or no column yet.
const NONE: u32 = u32::MAX;

/// Bytes the tree may take before it is emptied (at the start of a solve).
const MEMO_BYTES: usize = 4 << 20;

/// A node is the state after the pivots on the path from the root; node 0 is
/// the root, before any pivot.
#[derive(Clone, Debug, Default)]
pub(super) struct PathMemo {
    key: Option<MemoKey>,
    n: usize,
    /// The child of each node per pivot row (`N` per node).
    child: Vec<u32>,
    /// Where each node's entering column is in `columns` (one per node).
    entering: Vec<u32>,
    /// Where each node's `B⁻¹` column `c` is in `columns` (`N` per node).
    binv: Vec<u32>,
    /// Columns, `N` entries each.
    columns: Vec<f64>,
    /// Where each node's tie-breaks are in `ties` (one per node).
    tie_at: Vec<u32>,
    /// Tie-breaks, `N × N` per node that had one: 0 not yet met, else
    /// `1 + (ordering + 1)`.
    ties: Vec<u8>,
}

impl PathMemo {
    /// Readies the tree for a solve under `key` with size `n`: kept when
    /// both match and it is within its size, else emptied. Returns the root.
    pub(super) fn start(&mut self, key: MemoKey, n: usize) -> u32 {
        let bytes = 4 * (self.child.len() + self.entering.len() + self.binv.len() + self.tie_at.len())
            + 8 * self.columns.len()
            + self.ties.len();
        if self.key != Some(key) || self.n != n || bytes > MEMO_BYTES {
            self.key = Some(key);
            self.n = n;
            self.child.clear();
            self.entering.clear();
            self.binv.clear();
            self.columns.clear();
            self.tie_at.clear();
            self.ties.clear();
            self.add_node();
        }
        0
    }

    fn add_node(&mut self) -> u32 {
        let id = self.entering.len() as u32;
        self.child.extend(std::iter::repeat_n(NONE, self.n));
        self.binv.extend(std::iter::repeat_n(NONE, self.n));
        self.entering.push(NONE);
        self.tie_at.push(NONE);
        id
    }

    /// The node after pivoting on row `r` at `node`.
    pub(super) fn child(&mut self, node: u32, r: usize) -> u32 {
        let at = node as usize * self.n + r;
        match self.child[at] {
            NONE => {
                let id = self.add_node();
                self.child[at] = id;
                id
            }
            id => id,
        }
    }

    /// The entering column kept at `node`.
    pub(super) fn entering(&self, node: u32) -> Option<&[f64]> {
        self.column(self.entering[node as usize])
    }

    /// Keeps `x` as the entering column of `node`.
    pub(super) fn keep_entering(&mut self, node: u32, x: &[f64]) {
        self.entering[node as usize] = self.keep(x);
    }

    /// Column `c` of `B⁻¹` kept at `node`.
    pub(super) fn binv(&self, node: u32, c: usize) -> Option<&[f64]> {
        self.column(self.binv[node as usize * self.n + c])
    }

    /// Keeps `x` as column `c` of `B⁻¹` at `node`.
    pub(super) fn keep_binv(&mut self, node: u32, c: usize, x: &[f64]) {
        self.binv[node as usize * self.n + c] = self.keep(x);
    }

    /// The lexicographic comparison of rows `i` and `k` kept at `node`.
    pub(super) fn tie(&self, node: u32, i: usize, k: usize) -> Option<Ordering> {
        match self.tie_at[node as usize] {
            NONE => None,
            at => match self.ties[at as usize + i * self.n + k] {
                0 => None,
                code => Some((i8::try_from(code).unwrap_or(0) - 2).cmp(&0)),
            },
        }
    }

    /// Keeps `o` as the comparison of rows `i` and `k` at `node`.
    pub(super) fn keep_tie(&mut self, node: u32, i: usize, k: usize, o: Ordering) {
        let node = node as usize;
        if self.tie_at[node] == NONE {
            self.tie_at[node] = self.ties.len() as u32;
            self.ties.extend(std::iter::repeat_n(0, self.n * self.n));
        }
        self.ties[self.tie_at[node] as usize + i * self.n + k] = (o as i8 + 2) as u8;
    }

    fn column(&self, at: u32) -> Option<&[f64]> {
        (at != NONE).then(|| &self.columns[at as usize * self.n..(at as usize + 1) * self.n])
    }

    fn keep(&mut self, x: &[f64]) -> u32 {
        let at = (self.columns.len() / self.n) as u32;
        self.columns.extend_from_slice(&x[..self.n]);
        at
    }
}
