//! Resolving the `<PROBLEM>` argument: a problem file or a built-in scene id.

use std::path::Path;

use anyhow::Result;

use super::InputError;
use impactset::io::{ProblemSpec, load_problem};
use impactset::scene;

/// Loads a problem file, or a built-in scene when no such file exists; says
/// on standard error what looks unintended about a file's problem
/// ([`impactset::ImpactProblem::warnings`]).
pub fn load(target: &str) -> Result<ProblemSpec> {
    let path = Path::new(target);
    if path.exists() {
        let spec = load_problem(path).map_err(|e| InputError(e.to_string()))?;
        for warning in spec.problem.warnings() {
            eprintln!("warning: {}: {warning}", path.display());
        }
        return Ok(spec);
    }
    if let Some(scene) = scene::builtin(target) {
        return Ok(ProblemSpec::from_scene(scene));
    }
    Err(InputError(format!("{target}: no such problem file or built-in scene (scenes: {})", scene::ids().join(", ")))
        .into())
}
