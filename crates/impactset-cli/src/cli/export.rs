//! `impactset export`: a built-in scene as a problem file to start from.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use super::InputError;
use impactset::io::{ProblemFile, ProblemSpec};
use impactset::scene;

/// Arguments of `impactset export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Built-in scene id (see `impactset scenes`).
    scene: String,
    /// Write TOML instead of JSON.
    #[arg(long, conflicts_with = "json")]
    toml: bool,
    /// Write JSON (the default).
    #[arg(long)]
    json: bool,
    /// Write to this file instead of standard output.
    #[arg(long, short)]
    out: Option<PathBuf>,
}

/// Runs `impactset export`.
pub fn run(args: ExportArgs) -> Result<()> {
    let scene = scene::builtin(&args.scene).ok_or_else(|| {
        InputError(format!("{}: no such built-in scene (scenes: {})", args.scene, scene::ids().join(", ")))
    })?;
    let file = ProblemFile::from_spec(&ProblemSpec::from_scene(scene));
    let text =
        if args.toml { impactset::io::problem_toml(&file)? } else { serde_json::to_string_pretty(&file)? + "\n" };
    match &args.out {
        Some(path) => std::fs::write(path, text).with_context(|| format!("{}: cannot write", path.display()))?,
        None => print!("{text}"),
    }
    Ok(())
}
