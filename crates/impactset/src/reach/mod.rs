//! Batch reachability (docs/model.md §12): the post-impact sets of many
//! pre-impact states, one table row per state.
//!
//! * [`ReachInput`]: the states — one configuration with many pre-impact
//!   velocities ([`ReachInput::velocities`]), or many problems of equal
//!   sizes ([`ReachInput::problems`]).
//! * [`ReachOptions`]: samples per state, the sampler's settings, support
//!   [`Direction`]s, the ε split, baselines, the per-state search
//!   ([`ReachExtremes`]), whether to keep the sets.
//! * [`reach_stream`]: any range of states on a [`Backend`], each state's
//!   [`StateResult`] handed over in state order (the table streams to disk);
//!   [`reach`] collects them.
//! * [`ReachSchema`] and [`ReachRow`]: the table's stable, documented
//!   columns.
//!
//! Sample `i` of state `k` is sample `i` of a run with seed
//! [`state_seed`]`(seed, k)`, so rows and sets are the same bit for bit for
//! any thread count, window, shard split or machine.
//!
//! ```
//! use impactset::reach::{ReachInput, ReachOptions, StateProblem, reach};
//! use impactset::run::{Backend, RunControl};
//! use impactset::{Contact, ImpactProblem, SamplerOptions};
//! use nalgebra::{dmatrix, dvector};
//!
//! // A point mass hitting a floor with friction 0.5, at three velocities.
//! let floor = Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.5);
//! let problem = ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], dvector![0.0, -1.0], vec![floor])?;
//! let base = StateProblem { name: "point".into(), problem, step_size: None };
//! let input = ReachInput::velocities(base, vec![0.0, -1.0, 0.2, -1.0, 2.0, -1.0])?;
//! let options = ReachOptions { sampler: SamplerOptions { samples: 64, ..Default::default() }, ..Default::default() };
//! let batch = reach(&Backend::cpu(Some(2))?, &input, &options, &RunControl::default())?;
//! assert_eq!(batch.rows.len(), 3);
//! // Sliding at 2 with μ = 0.5 and a unit normal impulse leaves 1.5.
//! assert!((batch.rows[2].support_max[0] - 1.5).abs() < 1e-9);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod analyse;
mod csv;
mod extremes;
mod identity;
mod input;
mod merge;
mod options;
mod runner;
mod steps;
mod stream;
mod table;
mod validate;
mod velocities;

pub use crate::sampling::MAX_EXTREMES_BUDGET;
pub use csv::{CSV_END_PREFIX, CSV_META_PREFIX, CsvTable, csv_end, csv_head, csv_meta, csv_row, parse_csv_table};
pub use extremes::{ReachExtremes, search_selection};
pub use identity::{
    BatchIdentity, Digest, END_KEY, META_FORMAT, META_KEY, SetsDigest, SetsDigester, ShardMeta, TableEnd,
};
pub use input::{ReachInput, StateProblem};
pub use merge::{MergeError, MergePlan, ShardTable, merge_plan};
pub use options::{Direction, DirectionKind, ReachOptions, column_name};
pub use runner::{Reach, ReachRun, StateResult, directions, reach, reach_stream, schema};
pub use steps::{default_steps, default_steps_with, resolve_steps};
pub use stream::{STATE_STREAM_OFFSET, state_seed};
pub use table::{Column, ColumnKind, ReachRow, ReachSchema, Value, mode_stem};
pub use validate::{MAX_STATE_BYTES, sample_bytes, validate};
pub use velocities::{VelocityFormat, parse_velocities};

use crate::ProblemError;
#[cfg(doc)]
use crate::run::Backend;
use crate::run::RunError;
use crate::sampling::OptionsError;

/// Why a batch could not run.
#[derive(Debug, thiserror::Error)]
pub enum ReachError {
    /// The pre-impact velocities are not a `B × n` array of finite numbers.
    #[error("velocities: {0}")]
    Velocities(String),
    /// A problem of the list has other sizes than the first.
    #[error("state {state} ({name}): {found}, the batch has {expected}")]
    Shape {
        /// State index.
        state: usize,
        /// Its name.
        name: String,
        /// Its sizes.
        found: String,
        /// The first state's sizes.
        expected: String,
    },
    /// A state's problem is invalid.
    #[error("state {state}: {source}")]
    Problem {
        /// State index.
        state: usize,
        /// Why.
        source: ProblemError,
    },
    /// A sampler option out of its domain ([`SamplerOptions::validate`](crate::SamplerOptions::validate)),
    /// or `samples`, `window_samples` beyond the memory bound
    /// ([`MAX_STATE_BYTES`]); `state` when that state's own or default step
    /// size is at fault.
    #[error("{}{source}", state.map_or(String::new(), |k| format!("state {k}: ")))]
    Sampler {
        /// The state, when the fault is its own.
        state: Option<usize>,
        /// Which field and why.
        source: OptionsError,
    },
    /// A contact whose columns would collide with another's.
    #[error("contact {name:?}: {why}")]
    Contact {
        /// Its name.
        name: String,
        /// Why.
        why: String,
    },
    /// A support direction does not fit the problems.
    #[error("direction {name}: {why}")]
    Direction {
        /// Its name.
        name: String,
        /// Why.
        why: String,
    },
    /// A batch of no states (its columns or step cap are unknown).
    #[error("no states: the batch is empty")]
    Empty,
    /// An option out of range.
    #[error("{0}")]
    Options(String),
    /// The run failed or was cancelled.
    #[error(transparent)]
    Run(#[from] RunError),
}
