"""Importing an impact problem from MuJoCo: dm_control's humanoid (27 velocity
coordinates) standing flat on both feet, 8 contacts (heel and toe of each of
the four foot capsules, within 3 mm), time per ``impactset.mujoco.problem``
call (mj_forward, the collision rerun, mj_fullM, the rows and
``Problem.from_arrays``).

    .venv/bin/python python/benchmarks/bench_import.py [--repeats 200]
"""

from __future__ import annotations

import argparse
import statistics
import time
from importlib.util import find_spec
from pathlib import Path

import impactset.mujoco
import mujoco
import numpy as np


def humanoid() -> tuple[mujoco.MjModel, mujoco.MjData]:
    spec = find_spec("dm_control")
    assert spec is not None and spec.submodule_search_locations, "pip install --no-deps dm_control"
    path = Path(next(iter(spec.submodule_search_locations))) / "suite" / "humanoid.xml"
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    floor = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, "floor")
    gap = min(mujoco.mj_geomDistance(model, data, floor, g, 1.0, np.zeros(6)) for g in range(model.ngeom) if g != floor)
    data.qpos[2] -= gap
    data.qvel[:3] = [0.3, 0.0, -1.0]
    return model, data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()
    model, data = humanoid()
    p = impactset.mujoco.problem(model, data, distance=3e-3)
    times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        impactset.mujoco.problem(model, data, distance=3e-3)
        times.append(time.perf_counter() - start)
    print(
        f"humanoid: n = {p.n}, m = {p.m} contacts ({p.dimension}); import median {statistics.median(times) * 1e3:.3f} ms, "
        f"min {min(times) * 1e3:.3f} ms over {args.repeats} calls (mujoco {mujoco.__version__})"
    )


if __name__ == "__main__":
    main()
