//! `--backend auto` on the command line: the GPU when the problem fits.

use impactset::gpu::{GpuContext, GpuError};

/// Whether a GPU adapter exists; with `IMPACTSET_REQUIRE_GPU=1` a missing
/// adapter fails the test instead of skipping it.
fn gpu_available() -> bool {
    match GpuContext::new() {
        Ok(_) => true,
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
            false
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
    if !gpu_available() {
        return;
    }
    let small =
        impactset_json(&["sample", "box-wall", "--backend", "auto", "--selection", "all", "-n", "64", "--json"]);
    assert!(small["backend"].as_str().unwrap().starts_with("gpu"), "{}", small["backend"]);
    assert!(small["backend_reason"].as_str().unwrap().contains("contacts"), "{}", small["backend_reason"]);
    // Five planar contacts: 7⁵ = 16 807 mode tuples a step, within the GPU's
    // 42 875.
    let five = impactset_json(&["sample", "disk-stack", "--backend", "auto", "-n", "8", "--steps", "2", "--json"]);
    assert!(five["backend"].as_str().unwrap().starts_with("gpu"), "{}", five["backend"]);
    assert!(five["backend_reason"].as_str().unwrap().contains("16807"), "{}", five["backend_reason"]);
    // Four spatial contacts with eight directions: 35⁴ tuples a step.
    let large = impactset_json(&["sample", "cube-flat", "--backend", "auto", "-n", "8", "--steps", "2", "--json"]);
    assert_eq!(large["backend"], "cpu");
    let reason = large["backend_reason"].as_str().unwrap();
    assert!(reason.contains("1500625") && reason.contains("42875"), "{reason}");
    let compare = impactset_json(&["compare", "rocking-block", "--selection", "all", "-n", "64", "--json"]);
    assert_eq!(compare["selection"], "all");
    assert!(compare["agreement_fraction"].as_f64().unwrap() >= 0.99, "{compare}");
}
