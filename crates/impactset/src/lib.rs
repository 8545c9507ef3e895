//! # impactset
//!
//! Every way a system's simultaneous, inelastic, frictional impacts can turn
//! out: the set-valued Routh model of Halm & Posa, sampled by many small
//! implicit LCP steps with random per-contact impulse caps.
//!
//! The modules follow the mathematics (`docs/model.md` in the repository):
//!
//! | docs/model.md | module |
//! |---|---|
//! | §1 impact problem, friction cone | [`problem`] |
//! | LCPs, Lemke | [`lcp`] |
//! | §2 simultaneous, §3 sequential, §4 Routh step, §5b selection | [`impact`] |
//! | §5 Algorithms 1 and 2 | [`sampling`] |
//! | §7 random streams (shared by the CPU and the GPU) | [`stream`] |
//! | one runner for every backend (CPU threads, GPU) | [`run`] |
//! | §12 batches of pre-impact states, one table row each | [`reach`] |
//! | problem files and outputs | [`io`] |
//! | §6 ε-nets, Hausdorff, contact modes | [`analysis`] |
//! | figures (SVG/PNG) | `plot` (the `plot` feature) |
//!
//! ```
//! use impactset::{Contact, ImpactProblem, SamplerOptions, sample_set};
//! use nalgebra::{dmatrix, dvector};
//!
//! // A unit point mass falling at 1 onto a frictionless floor: a single
//! // contact, so every sample ends at the plastic-impact velocity (0, 0).
//! let floor = Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.0);
//! let problem = ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], dvector![0.0, -1.0], vec![floor])?;
//! let options = SamplerOptions { samples: 64, step_size: Some(0.3), steps: Some(20), ..Default::default() };
//! let set = sample_set(&problem, &options);
//! assert_eq!(set.accepted_count(), 64);
//! assert!(set.samples.iter().all(|s| s.v_plus.iter().all(|x| x.abs() < 1e-12)));
//! # Ok::<(), impactset::ProblemError>(())
//! ```

pub mod analysis;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod impact;
pub mod io;
pub mod lcp;
mod names;
pub mod number;
#[cfg(feature = "plot")]
pub mod plot;
pub mod problem;
pub mod reach;
pub mod run;
pub mod sampling;
pub mod scene;
pub mod stream;

pub use impact::Selection;
pub use names::NamedChoice;
pub use problem::{Contact, ContactOperators, Dimension, ImpactProblem, ProblemError, ProblemWarning};
pub use sampling::{Sample, SampleSet, SamplerOptions, Schedule, sample_one, sample_set, sample_set_with_progress};
pub use scene::Scene;

// The Rust example of docs/library.md runs as a doctest (`cargo test --doc`).
#[cfg(doctest)]
#[doc = include_str!("../../../docs/library.md")]
pub struct LibraryGuide;
