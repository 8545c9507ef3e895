"""The cases of the impact study (``examples/impact_study.py``,
``docs/study.md``): each yields :class:`Condition` objects, one impact state
with its controller, verdict and directions for the extremes search. Every
parameter and its source is in ``docs/study.md``."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

import impactset.mujoco as imj
import mujoco
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from a1_landing import KD, KP, a1, touchdown  # noqa: E402  (the sibling example)

#: The contact-loss gap: a foot more than this far from the floor has lifted
#: off (impactset.mujoco.contact_loss's default, metres).
GAP = 5e-3


@dataclass
class Condition:
    """One impact to study: the state, what to roll out and how to judge it."""

    case: str
    label: dict[str, float]
    model: mujoco.MjModel
    data: mujoco.MjData
    controller: Callable | None
    score: Callable  # metric: larger is worse
    threshold: float  # fails where score > threshold
    duration: float
    directions: np.ndarray  # for extremes, rows in qvel coordinates
    distance: float = 1e-3
    impacts: dict | None = None  # later impacts of the set's rollouts drawn from their sets


def final_tilt_deg(model: mujoco.MjModel, trajectories: imj.Trajectories) -> np.ndarray:
    return np.rad2deg(imj.base_tilt("final")(model, trajectories))


def plot_set_and_outcome(ax, times, curves, failed, own_times, own, threshold: float) -> None:  # type: ignore[no-untyped-def]
    """A condition's trajectory figure: each sample of the set's curve (rows of
    `curves` over `times`), red where `failed`, else green; MuJoCo's own
    outcome (`own` over `own_times`) in black; the verdict's threshold dotted."""
    for k, (row, bad) in enumerate(zip(curves, failed, strict=True)):
        color = "tab:red" if bad else "tab:green"
        ax.plot(times, row, color=color, alpha=0.35, lw=1, label=None if k else "samples of the set")
    ax.plot(own_times, own, color="k", lw=2.2, label="MuJoCo's own outcome")
    ax.axhline(threshold, color="gray", ls=":", lw=1)


def base_directions(nv: int) -> np.ndarray:
    """± each of the base's six velocities (a free joint's qvel)."""
    eye = np.eye(nv)[:6]
    return np.vstack([eye, -eye])


def a1_level(small: bool) -> Iterator[Condition]:
    forward = [1.2, 1.8] if small else [0.6, 1.2, 1.8, 2.4]
    sink = [0.5] if small else [0.5, 1.5, 2.5]
    for armature in [0.0] if small else [0.0, 0.03, 0.1]:
        model = a1(armature)
        pd = imj.keyframe_pd(model, "standing", kp=KP, kd=KD)
        for vz in sink:
            for vx in forward:
                data = touchdown(model, "standing", vx, vz)
                label = {"armature": armature, "forward": vx, "sink": vz}
                yield Condition(
                    "a1-level", label, model, data, pd, final_tilt_deg, 20.0, 1.0, base_directions(model.nv)
                )


def a1_trailing(small: bool) -> Iterator[Condition]:
    """Front feet strike while the rear feet stand: the base turns nose-down
    about the line through the rear feet at ``rate`` rad/s, joints at rest."""
    rates = [2.0] if small else [1.0, 2.0, 3.0]
    for armature in [0.0, 0.1] if small else [0.0, 0.01, 0.03, 0.1]:
        model = a1(armature)
        pd = imj.keyframe_pd(model, "standing", kp=KP, kd=KD)
        for rate in rates:
            data = touchdown(model, "standing", 0.0, 0.0)
            rear = [model.body(n).id for n in ["RL_foot", "RR_foot"]]
            pivot = data.xpos[rear].mean(axis=0)
            omega = np.array([0.0, rate, 0.0])
            data.qvel[:3] = np.cross(omega, data.qpos[:3] - pivot)
            data.qvel[3:6] = data.xmat[model.body("base").id].reshape(3, 3).T @ omega
            mujoco.mj_forward(model, data)
            score = _lift_from(model, data, ["RL_foot", "RR_foot"])
            directions = np.vstack([base_directions(model.nv), imj.problem(model, data).Jn])
            label = {"armature": armature, "rate": rate}
            yield Condition("a1-trailing", label, model, data, pd, score, GAP, 0.3, directions)


