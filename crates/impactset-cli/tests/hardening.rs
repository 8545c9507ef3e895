//! The command line on inputs that used to hang, panic or leave partial
//! files: exit 2 with one line naming the flag or file, field and value;
//! outputs that are complete or absent.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{assert_input_error, impactset, listing};

fn scratch(name: &str) -> PathBuf {
    common::scratch("cli-hardening", name)
}

#[test]
fn unusable_output_paths_fail_before_sampling() {
    let dir = scratch("paths");
    let d = dir.to_str().unwrap();
    let missing = dir.join("no/such/set.npy");
    // -n 10¹² would run for hours: the check must come first.
    for (flag, path) in [
        ("--out", missing.to_str().unwrap()),
        ("--summary", d),
        ("--plot", d),
        ("--trajectories", d),
        ("--out", &format!("{d}/x.npy")),
    ] {
        let mut args = vec!["sample", "rocking-block", "-n", "1000000000000", flag, path];
        if path.ends_with("x.npy") {
            args.extend(["--summary", path]);
        }
        assert_input_error(&args, &[flag, path]);
    }
    assert!(listing(&dir).is_empty(), "{:?}", listing(&dir));
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn out_of_domain_options_are_input_errors() {
    assert_input_error(&["sample", "rocking-block", "--threads", "100000"], &["--threads 100000"]);
    assert_input_error(&["sample", "rocking-block", "--steps", "0"], &["--steps 0"]);
    assert_input_error(
        &["sample", "rocking-block", "-n", "10", "--first-index", "18446744073709551610"],
        &["--first-index 18446744073709551610"],
    );
    assert_input_error(&["sample", "rocking-block", "--heldout", "2000000", "--json"], &["--heldout 2000000"]);
    assert_input_error(&["sample", "rocking-block", "--trajectory-count", "100000"], &["--trajectory-count 100000"]);
    // The ε figures keep the net in memory: 3 · 8 bytes × 2³⁰ samples is 24 GiB.
    assert_input_error(
        &["sample", "rocking-block", "-n", "1073741824", "--heldout", "10", "--json"],
        &["--heldout 10", "MiB"],
    );
}

#[test]
fn a_bad_problem_file_names_file_field_and_value() {
    let dir = scratch("files");
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let base = r#"{"mass_matrix": [[1, 0], [0, 1]], "velocity": [0, -1],
        "contacts": [{"normal": [0, NORMAL], "tangent": [1, 0], "friction": 0.5}]DIRS}"#;
    let file = |normal: &str, dirs: &str| base.replace("NORMAL", normal).replace("DIRS", dirs);
    let big = write("big.json", &file("1e154", ""));
    assert_input_error(&["show", &big], &["big.json", "contacts[0].normal[1]", "1e154"]);
    assert_input_error(&["sample", &big, "--selection", "lemke"], &["big.json", "contacts[0].normal[1]", "1e154"]);
    let trailing = write("trailing.json", &(file("1", "") + "}garbage"));
    assert_input_error(&["sample", &trailing], &["trailing.json", "after the problem object"]);
    let nan = write("nan.json", &file("1", "").replace("0.5", "NaN"));
    // serde_json refuses the literal NaN: the message names the field.
    assert_input_error(&["show", &nan], &["nan.json"]);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn analyze_reads_fortran_order_as_c_order() {
    let dir = scratch("fortran");
    let c_path = dir.join("c.npy");
    let out = impactset(&["sample", "compass-gait", "-n", "64", "--out", c_path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = impactset::io::read_npy(&c_path).unwrap();
    let (r, n) = (rows.len(), rows[0].len());
    // The same array in Fortran order: column after column.
    let header = format!("{{'descr': '<f8', 'fortran_order': True, 'shape': ({r}, {n}), }}");
    let text = format!("{header}{}\n", " ".repeat(63 - (header.len() + 10) % 64));
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((text.len() as u16).to_le_bytes());
    bytes.extend(text.as_bytes());
    for j in 0..n {
        for row in &rows {
            bytes.extend(row[j].to_le_bytes());
        }
    }
    let f_path = dir.join("f.npy");
    std::fs::write(&f_path, bytes).unwrap();
    let analyze = |set: &Path| {
        let out = impactset(&[
            "analyze",
            set.to_str().unwrap(),
            "--problem",
            "compass-gait",
            "--reference",
            c_path.to_str().unwrap(),
            "--json",
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v.as_object_mut().unwrap().remove("set");
        v
    };
    let (a, b) = (analyze(&c_path), analyze(&f_path));
    assert_eq!(a, b);
    assert_eq!(a["epsilon"]["covering_radius"]["absolute"], 0.0);
    std::fs::remove_dir_all(dir).ok();
}

#[cfg(unix)]
#[test]
fn sigterm_leaves_the_previous_output_and_no_partial_file() {
    let dir = scratch("sigterm");
    let out = dir.join("set.npy");
    let previous = b"the previous output".to_vec();
    std::fs::write(&out, &previous).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_impactset"))
        .args(["sample", "disk-stack", "-n", "100000000", "--threads", "1", "--out", out.to_str().unwrap()])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the temporary file to appear, then interrupt.
    let started = (0..600).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        listing(&dir).len() > 1
    });
    assert!(started, "no temporary output appeared");
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(128 + libc::SIGTERM), "{status:?}");
    assert_eq!(std::fs::read(&out).unwrap(), previous);
    assert_eq!(listing(&dir), ["set.npy"]);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn low_acceptance_is_explained() {
    let out = impactset(&["sample", "rocking-block", "-n", "32", "--steps", "1"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("warning:") && stderr.contains("--steps"), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Lemke fallback steps"), "{stdout}");
}

/// A field of the wrong type says what it expected and what it got, in
/// words ("the number 3", not serde's "expected value"), and a very large
/// number is written in scientific notation, not as 301 digits.
#[test]
fn a_mistyped_or_huge_field_is_named_with_its_value_as_given() {
    let dir = scratch("typed");
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let base = r#"{"mass_matrix": [[1, 0], [0, 1]], "velocity": [0, -1],
        "contacts": [{"normal": [0, 1], "tangent": [1, 0], "friction": MU}]REST}"#;
    let file = |mu: &str, rest: &str| base.replace("MU", mu).replace("REST", rest);
    let schedule = write("schedule.json", &file("0.5", r#", "schedule": 3"#));
    let law = "schedule: expected a string naming a schedule law (mixed, uniform, extreme, ordered, held), got the number 3 (line 2, column";
    assert_input_error(&["show", &schedule], &["schedule.json", law]);
    let toml = write(
        "schedule.toml",
        "mass_matrix = [[1.0, 0.0], [0.0, 1.0]]\nvelocity = [0.0, -1.0]\nschedule = true\n\
         [[contacts]]\nnormal = [0.0, 1.0]\ntangent = [1.0, 0.0]\nfriction = 0.5\n",
    );
    assert_input_error(
        &["show", &toml],
        &[
            "schedule.toml: schedule: expected a string naming a schedule law",
            "got the boolean true (line 3, column 12)",
        ],
    );
    let huge = write("huge.json", &file("-1e300", ""));
    assert_input_error(&["show", &huge], &["huge.json: contacts[0].friction: -1e300 is negative"]);
    let e = write("e.json", &file("0.5", "").replace(r#""friction": 0.5"#, r#""friction": 0.5, "restitution": 1e300"#));
    assert_input_error(&["show", &e], &["e.json: contacts[0].restitution: 1e300 is not a coefficient of restitution"]);
    std::fs::remove_dir_all(dir).ok();
}
