"""The robot examples that need only the mujoco extra (a1_landing) and the
impact study run end to end at their small sizes and write their figures."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("mujoco")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_a1_landing_small(tmp_path):
    figure = tmp_path / "a1.png"
    done = run("examples/a1_landing.py", "--small", "--out", str(figure))
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("forward")]
    assert len(lines) == 2 and all("8 samples" in line for line in lines)
    assert figure.stat().st_size > 1000


def test_impact_study_small(tmp_path):
    pytest.importorskip("dm_control")
    table = tmp_path / "study.csv"
    done = run("examples/impact_study.py", "--small", "--out", str(tmp_path), "--csv", str(table))
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(table.open()))
    assert {r["case"] for r in rows} == {
        "humanoid-wide-step",
        "a1-level",
        "a1-trailing",
        "humanoid-heel-toe",
        "humanoid-heel-first",
        "box-curb",
        "talos-landing",
        "talos-landing-edge",
        "talos-heel-strike",
        "talos-step",
    }
    for r in rows:
        share = float(r["set_fails"])
        assert 0.0 <= share <= 1.0
        # The worst score over the set bounds every sample's; a sample fails
        # exactly when its score passes the threshold.
        assert float(r["set_best"]) <= float(r["set_worst"])
        assert (share > 0) == (float(r["set_worst"]) > float(r["threshold"]))
        assert (share < 1) == (float(r["set_best"]) <= float(r["threshold"]))
    # The heel-first strike's rollouts meet the toe's landing as a later impact of their own.
    assert all(float(r["later_impacts"]) >= 1 for r in rows if r["case"] == "humanoid-heel-first")
    for name in ("map.png", "box_curb_trajectories.png"):
        assert (tmp_path / name).stat().st_size > 1000
