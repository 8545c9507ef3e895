"""One robot through both importers: example-robot-data's Unitree Go1 URDF
loaded by Pinocchio (legs FL, FR, RL, RR) and by MuJoCo (legs FR, FL, RR,
RL), aligned by joint and contact names, is one impact problem."""

from __future__ import annotations

import re

import impactset
import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")
pin = pytest.importorskip("pinocchio")

import impactset.mujoco  # noqa: E402
import impactset.pinocchio  # noqa: E402

FEET = ("FL_foot", "FR_foot", "RL_foot", "RR_foot")

#: A landing state by coordinate name: bent legs, the base unrotated (so
#: MuJoCo's world-frame and Pinocchio's base-frame linear velocities agree).
POSE = {"hip": 0.1, "thigh": 0.8, "calf": -1.5}
BASE_VELOCITY = {"base_vx": 0.3, "base_vy": 0.1, "base_vz": -1.0, "base_wx": 0.2, "base_wy": -0.1, "base_wz": 0.05}


def go1_urdf() -> str:
    """The Go1 URDF without its meshes (collision boxes, cylinders and the
    feet's spheres stay) and with its 1e-6 placeholder inertia made positive
    definite, which MuJoCo's compiler requires; both importers read this."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        robots = distribution("example-robot-data").locate_file("cmeel.prefix/share/example-robot-data/robots")
    except PackageNotFoundError:
        pytest.skip("example-robot-data not installed (scripts/test-all.sh installs it)")
    text = (robots / "go1_description" / "urdf" / "go1.urdf").read_text()
    text = re.sub(r"<visual>.*?</visual>", "", text, flags=re.S)
    return text.replace('ixy="1e-6" ixz="1e-6" iyy="1e-6" iyz="1e-6"', 'ixy="0" ixz="0" iyy="1e-6" iyz="0"')


def joint_value(name: str) -> float:
    """The pose's angle of joint ``name`` (``FL_hip_joint``, …): the hips
    spread outwards."""
    leg, part = name.split("_")[:2]
    return -POSE[part] if part == "hip" and leg.endswith("R") else POSE[part]


def joint_rate(name: str) -> float:
    return (
        0.1 * (1 + ["FL", "FR", "RL", "RR"].index(name[:2])) * (1 + ["hip", "thigh", "calf"].index(name.split("_")[1]))
    )


def test_go1_from_mujoco_and_pinocchio_is_one_problem_once_aligned() -> None:
    urdf = go1_urdf()
    # MuJoCo: the URDF's base made free, a floor, the feet lowered onto it.
    spec = mujoco.MjSpec.from_string(urdf)
    spec.compiler.fusestatic = False
    spec.worldbody.first_body().add_freejoint()
    spec.worldbody.add_geom(name="floor", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[5, 5, 0.1], friction=[1, 0.005, 1e-4])
    model = spec.compile()
    data = mujoco.MjData(model)
    mj_names = impactset.mujoco.coordinate_names(model)
    assert [n[:2] for n in mj_names[6::3]] == ["FR", "FL", "RR", "RL"]
    data.qpos[3:7] = [1, 0, 0, 0]
    for j in range(1, model.njnt):
        data.qpos[model.jnt_qposadr[j]] = joint_value(model.joint(j).name)
    mujoco.mj_kinematics(model, data)
    feet = [g for g in range(model.ngeom) if model.body(model.geom_bodyid[g]).name in FEET]
    data.qpos[2] -= min(data.geom_xpos[g][2] - model.geom_size[g][0] for g in feet)
    qvel = {**BASE_VELOCITY, **{name: joint_rate(name) for name in mj_names[6:]}}
    data.qvel[:] = [qvel[name] for name in mj_names]
    from_mujoco = impactset.mujoco.problem(model, data, bodies=list(FEET))

    # Pinocchio: the same URDF, the same state by name, the same foot points.
    pmodel = pin.buildModelFromXML(urdf, pin.JointModelFreeFlyer())
    pdata = pmodel.createData()
    pin_names = impactset.pinocchio.coordinate_names(pmodel)
    assert [n[:2] for n in pin_names[6::3]] == ["FL", "FR", "RL", "RR"]
    q = pin.neutral(pmodel)
    q[2] = data.qpos[2]
    for j in range(2, pmodel.njoints):
        q[pmodel.joints[j].idx_q] = joint_value(pmodel.names[j])
    v = np.array([qvel[name] for name in pin_names])
    radius = model.geom_size[feet[0]][0]
    pin.framesForwardKinematics(pmodel, pdata, q)
    contacts = [
        {
            "frame": f,
            "normal": [0, 0, 1],
            "mu": 1.0,
            "point": pdata.oMf[pmodel.getFrameId(f)].translation - [0, 0, radius],
        }
        for f in FEET
    ]
    from_pinocchio = impactset.pinocchio.problem(pmodel, pdata, q, v, contacts)

    # MuJoCo names a contact by its geoms: floor/geom<k>, k on a foot body.
    foot_of = {name: model.body(model.geom_bodyid[int(name.split("geom")[-1])]).name for name in from_mujoco.names}
    aligned = impactset.align(
        from_mujoco, from_pinocchio, coordinates=mj_names, to_coordinates=pin_names, contacts=foot_of
    )
    scale = np.abs(from_pinocchio.M).max()
    assert aligned.names == list(FEET)
    assert np.allclose(aligned.M, from_pinocchio.M, rtol=0, atol=1e-9 * scale)
    assert np.array_equal(aligned.v, from_pinocchio.v)
    assert np.allclose(aligned.Jn, from_pinocchio.Jn, rtol=0, atol=1e-9)
    assert np.array_equal(aligned.mu, from_pinocchio.mu)
    # The tangent bases may differ within each plane: the planes agree.
    for a, b in zip(aligned.Jt, from_pinocchio.Jt, strict=True):
        assert np.allclose(a.T @ a, b.T @ b, rtol=0, atol=1e-9)
    # The same sets: the same seed gives the same outcomes, up to the
    # round-off of two computations of M (the two tangent bases differ by a
    # symmetry of the eight-sided friction cone).
    a_set = impactset.sample(aligned, 128, seed=3, selection="random-lemke", steps=40)
    b_set = impactset.sample(from_pinocchio, 128, seed=3, selection="random-lemke", steps=40)
    speed = np.abs(from_pinocchio.v).max()
    assert a_set.v_plus.shape == b_set.v_plus.shape == (128, 18)
    assert np.allclose(a_set.v_plus, b_set.v_plus, rtol=0, atol=1e-9 * speed)
    # Unaligned, the same rows describe another robot: the legs are swapped.
    assert not np.allclose(from_mujoco.M, from_pinocchio.M, rtol=0, atol=1e-3 * scale)


def test_align_refuses_names_that_do_not_match() -> None:
    p = impactset.Problem.from_arrays(np.eye(2), [0.3, -1.0], [[0.0, 1.0]], [[1.0, 0.0]], [0.5], ["foot"])
    with pytest.raises(
        ValueError, match=r"coordinates: the names differ: only to has \['z'\], only the problem has \['y'\]"
    ):
        impactset.align(p, p, coordinates=["x", "y"], to_coordinates=["x", "z"])
    with pytest.raises(ValueError, match=r"coordinates: the problem's names \['x'\] are given more than once"):
        impactset.align(p, p, coordinates=["x", "x"], to_coordinates=["x", "y"])
    with pytest.raises(ValueError, match="coordinates: 3 names for the problem's 2 coordinates"):
        impactset.align(p, p, coordinates=["x", "y", "z"], to_coordinates=["x", "y"])
    with pytest.raises(
        ValueError, match=r"contacts: the names differ: only to has \['foot'\], only the problem has \['toe'\]"
    ):
        impactset.align(p, p, coordinates=["x", "y"], to_coordinates=["x", "y"], contacts={"foot": "toe"})
    with pytest.raises(ValueError, match=r"contacts: \['heel'\] are not contacts of the problem"):
        impactset.align(p, p, coordinates=["x", "y"], to_coordinates=["x", "y"], contacts={"heel": "foot"})
