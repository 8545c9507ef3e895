"""rollouts(..., impacts=...): every later impact of a rollout resolved by the
set (an ImpactSampler per rollout), on a tumbling box."""

from __future__ import annotations

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")
import impactset  # noqa: E402
import impactset.mujoco as imj  # noqa: E402

# A box falling corner first onto a floor: it tumbles through several impacts.
BOX = """<mujoco><option timestep="0.002"/><worldbody>
  <geom name="floor" type="plane" size="2 2 .1" friction=".6"/>
  <body name="box" pos="0 0 .3" euler="20 30 0"><freejoint/><geom name="box" type="box" size=".1 .07 .05"/></body>
</worldbody></mujoco>"""


def box_landing():
    model = mujoco.MjModel.from_xml_string(BOX)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    floor = model.geom("floor").id
    data.qpos[2] -= mujoco.mj_geomDistance(model, data, floor, model.geom("box").id, 1.0, None)
    data.qvel[:] = [0.3, 0.0, -2.0, 1.0, 0.0, 0.0]
    mujoco.mj_forward(model, data)
    return model, data


def test_without_impacts_the_sampler_loop_is_mujocos():
    """A threshold no contact reaches: no impact is resolved, and the states
    are MuJoCo's own rollouts' bit for bit (the sampler's step is mj_step)."""
    model, data = box_landing()
    s = impactset.sample(imj.problem(model, data), 4, seed=0)
    plain = imj.rollouts(model, data, s, duration=0.5, times=[0.1, 0.5], metrics={})
    sampled = imj.rollouts(model, data, s, duration=0.5, times=[0.1, 0.5], metrics={}, impacts={"threshold": 1e9})
    assert sampled.method == "stepped" and plain.method == "rollout"
    assert np.array_equal(sampled.states, plain.states)
    assert np.array_equal(sampled.outcome_states, plain.outcome_states)
    assert np.all(sampled.metrics["impacts"] == 0)


def test_later_impacts_are_drawn_from_the_seed():
    model, data = box_landing()
    s = impactset.sample(imj.problem(model, data), 3, seed=0)
    one = imj.rollouts(model, data, s, duration=0.8, metrics={}, outcome=False, impacts={"seed": 5})
    again = imj.rollouts(model, data, s, duration=0.8, metrics={}, outcome=False, impacts={"seed": 5})
    other = imj.rollouts(model, data, s, duration=0.8, metrics={}, outcome=False, impacts={"seed": 6})
    plain = imj.rollouts(model, data, s, duration=0.8, metrics={}, outcome=False)
    assert np.all(one.metrics["impacts"] >= 1)  # the tumbling box meets later impacts
    assert np.array_equal(one.states, again.states)
    assert not np.array_equal(one.states, other.states)
    assert not np.array_equal(one.states, plain.states)


def test_bad_impacts_arguments_are_named():
    model, data = box_landing()
    v = data.qvel[None].copy()
    with pytest.raises(ValueError, match="seed"):
        imj.rollouts(model, data, v, duration=0.01, outcome=False, impacts={"seed": -1})
    with pytest.raises(ValueError, match="threshold"):
        imj.rollouts(model, data, v, duration=0.01, outcome=False, impacts={"threshold": -1.0})
    with pytest.raises(ValueError, match="impacts"):
        imj.rollouts(model, data, v, duration=0.01, outcome=False, metrics={"impacts": imj.fell()}, impacts={})
