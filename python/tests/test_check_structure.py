"""scripts/check_structure.py, the repository's import-cycle check: a string
that reads like Rust (an error message saying "use the CPU backend; …")
must neither hide a reference nor make one up."""

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
