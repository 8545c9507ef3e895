"""Rollouts from a post-impact set (:func:`rollouts`): one MuJoCo rollout per
sampled post-impact velocity, and one from MuJoCo's own outcome of the same
impact, with the states at chosen times and per-rollout metrics.
Re-exported by :mod:`impactset.mujoco`; ``docs/rollouts.md`` has the study
this is for."""

from __future__ import annotations

import time as clock
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from . import _mujoco_stepped as _stepped
from . import _progress
from ._impactset import SampleSet
from ._mujoco_importer import check_data, import_mujoco
from ._mujoco_metrics import Metric, Trajectories, default_metrics
from ._mujoco_rollout_args import (
    Controller,
    check_controller,
    checked_metrics,
    kept_steps,
    metric_values,
    open_loop_control,
    single_outcome,
    start_velocities,
    thread_count,
    timestep_of,
    whole_steps,
)

if TYPE_CHECKING:  # pragma: no cover
    import mujoco

#: Steps one chunk of rollouts runs per thread: a chunk lasts about a second
#: on a 20 µs step, so Ctrl-C and the progress bar are served that often.
CHUNK_STEPS_PER_THREAD = 1 << 15
#: Memory one chunk's trajectories may take (every step of every rollout).
CHUNK_BYTES = 64 << 20


@dataclass(frozen=True)
class Rollouts:
    """The result of :func:`rollouts`.

    Attributes
    ----------
    times : (K,)
        The times kept, seconds since the impact (each a whole number of
        time steps).
    states : (S, K, nstate)
        Rollout ``i`` at ``times[k]``, MuJoCo's ``mjSTATE_FULLPHYSICS``
        array (``mj_setState`` takes it back unchanged).
    metrics : dict of (S,) arrays
        Each metric's value per rollout.
    v_plus : (S, nv)
        The post-impact velocities the rollouts started from.
    outcome : (nv,) or None
        MuJoCo's own post-impact velocity (:func:`impactset.mujoco.outcome`)
        when asked for; ``outcome_states`` (K, nstate) and
        ``outcome_metrics`` (one value per metric) are its rollout's.
    steps, timestep
        Steps per rollout and the model's time step (seconds).
    method
        ``"rollout"`` (MuJoCo's threaded ``mujoco.rollout``) or
        ``"stepped"`` (the Python loop of a ``controller``).
    seed
        The sampling seed when ``samples`` was a :class:`SampleSet`.
    seconds
        Wall time of the rollouts and metrics.
    """

    times: npt.NDArray[np.float64]
    states: npt.NDArray[np.float64]
    metrics: dict[str, npt.NDArray[Any]]
    v_plus: npt.NDArray[np.float64]
    outcome: npt.NDArray[np.float64] | None
    outcome_states: npt.NDArray[np.float64] | None
    outcome_metrics: dict[str, Any] | None
    steps: int
    timestep: float
    method: Literal["rollout", "stepped"]
    seed: int | None
    seconds: float
    nq: int = field(repr=False)
    nv: int = field(repr=False)

    def __len__(self) -> int:
        return int(self.v_plus.shape[0])

    @property
    def trajectories(self) -> Trajectories:
        """The kept states as :class:`Trajectories` (``qpos``/``qvel`` views)."""
        return Trajectories(self.states, self.times, self.nq, self.nv)

    def share(self, metric: str) -> float:
        """The mean of a metric over the rollouts: for a true/false metric
        such as ``fell``, the share of the set for which it holds."""
        if metric not in self.metrics:
            raise ValueError(f"metric: no metric named {metric!r}; have {sorted(self.metrics)}")
        return float(np.mean(self.metrics[metric]))


