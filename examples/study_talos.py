"""TALOS cases of the impact study (``examples/impact_study.py``,
``docs/study.md``): example-robot-data's ``talos_reduced.urdf`` on flat
rectangular soles, standing at the SRDF's ``half_sitting`` with a joint PD
(PAL's published simulation gains) and the floating-base gravity
compensation of a robot standing on its soles
(``impactset.mujoco.keyframe_pd(..., support=)``).

* ``talos-landing``: landing flat on both soles, sink × forward speed;
* ``talos-landing-edge``: the same at the forward speed where the rollout
  from MuJoCo's own outcome lifts a sole corner exactly 5 mm (the edge);
* ``talos-heel-strike``: both feet pitched toes-up, heels first; the toes'
  landing is a later impact drawn from its own set (``impacts=``);
* ``talos-step``: the end of a walking step: the right (stance) foot flat,
  the left (swing) foot striking heel first while a swing-foot PD tracks
  its trajectory (the toe rolled down); step width × foot pitch; the
  verdict is the stance foot lifting off.

Why a joint PD with ``qfrc_bias`` alone lets TALOS fall (and why, on the
URDF's ankle meshes, it also needs the SRDF's rotor inertia) is shown by
``python examples/study_talos_report.py`` (standing runs);
``python examples/study_talos_report.py --figure talos-step width=0.25
pitch=5 --out FILE`` draws one condition's trajectories.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import impactset.mujoco as imj
import mujoco
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from study_cases import GAP, Condition, base_directions, rise  # noqa: E402  (the sibling module)

URDF = "robots/talos_data/robots/talos_reduced.urdf"
SRDF = "robots/talos_data/srdf/talos.srdf"
KEY = "half_sitting"
ANKLES = ["leg_left_6_link", "leg_right_6_link"]  # the links that carry the soles
#: Rotor inertia (kg·m²) of every joint: the SRDF's rotor_params (rotor
#: inertia 1e-5 kg·m², gear ratio 100: 1e-5 · 100²).
ARMATURE = 0.1
#: The sole: 0.205 m long (x), 0.122 m wide (y), 0.107 m below the ankle,
#: centred under it (the SRDF's "specificities" of the feet).
SOLE = (0.205, 0.122, 0.107)
#: Joint PD gains (kp N·m/rad, kd N·m·s/rad): PAL's Gazebo simulation of
#: TALOS (talos_simulation, talos_hardware_gazebo/config/pids.yaml), their
#: P and D terms (the small integral terms left out).
SOLES = [f"{a}/sole" for a in ANKLES]
PAL_GAINS = {
    "leg": (5000.0, 20.0),
    "torso": (10000.0, 10.0),
    "head": (300.0, 0.1),
    "gripper": (1000.0, 10.0),
    "arm_1": (10000.0, 5.0),
    "arm_2": (20000.0, 5.0),
    "arm_3": (5000.0, 10.0),
    "arm_4": (5000.0, 10.0),
    "arm_5": (500.0, 1.0),
    "arm_6": (500.0, 1.0),
    "arm_7": (500.0, 1.0),
}


def talos(armature: float = ARMATURE) -> mujoco.MjModel:
    """TALOS with a free base and a floor, ``half_sitting`` as keyframe, flat
    box soles on the ankles (``load_urdf(..., soles=)``: MuJoCo's box–plane
    contacts are their corners) instead of the ankles' meshes."""
    erd = imj.example_robot_data
    return imj.load_urdf(erd(URDF), srdf=erd(SRDF), state=KEY, armature=armature, soles={a: SOLE for a in ANKLES})


def gains(model: mujoco.MjModel) -> tuple[np.ndarray, np.ndarray]:
    """PAL_GAINS per actuator (actuators are named after their joints)."""
    kp, kd = np.empty(model.nu), np.empty(model.nu)
    for a in range(model.nu):
        name = model.actuator(a).name
        group = name.split("_")[0] if not name.startswith("arm") else f"arm_{name.split('_')[2]}"
        kp[a], kd[a] = PAL_GAINS[group]
    return kp, kd


def stand(model: mujoco.MjModel, key: str = KEY, support: tuple[str, ...] = tuple(ANKLES)) -> Callable:
    kp, kd = gains(model)
    return imj.keyframe_pd(model, key, kp=kp, kd=kd, support=list(support))


def corners(model: mujoco.MjModel, data: mujoco.MjData, sole: str) -> np.ndarray:
    """(4, 3) world positions of a sole's bottom corners."""
    g = model.geom(sole).id
    sx, sy, sz = model.geom_size[g]
    local = np.array([[x, y, -sz] for x in (-sx, sx) for y in (-sy, sy)])
    return data.geom_xpos[g] + local @ data.geom_xmat[g].reshape(3, 3).T


