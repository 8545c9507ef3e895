"""Measured square drops against impactset: how close each real
post-impact velocity lies to the sampled set, to the simultaneous and
sequential baselines, and to no impact at all (docs/real-drops.md).

    python examples/real_drops.py [--samples 4096] [--small] [--out DIR]

For every impact of data/wang-mason-square that has free flight on both
sides (examples/real_drops_flight.py), one planar problem: the square's
``M = diag(1, 1, s²/6)`` (the mass cancels in every ratio), the fitted
``v⁻``, one contact per touching corner, friction ``μ`` and restitution
``e`` fitted once on the one-corner impacts. Its distances are
``d = min_i ‖v_measured − v⁺_i‖_M / ‖v⁻‖_M`` over each model's outcomes.
Writes ``real_drops.md`` (the table) and ``real_drops.png`` (the figure)
into ``--out`` and prints the table. Needs matplotlib (``pip install
impactset[examples]``) for the figure.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import impactset
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from real_drops_flight import (  # noqa: E402
    Detection,
    Drops,
    Impact,
    contact_rows,
    detect_impacts,
    load_drops,
    noise_floor,
)

MODELS = ("set", "simultaneous", "sequential", "no impact")
BOUND = "any impulse at the contacts"
"""Not a model: the closest any impulse at the touching corners comes, a
lower bound on ``d`` for every impact law with these contacts, whatever its
``μ`` and ``e``."""
KINDS = ("one-corner", "two-corner")
CORNER = ("normal miss", "tangent miss", "slip reverses (measured)", "slip reverses (set)")
"""One-corner impacts only (NaN on the others): how the set's closest
sample misses the measurement at the corner, its normal and tangential
velocity each as a share of ``‖v⁻‖_M``, and whether the corner's slip
reverses by more than ``REVERSAL`` of ``‖v⁻‖_M``, measured and in some
sample of the set."""
REVERSAL = 0.05
SPREAD = ("set radius", "one sample")
"""How much room the set has, to read its ``d`` against: the largest
distance of a sample from the samples' mean, and ``d`` of one sample of the
set (the first), a single outcome drawn from it; both relative to
``‖v⁻‖_M``."""


def measure(drops: Drops, indices: range | list[int], options: Detection | None = None) -> tuple[list[Impact], Counter]:
    """The kept impacts of the drops at ``indices``, and the rejection counts."""
    impacts: list[Impact] = []
    rejected: Counter[str] = Counter()
    for index in indices:
        found, why = detect_impacts(drops, index, options)
        impacts += found
        rejected += why
    return impacts, rejected


def normal_tangent(impact: Impact, side: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The contact rows and the corners' normal velocities before and after."""
    jn, jt = contact_rows(impact.pose[2], side, list(impact.corners))
    return jn, jt, jn @ impact.v_minus, jn @ impact.v_plus


def fit_restitution(impacts: list[Impact], side: float) -> float:
    """One ``e`` for the data set: the median of ``−v_n⁺ / v_n⁻`` of the
    touching corner over the one-corner impacts only, so that the
    two-corner comparison is not fitted."""
    ratios = []
    for impact in impacts:
        if impact.kind == "one-corner":
            _, _, before, after = normal_tangent(impact, side)
            ratios.append(-after[0] / before[0])
    return float(np.median(ratios))


def fit_friction(impacts: list[Impact], mass_matrix: np.ndarray, side: float) -> float:
    """One ``μ`` for the data set: the median of ``|λt| / λn`` over the
    one-corner impacts in which the corner slides the same way before and
    after (so friction sat on the cone's edge throughout). ``λ`` is the
    least-squares impulse at the corner that gives the measured velocity
    change, ``M (v⁺ − v⁻) ≈ Jnᵀ λn + Jtᵀ λt``."""
    ratios = []
    for impact in impacts:
        if impact.kind != "one-corner":
            continue
        jn, jt, _, _ = normal_tangent(impact, side)
        slip_before, slip_after = float(jt[0] @ impact.v_minus), float(jt[0] @ impact.v_plus)
        if slip_before * slip_after <= 0.0:
            continue
        rows = np.vstack([jn, jt])
        impulse = np.linalg.lstsq(rows.T, mass_matrix @ (impact.v_plus - impact.v_minus), rcond=None)[0]
        if impulse[0] > 0.0:
            ratios.append(abs(impulse[1]) / impulse[0])
    return float(np.median(ratios))


