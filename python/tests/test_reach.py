"""Batch reachability from Python (`impactset.reach`): the table equals the
command line's `impactset reach` table value for value, rows do not depend
on threads or on how the states are split, each row agrees with a single
`sample` run at its state seed, and bad arguments name themselves."""

from __future__ import annotations

import copy
import csv
import math
import pickle
import subprocess
import sys
from pathlib import Path

import impactset
import numpy as np
import pytest
from impactset import Reach
from impactset._impactset import reach_native

SAMPLES = 96


def gait() -> impactset.Problem:
    return impactset.Problem.scene("compass-gait")


def velocities(p: impactset.Problem, k: int, seed: int = 0) -> np.ndarray:
    """`k` pre-impact velocities around the problem's own."""
    rng = np.random.default_rng(seed)
    return np.asarray(p.v) * (1.0 + 0.2 * rng.standard_normal((k, p.n)))


def same_cell(a: object, b: object) -> bool:
    """Equal floats bit for bit (NaN equal to NaN), equal lists entry by entry."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        return a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return a == b


def assert_same_table(x: Reach, y: Reach) -> None:
    assert x.columns == y.columns
    assert x.kinds == y.kinds
    for name in x.columns:
        a, b = x[name], y[name]
        assert a.dtype == b.dtype and a.shape == b.shape, name
        if a.dtype == object:
            assert all(same_cell(p, q) for p, q in zip(a, b, strict=True)), name
        else:
            assert a.tobytes() == b.tobytes(), name


def twin(p: impactset.Problem, v: np.ndarray) -> impactset.Problem:
    """`p` at another pre-impact velocity, with its name and defaults."""
    return impactset.Problem.from_arrays(
        p.M, v, p.Jn, p.Jt, p.mu, p.names, name=p.name, step_size=p.step_size, steps=p.steps
    )


# ---------------------------------------------------------------- the table


def test_columns_rows_and_types() -> None:
    p = gait()
    V = velocities(p, 5)
    r = impactset.reach(p, SAMPLES, velocities=V, seed=4)
    assert len(r) == 5 and r.run["states"] == 5 and r.run["samples"] == 5 * SAMPLES
    assert r.columns[:4] == ["state", "seed", "problem", "step_size"]
    assert list(r.table) == r.columns
    assert r["state"].dtype == np.uint64 and r["state"].tolist() == list(range(5))
    assert r["epsilon"].dtype == np.float64
    assert r["problem"].dtype == object and set(r["problem"]) == {"compass-gait"}
    assert all(isinstance(s, str) for s in r["top_mode"])
    assert r.kinds["simultaneous"] == "f64 list"
    assert np.array_equal(np.column_stack([r[f"v_minus_{i}"] for i in range(p.n)]), V)
    assert not r["epsilon"].flags.writeable
    with pytest.raises(TypeError):
        r.table["epsilon"] = r["epsilon"]  # type: ignore[index]
    assert r.sets is None
    assert "compass-gait" in repr(r) and "5 states" in repr(r)
    assert r.elapsed_s > 0


def test_rows_satisfy_the_invariants() -> None:
    p = gait()
    r = impactset.reach(p, SAMPLES, velocities=velocities(p, 6, seed=1), seed=2)
    assert (r["samples"] == SAMPLES).all()
    assert (r["accepted"] + r["unterminated"] + r["inaccurate"] == r["samples"]).all()
    ok = r["accepted"] > 0
    assert ok.any()
    # Support values: the largest at least the smallest, per direction.
    for name in r.columns:
        if name.endswith("_max") and name[: -len("_max")] + "_min" in r.table and name != "simultaneous_max":
            hi, lo = r[name][ok], r[name[: -len("_max")] + "_min"][ok]
            assert (hi >= lo).all(), name
    # Impacts do not add energy (to the acceptance tolerance).
    assert (r["energy_ratio_min"][ok] <= r["energy_ratio_max"][ok]).all()
    assert (r["energy_ratio_max"][ok] <= 1.0 + 1e-6).all()
    # Each contact is in exactly one mode in every accepted outcome.
    for contact in p.names:
        shares = sum(r[f"{contact}_{m}"] for m in ["separates", "sticks", "slides_pos", "slides_neg"])
        assert np.allclose(shares[ok], 1.0, rtol=0, atol=1e-12), contact
    assert ((r["top_mode_share"][ok] > 0) & (r["top_mode_share"][ok] <= 1)).all()
    assert (r["joint_modes"][ok] >= 1).all()
    assert (r["simultaneous_count"] == np.array([len(x) for x in r["simultaneous"]])).all()
    assert (r["heldout"] <= r["accepted"]).all()


def test_each_row_is_a_sample_run_at_its_state_seed() -> None:
    """State k's set is `sample` at v_k with the table's seed; its support
    columns are the max and min of cᵀv⁺ over that set."""
    p = gait()
    V = velocities(p, 3, seed=5)
    r = impactset.reach(p, SAMPLES, velocities=V, seed=9, keep_sets=True)
    assert r.sets is not None and len(r.sets) == 3
    for k in range(3):
        s = impactset.sample(twin(p, V[k]), SAMPLES, seed=int(r["seed"][k]))
        assert s.v_plus.tobytes() == r.sets[k].tobytes()
        assert r["accepted"][k] == len(s) == r.sets[k].shape[0]
        assert r["v2_max"][k] == s.v_plus[:, 2].max() and r["v2_min"][k] == s.v_plus[:, 2].min()
        normal = s.v_plus @ np.asarray(p.Jn)[1]
        assert r["B_normal_max"][k] == pytest.approx(normal.max(), abs=1e-12)
        assert r["step_size"][k] == p.step_size
    # Distinct states draw distinct seeds.
    assert len(set(r["seed"].tolist())) == 3


def test_given_directions_replace_the_defaults() -> None:
    p = gait()
    c = np.array([1.0, -1.0, 0.5, 0.0])
    r = impactset.reach(
        p, SAMPLES, velocities=velocities(p, 2), directions={"mix": c, "swing": [0, 0, 0, 1]}, keep_sets=True
    )
    assert [x for x in r.columns if x.endswith(("_max", "_min")) and not x.startswith("simultaneous")] == [
        "energy_ratio_min",
        "energy_ratio_max",
        "mix_max",
        "mix_min",
        "swing_max",
        "swing_min",
    ]
    assert r.sets is not None
    for k, v_plus in enumerate(r.sets):
        assert r["mix_max"][k] == pytest.approx((v_plus @ c).max(), abs=1e-12)
        assert r["swing_min"][k] == v_plus[:, 3].min()


def test_without_baselines_the_baseline_columns_go() -> None:
    p = gait()
    r = impactset.reach(p, 32, velocities=velocities(p, 2), baselines=False)
    assert "simultaneous" not in r.table and "baselines_outside" not in r.table
    assert r.columns[-1] == "miss_probability"


def test_one_problem_alone_is_one_state_at_its_own_velocity() -> None:
    p = gait()
    r = impactset.reach(p, 64, seed=3)
    assert len(r) == 1
    assert np.array_equal([r[f"v_minus_{i}"][0] for i in range(p.n)], p.v)


def test_to_pandas() -> None:
    pd = pytest.importorskip("pandas")
    p = gait()
    r = impactset.reach(p, 32, velocities=velocities(p, 3))
    df = r.to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == r.columns and len(df) == 3
    assert np.array_equal(df["accepted"].to_numpy(), r["accepted"])
    assert df["top_mode"].tolist() == list(r["top_mode"])


def test_without_pandas_to_pandas_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    r = impactset.reach(gait(), 8)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="pip install pandas"):
        r.to_pandas()


def test_reach_pickles() -> None:
    p = gait()
    r = impactset.reach(p, 32, velocities=velocities(p, 2), keep_sets=True)
    assert_same_table(pickle.loads(pickle.dumps(r)), r)


def test_progress_reports_every_sample() -> None:
    p = gait()
    seen: list[tuple[int, int]] = []
    impactset.reach(p, 100, velocities=velocities(p, 4), progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (400, 400)


# ------------------------------------------------------------- determinism


def test_thread_counts_give_the_same_table() -> None:
    p = gait()
    V = velocities(p, 7, seed=3)
    one = impactset.reach(p, SAMPLES, velocities=V, seed=1, threads=1, keep_sets=True)
    two = impactset.reach(p, SAMPLES, velocities=V, seed=1, threads=2, keep_sets=True)
    assert_same_table(one, two)
    assert one.sets is not None and two.sets is not None
    assert all(a.tobytes() == b.tobytes() for a, b in zip(one.sets, two.sets, strict=True))


@pytest.mark.parametrize("cuts", [[0, 7], [0, 3, 7], [0, 1, 2, 5, 7], [0, 0, 4, 4, 7]])
def test_shards_join_to_the_whole_batch(cuts: list[int]) -> None:
    p = gait()
    V = velocities(p, 7, seed=6)
    whole = impactset.reach(p, SAMPLES, velocities=V, seed=8, keep_sets=True)
    parts = [
        reach_native(p, SAMPLES, velocities=V, seed=8, keep_sets=True, start=a, end=b)
        for a, b in zip(cuts, cuts[1:], strict=False)
    ]
    joined = Reach._join(parts, 0.0)
    assert_same_table(joined, whole)
    assert joined.sets is not None and whole.sets is not None
    assert [s.tobytes() for s in joined.sets] == [s.tobytes() for s in whole.sets]


def test_velocities_and_a_list_of_problems_give_the_same_rows() -> None:
    p = gait()
    V = velocities(p, 4, seed=2)
    a = impactset.reach(p, SAMPLES, velocities=V, seed=5)
    b = impactset.reach([twin(p, v) for v in V], SAMPLES, seed=5)
    assert_same_table(a, b)


# ---------------------------------------------------------------- extremes


def cube() -> impactset.Problem:
    return impactset.Problem.scene("cube-edge")


def test_extremes_bound_the_sampled_support_in_every_row() -> None:
    p = cube()
    V = velocities(p, 4, seed=4)
    r = impactset.reach(p, 32, velocities=V, seed=2, selection="random-lemke", extremes=True, extremes_budget=16)
    stems = [c[: -len("_max")] for c in r.columns if c.endswith("_max") and f"{c[: -len('_max')]}_min" in r.columns]
    stems = [s for s in stems if f"{s}_extreme" in r.columns]
    assert len(stems) == 12
    for stem in stems:
        assert (r[f"{stem}_extreme"] >= r[f"{stem}_max"]).all(), stem
    gap = r["extremes_gap"]
    assert np.isfinite(gap).all() and (gap >= 0).all()
    assert r.run["extremes_budget"] == 16
    plain = impactset.reach(p, 32, velocities=V, seed=2, selection="random-lemke")
    assert not any("extreme" in c for c in plain.columns)
    assert plain["v0_max"].tobytes() == r["v0_max"].tobytes()


@pytest.mark.parametrize("cuts", [[0, 2, 4], [0, 1, 4]])
def test_extremes_do_not_depend_on_threads_or_shards(cuts: list[int]) -> None:
    p = cube()
    V = velocities(p, 4, seed=5)
    options = {"velocities": V, "seed": 3, "selection": "random-lemke", "extremes": True, "extremes_budget": 16}
    one = impactset.reach(p, 32, threads=1, **options)
    two = impactset.reach(p, 32, threads=2, **options)
    assert_same_table(one, two)
    parts = [reach_native(p, 32, start=a, end=b, **options) for a, b in zip(cuts, cuts[1:], strict=False)]
    assert_same_table(Reach._join(parts, 0.0), one)


def test_extremes_budget_needs_extremes() -> None:
    with pytest.raises(ValueError, match="^extremes_budget: "):
        impactset.reach(cube(), 8, extremes_budget=8)
    with pytest.raises(ValueError, match="^extremes_budget: "):
        impactset.reach(cube(), 8, extremes=True, extremes_budget=-1)
    with pytest.raises(TypeError, match="^extremes: "):
        impactset.reach(cube(), 8, extremes=1)  # type: ignore[arg-type]


# ----------------------------------------------------- the command line


def run_cli(cli: Path, *args: str) -> None:
    subprocess.run([str(cli), "reach", *args, "--quiet"], check=True, capture_output=True)


def read_csv(path: Path, r: Reach) -> dict[str, list[object]]:
    with path.open(newline="") as f:
        # Lines starting with '#' (the batch's identity) are not rows.
        rows = [row for row in csv.reader(f) if row and not row[0].startswith("#")]
    header, body = rows[0], rows[1:]
    out: dict[str, list[object]] = {}
    for j, name in enumerate(header):
        kind = r.kinds.get(name)
        cells = [row[j] for row in body]
        if kind == "u64":
            out[name] = [int(c) for c in cells]
        elif kind == "f64":
            out[name] = [float(c) for c in cells]
        elif kind == "f64 list":
            out[name] = [np.array([float(x) for x in c.split(";")] if c else []) for c in cells]
        else:
            out[name] = cells
    return out


def assert_table_equals(r: Reach, table: dict[str, list[object]]) -> None:
    assert list(table) == r.columns
    for name in r.columns:
        ours = r[name]
        theirs = table[name]
        assert len(theirs) == len(ours), name
        for a, b in zip(ours.tolist() if ours.dtype != object else list(ours), theirs, strict=True):
            assert same_cell(a, b), (name, a, b)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_table_equals_the_cli(cli: Path, tmp_path: Path, fmt: str) -> None:
    if fmt == "parquet":
        pq = pytest.importorskip("pyarrow.parquet")
    p = gait()
    V = velocities(p, 6, seed=11)
    np.save(tmp_path / "v.npy", V)
    out = tmp_path / f"t.{fmt}"
    run_cli(
        cli,
        "compass-gait",
        "--velocities",
        str(tmp_path / "v.npy"),
        "-n",
        str(SAMPLES),
        "--seed",
        "12",
        "--out",
        str(out),
        "--sets",
        str(tmp_path / "sets.npy"),
    )
    r = impactset.reach(p, SAMPLES, velocities=V, seed=12, keep_sets=True)
    if fmt == "csv":
        table = read_csv(out, r)
    else:
        t = pq.read_table(out)
        table = {name: t.column(name).to_pylist() for name in t.column_names}
    assert_table_equals(r, table)
    assert r.sets is not None
    assert np.vstack(r.sets).tobytes() == np.load(tmp_path / "sets.npy").tobytes()


def test_problem_files_directions_and_rules_equal_the_cli(cli: Path, tmp_path: Path) -> None:
    p = impactset.Problem.scene("rocking-block")
    problems = [twin(p, v) for v in velocities(p, 3, seed=4)]
    paths = []
    for k, q in enumerate(problems):
        paths.append(str(tmp_path / f"s{k}.json"))
        q.save(paths[-1])
    out = tmp_path / "t.csv"
    run_cli(
        cli,
        *paths,
        "-n",
        "80",
        "--seed",
        "3",
        "--selection",
        "random-lemke",
        "--steps",
        "7",
        "--step-size",
        "0.2",
        "--direction",
        "d=1,0.5,-2",
        "--no-baselines",
        "--out",
        str(out),
    )
    r = impactset.reach(
        [impactset.Problem.load(x) for x in paths],
        80,
        seed=3,
        selection="random-lemke",
        steps=7,
        step_size=0.2,
        directions={"d": [1, 0.5, -2]},
        baselines=False,
    )
    assert_table_equals(r, read_csv(out, r))


def test_cli_shards_equal_python_ranges(cli: Path, tmp_path: Path) -> None:
    p = gait()
    V = velocities(p, 5, seed=1)
    np.save(tmp_path / "v.npy", V)
    whole = impactset.reach(p, 48, velocities=V, seed=2)
    for i in range(2):
        out = tmp_path / f"s{i}.csv"
        run_cli(
            cli,
            "compass-gait",
            "--velocities",
            str(tmp_path / "v.npy"),
            "-n",
            "48",
            "--seed",
            "2",
            "--shard",
            f"{i}/2",
            "--out",
            str(out),
        )
        a, b = i * 5 // 2, (i + 1) * 5 // 2
        part = Reach._join([reach_native(p, 48, velocities=V, seed=2, start=a, end=b)], 0.0)
        assert_table_equals(part, read_csv(out, whole))


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n": 0}, "^n: "),
        ({"velocities": np.zeros((2, 3))}, r"^velocities: expected shape \(K, 4\)"),
        ({"velocities": np.zeros(4)}, r"^velocities: expected shape \(K, 4\)"),
        ({"velocities": [[0, 0, 0, float("nan")]]}, r"^velocities\[0, 3\] = nan"),
        ({"selection": "fast"}, "^selection: "),
        ({"directions": {"x": [1, 0]}}, r"^directions\['x'\]: 2 entries, n = 4"),
        ({"directions": {"a b": [1, 0, 0, 0]}}, r"^directions\['a b'\]: "),
        ({"directions": {"x": [[1, 0, 0, 0]]}}, r"^directions\['x'\]: expected a vector"),
        ({"directions": {}}, "^directions: "),
        ({"step_size": -1.0}, "^step_size: "),
        ({"heldout_every": 1}, "^heldout_every: "),
        ({"delta": 1.5}, "^delta: "),
        ({"threads": 0}, "^threads: "),
        ({"backend": "tpu"}, "^backend: "),
        ({"precision": "f32"}, "^precision: "),
    ],
)
def test_bad_arguments_raise_value_errors_naming_them(kwargs: dict, match: str) -> None:
    kwargs = {"n": 8, **kwargs}
    with pytest.raises(ValueError, match=match):
        impactset.reach(gait(), **kwargs)


def test_bad_problems_raise_naming_them() -> None:
    p = gait()
    block = impactset.Problem.scene("rocking-block")
    with pytest.raises(ValueError, match=r"^problem\[1\] \('rocking-block'\): n = 3"):
        impactset.reach([p, block], 8)
    with pytest.raises(ValueError, match="^problem: an empty list"):
        impactset.reach([], 8)
    with pytest.raises(ValueError, match="^velocities: give one Problem"):
        impactset.reach([p, p], 8, velocities=np.zeros((1, 4)))
    with pytest.raises(TypeError, match=r"^problem\[1\]: expected an impactset.Problem"):
        impactset.reach([p, "compass-gait"], 8)
    with pytest.raises(TypeError, match="^problem: "):
        impactset.reach("compass-gait", 8)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="^end: "):
        reach_native(p, 8, velocities=np.zeros((2, 4)), start=0, end=3)
    with pytest.raises(ValueError, match="^end: "):
        reach_native(p, 8, velocities=np.zeros((2, 4)), start=2, end=1)


def test_no_states_gives_an_empty_table() -> None:
    p = gait()
    r = impactset.reach(p, 8, velocities=np.zeros((0, 4)))
    assert len(r) == 0 and r.columns[0] == "state" and len(r["epsilon"]) == 0


# ---------------------------------------------------------------- pickling


@pytest.mark.parametrize("which", ["scene", "arrays", "spatial"])
def test_problems_pickle_bit_for_bit(which: str) -> None:
    if which == "scene":
        p = impactset.Problem.scene("compass-gait")
    elif which == "arrays":
        p = impactset.Problem.from_arrays(
            np.diag([1.0, 1.0, 0.2]), [0.1, -1.0, 1 / 3], [[0, 1, 0.3]], [[1, 0, 0.2]], [0.6], ["toe"], name="x"
        )
    else:
        rng = np.random.default_rng(0)
        a = rng.standard_normal((6, 6))
        p = impactset.Problem.from_arrays(
            a @ a.T + 6 * np.eye(6),
            rng.standard_normal(6),
            rng.standard_normal((2, 6)),
            rng.standard_normal((2, 2, 6)),
            [0.3, 0.7],
            friction_directions=6,
            step_size=0.125,
            samples=99,
        )
    for q in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p), copy.copy(p)):
        assert isinstance(q, impactset.Problem)
        for attr in ["M", "v", "Jn", "Jt", "mu"]:
            assert getattr(q, attr).tobytes() == getattr(p, attr).tobytes(), attr
        for attr in ["names", "name", "n", "m", "dimension", "friction_directions", "step_size", "steps", "samples"]:
            assert getattr(q, attr) == getattr(p, attr), attr
        assert impactset.sample(q, 50, seed=1).v_plus.tobytes() == impactset.sample(p, 50, seed=1).v_plus.tobytes()


# ------------------------------------------------------ GIL and Ctrl-C


def test_ctrl_c_stops_a_long_batch(sigint: None) -> None:
    import _thread
    import threading
    import time

    p = impactset.Problem.scene("disk-stack")
    states, per_state = 256, 1 << 16
    done = [0]
    timer = threading.Timer(1.0, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        impactset.reach(
            p, per_state, velocities=np.tile(p.v, (states, 1)), progress=lambda k, total: done.__setitem__(0, k)
        )
    timer.cancel()
    assert done[0] < states * per_state // 100
    assert time.monotonic() - start < 60
    assert len(impactset.reach(gait(), 8)) == 1


def test_another_thread_runs_during_a_batch() -> None:
    import threading

    p = gait()
    result: dict[str, Reach] = {}
    worker = threading.Thread(target=lambda: result.update(r=impactset.reach(p, 4096, velocities=velocities(p, 8))))
    worker.start()
    spins = 0
    while worker.is_alive():
        spins += 1
    worker.join()
    assert spins > 1000
    assert_same_table(result["r"], impactset.reach(p, 4096, velocities=velocities(p, 8)))