def sole_heights(model: mujoco.MjModel, soles: list[str]) -> Callable[[mujoco.MjData], np.ndarray]:
    """``heights(data)``: the heights of every corner of ``soles``."""
    return lambda data: np.concatenate([corners(model, data, s)[:, 2] for s in soles])


def lift(model: mujoco.MjModel, data: mujoco.MjData, soles: list[str]) -> Callable:
    """Metric: the largest rise (m) of a corner of ``soles`` above its height
    at the impact, read every 5 ms."""
    return rise(model, data, sole_heights(model, soles))


def _condition(
    case: str,
    label: dict,
    model: mujoco.MjModel,
    data: mujoco.MjData,
    controller: Callable,
    soles: list[str],
    small: bool,
    **extra: object,
) -> Condition:
    """A condition of ``case``: the verdict is a corner of ``soles`` lifting
    past the gap within the rollout."""
    duration = SMALL_DURATION if small else DURATION
    score = lift(model, data, soles)
    return Condition(
        case, label, model, data, controller, score, GAP, duration, _directions(model, data, small), **extra
    )


def touching(model: mujoco.MjModel, data: mujoco.MjData) -> None:
    """Lower the robot until its lowest sole corner is on the floor."""
    mujoco.mj_forward(model, data)
    data.qpos[2] -= min(corners(model, data, s)[:, 2].min() for s in SOLES)
    mujoco.mj_forward(model, data)


def talos_landing(small: bool) -> Iterator[Condition]:
    """Both soles flat, the robot at ``half_sitting`` falling at ``sink``
    and moving forward at ``forward`` (m/s), joints at rest."""
    model = talos()
    pd = stand(model)
    for vz in [0.5] if small else [0.25, 1.0]:
        for vx in [0.2] if small else [0.0, 0.2, 0.4]:
            data = mujoco.MjData(model)
            mujoco.mj_resetDataKeyframe(model, data, model.key(KEY).id)
            touching(model, data)
            data.qvel[:3] = [vx, 0.0, -vz]
            mujoco.mj_forward(model, data)
            yield _condition("talos-landing", {"forward": vx, "sink": vz}, model, data, pd, SOLES, small)


def _landing(model: mujoco.MjModel, vx: float, vz: float) -> mujoco.MjData:
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.key(KEY).id)
    touching(model, data)
    data.qvel[:3] = [vx, 0.0, -vz]
    mujoco.mj_forward(model, data)
    return data


def _outcome_lift(model: mujoco.MjModel, data: mujoco.MjData, controller: Callable) -> float:
    """The soles' largest corner rise (m) over ``DURATION`` rolled out from
    MuJoCo's own outcome of the impact (``impactset.mujoco.outcome``), as the
    study scores MuJoCo."""
    v = imj.outcome(model, data)
    metric = lift(model, data, SOLES)
    r = imj.rollouts(
        model, data, v[None], duration=DURATION, controller=controller, metrics={"s": metric}, outcome=False
    )
    return float(r.metrics["s"][0])


def talos_landing_edge(small: bool) -> Iterator[Condition]:
    """Flat landings at the verdict's edge: for each sink speed, the forward
    speed at which the rollout from MuJoCo's own outcome lifts a sole corner
    exactly 5 mm, found by bisection between the grid's 0.2 m/s (every
    outcome stays flat) and 0.4 m/s (every outcome lifts). There the set's
    spread alone decides; the share of it that fails measures how wide the
    band of uncertain landings is."""
    model = talos()
    pd = stand(model)
    for vz in [0.5] if small else [0.25, 1.0]:
        lo, hi = 0.2, 0.4
        for _ in range(3 if small else 14):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if _outcome_lift(model, _landing(model, mid, vz), pd) <= GAP else (lo, mid)
        vx = round(0.5 * (lo + hi), 5)
        data = _landing(model, vx, vz)
        yield _condition("talos-landing-edge", {"forward": vx, "sink": vz}, model, data, pd, SOLES, small)


def _directions(model: mujoco.MjModel, data: mujoco.MjData, small: bool) -> np.ndarray:
    """Extremes directions: ± the base's six velocities and each contact's
    normal velocity (``--small``: the base's only)."""
    base = base_directions(model.nv)
    return base if small else np.vstack([base, imj.problem(model, data).Jn])


#: How long every rollout runs (s): a sole that rocks or lifts does so within it.
DURATION = 0.4
#: ``--small``'s rollouts (s): enough to run every part in CI, not a verdict.
SMALL_DURATION = 0.15

