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
//! values, the same pivots, the same solution bit for bit.

/// What must match for two solves to share a tree: the matrix, by
/// [`super::LcpMatrix`] identity (the covering vector is `1`). The column
/// order and the tolerances only decide which row leaves, so they choose the
/// branch, not the columns along it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct MemoKey {
    pub(super) matrix: u64,
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
}

impl PathMemo {
    /// Readies the tree for a solve under `key` with size `n`: kept when
    /// both match and it is within its size, else emptied. Returns the root.
    pub(super) fn start(&mut self, key: MemoKey, n: usize) -> u32 {
        let bytes = 4 * (self.child.len() + self.entering.len() + self.binv.len()) + 8 * self.columns.len();
        if self.key != Some(key) || self.n != n || bytes > MEMO_BYTES {
            self.key = Some(key);
            self.n = n;
            self.child.clear();
            self.entering.clear();
            self.binv.clear();
            self.columns.clear();
            self.add_node();
        }
        0
    }

    fn add_node(&mut self) -> u32 {
        let id = self.entering.len() as u32;
        self.child.extend(std::iter::repeat_n(NONE, self.n));
        self.binv.extend(std::iter::repeat_n(NONE, self.n));
        self.entering.push(NONE);
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

    fn column(&self, at: u32) -> Option<&[f64]> {
        (at != NONE).then(|| &self.columns[at as usize * self.n..(at as usize + 1) * self.n])
    }

    fn keep(&mut self, x: &[f64]) -> u32 {
        let at = (self.columns.len() / self.n) as u32;
        self.columns.extend_from_slice(&x[..self.n]);
        at
    }
}
