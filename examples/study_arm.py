"""The impact study's arm case (``examples/impact_study.py``, ``docs/study.md``):
example-robot-data's Franka Emika Panda pushing a box across the floor into
a rail lying across its path.

The arm's base is fixed at the origin, its fingers closed and locked (the
hand's finger joints removed), its hand pitched 30° forward from pointing
down, a fingertip on the back face of an upright box (the YCB cracker box)
whose front face meets the rail: the impact has the box's four bottom
corners on the floor, its front face on the rail (two contacts) and the
fingertip on its back face, all at once. Box and arm arrive at the push
speed; the controller is franka_ros's Cartesian impedance with the example
controller's gains, on a straight push that ends at the rail (its reference
has just stopped there). The verdict: the box tips over (tilted more than
45° after 1 s). Every parameter and its source is in ``docs/study.md``.

``python examples/study_arm.py --rail 0.01 --speed 0.25 --out FIGURE`` draws
the box's tilt from every sample of the set against MuJoCo's single outcome
at one condition.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

import impactset.mujoco as imj
import mujoco
import numpy as np

PANDA = "robots/panda_description/"
#: The links that touch: the hand and its two fingers (their collision boxes).
HAND = ["panda_hand", "panda_leftfinger", "panda_rightfinger"]
ARM = [f"panda_joint{k}" for k in range(1, 8)]
#: The YCB cracker box (Calli et al., 2015): 0.060 × 0.158 × 0.210 m, 0.411 kg,
#: upright, pushed on its broad face (0.060 deep along the push).
BOX = (0.060, 0.158, 0.210)
MASS = 0.411
#: Sliding friction of every geom (cardboard on a table), chosen once.
MU = 0.4
#: The push: the tool centre point (between the fingertips' pads) this high
#: above the floor, at this distance from the base.
TCP_HEIGHT = 0.05
TCP_REACH = 0.6
#: The hand pitched forward from pointing down, so the fingertips lead the
#: hand (at 0° its body sticks out past the fingers).
PITCH = np.deg2rad(30.0)
#: The hand turned about its approach axis (joint 7) from square: one
#: fingertip's corner touches the box first instead of both pads' edges.
TWIST = np.deg2rad(5.0)
#: franka_ros's Cartesian impedance example controller: translational
#: stiffness 200 N/m, rotational 10 N·m/rad, nullspace 0.5 N·m/rad, each
#: damped at 2√k; torque rate at most 1 N·m per 1 ms step; effort limits from
#: the URDF (87 and 12 N·m).
K_T, K_R, K_NS = 200.0, 10.0, 0.5
RATE = 1.0
TIMESTEP = 1e-3
OVERLAP = 1e-6
#: The verdict: the box tilted more than this (degrees) at the end.
TIPPED = 45.0
DURATION = 1.0


def _default_pose() -> dict[str, float]:
    """The SRDF's ``default`` group_state (the arm's joints)."""
    root = ET.parse(imj.example_robot_data(PANDA + "srdf/panda.srdf")).getroot()
    state = next(g for g in root.iter("group_state") if g.get("name") == "default")
    return {j.get("name", ""): float(j.get("value", "0")) for j in state.iter("joint")}


def panda(add: Callable[[mujoco.MjSpec], None] | None = None) -> mujoco.MjModel:
    """The Panda on a fixed base, fingers locked, only the hand colliding;
    ``add`` puts the box and the rail in."""

    def scene(spec: mujoco.MjSpec) -> None:
        for eq in list(spec.equalities):  # the second finger's mimic of the first
            spec.delete(eq)
        for name in ["panda_finger_joint1", "panda_finger_joint2"]:
            spec.delete(spec.joint(name))
        if add is not None:
            add(spec)

    urdf = imj.example_robot_data(PANDA + "urdf/panda.urdf")
    return imj.load_urdf(urdf, fixed_base=True, feet=HAND, friction=MU, timestep=TIMESTEP, scene=scene)


@cache
def pushing_pose() -> tuple[np.ndarray, float]:
    """The arm's joint angles with the tool centre point at (``TCP_REACH``,
    0, ``TCP_HEIGHT``) and the hand pitched forward by ``PITCH`` from
    pointing down (its fingers' opening along y): the arm in its vertical
    plane (joints 1, 3 and 5 at zero), joints 2, 4 and 6 by Gauss–Newton from
    a bent elbow, then joint 7 turned by ``TWIST`` from the SRDF's
    ``default``; and the x of the fingertips' front."""
    model = panda()
    data = mujoco.MjData(model)
    default = _default_pose()
    for name in ARM:
        data.qpos[model.jnt_qposadr[model.joint(name).id]] = default[name]
    mujoco.mj_forward(model, data)
    tcp = model.body("panda_hand_tcp").id
    c, s = np.cos(PITCH), np.sin(PITCH)
    want_R = np.array([[c, 0.0, -s], [0.0, 1.0, 0.0], [s, 0.0, c]]) @ data.xmat[tcp].reshape(3, 3)
    want_p = np.array([TCP_REACH, 0.0, TCP_HEIGHT])
    plane = [1, 3, 5]  # joints 2, 4, 6
    jp, jr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
    low, high = model.jnt_range[:, 0], model.jnt_range[:, 1]
    for seed in [(0.5, -2.4, 3.4), (0.7, -2.3, 3.5), (0.3, -2.6, 3.2)]:
        data.qpos[plane] = seed
        for _ in range(300):
            mujoco.mj_forward(model, data)
            R = data.xmat[tcp].reshape(3, 3)
            err = np.concatenate([want_p - data.xpos[tcp], _rotation_error(R, want_R)])
            if np.linalg.norm(err) < 1e-12:
                break
            mujoco.mj_jacBody(model, data, jp, jr, tcp)
            step = np.linalg.lstsq(np.vstack([jp, jr])[:, plane], err, rcond=None)[0]
            step *= min(1.0, 0.1 / np.abs(step).max())
            data.qpos[plane] = np.clip(data.qpos[plane] + step, low[plane], high[plane])
        if np.linalg.norm(err) < 1e-9:
            break
    else:
        raise RuntimeError(f"pushing pose: inverse kinematics left an error of {np.linalg.norm(err):.2g}")
    data.qpos[6] += TWIST  # the hand turned about its axis: one fingertip's corner leads
    mujoco.mj_forward(model, data)
    front = max(_box_corners(model, data, g)[:, 0].max() for g in _finger_geoms(model))
    return data.qpos.copy(), float(front)


def _rotation_error(R: np.ndarray, want: np.ndarray) -> np.ndarray:
    """A world-frame rotation vector turning ``R`` towards ``want`` (exact
    direction, magnitude sin of the angle)."""
    return 0.5 * sum(np.cross(R[:, i], want[:, i]) for i in range(3))


def _finger_geoms(model: mujoco.MjModel) -> list[int]:
    fingers = {model.body(b).id for b in HAND[1:]}
    return [g for g in range(model.ngeom) if int(model.geom_bodyid[g]) in fingers and model.geom_contype[g]]


def _box_corners(model: mujoco.MjModel, data: mujoco.MjData, g: int) -> np.ndarray:
    signs = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)], dtype=float)
    return data.geom_xpos[g] + (signs * model.geom_size[g]) @ data.geom_xmat[g].reshape(3, 3).T


