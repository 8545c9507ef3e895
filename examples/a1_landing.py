"""A Unitree A1 landing on its four feet, with only ``pip install
impactset[mujoco]``: the robot from example-robot-data's URDF (loaded into
MuJoCo with a free base by :func:`impactset.mujoco.load_urdf`), its
post-impact set sampled, and a standing controller rolled out from every
sample and from MuJoCo's own outcome.

The controller is a joint PD to the SRDF's ``standing`` pose with gravity
compensation (:func:`impactset.mujoco.keyframe_pd`; ``kp = 40`` N·m/rad,
``kd = 2`` N·m·s/rad, the gains of the Go2 study in ``docs/rollouts.md``,
clamped to the URDF's 33.5 N·m effort limits). For each touchdown velocity
of a grid (forward speed × sink speed) the robot stays up when, after
``--duration`` seconds, its base is tilted less than 20° and above half its
touchdown height.

Run::

    python examples/a1_landing.py --out a1_landing.png          # 6 × 6 landings × 64 samples
    python examples/a1_landing.py --small --out /tmp/a1.png     # 2 landings × 8 samples, seconds

Needs only ``pip install impactset[mujoco]`` (mujoco and example-robot-data);
the figure also needs matplotlib, and is skipped without it.

Measured: the full run takes 50–54 s wall time on a 2-vCPU machine shared
with other work (``time python examples/a1_landing.py``, MuJoCo 4.0.0). The
whole set agrees with itself at every landing of the grid; at one (1.8 m/s
forward, 0.5 m/s sink) MuJoCo's single outcome ends tilted 18.4° and every
sample 21.9°, on either side of the 20° rule (``docs/study.md``: a knife
edge of the rule, not a spread of the set).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import impactset
import impactset.mujoco as imj
import mujoco
import numpy as np

FEET = ["FL_foot", "FR_foot", "RL_foot", "RR_foot"]
#: Joint PD gains, N·m/rad and N·m·s/rad (those of docs/rollouts.md's Go2 study).
KP, KD = 40.0, 2.0
#: Upright at the end: tilt below this (degrees).
UPRIGHT = 20.0


def a1(armature: float = 0.0) -> mujoco.MjModel:
    """example-robot-data's A1 with a free base, a floor (friction 1) and
    contacts at its four feet, motors on its twelve joints and the SRDF's
    ``standing`` keyframe."""
    erd = imj.example_robot_data
    return imj.load_urdf(
        erd("robots/a1_description/urdf/a1.urdf"),
        feet=FEET,
        srdf=erd("robots/a1_description/srdf/a1.srdf"),
        state="standing",
        armature=armature,
    )


def touchdown(model: mujoco.MjModel, key: str, forward: float, sink: float, pitch: float = 0.0) -> mujoco.MjData:
    """The keyframe pose pitched by ``pitch`` (rad, nose down for positive),
    lowered until the lowest foot touches the floor, moving ``forward`` m/s
    and down at ``sink`` m/s, the joints at rest."""
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.key(key).id)
    half = 0.5 * pitch
    data.qpos[3:7] = [np.cos(half), 0.0, np.sin(half), 0.0]
    mujoco.mj_forward(model, data)
    floor = model.geom("floor").id
    feet = [g for g in range(model.ngeom) if model.geom_contype[g] and g != floor]
    data.qpos[2] -= min(mujoco.mj_geomDistance(model, data, floor, g, 1.0, None) for g in feet)
    data.qvel[:] = 0.0
    data.qvel[:3] = [forward, 0.0, -sink]
    mujoco.mj_forward(model, data)
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="2 landings × 8 samples (for tests)")
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--duration", type=float, default=1.0)
    parser.add_argument("--out", type=Path, default=Path("a1_landing.png"))
    args = parser.parse_args()
    forward = np.linspace(0.0, 3.0, 6)
    sink = np.linspace(0.5, 3.0, 6)
    if args.small:
        forward, sink, args.samples = np.array([0.5, 3.0]), np.array([1.0]), 8

    start = time.perf_counter()
    model = a1()
    controller = imj.keyframe_pd(model, "standing", kp=KP, kd=KD)
    metrics = {"down": imj.fell(max_tilt=np.deg2rad(UPRIGHT), at="end"), "tilt": imj.base_tilt("max")}
    share = np.zeros((sink.size, forward.size))
    single = np.zeros_like(share, dtype=bool)
    for i, vz in enumerate(sink):
        for j, vx in enumerate(forward):
            data = touchdown(model, "standing", vx, vz)
            s = impactset.sample(imj.problem(model, data), args.samples, seed=0)
            r = imj.rollouts(model, data, s, duration=args.duration, controller=controller, metrics=metrics)
            share[i, j] = r.share("down")
            single[i, j] = bool(r.outcome_metrics["down"])
            worst = np.rad2deg(r.metrics["tilt"].max())
            print(
                f"forward {vx:.1f} m/s, sink {vz:.1f} m/s: {len(r)} samples, fell {share[i, j]:.0%}, "
                f"MuJoCo's outcome {'fell' if single[i, j] else 'stays up'}, worst tilt {worst:.1f}°"
            )
    split = int(np.sum((share > 0) & (share < 1)) + np.sum(single != (share > 0.5)))
    print(f"{share.size} landings, {split} where the set does not agree with itself or with MuJoCo's outcome")
    print(f"{time.perf_counter() - start:.1f} s")

    try:
        import matplotlib
    except ModuleNotFoundError:
        print("no figure: matplotlib is not installed (pip install matplotlib)")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 4))
    mesh = ax.pcolormesh(forward, sink, share, vmin=0, vmax=1, cmap="RdYlGn_r", shading="nearest")
    jj, ii = np.meshgrid(range(forward.size), range(sink.size))
    ax.scatter(forward[jj[single]], sink[ii[single]], marker="x", color="k", label="MuJoCo's outcome falls")
    ax.set(xlabel="forward speed (m/s)", ylabel="sink speed (m/s)", title="A1 landing: share of the set that falls")
    fig.colorbar(mesh, ax=ax)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