def _lift_from(model: mujoco.MjModel, data: mujoco.MjData, bodies: list[str]) -> Callable:
    ids = [model.body(b).id for b in bodies]
    z0 = data.xpos[ids, 2].copy()
    heights = [imj.body_height(b, "max", every=0.005) for b in bodies]

    def metric(model: mujoco.MjModel, trajectories: imj.Trajectories) -> np.ndarray:
        return np.max([h(model, trajectories) - z for h, z in zip(heights, z0, strict=True)], axis=0)

    return metric


def humanoid() -> mujoco.MjModel:
    spec = find_spec("dm_control")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("needs dm_control: pip install --no-deps dm_control")
    path = Path(next(iter(spec.submodule_search_locations))) / "suite" / "humanoid.xml"
    return mujoco.MjModel.from_xml_path(str(path))


def humanoid_heel_toe(small: bool) -> Iterator[Condition]:
    """The humanoid on its right foot, flat, left hip flexed, striking: the
    foot's two capsules touch at heel and toe (four contacts)."""
    sinks = [1.0] if small else [0.5, 1.0, 2.0]
    forwards = [0.5] if small else [0.0, 0.5, 1.0]
    base = humanoid()
    spec = mujoco.MjSpec.from_string(_xml(base))
    pose = mujoco.MjData(base)
    pose.qpos[base.jnt_qposadr[base.joint("left_hip_y").id]] = -0.6
    spec.add_key(name="strike", qpos=pose.qpos.tolist())
    model = spec.compile()
    # Joint PD to the strike pose; torques clamped by the model's gears
    # (ctrl in [-1, 1]), gains in docs/study.md.
    pd = imj.keyframe_pd(model, "strike", kp=100.0, kd=5.0)
    for vz in sinks:
        for vx in forwards:
            data = mujoco.MjData(model)
            mujoco.mj_resetDataKeyframe(model, data, model.key("strike").id)
            mujoco.mj_forward(model, data)
            floor = model.geom("floor").id
            right = [model.geom(n).id for n in ["right_right_foot", "left_right_foot"]]
            data.qpos[2] -= min(mujoco.mj_geomDistance(model, data, floor, g, 1.0, None) for g in right)
            data.qvel[:3] = [vx, 0.0, -vz]
            mujoco.mj_forward(model, data)
            score = _rock(model, data)
            p = imj.problem(model, data, bodies=["right_foot"], distance=3e-3)
            directions = np.vstack([base_directions(model.nv), p.Jn])
            label = {"forward": vx, "sink": vz}
            yield Condition("humanoid-heel-toe", label, model, data, pd, score, GAP, 0.3, directions, 3e-3)


def humanoid_heel_first(small: bool) -> Iterator[Condition]:
    """The strike pose pitched heel-down by ``pitch``: the heel ends touch
    first, the toe ends land later (a second impact, drawn from its set in
    the set's rollouts: ``impacts``)."""
    pitches = [2.0] if small else [1.0, 2.0, 4.0]
    sinks = [1.0] if small else [0.5, 1.0, 2.0]
    base = humanoid()
    spec = mujoco.MjSpec.from_string(_xml(base))
    pose = mujoco.MjData(base)
    pose.qpos[base.jnt_qposadr[base.joint("left_hip_y").id]] = -0.6
    spec.add_key(name="strike", qpos=pose.qpos.tolist())
    model = spec.compile()
    pd = imj.keyframe_pd(model, "strike", kp=100.0, kd=5.0)
    floor = model.geom("floor").id
    right = [model.geom(n).id for n in ["right_right_foot", "left_right_foot"]]
    for pitch in pitches:
        for vz in sinks:
            data = mujoco.MjData(model)
            mujoco.mj_resetDataKeyframe(model, data, model.key("strike").id)
            half = -0.5 * np.deg2rad(pitch)  # about y, negative: toes up
            data.qpos[3:7] = [np.cos(half), 0.0, np.sin(half), 0.0]
            mujoco.mj_forward(model, data)
            data.qpos[2] -= min(mujoco.mj_geomDistance(model, data, floor, g, 1.0, None) for g in right)
            data.qvel[:3] = [0.5, 0.0, -vz]
            mujoco.mj_forward(model, data)
            score = _rock(model, data)
            p = imj.problem(model, data)
            directions = np.vstack([base_directions(model.nv), p.Jn])
            label = {"pitch": pitch, "sink": vz}
            yield Condition(
                "humanoid-heel-first", label, model, data, pd, score, GAP, 0.3, directions, impacts={"seed": 0}
            )


