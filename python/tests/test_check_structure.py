"""scripts/check_structure.py: the import-cycle check (a string that reads
like Rust, an error message saying "use the CPU backend; …", must neither
hide a reference nor make one up) and the check for references to the
project's history (numbered work items, sessions and commit hashes)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load():
    spec = importlib.util.spec_from_file_location("check_structure", ROOT / "scripts" / "check_structure.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def crate(tmp_path: Path, files: dict[str, str]) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for name, text in files.items():
        (src / name).write_text(text)
    return src


def test_a_cycle_behind_an_error_message_is_found(tmp_path):
    # b's message says "use …;": read as a `use` item it swallowed the
    # reference to a's constant that follows it, and the cycle went unseen.
    cs = load()
    src = crate(
        tmp_path,
        {
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": "pub const LIMIT: usize = 1;\npub fn f() -> crate::b::E { crate::b::E::X }\n",
            "b.rs": (
                "pub enum E {\n"
                '    #[error("too large (use the CPU backend, or {max})", max = super::a::LIMIT)]\n'
                "    X,\n"
                '    #[error("held on the GPU; use the CPU")]\n'
                "    Y,\n"
                "}\n"
            ),
        },
    )
    graph = cs.RustCrate(src).edges()
    assert src / "a.rs" in graph[src / "b.rs"]
    assert [sorted(p.name for p in c) for c in cs.cycles(graph)] == [["a.rs", "b.rs"]]


def test_a_path_in_a_message_is_no_reference_but_a_serde_path_is(tmp_path):
    cs = load()
    src = crate(
        tmp_path,
        {
            "lib.rs": "mod a;\nmod b;\nmod c;\n",
            "a.rs": 'pub fn f() -> &\'static str { "see crate::b::g; it is a path in prose" }\n',
            "b.rs": "pub fn g() {}\n",
            "c.rs": '#[derive(Serialize)]\npub struct S {\n    #[serde(serialize_with = "crate::b::g")]\n    x: f64,\n}\n',
        },
    )
    graph = cs.RustCrate(src).edges()
    assert graph[src / "a.rs"] == set()
    assert graph[src / "c.rs"] == {src / "b.rs"}


def test_history_references_are_found_and_ordinary_words_are_not(tmp_path):
    # The findings are assembled from parts so that this file holds none.
    cs = load()
    number = " ".join
    (tmp_path / "docs").mkdir()
    (tmp_path / "scripts").mkdir()
    (tmp_path / "README.md").write_text(f"Fixed in {number(['session', '28'])}.\nSee docs.\n")
    (tmp_path / "docs" / "a.md").write_text(
        f"Measured at `{'f7d8' + 'b2c'}`, the {number(['round', '2'])} figures.\n"
        "Ten rounds at most; round-off; a hash-like word: deadbeef; 1048576 samples.\n"
    )
    (tmp_path / "scripts" / "b.py").write_text(
        f"# the guard ({'iss' + 'ue'} 33)\nfor round in range(3):\n    x = round(y, 2)\n"
    )
    findings = cs.history_references(tmp_path)
    assert sorted(findings) == sorted(
        [
            f"README.md:1: history reference {number(['session', '28'])!r}",
            f"docs/a.md:1: history reference {number(['round', '2'])!r}",
            f"docs/a.md:1: history reference {'f7d8' + 'b2c'!r}",
            f"scripts/b.py:1: history reference {'iss' + 'ue 33'!r}",
            f"scripts/b.py:1: history reference {'(iss' + 'ue'!r}",
        ]
    )


def test_a_foreign_commit_hash_is_allowed_only_where_listed(tmp_path):
    cs = load()
    (tmp_path / "docs").mkdir()
    (rel, digest), _ = next(iter(cs.FOREIGN_HASHES.items()))
    (tmp_path / rel).write_text(f"provenance: commit `{digest}`\n")
    (tmp_path / "docs" / "other.md").write_text(f"provenance: commit `{digest}`\n")
    assert cs.history_references(tmp_path) == [f"docs/other.md:1: history reference {digest!r}"]


def test_a_function_is_counted_from_its_fn_to_its_closing_brace(tmp_path):
    # Braces inside strings, characters and comments are no braces; a
    # declaration without a body and the tests' functions are not counted.
    cs = load()
    body = "    let x = 1;\n" * 5
    path = tmp_path / "a.rs"
    path.write_text(
        "pub trait T {\n    fn declared(&self) -> [u8; 4];\n}\n"
        "/// Doc.\npub fn short(\n    a: usize,\n) -> usize {\n" + body + "    let s = \"}}}\"; let c = '{'; // }\n"
        "    a\n}\n"
        "#[cfg(test)]\nmod tests {\n    fn helper() {\n" + body + "    }\n}\n"
    )
    assert cs.rust_functions(path) == [("short", 5, 4 + 5 + 2)]


def test_long_functions_names_each_over_the_limit(tmp_path, monkeypatch):
    cs = load()
    src = crate(tmp_path, {"lib.rs": "fn long() {\n" + "    f();\n" * cs.MAX_FUNCTION_LINES + "}\nfn ok() {}\n"})
    monkeypatch.setattr(cs, "ROOT", tmp_path)
    monkeypatch.setattr(cs, "rust_crates", lambda: [src])
    monkeypatch.setattr(cs, "LONG_FUNCTIONS", {})
    (tmp_path / "python" / "impactset").mkdir(parents=True)
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "s.py").write_text("def fine():\n    return 1\n")
    found = cs.long_functions()
    assert found == [
        f"src/lib.rs:1: function long has {cs.MAX_FUNCTION_LINES + 2} lines (over 120); split it into named steps"
    ]