def baselines_bounce() -> bool:
    """Whether this build's ``impactset.baseline`` applies restitution: a
    ball dropped at 1 on an elastic floor (e = 1) must leave at 1. Where it
    does not, the baselines are not compared at ``e > 0`` (an inelastic
    baseline against a bouncing set would not be a comparison)."""
    ball = impactset.Problem.from_arrays(np.eye(2), [0.0, -1.0], [[0.0, 1.0]], [[1.0, 0.0]], [0.0], restitution=1.0)
    return bool(np.allclose(impactset.baseline(ball)["v_plus"][:, 1], 1.0))


def problem_for(impact: Impact, mass_matrix: np.ndarray, side: float, mu: float, e: float) -> impactset.Problem:
    """The impact as an impactset problem, every corner with restitution
    ``e`` (Stronge's energetic coefficient, docs/model.md §4b)."""
    jn, jt, _, _ = normal_tangent(impact, side)
    names = [f"corner{c}" for c in impact.corners]
    return impactset.Problem.from_arrays(mass_matrix, impact.v_minus, jn, jt, [mu] * len(names), names, restitution=e)


def relative_distance(
    outcomes: np.ndarray, measured: np.ndarray, v_minus: np.ndarray, mass_matrix: np.ndarray
) -> float:
    """``min_i ‖measured − outcomes_i‖_M / ‖v⁻‖_M``."""
    diff = np.atleast_2d(outcomes) - measured
    return float(np.sqrt(np.einsum("ij,jk,ik->i", diff, mass_matrix, diff).min() / (v_minus @ mass_matrix @ v_minus)))


def distances(
    problem: impactset.Problem, impact: Impact, mass_matrix: np.ndarray, samples: int, seed: int, baselines: bool = True
) -> dict[str, float]:
    """``d`` of each model. The sequential baseline is the best of its
    orders (one outcome per contact struck first): an oracle choice that
    favours it. The simultaneous baseline is the best of its LCP solutions.
    Without ``baselines`` both are NaN (not computed)."""
    none = np.empty((0, problem.n))
    simultaneous = sequential = none
    if baselines:
        base = impactset.baseline(problem)
        labels = base["labels"]
        simultaneous = base["v_plus"][[label.startswith("simultaneous") for label in labels]]
        sequential = base["v_plus"][[label.startswith("sequential") for label in labels]]
    sampled = impactset.sample(problem, samples, seed=seed).v_plus
    outcomes = {"set": sampled, "simultaneous": simultaneous, "sequential": sequential, "no impact": impact.v_minus}
    d = {
        model: relative_distance(v, impact.v_plus, impact.v_minus, mass_matrix) if len(v) else np.nan
        for model, v in outcomes.items()
    }
    d[BOUND] = relative_distance(closest_impulse_outcome(problem, impact), impact.v_plus, impact.v_minus, mass_matrix)
    d.update(corner_misses(problem, impact, sampled, mass_matrix))
    if len(sampled):
        spread = sampled - sampled.mean(axis=0)
        scale = float(impact.v_minus @ mass_matrix @ impact.v_minus)
        d["set radius"] = float(np.sqrt(np.einsum("ij,jk,ik->i", spread, mass_matrix, spread).max() / scale))
        d["one sample"] = relative_distance(sampled[0], impact.v_plus, impact.v_minus, mass_matrix)
    else:
        d.update(dict.fromkeys(SPREAD, np.nan))
    return d


def corner_misses(
    problem: impactset.Problem, impact: Impact, sampled: np.ndarray, mass_matrix: np.ndarray
) -> dict[str, float]:
    """The :data:`CORNER` figures of a one-corner impact (NaN otherwise)."""
    if problem.m != 1 or not len(sampled):
        return dict.fromkeys(CORNER, np.nan)
    scale = float(np.sqrt(impact.v_minus @ mass_matrix @ impact.v_minus))
    diff = sampled - impact.v_plus
    closest = sampled[np.argmin(np.einsum("ij,jk,ik->i", diff, mass_matrix, diff))]
    jn, jt = problem.Jn[0], problem.Jt[0]
    slip = float(jt @ impact.v_minus)
    reversed_by = -np.sign(slip) * (sampled @ jt) / scale
    return {
        "normal miss": abs(jn @ (closest - impact.v_plus)) / scale,
        "tangent miss": abs(jt @ (closest - impact.v_plus)) / scale,
        "slip reverses (measured)": float(-np.sign(slip) * (jt @ impact.v_plus) / scale > REVERSAL),
        "slip reverses (set)": float(reversed_by.max() > REVERSAL),
    }


