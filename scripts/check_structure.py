#!/usr/bin/env python3
"""Structural checks of the source tree, run by scripts/test-all.sh:

1. No import cycle between source files: of the Rust crates (a file that
   names an item of another file through `crate::`, `super::` or
   `self::` paths depends on it; an item a `mod.rs` re-exports counts as
   its defining file's) and of the Python package (`from .x import`).
2. No source file over MAX_LINES lines outside tests (`tests/`, a module
   file `tests.rs`, a file's `#[cfg(test)]` module) and shaders, except
   the files in LARGE, each held to the length it has now until it is
   split (a ratchet: it may shrink, not grow).
3. No function over MAX_FUNCTION_LINES lines outside tests: a Rust `fn`
   counted from the line of its `fn` keyword to that of its closing brace
   (comments and literals blanked first, then braces matched; `#[cfg(test)]`
   and `#[test]` items, test module files and `tests/` folders skipped), a
   Python function of the package or of scripts/ from its `def` to its last
   line. LONG_FUNCTIONS lists those still to be split, each held to the
   length it has now (the same ratchet as LARGE).
4. No reference to the project's own history in what a user or a reader of
   the code sees: README.md, docs/, and every source, test, benchmark,
   script, example and fuzz file (`.md`, `.rs`, `.wgsl`, `.py`, `.sh`,
   `.toml`, `.yml`, and the scripts of `.ci/`). A work-item, session or
   sitting number (the word followed by a number: `#` and a hyphen
   allowed between, a plural too), "round" followed by a number, an
   opening parenthesis followed by the word "issue", and, in the Markdown
   documents, a commit hash (7 to 40 hexadecimal digits with at least one
   letter and one digit) are findings. What a change did belongs in its
   commit message; a figure names its machine, date and command. A hash
   that names another project's commit (a data set's provenance) is
   listed in FOREIGN_HASHES with the reason.

Exits 1 with one line per finding, 0 when the tree is clean.

    python3 scripts/check_structure.py
"""

from __future__ import annotations

import ast
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAX_LINES = 500

# Files longer than MAX_LINES that are still to be split, with
# their length when this list was written: none may grow.
LARGE = {}


MAX_FUNCTION_LINES = 120

# Functions longer than MAX_FUNCTION_LINES that are being split elsewhere,
# with their length when this list was written: none may grow, and each
# entry goes once its function is split.
LONG_FUNCTIONS: dict[tuple[str, str], int] = {}


def rust_crates() -> list[pathlib.Path]:
    return sorted(p.parent / "src" for p in ROOT.glob("crates/*/Cargo.toml") if (p.parent / "src").is_dir())


def module_dir(file: pathlib.Path) -> pathlib.Path:
    """The folder that holds `file`'s child modules."""
    if file.name in ("mod.rs", "lib.rs", "main.rs"):
        return file.parent
    return file.parent / file.stem


def module_file(folder: pathlib.Path, name: str) -> pathlib.Path | None:
    for candidate in (folder / f"{name}.rs", folder / name / "mod.rs"):
        if candidate.is_file():
            return candidate
    return None


# Character literals (kept, so that '"' opens no string), raw strings and
# strings (emptied: a message such as "use the CPU backend; …" is no `use`
# item); a string that is a path alone (serde's `serialize_with = "super::x::f"`)
# is a reference, and kept.
LITERAL = re.compile(r"'(?:\\.|[^\\'])'|r(#*)\".*?\"\1|\"(?:\\.|[^\"\\])*\"", re.S)
KEPT = re.compile(r"'.*'|\"(?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+\"", re.S)
USE = re.compile(r"\b(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", re.S)
PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")


def expand(tree: str) -> list[str]:
    """`a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e`."""
    tree = re.sub(r"\s+", "", tree)
    if "{" not in tree:
        return [tree.split(" as ")[0]]
    head, _, rest = tree.partition("{")
    body = rest[: rest.rfind("}")]
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        depth += ch == "{"
        depth -= ch == "}"
        if ch == "," and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    return [p for part in parts if part for p in expand(head + part)]


def strip_comments(text: str) -> str:
    text = LITERAL.sub(lambda m: m.group(0) if KEPT.fullmatch(m.group(0)) else '""', text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line.split("//")[0] for line in text.splitlines())


