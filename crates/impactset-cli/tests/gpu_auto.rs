//! `--backend auto` on the command line: a hardware GPU where the problem
//! fits and runs faster there, else the CPU, saying why.

use impactset::gpu::{GpuContext, GpuError};

/// Whether a GPU adapter exists, and whether it is software (lavapipe);
/// with `IMPACTSET_REQUIRE_GPU=1` a missing adapter fails the test instead
/// of skipping it.
fn gpu_available() -> Option<bool> {
    match GpuContext::new() {
        Ok(context) => Some(context.is_software()),
        Err(e @ (GpuError::NoAdapter | GpuError::Device(_))) => {
            assert!(
                std::env::var("IMPACTSET_REQUIRE_GPU").map_or(true, |v| v != "1"),
                "IMPACTSET_REQUIRE_GPU=1 but no GPU: {e}"
            );
            // Straight to standard error, which the test harness does not
            // capture: a skipped GPU test shows in the log.
            use std::io::Write;
            let _ =
                writeln!(std::io::stderr(), "notice: skipping GPU test (IMPACTSET_REQUIRE_GPU=1 fails instead): {e}");
            None
        }
        Err(e) => panic!("GPU context: {e}"),
    }
}

/// Runs the `impactset` binary; its JSON on standard output.
fn impactset_json(args: &[&str]) -> serde_json::Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_impactset"))
        .args(args)
        .env("XDG_RUNTIME_DIR", std::env::var("XDG_RUNTIME_DIR").unwrap_or_else(|_| "/tmp".into()))
        .output()
        .expect("impactset runs");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON on standard output")
}

#[test]
fn cli_auto_runs_all_on_the_gpu_when_the_problem_fits() {
    let Some(software) = gpu_available() else { return };
    // Two planar contacts, 7² = 49 mode tuples a step: a hardware GPU runs
    // them; a software adapter (lavapipe, on the CI's cores) is passed over.
    let small =
        impactset_json(&["sample", "box-wall", "--backend", "auto", "--selection", "all", "-n", "64", "--json"]);
    let (backend, reason) = (small["backend"].as_str().unwrap(), small["backend_reason"].as_str().unwrap());
    if software {
        assert!(backend == "cpu" && reason.contains("software"), "{backend}: {reason}");
    } else {
        assert!(backend.starts_with("gpu") && reason.contains("49 ≤ 64"), "{backend}: {reason}");
    }
    // Five planar contacts: 7⁵ = 16 807 mode tuples a step, within the GPU's
    // 42 875 but faster on the CPU, which `gpu` still runs on the GPU.
    let five = impactset_json(&["sample", "disk-stack", "--backend", "auto", "-n", "8", "--steps", "2", "--json"]);
    assert_eq!(five["backend"], "cpu");
    assert!(five["backend_reason"].as_str().unwrap().contains("16807 > 64"), "{}", five["backend_reason"]);
    let asked = impactset_json(&["sample", "disk-stack", "--backend", "gpu", "-n", "2", "--steps", "2", "--json"]);
    assert!(asked["backend"].as_str().unwrap().starts_with("gpu"), "{}", asked["backend"]);
    // Four spatial contacts with eight directions: 35⁴ tuples a step.
    let large = impactset_json(&["sample", "cube-flat", "--backend", "auto", "-n", "8", "--steps", "2", "--json"]);
    assert_eq!(large["backend"], "cpu");
    let reason = large["backend_reason"].as_str().unwrap();
    assert!(reason.contains("1500625") && reason.contains("42875"), "{reason}");
    let compare = impactset_json(&["compare", "rocking-block", "--selection", "all", "-n", "64", "--json"]);
    assert_eq!(compare["selection"], "all");
    assert!(compare["agreement_fraction"].as_f64().unwrap() >= 0.99, "{compare}");
}

/// `compare` with restitution under `all`: on lavapipe the host runs most
/// samples again on the CPU (they are the CPU's own), so the agreement is
/// over the samples the device ran, with the re-runs counted beside it (it
/// used to read 1.0000 with 62 of 64 samples re-run).
#[test]
fn compare_reports_agreement_over_the_samples_the_device_ran() {
    let Some(_) = gpu_available() else { return };
    // The bouncing block at the coarse step it is built from (h = 0.3,
    // K = 20; its default is the expansion's step, model.md §4b), at which
    // the host re-ran most samples: what the report must keep apart. At the
    // default step lavapipe takes minutes.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_impactset"))
        .args(["export", "rocking-block-bouncing"])
        .output()
        .expect("impactset runs");
    let mut problem: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the exported problem");
    problem["step_size"] = 0.3.into();
    problem["steps"] = 20.into();
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("gpu-auto-bouncing-coarse.json");
    std::fs::write(&path, problem.to_string()).unwrap();
    let args = ["compare", path.to_str().unwrap(), "--selection", "all", "-n", "64"];
    let c = impactset_json(&[&args[..], &["--json"]].concat());
    let count = |k: &str| c[k].as_u64().unwrap_or_else(|| panic!("{k}: {c}"));
    let (samples, device, reruns) = (count("samples"), count("device_samples"), count("host_reruns"));
    assert_eq!(samples, 64);
    assert_eq!(device + reruns, samples, "{c}");
    match c["agreement_fraction"].as_f64() {
        None => assert_eq!(device, 0, "no agreement only where the device ran no sample: {c}"),
        Some(a) => {
            // A share of the device's samples: a whole number of them.
            let agreeing = a * device as f64;
            assert!(device > 0 && (agreeing - agreeing.round()).abs() < 1e-9, "{c}");
        }
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_impactset")).args(args).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("over the {device} samples the device ran")), "{text}");
    assert!(text.contains(&format!("{reruns} (the CPU's own samples, left out of the agreement)")), "{text}");
}