def closest_impulse_outcome(problem: impactset.Problem, impact: Impact) -> np.ndarray:
    """``v⁻ + M⁻¹ Jᵀ λ`` closest to the measured ``v⁺`` in the M-norm over
    every impulse ``λ`` on the contacts' normal and tangent rows (unbounded:
    any sign, any ratio)."""
    rows = np.vstack([problem.Jn, problem.Jt])
    m_inv_rows = np.linalg.solve(problem.M, rows.T)
    gram = rows @ m_inv_rows
    impulse = np.linalg.lstsq(gram, rows @ (impact.v_plus - impact.v_minus), rcond=None)[0]
    return impact.v_minus + m_inv_rows @ impulse


def run(
    impacts: list[Impact], drops: Drops, mu: float, e: float, samples: int, seed: int, baselines: bool = True
) -> dict[str, np.ndarray]:
    """``d`` of every model on every impact, with restitution ``e``; the
    baselines' ``d`` are NaN without ``baselines``."""
    rows = [
        distances(problem_for(i, drops.mass_matrix, drops.side, mu, e), i, drops.mass_matrix, samples, seed, baselines)
        for i in impacts
    ]
    return {key: np.array([r[key] for r in rows]) for key in (*MODELS, BOUND, *CORNER, *SPREAD)}


