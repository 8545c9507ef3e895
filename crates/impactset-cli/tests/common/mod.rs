//! What the command line's hostile-input tests share: running the binary,
//! a scratch folder, a folder's listing and the one-line input error check.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `impactset` binary run with `args`.
pub fn impactset(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_impactset")).args(args).output().expect("the binary runs")
}

/// An empty folder of this test process, `impactset-<suite>-<pid>-<name>`.
pub fn scratch(suite: &str, name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("impactset-{suite}-{}-{name}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The names in `dir`, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// Exit 2, one line on standard error holding every `expect`, no panic.
pub fn assert_input_error(args: &[&str], expect: &[&str]) {
    let out = impactset(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
    for e in expect {
        assert!(stderr.contains(e), "{args:?}: `{e}` missing: {stderr}");
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
}
