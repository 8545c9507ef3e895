//! `impactset baseline`'s simultaneous outcomes, run as the binary: each
//! is a solution of the LCP (docs/model.md §2, "The acceptance check").

mod common;

use common::impactset;

fn baseline_json(path: &str) -> serde_json::Value {
    let out = impactset(&["baseline", path, "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON on standard output")
}

fn velocities(view: &serde_json::Value) -> Vec<Vec<f64>> {
    view["simultaneous"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["v_plus"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect())
        .collect()
}

/// A block between floor and ceiling sliding at 0.3: friction only slows
/// it, so no outcome slides faster; the slide to 0.05 is listed.
#[test]
fn baseline_lists_no_outcome_faster_than_a_wedged_blocks_slide() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../impactset/tests/data/block-between-floor-and-ceiling.json");
    let view = baseline_json(path);
    assert_eq!(view["simultaneous_method"], "enumerated");
    let v = velocities(&view);
    assert!(v.iter().all(|v| v[0].abs() <= 0.3 + 1e-12), "{v:?}");
    assert!(v.iter().any(|v| (v[0] - 0.05).abs() <= 1e-12 && v[1].abs() <= 1e-12 && v[2].abs() <= 1e-12), "{v:?}");
}

/// The rocking block with μ = 10¹²: both corners stick, `v⁺ = 0`, the only
/// outcome.
#[test]
fn baseline_at_huge_friction_lists_only_the_stop() {
    let file = std::env::temp_dir().join(format!("impactset-baseline-mu-{}.json", std::process::id()));
    let v0 = (2.0 * 9.81 * 0.01f64).sqrt();
    // The rocking block: mass 1, 1 × 2, corners at (∓0.5, −1) of its centre.
    let text = format!(
        r#"{{"mass_matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 0.4166666666666667]], "velocity": [0, -{v0}, 0],
  "contacts": [{{"name": "A", "normal": [0, 1, -0.5], "tangent": [1, 0, 1], "friction": 1e12}},
               {{"name": "B", "normal": [0, 1, 0.5], "tangent": [1, 0, 1], "friction": 1e12}}]}}"#
    );
    std::fs::write(&file, text).unwrap();
    let view = baseline_json(file.to_str().unwrap());
    std::fs::remove_file(&file).ok();
    let v = velocities(&view);
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].iter().all(|x| x.abs() <= 1e-9 * v0), "{v:?}");
}
