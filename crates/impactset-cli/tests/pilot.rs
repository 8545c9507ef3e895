//! The pilot run from the command line (docs/model.md §11): on a wedge with
//! restitution it stops within its budget and says what it saw; failed
//! step LCPs are reported as failures, not as samples that ran out of steps.

mod common;

use common::{impactset, scratch};

fn wedge() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../impactset/tests/data/wedge-restitution.json");
    path.to_str().unwrap().to_string()
}

#[test]
fn the_pilot_on_a_nearly_wedged_problem_with_restitution_ends_and_says_what_it_saw() {
    let out = impactset(&["sample", &wedge(), "-n", "1", "--threads", "1", "--selection", "lemke"]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    // The pilot says how many of its samples ended and where it stopped.
    assert!(stderr.contains("pilot samples") && stderr.contains("had not ended within"), "{stderr}");
    assert!(stderr.contains("steps in all"), "{stderr}");
    assert!(stdout.contains("K = 10000"), "{stdout}");
}

#[test]
fn failed_lemke_solves_are_reported_as_failures_not_as_running_out_of_steps() {
    // The rocking block at μ = 10¹²: some random-lemke step solves fail
    // (docs/model.md §9).
    let dir = scratch("pilot", "rocking");
    let path = dir.join("rocking-mu-1e12.json");
    std::fs::write(
        &path,
        r#"{"mass_matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 0.4166666666666667]],
            "velocity": [0, -0.4429446918888658, 0], "step_size": 0.3,
            "contacts": [
              {"name": "A", "normal": [0, 1, -0.5], "tangent": [1, 0, 1], "friction": 1e12},
              {"name": "B", "normal": [0, 1, 0.5], "tangent": [1, 0, 1], "friction": 1e12}]}"#,
    )
    .unwrap();
    let p = path.to_str().unwrap();
    for steps in [None, Some("20")] {
        let mut args = vec!["sample", p, "-n", "400", "--selection", "random-lemke"];
        args.extend(steps.iter().flat_map(|k| ["--steps", k]));
        let out = impactset(&args);
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{stderr}");
        assert!(stderr.contains("could not be solved"), "{steps:?}: {stderr}");
        assert!(!stderr.contains("raise --steps") && !stderr.contains("had not ended"), "{steps:?}: {stderr}");
        assert!(!stdout.contains("K = 10000"), "{steps:?}: {stdout}");
        assert!(stdout.contains("/ rejected: 0 unterminated (out of steps)"), "{steps:?}: {stdout}");
    }
}

/// The command line and the library resolve an unset step cap alike (the
/// core's pilot), and the command shows the core's default rule.
#[test]
fn the_command_line_takes_the_cores_defaults() {
    let dir = scratch("pilot", "defaults");
    let path = dir.join("block-without-k.json");
    std::fs::write(
        &path,
        r#"{"mass_matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 0.4166666666666667]],
            "velocity": [0.2, -0.4429446918888658, 0.1],
            "contacts": [
              {"name": "A", "normal": [0, 1, -0.5], "tangent": [1, 0, 1], "friction": 0.6},
              {"name": "B", "normal": [0, 1, 0.5], "tangent": [1, 0, 1], "friction": 0.6}]}"#,
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let out = impactset(&["sample", p, "-n", "16", "--threads", "1"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let spec = impactset::io::load_problem(&path).unwrap();
    assert_eq!(spec.steps, None);
    let cap = impactset::sampling::default_steps(&spec.problem, &spec.sampler_options());
    assert!(stdout.contains(&format!("K = {},", cap.steps)), "{stdout}");
    assert!(stdout.contains(&format!("selection {},", impactset::Selection::DEFAULT)), "{stdout}");
    for command in ["sample", "reach", "modes", "figures"] {
        let help = impactset(&[command, "--help"]);
        let help = String::from_utf8_lossy(&help.stdout);
        let shown = format!("[default: {}]", impactset::Selection::DEFAULT);
        assert!(help.contains(&shown), "{command}: {help}");
    }
}
