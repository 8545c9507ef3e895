//! The `analyze`, `modes` and `figures` commands, run as the binary.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use impactset::analysis::{Metric, covering_radius, hausdorff};
use impactset::io::read_npy;
use impactset::scene;

use common::impactset;

fn scratch(name: &str) -> PathBuf {
    common::scratch("cli-analysis", name)
}

fn stdout_json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON on standard output")
}

fn one_line_error(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(2), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn modes_of_a_point_sticking_on_a_slope() {
    let v = stdout_json(&impactset(&["modes", "slope-point-stick", "--samples", "64", "--json"]));
    assert_eq!(v["problem"], "slope-point-stick");
    assert_eq!(v["accepted"], 64);
    let entries = v["histogram"]["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["label"], "A sticks");
    assert_eq!(entries[0]["fraction"], 1.0);
    let text = impactset(&["modes", "slope-point-stick", "--samples", "16"]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("A sticks: 100.0%"));
}

fn sample(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let mut all = vec!["sample", "rocking-block", "--out", path.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = impactset(&all);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    path
}

#[test]
fn analyze_agrees_with_the_library() {
    let dir = scratch("analyze");
    let set = sample(&dir, "set.npy", &["--samples", "512"]);
    let reference = sample(&dir, "ref.npy", &["--samples", "2048", "--first-index", "1099511627776"]);
    let out = impactset(&[
        "analyze",
        set.to_str().unwrap(),
        "--problem",
        "rocking-block",
        "--reference",
        reference.to_str().unwrap(),
        "--heldout",
        reference.to_str().unwrap(),
        "--json",
    ]);
    let v = stdout_json(&out);

    let problem = scene::builtin("rocking-block").unwrap().problem;
    let embed = Metric::Energy.embedding(&problem);
    let points = |p: &Path| embed.points_of(read_npy(p).unwrap().iter().map(Vec::as_slice));
    let (net, r) = (points(&set), points(&reference));
    let eps = covering_radius(&net, &r);
    let scale = (2.0 * problem.kinetic_energy(problem.velocity())).sqrt();
    let e = &v["epsilon"];
    assert_eq!(e["net_size"], 512);
    assert_eq!(e["reference_size"], 2048);
    assert_eq!(e["covering_radius"]["absolute"].as_f64().unwrap(), eps);
    assert!((e["covering_radius"]["relative"].as_f64().unwrap() - eps / scale).abs() < 1e-12);
    assert_eq!(e["hausdorff"]["absolute"].as_f64().unwrap(), hausdorff(&net, &r));
    assert_eq!(e["certificate"]["epsilon"].as_f64().unwrap(), eps);
    assert_eq!(e["certificate"]["delta"].as_f64().unwrap(), 0.05);
    assert_eq!(v["baselines"].as_array().unwrap().len(), 3);
    assert_eq!(v["baselines"][0]["label"], "simultaneous 1/1");

    // The text form prints the same ε.
    let text = impactset(&[
        "analyze",
        set.to_str().unwrap(),
        "--problem",
        "rocking-block",
        "--heldout",
        reference.to_str().unwrap(),
    ]);
    assert!(text.status.success());
    assert!(String::from_utf8_lossy(&text.stdout).contains(&format!("{eps:.4e}")));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_analyze_input_is_one_line_and_exit_code_2() {
    let dir = scratch("bad");
    let missing = dir.join("missing.npy");
    let err = one_line_error(&impactset(&[
        "analyze",
        missing.to_str().unwrap(),
        "--problem",
        "rocking-block",
        "--heldout",
        missing.to_str().unwrap(),
    ]));
    assert!(err.contains("missing.npy"), "{err}");
    let set = sample(&dir, "set.npy", &["--samples", "8"]);
    let s = set.to_str().unwrap();
    // A set of another problem (n = 3 against n = 4), bad δ, unknown problem.
    one_line_error(&impactset(&["analyze", s, "--problem", "compass-gait", "--heldout", s]));
    one_line_error(&impactset(&["analyze", s, "--problem", "rocking-block", "--heldout", s, "--delta", "1.5"]));
    one_line_error(&impactset(&["analyze", s, "--problem", "no-such-scene", "--heldout", s]));
    one_line_error(&impactset(&["modes", "no-such-scene"]));
    one_line_error(&impactset(&["figures", "no-such-scene", "--out-dir", dir.to_str().unwrap()]));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn figures_of_one_small_scene() {
    let dir = scratch("figures");
    let out = impactset(&[
        "figures",
        "rocking-block",
        "--samples",
        "256",
        "--format",
        "svg",
        "--out-dir",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("rocking-block: 256/256 accepted"), "{err}");
    for f in ["rocking-block-set.svg", "rocking-block-convergence.svg", "rocking-block-eps.json"] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    let eps: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("rocking-block-eps.json")).unwrap()).unwrap();
    assert_eq!(eps["reference_samples"], 1024);
    assert_eq!(eps["baselines"].as_array().unwrap().len(), 3);
    std::fs::remove_dir_all(&dir).ok();
}