def code_without_tests(text: str) -> str:
    """The file before its `#[cfg(test)] mod tests` (tests may use anything)."""
    cut = re.search(r"#\[cfg\(test\)\]\s*(?:pub\s+)?mod\s+\w+\s*\{", text)
    return text[: cut.start()] if cut else text


class RustCrate:
    def __init__(self, src: pathlib.Path) -> None:
        self.src = src
        self.root = src / "lib.rs" if (src / "lib.rs").is_file() else src / "main.rs"
        self.files = sorted(src.rglob("*.rs"))
        self.text = {f: strip_comments(code_without_tests(f.read_text())) for f in self.files}
        # Names each module file re-exports from a child: name -> path.
        self.reexports: dict[pathlib.Path, dict[str, list[str]]] = {}
        for f, text in self.text.items():
            names: dict[str, list[str]] = {}
            for m in USE.finditer(text):
                if not re.match(r"\s*pub", text[m.start() : m.start() + 4]):
                    continue
                for path in expand(m.group(1)):
                    segments = path.split("::")
                    if segments[0] in ("crate", "super", "self", "std", "core", "alloc"):
                        continue
                    names[segments[-1]] = ["self", *segments]
            self.reexports[f] = names

    def resolve(self, origin: pathlib.Path, segments: list[str]) -> pathlib.Path | None:
        """The file that defines the item `segments` names from `origin`."""
        head, *rest = segments
        if head == "crate":
            folder, file = self.src, self.root
        elif head == "self":
            folder, file = module_dir(origin), origin
        else:  # super
            parent = module_dir(origin).parent
            file = module_file(parent.parent, parent.name) if parent != self.src else self.root
            if file is None:
                return None
            folder = parent
        for depth, name in enumerate(rest):
            child = module_file(folder, name)
            if child is not None:
                file, folder = child, module_dir(child)
                continue
            through = self.reexports.get(file, {}).get(name)
            if through is not None and depth == len(rest) - 1 and through[1] != name:
                found = self.resolve(file, [through[0], *through[1:]])
                return found or file
            return file
        return file

    def edges(self) -> dict[pathlib.Path, set[pathlib.Path]]:
        graph: dict[pathlib.Path, set[pathlib.Path]] = {f: set() for f in self.files}
        for f, text in self.text.items():
            paths = [p for m in USE.finditer(text) for p in expand(m.group(1))]
            reexported = {tuple(p) for p in self.reexports[f].values()}
            paths = [p for p in paths if tuple(["self", *p.split("::")]) not in reexported]
            paths += [m.group(1) + m.group(2) for m in PATH.finditer(USE.sub("", text))]
            for path in paths:
                segments = path.split("::")
                if segments[0] not in ("crate", "super", "self"):
                    continue
                target = self.resolve(f, segments)
                if target is not None and target != f and not is_ancestor_module(target, f):
                    graph[f].add(target)
        return graph


def is_ancestor_module(candidate: pathlib.Path, file: pathlib.Path) -> bool:
    """`mod.rs`/`lib.rs` files that declare `file` (a child may name its parent)."""
    if candidate.name not in ("mod.rs", "lib.rs", "main.rs"):
        return candidate.with_suffix("") in file.parents
    return candidate.parent in file.parents


