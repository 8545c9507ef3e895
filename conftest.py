"""The code blocks of README.md and docs/*.md run as tests, through Sybil.

* ```python blocks each run on their own, in a fresh namespace: a block that
  needs a name another block defined fails, as it would for a reader who
  copies it. A block that starts with ``>>>`` is a doctest: what it prints
  is checked (ELLIPSIS, NORMALIZE_WHITESPACE and NUMBER, as for the
  package's doctests: ``0.42`` matches any value that rounds to it).
* ```sh blocks run with bash (``set -euo pipefail``) and must exit 0;
  ``impactset`` is the built command line ($IMPACTSET_CLI, else
  target/release/impactset), ``cargo run --release --`` runs that binary
  (the build is the test command's own), and ``python`` is this
  interpreter.
* ```json blocks are problem files: ``impactset show`` must read them.
* ``<!-- skip: next "reason" -->`` before a block skips it, with its reason;
  ``<!-- invisible-code-block: sh ... -->`` runs commands the reader does
  not see (the input files a block names, e.g. docs/batch.md's ``v.npy``).

(The ```rust block of docs/library.md is a doctest of the core crate,
crates/impactset/src/lib.rs, run by ``cargo test``.)

Every block runs in an empty temporary folder of its document (shared by
the document's blocks, in order), which links the repository's examples/
so that ``python examples/x.py`` works as written.
"""

from __future__ import annotations

import os
import subprocess
import sys
from doctest import ELLIPSIS, NORMALIZE_WHITESPACE
from pathlib import Path

import pytest

try:
    from sybil import Document, Example, Sybil
    from sybil.evaluators.doctest import NUMBER
    from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser, SkipParser
except ModuleNotFoundError as error:
    raise ImportError(
        "the code blocks of README.md and docs/*.md are tested with Sybil: "
        'pip install "sybil>=10,<11" (scripts/test-all.sh does)'
    ) from error

ROOT = Path(__file__).resolve().parent


_GIVEN = os.environ.get("IMPACTSET_CLI")
CLI = (
    Path(_GIVEN).absolute()
    if _GIVEN
    else ROOT / "target" / "release" / ("impactset.exe" if os.name == "nt" else "impactset")
)


class SelfContainedPythonParser(PythonCodeBlockParser):
    """Python blocks (plain or doctest), each starting from an empty
    namespace: the first example of every block clears the document's."""

    def __call__(self, document: Document):
        for block in self.codeblock_parser(document):
            source = block.parsed
            if source.startswith(">>>"):
                regions = list(self.doctest_parser(source, document.path))
                for region in regions:
                    region.adjust(block, source)
            else:
                regions = [block]
            regions[0].evaluator = fresh_namespace(regions[0].evaluator)
            yield from regions


def fresh_namespace(evaluate):
    def evaluator(example: Example):
        example.namespace.clear()
        return evaluate(example)

    return evaluator


def run_shell(example: Example) -> None:
    source = str(example.parsed).replace("cargo run --release -- ", f"{CLI} ")
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", source], capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(f"exit status {done.returncode}\n{source}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}")


def show_problem_file(example: Example) -> None:
    path = Path("problem.json")
    path.write_text(str(example.parsed))
    done = subprocess.run([str(CLI), "show", str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(f"impactset show refused the problem file:\n{done.stderr}")


_FOLDERS: dict[str, Path] = {}


@pytest.fixture
def _markdown_folder(request, tmp_path_factory, monkeypatch) -> None:
    """The document's folder as the working directory; the command line
    (as `impactset`) and this interpreter's folder (`python`) first on PATH."""
    document = str(request.node.path)
    folder = _FOLDERS.get(document)
    if folder is None:
        folder = tmp_path_factory.mktemp(Path(document).stem)
        (folder / "examples").symlink_to(ROOT / "examples")
        _FOLDERS[document] = folder
    bin_dir = tmp_path_factory.getbasetemp() / "markdown-bin"
    if not bin_dir.exists():
        bin_dir.mkdir()
        (bin_dir / "impactset").symlink_to(CLI)
    monkeypatch.chdir(folder)
    path = os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), os.environ["PATH"]])
    monkeypatch.setenv("PATH", path)


pytest_collect_file = Sybil(
    parsers=[
        SkipParser(),
        SelfContainedPythonParser(doctest_optionflags=ELLIPSIS | NORMALIZE_WHITESPACE | NUMBER),
        CodeBlockParser("sh", run_shell),
        CodeBlockParser("json", show_problem_file),
    ],
    patterns=["README.md", "docs/*.md"],
    excludes=["docs/figures/*"],
    fixtures=["_markdown_folder"],
).pytest()
