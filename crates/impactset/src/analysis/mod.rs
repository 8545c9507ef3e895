//! How good a sampled post-impact set is, and what it contains (docs/model.md §6):
//! metrics on velocities, covering radius and Hausdorff distance, held-out
//! certificates (coverage under the sampling law) and the extremes check
//! (the distance from the anchors and directed-search outcomes to the set),
//! convergence curves, the dense-sampling bound, and
//! contact-mode statistics.
//!
//! Typical use: embed the accepted outcomes with a [`Metric`], then measure.
//!
//! ```
//! use impactset::analysis::{Metric, covering_radius, hausdorff};
//! use impactset::{Contact, ImpactProblem, SamplerOptions, sample_set};
//! use nalgebra::{dmatrix, dvector};
//!
//! let a = Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.3);
//! let problem = ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], dvector![1.0, -1.0], vec![a])?;
//! let options = SamplerOptions { samples: 32, ..Default::default() };
//! let set = sample_set(&problem, &options);
//! let embed = Metric::Energy.embedding(&problem);
//! let points = embed.points(&set.accepted_velocities());
//! // A single contact has a single outcome: the set covers itself exactly.
//! assert!(covering_radius(&points, &points) == 0.0);
//! assert!(hausdorff(&points, &points.prefix(1)) < 1e-9);
//! # Ok::<(), impactset::ProblemError>(())
//! ```

mod bound;
mod convergence;
mod cover;
mod extremes_gap;
mod heldout;
mod metric;
mod modes;
mod report;

pub use bound::DenseSamplingBound;
pub use convergence::{Convergence, ConvergencePoint, convergence};
pub use cover::{MAX_TREE_DIM, NearestIndex, covering_radius, hausdorff, nearest_distances};
pub use extremes_gap::{ExtremesGap, ExtremesGapOptions, extremes_gap};
pub use heldout::{CERTIFIES, DEFAULT_DELTA, HeldOutCertificate, held_out_certificate};
pub use metric::{Embedding, Metric, PointCloud, UnknownMetric};
pub use modes::{
    ContactMode, ModeClassifier, ModeEntry, ModeHistogram, ModeOptions, ModeTally, contact_speed_scale, joint_label,
    mode_histogram,
};
pub use report::{BaselineDistance, EpsilonReport, Figure, baseline_distances, baseline_outcomes, velocity_norm};
