"""load_urdf: a legged URDF in MuJoCo with a free base, a floor and contacts
at the feet, on example-robot-data's robots and on small URDFs built here;
keyframe_pd and the joint and body metrics against direct computations."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")
import impactset.mujoco as imj  # noqa: E402

try:
    imj.example_robot_data()
except ModuleNotFoundError:  # pragma: no cover
    pytest.skip("example-robot-data is not installed", allow_module_level=True)

A1 = "robots/a1_description/urdf/a1.urdf"
A1_FEET = ["FL_foot", "FR_foot", "RL_foot", "RR_foot"]


def a1(**kwargs):
    srdf = imj.example_robot_data("robots/a1_description/srdf/a1.srdf")
    return imj.load_urdf(imj.example_robot_data(A1), feet=A1_FEET, srdf=srdf, state="standing", **kwargs)


def test_a1_has_a_free_base_and_the_urdf_joints():
    model = a1()
    free = int(mujoco.mjtJoint.mjJNT_FREE)
    assert int(model.jnt_type[0]) == free and int(model.jnt_dofadr[0]) == 0
    assert sum(int(t) == free for t in model.jnt_type) == 1
    assert model.nv == 6 + 12 and model.nq == 7 + 12
    # The base is the one top-level body: its parent is the world.
    assert model.body_parentid[model.jnt_bodyid[0]] == 0
    urdf = ET.parse(imj.example_robot_data(A1)).getroot()
    moving = [j.get("name") for j in urdf.findall("joint") if j.get("type") in ("revolute", "continuous", "prismatic")]
    hinges = [model.joint(j).name for j in range(1, model.njnt)]
    assert sorted(hinges) == sorted(moving)
    # One motor per joint, named after it, limited to the URDF's effort.
    effort = {
        j.get("name"): float(j.find("limit").get("effort")) for j in urdf.findall("joint") if j.get("name") in moving
    }
    for a in range(model.nu):
        name = model.actuator(a).name
        assert model.joint(int(model.actuator_trnid[a, 0])).name == name
        assert model.actuator_ctrlrange[a].tolist() == [-effort[name], effort[name]]
    # Only the feet and the floor collide.
    colliding = {model.geom(g).name for g in range(model.ngeom) if model.geom_contype[g] or model.geom_conaffinity[g]}
    assert colliding == {"floor", *A1_FEET}


def test_a1_falls_freely_then_lands_on_its_feet():
    model = a1()
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.key("standing").id)
    drop = 0.1
    data.qpos[2] += drop
    z0, g, h = float(data.qpos[2]), -float(model.opt.gravity[2]), float(model.opt.timestep)
    hold = imj.keyframe_pd(model, "standing", kp=40.0, kd=2.0)
    steps = 0
    while data.ncon == 0:  # motors off in flight: nothing moves the joints
        mujoco.mj_step(model, data)
        steps += 1
        if data.ncon == 0:
            # Free fall: semi-implicit Euler's z after k steps, z0 − g h² k(k+1)/2.
            assert data.qpos[2] == pytest.approx(z0 - g * h * h * steps * (steps + 1) / 2, abs=1e-6)
    assert steps * h == pytest.approx(np.sqrt(2 * drop / g), abs=0.02)
    for _ in range(int(0.5 / h)):
        data.ctrl[:] = hold(model, data)
        mujoco.mj_step(model, data)
    feet = {model.geom(int(data.contact.geom[i][k])).name for i in range(data.ncon) for k in (0, 1)}
    assert feet == {"floor", *A1_FEET}
    up = data.xmat[model.body("base").id].reshape(3, 3)[:, 2]
    assert up[2] > np.cos(np.deg2rad(20))  # upright (the landing examples' rule)
    assert 0.15 < data.qpos[2] < 0.3


def test_talos_meshes_resolve_and_its_soles_touch_at_the_keyframe():
    erd = imj.example_robot_data
    model = imj.load_urdf(
        erd("robots/talos_data/robots/talos_reduced.urdf"),
        feet=["leg_left_6_link", "leg_right_6_link"],
        srdf=erd("robots/talos_data/srdf/talos.srdf"),
        state="half_sitting",
    )
    assert model.nv == 6 + model.nu and model.nmesh > 0
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.key("half_sitting").id)
    mujoco.mj_forward(model, data)
    names = {model.geom(int(data.contact.geom[i][1])).name for i in range(data.ncon)}
    assert names == {"leg_left_6_link", "leg_right_6_link"}
    assert np.all(np.abs(data.contact.dist[: data.ncon]) < 1e-3)


LEG = """<robot name="hopper">
  {world}
  <link name="base"><inertial><mass value="2"/><inertia ixx=".02" iyy=".02" izz=".02" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="package://nowhere/base.dae"/></geometry></visual>
    <collision><geometry><box size=".2 .2 .1"/></geometry></collision></link>
  <link name="shin"><inertial><mass value=".5"/><inertia ixx=".01" iyy=".01" izz=".01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><origin xyz="0 0 -.15"/><geometry><box size=".04 .04 .3"/></geometry></collision></link>
  <link name="foot"><collision><geometry><sphere radius=".02"/></geometry></collision></link>
  <joint name="knee" type="revolute"><parent link="base"/><child link="shin"/><axis xyz="0 1 0"/>
    <limit effort="20" lower="-1" upper="1" velocity="10"/></joint>
  <joint name="ankle" type="fixed"><parent link="shin"/><child link="foot"/><origin xyz="0 0 -.3"/></joint>
