"""Bilateral (equality) constraints from Python: ``Problem.from_arrays(...,
bilateral=...)``, the ``bilateral`` property, files, argument errors, and
the samples keeping ``J_eq v⁺ = 0``."""

from __future__ import annotations

import subprocess
import warnings

import impactset
import numpy as np
import pytest

# Two unit-mass points in the plane (x1, y1, x2, y2) joined by a rigid rod
# along x; point 1 hits the wall x ≥ 0 with friction along y.
ROD = np.array([[1.0, 0.0, -1.0, 0.0]])


def rod_problem(v=(-1.0, 0.4, -1.0, -0.7), mu=0.3, **kwargs) -> impactset.Problem:
    return impactset.Problem.from_arrays(
        np.eye(4), v, [[1.0, 0.0, 0.0, 0.0]], [[0.0, 1.0, 0.0, 0.0]], [mu], bilateral=ROD, **kwargs
    )


def test_bilateral_property_is_the_rows_or_empty():
    p = rod_problem()
    assert p.bilateral.dtype == np.float64 and p.bilateral.shape == (1, 4)
    assert np.array_equal(p.bilateral, ROD)
    assert not p.bilateral.flags.writeable
    q = impactset.Problem.scene("compass-gait")
    assert q.bilateral.shape == (0, q.n)
    plain = impactset.Problem.from_arrays(np.eye(2), [0.0, -1.0], [[0.0, 1.0]], [[1.0, 0.0]], [0.5], bilateral=None)
    assert plain.bilateral.shape == (0, 2)
    empty = impactset.Problem.from_arrays(
        np.eye(2), [0.0, -1.0], [[0.0, 1.0]], [[1.0, 0.0]], [0.5], bilateral=np.zeros((0, 2))
    )
    assert "bilateral" not in empty.to_dict()


def test_the_rod_is_one_lumped_mass_sample_by_sample():
    lumped = impactset.Problem.from_arrays(
        np.diag([2.0, 1.0, 1.0]), [-1.0, 0.4, -0.7], [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]], [0.3]
    )
    lift = np.array([[1.0, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]])
    for selection in ["lemke", "all"]:
        a = impactset.sample(rod_problem(), 256, seed=3, selection=selection, step_size=0.3, steps=100)
        b = impactset.sample(lumped, 256, seed=3, selection=selection, step_size=0.3, steps=100)
        assert np.array_equal(a.accepted, b.accepted) and a.accepted.all()
        np.testing.assert_allclose(a.v_plus, b.v_plus @ lift.T, rtol=0, atol=1e-12)


def test_every_sample_keeps_the_constraints():
    rng = np.random.default_rng(5)
    n = 6
    a = rng.standard_normal((n, n))
    mass = a @ a.T + n * np.eye(n)
    rows = rng.standard_normal((2, n))
    rows = np.vstack([rows, rows[0] + 2 * rows[1]])  # dependent third row
    jn = rng.standard_normal((2, n))
    jt = rng.standard_normal((2, n))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        p = impactset.Problem.from_arrays(mass, -jn.sum(axis=0), jn, jt, [0.5, 0.8], bilateral=rows)
    # The given v violates the rows: projected, with a warning.
    assert any("bilateral" in str(w.message) for w in caught)
    scale = np.abs(rows).sum(axis=1).max() * np.abs(p.v).max()
    assert np.abs(rows @ p.v).max() <= 1e-12 * scale
    s = impactset.sample(p, 512, seed=1)
    v = s.v_plus[s.accepted]
    assert len(v) > 500
    assert np.abs(v @ rows.T).max() <= 1e-12 * scale
    assert (s.energy_ratio[s.accepted] <= 1 + 1e-12).all()


def test_a_violating_velocity_is_projected_m_orthogonally_with_a_warning():
    mass = np.diag([1.0, 3.0, 2.0, 0.5])
    given = np.array([-1.0, 0.4, -0.2, -0.7])
    with pytest.warns(UserWarning, match="M-orthogonal projection"):
        p = impactset.Problem.from_arrays(
            mass, given, [[1.0, 0.0, 0.0, 0.0]], [[0.0, 1.0, 0.0, 0.0]], [0.3], bilateral=ROD
        )
    assert abs(ROD @ p.v).max() < 1e-15
    # (v⁻ − projection) is M-orthogonal to the null space of the rod.
    null = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
    np.testing.assert_allclose(null @ mass @ (given - p.v), 0.0, atol=1e-15)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rod_problem()  # a consistent v: no warning


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_save_load_and_to_dict_carry_the_rows_bit_for_bit(tmp_path, suffix):
    with pytest.warns(UserWarning):
        p = rod_problem(v=(-1.0, 0.4, -0.3, -0.7), name="rod")
    assert p.to_dict()["bilateral"] == [[1.0, 0.0, -1.0, 0.0]]
    path = tmp_path / f"rod{suffix}"
    p.save(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the saved v⁻ is already projected
        q = impactset.Problem.load(path)
    assert np.array_equal(q.bilateral, p.bilateral)
    assert q.v.tobytes() == p.v.tobytes()
    assert np.array_equal(impactset.sample(q, 64).v_plus, impactset.sample(p, 64).v_plus)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([1.0, 0.0, -1.0, 0.0], r"bilateral: expected a 2-D array of shape \(r, 4\), got shape \(4,\)"),
        ([[1.0, 0.0, -1.0]], r"bilateral: expected a 2-D array of shape \(r, 4\), got shape \(1, 3\)"),
        ([[1.0, np.nan, -1.0, 0.0]], r"bilateral\[0, 1\] = nan"),
        ([[1.0, 0.0, np.inf, 0.0]], r"bilateral\[0, 2\] = inf"),
        (np.eye(4), r"bilateral: the constraint rows have rank 4"),
        ([[1.0, 0.0, 0.0, 0.0]], r"Jn\[0\]: the bilateral constraints leave this normal row no motion"),
    ],
)
def test_bad_rows_raise_value_errors_naming_bilateral(value, message):
    with pytest.raises(ValueError, match=message):
        impactset.Problem.from_arrays(
            np.eye(4), [-1.0, 0.4, -1.0, -0.7], [[1.0, 0, 0, 0]], [[0, 1.0, 0, 0]], [0.3], bilateral=value
        )


def test_bad_rows_in_a_file_name_the_file_and_field(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(
        '{"mass_matrix": [[1, 0], [0, 1]], "velocity": [-1, -1], "bilateral": [[1, -1], [1]],'
        ' "contacts": [{"normal": [1, 0], "tangent": [0, 1], "friction": 0}]}'
    )
    with pytest.raises(ValueError, match=r"bad\.json: bilateral\[1\]: has 1 entries, expected 2"):
        impactset.Problem.load(path)


def test_cli_show_counts_the_constraints(tmp_path, cli):
    path = tmp_path / "rod.json"
    rod_problem().save(path)
    out = subprocess.run([str(cli), "show", str(path)], capture_output=True, text=True, check=True).stdout
    assert "bilateral constraints: 1 rows" in out
