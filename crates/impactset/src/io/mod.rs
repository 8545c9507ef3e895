//! Problem files (JSON/TOML) and sample outputs (CSV/NPY/JSON).

mod atomic;
mod output;
mod problem_file;
mod toml_text;

pub use crate::sampling::finite_or_string;
pub use atomic::{AtomicFile, PendingFile, remove_pending_files};
pub use output::{OutputError, SampleWriter, parse_npy, read_npy, write_csv, write_json, write_npy};
pub use problem_file::{ContactFile, FileError, ProblemFile, ProblemSpec, load_problem};
pub use toml_text::problem_toml;
