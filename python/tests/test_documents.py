"""The documents' code blocks are all of languages that the tests run
(conftest.py at the repository root: Sybil runs ```python, ```sh and
```json blocks, the core crate's doctests the ```rust block of
docs/library.md); a block in another language would be silently left out."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN = {"python", "sh", "json"}
FENCE = re.compile(r"^```(\S*)", re.MULTILINE)


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_every_code_block_of_the_documents_is_one_the_tests_run() -> None:
    found: dict[str, int] = {}
    for path in documents():
        languages = FENCE.findall(path.read_text(encoding="utf-8"))[::2]  # opening fences
        for language in languages:
            name = f"{path.relative_to(ROOT)}: {language or '(none)'}"
            if language in RUN:
                found[language] = found.get(language, 0) + 1
            elif language == "rust":
                assert path.name == "library.md", name
                lib = (ROOT / "crates" / "impactset" / "src" / "lib.rs").read_text(encoding="utf-8")
                assert 'include_str!("../../../docs/library.md")' in lib, name
            else:
                # Untagged fences are the formulas of docs/model.md.
                assert language == "" and path.name == "model.md", name
    assert found.get("python", 0) >= 10 and found.get("sh", 0) >= 10, found
