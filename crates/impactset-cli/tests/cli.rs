//! The `impactset` binary: bad input gives one error line and exit code 2;
//! good input works end to end.

mod common;

use std::path::PathBuf;

use common::impactset;

fn write(name: &str, text: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("impactset-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

const GOOD: &str = r#"{"name": "point", "mass_matrix": [[1, 0], [0, 1]], "velocity": [0, -1],
  "contacts": [{"normal": [0, 1], "tangent": [1, 0], "friction": 0.5}], "step_size": 0.5, "steps": 10}"#;

/// Runs `show` and `sample` on a bad file: exit 2, one line on stderr naming
/// the file and `expect` (the field or the problem), nothing on stdout, no panic.
fn assert_rejected(name: &str, text: &str, expect: &str) {
    let path = write(name, text);
    let p = path.to_str().unwrap();
    for args in [vec!["show", p], vec!["sample", p, "-n", "8"], vec!["baseline", p]] {
        let out = impactset(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: not one line: {stderr}");
        assert!(stderr.contains(name), "{args:?}: file not named: {stderr}");
        assert!(stderr.contains(expect), "{args:?}: `{expect}` not named: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn malformed_json_is_rejected() {
    assert_rejected("truncated.json", &GOOD[..GOOD.len() - 10], "line");
    assert_rejected("not-json.json", "mass_matrix = oops", "line");
    assert_rejected(
        "wrong-type.json",
        &GOOD.replace("\"friction\": 0.5", "\"friction\": \"high\""),
        "contacts[0].friction",
    );
    assert_rejected("missing.json", &GOOD.replace("\"velocity\": [0, -1],", ""), "velocity");
    assert_rejected("unknown.json", &GOOD.replace("\"steps\": 10", "\"stpes\": 10"), "stpes");
    assert_rejected("bad.toml", "mass_matrix = [[1]]\nvelocity = [", "bad.toml");
}

#[test]
fn wrong_sizes_are_rejected() {
    assert_rejected("ragged.json", &GOOD.replace("[[1, 0], [0, 1]]", "[[1, 0], [0]]"), "mass_matrix[1]");
    assert_rejected("rows.json", &GOOD.replace("[[1, 0], [0, 1]]", "[[1, 0], [0, 1], [0, 0]]"), "mass_matrix");
    assert_rejected("normal.json", &GOOD.replace("\"normal\": [0, 1]", "\"normal\": [0, 1, 2]"), "contacts[0].normal");
    assert_rejected("tangent.json", &GOOD.replace("\"tangent\": [1, 0]", "\"tangent\": [1]"), "contacts[0].tangent");
    assert_rejected(
        "no-contacts.json",
        &GOOD.replace(r#"{"normal": [0, 1], "tangent": [1, 0], "friction": 0.5}"#, ""),
        "contacts",
    );
    assert_rejected(
        "tangents.json",
        &GOOD.replace("\"tangent\": [1, 0]", "\"tangents\": [[1, 0]]"),
        "contacts[0].tangents",
    );
}

#[test]
fn non_finite_values_are_rejected() {
    assert_rejected("nan.json", &GOOD.replace("[0, -1]", "[0, NaN]"), "line");
    assert_rejected("huge.json", &GOOD.replace("[0, -1]", "[0, 1e999]"), "velocity");
    let toml = "mass_matrix = [[1.0, 0.0], [0.0, 1.0]]\nvelocity = [0.0, nan]\n[[contacts]]\nnormal = [0.0, 1.0]\ntangent = [1.0, 0.0]\nfriction = 0.5\n";
    assert_rejected("nan.toml", toml, "velocity");
    let toml_inf =
        toml.replace("velocity = [0.0, nan]", "velocity = [0.0, -1.0]").replace("friction = 0.5", "friction = inf");
    assert_rejected("inf-friction.toml", &toml_inf, "contacts[0].friction");
}

#[test]
fn non_spd_mass_matrices_are_rejected() {
    assert_rejected("indefinite.json", &GOOD.replace("[[1, 0], [0, 1]]", "[[1, 0], [0, -1]]"), "positive definite");
    assert_rejected("singular.json", &GOOD.replace("[[1, 0], [0, 1]]", "[[1, 1], [1, 1]]"), "positive definite");
    assert_rejected("asymmetric.json", &GOOD.replace("[[1, 0], [0, 1]]", "[[1, 0.5], [0, 1]]"), "symmetric");
}

#[test]
fn negative_friction_is_rejected() {
    assert_rejected("negative.json", &GOOD.replace("\"friction\": 0.5", "\"friction\": -0.5"), "contacts[0].friction");
    assert_rejected("tiny-negative.json", &GOOD.replace("\"friction\": 0.5", "\"friction\": -1e-12"), "negative");
}

#[test]
fn unknown_problem_and_bad_flags_are_rejected() {
    let out = impactset(&["sample", "no-such-scene"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-scene"));
    let out = impactset(&["sample", "rocking-block", "--step-size", "-1"]);
    assert_eq!(out.status.code(), Some(2));
    let out = impactset(&["sample", "rocking-block", "--out", "x.txt"]);
    assert_eq!(out.status.code(), Some(2));
    let out = impactset(&["sample", "rocking-block", "--selection", "best"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn every_subcommand_has_help() {
    for sub in ["show", "sample", "baseline", "scenes", "export", "bench", "compare", "analyze", "modes", "figures"] {
        let out = impactset(&[sub, "--help"]);
        assert!(out.status.success(), "{sub}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("Usage"), "{sub}");
    }
}

#[test]
fn sample_writes_npy_csv_and_summary_that_agree() {
    let path = write("good.json", GOOD);
    let dir = path.parent().unwrap();
    let (npy, csv, summary) = (dir.join("set.npy"), dir.join("set.csv"), dir.join("summary.json"));
    let p = path.to_str().unwrap();
    let out =
        impactset(&["sample", p, "-n", "100", "--out", npy.to_str().unwrap(), "--summary", summary.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = impactset(&["sample", p, "-n", "100", "--out", csv.to_str().unwrap()]);
    assert!(out.status.success());
    let rows = impactset::io::read_npy(&npy).unwrap();
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    for key in [
        "problem",
        "samples",
        "accepted",
        "terminated",
        "rejected_unterminated",
        "rejected_residual",
        "mean_steps",
        "max_residual",
        "max_energy_ratio",
        "seed",
        "selection",
        "backend",
        "precision",
        "threads",
        "elapsed_s",
    ] {
        assert!(summary.get(key).is_some(), "summary lacks {key}");
    }
    assert_eq!(summary["accepted"].as_u64().unwrap() as usize, rows.len());
    let csv = std::fs::read_to_string(&csv).unwrap();
    let accepted: Vec<Vec<f64>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[3] == "1")
        .map(|f| f[7..].iter().map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(accepted, rows, "CSV and NPY disagree");
}

/// A run streamed in chunks of 37 samples writes the same bytes and the same
/// counts and modes as one chunk, and the NPY holds the library's set.
#[test]
fn sample_output_does_not_depend_on_the_chunk_size() {
    let path = write("chunks.json", GOOD);
    let dir = path.parent().unwrap();
    let p = path.to_str().unwrap();
    let run = |chunk: &str, ext: &str| {
        let out_path = dir.join(format!("chunk-{chunk}.{ext}"));
        let summary = dir.join(format!("chunk-{chunk}-{ext}.json"));
        let args = ["sample", p, "-n", "300", "--selection", "random-lemke", "--chunk", chunk];
        let out = impactset(
            &[&args[..], &["--out", out_path.to_str().unwrap(), "--summary", summary.to_str().unwrap()]].concat(),
        );
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let mut summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
        summary.as_object_mut().unwrap().remove("elapsed_s");
        (std::fs::read(&out_path).unwrap(), summary)
    };
    for ext in ["npy", "csv"] {
        let (whole, whole_summary) = run("300", ext);
        let (chunked, chunked_summary) = run("37", ext);
        assert!(whole == chunked, "{ext}: the output depends on the chunk size");
        assert_eq!(whole_summary, chunked_summary);
        assert!(!dir.join("chunk-37.npy.partial").exists(), "the partial file is left behind");
    }
    let spec = impactset::io::load_problem(&path).unwrap();
    let options = impactset::SamplerOptions {
        samples: 300,
        step_size: spec.step_size,
        steps: Some(spec.steps.unwrap()),
        selection: impactset::Selection::RandomLemke,
        ..Default::default()
    };
    let set = impactset::sample_set(&spec.problem, &options);
    let rows = impactset::io::read_npy(&dir.join("chunk-37.npy")).unwrap();
    assert_eq!(rows.concat(), set.accepted_velocities());
}

#[test]
fn export_round_trips_through_show() {
    let dir = common::scratch("cli", "export");
    for (flag, ext) in [("--json", "json"), ("--toml", "toml")] {
        let file = dir.join(format!("compass.{ext}"));
        let out = impactset(&["export", "compass-gait", flag, "--out", file.to_str().unwrap()]);
        assert!(out.status.success());
        let from_file = impactset(&["show", file.to_str().unwrap(), "--json"]);
        let from_scene = impactset(&["show", "compass-gait", "--json"]);
        assert!(from_file.status.success());
        assert_eq!(String::from_utf8_lossy(&from_file.stdout), String::from_utf8_lossy(&from_scene.stdout));
    }
}

#[test]
fn bench_writes_rows_with_the_documented_keys() {
    let dir = common::scratch("cli", "bench");
    let json = dir.join("bench.json");
    let out = impactset(&[
        "bench",
        "rocking-block",
        "-n",
        "512",
        "--backends",
        "cpu1,cpu",
        "--repetitions",
        "2",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for row in rows {
        for key in [
            "scene",
            "backend",
            "selection",
            "precision",
            "threads",
            "samples",
            "lcps_per_sample",
            "us_per_lcp",
            "us_per_sample",
            "samples_per_s",
            "wall_ms",
            "kernel_ms",
            "host_reruns",
        ] {
            assert!(row.get(key).is_some(), "row lacks {key}");
        }
        assert!(row["kernel_ms"].is_null(), "a CPU row has no kernel time");
        assert!(row["host_reruns"].is_null(), "a CPU row has no host re-runs");
        // The bench's LCPs per sample are the mean steps of the same run
        // (seed 0, the scene's step size and cap) made by `sample`.
        let sample = impactset(&["sample", "rocking-block", "-n", "512", "--selection", "random-lemke", "--json"]);
        assert!(sample.status.success());
        let summary: serde_json::Value = serde_json::from_slice(&sample.stdout).unwrap();
        assert_eq!(row["lcps_per_sample"], summary["mean_steps"], "bench and sample ran different samples");
        assert_eq!(row["samples"], 512);
    }
    let out = impactset(&["bench", "rocking-block", "--backends", "tpu"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn census_classifies_every_solve_and_finds_no_silent_failure() {
    let json =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("impactset-census-{}.json", std::process::id()));
    let out = impactset(&["census", "-n", "39000", "--per-problem", "500", "--json", json.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    std::fs::remove_file(&json).ok();
    let field = |row: &serde_json::Value, k: &str| row[k].as_u64().unwrap();
    // Every built-in scene, the random family and the total.
    let scenes = impactset(&["scenes", "--json"]);
    let scenes: Vec<serde_json::Value> = serde_json::from_slice(&scenes.stdout).unwrap();
    assert_eq!(rows.len(), scenes.len() + 2);
    for (row, scene) in rows.iter().zip(&scenes) {
        assert_eq!(row["family"], scene["id"]);
    }
    for row in &rows {
        let classes = ["verified", "loose", "inaccurate", "ray", "pivot_cap", "silent"];
        let sum: u64 = classes.iter().map(|k| field(row, k)).sum();
        assert_eq!(sum, field(row, "lcps"), "{row}: the classes do not add up");
        assert_eq!(field(row, "silent"), 0, "{row}");
        assert!(row["max_verified_violation"].as_f64().unwrap() <= 1e-9, "{row}");
    }
    let total = rows.last().unwrap();
    assert_eq!(total["family"], "all");
    assert!(field(total, "verified") as f64 >= 0.99 * 39000.0, "{total}");
}

#[test]
fn bilateral_constraints_are_shown_warned_about_and_rejected_when_bad() {
    // Two points on a line joined by a rod; the given v⁻ violates it.
    let rod = r#"{"mass_matrix": [[1, 0], [0, 3]], "velocity": [-1, -2],
      "contacts": [{"normal": [1, 0], "tangent": [0, 0], "friction": 0}], "bilateral": [[1, -1]]}"#;
    let path = write("rod.json", rod);
    let out = impactset(&["show", path.to_str().unwrap()]);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("bilateral constraints: 1 rows"), "{stdout}");
    assert!(stderr.contains("rod.json") && stderr.contains("M-orthogonal projection"), "{stderr}");
    // M-orthogonal projection onto x₁ = x₂: the common velocity (1·(−1) + 3·(−2)) / 4.
    let json = impactset(&["show", path.to_str().unwrap(), "--json"]);
    let view: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(view["bilateral_constraints"], 1);
    for x in view["velocity"].as_array().unwrap() {
        assert!((x.as_f64().unwrap() + 1.75).abs() < 1e-15, "{view}");
    }
    assert_rejected("bilateral-row.json", &rod.replace("[[1, -1]]", "[[1, -1, 0]]"), "bilateral[0]");
    assert_rejected("bilateral-rank.json", &rod.replace("[[1, -1]]", "[[1, -1], [0, 1]]"), "bilateral");
    assert_rejected("bilateral-type.json", &rod.replace("[[1, -1]]", "\"rod\""), "bilateral");
}

/// A built-in scene run with its own documented K and h (compass gait's
/// K = 5 accepts about 99 %) gets a note of what it accepted, not a warning
/// to change them; the same shortfall under a user's own `--steps` gets the
/// advice. (The default schedule ends 99.9 % of its impacts within K = 5;
/// the uniform law of the paper ends about 99 %, docs/scenes.md.)
#[test]
fn a_built_in_scene_with_its_own_parameters_gets_no_false_alarm() {
    let out_file = write("first-run.npy", "");
    let out = impactset(&["sample", "compass-gait", "-n", "20000", "--out", out_file.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    let out = impactset(&[
        "sample",
        "compass-gait",
        "-n",
        "20000",
        "--schedule",
        "uniform",
        "--out",
        out_file.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    assert!(stderr.contains("note: compass-gait with its own K = 5"), "{stderr}");
    let out =
        impactset(&["sample", "compass-gait", "-n", "20000", "--steps", "2", "--out", out_file.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("warning: only") && stderr.contains("raise --steps"), "{stderr}");
}
