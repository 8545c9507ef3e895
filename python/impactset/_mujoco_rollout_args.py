"""The arguments of :func:`impactset.mujoco.rollouts`, checked: each
helper returns the argument in the form the rollouts take, or raises
``ValueError`` naming it."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ._impactset import SampleSet
from ._mujoco_metrics import Metric
from ._mujoco_outcome import outcome as mujoco_outcome

if TYPE_CHECKING:  # pragma: no cover
    import mujoco

#: A controller of the stepped loop: ``controller(model, data) -> ctrl``.
Controller = Callable[["mujoco.MjModel", "mujoco.MjData"], npt.ArrayLike]


def check_controller(controller: Controller | None, control: npt.ArrayLike | None) -> None:
    if controller is not None and control is not None:
        raise ValueError("control, controller: give one of them, not both")
    if controller is not None and not callable(controller):
        raise ValueError(f"controller: expected a callable controller(model, data) -> ctrl, got {controller!r}")


def start_velocities(
    model: mujoco.MjModel, data: mujoco.MjData, samples: object
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], int | None]:
    """The (S, nv) start velocities, the pre-impact velocity and the
    sampling seed (None for an array)."""
    nv = int(model.nv)
    if isinstance(samples, SampleSet):
        v = np.array(samples.v_plus, dtype=float)
        v_minus = np.array(samples.problem.v, dtype=float)
        seed = samples.summary.get("seed")
        if v_minus.shape != (nv,):
            raise ValueError(f"samples: a set of a problem with {v_minus.size} velocities, the model has nv = {nv}")
    else:
        try:
            v = np.array(samples, dtype=float)
        except (TypeError, ValueError):
            raise ValueError("samples: expected a SampleSet or an (S, nv) array of numbers") from None
        v_minus = np.array(data.qvel, dtype=float)
        seed = None
    if v.ndim != 2 or v.shape[1] != nv:
        raise ValueError(f"samples: expected an (S, {nv}) array (nv = {nv}), got shape {v.shape}")
    if v.shape[0] == 0:
        raise ValueError("samples: no velocities (an empty set)")
    if not np.all(np.isfinite(v)):
        raise ValueError("samples: not every velocity is finite")
    return v, v_minus, None if seed is None else int(seed)


def timestep_of(model: mujoco.MjModel) -> float:
    """The model's time step: a finite positive number of seconds."""
    timestep = float(model.opt.timestep)
    if not (math.isfinite(timestep) and timestep > 0):
        raise ValueError(f"model.opt.timestep: expected a finite positive number of seconds, got {timestep!r}")
    return timestep


def whole_steps(duration: object, timestep: float) -> int:
    """Whole steps of ``timestep`` in ``duration`` (at least one)."""
    if isinstance(duration, bool) or not isinstance(duration, (int, float, np.integer, np.floating)):
        raise ValueError(f"duration: expected a finite positive number of seconds, got {duration!r}")
    if not (math.isfinite(float(duration)) and float(duration) > 0):
        raise ValueError(f"duration: expected a finite positive number of seconds, got {duration!r}")
    return max(1, round(float(duration) / timestep))


def kept_steps(times: object, steps: int, timestep: float) -> npt.NDArray[np.intp]:
    """The step indices of ``times`` (default: the last step)."""
    if times is None:
        return np.array([steps], dtype=np.intp)
    try:
        t = np.array(times, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"times: expected seconds since the impact, got {times!r}") from None
    if t.size == 0 or not np.all(np.isfinite(t)):
        raise ValueError("times: expected at least one finite time")
    k = np.rint(t / timestep).astype(np.intp)
    if np.any(k < 0) or np.any(k > steps):
        raise ValueError(f"times: each must lie in [0, duration] = [0, {steps * timestep:g}] s")
    return k


def open_loop_control(
    model: mujoco.MjModel, data: mujoco.MjData, control: object, steps: int
) -> npt.NDArray[np.float64]:
    """(steps, nu) open-loop controls (default ``data.ctrl`` held)."""
    nu = int(model.nu)
    if control is None:
        return np.repeat(np.array(data.ctrl, dtype=float)[None, :], steps, axis=0)
    try:
        u = np.array(control, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"control: expected ({nu},) or ({steps}, {nu}) numbers (nu = model.nu)") from None
    if u.shape == (nu,):
        u = np.repeat(u[None, :], steps, axis=0)
    if u.shape != (steps, nu):
        raise ValueError(f"control: expected shape ({nu},) or ({steps}, {nu}) (steps, model.nu), got {u.shape}")
    if not np.all(np.isfinite(u)):
        raise ValueError("control: not every entry is finite")
    return u


def thread_count(threads: object) -> int:
    if threads is None:
        return max(1, os.cpu_count() or 1)
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ValueError(f"threads: expected a whole number ≥ 1, got {threads!r}")
    return int(threads)


def checked_metrics(metrics: object) -> dict[str, Metric]:
    if not isinstance(metrics, Mapping):
        raise ValueError(f"metrics: expected a mapping {{name: metric(model, trajectories)}}, got {metrics!r}")
    for name, metric in metrics.items():
        if not isinstance(name, str) or not callable(metric):
            raise ValueError(f"metrics: {name!r} must be a name mapped to a callable metric(model, trajectories)")
    return dict(metrics)


def metric_values(name: str, value: npt.ArrayLike, s: int) -> npt.NDArray[Any]:
    out = np.asarray(value)
    if out.shape != (s,):
        raise ValueError(f"metrics: {name!r} returned shape {out.shape}, expected ({s},) (one value per rollout)")
    return out


def single_outcome(
    model: mujoco.MjModel, data: mujoco.MjData, outcome: object, v_minus: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64] | None:
    """MuJoCo's own post-impact velocity (True), none (False) or the given one."""
    if outcome is False:
        return None
    if outcome is True:
        return mujoco_outcome(model, data, v=v_minus)
    v = np.array(outcome, dtype=float)
    if v.shape != (model.nv,) or not np.all(np.isfinite(v)):
        raise ValueError(f"outcome: expected True, False or ({model.nv},) finite velocities (model.nv)")
    return v
