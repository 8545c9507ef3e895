//! `impactset scenes`: the built-in scene library.

use anyhow::Result;
use clap::Args;

use impactset::scene;

/// Arguments of `impactset scenes`.
#[derive(Args, Debug)]
pub struct ScenesArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Runs `impactset scenes`.
pub fn run(args: ScenesArgs) -> Result<()> {
    let catalog = scene::catalog();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&catalog)?);
        return Ok(());
    }
    println!("{:<18} {:>3} {:>3}  {:<8} description", "id", "n", "m", "kind");
    for s in &catalog {
        let kind = format!("{:?}", s.dimension).to_lowercase();
        println!("{:<18} {:>3} {:>3}  {:<8} {}", s.id, s.n, s.m, kind, s.description);
    }
    Ok(())
}
