//! Every fuzz target over its saved corpus (`corpus/<target>/`), without
//! libFuzzer: the inputs that found bugs stay regression tests.

use std::path::Path;

fn run(target: &str, body: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(target);
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| body(&data));
        assert!(outcome.is_ok(), "{target}: {} fails", path.display());
        count += 1;
    }
    assert!(count > 0, "{target}: empty corpus");
}

#[test]
fn problem_file() {
    run("problem_file", impactset_fuzz::problem_file);
}

#[test]
fn npy() {
    run("npy", impactset_fuzz::npy);
}

#[test]
fn routh_step() {
    run("routh_step", impactset_fuzz::routh_step);
}

#[test]
fn lemke() {
    run("lemke", impactset_fuzz::lemke);
}

#[test]
fn reach_input() {
    run("reach_input", impactset_fuzz::reach_input);
}

#[test]
fn extremes_args() {
    run("extremes_args", impactset_fuzz::extremes_args);
}

#[test]
fn restitution_file() {
    run("restitution_file", impactset_fuzz::restitution_file);
}

#[test]
fn reach_merge() {
    run("reach_merge", |data| {
        impactset_fuzz::reach_merge(data);
    });
    // The saved shards exercise both outcomes: merged with every sets file
    // its own, and refused (or merged with sets that are not its own).
    let merged = |name: &str| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/reach_merge").join(name);
        impactset_fuzz::reach_merge(&std::fs::read(path).unwrap())
    };
    for name in ["two-shards", "reversed"] {
        assert_eq!(merged(name), Some(2), "{name}");
    }
    assert_eq!(merged("whole"), Some(1));
    assert_eq!(merged("sets-swapped"), Some(0));
    for name in ["missing-shard", "other-seed", "cut-last-row", "rows-out-of-order", "overlap", "empty"] {
        assert_eq!(merged(name), None, "{name}");
    }
}
