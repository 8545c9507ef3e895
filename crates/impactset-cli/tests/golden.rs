//! The command line's outputs are a published interface: NPY, CSV, summary
//! and trajectory files of every built-in scene and selection rule must stay
//! byte for byte what the reference files in `tests/golden/` hold (written by
//! the command line before the library was split into crates; regenerate them
//! only for a deliberate, documented change of results). The reference runs
//! use `--schedule uniform`, the law of the caps of those releases. The
//! summaries' baselines are compared to round-off (see
//! `assert_same_baselines`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn golden() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("impactset-golden-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
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
            assert_same_bytes(&npy, &golden().join(format!("{stem}.npy")));
            assert_same_bytes(&trajectories, &golden().join(format!("{stem}.trajectories.json")));
            let reference = golden().join(format!("{stem}.summary.json"));
            let (mut new, mut reference) = (summary_results(&summary), summary_results(&reference));
            assert_same_baselines(&mut new, &mut reference, &stem);
            assert_eq!(new, reference, "{stem}: summary");
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
