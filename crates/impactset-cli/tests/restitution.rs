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
    // The bouncing rocking block's corners have friction: its expansions
    // widen their cones, steps the GPU enumerates on their twinned steps.
    let out = impactset(&[&["sample", "rocking-block-bouncing", "-n", "16", "--backend", "gpu"][..], &all].concat());
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
    let out = impactset(&[&["sample", "cradle", "-n", "16", "--backend", "gpu"][..], &all].concat());
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("gpu ("), "{stdout}");
    let out = impactset(&[&["sample", "cradle", "-n", "16", "--backend", "auto"][..], &all].concat());
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("cpu backend") && stdout.contains("81 > 64"), "{stdout}");
}
