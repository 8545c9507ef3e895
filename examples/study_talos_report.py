"""TALOS in the impact study (``docs/study.md``), the reports beside its
cases (``examples/study_talos.py``): why it stands (``python
examples/study_talos_report.py``: standing runs with and without the
SRDF's rotor inertia, PAL's gains or a soft PD, ``qfrc_bias`` alone or the
standing compensation, box soles or the URDF's ankle meshes), and one
condition's trajectories (``--figure talos-step width=0.25 pitch=5 --out
FILE``)."""

from __future__ import annotations

import sys
from pathlib import Path

import impactset.mujoco as imj
import mujoco
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import study_cases  # noqa: E402  (first: study_talos imports it and it imports study_talos)
from study_talos import (  # noqa: E402
    ANKLES,
    ARMATURE,
    GAP,
    KEY,
    SOLES,
    SRDF,
    TALOS_CASES,
    URDF,
    gains,
    sole_heights,
    talos,
)


def standing(seconds: float = 3.0) -> list[dict]:
    """Why TALOS stands here: ``half_sitting`` held ``seconds`` from rest on
    the floor, with and without the SRDF's rotor inertia, with PAL's gains or
    a soft PD (kp 1000, kd 30 on every joint), with ``qfrc_bias`` alone or
    the standing compensation (``support=``), on the box soles or the URDF's
    ankle meshes. Per run: the base's largest tilt (degrees), the largest
    joint error at the end (rad) and the share of motor steps at their
    effort limit."""
    rows = []
    for armature in (0.0, ARMATURE):
        for soles in (True, False):
            erd = imj.example_robot_data
            if soles:
                model = talos(armature)
            else:
                model = imj.load_urdf(erd(URDF), feet=ANKLES, srdf=erd(SRDF), state=KEY, armature=armature)
            for name, (kp, kd) in (("PAL", gains(model)), ("kp 1000, kd 30", (1000.0, 30.0))):
                for support in (False, True):
                    pd = imj.keyframe_pd(model, KEY, kp=kp, kd=kd, support=ANKLES if support else None)
                    data = mujoco.MjData(model)
                    mujoco.mj_resetDataKeyframe(model, data, model.key(KEY).id)
                    mujoco.mj_forward(model, data)
                    floor = model.geom("floor").id
                    feet = [g for g in range(model.ngeom) if model.geom_contype[g] and g != floor]
                    data.qpos[2] -= min(mujoco.mj_geomDistance(model, data, floor, g, 1.0, None) for g in feet)
                    tilt, saturated, steps = 0.0, 0, round(seconds / model.opt.timestep)
                    high = model.actuator_ctrlrange[:, 1]
                    for _ in range(steps):
                        data.ctrl[:] = pd(model, data)
                        saturated += int(np.sum(np.abs(data.ctrl) >= high - 1e-9))
                        mujoco.mj_step(model, data)
                        q = data.qpos[3:7] / np.linalg.norm(data.qpos[3:7])
                        tilt = max(tilt, float(np.degrees(np.arccos(np.clip(1 - 2 * (q[1] ** 2 + q[2] ** 2), -1, 1)))))
                    key = model.key_qpos[model.key(KEY).id]
                    rows.append(
                        {
                            "armature": armature,
                            "feet": "box soles" if soles else "URDF meshes",
                            "gains": name,
                            "compensation": "support" if support else "qfrc_bias",
                            "max tilt": round(tilt, 2),
                            "joint error": round(float(np.abs(data.qpos[7:] - key[7:]).max()), 4),
                            "saturated": round(saturated / (steps * model.nu), 3),
                        }
                    )
    return rows


def figure(case: str, label: dict[str, float], path: Path, samples: int = 128) -> None:
    """The condition's sole lift against time from every sample of the set
    (red: past the 5 mm rule) and from MuJoCo's own outcome (black)."""
    import impactset
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    c = next(c for c in TALOS_CASES[case](False) if c.label == label)
    soles = [SOLES[1]] if case == "talos-step" else SOLES
    heights = sole_heights(c.model, soles)
    z0 = heights(c.data)
    p = imj.problem(c.model, c.data, distance=c.distance)
    s = impactset.sample(p, samples, seed=0, selection="random-lemke")
    times = np.arange(0.0, c.duration + 1e-9, 0.005)
    go = dict(duration=c.duration, controller=c.controller, times=times, metrics={})
    r = imj.rollouts(c.model, c.data, s, impacts=c.impacts, outcome=False, **go)
    v_out = imj.outcome(c.model, c.data, distance=c.distance)
    o = imj.rollouts(c.model, c.data, v_out[None], outcome=False, **go)
    mine = study_cases.rise_curves(c.model, o.trajectories.states, heights, z0)[0] * 1e3
    curves = study_cases.rise_curves(c.model, r.trajectories.states, heights, z0) * 1e3
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    failed = curves.max(axis=1) > GAP * 1e3
    study_cases.plot_set_and_outcome(ax, r.times, curves, failed, o.times, mine, GAP * 1e3)
    share = float(np.mean(failed))
    what = "stance sole's" if case == "talos-step" else "soles'"
    conditions = ", ".join(f"{k} {v:g}" for k, v in label.items())
    ax.set(
        xlabel="time after the impact (s)",
        ylabel=f"{what} highest corner rise (mm)",
        title=f"TALOS {case[6:]} ({conditions}): {share:.0%} of the set lifts past 5 mm",
    )
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"wrote {path}")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="TALOS standing diagnostics, or one condition's figure")
    parser.add_argument(
        "--figure", nargs="+", metavar=("CASE", "NAME=VALUE"), help="e.g. talos-step width=0.25 pitch=5"
    )
    parser.add_argument("--out", type=Path, default=Path("talos.png"))
    args = parser.parse_args()
    if args.figure:
        label = {k: float(v) for k, v in (item.split("=") for item in args.figure[1:])}
        figure(args.figure[0], label, args.out)
    else:
        for row in standing():
            print(row, flush=True)
