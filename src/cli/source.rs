//! Resolving the `<PROBLEM>` argument: a problem file or a built-in scene id.

use std::path::Path;

use anyhow::Result;

use super::InputError;
use impactset::io::{ProblemSpec, load_problem};

/// Loads a problem file, or a built-in scene when no such file exists.
pub fn load(target: &str) -> Result<ProblemSpec> {
    let path = Path::new(target);
    if path.exists() {
        return load_problem(path).map_err(|e| InputError(e.to_string()).into());
    }
    Err(InputError(format!("{target}: no such problem file")).into())
}