def humanoid_wide_step(small: bool) -> Iterator[Condition]:
    """Both feet down at the end of a step: hips at ±``theta``, the body
    pitched until the trailing (right) foot's toe and the leading (left)
    foot's heel touch together, turning forward about the trailing foot at
    ``rate`` rad/s (joints at rest), so the leading heel strikes while the
    trailing foot stands. The verdict: the trailing foot lifts."""
    thetas = [0.35] if small else [0.25, 0.35]
    rates = [1.0] if small else [0.5, 1.0, 2.0]
    base = humanoid()
    trailing = [base.geom(n).id for n in ["right_right_foot", "left_right_foot"]]
    leading = [base.geom(n).id for n in ["left_left_foot", "right_left_foot"]]
    for theta in thetas:
        spec = mujoco.MjSpec.from_string(_xml(base))
        pose = mujoco.MjData(base)
        pose.qpos[base.jnt_qposadr[base.joint("left_hip_y").id]] = -theta
        pose.qpos[base.jnt_qposadr[base.joint("right_hip_y").id]] = theta
        spec.add_key(name="step", qpos=pose.qpos.tolist())
        model = spec.compile()
        pd = imj.keyframe_pd(model, "step", kp=100.0, kd=5.0)

        lo, hi = -0.3, 0.3  # bisection on the body's pitch: both feet at the floor
        for _ in range(50):
            mid = 0.5 * (lo + hi)
            same = np.sign(_placed(model, mid, trailing, leading)[0]) == np.sign(
                _placed(model, lo, trailing, leading)[0]
            )
            lo, hi = (mid, hi) if same else (lo, mid)
        for rate in rates:
            data = _placed(model, 0.5 * (lo + hi), trailing, leading)[1]
            mujoco.mj_forward(model, data)
            pivot = np.zeros(3)  # the trailing foot's lowest points, from MuJoCo's nearest points
            for g in trailing:
                fromto = np.zeros(6)
                mujoco.mj_geomDistance(model, data, model.geom("floor").id, g, 1.0, fromto)
                pivot += fromto[3:] / len(trailing)
            omega = np.array([0.0, rate, 0.0])
            data.qvel[:] = 0.0
            data.qvel[:3] = np.cross(omega, data.qpos[:3] - pivot)
            data.qvel[3:6] = data.xmat[1].reshape(3, 3).T @ omega
            mujoco.mj_forward(model, data)
            score = _rock(model, data)
            p = imj.problem(model, data, distance=3e-3)
            directions = np.vstack([base_directions(model.nv), p.Jn])
            label = {"theta": theta, "rate": rate}
            yield Condition("humanoid-wide-step", label, model, data, pd, score, GAP, 0.3, directions, 3e-3)


def _placed(
    model: mujoco.MjModel, pitch: float, trailing: list[int], leading: list[int]
) -> tuple[float, mujoco.MjData]:
    """The keyframe pitched by ``pitch`` and lowered until the trailing foot
    touches; and how far the leading foot is then above the floor."""
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.key("step").id)
    data.qpos[3:7] = [np.cos(pitch / 2), 0.0, np.sin(pitch / 2), 0.0]
    mujoco.mj_forward(model, data)
    floor = model.geom("floor").id
    gap = [min(mujoco.mj_geomDistance(model, data, floor, g, 1.0, None) for g in feet) for feet in (trailing, leading)]
    data.qpos[2] -= gap[0]
    return gap[1] - gap[0], data


def _rock(model: mujoco.MjModel, data: mujoco.MjData) -> Callable:
    """Metric: the largest lift (m) of the right foot's heel or toe above the
    floor: the capsules' end points, read every 5 ms."""
    foot = model.body("right_foot").id
    ends = []
    for name in ["right_right_foot", "left_right_foot"]:
        g = model.geom(name).id
        half = model.geom_size[g, 1]
        axis = data.geom_xmat[g].reshape(3, 3)[:, 2]
        for sign in (-1.0, 1.0):
            world = data.geom_xpos[g] + sign * half * axis
            ends.append(data.xmat[foot].reshape(3, 3).T @ (world - data.xpos[foot]))
    ends = np.array(ends)
    return rise(model, data, lambda d: (d.xpos[foot] + (d.xmat[foot].reshape(3, 3) @ ends.T).T)[:, 2])


