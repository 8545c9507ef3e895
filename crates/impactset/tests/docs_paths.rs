//! Every path the documentation names exists: README.md and docs/*.md are
//! scanned for
//!
//! * repository paths: any word starting with a top-level folder of the
//!   repository (`crates/`, `python/`, `examples/`, `scripts/`, `docs/`,
//!   `fuzz/`, `.ci/`), in prose, backticks or code blocks, must exist
//!   relative to the repository root;
//! * source file names in backticks (`modes.rs`, `gpu/sampler.rs`,
//!   `shaders/lemke.wgsl`; endings `.rs`, `.py`, `.wgsl`, `.sh`, `.md`)
//!   must end the path of some file of the repository;
//! * relative Markdown links (`[text](docs/cli.md#anchor)`, images
//!   included) must point at an existing file, relative to the document,
//!   and an anchor at one of its headings.
//!
//! URLs are skipped, and so are names of files a user writes (`set.npy`,
//! `table.parquet`): they start with no top-level folder and have no source
//! ending.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The repository's top-level folders a documented path may start with.
const TOP_LEVEL: [&str; 7] = ["crates/", "python/", "examples/", "scripts/", "docs/", "fuzz/", ".ci/"];

/// Endings of source files whose bare or partial names the docs cite.
const SOURCE_ENDINGS: [&str; 5] = [".rs", ".py", ".wgsl", ".sh", ".md"];

/// Folders not searched for source files: build outputs, environments,
/// fuzzing data.
const SKIPPED_FOLDERS: [&str; 6] = ["target", ".git", ".venv", "__pycache__", "corpus", "artifacts"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The documents checked: README.md and every docs/*.md.
fn documents() -> Vec<PathBuf> {
    let root = root();
    let mut docs = vec![root.join("README.md")];
    let mut more: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .expect("docs/ is readable")
        .map(|entry| entry.expect("a docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

/// Every file of the repository as a path relative to the root with `/`
/// separators, outside [`SKIPPED_FOLDERS`].
fn repository_files() -> Vec<String> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) {
        let Ok(entries) = fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            let relative = format!("{prefix}{name}");
            if path.is_dir() {
                if !SKIPPED_FOLDERS.contains(&name.as_str()) {
                    walk(&path, &format!("{relative}/"), out);
                }
            } else {
                out.push(relative);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root(), "", &mut out);
    out
}

/// Characters a path is made of.
fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-')
}

/// A word as a path: without a sentence's final full stop(s).
fn trim_path(word: &str) -> &str {
    word.trim_end_matches('.')
}

/// Words starting with a top-level folder, with their line numbers: at the
/// start of a line or after a character that cannot be part of a path (so
/// `impactset-python/src` and URLs are not taken from their middle).
fn repository_paths(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        for (start, _) in line.char_indices() {
            let before = line[..start].chars().next_back();
            if before.is_some_and(|c| is_path_char(c) || c == ':') {
                continue;
            }
            let rest = &line[start..];
            if !TOP_LEVEL.iter().any(|top| rest.starts_with(top)) {
                continue;
            }
            let end = rest.find(|c: char| !is_path_char(c)).unwrap_or(rest.len());
            found.push((number + 1, trim_path(&rest[..end]).to_string()));
        }
    }
    found
}

/// Spans in single backticks, with their line numbers (code blocks are
/// read by [`repository_paths`] only).
fn code_spans(text: &str) -> Vec<(usize, String)> {
    let mut spans = Vec::new();
    let mut in_block = false;
    for (number, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block {
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let (Some(span), Some(_)) = (parts.next(), parts.next()) {
            spans.push((number + 1, span.to_string()));
        }
    }
    spans
}

/// Markdown link targets `](target)` with their line numbers.
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let mut targets = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            targets.push((number + 1, after[..end].trim().to_string()));
            rest = &after[end..];
        }
    }
    targets
}

/// GitHub's anchor of a heading: lower case, letters, digits, `-` and `_`
/// kept, spaces as `-`, everything else dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|&c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a document's headings (outside code blocks), repeated
/// headings numbered `-1`, `-2` as GitHub does.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block || !line.starts_with('#') {
            continue;
        }
        let base = anchor(line.trim_start_matches('#'));
        let mut name = base.clone();
        let mut k = 0;
        while seen.contains(&name) {
            k += 1;
            name = format!("{base}-{k}");
        }
        seen.insert(name);
    }
    seen
}

#[test]
fn every_path_named_in_the_docs_exists() {
    let root = root();
    let files = repository_files();
    let mut missing = Vec::new();
    for doc in documents() {
        let text = fs::read_to_string(&doc).expect("a readable document");
        let shown = doc.strip_prefix(&root).unwrap_or(&doc).display().to_string();

        for (line, path) in repository_paths(&text) {
            if !root.join(&path).exists() {
                missing.push(format!("{shown}:{line}: `{path}` does not exist"));
            }
        }

        for (line, span) in code_spans(&text) {
            let word = trim_path(span.trim());
            let is_source = SOURCE_ENDINGS.iter().any(|e| word.ends_with(e));
            if !is_source || !word.chars().all(is_path_char) || TOP_LEVEL.iter().any(|t| word.starts_with(t)) {
                continue;
            }
            let suffix = format!("/{word}");
            if !files.iter().any(|f| f == word || f.ends_with(&suffix)) {
                missing.push(format!("{shown}:{line}: no file of the repository is `…/{word}`"));
            }
        }

        let dir = doc.parent().expect("a document's folder");
        for (line, target) in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, fragment) = match target.split_once('#') {
                Some((file, fragment)) => (file, Some(fragment)),
                None => (target.as_str(), None),
            };
            let linked = if file.is_empty() { doc.clone() } else { dir.join(file) };
            if !linked.exists() {
                missing.push(format!("{shown}:{line}: link `{target}`: {file} does not exist"));
                continue;
            }
            if let Some(fragment) = fragment {
                let linked_text = fs::read_to_string(&linked).unwrap_or_default();
                if !anchors(&linked_text).contains(fragment) {
                    missing.push(format!("{shown}:{line}: link `{target}`: no heading #{fragment}"));
                }
            }
        }
    }
    assert!(missing.is_empty(), "paths named in the docs that do not exist:\n{}", missing.join("\n"));
}

#[test]
fn the_scanner_finds_what_it_should() {
    let text = "see `crates/impactset/src/x.rs`, docs/model.md §1 and crates/impactset-python/src/y.rs.\n\
                not https://example.org/docs/z.md nor impactset-python/src/w.rs\n";
    let paths: Vec<String> = repository_paths(text).into_iter().map(|(_, p)| p).collect();
    assert_eq!(paths, ["crates/impactset/src/x.rs", "docs/model.md", "crates/impactset-python/src/y.rs"]);
    assert_eq!(link_targets("[a](docs/a.md#b) and ![c](figures/c.png)")[1].1, "figures/c.png");
    assert_eq!(code_spans("a `b.rs` c `d`\n```\n`e.rs`\n```\n").len(), 2);
    assert!(anchors("# Batch runs: many states\n").contains("batch-runs-many-states"));
    assert!(anchors("## `--shard` and §12\n").contains("--shard-and-12"));
}
