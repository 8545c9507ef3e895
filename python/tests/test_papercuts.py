"""What a new user meets first: one meaning of ``progress``, only the API in
the public modules, a MuJoCo problem named after its model, readable TOML,
the warning for a state in which nothing collides, the mode tolerance and
the figure of chosen coordinates."""

from __future__ import annotations

import importlib
import re
import warnings
from pathlib import Path

import impactset
import numpy as np
import pytest


def test_every_entry_point_calls_progress_with_done_and_total() -> None:
    p = impactset.Problem.scene("compass-gait")
    runs = [
        (lambda f: impactset.sample(p, 64, progress=f), 64),
        (lambda f: impactset.reach(p, 16, velocities=np.array([p.v, 0.9 * p.v]), progress=f), 32),
    ]
    for run, total in runs:
        seen: list[tuple[int, int]] = []
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            run(lambda done, total, seen=seen: seen.append((done, total)))
        dones = [d for d, _ in seen]
        assert seen and dones == sorted(dones) and dones[-1] == total
        assert {t for _, t in seen} == {total}


def test_the_former_reach_progress_of_one_argument_still_works_with_a_deprecation_warning() -> None:
    p = impactset.Problem.scene("compass-gait")
    newly: list[int] = []
    with pytest.warns(DeprecationWarning, match="progress: a callable of one argument"):
        impactset.reach(p, 16, velocities=np.array([p.v, p.v]), progress=newly.append)
    assert sum(newly) == 32 and all(k > 0 for k in newly)


def test_the_rollouts_bar_counts_rollouts(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    import impactset._progress as progress

    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    update, close = progress.for_sample(True, lambda: 3, unit="rollouts")
    assert update is not None and close is not None
    update(3)
    close()
    assert capsys.readouterr().err.endswith("] 3/3 rollouts\n")


@pytest.mark.parametrize("name", ["impactset", "impactset.mujoco", "impactset.pinocchio", "impactset.ray"])
def test_public_modules_show_only_their_api(name: str) -> None:
    if name != "impactset":
        pytest.importorskip(name.split(".")[1] if name != "impactset.ray" else "numpy")
    module = importlib.import_module(name)
    public = {n for n in dir(module) if not n.startswith("_")}
    # The lazily loaded submodules appear once imported.
    assert public - {"ray"} <= set(module.__all__), sorted(public - set(module.__all__))
    assert {n for n in module.__all__ if not n.startswith("_")} - {"mujoco", "pinocchio"} <= public
    for private in ("sys", "annotations", "main", "Callable", "np", "numbers", "time"):
        assert not hasattr(module, private), f"{name}.{private}"


def test_a_mujoco_problem_is_named_after_its_model(tmp_path: Path) -> None:
    mujoco = pytest.importorskip("mujoco")
    import impactset.mujoco

    model = mujoco.MjModel.from_xml_string(
        '<mujoco model="drop-test"><worldbody><geom type="plane" size="1 1 .1"/>'
        '<body pos="0 0 .1"><freejoint/><geom type="sphere" size=".1"/></body></worldbody></mujoco>'
    )
    data = mujoco.MjData(model)
    data.qvel[2] = -1.0
    p = impactset.mujoco.problem(model, data)
    assert p.name == "drop-test"
    p.save(tmp_path / "drop.toml")
    assert impactset.Problem.load(tmp_path / "drop.toml").name == "drop-test"
    assert impactset.mujoco.problem(model, data, name="mine").name == "mine"


def test_toml_is_written_a_matrix_row_per_line_and_read_back_exactly(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    n = 18
    a = rng.normal(size=(n, n))
    M = a @ a.T + n * np.eye(n)
    Jn = rng.normal(size=(4, n))
    Jt = rng.normal(size=(4, 2, n))
    p = impactset.Problem.from_arrays(M, -Jn.sum(axis=0), Jn, Jt, [0.5, 0.6, 0.7, 0.8], name="eighteen")
    path = tmp_path / "p.toml"
    p.save(path)
    text = path.read_text()
    # The 644 lines of one number each became a line per row: M's 18 rows,
    # each contact's normal and 2 tangent rows, and a few keys.
    assert len(text.splitlines()) < 2 * n + 4 * 8 + 10, text
    assert re.search(r"mass_matrix = \[\n(    \[[^\n]+\],\n){18}\]\n", text), text
    q = impactset.Problem.load(path)
    for field in ("M", "v", "Jn", "Jt", "mu"):
        assert np.array_equal(getattr(p, field), getattr(q, field)), field


def test_sample_and_reach_warn_when_no_contact_collides() -> None:
    p = impactset.Problem.scene("slope-point-stick")
    away = impactset.Problem.from_arrays(p.M, -p.v, p.Jn, p.Jt, p.mu, p.names)
    with pytest.warns(UserWarning, match="no contact is colliding"):
        impactset.sample(away, 8)
    with pytest.warns(UserWarning, match=r"state 1: no contact is colliding"):
        impactset.reach(p, 8, velocities=np.array([p.v, -p.v, p.v]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        impactset.reach(p, 8, velocities=np.array([p.v, p.v]))


def test_mode_tolerance_is_a_keyword_of_sample_and_reach() -> None:
    p = impactset.Problem.scene("rocking-block")
    default = impactset.sample(p, 128, seed=2)
    # Far above every contact speed: every contact sticks, one joint mode.
    loose = impactset.sample(p, 128, seed=2, mode_tolerance=1e9)
    assert len(set(default.mode_labels)) > 1
    assert len(set(loose.mode_labels)) == 1 and all(
        part.endswith("sticks") for part in loose.mode_labels[0].split(", ")
    )
    assert np.array_equal(default.v_plus, loose.v_plus)
    r = impactset.reach(p, 64, velocities=np.array([p.v]), mode_tolerance=1e9)
    assert r["joint_modes"].tolist() == [1]
    with pytest.raises(ValueError, match="mode_tolerance"):
        impactset.sample(p, 8, mode_tolerance=0.0)


def test_the_coordinate_figure_labels_its_axes_with_the_chosen_coordinates(tmp_path: Path) -> None:
    s = impactset.sample(impactset.Problem.scene("rocking-block"), 64, seed=1)
    path = tmp_path / "coordinates.svg"
    s.plot(path, coordinates=["x", "spin"], coordinate_names=["x", "y", "spin"])
    texts = [line.strip() for line in path.read_text().splitlines()]
    assert "x" in texts and "spin" in texts and not any("normal velocity" in t for t in texts)
    with pytest.raises(ValueError, match="no coordinate named .knee."):
        s.plot(path, coordinates=["x", "knee"], coordinate_names=["x", "y", "spin"])
    with pytest.raises(ValueError, match="give coordinate_names"):
        s.plot(path, coordinates=["x", "y"])
    with pytest.raises(ValueError, match="at least 2"):
        s.plot(path, coordinates=[0])
    with pytest.raises(ValueError, match="coordinates"):
        s.plot(path, coordinates=[0, 3])