def rollouts(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    samples: SampleSet | npt.ArrayLike,
    *,
    duration: float,
    control: npt.ArrayLike | None = None,
    controller: Controller | None = None,
    threads: int | None = None,
    metrics: Mapping[str, Metric] | None = None,
    times: Sequence[float] | npt.ArrayLike | None = None,
    outcome: bool | npt.ArrayLike = True,
    progress: bool | Callable[[int, int], object] = False,
    impacts: Mapping[str, Any] | None = None,
) -> Rollouts:
    """One MuJoCo rollout per post-impact velocity of ``samples``, from the
    impact state in ``data``.

    Every rollout starts from ``data``'s whole integration state
    (``mjSTATE_INTEGRATION``: time, ``qpos``, activations, controls, applied
    forces, mocap, equality switches, the solver's warm start) with ``qvel``
    replaced by the sample, and runs ``duration`` seconds of the model's time
    step. The rollout from MuJoCo's own outcome of the impact runs in the same
    batch, so the set and the single outcome are compared in one call.

    Parameters
    ----------
    model, data
        The model and the impact state: ``data.qpos`` the configuration at
        impact, ``data.qvel`` the pre-impact velocity (the outcome's input
        unless ``samples`` is a :class:`SampleSet`, whose problem's ``v`` is).
        Neither is changed.
    samples
        A :class:`SampleSet` from :func:`impactset.sample` (its accepted
        ``v_plus``) or an (S, nv) array of velocities.
    duration
        Seconds to simulate after the impact (positive; rounded to whole time
        steps, at least one).
    control
        Open-loop controls: (nu,) held throughout or (steps, nu), one row per
        step; default ``data.ctrl`` held. Actuators that implement a controller
        (position servos: ``ctrl`` is their target) run this way at MuJoCo's
        speed.
    controller
        ``controller(model, data) -> ctrl`` (nu,), called before every step
        with ``data`` at the current state (after ``mj_forward`` at the
        start). Runs a Python loop on the calling thread, one rollout after
        the other: one core only (``threads`` unused), plus the controller's
        time at every step. Not with ``control``.
    threads
        Threads of MuJoCo's rollouts (default: every core). The result does
        not depend on it.
    metrics
        ``{name: metric}``, each ``metric(model, trajectories) -> (S,)``
        over every step of the rollouts (:class:`Trajectories`). Default:
        ``min_base_height``, ``max_base_tilt``, ``contact_loss`` and ``fell``
        for a model with a floating base, none otherwise; ``{}`` for none.
    times
        Seconds since the impact at which to keep the states (each rounded to
        a whole step, within ``[0, duration]``); default: the end.
    outcome
        Also roll out MuJoCo's own outcome (:func:`impactset.mujoco.outcome`
        with its defaults; True, the default), not (False), or this (nv,)
        velocity as the single outcome.
    progress
        True: a progress bar on standard error; a callable:
        ``progress(done, total)`` after each chunk of rollouts.
    impacts
        Resolve the rollouts' later impacts by the set too: every step is
        :class:`impactset.mujoco.ImpactSampler`'s ``step`` instead of
        ``mj_step``, one sampler per rollout, made with these keyword
        arguments (``seed`` is the first rollout's; rollout ``i`` uses
        ``seed + i``). ``{}`` for the sampler's defaults. Runs the Python
        loop, as with ``controller``; each rollout's impact count is the
        metric ``impacts``.

    Ctrl-C stops the run between two chunks (about a second apart) with
    ``KeyboardInterrupt``. Rollouts are deterministic: the same samples (the
    same sampling seed) give the same states bit for bit, whatever
    ``threads``.

    Raises
    ------
    ValueError
        An argument of the wrong shape or value, named in the message: ``data`` made for
        another model, a ``model.opt.timestep`` that is not a finite positive number.
    """
    mj = import_mujoco()
    started = clock.perf_counter()
    check_data(model, data)
    timestep = timestep_of(model)
    v_plus, v_minus, seed = start_velocities(model, data, samples)
    steps = whole_steps(duration, timestep)
    keep = kept_steps(times, steps, timestep)
    check_controller(controller, control)
    ctrl = open_loop_control(model, data, control, steps)
    chosen = default_metrics(model) if metrics is None else checked_metrics(metrics)
    single = single_outcome(model, data, outcome, v_minus)
    starts = v_plus if single is None else np.vstack([v_plus, single])
    threads = thread_count(threads)
    kept, joined = _roll_out(
        mj, model, data, starts, ctrl, steps, keep, timestep, controller, impacts, threads, chosen, progress
    )
    n = v_plus.shape[0]
    return Rollouts(
        times=keep * timestep,
        states=kept[:n],
        metrics={name: value[:n] for name, value in joined.items()},
        v_plus=v_plus,
        outcome=single,
        outcome_states=None if single is None else kept[n],
        outcome_metrics=None if single is None else {name: value[n].item() for name, value in joined.items()},
        steps=steps,
        timestep=timestep,
        method="rollout" if controller is None and impacts is None else "stepped",
        seed=seed,
        seconds=clock.perf_counter() - started,
        nq=int(model.nq),
        nv=int(model.nv),
    )


def _roll_out(
    mj: Any,
    model: mujoco.MjModel,
    data: mujoco.MjData,
    starts: npt.NDArray[np.float64],
    ctrl: npt.NDArray[np.float64],
    steps: int,
    keep: npt.NDArray[np.int64],
    timestep: float,
    controller: Controller | None,
    impacts: Any,
    threads: int,
    chosen: Mapping[str, Metric],
    progress: bool | Callable[[int, int], object],
) -> tuple[npt.NDArray[np.float64], dict[str, npt.NDArray[Any]]]:
    """The rollouts from every velocity of ``starts``, chunk by chunk: the
    states at the ``keep`` steps, (S, keep, state), and each metric's
    values, (S,)."""
    start = _InitialState.of(mj, model, data)
    update, close = _progress.for_sample(progress, lambda: starts.shape[0], unit="rollouts")
    kept = np.empty((starts.shape[0], keep.size, start.full.size))
    stepped = controller is not None or impacts is not None
    # With `impacts`, the runner adds the metric of the impacts it resolved.
    run = _stepped.runner(impacts, chosen) if stepped else _run_rollout
    values: dict[str, list[npt.NDArray[Any]]] = {name: [] for name in chosen}
    chunk = _chunk_size(steps, start.full.size, threads if not stepped else 1)
    time_axis = np.arange(steps + 1) * timestep
    try:
        with _Pool(mj, model, threads if not stepped else 1) as pool:
            for lo in range(0, starts.shape[0], chunk):
                hi = min(lo + chunk, starts.shape[0])
                trajectory = run(mj, model, start, starts[lo:hi], ctrl, steps, controller, pool)
                kept[lo:hi] = trajectory[:, keep]
                seen = Trajectories(trajectory, time_axis, int(model.nq), int(model.nv))
                for name, metric in chosen.items():
                    values[name].append(metric_values(name, metric(model, seen), hi - lo))
                if update is not None:
                    update(hi - lo)
    finally:
        if close is not None:
            close()
    return kept, {name: np.concatenate(parts) if parts else np.empty(0) for name, parts in values.items()}


