//! Restitution from the command line (docs/model.md §4b): the built-in
//! bouncing scenes run as documented without advice to change them, a bad
//! coefficient is named, and the GPU runs restitution under `all` where
//! it models it and refuses it elsewhere (100 or more mode tuples a step).

mod common;

use std::process::Output;

use common::impactset;

fn text(out: &Output) -> (String, String) {
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn the_bouncing_scenes_run_as_documented_and_every_sample_rebounds_or_holds() {
    for scene in ["rocking-block-bouncing", "cradle"] {
        let out = impactset(&["sample", scene, "-n", "512", "--selection", "random-lemke"]);
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "{scene}: {stderr}");
        assert!(stdout.contains("accepted 512 / terminated 512"), "{scene}: {stdout}");
        assert!(!stderr.contains("raise"), "{scene}: advice on a built-in scene run as documented: {stderr}");
    }
    let (stdout, _) = text(&impactset(&["modes", "rocking-block-bouncing", "-n", "256"]));
    assert!(stdout.contains("A rebounds, B rebounds"), "{stdout}");
}

#[test]
fn show_prints_the_coefficients_and_a_bad_one_is_named() {
    let (stdout, _) = text(&impactset(&["show", "cradle"]));
    assert!(stdout.contains("restitution"), "{stdout}");
    let dir = common::scratch("restitution", "coefficient");
    let path = dir.join("bad.json");
    std::fs::write(
        &path,
        r#"{"mass_matrix": [[1, 0], [0, 1]], "velocity": [0, -1],
            "contacts": [{"normal": [0, 1], "tangent": [1, 0], "friction": 0.5, "restitution": 1.5}]}"#,
    )
    .unwrap();
    let out = impactset(&["show", path.to_str().unwrap()]);
    let (_, stderr) = text(&out);
    assert!(!out.status.success());
    assert!(stderr.contains("contacts[0].restitution") && stderr.contains("1.5"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn the_gpu_runs_bouncing_friction_under_all_and_refuses_many_mode_tuples() {
    let all = ["--selection", "all"];
    // What the GPU runs, not the set: the scenes' inelastic step sizes (a
    // few steps a sample; a software adapter takes minutes at the
    // expansion's, docs/model.md §4b).
    let (block, cradle) = (["--step-size", "0.3", "--steps", "20"], ["--step-size", "0.25", "--steps", "40"]);
    // The bouncing rocking block's corners have friction: its expansions
    // widen their cones, steps the GPU enumerates on their twinned steps.
    let sample = ["sample", "rocking-block-bouncing", "-n", "16", "--backend", "gpu"];
    let out = impactset(&[&sample[..], &block, &all].concat());
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("gpu ("), "{stdout}");
    // A box on an edge bouncing on two spatial corners: 35² mode tuples a
    // step, which the CPU certifies, keeping Lemke's impulses: refused.
    let dir = common::scratch("restitution", "gpu-edge");
    let path = dir.join("edge.json");
    let corner = |y: f64| {
        format!(
            r#"{{"normal": [0, 0, 1, -0.3, {y}, 0], "tangents": [[1, 0, 0, 0, -0.64, 0.3], [0, 1, 0, 0.64, 0, {minus}]],
                "friction": 0.5, "restitution": 0.5}}"#,
            minus = -y
        )
    };
    let mass = "[[1,0,0,0,0,0],[0,1,0,0,0,0],[0,0,1,0,0,0],[0,0,0,0.17,0,0],[0,0,0,0,0.17,0],[0,0,0,0,0,0.17]]";
    let file = format!(
        r#"{{"mass_matrix": {mass}, "velocity": [0.3, 0, -1, 0, 0, 0], "friction_directions": 8,
            "contacts": [{}, {}]}}"#,
        corner(0.5),
        corner(-0.5)
    );
    std::fs::write(&path, file).unwrap();
    let edge = ["sample", path.to_str().unwrap(), "-n", "16", "--backend"];
    let out = impactset(&[&edge[..], &["gpu"], &all].concat());
    let (_, stderr) = text(&out);
    assert!(!out.status.success(), "the GPU ran restitution under `all` on 35² tuples a step");
    assert!(stderr.contains("restitution") && stderr.contains("100 mode tuples"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let out = impactset(&[&edge[..], &["auto"], &all].concat());
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("cpu backend"), "{stdout}");
    // The cradle's contacts are frictionless: the GPU runs its `all` (and
    // `auto` runs it on the CPU, which is faster at its 81 tuples a step).
    let out = impactset(&[&["sample", "cradle", "-n", "16", "--backend", "gpu"][..], &cradle, &all].concat());
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("gpu ("), "{stdout}");
    let out = impactset(&[&["sample", "cradle", "-n", "16", "--backend", "auto"][..], &cradle, &all].concat());
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("cpu backend") && stdout.contains("81 > 64"), "{stdout}");
}

