"""dm_control's humanoid striking the floor with its right foot, heel and
toe at once, the left leg swung forward: the impact problem straight from
MuJoCo, its post-impact set, MuJoCo's own stiff outcome and the set figure.

    python examples/humanoid_heel_toe.py [--samples 4096] [--selection random-lemke] [--out DIR]

Four contacts on one rigid foot make every step LCP degenerate (12 contact
rows on the foot's 6 degrees of freedom): enumerating all of its solutions
(``--selection all``) costs about 0.1 s a sample here, so the example picks
one random Lemke solution per step by default.

Needs ``pip install mujoco`` and ``pip install --no-deps dm_control``.
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


def strike_state(model: mujoco.MjModel) -> mujoco.MjData:
    """The humanoid upright with its left hip flexed (the left foot in the
    air), lowered until the right foot touches the floor, moving forward at
    0.8 m/s and down at 1 m/s."""
    data = mujoco.MjData(model)
    data.qpos[model.jnt_qposadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, "left_hip_y")]] = -0.6
    mujoco.mj_forward(model, data)
    floor = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, "floor")
    gap = min(mujoco.mj_geomDistance(model, data, floor, g, 1.0, np.zeros(6)) for g in range(model.ngeom) if g != floor)
    data.qpos[2] -= gap
    data.qvel[:] = 0.0
    data.qvel[:3] = [0.8, 0.0, -1.0]
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=int(os.environ.get("IMPACTSET_EXAMPLE_SAMPLES", 4096)))
    parser.add_argument("--selection", default="random-lemke", choices=["all", "random-lemke", "lemke"])
    parser.add_argument("--out", type=Path, default=Path("."))
    args = parser.parse_args()

    spec = find_spec("dm_control")
    assert spec is not None and spec.submodule_search_locations, "pip install --no-deps dm_control"
    path = Path(next(iter(spec.submodule_search_locations))) / "suite" / "humanoid.xml"
    model = mujoco.MjModel.from_xml_path(str(path))
    data = strike_state(model)

    # The foot's two capsules touch at their heel ends; their toe ends are
    # 1.7 mm above the floor: a 3 mm tolerance makes it one heel-toe impact.
    problem = impactset.mujoco.problem(model, data, bodies=["right_foot"], distance=3e-3, name="humanoid-heel-toe")
    print(f"{problem.name}: n = {problem.n}, contacts {problem.names}, μ = {problem.mu.tolist()}")
    s = impactset.sample(problem, args.samples, seed=0, selection=args.selection)
    print(f"{len(s)} samples; energy kept E⁺/E⁻ in [{s.energy_ratio.min():.3f}, {s.energy_ratio.max():.3f}]")
    labels, counts = np.unique(np.array(s.mode_labels)[s.modes], return_counts=True)
    for k in np.argsort(-counts)[:5]:
        print(f"  {counts[k]:6d}  {labels[k]}")

    v_out = impactset.mujoco.outcome(model, data, distance=3e-3)
    d = s.v_plus - v_out
    gap = np.sqrt(np.min(np.einsum("ij,jk,ik->i", d, problem.M, d)) / (problem.v @ problem.M @ problem.v))
    print(f"MuJoCo's stiff outcome lies {gap:.4f}·‖v⁻‖_M from the nearest sample")

    args.out.mkdir(parents=True, exist_ok=True)
    figure = args.out / "humanoid_heel_toe.svg"
    s.plot(figure, title="Humanoid heel-toe strike")
    print(f"wrote {figure}")


if __name__ == "__main__":
    main()
