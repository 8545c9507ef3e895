"""Python against the command line: 2^18 compass-gait samples (selection
all, seed 0, all cores), wall time and peak memory.

    .venv/bin/python python/benchmarks/bench_sample.py [--samples N] [--repeats R] [--cli PATH]

Each measurement runs in a fresh process, alternating CLI and Python, and
the medians are printed. Time: the CLI's wall time (process start to exit,
writing its .npy) against the Python process's `impactset.sample` call.
Memory: the peak resident set of each process above what it held before
sampling (for Python: after importing numpy and impactset), next to the
size of the result arrays, so that a copy of the results would show.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PYTHON_RUN = r"""
import json, resource, sys, time
import numpy as np, impactset
def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
problem = impactset.Problem.scene("compass-gait")
before = rss_kib()
start = time.perf_counter()
s = impactset.sample(problem, int(sys.argv[1]))
wall = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
arrays = sum(a.nbytes for a in (s.v_plus, s.accepted, s.indices, s.steps, s.energy_ratio, s.residual, s.modes))
print(json.dumps({"wall_s": wall, "sampling_s": s.summary["elapsed_s"], "before_kib": before, "peak_kib": peak,
                  "v_plus_bytes": s.v_plus.nbytes, "arrays_bytes": arrays,
                  "v_plus_owned_by_rust_buffer": type(s.v_plus.base).__name__}))
"""


def run_cli(cli: Path, samples: int, out: Path) -> dict[str, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    proc = subprocess.run(
        [str(cli), "sample", "compass-gait", "-n", str(samples), "--out", str(out), "--json"],
        check=True,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    summary = json.loads(proc.stdout)
    # ru_maxrss of children is the largest of any child so far: report it
    # only when this child set a new maximum.
    return {"wall_s": wall, "sampling_s": summary["elapsed_s"], "peak_kib": peak if peak > before else float("nan")}


def run_python(samples: int) -> dict[str, float]:
    proc = subprocess.run([sys.executable, "-c", PYTHON_RUN, str(samples)], check=True, capture_output=True, text=True)
    return json.loads(proc.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=1 << 18)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cli", type=Path, default=ROOT / "target" / "release" / "impactset")
    args = parser.parse_args()
    cli_runs, py_runs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "v.npy"
        for _ in range(args.repeats):
            cli_runs.append(run_cli(args.cli, args.samples, out))
            py_runs.append(run_python(args.samples))
    med = lambda runs, key: statistics.median(r[key] for r in runs)  # noqa: E731
    cli_wall, py_wall = med(cli_runs, "wall_s"), med(py_runs, "wall_s")
    print(f"compass-gait, {args.samples} samples, selection all, {os.cpu_count()} cores, median of {args.repeats}")
    print(f"  CLI    wall {cli_wall:.3f} s (sampling {med(cli_runs, 'sampling_s'):.3f} s)")
    print(f"  Python wall {py_wall:.3f} s (sampling {med(py_runs, 'sampling_s'):.3f} s)")
    print(f"  Python / CLI: {py_wall / cli_wall:.3f}")
    last = py_runs[-1]
    extra = (last["peak_kib"] - last["before_kib"]) * 1024
    print(
        f"  Python peak memory above the start: {extra / 2**20:.1f} MiB for result arrays of "
        f"{last['arrays_bytes'] / 2**20:.1f} MiB (v_plus {last['v_plus_bytes'] / 2**20:.1f} MiB, "
        f"held in the Rust buffer it was written to: base {last['v_plus_owned_by_rust_buffer']})"
    )
    cli_peaks = [r["peak_kib"] for r in cli_runs if r["peak_kib"] == r["peak_kib"]]
    if cli_peaks:
        print(f"  CLI peak resident set: {max(cli_peaks) / 1024:.1f} MiB")
    for name, runs in (("cli", cli_runs), ("python", py_runs)):
        print(f"  {name} runs: " + ", ".join(f"{r['wall_s']:.3f}" for r in runs))


if __name__ == "__main__":
    main()