</robot>"""


@pytest.mark.parametrize(
    "world",
    ["", '<link name="world"/><joint name="weld" type="fixed"><parent link="world"/><child link="base"/></joint>'],
)
def test_a_world_link_does_not_weld_the_base(tmp_path, world):
    path = tmp_path / "hopper.urdf"
    path.write_text(LEG.format(world=world))
    model = imj.load_urdf(path, feet=["foot"])
    assert model.nv == 7 and int(model.jnt_type[0]) == int(mujoco.mjtJoint.mjJNT_FREE)
    assert model.body(int(model.jnt_bodyid[0])).name == "base"
    assert model.body_parentid[model.body("foot").id] == model.body("shin").id  # the fixed joint kept as a body
    assert model.body_mass.sum() == pytest.approx(2.5)  # the foot link has no inertial: massless


def test_bad_inputs_are_named(tmp_path):
    path = tmp_path / "hopper.urdf"
    path.write_text(
        LEG.format(world="").replace('<box size=".2 .2 .1"/>', '<mesh filename="package://nowhere/base.stl"/>')
    )
    with pytest.raises(FileNotFoundError, match="package 'nowhere'"):
        imj.load_urdf(path)
    mesh = tmp_path / "base.dae"
    mesh.write_text("")
    path.write_text(LEG.format(world="").replace('<box size=".2 .2 .1"/>', f'<mesh filename="{mesh}"/>'))
    with pytest.raises(ValueError, match=r"not \.dae"):
        imj.load_urdf(path)
    path.write_text(LEG.format(world=""))
    with pytest.raises(ValueError, match="feet"):
        imj.load_urdf(path, feet=["toe"])
    with pytest.raises(ValueError, match="srdf and state"):
        imj.load_urdf(path, state="standing")
    with pytest.raises(FileNotFoundError, match="relative"):
        imj.example_robot_data("robots/no_such_robot.urdf")


PENDULUM = """<mujoco><option timestep="0.001"/><worldbody><body>
  <joint name="j" axis="0 1 0" damping="0"/>
  <geom type="sphere" pos=".5 0 0" size=".01" mass="2"/>
