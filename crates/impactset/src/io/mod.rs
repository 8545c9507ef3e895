//! Problem files (JSON/TOML) and sample outputs (CSV/NPY/JSON).

mod output;
mod problem_file;

pub use output::{SampleWriter, read_npy, write_csv, write_json, write_npy};
pub use problem_file::{ContactFile, FileError, ProblemFile, ProblemSpec, load_problem};
