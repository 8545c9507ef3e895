//! `impactset show`: what a problem is.

use anyhow::Result;
use clap::Args;
use serde::Serialize;

use super::source;

/// Arguments of `impactset show`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// Problem file (JSON or TOML) or built-in scene id.
    problem: String,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct ContactView {
    name: String,
    friction: f64,
    restitution: f64,
    normal_velocity: f64,
    tangent_velocity: Vec<f64>,
    colliding: bool,
}

#[derive(Serialize)]
struct ProblemView {
    name: String,
    dimension: impactset::Dimension,
    n: usize,
    m: usize,
    friction_directions: usize,
    bilateral_constraints: usize,
    step_lcp_size: usize,
    step_size: f64,
    steps: Option<usize>,
    samples: Option<usize>,
    kinetic_energy: f64,
    velocity: Vec<f64>,
    contacts: Vec<ContactView>,
}

/// Runs `impactset show`.
pub fn run(args: ShowArgs) -> Result<()> {
    let spec = source::load(&args.problem)?;
    let p = &spec.problem;
    let un = p.contact_velocities();
    let ut = p.tangent_velocities(p.velocity());
    let t = p.dimension().tangents();
    let view = ProblemView {
        name: spec.name.clone(),
        dimension: p.dimension(),
        n: p.n(),
        m: p.m(),
        friction_directions: p.friction_directions(),
        bilateral_constraints: p.bilateral().nrows(),
        step_lcp_size: p.operators().layout().size(),
        step_size: spec.step_size.unwrap_or_else(|| impactset::sampling::default_step_size(p)),
        steps: spec.steps,
        samples: spec.samples,
        kinetic_energy: p.kinetic_energy(p.velocity()),
        velocity: p.velocity().as_slice().to_vec(),
        contacts: p
            .contacts()
            .iter()
            .enumerate()
            .map(|(i, c)| ContactView {
                name: c.name.clone(),
                friction: c.friction,
                restitution: c.restitution,
                normal_velocity: un[i],
                tangent_velocity: ut.as_slice()[i * t..(i + 1) * t].to_vec(),
                colliding: un[i] < 0.0,
            })
            .collect(),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&view)?);
        return Ok(());
    }
    println!("{} ({:?}): n = {}, m = {}, d = {}", view.name, view.dimension, view.n, view.m, view.friction_directions);
    if view.bilateral_constraints > 0 {
        println!("bilateral constraints: {} rows of J_eq (J_eq v = 0 through the impact)", view.bilateral_constraints);
    }
    println!("step LCP size N = {}, step size h = {}", view.step_lcp_size, impactset::number::readable(view.step_size));
    println!("v⁻ = {:?}", view.velocity);
    println!("kinetic energy ½v⁻ᵀMv⁻ = {:.6}", view.kinetic_energy);
    println!(
        "{:<8} {:>9} {:>11} {:>14} {:>18}  state",
        "contact", "friction", "restitution", "normal vel.", "tangent vel."
    );
    for c in &view.contacts {
        let tangent: Vec<String> = c.tangent_velocity.iter().map(|x| format!("{x:.5}")).collect();
        let state = if c.colliding {
            "colliding"
        } else if c.normal_velocity == 0.0 {
            "touching"
        } else {
            "separating"
        };
        println!(
            "{:<8} {:>9} {:>11} {:>14.5} {:>18}  {state}",
            c.name,
            c.friction,
            c.restitution,
            c.normal_velocity,
            tangent.join(", ")
        );
    }
    Ok(())
}
