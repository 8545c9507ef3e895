"""Batch reachability from Python: the post-impact sets of many pre-impact
states, one table row per state (``docs/model.md`` §12)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from ._impactset import Problem
from ._impactset import reach_native as _reach_native
from ._names import BackendName, PrecisionName, ScheduleName, SelectionName
from ._progress import for_batch

if TYPE_CHECKING:  # pragma: no cover
    import pandas

_KINDS = {"u64", "f64", "str", "f64 list"}


class Reach:
    """The table of a batch: one row per state, in state order.

    * ``table``: a read-only mapping of column name → 1-D ndarray, in the
      order and with the names of the command line's ``impactset reach``
      table (``docs/model.md`` §12): ``uint64`` counts, ``float64`` figures,
      ``object`` arrays of ``str`` (``problem``, ``top_mode``) and, for the
      list column ``simultaneous``, an ``object`` array holding one float64
      vector per state. ``reach["epsilon"]`` is ``reach.table["epsilon"]``.
    * ``sets``: with ``keep_sets=True`` a list of one ``(accepted_k, n)``
      float64 array per state (its accepted ``v⁺`` in sample order), else
      None.
    * ``run``: what ran (states, samples, seed, selection, backend, threads,
      shards, ``compute_s`` summed over shards); ``elapsed_s``: the call's
      wall time.

    ``len(reach)`` is the number of states; :meth:`to_pandas` gives a
    ``pandas.DataFrame``. The arrays are read-only.
    """

    def __init__(
        self,
        columns: Mapping[str, np.ndarray],
        kinds: Mapping[str, str],
        sets: list[np.ndarray] | None,
        run: Mapping[str, Any],
        elapsed_s: float,
    ) -> None:
        self._columns = dict(columns)
        self._kinds = dict(kinds)
        self._sets = sets
        self._run = dict(run)
        self.elapsed_s = float(elapsed_s)
        for name, array in self._columns.items():
            array.setflags(write=False)
            if self._kinds.get(name) == "f64 list":
                for item in array:
                    if isinstance(item, np.ndarray):
                        item.setflags(write=False)
        for array in sets or ():
            array.setflags(write=False)

    def __reduce__(self) -> tuple[type[Reach], tuple[Any, ...]]:
        """Pickling (``pickle``, ``copy``, Ray): the columns, kinds, sets and
        run; the copy's arrays are read-only too (numpy pickles arrays
        writable)."""
        return (Reach, (self._columns, self._kinds, self._sets, self._run, self.elapsed_s))

    @property
    def table(self) -> Mapping[str, np.ndarray]:
        """Column name → ndarray (one entry per state), in table order."""
        return MappingProxyType(self._columns)

    @property
    def columns(self) -> list[str]:
        """The column names, in table order."""
        return list(self._columns)

    @property
    def kinds(self) -> dict[str, str]:
        """Column name → ``"u64"``, ``"f64"``, ``"str"`` or ``"f64 list"``."""
        return dict(self._kinds)

    @property
    def sets(self) -> list[np.ndarray] | None:
        """Each state's accepted ``v⁺`` ``(accepted_k, n)`` when the batch
        kept them (``keep_sets=True``), else None."""
        return None if self._sets is None else list(self._sets)

    @property
    def run(self) -> dict[str, Any]:
        """What ran: states, samples, seed, selection, steps, step size (None:
        each state's own), backend, precision, threads, shards, ``compute_s``."""
        return dict(self._run)

    def __getitem__(self, name: str) -> np.ndarray:
        return self._columns[name]

    def __len__(self) -> int:
        return int(self._run["states"])

    def __repr__(self) -> str:
        problem = self._columns.get("problem")
        names = sorted({str(x) for x in problem}) if problem is not None and len(problem) else []
        label = names[0] if len(names) == 1 else f"{len(names)} problems"
        return (
            f"Reach('{label}', {len(self)} states × {self._run['samples_per_state']} samples, "
            f"{len(self._columns)} columns, {self.elapsed_s:.3g} s)"
        )

    def to_pandas(self) -> pandas.DataFrame:
        """The table as a ``pandas.DataFrame`` (one row per state, the
        columns in table order; ``simultaneous`` holds float64 arrays).

        Raises ``ImportError`` when pandas is not installed.
        """
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError(
                "Reach.to_pandas needs pandas: pip install pandas (Reach.table has the same columns as ndarrays)"
            ) from e
        return pd.DataFrame({name: np.array(col, copy=True) for name, col in self._columns.items()})

    @classmethod
    def _join(cls, parts: Sequence[tuple], elapsed_s: float, shards: int | None = None) -> Reach:
        """The batch from the native results of consecutive state ranges, in
        state order (one range: the whole batch)."""
        if not parts:
            raise ValueError("no parts to join")
        names, kinds = list(parts[0][0]), list(parts[0][1])
        for p in parts[1:]:
            if list(p[0]) != names or list(p[1]) != kinds:
                raise ValueError("the shards' columns differ")
        for p, q in zip(parts, parts[1:], strict=False):
            if p[4]["end"] != q[4]["start"]:
                raise ValueError(f"shards not consecutive: {p[4]['end']} then {q[4]['start']}")
        columns: dict[str, np.ndarray] = {}
        for j, (name, kind) in enumerate(zip(names, kinds, strict=True)):
            assert kind in _KINDS, kind
            pieces = [p[2][j] for p in parts]
            columns[name] = pieces[0].copy() if len(pieces) == 1 else np.concatenate(pieces)
        sets = None if parts[0][3] is None else [s for p in parts for s in p[3]]
        run = dict(parts[0][4])
        run["states"] = sum(p[4]["states"] for p in parts)
        run["samples"] = sum(p[4]["samples"] for p in parts)
        run["start"], run["end"] = parts[0][4]["start"], parts[-1][4]["end"]
        run["compute_s"] = sum(p[4]["compute_s"] for p in parts)
        run["shards"] = len(parts) if shards is None else shards
        return cls(columns, dict(zip(names, kinds, strict=True)), sets, run, elapsed_s)


def _state_count(problem: object, velocities: object) -> int | None:
    """The number of states, for a progress bar (None if it cannot tell)."""
    try:
        if velocities is not None:
            return int(np.shape(velocities)[0])
        if isinstance(problem, Problem):
            return 1
        return len(problem)  # type: ignore[arg-type]
    except (TypeError, IndexError):
        return None


def _check_flag(name: str, value: object) -> None:
    """``TypeError`` naming the argument unless ``value`` is a bool (or a
    numpy bool)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: expected True or False, got {type(value).__name__}")


def reach(
    problem: Problem | Sequence[Problem],
    n: int,
    *,
    velocities: Any = None,
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
    backend: BackendName | None = None,
    precision: PrecisionName | None = None,
    progress: bool | Callable[[int, int], object] = False,
    mode_tolerance: float | None = None,
) -> Reach:
    """The post-impact sets of many pre-impact states (``docs/model.md``
    §12): ``n`` samples per state, one table row per state.

    The states: ``problem`` with ``velocities`` (a ``(K, n)`` array, one
    pre-impact velocity per row; ``problem``'s own ``v`` is not a state), or
    ``problem`` alone (one state, its ``v``), or a list of problems of equal
    sizes (``n``, ``m``, planar or spatial, friction directions).

    Every state runs Algorithm 2 with the same settings: ``selection``
    (``"all"``, ``"random-lemke"``, ``"lemke"``), ``schedule`` (the law of
    the caps, default: the first problem's, else ``"mixed"``), ``steps`` (default: the
    first problem's, else from a 64-sample pilot run of state 0,
    ``docs/model.md`` §11), ``step_size`` (default: each state's
    problem's, else half its largest single-contact plastic impulse; with
    restitution at most the expansion's step size, §4b). State
    ``k`` samples with the state seed of ``(seed, k)`` (the table's ``seed``
    column; ``impactset.sample`` with that seed at state ``k`` reproduces
    its samples), so rows do not depend on ``threads``, on the backend's
    scheduling or on how the states are split (``impactset.ray.reach``).

    ``directions``: None for the default support directions (every
    coordinate ``v<i>``, every contact's ``<contact>_normal`` and
    ``<contact>_tangent`` velocity), or a mapping name → vector ``c``
    (length ``n``; names are letters, digits and ``_``) that replaces them;
    the table gets ``<name>_max`` and ``<name>_min`` of ``cᵀv⁺`` over each
    set, in the mapping's order. ``baselines`` adds the distances of the
    simultaneous and sequential outcomes; ``heldout_every`` and ``delta``
    set the per-state ε certificate (every ``heldout_every``-th accepted
    sample held out, confidence ``1 − delta``; it certifies coverage under
    the sampling law, not the distance to the set's extremes).
    ``extremes=True`` adds, per direction, ``<name>_extreme``: the best
    ``cᵀv⁺`` of the set and of a directed search over schedules seeded by
    the state's own samples and ordered anchors (``extremes_budget``
    schedules per direction, default 256), a certified lower bound on the
    support (at least ``<name>_max``), and ``extremes_gap``, the largest
    energy-norm distance from those outcomes to the set, next to
    ``epsilon`` (``docs/model.md`` §12). ``keep_sets`` keeps each
    state's accepted ``v⁺`` (:attr:`Reach.sets`). ``backend`` ``"cpu"``
    (f64), ``"gpu"`` or ``"auto"`` (states one by one on the GPU),
    ``precision`` as in :func:`impactset.sample`. ``progress``: True for a
    bar on standard error, or a callable called as ``progress(done, total)``
    (samples done so far, samples of the batch), as in
    :func:`impactset.sample` (a callable of one argument, the former
    ``progress(newly_done)``, still works with a ``DeprecationWarning``).

    ``mode_tolerance`` sets the mode columns' tolerance τ as in
    :func:`impactset.sample` (relative to each state's pre-impact contact
    speed; default 1e-6). A ``UserWarning`` names the states in which no
    contact is colliding (their samples end at once with ``v⁺ = v⁻``).

    The table equals, value for value, the command line's
    ``impactset reach PROBLEM --velocities V.npy -n N --seed SEED --out t.parquet``.
    The GIL is released while sampling; Ctrl-C stops the batch with
    ``KeyboardInterrupt``. Bad arguments raise ``ValueError`` (or
    ``TypeError``) naming the argument.

    >>> import numpy as np, impactset
    >>> p = impactset.Problem.scene("compass-gait")
    >>> V = np.array([p.v, 0.9 * p.v, 1.1 * p.v])
    >>> r = impactset.reach(p, 64, velocities=V, seed=1)
    >>> len(r), r.columns[:4], r["samples"].tolist()
    (3, ['state', 'seed', 'problem', 'step_size'], [64, 64, 64])
    >>> bool((r["v1_max"] >= r["v1_min"]).all())
    True
    """
    for name, flag in (("baselines", baselines), ("keep_sets", keep_sets), ("extremes", extremes)):
        _check_flag(name, flag)
    states = _state_count(problem, velocities)
    callback, close = for_batch(progress, states * n if states is not None and isinstance(n, int) else None)
    started = time.perf_counter()
    try:
        part = _reach_native(
            problem,
            n,
            velocities=velocities,
            seed=seed,
            selection=selection,
            schedule=schedule,
            steps=steps,
            step_size=step_size,
            directions=directions,
            baselines=bool(baselines),
            extremes=bool(extremes),
            extremes_budget=extremes_budget,
            keep_sets=bool(keep_sets),
            heldout_every=heldout_every,
            delta=delta,
            backend=backend,
            precision=precision,
            threads=threads,
            progress=callback,
            mode_tolerance=mode_tolerance,
        )
    finally:
        if close is not None:
            close()
    return Reach._join([part], time.perf_counter() - started, shards=1)
