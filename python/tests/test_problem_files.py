"""problem → file → problem round trips, and the command line reads the
files Python writes."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import impactset
import numpy as np
import pytest


def spatial_problem() -> impactset.Problem:
    rng = np.random.default_rng(3)
    a = rng.standard_normal((6, 6))
    jn = rng.standard_normal((2, 6))
    jt = rng.standard_normal((2, 2, 6))
    v = -jn.sum(axis=0) * 0.1
    return impactset.Problem.from_arrays(
        a @ a.T + 6 * np.eye(6),
        v,
        jn,
        jt,
        [0.3, 1 / 3],
        names=["left", "right"],
        name="random-spatial",
        friction_directions=6,
        step_size=0.5,
        steps=12,
        samples=999,
    )


PROBLEMS = {
    "compass-gait": lambda: impactset.Problem.scene("compass-gait"),
    "cube-edge": lambda: impactset.Problem.scene("cube-edge"),
    "random-spatial": spatial_problem,
}


@pytest.mark.parametrize("suffix", [".json", ".toml"])
@pytest.mark.parametrize("which", list(PROBLEMS))
def test_round_trip_is_exact(tmp_path: Path, which: str, suffix: str) -> None:
    p = PROBLEMS[which]()
    path = tmp_path / f"p{suffix}"
    p.save(path)
    q = impactset.Problem.load(path)
    for field in ["M", "v", "Jn", "Jt", "mu"]:
        a, b = getattr(p, field), getattr(q, field)
        assert a.shape == b.shape and a.tobytes() == b.tobytes(), field
    for field in ["names", "name", "dimension", "friction_directions", "step_size", "steps", "samples"]:
        assert getattr(p, field) == getattr(q, field), field
    assert [f.name for f in tmp_path.iterdir()] == [path.name]
    # The same problem samples the same (and samples something: nearly every
    # sample ends within the problem's own K and h).
    a, b = impactset.sample(p, 300, seed=9), impactset.sample(q, 300, seed=9)
    assert a.summary["accepted"] >= 0.95 * 300
    assert a.v_plus.tobytes() == b.v_plus.tobytes()


def test_the_cli_reads_python_files(cli: Path, tmp_path: Path) -> None:
    p = spatial_problem()
    path = tmp_path / "p.json"
    p.save(path)
    out = tmp_path / "v.npy"
    subprocess.run([str(cli), "sample", str(path), "-n", "500", "--out", str(out)], check=True, capture_output=True)
    ours = impactset.sample(p, 500)
    assert ours.summary["accepted"] == 500
    assert np.load(out).tobytes() == ours.v_plus.tobytes()


def test_to_dict_is_the_file_schema() -> None:
    d = impactset.Problem.scene("rocking-block").to_dict()
    assert set(d) >= {"name", "mass_matrix", "velocity", "contacts", "step_size", "steps", "samples"}
    assert d["contacts"][0]["name"] == "A" and len(d["contacts"][0]["tangent"]) == 3


POINT = (
    '{"mass_matrix": [[1, 0], [0, 1]], "velocity": [0, -1], '
    '"contacts": [{"normal": [0, 1], "tangent": [1, 0], "friction": FRICTION}]SCHEDULE}'
)


@pytest.mark.parametrize(
    ("friction", "schedule", "message"),
    [
        (
            "0.5",
            ', "schedule": 3',
            r"schedule: expected a string naming a schedule law \(mixed, uniform, extreme, ordered, held\), "
            r"got the number 3 \(line 1, column \d+\)",
        ),
        (
            "0.5",
            ', "schedule": "fast"',
            r'schedule: expected a string naming a schedule law .*, got "fast" \(line 1, column \d+\)',
        ),
        ("-1e300", "", r"contacts\[0\]\.friction: -1e300 is negative"),
    ],
)
def test_a_bad_field_is_named_with_its_value_as_given(
    tmp_path: Path, friction: str, schedule: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(POINT.replace("FRICTION", friction).replace("SCHEDULE", schedule))
    with pytest.raises(ValueError, match=rf"^{re.escape(str(path))}: {message}$"):
        impactset.Problem.load(path)
