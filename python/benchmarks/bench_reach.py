"""Batch reachability from Python: `impactset.reach` on this machine against
`impactset.ray.reach` on a local Ray cluster of the same CPUs, with one
`impactset.sample` run of the same total number of samples for reference.

    .venv/bin/python python/benchmarks/bench_reach.py [--states 10000] [--samples 1024]
        [--selection random-lemke] [--repeats 2] [--cpus 2] [--json out.json]

The states: compass-gait at a grid of pre-impact velocities (leg rates
0.6–1.4× the scene's, a hip-rate tilt of ±20 %). The three runs alternate
in one process (local, Ray, sample; `--repeats` rounds) and the medians and
ratios are printed. The Ray cluster (`ray.init(num_cpus=CPUS)`) is started
once before the first round; its start-up is reported, not counted. Ray
runs the default split (4 tasks per CPU, one thread each); the local batch
and the sample run use every core. The Ray table is checked against the
local one (bit for bit).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import impactset
import impactset.ray
import numpy as np


def grid(p: impactset.Problem, states: int) -> np.ndarray:
    side = int(np.ceil(np.sqrt(states)))
    rates = np.linspace(0.6, 1.4, side)
    tilts = np.linspace(-0.2, 0.2, side)
    v = np.asarray(p.v)
    rows = [v * np.array([r, r, r * (1 + t), r * (1 - t)]) for r in rates for t in tilts]
    return np.array(rows[:states])


def same(a: impactset.Reach, b: impactset.Reach) -> bool:
    for name in a.columns:
        x, y = a[name], b[name]
        if x.dtype == object:
            if not all(np.array_equal(np.asarray(p), np.asarray(q)) for p, q in zip(x, y, strict=True)):
                return False
        elif x.tobytes() != y.tobytes():
            return False
    return a.columns == b.columns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--states", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=1024)
    parser.add_argument("--selection", default="random-lemke")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--cpus", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--json", help="write the measurements here")
    args = parser.parse_args()

    import ray

    p = impactset.Problem.scene("compass-gait")
    V = grid(p, args.states)
    total = args.states * args.samples
    started = time.perf_counter()
    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
    ray_start = time.perf_counter() - started
    print(f"compass-gait, {args.states} states × {args.samples} samples = {total} samples, {args.selection}")
    print(f"ray.init(num_cpus={args.cpus}): {ray_start:.1f} s (not counted)")

    times: dict[str, list[float]] = {"local": [], "ray": [], "sample": []}
    checked = None
    for round_ in range(args.repeats):
        local = impactset.reach(p, args.samples, velocities=V, selection=args.selection)
        times["local"].append(local.elapsed_s)
        remote = impactset.ray.reach(p, args.samples, velocities=V, selection=args.selection)
        times["ray"].append(remote.elapsed_s)
        if checked is None:
            checked = same(local, remote)
        del local, remote
        t = time.perf_counter()
        s = impactset.sample(p, total, selection=args.selection)
        times["sample"].append(time.perf_counter() - t)
        del s
        print(
            f"round {round_ + 1}: local {times['local'][-1]:.1f} s, ray {times['ray'][-1]:.1f} s, "
            f"sample {times['sample'][-1]:.1f} s",
            flush=True,
        )
    ray.shutdown()
    med = {k: statistics.median(v) for k, v in times.items()}
    print(
        f"median: local reach {med['local']:.1f} s ({total / med['local']:.0f} samples/s), "
        f"ray reach {med['ray']:.1f} s, one sample run {med['sample']:.1f} s"
    )
    print(
        f"ratios: ray/local {med['ray'] / med['local']:.2f}, local/sample {med['local'] / med['sample']:.2f}, "
        f"ray/sample {med['ray'] / med['sample']:.2f}; Ray table equal to the local one bit for bit: {checked}"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "ray_init_s": ray_start, "times": times, "equal": checked}, f, indent=1)


if __name__ == "__main__":
    main()
