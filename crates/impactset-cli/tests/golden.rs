//! The command line's outputs are a published interface: NPY, CSV, summary
//! and trajectory files of every built-in scene and selection rule must stay
//! byte for byte what the reference files in `tests/golden/` hold (written by
//! the command line before the library was split into crates; regenerate them
//! only for a deliberate, documented change of results). The reference runs
//! use `--schedule uniform`, the law of the caps of those releases. The
//! summaries' baselines are compared to round-off (see
//! `assert_same_baselines`), and so are `all`'s outputs: a step `all`
//! certifies unique keeps its Lemke solution, where the reference releases
//! searched for the same `Δv` (`assert_same_npy_numbers`; bytes still equal
//! on every scene whose steps are too small for the bound).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn golden() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn scratch(name: &str) -> PathBuf {
    common::scratch("golden", name)
}

fn impactset(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_impactset")).args(args).output().expect("impactset runs");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// Scenes added after the reference files were written: the ones that
/// bounce (restitution, checked against closed forms and conservation laws
/// in `crates/impactset/tests/restitution.rs`).
const NEWER: [&str; 2] = ["rocking-block-bouncing", "cradle"];

/// The scene ids of `impactset scenes` that have reference files.
fn scenes() -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_impactset")).arg("scenes").output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .filter(|id| !NEWER.contains(&id.as_str()))
        .collect()
}

fn assert_same_bytes(new: &Path, reference: &Path) {
    let a = std::fs::read(new).unwrap();
    let b = std::fs::read(reference).unwrap_or_else(|e| panic!("{}: {e}", reference.display()));
    assert!(a == b, "{} differs from {}", new.display(), reference.display());
}

/// Round-off, as a share of the largest number a file holds.
const ROUND_OFF: f64 = 1e-12;

/// Two NPY files of `f64`s with the same header hold the same numbers to
/// [`ROUND_OFF`] of the reference's largest (bytes equal where the
/// arithmetic is the same).
fn assert_same_npy_numbers(new: &Path, reference: &Path) {
    let (a, b) = (std::fs::read(new).unwrap(), std::fs::read(reference).unwrap());
    if a == b {
        return;
    }
    // NPY 1.0: magic, version, header length (u16 LE), header, data.
    let data = |bytes: &[u8]| -> (Vec<u8>, Vec<f64>) {
        assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00", "{}: NPY 1.0", new.display());
        let start = 10 + u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        let header = bytes[..start].to_vec();
        assert!(String::from_utf8_lossy(&header).contains("'<f8'"), "{}: f64 data", new.display());
        (header, bytes[start..].chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect())
    };
    let ((ha, va), (hb, vb)) = (data(&a), data(&b));
    assert!(ha == hb && va.len() == vb.len(), "{} differs in shape from {}", new.display(), reference.display());
    let scale = vb.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    for (k, (x, y)) in va.iter().zip(&vb).enumerate() {
        assert!((x - y).abs() <= ROUND_OFF * scale, "{}: entry {k} {x} vs {y}", new.display());
    }
}

/// Two JSON values with the same structure and strings, their numbers
/// equal to [`ROUND_OFF`] of the reference's largest.
fn assert_same_json_numbers(new: &serde_json::Value, reference: &serde_json::Value, stem: &str) {
    fn largest(v: &serde_json::Value) -> f64 {
        match v {
            serde_json::Value::Number(x) => x.as_f64().unwrap().abs(),
            serde_json::Value::Array(a) => a.iter().map(largest).fold(0.0, f64::max),
            serde_json::Value::Object(o) => o.values().map(largest).fold(0.0, f64::max),
            _ => 0.0,
        }
    }
    fn walk(a: &serde_json::Value, b: &serde_json::Value, tol: f64, at: &str) {
        use serde_json::Value::{Array, Number, Object};
        match (a, b) {
            (Number(x), Number(y)) => {
                let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                assert!((x - y).abs() <= tol, "{at}: {x} vs {y}");
            }
            (Array(x), Array(y)) => {
                assert_eq!(x.len(), y.len(), "{at}: lengths");
                x.iter().zip(y).enumerate().for_each(|(k, (x, y))| walk(x, y, tol, &format!("{at}[{k}]")));
            }
            (Object(x), Object(y)) => {
                assert_eq!(x.keys().collect::<Vec<_>>(), y.keys().collect::<Vec<_>>(), "{at}: fields");
                x.iter().for_each(|(k, v)| walk(v, &y[k], tol, &format!("{at}.{k}")));
            }
            _ => assert_eq!(a, b, "{at}"),
        }
    }
    walk(new, reference, ROUND_OFF * largest(reference), stem);
}

/// A summary without the fields that measure the run rather than its results,
/// and without the `schedule` field the reference files predate (every
/// reference run used the `uniform` law, the only one then).
fn summary_results(path: &Path) -> serde_json::Value {
    let mut value: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let fields = value.as_object_mut().unwrap();
    fields.remove("elapsed_s");
    // How `all` solved its steps (some certified unique by a bound the
    // reference releases did not have), not what the steps gave.
    fields.remove("certified_steps");
    if let Some(schedule) = fields.remove("schedule") {
        assert_eq!(schedule, "uniform", "{}", path.display());
    }
    value
}