def scene(rail: float) -> mujoco.MjModel:
    """The Panda with the box between its fingertips and a rail of radius
    ``rail`` lying on the floor across the push."""
    size = np.array(BOX)
    _, front = pushing_pose()

    # Box, fingertip and rail overlap by a micrometre: MuJoCo's box-box
    # collision does not report an edge within the margin that is not yet
    # touching (the fingertips' pads touch the box along their edges).
    back = front - OVERLAP

    def add(spec: mujoco.MjSpec) -> None:
        body = spec.worldbody.add_body(name="box", pos=[back + size[0] / 2, 0.0, size[2] / 2])
        body.add_freejoint(name="box")
        body.explicitinertial = True  # the URDF's compiler takes no inertia from geoms
        body.mass = MASS
        body.ipos, body.iquat = [0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]
        body.inertia = MASS / 12 * (np.sum(size**2) - size**2)
        geom = body.add_geom(name="box", type=mujoco.mjtGeom.mjGEOM_BOX, size=size / 2)
        geom.friction[0] = MU
        spec.worldbody.add_geom(
            name="rail",
            type=mujoco.mjtGeom.mjGEOM_CAPSULE,
            size=[rail, 0.5, 0.0],
            pos=[back + size[0] - OVERLAP + rail, 0.0, rail],
            quat=[np.sqrt(0.5), np.sqrt(0.5), 0.0, 0.0],  # its axis along y
            friction=[MU, 0.005, 0.0001],
        )

    return panda(add)


