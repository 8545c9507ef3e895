"""Type stubs of the native module ``impactset._impactset``."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

__version__: str

_Path = str | os.PathLike[str]
_Array = npt.ArrayLike
_Metric = Literal["energy", "euclidean", "contact"]
_Selection = Literal["lemke", "random-lemke", "all"]
_Schedule = Literal["mixed", "uniform", "extreme", "ordered", "held"]
_Backend = Literal["cpu", "gpu", "auto"]
_Precision = Literal["f32", "f64"]

SELECTIONS: tuple[str, ...]
DEFAULTS: dict[str, Any]
SCHEDULES: tuple[str, ...]
BACKENDS: tuple[str, ...]
PRECISIONS: tuple[str, ...]

class Problem:
    """An impact problem ``M``, ``v``, ``Jn``, ``Jt``, ``mu``, ``restitution`` with its sampling defaults."""

    @staticmethod
    def from_arrays(
        M: _Array,
        v: _Array,
        Jn: _Array,
        Jt: _Array,
        mu: _Array,
        names: Sequence[str] | None = None,
        *,
        bilateral: _Array | None = None,
        restitution: float | _Array | None = None,
        name: str | None = None,
        friction_directions: int | None = None,
        step_size: float | None = None,
        steps: int | None = None,
        samples: int | None = None,
    ) -> Problem: ...
    @staticmethod
    def scene(name: str) -> Problem: ...
    @staticmethod
    def load(path: _Path) -> Problem: ...
    def with_restitution(self, e: float | _Array) -> Problem: ...
    def save(self, path: _Path) -> None: ...
    def to_dict(self) -> dict[str, Any]: ...
    def __reduce__(self) -> tuple[Callable[[str], Problem], tuple[str]]: ...
    @property
    def M(self) -> npt.NDArray[np.float64]: ...
    @property
    def v(self) -> npt.NDArray[np.float64]: ...
    @property
    def Jn(self) -> npt.NDArray[np.float64]: ...
    @property
    def bilateral(self) -> npt.NDArray[np.float64]: ...
    @property
    def Jt(self) -> npt.NDArray[np.float64]: ...
    @property
    def mu(self) -> npt.NDArray[np.float64]: ...
    @property
    def restitution(self) -> npt.NDArray[np.float64]: ...
    @property
    def names(self) -> list[str]: ...
    @property
    def name(self) -> str: ...
    @property
    def n(self) -> int: ...
    @property
    def m(self) -> int: ...
    @property
    def dimension(self) -> Literal["planar", "spatial"]: ...
    @property
    def friction_directions(self) -> int: ...
    @property
    def step_size(self) -> float | None: ...
    @property
    def steps(self) -> int | None: ...
    @property
    def samples(self) -> int | None: ...
    @property
    def default_step_size(self) -> float: ...

class SampleSet:
    """The samples of one run as read-only ndarrays, with the run's summary."""

    @property
    def v_plus(self) -> npt.NDArray[np.float64]: ...
    @property
    def accepted(self) -> npt.NDArray[np.bool_]: ...
    @property
    def indices(self) -> npt.NDArray[np.uint64]: ...
    @property
    def steps(self) -> npt.NDArray[np.uint32]: ...
    @property
    def energy_ratio(self) -> npt.NDArray[np.float64]: ...
    @property
    def residual(self) -> npt.NDArray[np.float64]: ...
    @property
    def energy_guard(self) -> npt.NDArray[np.bool_]: ...
    @property
    def modes(self) -> npt.NDArray[np.int32]: ...
    @property
    def mode_labels(self) -> list[str]: ...
    @property
    def mode_table(self) -> list[list[str]]: ...
    @property
    def summary(self) -> dict[str, Any]: ...
    @property
    def problem(self) -> Problem: ...
    def plot(
        self,
        path: _Path,
        *,
        trajectories: int | None = None,
        baselines: bool = True,
        title: str | None = None,
        max_points: int | None = None,
        coordinates: Sequence[int | str] | None = None,
        coordinate_names: Sequence[str] | None = None,
    ) -> None: ...
    def __len__(self) -> int: ...
    def __reduce__(self) -> tuple[Callable[[dict[str, Any]], SampleSet], tuple[dict[str, Any]]]: ...

def sample_native(
    problem: Problem,
    n: int | None = None,
    *,
    seed: int | None = None,
    selection: _Selection | None = None,
    schedule: _Schedule | None = None,
    steps: int | None = None,
    step_size: float | None = None,
    backend: _Backend | None = None,
    precision: _Precision | None = None,
    threads: int | None = None,
    progress: Callable[[int], object] | None = None,
    first_index: int | None = None,
    mode_tolerance: float | None = None,
) -> SampleSet: ...
def scenes() -> list[dict[str, Any]]: ...
def _problem_from_json(text: str) -> Problem: ...
def _sample_set_from_state(state: dict[str, Any]) -> SampleSet: ...
def reach_native(
    problem: Problem | Sequence[Problem],
    n: int,
    *,
    velocities: _Array | None = None,
    seed: int | None = None,
    selection: _Selection | None = None,
    schedule: _Schedule | None = None,
    steps: int | None = None,
    step_size: float | None = None,
    directions: Mapping[str, _Array] | None = None,
    baselines: bool = True,
    extremes: bool = False,
    extremes_budget: int | None = None,
    keep_sets: bool = False,
    heldout_every: int | None = None,
    delta: float | None = None,
    backend: _Backend | None = None,
    precision: _Precision | None = None,
    threads: int | None = None,
    progress: Callable[[int], object] | None = None,
    start: int | None = None,
    end: int | None = None,
    mode_tolerance: float | None = None,
) -> tuple[list[str], list[str], list[npt.NDArray[Any]], list[npt.NDArray[np.float64]] | None, dict[str, Any]]: ...
def baseline(problem: Problem) -> dict[str, Any]: ...
def extremes_native(
    problem: Problem,
    directions: _Array | None = None,
    *,
    random: int | None = None,
    budget: int | None = None,
    n: int | None = None,
    seed: int | None = None,
    selection: _Selection | None = None,
    schedule: _Schedule | None = None,
    steps: int | None = None,
    step_size: float | None = None,
    threads: int | None = None,
) -> dict[str, Any]: ...
def contact_modes(
    problem: Problem,
    v: _Array,
    *,
    separation_tol: float | None = None,
    slip_tol: float | None = None,
) -> tuple[npt.NDArray[np.int32], list[str]]: ...
def covering_radius(problem: Problem, net: _Array, reference: _Array, *, metric: _Metric | None = None) -> float: ...
def hausdorff(problem: Problem, a: _Array, b: _Array, *, metric: _Metric | None = None) -> float: ...
def held_out_certificate(
    problem: Problem,
    net: _Array,
    held_out: _Array,
    *,
    delta: float | None = None,
    metric: _Metric | None = None,
) -> dict[str, Any]: ...