</body></worldbody><actuator><motor joint="j" gear="4"/></actuator>
<keyframe><key name="k" qpos="-0.4"/></keyframe></mujoco>"""


@pytest.mark.parametrize("gravity", [True, False])
def test_keyframe_pd_holds_the_key_with_gravity_compensation(gravity):
    model = mujoco.MjModel.from_xml_string(PENDULUM)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    kp = 200.0
    hold = imj.keyframe_pd(model, "k", kp=kp, kd=20.0, gravity=gravity)
    for _ in range(5000):
        data.ctrl[:] = hold(model, data)
        mujoco.mj_step(model, data)
    q = float(data.qpos[0])
    if gravity:
        assert q == pytest.approx(-0.4, abs=1e-6)
    else:
        # Static balance of a point mass m at l: kp (q_key − q) + m g l cos q = 0
        # (a hinge about y, the arm along x: z = −l sin q, gravity's torque m g l cos q).
        residual = kp * (-0.4 - q) + 2.0 * 9.81 * 0.5 * np.cos(q)
        assert abs(residual) < 1e-3 and abs(q + 0.4) > 0.01


def test_keyframe_pd_refuses_what_it_cannot_drive():
    model = mujoco.MjModel.from_xml_string(PENDULUM.replace("<motor ", '<position kp="5" '))
    with pytest.raises(ValueError, match="not a motor"):
        imj.keyframe_pd(model, "k", kp=1.0, kd=1.0)
    model = mujoco.MjModel.from_xml_string(PENDULUM)
    with pytest.raises(ValueError, match="keyframe"):
        imj.keyframe_pd(model, "nope", kp=1.0, kd=1.0)
    with pytest.raises(ValueError, match="kp"):
        imj.keyframe_pd(model, "k", kp=[1.0, 2.0], kd=1.0)


TALOS = "robots/talos_data/robots/talos_reduced.urdf"
TALOS_SOLES = ["leg_left_6_link", "leg_right_6_link"]


def test_keyframe_pd_support_leaves_a_force_the_feet_can_supply():
    # TALOS at half_sitting, at rest: tau = b_joint - (J^T F)_joint, so the
    # generalized force the motors leave, b - S^T tau, is J^T F for some
    # wrenches F at the soles (zero on the base's rows after J_base^T F);
    # qfrc_bias alone leaves the base's whole weight unbalanced.
    srdf = imj.example_robot_data("robots/talos_data/srdf/talos.srdf")
    model = imj.load_urdf(imj.example_robot_data(TALOS), feet=TALOS_SOLES, srdf=srdf, state="half_sitting")
    model.actuator_ctrlrange[:] = [-1e6, 1e6]  # the balance, not the URDF's effort limits
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.key("half_sitting").id)
    mujoco.mj_forward(model, data)
    dofs = model.jnt_dofadr[model.actuator_trnid[:, 0]]
    jacobian = []
    for name in TALOS_SOLES:
        jp, jr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
        mujoco.mj_jacBody(model, data, jp, jr, model.body(name).id)
        jacobian += [jp, jr]
    jacobian = np.vstack(jacobian)
    for support, balanced in ((TALOS_SOLES, True), (None, False)):
        tau = imj.keyframe_pd(model, "half_sitting", kp=1e3, kd=10.0, support=support)(model, data)
        left = np.array(data.qfrc_bias)
        left[dofs] -= tau
        wrenches = np.linalg.lstsq(jacobian.T, left, rcond=None)[0]
        residual = np.linalg.norm(jacobian.T @ wrenches - left)
        assert (residual < 1e-8 * np.linalg.norm(left)) == balanced
        if balanced:  # the soles carry the robot's weight: the wrenches' vertical forces sum to m g
            weight = model.body_subtreemass[1] * -model.opt.gravity[2]
            assert wrenches[2] + wrenches[8] == pytest.approx(weight, rel=1e-9)


def test_keyframe_pd_support_refuses_what_it_cannot_use():
    model = a1()
    with pytest.raises(ValueError, match="no body 'nope'"):
        imj.keyframe_pd(model, "standing", kp=1.0, kd=1.0, support=["nope"])
    with pytest.raises(ValueError, match="none"):
        imj.keyframe_pd(model, "standing", kp=1.0, kd=1.0, support=[])
    fixed = mujoco.MjModel.from_xml_string(PENDULUM)
    with pytest.raises(ValueError, match="floating base"):
        imj.keyframe_pd(fixed, "k", kp=1.0, kd=1.0, support=["world"])


def test_load_urdf_soles_touch_at_their_corners():
    # TALOS on box soles 0.205 x 0.122 m, 0.107 m below the ankles, lowered
    # onto the floor flat: eight contacts, at the soles' corners, and the
    # robot's mass and inertia as without them.
    erd = imj.example_robot_data
    srdf = erd("robots/talos_data/srdf/talos.srdf")
    soles = {a: (0.205, 0.122, 0.107) for a in TALOS_SOLES}
    model = imj.load_urdf(erd(TALOS), srdf=srdf, state="half_sitting", soles=soles)
    plain = imj.load_urdf(erd(TALOS), feet=TALOS_SOLES, srdf=srdf, state="half_sitting")
    np.testing.assert_array_equal(model.body_mass, plain.body_mass)
    np.testing.assert_array_equal(model.body_inertia, plain.body_inertia)
    colliding = [model.geom(g).name for g in range(model.ngeom) if model.geom_contype[g] or model.geom_conaffinity[g]]
    assert sorted(colliding) == ["floor", "leg_left_6_link/sole", "leg_right_6_link/sole"]
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.key("half_sitting").id)
    mujoco.mj_forward(model, data)
    ankles = [model.body(a).id for a in TALOS_SOLES]
    data.qpos[2] -= float(np.mean(data.xpos[ankles, 2])) - 0.107 + 5e-4  # every corner 0.5 mm or less into the floor
    mujoco.mj_forward(model, data)
    assert imj.problem(model, data).m == data.ncon == 8
    for a in ankles:
        frame = data.xmat[a].reshape(3, 3)
        mine = [
            np.asarray(data.contact.pos[i])
            for i in range(data.ncon)
            if model.geom_bodyid[data.contact.geom[i]].max() == a
        ]
        local = np.sort(np.round([(frame.T @ (q - data.xpos[a]))[:2] for q in mine], 4), axis=0)
        corners = np.sort([[x, y] for x in (-0.1025, 0.1025) for y in (-0.061, 0.061)], axis=0)
        np.testing.assert_allclose(local, corners, atol=2e-3)
    with pytest.raises(ValueError, match="three positive"):
        imj.load_urdf(erd(TALOS), soles={TALOS_SOLES[0]: (0.2, 0.1)})
    with pytest.raises(ValueError, match="not in the URDF"):
        imj.load_urdf(erd(TALOS), soles={"no_link": (0.2, 0.1, 0.1)})


def test_joint_and_body_metrics_against_mujoco():
    model = a1()
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.key("standing").id)
    data.qpos[2] += 0.05
    data.qvel[6:] = np.linspace(-1.0, 1.0, 12)
    r = imj.rollouts(
        model, data, data.qvel[None].copy(), duration=0.2, times=np.arange(0, 0.2001, 0.01), outcome=False, metrics={}
    )
    t = r.trajectories
    speed = imj.joint_speed(["FL_calf_joint", "RR_thigh_joint"], "max")(model, t)
    adr = [model.jnt_dofadr[model.joint(n).id] for n in ["FL_calf_joint", "RR_thigh_joint"]]
    assert speed[0] == np.max(np.abs(t.qvel[0][:, adr]))
    pos = imj.joint_position("FL_calf_joint", "final")(model, t)
    assert pos[0] == t.qpos[0, -1, model.jnt_qposadr[model.joint("FL_calf_joint").id]]
    foot = imj.body_height("FL_foot", "min", every=0.01)(model, t)
    scratch = mujoco.MjData(model)
    heights = []
    for state in r.states[0]:
        mujoco.mj_setState(model, scratch, state, mujoco.mjtState.mjSTATE_FULLPHYSICS)
        mujoco.mj_kinematics(model, scratch)
        heights.append(scratch.xpos[model.body("FL_foot").id, 2])
    assert foot[0] == pytest.approx(min(heights), abs=1e-12)
    with pytest.raises(ValueError, match="no joint"):
        imj.joint_speed(["nope"])(model, t)
    with pytest.raises(ValueError, match="no body"):
        imj.body_height("nope")(model, t)


def test_srdf_keyframe_turns_pinocchios_base_quaternion_into_mujocos(tmp_path):
    path = tmp_path / "hopper.urdf"
    path.write_text(LEG.format(world=""))
    srdf = tmp_path / "hopper.srdf"
    # A quarter turn about z: Pinocchio's x y z qx qy qz qw.
    s = np.sqrt(0.5)
    srdf.write_text(
        f'<robot name="hopper"><group_state name="crouch" group="all">'
        f'<joint name="root_joint" value="0.1 0.2 0.5 0 0 {s} {s}"/><joint name="knee" value="0.3"/>'
        f"</group_state></robot>"
    )
    model = imj.load_urdf(path, feet=["foot"], srdf=srdf, state="crouch")
    qpos = model.key("crouch").qpos
    assert qpos[:3].tolist() == [0.1, 0.2, 0.5]
    assert qpos[3:7] == pytest.approx([s, 0.0, 0.0, s])  # MuJoCo's w x y z
    assert qpos[7] == 0.3
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_forward(model, data)
    # The base's x axis now points along the world's y.
    assert data.xmat[model.body("base").id].reshape(3, 3)[:, 0] == pytest.approx([0.0, 1.0, 0.0], abs=1e-12)
    with pytest.raises(ValueError, match="no group_state 'stand'"):
        imj.load_urdf(path, srdf=srdf, state="stand")


def test_a_fixed_base_stays_put_and_a_scene_keeps_its_contacts(tmp_path):
    path = tmp_path / "hopper.urdf"
    path.write_text(LEG.format(world=""))

    def ball(spec):
        body = spec.worldbody.add_body(name="ball", pos=[0.5, 0.0, 0.2])
        body.add_freejoint(name="ball")
        # The URDF's compiler takes no inertia from geoms: a solid 1-kg ball of radius 5 cm.
        body.explicitinertial = True
        body.mass, body.inertia = 1.0, [1e-3, 1e-3, 1e-3]
        body.add_geom(name="ball", type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[0.05, 0.0, 0.0])

    model = imj.load_urdf(path, feet=["foot"], fixed_base=True, scene=ball)
    base = model.body("base").id
    assert model.body_parentid[base] == 0 and model.body_jntnum[base] == 0  # welded to the world
    assert model.nv == 1 + 6 and model.nu == 1 and model.actuator(0).name == "knee"
    data = mujoco.MjData(model)
    data.qpos[model.jnt_qposadr[model.joint("knee").id]] = 0.5
    mujoco.mj_forward(model, data)
    start = data.xpos[base].copy()
    for _ in range(1000):
        mujoco.mj_step(model, data)
    assert np.array_equal(data.xpos[base], start)  # gravity and the swinging shin move nothing
    knee = data.qpos[model.jnt_qposadr[model.joint("knee").id]]
    assert abs(knee - 0.5) > 0.1  # the shin swings under gravity
    # The scene's ball kept the contacts it was given (the feet's filter is the robot's): it rests on the floor.
    assert data.qpos[model.jnt_qposadr[model.joint("ball").id] + 2] == pytest.approx(0.05, abs=2e-3)