#: The heel strike's forward speed (m/s).
HEEL_FORWARD = 0.2


def talos_heel_strike(small: bool) -> Iterator[Condition]:
    """The whole robot pitched toes-up by ``pitch`` (degrees) about its
    soles' heels, falling at ``sink`` (m/s) and moving forward at
    ``HEEL_FORWARD``:
    the four heel corners strike, the toes land later (drawn from their set
    in every rollout of the set)."""
    model = talos()
    pd = stand(model)
    for pitch in [3.0] if small else [1.0, 3.0]:
        for vz in [0.25] if small else [0.25, 1.0]:
            data = mujoco.MjData(model)
            mujoco.mj_resetDataKeyframe(model, data, model.key(KEY).id)
            half = -0.5 * np.deg2rad(pitch)  # about y, negative: toes up
            data.qpos[3:7] = [np.cos(half), 0.0, np.sin(half), 0.0]
            touching(model, data)
            data.qvel[:3] = [HEEL_FORWARD, 0.0, -vz]
            mujoco.mj_forward(model, data)
            label = {"pitch": pitch, "sink": vz}
            yield _condition("talos-heel-strike", label, model, data, pd, SOLES, small, impacts={"seed": 0})


def _leg(model: mujoco.MjModel, side: str) -> np.ndarray:
    """The qvel addresses of one leg's six joints."""
    return np.array([model.jnt_dofadr[model.joint(f"leg_{side}_{k}_joint").id] for k in range(1, 7)])


def _pitched(theta: float) -> np.ndarray:
    """Rotation about y by ``-theta``: the toes up by ``theta`` (radians)."""
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, 0.0, -s], [0.0, 1.0, 0.0], [s, 0.0, c]])


def _ankle_target(heel: np.ndarray, theta: float) -> tuple[np.ndarray, np.ndarray]:
    """The ankle frame's pose for a sole pitched toes-up by ``theta`` about
    the middle of its heel edge, ``heel`` (world)."""
    rot = _pitched(theta)
    return heel + rot @ np.array([SOLE[0] / 2, 0.0, SOLE[2]]), rot


def _reach(model: mujoco.MjModel, data: mujoco.MjData, side: str, pos: np.ndarray, rot: np.ndarray) -> None:
    """Damped least squares on one leg's joints until its ankle frame is at
    ``pos`` with orientation ``rot`` (the base and other joints fixed)."""
    body = model.body(f"leg_{side}_6_link").id
    dofs = _leg(model, side)
    qadr = model.jnt_qposadr[[model.joint(f"leg_{side}_{k}_joint").id for k in range(1, 7)]]
    jp, jr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
    for _ in range(100):
        mujoco.mj_kinematics(model, data)
        mujoco.mj_comPos(model, data)
        now = data.xmat[body].reshape(3, 3)
        skew = rot @ now.T - now @ rot.T  # small-angle orientation error, as a skew matrix (x2)
        error = np.concatenate([pos - data.xpos[body], 0.5 * np.array([skew[2, 1], skew[0, 2], skew[1, 0]])])
        if np.linalg.norm(error) < 1e-10:
            break
        mujoco.mj_jacBody(model, data, jp, jr, body)
        jac = np.vstack([jp, jr])[:, dofs]
        data.qpos[qadr] += np.linalg.solve(jac.T @ jac + 1e-9 * np.eye(6), jac.T @ error)


def _min_jerk(x: np.ndarray) -> np.ndarray:
    x = np.clip(x, 0.0, 1.0)
    return x**3 * (10.0 - 15.0 * x + 6.0 * x**2)


#: The walking step: step length (m), the body's forward speed and the
#: swing foot's sink speed at touchdown (m/s), the time the swing trajectory
#: takes to roll the sole flat after the heel strike (s).
STEP = {"length": 0.2, "forward": 0.2, "sink": 0.3, "roll": 0.15}


