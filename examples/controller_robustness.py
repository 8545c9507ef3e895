"""Robustness of a compass-gait walker's heel strike, over a grid of gaits.

After heel strike the leading leg becomes the stance leg, and the rate of
its angle ``theta_lead`` decides what happens next: a positive rate carries
the hip forward over the new stance foot, a negative one tips the walker
back. A controller that can catch backward tips up to some rate (``--needed``,
negative) must be checked against the *worst* outcome of the impact. Rigid
impact models disagree about that outcome while the trailing foot is still
on the ground (two simultaneous contacts): it depends on the order in which
the contact impulses build up. The set-valued model gives every outcome.

For a grid of pre-impact states around the scene's heel strike (the trailing
leg's rate, i.e. walking speed, and the ratio of the leading leg's rate to
it), this script computes the post-impact set of each state with
:func:`impactset.reach`, takes the worst case over the set
``min theta_lead_dot+`` (the samples' and a directed search's over
schedules, ``reach(..., extremes=True)``: every value a member of the set),
and compares it with the single-outcome baselines
(simultaneous impact, the Anitescu-Potra LCP; sequential impact, one contact
after the other). It writes a heat map (``--out``) and the per-state numbers
(``--csv``).

Run::

    python examples/controller_robustness.py --out robustness.png

Reading the figure: left, the worst-case post-impact stance-leg rate over
the set (the white contour is ``--needed``: below it the controller fails
for some impact order); middle, how far the most optimistic baseline's
prediction is above that worst case (what a single-outcome model would hide
from the controller); right, the share of the set in which the trailing foot
lifts off.

Needs matplotlib (``pip install impactset[examples]``) for the figure.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import impactset
import numpy as np

# The compass-gait scene: coordinates (x, y, theta_lead, theta_trail), legs of
# length 1, phi = 78 degrees at heel strike (docs/scenes.md).
LEG = 1.0
PHI = np.deg2rad(78.0)
LEAD = 2  # index of theta_lead in v


def pre_impact_velocity(trail_rate: float, ratio: float) -> np.ndarray:
    """The pre-impact velocity with the trailing leg (stance foot at rest)
    turning at ``trail_rate`` and the leading leg at ``ratio * trail_rate``."""
    # The hip moves with the trailing leg about the trailing foot.
    xdot = -LEG * np.cos(PHI) * trail_rate
    ydot = -LEG * np.sin(PHI) * trail_rate
    return np.array([xdot, ydot, ratio * trail_rate, trail_rate])


def study(grid: int, samples: int, seed: int = 0, selection: str = "random-lemke") -> dict[str, np.ndarray]:
    """The worst case over each state's set next to the baselines' values.

    Returns a dict of arrays of shape ``(grid, grid)`` (rows: trailing-leg
    rate, columns: leading/trailing rate ratio), plus the two axes.
    """
    built_in = impactset.Problem.scene("compass-gait")
    # The scene's configuration and step size; the step cap comes from the
    # pilot run (the scene's own K = 5 is the paper's and rejects a few
    # percent of samples at faster gaits).
    scene = impactset.Problem.from_arrays(
        built_in.M,
        built_in.v,
        built_in.Jn,
        built_in.Jt,
        built_in.mu,
        built_in.names,
        name="compass-gait",
        step_size=built_in.step_size,
    )
    rates = np.linspace(0.1, 0.5, grid)
    ratios = np.linspace(0.5, 1.5, grid)
    velocities = np.array([pre_impact_velocity(r, q) for r in rates for q in ratios])
    # The worst case is the smallest stance-leg rate: the largest of −rate,
    # which `extremes=True` also searches for over schedules beyond the
    # samples (docs/model.md §5d): a certified member of each set.
    down = -np.eye(len(scene.v))[LEAD]
    result = impactset.reach(
        scene,
        samples,
        velocities=velocities,
        seed=seed,
        selection=selection,
        keep_sets=True,
        directions={"lead_down": down},
        extremes=True,
    )
    searched = -np.asarray(result["lead_down_extreme"])
    worst = np.empty(len(velocities))
    best = np.empty(len(velocities))
    baseline_best = np.empty(len(velocities))
    baseline_worst = np.empty(len(velocities))
    lift_share = np.empty(len(velocities))
    for k, (v, vplus) in enumerate(zip(velocities, result.sets, strict=True)):
        if len(vplus) == 0:
            raise RuntimeError(f"state {k}: no sample accepted")
        rate = vplus[:, LEAD]
        worst[k], best[k] = min(rate.min(), searched[k]), rate.max()
        state = impactset.Problem.from_arrays(scene.M, v, scene.Jn, scene.Jt, scene.mu, scene.names)
        predicted = impactset.baseline(state)["v_plus"][:, LEAD]
        baseline_best[k], baseline_worst[k] = predicted.max(), predicted.min()
        # The trailing foot (contact B) lifts off when its normal velocity is positive.
        separation = vplus @ scene.Jn[1]
        lift_share[k] = np.mean(separation > 1e-6 * np.abs(v).max())
    shape = (grid, grid)
    return {
        "trail_rate": rates,
        "ratio": ratios,
        "worst": worst.reshape(shape),
        "best": best.reshape(shape),
        "baseline_best": baseline_best.reshape(shape),
        "baseline_worst": baseline_worst.reshape(shape),
        "lift_share": lift_share.reshape(shape),
        "accepted": np.asarray(result.table["accepted"]).reshape(shape),
    }


def write_csv(path: Path, r: dict[str, np.ndarray]) -> None:
    """One row per grid state."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "trail_rate",
                "ratio",
                "worst_lead_rate",
                "best_lead_rate",
                "baseline_min_lead_rate",
                "baseline_max_lead_rate",
                "trail_lift_share",
                "accepted",
            ]
        )
        for i, rate in enumerate(r["trail_rate"]):
            for j, ratio in enumerate(r["ratio"]):
                w.writerow(
                    [
                        f"{rate:.6g}",
                        f"{ratio:.6g}",
                        repr(float(r["worst"][i, j])),
                        repr(float(r["best"][i, j])),
                        repr(float(r["baseline_worst"][i, j])),
                        repr(float(r["baseline_best"][i, j])),
                        repr(float(r["lift_share"][i, j])),
                        int(r["accepted"][i, j]),
                    ]
                )


