"""The controller-robustness example (examples/controller_robustness.py) at
a small size: it runs, writes its figure and table, and its numbers obey
what the model guarantees."""

from __future__ import annotations

import csv
import importlib.util
from pathlib import Path

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "controller_robustness.py"

pytest.importorskip("matplotlib", reason="the example draws with matplotlib")


def load_example():
    spec = importlib.util.spec_from_file_location("controller_robustness", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_writes_its_figure_and_table(tmp_path):
    example = load_example()
    out, table = tmp_path / "robustness.png", tmp_path / "robustness.csv"
    assert example.main(["--grid", "3", "--samples", "64", "--out", str(out), "--csv", str(table)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = list(csv.DictReader(table.open()))
    assert len(rows) == 9
    for row in rows:
        assert float(row["worst_lead_rate"]) <= float(row["best_lead_rate"])
        assert 0.0 <= float(row["trail_lift_share"]) <= 1.0
        # The pilot-derived step cap accepts (nearly) every sample.
        assert int(row["accepted"]) >= 0.95 * 64


def test_the_pre_impact_states_are_heel_strikes():
    example = load_example()
    import impactset

    scene = impactset.Problem.scene("compass-gait")
    # The nominal gait of the scene: both legs at 0.25 rad/s.
    assert np.allclose(example.pre_impact_velocity(0.25, 1.0), scene.v, atol=1e-4)
    for rate, ratio in [(0.1, 0.5), (0.5, 1.5)]:
        v = example.pre_impact_velocity(rate, ratio)
        lead, trail = scene.Jn @ v
        assert lead < 0.0, "the leading foot strikes"
        assert abs(trail) < 1e-12, "the trailing foot is at rest"