def table(results: dict[str, dict[str, np.ndarray]], kinds: np.ndarray, floor: np.ndarray) -> str:
    """The Markdown table: per restitution setting and impact class, each
    model's median and 90th percentile of ``d``, its share within 0.05 and
    0.1, and the share of impacts where the set is closer than every
    single-outcome baseline by more than that impact's noise floor. A model
    not computed at a setting (NaN) is shown as "—"."""
    lines = [
        "| e | impacts | n | noise floor (median) | model | median d | 90th pct d | d ≤ 0.05 | d ≤ 0.1 | set closer than every baseline |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for n, (setting, d) in enumerate(results.items()):
        for kind in (*KINDS, "all"):
            mask = np.ones(len(kinds), bool) if kind == "all" else kinds == kind
            if not mask.any():
                continue
            # Against the three single-outcome models; "—" where the two
            # baselines were not computed (no impact alone is no comparison).
            closer = "—"
            if not np.isnan(np.stack([d[m][mask] for m in MODELS[1:3]])).all():
                best_baseline = np.nanmin(np.stack([d[m][mask] for m in MODELS[1:]]), axis=0)
                closer = f"{np.mean(d['set'][mask] < best_baseline - floor[mask]):.0%}"
            for model in (*MODELS, BOUND) if n == 0 else MODELS:
                x = d[model][mask]
                share = closer if model == "set" else ""
                if np.isnan(x).all():
                    lines.append(
                        f"| {setting} | {kind} | {mask.sum()} | {np.median(floor[mask]):.3f} | {model} | — | — | — | — | |"
                    )
                    continue
                lines.append(
                    f"| {setting} | {kind} | {mask.sum()} | {np.median(floor[mask]):.3f} | {model} | {np.nanmedian(x):.3f} | "
                    f"{np.nanpercentile(x, 90):.3f} | {np.mean(x <= 0.05):.0%} | {np.mean(x <= 0.1):.0%} | {share} |"
                )
    return "\n".join(lines)


def figure(results: dict[str, dict[str, np.ndarray]], kinds: np.ndarray, floor: np.ndarray, path: Path) -> None:
    """CDFs of ``d`` per model, one panel per impact class, with the
    any-impulse lower bound (dotted) and the noise floor (median, grey);
    solid ``e = 0``, dashed the fitted ``e``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    colours = dict(zip(MODELS, ("C0", "C1", "C2", "0.4"), strict=True))
    for ax, kind in zip(axes, KINDS, strict=True):
        mask = kinds == kind
        for (setting, d), style in zip(results.items(), ("-", "--"), strict=False):
            for model in MODELS:
                x = np.sort(d[model][mask])
                x = x[~np.isnan(x)]  # a model not computed at this setting
                if len(x):
                    ax.step(
                        x,
                        np.arange(1, len(x) + 1) / len(x),
                        style,
                        color=colours[model],
                        where="post",
                        label=f"{model}, e = {setting}",
                        lw=2.0 if model == "set" else 1.2,
                        zorder=3 if model == "set" else 2,
                    )
        bound = np.sort(next(iter(results.values()))[BOUND][mask])
        if len(bound):
            ax.step(bound, np.arange(1, len(bound) + 1) / len(bound), ":", color="k", where="post", label=BOUND)
            ax.axvline(np.median(floor[mask]), color="0.7", lw=1, label="noise floor (median)")
        ax.set(
            xscale="log",
            xlim=(1e-3, 3),
            title=f"{kind} impacts (n = {mask.sum()})",
            xlabel="d = min ‖v_measured − v⁺‖_M / ‖v⁻‖_M",
        )
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("share of impacts")
    axes[0].legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


def sweep(impacts: list[Impact], drops: Drops, mu: float, values: list[float], samples: int, seed: int) -> int:
    """``--sweep``: how the one-corner impacts' ``d`` of the set depends on
    ``e`` (the fitted ``e`` is Newton's kinematic ratio, the core's law
    Stronge's energetic one: does the law's own best ``e`` differ?)."""
    one = [i for i in impacts if i.kind == "one-corner"]
    print(f"{len(one)} one-corner impacts, μ = {mu:.3f}, {samples} samples per set, seed {seed}")
    print("| e | median d | 90th pct d | normal miss (median) | tangent miss (median) |")
    print("|---|---|---|---|---|")
    for e in values:
        d = run(one, drops, mu, e, samples, seed, baselines=False)
        print(
            f"| {e:.3f} | {np.median(d['set']):.3f} | {np.percentile(d['set'], 90):.3f} | "
            f"{np.median(d['normal miss']):.3f} | {np.median(d['tangent miss']):.3f} |",
            flush=True,
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=4096, help="samples of each impact's set (default 4096)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--small", action="store_true", help="the first 12 drops, 200 samples (for tests)")
    parser.add_argument("--out", type=Path, default=Path("."))
    parser.add_argument(
        "--sweep",
        metavar="E,E,...",
        help="instead of the table: the one-corner impacts' median d of the set (and its corner misses) for each e",
    )
    args = parser.parse_args(argv)

    drops = load_drops()
    indices = range(12) if args.small else range(len(drops.drop))
    samples = min(args.samples, 200) if args.small else args.samples
    impacts, rejected = measure(drops, indices)
    kinds = np.array([i.kind for i in impacts])
    mu = fit_friction(impacts, drops.mass_matrix, drops.side)
    e = fit_restitution(impacts, drops.side)
    if args.sweep:
        return sweep(impacts, drops, mu, [float(x) for x in args.sweep.split(",")], samples, args.seed)
    noise = noise_floor(impacts, drops)

    bounce = baselines_bounce()
    results = {"0": run(impacts, drops, mu, 0.0, samples, args.seed)}
    results[f"{e:.2f}"] = run(impacts, drops, mu, e, samples, args.seed, baselines=bounce)
    note = f"restitution e = {e:.3f} fitted on the one-corner impacts"
    if not bounce:
        note += " (this build's baselines are inelastic: not compared at that e)"

    counts = Counter(kinds.tolist())
    header = [
        f"{len(impacts)} impacts from {len(indices)} drops ({counts['one-corner']} one-corner, {counts['two-corner']} two-corner); "
        f"not kept: {', '.join(f'{n} {why}' for why, n in rejected.most_common())}",
        f"μ = {mu:.3f} (one-corner impacts that slide throughout); {note}; {samples} samples per set, seed {args.seed}",
        f"position noise σ = ({noise.sigma[0] * 1e3:.3f} mm, {noise.sigma[1] * 1e3:.3f} mm, {noise.sigma[2] * 1e3:.2f} mrad); "
        f"noise floor of d: median {np.median(noise.per_impact):.3f}, 90th percentile {np.percentile(noise.per_impact, 90):.3f}; "
        f"split-half check: the data scatter {noise.split_half:.2f} × the residuals' prediction (the floor includes it)",
    ]
    for setting, d in results.items():
        header.append(
            f"one-corner impacts, e = {setting}: the set's closest sample misses the corner's normal velocity by "
            f"{np.nanmedian(d['normal miss']):.3f} and its tangential velocity by {np.nanmedian(d['tangent miss']):.3f} "
            f"of ‖v⁻‖_M (medians); the slip reverses (by > {REVERSAL} ‖v⁻‖_M) in "
            f"{np.nanmean(d['slip reverses (measured)']):.0%} of the measurements and in some sample of the set on "
            f"{np.nanmean(d['slip reverses (set)']):.0%} of the impacts"
        )
        sizes = [
            f"{kind} {np.nanmedian(d['set radius'][kinds == kind]):.3f} "
            f"(one sample of it: median d {np.nanmedian(d['one sample'][kinds == kind]):.3f})"
            for kind in KINDS
            if (kinds == kind).any()
        ]
        header.append(
            f"e = {setting}: the set's radius (largest distance of a sample from the samples' mean, / ‖v⁻‖_M), "
            f"median: {'; '.join(sizes)}"
        )
    text = "\n\n".join([*header, table(results, kinds, noise.per_impact)]) + "\n"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "real_drops.md").write_text(text)
    figure(results, kinds, noise.per_impact, args.out / "real_drops.png")
    print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
