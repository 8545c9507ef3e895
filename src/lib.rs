pub mod lcp;
pub mod problem;
pub use problem::{Contact, ContactOperators, Dimension, ImpactProblem, ProblemError};
pub mod scene;
pub use scene::Scene;
