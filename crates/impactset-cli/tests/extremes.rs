//! `impactset extremes` and `impactset sample --anchors` (docs/model.md §5d):
//! every outcome they report is a member of the set (no contact approaching,
//! no energy gained), the search never returns less than the samples, the
//! output does not depend on the thread count, and bad directions are input
//! errors.

mod common;

use common::{assert_input_error, impactset};

fn json(args: &[&str]) -> serde_json::Value {
    let out = impactset(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn extremes_beat_the_samples_and_do_not_depend_on_threads() {
    let args = |threads: &'static str| {
        vec![
            "extremes",
            "cube-edge",
            "--direction",
            "vz=0,0,1,0,0,0",
            "--random",
            "3",
            "-n",
            "256",
            "--budget",
            "128",
            "--seed",
            "4",
            "--threads",
            threads,
            "--json",
        ]
    };
    let one = json(&args("1"));
    let two = json(&args("2"));
    assert_eq!(one, two);
    let rows = one.as_array().unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0]["name"], "vz");
    for row in rows {
        let (value, sampled) = (row["value"].as_f64().unwrap(), row["sampled"].as_f64().unwrap());
        assert!(value >= sampled, "{row}");
        // The value is cᵀv⁺ of the outcome it reports.
        let c: Vec<f64> = row["direction"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
        let v: Vec<f64> = row["v_plus"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
        let dot: f64 = c.iter().zip(&v).map(|(a, b)| a * b).sum();
        assert!((dot - value).abs() <= 1e-12 * value.abs().max(1.0), "{row}");
        assert!(!row["schedule"].as_array().unwrap().is_empty(), "{row}");
    }
}

#[test]
fn a_direction_of_the_wrong_length_or_none_is_an_input_error() {
    assert_input_error(&["extremes", "cube-edge", "--direction", "x=1,0"], &["--direction x=1,0", "6 finite numbers"]);
    assert_input_error(&["extremes", "cube-edge", "--direction", "x=1,0,0,0,0,nan"], &["--direction"]);
    assert_input_error(&["extremes", "cube-edge"], &["--direction", "--random"]);
}

/// `--anchors`: the contacts resolved one after the other in every order,
/// labelled; each an outcome of the model.
#[test]
fn anchors_are_labelled_outcomes_of_the_model() {
    let report =
        json(&["sample", "cube-flat", "-n", "64", "--selection", "random-lemke", "--anchors", "720", "--json"]);
    let anchors = report["anchors"].as_array().unwrap();
    assert_eq!(anchors.len(), 24, "4! orders");
    let labels: std::collections::BTreeSet<&str> = anchors.iter().map(|a| a["label"].as_str().unwrap()).collect();
    assert_eq!(labels.len(), 24);
    assert!(labels.contains("order A → B → C → D"), "{labels:?}");
    // Pre-impact: (0.3, 0, −1) m/s at unit mass, no rotation: E⁻ = ½ (0.09 + 1).
    let energy_before = 0.5 * (0.3f64.powi(2) + 1.0);
    for a in anchors {
        assert!(a["energy"].as_f64().unwrap() <= energy_before * (1.0 + 1e-9), "{a}");
        for u in a["normal_velocities"].as_array().unwrap() {
            assert!(u.as_f64().unwrap() >= -1e-9, "{a}");
        }
    }
    let without = json(&["sample", "cube-flat", "-n", "64", "--selection", "random-lemke", "--json"]);
    assert!(without.get("anchors").is_none());
}

/// Counts past the limits of docs/model.md §5d (a direction's 2²⁴
/// selection streams, 2¹⁷ directions) are input errors before anything is
/// allocated or searched: `--random 2⁶⁴−1` used to panic ("capacity
/// overflow"), `--random 10¹¹` to abort on allocation, `--budget 2⁶⁴−1` to
/// run forever; `analyze`'s extremes check the same.
#[test]
fn counts_past_the_limits_are_input_errors_not_panics_or_hangs() {
    let max = "18446744073709551615";
    let e = |args: &[&str], expect: &[&str]| assert_input_error(&[&["extremes", "cube-edge"], args].concat(), expect);
    e(&["--random", max], &["--random 18446744073709551615: at most 131072 (2¹⁷) directions"]);
    e(&["--random", "100000000000"], &["--random 100000000000: at most 131072"]);
    e(&["--random", "131073"], &["--random 131073: at most 131072"]);
    e(&["--random", "1", "--budget", max], &["--budget 18446744073709551615: at most 16777216 (2²⁴) schedules"]);
    e(&["--random", "1", "--budget", "16777217"], &["--budget 16777217: at most 16777216"]);

    let d = common::scratch("extremes", "analyze-limits");
    let (set, held) = (d.join("set.npy"), d.join("held.npy"));
    for (path, seed) in [(&set, "1"), (&held, "2")] {
        let out = impactset(&["sample", "cube-edge", "-n", "64", "--seed", seed, "--out", path.to_str().unwrap()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let base = ["analyze", set.to_str().unwrap(), "--problem", "cube-edge", "--heldout", held.to_str().unwrap()];
    for (flag, value, expect) in [
        ("--extremes-directions", max, "at most 131072"),
        ("--extremes-directions", "100000000000", "at most 131072"),
        ("--extremes-budget", max, "at most 16777216"),
    ] {
        assert_input_error(&[&base[..], &[flag, value]].concat(), &[&format!("{flag} {value}: {expect}")]);
    }
    std::fs::remove_dir_all(d).ok();
}

/// `--direction` names the entry that is not finite, and `extremes`
/// refuses an empty or repeated name as `reach` does (one check for both).
#[test]
fn direction_entries_and_names_are_checked_as_reach_checks_them() {
    let e = |args: &[&str], expect: &[&str]| assert_input_error(&[&["extremes", "cube-edge"], args].concat(), expect);
    e(&["--direction", "z=0,0,nan,0,0,0"], &["--direction z=0,0,nan,0,0,0: entry 2 is NaN, not a finite number"]);
    e(&["--direction", "z=0,0,1e999,0,0,0"], &["entry 2 is inf, not a finite number"]);
    e(&["--direction", "z=0,0,x,0,0,0"], &["entry 2 (\"x\") is not a number"]);
    e(&["--direction", " =0,0,1,0,0,0"], &["--direction  =0,0,1,0,0,0: the name is empty"]);
    let twice = ["--direction", "up=0,0,1,0,0,0", "--direction", "up=0,0,-1,0,0,0"];
    e(&twice, &["--direction up: the name is given twice"]);
    // A given name may not take a random direction's.
    e(&["--direction", "random-0=0,0,1,0,0,0", "--random", "1"], &["--direction random-0: the name is given twice"]);
    let d = common::scratch("extremes", "reach-names");
    let out = d.join("t.csv");
    let reach = ["reach", "rocking-block", "-n", "8", "-q", "--out", out.to_str().unwrap()];
    assert_input_error(
        &[&reach[..], &["--direction", "up=0,1,0", "--direction", "up=0,-1,0"]].concat(),
        &["direction up: the name is given twice"],
    );
    assert_input_error(&[&reach[..], &["--direction", "=0,1,0"]].concat(), &["the name is empty"]);
    std::fs::remove_dir_all(d).ok();
}
