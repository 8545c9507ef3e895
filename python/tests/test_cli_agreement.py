"""The Python package and the command line give the same samples, bit for
bit, on every built-in scene under every selection rule."""

from __future__ import annotations

import subprocess
from pathlib import Path

import impactset
import numpy as np
import pytest

SCENES = [s["id"] for s in impactset.scenes()]
RULES = ["lemke", "random-lemke", "all"]
# Enough samples for several of the Python side's chunks (they start at 32
# samples and double) and for rejected samples to appear where a scene has them.
SAMPLES = 700


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("scene", SCENES)
def test_python_matches_the_cli_npy(cli: Path, tmp_path: Path, scene: str, rule: str) -> None:
    out = tmp_path / "v.npy"
    subprocess.run(
        [str(cli), "sample", scene, "-n", str(SAMPLES), "--seed", "11", "--selection", rule, "--out", str(out)],
        check=True,
        capture_output=True,
    )
    expected = np.load(out)
    s = impactset.sample(impactset.Problem.scene(scene), SAMPLES, seed=11, selection=rule)
    assert s.v_plus.dtype == np.float64
    assert s.v_plus.shape == expected.shape
    assert s.v_plus.tobytes() == np.ascontiguousarray(expected).tobytes()
    assert int(s.accepted.sum()) == len(s) == expected.shape[0]


def test_summary_matches_the_cli(cli: Path, tmp_path: Path) -> None:
    summary = tmp_path / "s.json"
    subprocess.run(
        [str(cli), "sample", "compass-gait", "-n", "3000", "--seed", "5", "--summary", str(summary)],
        check=True,
        capture_output=True,
    )
    import json

    expected = json.loads(summary.read_text())
    got = impactset.sample(impactset.Problem.scene("compass-gait"), 3000, seed=5).summary
    for key in [
        "samples",
        "accepted",
        "terminated",
        "rejected_unterminated",
        "rejected_residual",
        "mean_steps",
        "max_residual",
        "fallback_steps",
        "max_energy_ratio",
        "seed",
        "selection",
        "step_size",
        "steps",
    ]:
        assert got[key] == expected[key], key
    assert [(e["label"], e["count"]) for e in got["modes"]["entries"]] == [
        (e["label"], e["count"]) for e in expected["modes"]["entries"]
    ]


def test_threads_and_shards_do_not_change_the_samples() -> None:
    p = impactset.Problem.scene("rocking-block")
    whole = impactset.sample(p, 1000, seed=2)
    one = impactset.sample(p, 1000, seed=2, threads=1)
    assert whole.v_plus.tobytes() == one.v_plus.tobytes()
    first = impactset.sample(p, 400, seed=2)
    rest = impactset.sample(p, 600, seed=2, first_index=400)
    assert np.array_equal(np.vstack([first.v_plus, rest.v_plus]), whole.v_plus)
    assert np.array_equal(np.concatenate([first.indices, rest.indices]), whole.indices)
