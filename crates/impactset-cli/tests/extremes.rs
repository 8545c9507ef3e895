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
