//! What a new user meets first: `-q` on every command that shows progress,
//! `analyze` as the documentation shows it, readable `extremes` gains,
//! `reach`'s warning for a state in which nothing collides, the mode
//! tolerance, the coordinate figure and readable TOML.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use impactset::analysis::{Metric, held_out_certificate};
use impactset::io::{load_problem, read_npy};
use impactset::scene;

use common::{assert_input_error, impactset};

fn scratch(name: &str) -> PathBuf {
    common::scratch("papercuts", name)
}

fn ok(out: &Output) -> String {
    assert!(out.status.success(), "failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn quiet_is_accepted_by_every_command_that_shows_progress() {
    let dir = scratch("quiet");
    let set = dir.join("set.npy");
    let table = dir.join("t.csv");
    let runs: [&[&str]; 6] = [
        &["sample", "compass-gait", "-n", "16", "-q", "--out", s(&set)],
        &["sample", "compass-gait", "-n", "16", "--quiet"],
        &["modes", "compass-gait", "-n", "16", "-q"],
        &["extremes", "compass-gait", "--random", "1", "-n", "16", "--budget", "4", "-q"],
        &["reach", "compass-gait", "-n", "8", "--out", s(&table), "-q"],
        &["analyze", s(&set), "--problem", "compass-gait", "--no-extremes", "-q"],
    ];
    for args in runs {
        let out = impactset(args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn analyze_without_a_reference_holds_out_every_fourth_outcome_of_the_set() {
    let dir = scratch("analyze");
    let set = dir.join("set.npy");
    ok(&impactset(&["sample", "rocking-block", "-n", "403", "--out", s(&set), "-q"]));
    let out = ok(&impactset(&["analyze", s(&set), "--problem", "rocking-block", "--no-extremes", "--json"]));
    let view: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(view["held_out_every"], 4);
    // The library's certificate of the same split: rows 3, 7, 11, … held out.
    let rows = read_npy(&set).unwrap();
    let problem = scene::builtin("rocking-block").unwrap().problem;
    let embedding = Metric::Energy.embedding(&problem);
    let (held, net): (Vec<_>, Vec<_>) = rows.iter().enumerate().partition(|(i, _)| i % 4 == 3);
    let held = embedding.points_of(held.iter().map(|(_, v)| v.as_slice()));
    let net = embedding.points_of(net.iter().map(|(_, v)| v.as_slice()));
    let certificate = held_out_certificate(&net, &held, 0.05);
    let shown = &view["epsilon"]["certificate"];
    assert_eq!(shown["held_out"], rows.len() / 4);
    assert_eq!(shown["net_size"], rows.len() - rows.len() / 4);
    assert_eq!(shown["epsilon"].as_f64().unwrap(), certificate.epsilon);
    let text = ok(&impactset(&["analyze", s(&set), "--problem", "rocking-block", "--no-extremes"]));
    assert!(text.contains("held out: every 4th outcome of the set"), "{text}");
    // Too few outcomes to hold a quarter out: one line, exit 2.
    let tiny = dir.join("tiny.npy");
    ok(&impactset(&["sample", "rocking-block", "-n", "2", "--out", s(&tiny), "-q"]));
    assert_input_error(&["analyze", s(&tiny), "--problem", "rocking-block"], &["at least 4"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn extremes_prints_gains_in_significant_digits() {
    let args = ["extremes", "compass-gait", "--random", "3", "-n", "64", "--budget", "16", "-q"];
    let json: serde_json::Value = serde_json::from_str(&ok(&impactset(&[&args[..], &["--json"]].concat()))).unwrap();
    let text = ok(&impactset(&args));
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("random-")).collect();
    assert_eq!(rows.len(), 3, "{text}");
    for (row, e) in rows.iter().zip(json.as_array().unwrap()) {
        let gain_text = row.split_whitespace().nth(3).unwrap();
        assert!(gain_text.contains('e'), "not in significant digits: {row}");
        let gain: f64 = gain_text.parse().unwrap();
        let scale = e["scale"].as_f64().unwrap();
        let expected = (e["value"].as_f64().unwrap() - e["sampled"].as_f64().unwrap()) / scale;
        // Four significant digits, whatever the gain's size.
        assert!((gain - expected).abs() <= 5e-4 * expected.abs() + f64::MIN_POSITIVE, "{gain} vs {expected}");
    }
}

#[test]
fn reach_warns_naming_the_states_in_which_no_contact_collides() {
    let dir = scratch("resting");
    let p = scene::builtin("slope-point-stick").unwrap().problem;
    let v: Vec<f64> = p.velocity().iter().copied().collect();
    let away: Vec<String> = v.iter().map(|x| (-x).to_string()).collect();
    let toward: Vec<String> = v.iter().map(f64::to_string).collect();
    let velocities = dir.join("v.csv");
    std::fs::write(&velocities, format!("{}\n{}\n{}\n", toward.join(","), away.join(","), toward.join(","))).unwrap();
    let table = dir.join("t.csv");
    let run = |quiet: bool| {
        let mut args =
            vec!["reach", "slope-point-stick", "--velocities", s(&velocities), "-n", "8", "--out", s(&table)];
        if quiet {
            args.push("-q");
        }
        impactset(&args)
    };
    let out = run(false);
    ok(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: state 1: no contact is colliding"), "{err}");
    assert!(!err.contains("state 0:") && !err.contains("state 2:"), "{err}");
    assert!(!String::from_utf8_lossy(&run(true).stderr).contains("warning"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_mode_tolerance_is_a_flag_of_the_commands_that_label_modes() {
    // A tolerance far above every contact speed: every contact sticks.
    let json = ok(&impactset(&["modes", "rocking-block", "-n", "64", "--mode-tolerance", "1e9", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let entries = v["histogram"]["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{json}");
    assert!(entries[0]["modes"].as_array().unwrap().iter().all(|m| m == "sticks"), "{json}");
    assert_eq!(v["histogram"]["options"]["slip_tol"], 1e9);
    let default = ok(&impactset(&["modes", "rocking-block", "-n", "64", "--json"]));
    let d: serde_json::Value = serde_json::from_str(&default).unwrap();
    assert!(d["histogram"]["entries"].as_array().unwrap().len() > 1, "{default}");
    let dir = scratch("modes");
    let table = dir.join("t.csv");
    ok(&impactset(&["reach", "rocking-block", "-n", "32", "--mode-tolerance", "1e9", "--out", s(&table), "-q"]));
    let csv = std::fs::read_to_string(&table).unwrap();
    let lines: Vec<&str> = csv.lines().filter(|l| !l.starts_with('#')).collect();
    let column = lines[0].split(',').position(|c| c == "joint_modes").expect("a joint_modes column");
    assert_eq!(lines[1].split(',').nth(column), Some("1"), "{csv}");
    for command in
        [&["modes", "rocking-block"][..], &["sample", "rocking-block"][..], &["figures", "rocking-block"][..]]
    {
        assert_input_error(
            &[command, &["--mode-tolerance", "0"]].concat(),
            &["--mode-tolerance 0: must be a positive"],
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn figures_colour_the_set_by_modes_at_the_given_tolerance() {
    // Every contact sticks at a tolerance above every contact speed, so the
    // set figure's mode colours change; the default labels several modes.
    let dir = scratch("figures");
    let svg = |tolerance: &str| {
        let out = dir.join(tolerance);
        let args = ["figures", "rocking-block", "-n", "64", "--reference-factor", "1", "--trajectories", "2"];
        ok(&impactset(
            &[&args[..], &["--format", "svg", "--mode-tolerance", tolerance, "--out-dir", s(&out)]].concat(),
        ));
        let file = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|x| x == "svg") && !s(p).contains("convergence"))
            .expect("a set figure");
        std::fs::read_to_string(file).unwrap()
    };
    assert_ne!(svg("1e-6"), svg("1e9"), "the tolerance reaches the figure");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sample_plots_chosen_coordinates() {
    let dir = scratch("plot");
    let figure = dir.join("set.svg");
    ok(&impactset(&["sample", "rocking-block", "-n", "64", "--plot", s(&figure), "--plot-coordinates", "v0,2", "-q"]));
    let svg = std::fs::read_to_string(&figure).unwrap();
    let texts: Vec<&str> = svg.lines().map(str::trim).collect();
    assert!(texts.contains(&"v0") && texts.contains(&"v2"), "the axes are the coordinates");
    assert!(!svg.contains("normal velocity"), "no contact-frame panel");
    let plot = ["sample", "rocking-block", "-n", "4", "--plot", s(&figure)];
    assert_input_error(&[&plot[..], &["--plot-coordinates", "v0,v9"]].concat(), &["v9", "n = 3"]);
    assert_input_error(&[&plot[..], &["--plot-coordinates", "v1"]].concat(), &["at least two"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn toml_export_writes_a_matrix_row_per_line_and_reads_back_exactly() {
    let dir = scratch("toml");
    let path = dir.join("cradle.toml");
    ok(&impactset(&["export", "cradle", "--toml", "--out", s(&path)]));
    let text = std::fs::read_to_string(&path).unwrap();
    let spec = load_problem(&path).unwrap();
    let n = spec.problem.n();
    let start = text.lines().position(|l| l == "mass_matrix = [").expect("a multi-line matrix");
    let rows: Vec<&str> = text.lines().skip(start + 1).take_while(|l| *l != "]").collect();
    assert_eq!(rows.len(), n, "{text}");
    assert!(rows.iter().all(|r| r.trim_start().starts_with('[') && r.ends_with("],")), "{text}");
    // Every number one line per row, never one per line: a few lines per contact.
    assert!(text.lines().count() < 3 * n + 8 * spec.problem.m() + 20, "{text}");
    let scene = scene::builtin("cradle").unwrap().problem;
    assert_eq!(spec.problem.mass(), scene.mass());
    assert_eq!(spec.problem.velocity(), scene.velocity());
    std::fs::remove_dir_all(&dir).ok();
}