def talos_step(small: bool) -> Iterator[Condition]:
    """The end of a walking step: the right (stance) sole flat on the floor
    ``STEP["length"] / 2`` behind the base, the left (swing) sole
    ``width`` m (centre to centre) to its left and a step length ahead,
    pitched toes-up by ``pitch`` degrees, its heel edge touching. The body
    moves forward, the swing sole sinks (``STEP``), the stance sole is at
    rest. The controller, from the touchdown on: every joint held at its
    touchdown angle (PAL's gains) except the swing leg's, which track the
    swing trajectory (the sole turning flat about its heel edge, a
    minimum-jerk pitch over ``STEP["roll"]`` s, by inverse kinematics), with
    the gravity compensation of a robot standing on both soles. The verdict:
    the stance sole lifts 5 mm."""
    model = talos()
    kp, kd = gains(model)
    joints = model.actuator_trnid[:, 0]
    qadr, dadr = model.jnt_qposadr[joints], model.jnt_dofadr[joints]
    low, high = model.actuator_ctrlrange[:, 0], model.actuator_ctrlrange[:, 1]
    bias = imj.support_bias(model, ANKLES)
    left = np.isin(dadr, _leg(model, "left"))
    key = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, key, model.key(KEY).id)
    mujoco.mj_kinematics(model, key)
    x0 = key.xpos[model.body("leg_right_6_link").id, 0]
    half = STEP["length"] / 2
    for width in [0.25] if small else [0.17, 0.25, 0.33]:
        for pitch in [3.0] if small else [2.0, 5.0]:
            theta = np.deg2rad(pitch)
            data = mujoco.MjData(model)
            mujoco.mj_resetDataKeyframe(model, data, model.key(KEY).id)
            right = np.array([x0 - half, -SOLE_Y, 0.0])
            heel = np.array([x0 + half - SOLE[0] / 2, width - SOLE_Y, 0.0])
            _reach(model, data, "right", right + [0.0, 0.0, SOLE[2]], np.eye(3))
            _reach(model, data, "left", *_ankle_target(heel, theta))
            times = np.linspace(0.0, STEP["roll"], 31)
            refs = []
            ghost = mujoco.MjData(model)
            ghost.qpos[:] = data.qpos
            for t in times:
                _reach(model, ghost, "left", *_ankle_target(heel, theta * (1.0 - _min_jerk(t / STEP["roll"]))))
                refs.append(ghost.qpos[qadr].copy())
            refs = np.array(refs)
            rates = np.gradient(refs, times, axis=0)
            touching(model, data)
            _step_velocity(model, data)
            ref0 = data.qpos[qadr].copy()
            refs += ref0 - refs[0]  # the base was lowered: the joint references are unchanged by it
            pd = _tracking(times, refs, rates, left, kp, kd, qadr, dadr, low, high, bias)
            yield _condition("talos-step", {"width": width, "pitch": pitch}, model, data, pd, [SOLES[1]], small)


#: Half the distance between the soles' centres at half_sitting (m).
SOLE_Y = 0.085


def _step_velocity(model: mujoco.MjModel, data: mujoco.MjData) -> None:
    """The base moving forward at ``STEP["forward"]``, the stance ankle at
    rest, the swing ankle sinking at ``STEP["sink"]`` without turning: each
    leg's joint rates from its ankle's Jacobian."""
    data.qvel[:] = 0.0
    data.qvel[0] = STEP["forward"]
    mujoco.mj_forward(model, data)
    jp, jr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
    for side, twist in (("right", np.zeros(6)), ("left", np.array([0.0, 0.0, -STEP["sink"], 0.0, 0.0, 0.0]))):
        mujoco.mj_jacBody(model, data, jp, jr, model.body(f"leg_{side}_6_link").id)
        jac = np.vstack([jp, jr])
        dofs = _leg(model, side)
        data.qvel[dofs] = np.linalg.solve(jac[:, dofs], twist - jac[:, :6] @ data.qvel[:6])
    mujoco.mj_forward(model, data)


def _tracking(times, refs, rates, swing, kp, kd, qadr, dadr, low, high, bias) -> Callable:  # noqa: ANN001
    """The step's controller: the swing joints track ``refs`` (and
    ``rates``) over ``times`` (then hold the last), every other joint holds
    its touchdown angle; gravity compensated on both soles."""
    hold = refs[0].copy()

    def controller(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
        t = data.time  # the touchdown state's time is 0
        target, rate = hold.copy(), np.zeros_like(hold)
        k = np.searchsorted(times, t)
        if k >= times.size:
            target[swing] = refs[-1][swing]
        else:
            target[swing] = np.array([np.interp(t, times, refs[:, i]) for i in np.flatnonzero(swing)])
            rate[swing] = np.array([np.interp(t, times, rates[:, i]) for i in np.flatnonzero(swing)])
        tau = kp * (target - data.qpos[qadr]) + kd * (rate - data.qvel[dadr]) + bias(model, data)[dadr]
        return np.clip(tau, low, high)

    return controller


#: The cases, for study_cases.CASES, and their new condition labels.
TALOS_CASES = {
    "talos-landing": talos_landing,
    "talos-landing-edge": talos_landing_edge,
    "talos-heel-strike": talos_heel_strike,
    "talos-step": talos_step,
}
TALOS_LABELS = ("width",)
