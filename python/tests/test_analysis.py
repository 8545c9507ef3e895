"""Baselines, contact modes, ε figures and the set figure, checked against
independent computations with numpy."""

from __future__ import annotations

from pathlib import Path

import impactset
import numpy as np


def energy_distance_matrix(p: impactset.Problem, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    d = a[:, None, :] - b[None, :, :]
    return np.sqrt(np.einsum("ijk,kl,ijl->ij", d, p.M, d))


def test_covering_radius_and_hausdorff_match_brute_force() -> None:
    p = impactset.Problem.scene("compass-gait")
    a = impactset.sample(p, 400, seed=1).v_plus
    b = impactset.sample(p, 300, seed=2).v_plus
    d = energy_distance_matrix(p, a, b)
    assert np.isclose(impactset.covering_radius(p, a, b), d.min(axis=0).max(), rtol=1e-12)
    assert np.isclose(impactset.covering_radius(p, b, a), d.min(axis=1).max(), rtol=1e-12)
    h = max(d.min(axis=0).max(), d.min(axis=1).max())
    assert np.isclose(impactset.hausdorff(p, a, b), h, rtol=1e-12)
    e = np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(-1))
    assert np.isclose(impactset.hausdorff(p, a, b, metric="euclidean"), max(e.min(0).max(), e.min(1).max()), rtol=1e-12)


