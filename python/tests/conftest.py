"""Shared fixtures: the command-line binary the Python results are compared
with, and Python's own Ctrl-C handler for the tests that press Ctrl-C."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli() -> Path:
    """The `impactset` binary: $IMPACTSET_CLI, else target/release/impactset
    (built with cargo when missing)."""
    given = os.environ.get("IMPACTSET_CLI")
    if given:
        return Path(given)
    binary = ROOT / "target" / "release" / ("impactset.exe" if os.name == "nt" else "impactset")
    if not binary.exists():
        cargo = shutil.which("cargo")
        if cargo is None:
            pytest.skip("no impactset binary and no cargo to build it")
        subprocess.run([cargo, "build", "--release", "-p", "impactset-cli"], cwd=ROOT, check=True)
    return binary


@pytest.fixture
def sigint() -> Iterator[None]:
    """Python's own SIGINT handler (KeyboardInterrupt) for the test, as in an
    interactive session. A shell that starts the tests as a background job
    without job control sets SIGINT to be ignored; Python then leaves it so,
    and `_thread.interrupt_main()` (the tests' Ctrl-C) does nothing at all."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
