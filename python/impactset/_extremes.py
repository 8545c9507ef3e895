"""The worst case as a query: :func:`extremes`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ._impactset import extremes_native as _extremes_native

if TYPE_CHECKING:
    from ._impactset import Problem
    from ._names import ScheduleName, SelectionName


@dataclass(frozen=True)
class Extremes:
    """The best outcome found in each direction ``c`` (row ``i`` of every array
    is direction ``i``).

    Every outcome is a sample of the model under the schedule it states
    (``schedules[i]``: the caps ``p`` of every step, replayed with the
    selection stream ``index[i]``), so ``value`` is a certified lower bound on
    the support ``max_{v⁺ ∈ V} cᵀv⁺`` of the post-impact set.
    """

    directions: npt.NDArray[np.float64]
    """(k, n): the directions ``c``."""
    value: npt.NDArray[np.float64]
    """(k,): ``cᵀv⁺`` of the best outcome found (−inf when none was accepted)."""
    sampled: npt.NDArray[np.float64]
    """(k,): the largest ``cᵀv⁺`` of the run's own samples (the law's support)."""
    v_plus: npt.NDArray[np.float64]
    """(k, n): the best outcomes."""
    index: npt.NDArray[np.uint64]
    """(k,): the selection-stream index that replays each outcome."""
    origin: list[str]
    """Where each was found: ``"sample"``, ``"anchor"`` (contacts resolved one
    after the other) or ``"search"``."""
    schedules: list[npt.NDArray[np.float64]]
    """Per direction, (steps, m): the caps of every step taken."""
    evaluations: npt.NDArray[np.uint64]
    """(k,): schedules the search evaluated."""
    scale: float
    """``‖v⁻‖_M``: gains divided by it are relative to the impact's size."""
    selection: str
    schedule: str
    steps: int

    @property
    def gain(self) -> npt.NDArray[np.float64]:
        """(k,): ``(value − sampled) / ‖v⁻‖_M``, how far the search got past
        the sampled set's support, relative to the impact."""
        return (self.value - self.sampled) / self.scale


def extremes(
    problem: Problem,
    directions: npt.ArrayLike | None = None,
    *,
    random: int | None = None,
    budget: int | None = None,
    n: int | None = None,
    seed: int | None = None,
    selection: SelectionName | None = None,
    schedule: ScheduleName | None = None,
    steps: int | None = None,
    step_size: float | None = None,
    threads: int | None = None,
) -> Extremes:
    """The worst case as a query (``docs/model.md`` §5d): for each direction
    ``c`` (rows of ``directions``, (k, n) or (n,); plus ``random`` seeded
    directions uniform on the energy norm's unit sphere), the outcome of
    largest ``cᵀv⁺`` found by sampling ``n`` outcomes of the run's law
    (default: the problem's sample count, else 4096), resolving the contacts
    one after the other in every order (the ordered anchors), and a
    cross-entropy search over schedules seeded from the best of those
    (``budget`` schedules per direction, default 2048).

    ``selection`` defaults to ``"random-lemke"`` (the search evaluates
    thousands of schedules); ``schedule``, ``steps`` and ``step_size``
    default as in :func:`impactset.sample`. The result is the same for the
    same arguments whatever ``threads``. The GIL is released while it runs.

    >>> import impactset
    >>> p = impactset.Problem.scene("cube-edge")
    >>> e = impactset.extremes(p, random=2, n=256, budget=64, seed=1)
    >>> e.v_plus.shape, bool((e.value >= e.sampled).all())
    ((2, 6), True)
    """
    d = _extremes_native(
        problem,
        directions,
        random=random,
        budget=budget,
        n=n,
        seed=seed,
        selection=selection,
        schedule=schedule,
        steps=steps,
        step_size=step_size,
        threads=threads,
    )
    return Extremes(**d)