def test_held_out_certificate_matches_brute_force() -> None:
    p = impactset.Problem.scene("rocking-block")
    net = impactset.sample(p, 500, seed=1).v_plus
    held = impactset.sample(p, 200, seed=2).v_plus
    c = impactset.held_out_certificate(p, net, held, delta=0.1)
    nearest = np.sort(energy_distance_matrix(p, net, held).min(axis=0))
    assert np.isclose(c["epsilon"], nearest[-1], rtol=1e-12)
    assert np.isclose(c["median_distance"], nearest[len(nearest) // 2], rtol=1e-12)
    assert np.isclose(c["miss_probability"], np.log(10) / len(held))
    assert (c["net_size"], c["held_out"], c["metric"]) == (len(net), 200, "energy")
    # It says what it certifies: coverage under the sampling law, not the extremes.
    assert c["certifies"].startswith("coverage under the sampling law")
    assert "extremes" in c["certifies"]


def test_modes_agree_with_the_contact_velocities() -> None:
    p = impactset.Problem.scene("compass-gait")
    s = impactset.sample(p, 3000, seed=8)
    un = s.v_plus @ p.Jn.T
    ut = s.v_plus @ p.Jt.T
    scale = np.max(np.maximum(np.abs(p.Jn @ p.v), np.abs(p.Jt @ p.v)))
    for mode_id, table in enumerate(s.mode_table):
        rows = s.modes == mode_id
        assert rows.any()
        for c, phrase in enumerate(table):
            if phrase == "separates":
                assert np.all(un[rows, c] > 1e-6 * scale)
            elif phrase == "sticks":
                assert np.all(np.abs(ut[rows, c]) <= 1e-6 * scale)
            elif phrase == "slides +t":
                assert np.all(ut[rows, c] > 1e-6 * scale)
            else:
                assert np.all(ut[rows, c] < -1e-6 * scale)
    counts = np.bincount(s.modes)
    assert np.all(np.diff(counts) <= 0)  # most frequent first
    entries = s.summary["modes"]["entries"]
    assert [e["count"] for e in entries] == counts.tolist()
    assert [e["label"] for e in entries] == s.mode_labels
    ids, labels = impactset.contact_modes(p, s.v_plus)
    assert labels == s.mode_labels and np.array_equal(ids, s.modes)


def test_baselines_are_admissible_outcomes() -> None:
    p = impactset.Problem.scene("rocking-block")
    b = impactset.baseline(p)
    v = b["v_plus"]
    assert v.shape == (len(b["labels"]), p.n)
    assert any(label.startswith("simultaneous") for label in b["labels"])
    assert [label for label in b["labels"] if label.startswith("sequential")] == [
        "sequential from A",
        "sequential from B",
    ]
    # No contact approaches after the impact; kinetic energy does not grow.
    assert np.all(v @ p.Jn.T >= -1e-9)
    energy = 0.5 * np.einsum("ij,jk,ik->i", v, p.M, v)
    assert np.allclose(energy, b["energy"]) and np.all(energy <= 0.5 * p.v @ p.M @ p.v + 1e-12)


def test_the_simultaneous_baseline_lists_every_outcome_of_a_large_lcp() -> None:
    """A measured cube landing on four corners: its simultaneous LCP has 40
    unknowns, beyond the brute force, and the step enumerator lists every
    solution (docs/model.md §2); each solves the LCP's velocity conditions
    (no corner approaching) and loses energy."""
    path = Path(__file__).parents[2] / "crates/impactset/tests/data/cube-four-corner-landing.json"
    p = impactset.Problem.load(path)
    b = impactset.baseline(p)
    assert b["simultaneous_method"] == "enumerated"
    sim = [i for i, label in enumerate(b["labels"]) if label.startswith("simultaneous")]
    assert len(sim) >= 1
    v = b["v_plus"][sim]
    scale = np.abs(p.v @ p.Jn.T).max()
    assert np.all(v @ p.Jn.T >= -1e-9 * scale)
    assert np.all(0.5 * np.einsum("ij,jk,ik->i", v, p.M, v) < 0.5 * p.v @ p.M @ p.v)


def test_sample_arrays_are_consistent() -> None:
    p = impactset.Problem.scene("ramone")
    s = impactset.sample(p, 500, seed=4, selection="random-lemke")
    assert s.accepted.shape == s.steps.shape == s.energy_ratio.shape == s.residual.shape == (500,)
    assert np.array_equal(np.flatnonzero(s.accepted), s.indices.astype(np.int64))
    assert np.all(s.energy_ratio[s.accepted] <= 1 + 1e-9)
    assert s.summary["max_energy_ratio"] == s.energy_ratio.max()
    assert s.summary["accepted"] == len(s) == s.v_plus.shape[0]
    assert s.summary["mean_steps"] == s.steps.mean()
    assert not s.v_plus.flags.writeable


def test_plot_writes_svg_and_png(tmp_path: Path) -> None:
    s = impactset.sample(impactset.Problem.scene("compass-gait"), 1000)
    svg = tmp_path / "gait.svg"
    s.plot(svg, title="gait")
    text = svg.read_text()
    assert text.startswith("<svg") and "gait" in text
    png = tmp_path / "gait.png"
    try:
        s.plot(png, trajectories=0, baselines=False)
    except ValueError as e:  # no TrueType font on this machine
        assert "font" in str(e)
    else:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(f.name for f in tmp_path.iterdir()) in (["gait.png", "gait.svg"], ["gait.svg"])


def _simultaneous(b: dict) -> np.ndarray:
    return b["v_plus"][[i for i, label in enumerate(b["labels"]) if label.startswith("simultaneous")]]


def test_the_simultaneous_baseline_of_a_wedged_block_never_speeds_its_slide() -> None:
    """A block between floor and ceiling sliding at 0.3: friction only slows
    the slide, so no simultaneous outcome slides faster (docs/model.md §2,
    "The acceptance check"); the slide to 0.05 is listed."""
    path = Path(__file__).parents[2] / "crates/impactset/tests/data/block-between-floor-and-ceiling.json"
    b = impactset.baseline(impactset.Problem.load(path))
    v = _simultaneous(b)
    assert np.all(np.abs(v[:, 0]) <= 0.3 + 1e-12), v
    assert np.any(np.all(np.abs(v - [0.05, 0.0, 0.0]) <= 1e-12, axis=1)), v


def test_the_simultaneous_baseline_at_huge_friction_lists_only_the_stop() -> None:
    """The rocking block with μ = 10¹²: both corners stick, v⁺ = 0 is the
    only solution of the LCP."""
    p = impactset.Problem.scene("rocking-block")
    stuck = impactset.Problem.from_arrays(p.M, p.v, p.Jn, p.Jt, [1e12, 1e12])
    v = _simultaneous(impactset.baseline(stuck))
    assert v.shape[0] == 1 and np.all(np.abs(v) <= 1e-9 * np.abs(p.v).max()), v


def test_the_simultaneous_baseline_of_an_ill_conditioned_block_is_not_empty() -> None:
    """Rotational inertia 10⁻⁸: the LCP always has a solution (both corners
    stick, v⁺ = 0), and it is listed."""
    p = impactset.Problem.from_arrays(
        np.diag([1.0, 1.0, 1e-8]),
        [0.2, -1.0, 0.0],
        [[0.0, 1.0, -1.0], [0.0, 1.0, 1.0]],
        [[1.0, 0.0, 0.5], [1.0, 0.0, 0.5]],
        [0.3, 0.3],
    )
    b = impactset.baseline(p)
    assert b["simultaneous_method"] != "failed"
    v = _simultaneous(b)
    assert v.shape[0] == 1 and np.all(np.abs(v) <= 1e-6), v