def impedance(model: mujoco.MjModel, goal: np.ndarray, R_goal: np.ndarray, q_rest: np.ndarray) -> Callable:
    """franka_ros's Cartesian impedance law to a fixed pose:
    ``τ = Jᵀ(−K e − D J q̇) + N (k_ns (q_rest − q) − 2√k_ns q̇) + c(q, q̇) + g(q)``
    (``N`` the nullspace projector ``I − Jᵀ (Jᵀ)⁺``, ``c + g`` MuJoCo's
    ``qfrc_bias``), its change per step at most ``RATE`` N·m and clipped to
    the URDF's efforts. The motors' ``ctrl`` is the last torque sent."""
    tcp = model.body("panda_hand_tcp").id
    dofs = np.array([model.jnt_dofadr[model.joint(n).id] for n in ARM])
    qadr = np.array([model.jnt_qposadr[model.joint(n).id] for n in ARM])
    low, high = model.actuator_ctrlrange[:, 0], model.actuator_ctrlrange[:, 1]
    K = np.diag([K_T] * 3 + [K_R] * 3)
    D = 2.0 * np.sqrt(K)
    jp, jr = np.zeros((3, model.nv)), np.zeros((3, model.nv))

    def torque(model: mujoco.MjModel, data: mujoco.MjData, rate: bool = True) -> np.ndarray:
        mujoco.mj_jacBody(model, data, jp, jr, tcp)
        J = np.vstack([jp, jr])[:, dofs]
        qd = data.qvel[dofs]
        R = data.xmat[tcp].reshape(3, 3)
        e = np.concatenate([data.xpos[tcp] - goal, -_rotation_error(R, R_goal)])
        task = J.T @ (-K @ e - D @ (J @ qd))
        null = np.eye(len(dofs)) - J.T @ np.linalg.solve(J @ J.T, J)  # I - Jᵀ (Jᵀ)⁺, J of full rank
        rest = K_NS * (q_rest - data.qpos[qadr])
        tau = task + null @ (rest - 2.0 * np.sqrt(K_NS) * qd) + data.qfrc_bias[dofs]
        if rate:
            tau = data.ctrl + np.clip(tau - data.ctrl, -RATE, RATE)
        return np.clip(tau, low, high)

    return torque


def impact(rail: float, speed: float) -> tuple[mujoco.MjModel, mujoco.MjData, Callable]:
    """The impact state: arm and box moving along +x at ``speed``, the box
    touching the floor, the rail and the fingertips; and the controller."""
    model = scene(rail)
    q, _ = pushing_pose()
    data = mujoco.MjData(model)
    arm = [model.jnt_qposadr[model.joint(n).id] for n in ARM]
    dofs = [model.jnt_dofadr[model.joint(n).id] for n in ARM]
    data.qpos[arm] = q[:7]
    mujoco.mj_forward(model, data)
    tcp = model.body("panda_hand_tcp").id
    jp, jr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
    mujoco.mj_jacBody(model, data, jp, jr, tcp)
    J = np.vstack([jp, jr])[:, dofs]
    data.qvel[dofs] = np.linalg.pinv(J) @ np.array([speed, 0, 0, 0, 0, 0])  # the hand moving straight at speed
    box = model.jnt_dofadr[model.joint("box").id]
    data.qvel[box] = speed
    # The push ends at the rail: the reference stops where the box meets it,
    # ahead of the hand by the steady pushing lag (the box's sliding friction
    # over the stiffness), so the arm keeps pressing with the pushing force.
    goal = data.xpos[tcp] + np.array([MU * MASS * -model.opt.gravity[2] / K_T, 0.0, 0.0])
    controller = impedance(model, goal, data.xmat[tcp].reshape(3, 3).copy(), q[:7])
    mujoco.mj_forward(model, data)
    data.ctrl[:] = controller(model, data, rate=False)  # the torque being sent at the impact
    mujoco.mj_forward(model, data)
    return model, data, controller


def directions(model: mujoco.MjModel) -> np.ndarray:
    """± the box's forward speed and ± its pitch rate (the velocities that
    tip it over the rail or back)."""
    box = model.jnt_dofadr[model.joint("box").id]
    eye = np.eye(model.nv)[[box, box + 4]]
    return np.vstack([eye, -eye])