def python_edges() -> dict[pathlib.Path, set[pathlib.Path]]:
    package = ROOT / "python" / "impactset"
    files = sorted(package.glob("*.py"))
    graph: dict[pathlib.Path, set[pathlib.Path]] = {f: set() for f in files}
    for f in files:
        for node in ast.walk(ast.parse(f.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                targets = [node.module] if node.module else [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("impactset."):
                targets = [node.module.split(".")[1]]
            for t in targets:
                target = package / f"{t.split('.')[0]}.py"
                if target.is_file() and target != f and target.name != "__init__.py":
                    graph[f].add(target)
    return graph


def cycles(graph: dict[pathlib.Path, set[pathlib.Path]]) -> list[list[pathlib.Path]]:
    """One cycle per strongly connected component of more than one file."""
    index: dict[pathlib.Path, int] = {}
    low: dict[pathlib.Path, int] = {}
    stack: list[pathlib.Path] = []
    on_stack: set[pathlib.Path] = set()
    found: list[list[pathlib.Path]] = []

    def visit(v: pathlib.Path) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def long_files() -> list[str]:
    findings = []
    sources = [p for src in rust_crates() for p in src.rglob("*.rs") if p.name != "tests.rs"]
    sources += sorted((ROOT / "python" / "impactset").glob("*.py"))
    for path in sorted(sources):
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text()
        lines = len((code_without_tests(text) if path.suffix == ".rs" else text).splitlines())
        limit = LARGE.get(rel, MAX_LINES)
        if lines > limit:
            why = f"at most {limit} until it is split" if rel in LARGE else f"over {MAX_LINES}"
            findings.append(f"{rel}: {lines} lines ({why})")
    for rel in LARGE:
        path = ROOT / rel
        if not path.is_file():
            findings.append(f"{rel}: listed in LARGE but gone; remove it from the list")
        elif len(code_without_tests(path.read_text()).splitlines()) <= MAX_LINES:
            findings.append(f"{rel}: within {MAX_LINES} lines now; remove it from LARGE")

    return findings


RAW_STRING = re.compile(r'b?r(#*)"')
CHAR = re.compile(r"'(?:\\(?:u\{[0-9a-fA-F]+\}|x..|.)|[^\\'])'")
TEST_ATTR = re.compile(r"#\[(?:cfg\((?:all\()?test\b[^\]]*|test)\]")
TEST_MOD = re.compile(r"#\[cfg\((?:all\()?test\b[^\]]*\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;")
FN = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")


def blanked(text: str) -> str:
    """`text` with comments and string and character literals as spaces,
    every newline kept (so that line numbers hold and no brace inside a
    literal is counted)."""
    out: list[str] = []
    i, n = 0, len(text)

    def blank(piece: str) -> str:
        return re.sub(r"[^\n]", " ", piece)

    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                step = 2 if text.startswith(("/*", "*/"), j) else 1
                depth += (text.startswith("/*", j)) - (text.startswith("*/", j))
                j += step
        elif (m := RAW_STRING.match(text, i)) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = text.find('"' + m.group(1), m.end())
            j = n if close < 0 else close + 1 + len(m.group(1))
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
        elif text[i] == "'" and (m := CHAR.match(text, i)):
            j = m.end()
        else:
            out.append(text[i])
            i += 1
            continue
        out.append(blank(text[i:j]))
        i = j
    return "".join(out)


def closing_brace(text: str, opening: int) -> int:
    depth = 0
    for j in range(opening, len(text)):
        depth += (text[j] == "{") - (text[j] == "}")
        if depth == 0:
            return j
    return len(text) - 1


def body_start(text: str, i: int) -> int | None:
    """The `{` that opens the body of the item whose signature starts at
    `i`; None when the item ends in `;` first (a declaration)."""
    depth = 0
    for j in range(i, len(text)):
        ch = text[j]
        depth += (ch in "([") - (ch in ")]")
        if depth == 0 and ch == ";":
            return None
        if depth == 0 and ch == "{":
            return j
    return None


def without_test_items(text: str) -> str:
    """`text` with every `#[cfg(test)]` or `#[test]` item blanked."""
    for m in reversed(list(TEST_ATTR.finditer(text))):
        start = body_start(text, m.end())
        if start is not None:
            end = closing_brace(text, start) + 1
            text = text[: m.start()] + re.sub(r"[^\n]", " ", text[m.start() : end]) + text[end:]
    return text


def test_module_files(src: pathlib.Path) -> set[pathlib.Path]:
    """Files declared as `#[cfg(test)] mod name;`."""
    found = set()
    for f in src.rglob("*.rs"):
        for m in TEST_MOD.finditer(f.read_text()):
            child = module_file(module_dir(f), m.group(1))
            if child is not None:
                found.add(child)
    return found


def rust_functions(path: pathlib.Path) -> list[tuple[str, int, int]]:
    """(name, first line, lines) of each `fn` with a body outside tests."""
    text = without_test_items(blanked(path.read_text()))
    found = []
    for m in FN.finditer(text):
        start = body_start(text, m.end())
        if start is None:
            continue
        first = text.count("\n", 0, m.start()) + 1
        last = text.count("\n", 0, closing_brace(text, start)) + 1
        found.append((m.group(1), first, last - first + 1))
    return found


def python_functions(path: pathlib.Path) -> list[tuple[str, int, int]]:
    return [
        (node.name, node.lineno, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno is not None
    ]


def long_functions() -> list[str]:
    """Check 3: one line per function over MAX_FUNCTION_LINES, longest first."""
    functions: list[tuple[str, str, int, int]] = []
    for src in rust_crates():
        tests = test_module_files(src)
        for path in sorted(src.rglob("*.rs")):
            if path.name == "tests.rs" or path in tests or "tests" in path.relative_to(src).parts:
                continue
            rel = path.relative_to(ROOT).as_posix()
            functions += [(rel, name, line, n) for name, line, n in rust_functions(path)]
    for path in sorted((ROOT / "python" / "impactset").glob("*.py")) + sorted((ROOT / "scripts").glob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        functions += [(rel, name, line, n) for name, line, n in python_functions(path)]
    findings = []
    for rel, name, line, n in sorted(functions, key=lambda f: -f[3]):
        limit = LONG_FUNCTIONS.get((rel, name), MAX_FUNCTION_LINES)
        if n > limit:
            why = (
                f"at most {limit} until it is split" if (rel, name) in LONG_FUNCTIONS else f"over {MAX_FUNCTION_LINES}"
            )
            findings.append(f"{rel}:{line}: function {name} has {n} lines ({why}); split it into named steps")
    for rel, name in sorted(LONG_FUNCTIONS):
        longest = max((n for r, f, _, n in functions if (r, f) == (rel, name)), default=0)
        if longest <= MAX_FUNCTION_LINES:
            findings.append(
                f"{rel}: function {name} within {MAX_FUNCTION_LINES} lines or gone; remove it from LONG_FUNCTIONS"
            )
    return findings


# Findings of check 4. Built so that this file's own text matches none.
HISTORY = re.compile(r"\b(?:issue|session|sitting|work[ -]item)s?[ \t-]*#?[0-9]+", re.I)
ROUND = re.compile(r"\bround[ \t]*#?[0-9]+\b", re.I)
OPEN_ISSUE = re.compile(r"[(]issue\b", re.I)
COMMIT = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b")
HISTORY_SUFFIXES = {".md", ".rs", ".wgsl", ".py", ".sh", ".toml", ".yml", ".yaml"}
HISTORY_FOLDERS = ("crates", "python", "scripts", "examples", "fuzz", "docs", ".ci")
SKIPPED = {"target", ".venv", ".git", "__pycache__", "corpus", "artifacts", "node_modules"}

# Commit hashes of other projects that a document cites on purpose:
# (file, hash) -> why.
FOREIGN_HASHES = {
    ("docs/real-drops.md", "f6c2889"): "the commit of DAIRLab/ImpactModeling the shipped data came from",
}


def history_files(root: pathlib.Path) -> list[pathlib.Path]:
    files = [root / "README.md"] if (root / "README.md").is_file() else []
    for folder in HISTORY_FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if not path.is_file() or SKIPPED.intersection(path.relative_to(root).parts):
                continue
            if path.suffix in HISTORY_SUFFIXES or (folder == ".ci" and not path.suffix):
                files.append(path)
    return files


def history_references(root: pathlib.Path = ROOT) -> list[str]:
    findings = []
    for path in history_files(root):
        rel = path.relative_to(root).as_posix()
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            hits = [m.group(0) for pattern in (HISTORY, ROUND, OPEN_ISSUE) for m in pattern.finditer(line)]
            if path.suffix == ".md":
                hits += [h for h in COMMIT.findall(line) if (rel, h) not in FOREIGN_HASHES]
            findings += [f"{rel}:{number}: history reference {hit!r}" for hit in hits]
    return findings


def main() -> int:
    findings = long_files() + long_functions() + history_references()
    graphs = [RustCrate(src).edges() for src in rust_crates()] + [python_edges()]
    for graph in graphs:
        for cycle in cycles(graph):
            names = " ↔ ".join(p.relative_to(ROOT).as_posix() for p in cycle)
            findings.append(f"import cycle: {names}")
    for finding in findings:
        print(finding)
    print(f"check_structure: {len(findings)} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