@dataclass(frozen=True)
class _InitialState:
    """``data``'s integration state split as MuJoCo's rollouts take it: the
    physics state (``mjSTATE_FULLPHYSICS``), the user inputs that differ from
    a reset's (``mjSTATE_CTRL`` always, then applied forces, equality
    switches, mocap, user data: ``spec``), and the warm start."""

    full: npt.NDArray[np.float64]
    inputs: npt.NDArray[np.float64]
    spec: int
    warmstart: npt.NDArray[np.float64]
    qvel: slice

    @staticmethod
    def of(mj: Any, model: mujoco.MjModel, data: mujoco.MjData) -> _InitialState:
        state = mj.mjtState
        spec = int(state.mjSTATE_CTRL)
        if np.any(data.qfrc_applied):
            spec |= int(state.mjSTATE_QFRC_APPLIED)
        if np.any(data.xfrc_applied):
            spec |= int(state.mjSTATE_XFRC_APPLIED)
        if model.neq and not np.array_equal(data.eq_active, model.eq_active0):
            spec |= int(state.mjSTATE_EQ_ACTIVE)
        if model.nmocap:
            spec |= int(state.mjSTATE_MOCAP_POS | state.mjSTATE_MOCAP_QUAT)
        if model.nuserdata and np.any(data.userdata):
            spec |= int(state.mjSTATE_USERDATA)
        full_spec = int(state.mjSTATE_FULLPHYSICS)
        full = np.empty(mj.mj_stateSize(model, full_spec))
        mj.mj_getState(model, data, full, full_spec)
        inputs = np.empty(mj.mj_stateSize(model, spec))
        mj.mj_getState(model, data, inputs, spec)
        qvel = slice(1 + int(model.nq), 1 + int(model.nq) + int(model.nv))
        return _InitialState(full, inputs, spec, np.array(data.qacc_warmstart), qvel)

    def with_velocities(self, v: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """(S, nstate): the physics state once per velocity row of ``v``."""
        states = np.repeat(self.full[None, :], v.shape[0], axis=0)
        states[:, self.qvel] = v
        return states


def _run_rollout(
    mj: Any,
    model: mujoco.MjModel,
    start: _InitialState,
    v: npt.NDArray[np.float64],
    ctrl: npt.NDArray[np.float64],
    steps: int,
    controller: Controller | None,
    pool: Any,
) -> npt.NDArray[np.float64]:
    """(S, steps + 1, nstate) trajectories from MuJoCo's threaded rollouts."""
    rollout, datas = pool
    s = v.shape[0]
    inputs = np.repeat(start.inputs[None, None, :], steps, axis=1)
    inputs[0, :, : model.nu] = ctrl
    inputs = np.repeat(inputs, s, axis=0)
    trajectory = np.empty((s, steps + 1, start.full.size))
    initial = start.with_velocities(v)
    trajectory[:, 0] = initial
    state, _ = rollout.rollout(
        model,
        datas,
        initial,
        inputs,
        control_spec=start.spec,
        nstep=steps,
        initial_warmstart=np.repeat(start.warmstart[None, :], s, axis=0),
        state=trajectory[:, 1:],
    )
    if not np.shares_memory(state, trajectory):  # pragma: no cover - MuJoCo copied the output
        trajectory[:, 1:] = state
    return trajectory


class _Pool:
    """MuJoCo's rollout thread pool and one ``MjData`` per thread, closed on
    exit."""

    def __init__(self, mj: Any, model: mujoco.MjModel, threads: int) -> None:
        self.mj = mj
        self.model = model
        self.threads = threads
        self.rollout: Any = None

    def __enter__(self) -> tuple[Any, list[Any]]:
        from mujoco import rollout

        self.rollout = rollout.Rollout(nthread=self.threads if self.threads > 1 else 0)
        return self.rollout, [self.mj.MjData(self.model) for _ in range(self.threads)]

    def __exit__(self, *exc: object) -> None:
        self.rollout.close()


def _chunk_size(steps: int, nstate: int, threads: int) -> int:
    """Rollouts per chunk: about :data:`CHUNK_STEPS_PER_THREAD` steps a
    thread, within :data:`CHUNK_BYTES` of trajectories."""
    by_time = max(threads, threads * CHUNK_STEPS_PER_THREAD // steps)
    by_memory = max(1, CHUNK_BYTES // ((steps + 1) * nstate * 8))
    return max(1, min(by_time, by_memory))
