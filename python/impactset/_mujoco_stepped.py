"""The Python stepping loop of :func:`impactset.mujoco.rollouts`: a controller
asked before every step, and optionally every later impact resolved by the
set (one :class:`~impactset.mujoco.ImpactSampler` per rollout)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ._mujoco_impact_sampler import ImpactSampler
from ._mujoco_metrics import Trajectories

if TYPE_CHECKING:  # pragma: no cover
    import mujoco

Run = Callable[..., npt.NDArray[np.float64]]


def runner(impacts: Mapping[str, Any] | None, metrics: dict[str, Any]) -> Run:
    """The stepped loop; with ``impacts`` (the samplers' keyword arguments)
    each rollout steps through its own sampler, rollout ``i`` (counted over
    the whole call) seeded ``seed + i``, and ``metrics`` gains ``impacts``,
    each rollout's count of impacts met."""
    options = None if impacts is None else dict(impacts)
    if options is not None:
        if "impacts" in metrics:
            raise ValueError("metrics: 'impacts' is the impact count's name with impacts=; rename that metric")
        seed = options.pop("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"impacts: seed must be a whole number ≥ 0, got {seed!r}")
    done = [0]
    counts: list[npt.NDArray[np.float64]] = [np.empty(0)]

    def run(
        mj: Any,
        model: mujoco.MjModel,
        start: Any,
        v: npt.NDArray[np.float64],
        ctrl: npt.NDArray[np.float64],
        steps: int,
        controller: Callable[..., npt.ArrayLike] | None,
        pool: Any,
    ) -> npt.NDArray[np.float64]:
        """(S, steps + 1, nstate) trajectories of a Python loop that asks
        ``controller`` for the controls before every step (else plays
        ``ctrl``, one row per step)."""
        _, datas = pool
        data = datas[0]
        full_spec = int(mj.mjtState.mjSTATE_FULLPHYSICS)
        trajectory = np.empty((v.shape[0], steps + 1, start.full.size))
        counts[0] = np.zeros(v.shape[0])
        for i, state in enumerate(start.with_velocities(v)):
            mj.mj_resetData(model, data)
            mj.mj_setState(model, data, state, full_spec)
            mj.mj_setState(model, data, start.inputs, start.spec)
            data.qacc_warmstart[:] = start.warmstart
            mj.mj_forward(model, data)
            trajectory[i, 0] = state
            sampler = None if options is None else ImpactSampler(model, seed=int(seed) + done[0], **options)
            step = mj.mj_step if sampler is None else sampler.step
            for k in range(steps):
                if controller is not None:
                    u = np.asarray(controller(model, data), dtype=float)
                    if u.shape != (model.nu,):
                        raise ValueError(f"controller: returned shape {u.shape}, expected ({model.nu},) (model.nu)")
                    data.ctrl[:] = u
                else:
                    data.ctrl[:] = ctrl[k]
                step(model, data)
                mj.mj_getState(model, data, trajectory[i, k + 1], full_spec)
            if sampler is not None:
                counts[0][i] = sampler.impacts
            done[0] += 1
        return trajectory

    if options is not None:

        def impact_count(model: mujoco.MjModel, trajectories: Trajectories) -> npt.NDArray[np.float64]:
            return counts[0]

        metrics["impacts"] = impact_count
    return run