def plot(path: Path, r: dict[str, np.ndarray], needed: float) -> None:
    """The three heat maps side by side."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    extent = (r["ratio"][0], r["ratio"][-1], r["trail_rate"][0], r["trail_rate"][-1])
    panels = [
        ("worst-case post-impact stance-leg rate", r["worst"], "viridis"),
        ("best baseline's prediction − worst case", r["baseline_best"] - r["worst"], "magma"),
        ("share of the set with the trailing foot lifting", r["lift_share"], "cividis"),
    ]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.4), constrained_layout=True)
    for ax, (title, values, cmap) in zip(axes, panels, strict=True):
        im = ax.imshow(values, origin="lower", extent=extent, aspect="auto", cmap=cmap)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("leading / trailing leg rate before impact")
        ax.set_ylabel("trailing leg rate before impact (rad/s)")
        fig.colorbar(im, ax=ax)
    if r["worst"].min() < needed < r["worst"].max():
        axes[0].contour(r["ratio"], r["trail_rate"], r["worst"], levels=[needed], colors="white", linewidths=1.5)
    fig.suptitle("compass gait at heel strike: worst case over the post-impact set vs single-outcome models")
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grid", type=int, default=15, help="grid points per axis (default 15)")
    parser.add_argument("--samples", type=int, default=512, help="samples per state (default 512)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--selection", default="random-lemke", choices=["lemke", "random-lemke", "all"])
    parser.add_argument(
        "--needed",
        type=float,
        default=-0.5,
        help="most backward stance-leg rate the controller can catch (contour on the left panel)",
    )
    parser.add_argument("--out", type=Path, default=Path("robustness.png"), help="figure (.png/.svg)")
    parser.add_argument("--csv", type=Path, default=None, help="per-state numbers as CSV")
    args = parser.parse_args(argv)
    if args.grid < 2 or args.samples < 1:
        parser.error("--grid must be at least 2 and --samples at least 1")
    r = study(args.grid, args.samples, seed=args.seed, selection=args.selection)
    plot(args.out, r, args.needed)
    if args.csv is not None:
        write_csv(args.csv, r)
    gap = r["baseline_best"] - r["worst"]
    print(
        f"{args.grid}x{args.grid} states, {args.samples} samples each: worst-case stance-leg rate "
        f"{r['worst'].min():.4f} .. {r['worst'].max():.4f}; the best baseline overstates it by up to "
        f"{gap.max():.4f} rad/s; figure: {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
