"""Shared fixtures: the command-line binary the Python results are compared with."""

from __future__ import annotations

import os
import shutil
import subprocess
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
