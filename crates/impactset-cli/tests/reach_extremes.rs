//! `impactset reach --extremes` and the extremes check of `analyze`: every
//! `<direction>_extreme` is at least `<direction>_max`, the table is the
//! same for any thread count and shard split, a merge refuses mixing
//! tables with and without the search, and `analyze` reports the gap next
//! to ε with what the certificate certifies.

mod common;

use std::path::{Path, PathBuf};

use common::impactset;

fn ok(args: &[&str]) -> String {
    let out = impactset(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn refused(args: &[&str], expect: &str) {
    let out = impactset(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(expect), "{args:?}: {err}");
}

fn dir(test: &str) -> PathBuf {
    common::scratch("reach-extremes", test)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Five `cube-edge` pre-impact velocities (the scene's, scaled), as CSV.
fn velocities(dir: &Path) -> PathBuf {
    let spec: serde_json::Value = serde_json::from_str(&ok(&["export", "cube-edge"])).unwrap();
    let v: Vec<f64> = serde_json::from_value(spec["velocity"].clone()).unwrap();
    let text: String = (0..5)
        .map(|k| {
            let row: Vec<String> = v.iter().map(|x| format!("{:?}", x * (0.8 + 0.1 * k as f64))).collect();
            row.join(",") + "\n"
        })
        .collect();
    let path = dir.join("v.csv");
    std::fs::write(&path, text).unwrap();
    path
}

/// Header and rows of a table's CSV (quoted cells hold no quotes here).
fn csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let split = |l: &str| -> Vec<String> {
        let (mut cells, mut cell, mut quoted) = (Vec::new(), String::new(), false);
        for ch in l.chars() {
            match ch {
                '"' => quoted = !quoted,
                ',' if !quoted => cells.push(std::mem::take(&mut cell)),
                c => cell.push(c),
            }
        }
        cells.push(cell);
        cells
    };
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header = split(lines.next().unwrap());
    (header, lines.map(split).collect())
}

const COMMON: [&str; 12] = [
    "reach",
    "cube-edge",
    "-n",
    "32",
    "--seed",
    "3",
    "--selection",
    "random-lemke",
    "--extremes",
    "--extremes-budget",
    "16",
    "-q",
];

#[test]
fn extremes_bound_the_support_and_do_not_depend_on_threads_or_shards() {
    let d = dir("shards");
    let v = velocities(&d);
    fn args<'a>(v: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
        [&COMMON[..], &["--velocities", v], extra].concat()
    }
    let whole = d.join("whole.csv");
    ok(&args(s(&v), &["--out", s(&whole), "--threads", "2"]));
    let (header, rows) = csv(&whole);
    let extremes: Vec<usize> = (0..header.len()).filter(|&j| header[j].ends_with("_extreme")).collect();
    assert_eq!(extremes.len(), 12, "{header:?}");
    assert!(header.contains(&"extremes_gap".to_string()));
    for row in &rows {
        for &j in &extremes {
            let stem = header[j].trim_end_matches("_extreme");
            let max = header.iter().position(|h| *h == format!("{stem}_max")).unwrap();
            let (e, m): (f64, f64) = (row[j].parse().unwrap(), row[max].parse().unwrap());
            assert!(e >= m, "state {}: {} {e} < {m}", row[0], header[j]);
        }
    }
    let one = d.join("one.csv");
    ok(&args(s(&v), &["--out", s(&one), "--threads", "1"]));
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&whole).unwrap());
    let shards: Vec<PathBuf> = (0..2).map(|i| d.join(format!("shard{i}.csv"))).collect();
    for (i, t) in shards.iter().enumerate() {
        ok(&args(s(&v), &["--out", s(t), "--shard", &format!("{i}/2")]));
    }
    let merged = d.join("merged.csv");
    ok(&["reach-merge", s(&shards[1]), s(&shards[0]), "--out", s(&merged)]);
    assert_eq!(std::fs::read(&merged).unwrap(), std::fs::read(&whole).unwrap());
    // A shard without the search, or with another budget, is another batch.
    let plain = d.join("plain.csv");
    let plain_args: Vec<&str> = args(s(&v), &["--out", s(&plain), "--shard", "1/2"])
        .into_iter()
        .filter(|a| !["--extremes", "--extremes-budget", "16"].contains(a))
        .collect();
    ok(&plain_args);
    refused(&["reach-merge", s(&shards[0]), s(&plain), "--out", s(&d.join("m2.csv"))], "extremes");
    let other = d.join("other.csv");
    ok(&[
        &COMMON[..9],
        &["--extremes-budget", "17", "-q", "--velocities", s(&v), "--out", s(&other), "--shard", "1/2"],
    ]
    .concat());
    refused(&["reach-merge", s(&shards[0]), s(&other), "--out", s(&d.join("m3.csv"))], "extremes");
    // The budget goes with the search.
    refused(&["reach", "cube-edge", "--extremes-budget", "8", "--out", s(&d.join("x.csv"))], "--extremes");
}

#[test]
fn analyze_reports_the_extremes_gap_next_to_epsilon() {
    let d = dir("analyze");
    let (set, held) = (d.join("set.npy"), d.join("held.npy"));
    ok(&["sample", "cube-edge", "-n", "1024", "--out", s(&set)]);
    ok(&["sample", "cube-edge", "-n", "256", "--seed", "9", "--out", s(&held)]);
    let base = ["analyze", s(&set), "--problem", "cube-edge", "--heldout", s(&held)];
    let json: serde_json::Value =
        serde_json::from_str(&ok(&[&base[..], &["--json", "--extremes-budget", "32"]].concat())).unwrap();
    let gap = &json["extremes_gap"];
    assert_eq!(
        (gap["anchors"].as_u64(), gap["directions"].as_u64(), gap["budget"].as_u64()),
        (Some(2), Some(4), Some(32))
    );
    let (absolute, relative) = (gap["gap"]["absolute"].as_f64().unwrap(), gap["gap"]["relative"].as_f64().unwrap());
    assert!(absolute >= 0.0 && absolute.is_finite());
    let scale = json["epsilon"]["velocity_norm"].as_f64().unwrap();
    assert!((relative - absolute / scale).abs() < 1e-12);
    let certifies = json["epsilon"]["certificate"]["certifies"].as_str().unwrap();
    assert!(certifies.starts_with("coverage under the sampling law"), "{certifies}");
    let text = ok(&[&base[..], &["--extremes-budget", "32"]].concat());
    assert!(text.contains("extremes check") && text.contains("coverage under the sampling law"), "{text}");
    let off: serde_json::Value =
        serde_json::from_str(&ok(&[&base[..], &["--json", "--no-extremes"]].concat())).unwrap();
    assert!(off.get("extremes_gap").is_none());
    // The same seed, the same figures.
    let again: serde_json::Value =
        serde_json::from_str(&ok(&[&base[..], &["--json", "--extremes-budget", "32"]].concat())).unwrap();
    assert_eq!(again["extremes_gap"], json["extremes_gap"]);
}