/// `reach` over bouncing states of one configuration: the table and sets do
/// not depend on `--threads` or `--window` (a worker's workspace serves
/// several states, and each state's `E⁻` and scale are its own), and each
/// state's set is `impactset sample` of that state with its state seed.
#[test]
fn reach_with_restitution_does_not_depend_on_threads_or_window_and_each_state_is_its_sample() {
    let dir = common::scratch("restitution", "reach");
    let rows: Vec<String> =
        (0..5).map(|k| format!("{:?},{:?},0", -0.2 + 0.1 * k as f64, -0.22 - 0.11 * k as f64)).collect();
    let velocities = dir.join("v.csv");
    std::fs::write(&velocities, rows.join("\n") + "\n").unwrap();
    let s = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let run = |tag: &str, extra: &[&str]| {
        let (table, sets) = (dir.join(format!("{tag}.csv")), dir.join(format!("{tag}.npy")));
        let mut args = vec!["reach", "rocking-block-bouncing", "--velocities"];
        let (v, t, n) = (s(&velocities), s(&table), s(&sets));
        args.extend([v.as_str(), "-n", "32", "--selection", "random-lemke", "--seed", "4", "-q"]);
        args.extend(["--out", t.as_str(), "--sets", n.as_str()]);
        args.extend(extra);
        let out = impactset(&args);
        assert!(out.status.success(), "{extra:?}: {}", text(&out).1);
        (std::fs::read_to_string(&table).unwrap(), impactset::io::read_npy(&sets).unwrap())
    };
    let (table, sets) = run("one", &["--threads", "1"]);
    for (tag, extra) in
        [("two", &["--threads", "2", "--window", "7"][..]), ("window", &["--threads", "1", "--window", "7"])]
    {
        let (other, other_sets) = run(tag, extra);
        assert_eq!(other, table, "{extra:?}");
        assert_eq!(other_sets, sets, "{extra:?}");
    }
    // State k's rows of the sets are `impactset sample` at v_k with its seed.
    let lines: Vec<&str> = table.lines().filter(|l| !l.starts_with('#')).collect();
    let header = cells(lines[0]);
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let mut spec: serde_json::Value =
        serde_json::from_str(&text(&impactset(&["export", "rocking-block-bouncing"])).0).unwrap();
    let mut offset = 0;
    for (k, line) in lines[1..].iter().enumerate() {
        let cells = cells(line);
        let v: Vec<f64> = (0..3).map(|i| cells[col(&format!("v_minus_{i}"))].parse().unwrap()).collect();
        spec["velocity"] = v.into();
        let (problem, single) = (dir.join(format!("state{k}.json")), dir.join(format!("state{k}.npy")));
        std::fs::write(&problem, spec.to_string()).unwrap();
        let (p, o) = (s(&problem), s(&single));
        let args =
            ["sample", &p, "-n", "32", "--seed", &cells[col("seed")], "--selection", "random-lemke", "--out", &o];
        let out = impactset(&args);
        assert!(out.status.success(), "state {k}: {}", text(&out).1);
        let accepted: usize = cells[col("accepted")].parse().unwrap();
        assert_eq!(impactset::io::read_npy(&single).unwrap(), sets[offset..offset + accepted], "state {k}");
        offset += accepted;
    }
    assert_eq!(offset, sets.len());
}

/// A CSV line's cells (quoted cells hold commas, no quotes).
fn cells(line: &str) -> Vec<String> {
    let (mut out, mut cell, mut quoted) = (Vec::new(), String::new(), false);
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cell)),
            _ => cell.push(ch),
        }
    }
    out.push(cell);
    out
}
