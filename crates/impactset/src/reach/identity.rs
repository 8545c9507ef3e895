//! What identifies a batch and a shard of it (docs/model.md §12, "Files"):
//! every table carries a [`ShardMeta`] (which batch, which states) and a
//! [`TableEnd`] (how many rows, a digest of its sets), and the merge joins
//! only shards of one batch that cover it exactly once.

use serde::{Deserialize, Serialize};

use super::{Direction, DirectionKind, ReachExtremes, ReachInput, ReachOptions};
use crate::ImpactProblem;

/// Version of the metadata written into tables.
pub const META_FORMAT: u32 = 1;

/// Parquet key-value key of the [`ShardMeta`] (JSON); CSV: the first line
/// is `# impactset-reach <json>`.
pub const META_KEY: &str = "impactset.reach";

/// Parquet key-value key of the [`TableEnd`] (JSON); CSV: the last line is
/// `# impactset-reach-end <json>`.
pub const END_KEY: &str = "impactset.reach.end";

/// Everything that makes two tables rows of one batch: the states and every
/// setting that changes a row. Shards of a batch carry equal identities.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchIdentity {
    /// Number of states `B` of the whole batch.
    pub states: u64,
    /// The batch seed.
    pub seed: u64,
    /// Samples per state `S`.
    pub samples: u64,
    /// Step cap `K`.
    pub steps: u64,
    /// The batch's step size `h` (`None`: each state's own or default).
    pub step_size: Option<f64>,
    /// The step-selection rule.
    pub selection: String,
    /// The law of the caps (tables written before it existed: `uniform`).
    #[serde(default = "uniform")]
    pub schedule: String,
    /// Whether the baselines are computed.
    pub baselines: bool,
    /// The ε split.
    pub heldout_every: u64,
    /// `δ` of the certificate.
    pub delta: f64,
    /// The per-state search (absent: off, as in tables written before it
    /// existed), so tables with and without `_extreme` columns never merge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extremes: Option<ReachExtremes>,
    /// Digest of every state (names, `M`, `v⁻`, contacts, constraints, `h`).
    pub input: String,
    /// Digest of the directions, the sampler's and the mode tolerances.
    pub settings: String,
}

fn uniform() -> String {
    crate::Schedule::Uniform.to_string()
}

/// Which states of which batch a table holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardMeta {
    /// [`META_FORMAT`].
    pub format: u32,
    /// The batch.
    pub batch: BatchIdentity,
    /// `[I, J]` for shard `I` of `J` (`None`: the whole batch or a merge).
    pub shard: Option<[u64; 2]>,
    /// First state.
    pub first: u64,
    /// One past the last state.
    pub end: u64,
}

/// What a complete table ends with: its row count and, when the run wrote
/// the sets, their row count and digest (so a merge pairs each table with
/// its own sets).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableEnd {
    /// Rows of the table.
    pub rows: u64,
    /// The sets written with it.
    pub sets: Option<SetsDigest>,
}

/// Row count and digest of a sets array (every value's bits, in order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetsDigest {
    /// Rows (accepted samples).
    pub rows: u64,
    /// FNV-1a 64 of the values' little-endian bytes, 16 hex digits.
    pub digest: String,
}

impl BatchIdentity {
    /// The identity of the batch `input` under `options` (with its step cap
    /// `K` settled) and `directions` (resolved, [`super::directions`]).
    pub fn new(input: &ReachInput, options: &ReachOptions, directions: &[Direction]) -> Self {
        let mut h = Digest::new();
        match input.velocity_rows() {
            Some((base, velocities)) => {
                h.str("velocities");
                h.str(&base.name);
                h.opt(base.step_size);
                h.problem(&base.problem, false);
                h.floats(velocities);
            }
            None => {
                h.str("problems");
                for k in 0..input.len() {
                    if let Ok(state) = input.state(k) {
                        h.str(&state.name);
                        h.opt(state.step_size);
                        h.problem(&state.problem, true);
                    }
                }
            }
        }
        let input_digest = h.hex();
        let mut s = Digest::new();
        for d in directions {
            s.str(&d.name);
            match &d.kind {
                DirectionKind::Coordinate(i) => s.words(&[0, *i as u64]),
                DirectionKind::Normal(i) => s.words(&[1, *i as u64]),
                DirectionKind::Tangent { contact, row } => s.words(&[2, *contact as u64, *row as u64]),
                DirectionKind::Vector(c) => {
                    s.words(&[3]);
                    s.floats(c);
                }
            }
        }
        let sampler = &options.sampler;
        s.floats(&[
            sampler.termination_tol,
            sampler.residual_tol,
            sampler.work_tol,
            options.modes.separation_tol,
            options.modes.slip_tol,
        ]);
        BatchIdentity {
            states: input.len() as u64,
            seed: sampler.seed,
            samples: sampler.samples as u64,
            steps: sampler.steps.unwrap_or(0) as u64,
            step_size: sampler.step_size,
            selection: sampler.selection.to_string(),
            schedule: sampler.schedule.to_string(),
            baselines: options.baselines,
            heldout_every: options.heldout_every,
            delta: options.delta,
            extremes: options.extremes.clone(),
            input: input_digest,
            settings: s.hex(),
        }
    }
}

/// FNV-1a 64: a stable digest (the same on every machine and Rust
/// version), for telling batches and sets apart, not for security.
#[derive(Clone, Debug)]
pub struct Digest(u64);

impl Default for Digest {
    fn default() -> Self {
        Digest::new()
    }
}

impl Digest {
    /// The empty digest.
    pub fn new() -> Self {
        Digest(0xcbf2_9ce4_8422_2325)
    }

    /// Adds bytes.
    pub fn bytes(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ *b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// Adds floats by their bits.
    pub fn floats(&mut self, xs: &[f64]) {
        for x in xs {
            self.bytes(&x.to_le_bytes());
        }
    }

    fn words(&mut self, xs: &[u64]) {
        for x in xs {
            self.bytes(&x.to_le_bytes());
        }
    }

    fn str(&mut self, s: &str) {
        self.words(&[s.len() as u64]);
        self.bytes(s.as_bytes());
    }

    fn opt(&mut self, x: Option<f64>) {
        match x {
            Some(x) => self.floats(&[1.0, x]),
            None => self.floats(&[0.0]),
        }
    }

    fn problem(&mut self, p: &ImpactProblem, velocity: bool) {
        self.words(&[p.n() as u64, p.m() as u64, p.friction_directions() as u64]);
        self.floats(p.mass().as_slice());
        if velocity {
            self.floats(p.velocity().as_slice());
        }
        for c in p.contacts() {
            self.str(&c.name);
            self.floats(c.normal.as_slice());
            for t in &c.tangents {
                self.floats(t.as_slice());
            }
            self.floats(&[c.friction]);
        }
        let b = p.bilateral();
        self.words(&[b.nrows() as u64]);
        self.floats(b.as_slice());
    }

    /// 16 hex digits.
    pub fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

/// Digests a sets array as it is written (rows of `n` values).
#[derive(Clone, Debug, Default)]
pub struct SetsDigester {
    digest: Digest,
    values: u64,
}

impl SetsDigester {
    /// Adds values (whole rows).
    pub fn add(&mut self, values: &[f64]) {
        self.digest.floats(values);
        self.values += values.len() as u64;
    }

    /// The digest of the rows added, `n` values per row.
    pub fn finish(&self, n: usize) -> SetsDigest {
        SetsDigest { rows: self.values / n.max(1) as u64, digest: self.digest.hex() }
    }
}
