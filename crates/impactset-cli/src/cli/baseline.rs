//! `impactset baseline`: the simultaneous and sequential predictions.

use anyhow::Result;
use clap::Args;
use serde::Serialize;

use super::source;
use impactset::impact::{ImpactOutcome, SolutionMethod, sequential, simultaneous};

/// Arguments of `impactset baseline`.
#[derive(Args, Debug)]
pub struct BaselineArgs {
    /// Problem file (JSON or TOML) or built-in scene id.
    problem: String,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct BaselineView {
    problem: String,
    contacts: Vec<String>,
    energy_before: f64,
    simultaneous_method: SolutionMethod,
    simultaneous: Vec<ImpactOutcome>,
    /// Why the simultaneous outcomes could not be computed, if so.
    #[serde(skip_serializing_if = "Option::is_none")]
    simultaneous_failure: Option<String>,
    sequential: Vec<ImpactOutcome>,
}

/// Runs `impactset baseline`.
pub fn run(args: BaselineArgs) -> Result<()> {
    let spec = source::load(&args.problem)?;
    let p = &spec.problem;
    let sim = simultaneous(p);
    let view = BaselineView {
        problem: spec.name.clone(),
        contacts: p.contacts().iter().map(|c| c.name.clone()).collect(),
        energy_before: p.kinetic_energy(p.velocity()),
        simultaneous_method: sim.method,
        simultaneous: sim.outcomes,
        simultaneous_failure: sim.failure,
        sequential: sequential(p),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&view)?);
        return Ok(());
    }
    println!("{}: contacts {}; energy before {:.6}", view.problem, view.contacts.join(", "), view.energy_before);
    let method = match view.simultaneous_method {
        SolutionMethod::Enumerated if p.has_restitution() => {
            "with restitution: the one outcome of the simultaneous process, every step of which has a single solution"
                .to_string()
        }
        SolutionMethod::Enumerated => "every LCP solution, by enumeration".to_string(),
        SolutionMethod::Lemke => "the Lemke solution only (LCP too large to enumerate)".to_string(),
        SolutionMethod::Searched => {
            "the solutions the contact-mode search found within its budget (possibly not all)".to_string()
        }
        SolutionMethod::Sampled => format!(
            "with restitution: the distinct outcomes of {} runs of the simultaneous process, whose steps branch",
            impactset::sampling::SIMULTANEOUS_RUNS
        ),
        SolutionMethod::Failed => {
            format!("could not be computed: {}", view.simultaneous_failure.as_deref().unwrap_or("no solution"))
        }
    };
    println!("simultaneous ({method}):");
    for o in &view.simultaneous {
        print_outcome(o);
    }
    println!("sequential (one outcome per starting contact):");
    for o in &view.sequential {
        print_outcome(o);
    }
    Ok(())
}

fn print_outcome(o: &ImpactOutcome) {
    let fmt = |xs: &[f64]| xs.iter().map(|x| format!("{x:+.5}")).collect::<Vec<_>>().join(", ");
    println!(
        "  {:<28} Jn v⁺ = [{}]  Jt v⁺ = [{}]  E = {:.6}",
        o.label,
        fmt(&o.normal_velocities),
        fmt(&o.tangent_velocities),
        o.energy
    );
    println!("  {:<28} v⁺ = [{}]", "", fmt(&o.v_plus));
}