def arm_box(small: bool) -> Iterator:
    """The case's conditions (``study_cases.Condition``), registered in
    ``study_cases.CASES`` as ``arm-box``."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from study_cases import Condition, final_tilt_deg  # the sibling module, which registers this one

    grid = {0.01: [0.15, 0.2, 0.25, 0.3, 0.35], 0.02: [0.3, 0.6]}
    for rail, speeds in ({0.01: [0.25]} if small else grid).items():
        for v in speeds:
            model, data, controller = impact(rail, v)
            label = {"rail": rail, "speed": v}
            yield Condition(
                "arm-box", label, model, data, controller, final_tilt_deg, TIPPED, DURATION, directions(model)
            )


def figure(rail: float, speed: float, samples: int, path: Path) -> None:
    """The box's tilt against time from every sample of the set (red: tips
    over) and from MuJoCo's single outcome (black), rolled out with the
    controller and kept every 10 ms."""
    import impactset
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    model, data, controller = impact(rail, speed)
    p = imj.problem(model, data)
    s = impactset.sample(p, samples, seed=0, selection="random-lemke")
    times = np.arange(0.0, DURATION + 1e-9, 0.01)
    r = imj.rollouts(model, data, s, duration=DURATION, controller=controller, times=times, metrics={})
    box = model.jnt_qposadr[model.joint("box").id]

    def tilt(qpos: np.ndarray) -> np.ndarray:
        q = qpos[..., box + 3 : box + 7]
        q = q / np.linalg.norm(q, axis=-1, keepdims=True)
        return np.rad2deg(np.arccos(np.clip(1.0 - 2.0 * (q[..., 1] ** 2 + q[..., 2] ** 2), -1.0, 1.0)))

    tilts = tilt(r.trajectories.qpos)
    mine = tilt(r.outcome_states[:, 1 : 1 + model.nq])
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    for k, row in enumerate(tilts):
        up = row[-1] <= TIPPED
        label = None if k else "samples of the set"
        ax.plot(r.times, row, color="tab:green" if up else "tab:red", alpha=0.35, lw=1, label=label)
    ax.plot(r.times, mine, color="k", lw=2.2, label="MuJoCo's own outcome")
    ax.axhline(TIPPED, color="gray", ls=":", lw=1)
    share = float(np.mean(tilts[:, -1] > TIPPED))
    ax.set(
        xlabel="time after the impact (s)",
        ylabel="box tilt (°)",
        title=f"Panda pushing a box into a {2 * rail * 100:g} cm rail at {speed} m/s: {share:.0%} of the set tips it over",
    )
    ax.title.set_fontsize(10)
    ax.legend(loc="center right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}: {len(s)} samples, {share:.1%} tip over; MuJoCo's outcome ends at {mine[-1]:.1f}°")
    # What separates the samples that tip from those that do not: the box's
    # pitch rate and the fingertip's normal speed (leaving the box: > 0) just
    # after the impact, and the energy kept.
    pitch = model.jnt_dofadr[model.joint("box").id] + 4
    finger = [k for k, n in enumerate(p.names) if "finger" in n]
    tipped = tilts[:, -1] > TIPPED
    kept = np.asarray(s.energy_ratio)
    for name, rows in [("tip over", s.v_plus[tipped]), ("stay up", s.v_plus[~tipped]), ("MuJoCo", r.outcome[None])]:
        if rows.size:
            w, u = rows[:, pitch], rows @ p.Jn[finger].T
            print(
                f"  {name}: pitch rate {w.min():.3f}..{w.max():.3f} rad/s, fingertip normal speed {u.min():.4f}..{u.max():.4f} m/s"
            )
    print(
        f"  energy kept {kept.min():.3f}..{kept.max():.3f} (tip over: {kept[tipped].min() if tipped.any() else np.nan:.3f}..)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rail", type=float, default=0.01, help="the rail's radius (m)")
    parser.add_argument("--speed", type=float, default=0.25, help="the push speed (m/s)")
    parser.add_argument("--samples", type=int, default=128)
    parser.add_argument("--out", type=Path, default=Path("arm_box_trajectories.png"))
    args = parser.parse_args()
    figure(args.rail, args.speed, args.samples, args.out)


if __name__ == "__main__":
    main()