def rise(model: mujoco.MjModel, data: mujoco.MjData, heights: Callable[[mujoco.MjData], np.ndarray]) -> Callable:
    """Metric: the largest rise (m) of any of the points whose heights
    ``heights(data)`` gives (after ``mj_kinematics``) above their heights at
    the impact (``data``), read every 5 ms."""
    z0 = heights(data).copy()

    def metric(model: mujoco.MjModel, trajectories: imj.Trajectories) -> np.ndarray:
        t = trajectories.time
        stride = max(1, round(0.005 / (t[1] - t[0]))) if t.size > 1 else 1
        return rise_curves(model, trajectories.states, heights, z0, stride).max(axis=1, initial=0.0)

    return metric


def rise_curves(
    model: mujoco.MjModel,
    states: np.ndarray,
    heights: Callable[[mujoco.MjData], np.ndarray],
    z0: np.ndarray,
    stride: int = 1,
) -> np.ndarray:
    """(S, ⌈T / stride⌉) the largest rise above ``z0`` of the points whose
    heights ``heights(data)`` gives, at every ``stride``-th of each rollout's
    ``states`` (full physics states)."""
    scratch = mujoco.MjData(model)
    full = int(mujoco.mjtState.mjSTATE_FULLPHYSICS)
    steps = range(0, states.shape[1], stride)
    out = np.empty((states.shape[0], len(steps)))
    for i, rollout in enumerate(states):
        for j, k in enumerate(steps):
            mujoco.mj_setState(model, scratch, rollout[k], full)
            mujoco.mj_kinematics(model, scratch)
            out[i, j] = np.max(heights(scratch) - z0)
    return out


def box_curb(small: bool) -> Iterator[Condition]:
    """A 0.1 × 0.1 × 0.4 m box (1 kg) sliding face-on into a 5 cm curb."""
    speeds = [0.56] if small else np.round(np.arange(0.40, 0.705, 0.02), 2).tolist()
    for mu in [0.3] if small else [0.3, 0.6]:
        model = mujoco.MjModel.from_xml_string(BOX_CURB.format(mu=mu))
        for v in speeds:
            data = mujoco.MjData(model)
            data.qvel[0] = v
            mujoco.mj_forward(model, data)
            label = {"mu": mu, "speed": v}
            yield Condition("box-curb", label, model, data, None, final_tilt_deg, 45.0, 3.0, base_directions(6))


BOX_CURB = """<mujoco><option timestep="0.001"/><worldbody>
  <geom name="floor" type="plane" size="2 2 .1" friction="{mu}"/>
  <geom name="curb" type="box" pos=".2 0 .025" size=".1 1 .025" friction="{mu}"/>
  <body name="box" pos="0.05 0 .2"><freejoint/><geom name="box" type="box" size=".05 .05 .2" mass="1" friction="{mu}"/></body>
</worldbody></mujoco>"""


def _xml(model: mujoco.MjModel) -> str:
    path = Path("/tmp") / f"impactset-study-{id(model)}.xml"
    mujoco.mj_saveLastXML(str(path), model)
    return path.read_text()


#: The condition labels of every case (the map's tick labels).
LABELS = ("armature", "theta", "forward", "sink", "rate", "pitch", "mu", "speed")

CASES = {
    "a1-level": a1_level,
    "a1-trailing": a1_trailing,
    "humanoid-heel-toe": humanoid_heel_toe,
    "humanoid-heel-first": humanoid_heel_first,
    "humanoid-wide-step": humanoid_wide_step,
    "box-curb": box_curb,
}

from study_quadrupeds import CASES as QUADRUPEDS  # noqa: E402  (after CASES: that module imports this one)

CASES.update(QUADRUPEDS)

from study_arm import arm_box  # noqa: E402  (the arm pushing a box: examples/study_arm.py)

LABELS += ("rail",)
CASES["arm-box"] = arm_box

from study_talos import TALOS_CASES, TALOS_LABELS  # noqa: E402  (the sibling module; it imports this one)

CASES.update(TALOS_CASES)
LABELS += TALOS_LABELS
