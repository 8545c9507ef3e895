"""Bad input raises ValueError/TypeError naming the argument, what was
expected and what was found; never a crash or a silent NaN."""

from __future__ import annotations

import re

import impactset
import numpy as np
import pytest


def arrays(n: int = 7, k: int = 2) -> dict[str, np.ndarray]:
    """A valid planar problem with n velocities and k contacts."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n))
    jn = np.zeros((k, n))
    jt = np.zeros((k, n))
    for i in range(k):
        jn[i, i] = 1.0
        jt[i, (i + 1) % n] = 1.0
    v = np.zeros(n)
    v[0] = -1.0
    return {"M": a @ a.T + n * np.eye(n), "v": v, "Jn": jn, "Jt": jt, "mu": np.full(k, 0.5)}


def build(**changes: object) -> impactset.Problem:
    args = {**arrays(), **changes}
    return impactset.Problem.from_arrays(
        args.pop("M"), args.pop("v"), args.pop("Jn"), args.pop("Jt"), args.pop("mu"), **args
    )


def test_valid_arrays_build() -> None:
    p = build()
    assert (p.n, p.m, p.dimension) == (7, 2, "planar")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"Jn": np.zeros((2, 6))}, "Jn: expected shape (2, 7), got (2, 6)"),
        ({"Jn": np.zeros(7)}, "Jn: expected a 2-D array of shape (k, 7), got shape (7,)"),
        ({"Jn": np.zeros((0, 7))}, "Jn: expected at least one contact, got shape (0, 7)"),
        ({"M": np.eye(7)[:, :6]}, "M: expected a square 2-D array (n, n) with n ≥ 1, got shape (7, 6)"),
        ({"v": np.zeros(6)}, "v: expected shape (7,), got (6,)"),
        ({"Jt": np.zeros((2, 3, 7))}, "Jt: expected shape (2, 7) (planar) or (2, 2, 7) (spatial), got (2, 3, 7)"),
        ({"mu": np.ones(3)}, "mu: expected shape (2,), got (3,)"),
        ({"mu": np.array([0.5, np.nan])}, "mu[1] = nan"),
        ({"v": np.array([-1.0, 0, 0, np.inf, 0, 0, 0])}, "v[3] = inf"),
        ({"mu": np.array([0.5, -0.25])}, "mu[1] = -0.25: friction coefficients must be ≥ 0"),
        ({"Jn": np.vstack([np.eye(7)[0], np.zeros(7)])}, "Jn[1] is all zeros: every contact needs a normal direction"),
        ({"names": ["a", "b", "c"]}, "names: expected 2 names (one per contact), got 3"),
    ],
)
def test_value_errors_name_the_argument(changes: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        build(**changes)


def test_non_finite_matrix_entry_gives_its_index() -> None:
    m = arrays()["M"].copy()
    m[2, 4] = np.nan
    with pytest.raises(ValueError, match=re.escape("M[2, 4] = nan")):
        build(M=m)


def test_indefinite_mass_gives_the_smallest_eigenvalue() -> None:
    m = np.diag([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, -0.031])
    with pytest.raises(
        ValueError, match=re.escape("M is not symmetric positive definite: smallest eigenvalue -3.1e-02")
    ):
        build(M=m)


def test_asymmetric_mass_names_the_pair() -> None:
    m = arrays()["M"].copy()
    m[0, 1] += 1.0
    with pytest.raises(ValueError, match=r"M is not symmetric: M\[0, 1\] = .* but M\[1, 0\] = "):
        build(M=m)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"M": np.eye(7) * (1 + 1j)}, "M: expected an array of real numbers, got an array of dtype complex128"),
        ({"mu": ["a", "b"]}, "mu: expected an array of real numbers, got list of dtype <U1"),
        ({"v": np.zeros(7, dtype=bool)}, "v: expected an array of real numbers, got an array of dtype bool"),
        ({"names": "AB"}, "names: expected a sequence of 2 str, got str"),
        ({"names": ["a", 2]}, "names[1]: expected a str, got int"),
        ({"step_size": "big"}, "step_size: expected a positive number, got str"),
    ],
)
def test_type_errors_name_the_argument(changes: dict[str, object], message: str) -> None:
    with pytest.raises(TypeError, match=re.escape(message)):
        build(**changes)


def test_any_float_dtype_and_memory_order_is_accepted() -> None:
    base = arrays()
    reference = build()
    fortran = build(M=np.asfortranarray(base["M"]), Jn=np.asfortranarray(base["Jn"]))
    assert np.array_equal(fortran.M, reference.M)
    strided = np.zeros((2, 14))
    strided[:, ::2] = base["Jt"]
    p = build(Jt=strided[:, ::2], mu=base["mu"].astype(np.float32), v=base["v"].tolist())
    assert np.array_equal(p.Jt, reference.Jt) and p.mu.dtype == np.float64
    assert np.array_equal(build(Jn=base["Jn"].astype(np.int64)).Jn, reference.Jn)


def test_the_arrays_are_read_only_copies() -> None:
    base = arrays()
    p = build(**base)
    base["M"][0, 0] = 1e9
    assert p.M[0, 0] != 1e9
    with pytest.raises(ValueError):
        p.M[0, 0] = 1.0


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"n": 0}, ValueError, "n: expected an integer in [1, 2**64), got 0"),
        ({"n": 10.0}, TypeError, "n: expected an integer, got float"),
        ({"seed": -1}, ValueError, "seed: expected an integer in [0, 2**64), got -1"),
        ({"selection": "fast"}, ValueError, "selection: expected one of 'lemke', 'random-lemke', 'all', got 'fast'"),
        ({"backend": "tpu"}, ValueError, "backend: expected one of 'cpu', 'gpu', 'auto', got 'tpu'"),
        ({"precision": "f16"}, ValueError, "precision: expected one of 'f32', 'f64', got 'f16'"),
        ({"precision": "f32"}, ValueError, "precision: 'f32' runs on the GPU only"),
        ({"step_size": float("nan")}, ValueError, "step_size: expected a positive number, got nan"),
        ({"step_size": -1}, ValueError, "step_size: expected a positive number, got -1"),
        ({"steps": -2}, ValueError, "steps: expected an integer in [1, 1000000], got -2"),
        ({"threads": 0}, ValueError, "threads: expected an integer in [1, 1024], got 0"),
    ],
)
def test_sample_arguments(kwargs: dict[str, object], error: type, message: str) -> None:
    p = impactset.Problem.scene("rocking-block")
    kwargs = {"n": 10, **kwargs}
    with pytest.raises(error, match=re.escape(message)):
        impactset.sample(p, **kwargs)


def test_sample_needs_a_problem() -> None:
    with pytest.raises(TypeError, match=re.escape("problem: expected an impactset.Problem, got dict")):
        impactset.sample({}, 10)  # type: ignore[arg-type]


def test_unknown_scene_lists_the_scenes() -> None:
    ids = [s["id"] for s in impactset.scenes()]
    listed = re.escape(f"name: no built-in scene 'nope' (scenes: {', '.join(ids)})")
    with pytest.raises(ValueError, match=f"^{listed}$"):
        impactset.Problem.scene("nope")
    assert ids[0] == "rocking-block" and "compass-gait" in ids


def test_analysis_arguments_are_checked() -> None:
    p = impactset.Problem.scene("rocking-block")
    with pytest.raises(ValueError, match=re.escape("reference: expected shape (4, 3), got (4, 2)")):
        impactset.covering_radius(p, np.zeros((5, 3)), np.zeros((4, 2)))
    with pytest.raises(ValueError, match=re.escape("a[1, 2] = nan")):
        impactset.hausdorff(p, np.array([[0, 0, 0], [0, 0, np.nan]]), np.zeros((1, 3)))
    with pytest.raises(
        ValueError, match=re.escape("metric: expected one of 'energy', 'euclidean', 'contact', got 'l1'")
    ):
        impactset.hausdorff(p, np.zeros((1, 3)), np.zeros((1, 3)), metric="l1")
    with pytest.raises(ValueError, match=re.escape("delta: expected a number in (0, 1), got 1.5")):
        impactset.held_out_certificate(p, np.zeros((1, 3)), np.zeros((1, 3)), delta=1.5)


def test_bad_problem_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(FileNotFoundError):
        impactset.Problem.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text(
        '{"mass_matrix": [[1, 0], [0, 1]], "velocity": [0, -1], "contacts": [{"normal": [0, 1], "tangent": [1, 0], "friction": -1}]}'
    )
    with pytest.raises(ValueError, match=r"bad.json: contacts\[0\].friction"):
        impactset.Problem.load(bad)
    with pytest.raises(ValueError, match=r"path: cannot tell the figure format"):
        impactset.sample(impactset.Problem.scene("slope-point"), 4).plot(tmp_path / "x.pdf")