/// The summary's baselines: the simultaneous outcomes are now found by the
/// step enumerator (docs/model.md §2) instead of the brute force or one
/// Lemke solve of the reference releases, so they agree to round-off, not
/// bit for bit, and several come in the search's order. Each reference
/// outcome must have a new one of the same kind (`simultaneous …`,
/// `sequential from …`) within `1e-12` of the largest velocity entry, and
/// the counts must be equal.
fn assert_same_baselines(new: &mut serde_json::Value, reference: &mut serde_json::Value, stem: &str) {
    let take = |v: &mut serde_json::Value| v.as_object_mut().unwrap().remove("baselines").unwrap_or_default();
    let (new, reference) = (take(new), take(reference));
    let outcomes = |v: &serde_json::Value| -> Vec<(String, Vec<f64>)> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .map(|o| {
                        let label = o["label"].as_str().unwrap();
                        let kind = label.split('/').next().unwrap().trim_end_matches(char::is_numeric).trim();
                        let v = o["v_plus"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
                        (kind.to_string(), v)
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (new, reference) = (outcomes(&new), outcomes(&reference));
    assert_eq!(new.len(), reference.len(), "{stem}: baselines {new:?} vs {reference:?}");
    let scale = reference.iter().flat_map(|(_, v)| v.iter().map(|x| x.abs())).fold(1.0, f64::max);
    for (kind, v) in &reference {
        let matched = new.iter().any(|(k, w)| {
            k == kind && w.len() == v.len() && w.iter().zip(v).all(|(a, b)| (a - b).abs() <= 1e-12 * scale)
        });
        assert!(matched, "{stem}: reference baseline {kind} {v:?} not among {new:?}");
    }
}

#[test]
fn sample_outputs_match_the_reference_files() {
    let dir = scratch("sample");
    let scenes = scenes();
    assert_eq!(scenes.len(), 12, "{scenes:?}");
    for scene in &scenes {
        for rule in ["lemke", "random-lemke", "all"] {
            let stem = format!("{scene}-{rule}");
            let npy = dir.join(format!("{stem}.npy"));
            let summary = dir.join(format!("{stem}.summary.json"));
            let trajectories = dir.join(format!("{stem}.trajectories.json"));
            impactset(&[
                "sample",
                scene,
                "-n",
                "64",
                "--seed",
                "7",
                "--selection",
                rule,
                "--schedule",
                "uniform",
                "--threads",
                "2",
                "--out",
                npy.to_str().unwrap(),
                "--summary",
                summary.to_str().unwrap(),
                "--trajectories",
                trajectories.to_str().unwrap(),
                "--trajectory-count",
                "2",
            ]);
            let reference = golden().join(format!("{stem}.summary.json"));
            let (mut new, mut reference) = (summary_results(&summary), summary_results(&reference));
            assert_same_baselines(&mut new, &mut reference, &stem);
            if rule == "all" {
                // A step `all` certifies unique keeps its Lemke solution
                // where the reference releases searched for it: the same
                // outcomes to round-off (docs/model.md §5b).
                assert_same_npy_numbers(&npy, &golden().join(format!("{stem}.npy")));
                let json =
                    |p: &Path| -> serde_json::Value { serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap() };
                let trajectories_reference = golden().join(format!("{stem}.trajectories.json"));
                assert_same_json_numbers(&json(&trajectories), &json(&trajectories_reference), &stem);
                // Steps whose search was cut short by the node budget and
                // completed by Lemke solves: the budget is now ten times the
                // reference releases' (the one such step of `cube-flat` is
                // searched to the end, with the same outcome), never fewer.
                let take = |v: &mut serde_json::Value| v.as_object_mut().unwrap().remove("fallback_steps").unwrap();
                let (cut, cut_reference) = (take(&mut new), take(&mut reference));
                assert!(
                    cut.as_u64() <= cut_reference.as_u64(),
                    "{stem}: {cut} steps cut short, {cut_reference} before"
                );
                assert_same_json_numbers(&new, &reference, &stem);
            } else {
                assert_same_bytes(&npy, &golden().join(format!("{stem}.npy")));
                assert_same_bytes(&trajectories, &golden().join(format!("{stem}.trajectories.json")));
                assert_eq!(new, reference, "{stem}: summary");
            }
        }
        let csv = dir.join(format!("{scene}.csv"));
        impactset(&[
            "sample",
            scene,
            "-n",
            "16",
            "--seed",
            "7",
            "--selection",
            "random-lemke",
            "--schedule",
            "uniform",
            "--out",
            csv.to_str().unwrap(),
        ]);
        assert_same_bytes(&csv, &golden().join(format!("{scene}.csv")));
    }
    std::fs::remove_dir_all(dir).ok();
}

/// A scene exported as JSON or TOML samples bit for bit like the built-in
/// scene, under every selection rule.
#[test]
fn exported_scenes_sample_like_the_built_in_ones() {
    let dir = scratch("export");
    for scene in scenes() {
        for format in ["json", "toml"] {
            let file = dir.join(format!("{scene}.{format}"));
            let mut args = vec!["export", scene.as_str(), "--out", file.to_str().unwrap()];
            if format == "toml" {
                args.push("--toml");
            }
            impactset(&args);
            for rule in ["lemke", "random-lemke", "all"] {
                let npy = |source: &str, tag: &str| {
                    let out = dir.join(format!("{scene}-{rule}-{tag}.npy"));
                    impactset(&[
                        "sample",
                        source,
                        "-n",
                        "48",
                        "--seed",
                        "11",
                        "--selection",
                        rule,
                        "--out",
                        out.to_str().unwrap(),
                    ]);
                    out
                };
                let built_in = npy(&scene, "built-in");
                let exported = npy(file.to_str().unwrap(), format);
                assert_same_bytes(&exported, &built_in);
            }
        }
    }
    std::fs::remove_dir_all(dir).ok();
}
