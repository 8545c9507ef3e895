"""Batch reachability on a Ray cluster: the implementation behind
:mod:`impactset.ray` (more there)."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ._impactset import Problem
from ._impactset import reach_native as _reach_native
from ._names import ScheduleName, SelectionName
from ._progress import for_batch
from ._reach import Reach, _check_flag


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as e:
        raise ImportError(
            "impactset.ray needs Ray: pip install 'ray>=2.9,<3' (or pip install 'impactset[ray]'); "
            "impactset.reach runs the same batch on this machine"
        ) from e
    return ray


def shard_ranges(states: int, shards: int) -> list[tuple[int, int]]:
    """The state ranges of ``shards`` shards of a batch of ``states``
    states, as the command line's ``--shard I/J``: shard ``i`` has the
    states ``⌊i·B/J⌋ … ⌊(i+1)·B/J⌋ − 1``; empty shards are left out (so
    there are at most ``states`` ranges, whatever ``shards``).

    >>> from impactset.ray import shard_ranges
    >>> shard_ranges(10, 3)
    [(0, 3), (3, 6), (6, 10)]
    >>> shard_ranges(2, 4)
    [(0, 1), (1, 2)]
    """
    if shards < 1:
        raise ValueError(f"num_tasks: expected an integer ≥ 1, got {shards}")
    # More shards than states leave the extra ones empty: the nonempty ones
    # are then one state each, as with one shard per state.
    shards = min(shards, max(states, 1))
    ranges = [(i * states // shards, (i + 1) * states // shards) for i in range(shards)]
    return [r for r in ranges if r[0] < r[1]] or [(0, 0)]


def _check_feasible(ray: Any, cpus_per_task: int) -> None:
    """``ValueError`` when no alive node of the cluster has
    ``cpus_per_task`` CPUs: Ray would keep such a task pending for ever."""
    nodes = [node.get("Resources", {}) for node in ray.nodes() if node.get("Alive", False)]
    largest = max((float(r.get("CPU", 0)) for r in nodes), default=0.0)
    total = float(ray.cluster_resources().get("CPU", 0))
    if cpus_per_task > largest:
        raise ValueError(
            f"cpus_per_task: {cpus_per_task} CPUs per task, but the largest node of the cluster has "
            f"{largest:g} ({total:g} in all): no task could start; give at most {largest:g}"
        )


def _run_shard(
    problem: Any,
    velocities: Any,
    n: int,
    start: int,
    end: int,
    options: dict[str, Any],
    hook: Callable[[int, int], object] | None,
) -> tuple[tuple, list[tuple[type[Warning], str]]]:
    """One shard, in a Ray worker: the native result of the states
    ``start .. end``, and the warnings it raised (their category and
    message), which the driver raises again where its user sees them."""
    if hook is not None:
        hook(start, end)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        part = _reach_native(problem, n, velocities=velocities, start=start, end=end, **options)
    return part, [(w.category, str(w.message)) for w in caught]


def reach(
    problem: Problem | Sequence[Problem],
    n: int,
    *,
    velocities: Any = None,
    num_tasks: int | None = None,
    address: str | None = None,
    cpus_per_task: int = 1,
    max_retries: int = 3,
    seed: int | None = None,
    selection: SelectionName | None = None,
    schedule: ScheduleName | None = None,
    directions: Mapping[str, Any] | None = None,
    keep_sets: bool = False,
    threads: int | None = None,
    steps: int | None = None,
    step_size: float | None = None,
    baselines: bool = True,
    extremes: bool = False,
    extremes_budget: int | None = None,
    heldout_every: int | None = None,
    delta: float | None = None,
    progress: bool | Callable[[int, int], object] = False,
    mode_tolerance: float | None = None,
    _shard_hook: Callable[[int, int], object] | None = None,
) -> Reach:
    """:func:`impactset.reach` on a Ray cluster: the same arguments and the
    same table, bit for bit.

    The states are split into ``num_tasks`` consecutive shards (default: 4
    per CPU of the cluster; at most one per state, whatever ``num_tasks``),
    each a Ray task of ``cpus_per_task`` CPUs running ``threads`` threads
    (default ``cpus_per_task``). ``cpus_per_task`` more than any node of
    the cluster has is refused with ``ValueError`` (such a task would wait
    for ever; on an autoscaling cluster, start a large enough node first). A task whose worker dies (a node lost, a process
    killed) is run again, up to ``max_retries`` times; its rows do not
    change. The problems and velocities go to the object store once.

    ``address``: the cluster to join when Ray is not initialized yet
    (``"auto"``: the one ``ray start`` runs on this node; ``"ray://host:10001"``;
    None: a new local cluster, kept for later calls). When Ray is already
    initialized (``ray.init(...)``) that cluster is used. ``progress``
    (True: a bar; or a callable called as ``progress(done, total)`` in
    samples, as :func:`impactset.reach` calls it) advances as shards finish. Ctrl-C cancels the pending tasks.

    Arguments are checked here before any task starts: ``ValueError`` or
    ``TypeError`` naming the argument. Runs on the CPU (f64).
    (``_shard_hook(start, end)``, if given, runs in the worker before each
    shard; the tests use it to end a worker mid-batch.)
    """
    ray = _import_ray()
    _check_cluster_arguments(cpus_per_task, max_retries, num_tasks)
    _check_flag("baselines", baselines)
    _check_flag("keep_sets", keep_sets)
    _check_flag("extremes", extremes)
    if not isinstance(problem, (Problem, str, bytes, Mapping)) and hasattr(problem, "__iter__"):
        problem = list(problem)  # an iterator is read once
    options: dict[str, Any] = {
        "seed": seed,
        "selection": selection,
        "schedule": schedule,
        "steps": steps,
        "step_size": step_size,
        "directions": None if directions is None else directions,
        "baselines": bool(baselines),
        "extremes": bool(extremes),
        "extremes_budget": extremes_budget,
        "keep_sets": bool(keep_sets),
        "heldout_every": heldout_every,
        "delta": delta,
        "mode_tolerance": mode_tolerance,
        "threads": cpus_per_task if threads is None else threads,
    }
    # Every argument checked, and the batch's size, from a run of no states.
    probe = _reach_native(problem, n, velocities=velocities, start=0, end=0, **options)
    states = int(probe[4]["batch_states"])
    if velocities is not None:
        velocities = np.ascontiguousarray(velocities, dtype=np.float64)
    if directions is not None:
        options["directions"] = {name: np.asarray(c, dtype=np.float64) for name, c in directions.items()}

    started = time.perf_counter()
    if not ray.is_initialized():
        ray.init(address=address)
    _check_feasible(ray, cpus_per_task)
    if num_tasks is None:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        num_tasks = max(1, min(states, 4 * max(cpus, 1)))
    ranges = shard_ranges(states, num_tasks)

    task = ray.remote(_run_shard).options(num_cpus=cpus_per_task, max_retries=max_retries, retry_exceptions=False)
    problem_ref = ray.put(problem)
    velocities_ref = None if velocities is None else ray.put(velocities)
    refs = [task.remote(problem_ref, velocities_ref, n, a, b, options, _shard_hook) for a, b in ranges]

    sizes = [(b - a) * n for a, b in ranges]
    shards = _gather(ray, refs, sizes, progress, states * n)
    for _, caught in shards:
        for category, message in caught:
            warnings.warn(message, category, stacklevel=2)
    parts = [part for part, _ in shards]
    reach = Reach._join(parts, time.perf_counter() - started, shards=len(ranges))
    return reach


def _check_cluster_arguments(cpus_per_task: object, max_retries: object, num_tasks: object) -> None:
    """``ValueError`` naming the first of :func:`reach`'s cluster arguments out of its domain."""
    if isinstance(cpus_per_task, bool) or not isinstance(cpus_per_task, int) or cpus_per_task < 1:
        raise ValueError(f"cpus_per_task: expected an integer ≥ 1, got {cpus_per_task!r}")
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < -1:
        raise ValueError(f"max_retries: expected an integer ≥ -1 (-1: without limit), got {max_retries!r}")
    if num_tasks is not None and (isinstance(num_tasks, bool) or not isinstance(num_tasks, int) or num_tasks < 1):
        raise ValueError(f"num_tasks: expected an integer ≥ 1, got {num_tasks!r}")


def _gather(ray: Any, refs: list[Any], sizes: list[int], progress: Any, total: int) -> list[Any]:
    """The shards' results in order, ``progress`` advanced by each shard's
    ``sizes`` entry as it finishes; on any error or Ctrl-C the shards still
    running are cancelled."""
    callback, close = for_batch(progress, total)
    size = dict(zip(refs, sizes, strict=True))
    try:
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            if callback is not None:
                for ref in done:
                    callback(size[ref])
        return ray.get(refs)
    except BaseException:
        # Stop the shards still running. Only those: cancelling a task whose
        # result is arriving races inside Ray's core worker (a RAY_CHECK
        # "Tried to complete task that was not pending" that ends the driver,
        # seen with Ray 2.60 when a killed worker failed the batch).
        _, running = ray.wait(refs, num_returns=len(refs), timeout=0)
        for ref in running:
            ray.cancel(ref, force=True)
        raise
    finally:
        if close is not None:
            close()
