"""The real-drops validation (examples/real_drops.py) on the first drops of
data/wang-mason-square: impacts found where the square meets the ground,
flights that obey gravity and predict frames they were not fitted to, a
noise model the data confirm, and distances that respect what every impact
law at the touching corners can reach."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SMALL = range(12)


def load(name: str):
    """An example module, imported by name (real_drops imports
    real_drops_flight so, and both must be the same module)."""
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    return importlib.import_module(name)


@pytest.fixture(scope="module")
def example():
    return load("real_drops")


@pytest.fixture(scope="module")
def flight():
    return load("real_drops_flight")


@pytest.fixture(scope="module")
def drops(flight):
    return flight.load_drops()


@pytest.fixture(scope="module")
def impacts(example, drops):
    found, _ = example.measure(drops, SMALL)
    assert len(found) >= 10
    return found


def test_the_shipped_data_is_the_documented_one(drops):
    assert drops.poses.shape == (500, 200, 3)
    assert drops.dt == pytest.approx(1 / 250) and drops.side == pytest.approx(0.06)
    readme = (ROOT / "data" / "wang-mason-square" / "README.md").read_text()
    assert "f6c28898845da6d48efdd6c1c696db2fb3716edf" in readme
    assert "BSD 3-Clause" in (ROOT / "data" / "wang-mason-square" / "LICENSE").read_text()
    # Most drops end lying on a face: the centre half a side above the
    # ground (z = 0), to the tracking's millimetre.
    assert np.median(drops.poses[:, -1, 1]) == pytest.approx(drops.side / 2, abs=2e-3)


def test_first_impacts_are_found_where_the_square_first_meets_the_ground(flight, drops, impacts):
    checked = 0
    for index in SMALL:
        lowest = flight.corner_heights(drops.poses[index], drops.side).min(axis=1)
        ground = int(np.argmax(lowest < 5e-3))  # the first frame within 5 mm of the ground
        first = [i for i in impacts if i.drop == drops.drop[index] and i.frame < 30]
        if first:
            checked += 1
            assert abs(first[0].frame + 1 - ground) <= 1
    assert checked >= 8


def test_fitted_flights_obey_gravity_and_predict_unfitted_frames(flight, drops, impacts):
    g = [
        flight.free_fall_g(drops.poses[i.drop - 1], f.first, f.last, drops.dt)
        for i in impacts
        for f in (i.before, i.after)
        if f.last - f.first >= 7
    ]
    assert len(g) >= 10
    assert np.median(g) == pytest.approx(flight.G, rel=0.05)
    # The frame just before each pre-impact window was not fitted; the
    # flight predicts it to the tracking noise (~0.07 mm in z).
    misses = [
        abs(i.before.pose((i.before.first - 1) * drops.dt)[1] - drops.poses[i.drop - 1, i.before.first - 1, 1])
        for i in impacts
        if i.before.first > 0 and not any(j.drop == i.drop and 0 <= i.before.first - 1 - j.frame <= 3 for j in impacts)
    ]
    assert len(misses) >= 5
    assert np.median(misses) < 2e-4


def test_impacts_lose_energy_and_touch_the_ground(flight, drops, impacts):
    m = drops.mass_matrix
    for i in impacts:
        assert i.v_plus @ m @ i.v_plus < 1.05 * (i.v_minus @ m @ i.v_minus)
        # The impact pose has its lowest corner at the ground, or up to the
        # tracking's 2 mm below it when the fitted flight is already there.
        assert -2e-3 <= flight.corner_heights(i.pose, drops.side).min() <= 1e-9
        assert len(i.corners) in (1, 2)
        jn, _ = flight.contact_rows(i.pose[2], drops.side, list(i.corners))
        assert (jn @ i.v_minus).min() < 0.0


def test_the_noise_model_matches_split_half_fits(flight, drops, impacts):
    noise = flight.noise_floor(impacts, drops)
    assert 0.5 < noise.split_half < 2.0
    assert np.all(noise.per_impact > 0) and np.median(noise.per_impact) < 0.05


def test_distances_respect_what_any_impulse_at_the_corners_can_reach(example, drops, impacts):
    mu = example.fit_friction(impacts, drops.mass_matrix, drops.side)
    e = example.fit_restitution(impacts, drops.side)
    assert 0.0 < mu < 1.0 and 0.0 < e < 1.0
    d = example.run(impacts, drops, mu, 0.0, 64, 0)
    m = drops.mass_matrix
    for k, i in enumerate(impacts):
        change = i.v_plus - i.v_minus
        assert d["no impact"][k] == pytest.approx(np.sqrt(change @ m @ change / (i.v_minus @ m @ i.v_minus)))
        for model in ("set", "simultaneous", "sequential", "no impact"):
            assert d[model][k] >= d[example.BOUND][k] - 1e-9
        if i.kind == "two-corner":
            assert d[example.BOUND][k] < 1e-9


def test_the_command_line_writes_table_and_figure(example, tmp_path, capsys):
    assert example.main(["--small", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert "| e | impacts |" in printed and "| 0 | two-corner |" in printed
    # The second setting: the e fitted on these drops' one-corner impacts.
    found, _ = example.measure(example.load_drops(), range(12))
    e = example.fit_restitution(found, example.load_drops().side)
    assert f"restitution e = {e:.3f} fitted on the one-corner impacts" in printed
    assert f"| {e:.2f} | two-corner |" in printed and f"one-corner impacts, e = {e:.2f}: " in printed
    assert (tmp_path / "real_drops.md").read_text() == printed
    assert (tmp_path / "real_drops.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_with_restitution_the_bound_still_holds(example, drops, impacts):
    mu = example.fit_friction(impacts, drops.mass_matrix, drops.side)
    e = example.fit_restitution(impacts, drops.side)
    bounce = example.baselines_bounce()
    inelastic = example.run(impacts, drops, mu, 0.0, 64, 0)
    bouncing = example.run(impacts, drops, mu, e, 64, 0, baselines=bounce)
    assert np.array_equal(inelastic["no impact"], bouncing["no impact"])
    for model in ("set", "simultaneous", "sequential") if bounce else ("set",):
        assert np.all(bouncing[model] >= bouncing[example.BOUND] - 1e-9)
    if not bounce:
        assert np.isnan(bouncing["simultaneous"]).all() and np.isnan(bouncing["sequential"]).all()
    # The square bounces (e ≈ 0.45): with the fitted e the one-corner
    # predictions come closer to the measurements than without it.
    one = np.array([i.kind == "one-corner" for i in impacts])
    assert np.median(bouncing["set"][one]) < np.median(inelastic["set"][one])


def test_corner_misses_follow_from_the_contact_law(example, drops, impacts):
    """At e = 0 a lone corner leaves the ground at normal velocity 0 in
    every sample, so the closest sample misses the corner's measured normal
    velocity by exactly that velocity; the fitted e, taken as the median
    measured ratio, removes most of that miss."""
    mu = example.fit_friction(impacts, drops.mass_matrix, drops.side)
    e = example.fit_restitution(impacts, drops.side)
    inelastic = example.run(impacts, drops, mu, 0.0, 64, 0)
    bouncing = example.run(impacts, drops, mu, e, 64, 0, baselines=False)
    m = drops.mass_matrix
    one = np.array([i.kind == "one-corner" for i in impacts])
    for k, i in enumerate(impacts):
        if not one[k]:
            assert np.isnan(inelastic["normal miss"][k]) and np.isnan(bouncing["slip reverses (set)"][k])
            continue
        jn, _ = example.contact_rows(i.pose[2], drops.side, list(i.corners))
        expected = abs(jn[0] @ i.v_plus) / np.sqrt(i.v_minus @ m @ i.v_minus)
        assert inelastic["normal miss"][k] == pytest.approx(expected, rel=1e-6, abs=1e-9)
    assert np.median(bouncing["normal miss"][one]) < 0.25 * np.median(inelastic["normal miss"][one])


def test_the_sweep_prints_one_row_per_e(example, capsys):
    assert example.main(["--small", "--sweep", "0,0.5"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 0.")]
    assert [row.split(" | ")[0] for row in rows] == ["| 0.000", "| 0.500"]
