"""Type stubs of the native module ``impactset._impactset``."""

from __future__ import annotations

import os
from typing import Any, Callable, Literal, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

__version__: str

_Path = Union[str, os.PathLike[str]]
_Array = npt.ArrayLike
_Metric = Literal["energy", "euclidean", "contact"]

class Problem:
    """An impact problem ``M``, ``v``, ``Jn``, ``Jt``, ``mu`` with its sampling defaults."""

    @staticmethod
    def from_arrays(
        M: _Array,
        v: _Array,
        Jn: _Array,
        Jt: _Array,
        mu: _Array,
        names: Optional[Sequence[str]] = None,
        *,
        name: Optional[str] = None,
        friction_directions: Optional[int] = None,
        step_size: Optional[float] = None,
        steps: Optional[int] = None,
        samples: Optional[int] = None,
    ) -> Problem: ...
    @staticmethod
    def scene(name: str) -> Problem: ...
    @staticmethod
    def load(path: _Path) -> Problem: ...
    def save(self, path: _Path) -> None: ...
    def to_dict(self) -> dict[str, Any]: ...
    @property
    def M(self) -> npt.NDArray[np.float64]: ...
    @property
    def v(self) -> npt.NDArray[np.float64]: ...
    @property
    def Jn(self) -> npt.NDArray[np.float64]: ...
    @property
    def Jt(self) -> npt.NDArray[np.float64]: ...
    @property
    def mu(self) -> npt.NDArray[np.float64]: ...
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
    def step_size(self) -> Optional[float]: ...
    @property
    def steps(self) -> Optional[int]: ...
    @property
    def samples(self) -> Optional[int]: ...
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
        trajectories: Optional[int] = 32,
        baselines: bool = True,
        title: Optional[str] = None,
        max_points: Optional[int] = 20000,
    ) -> None: ...
    def __len__(self) -> int: ...

def sample_native(
    problem: Problem,
    n: Optional[int] = None,
    *,
    seed: Optional[int] = None,
    selection: Optional[str] = None,
    steps: Optional[int] = None,
    step_size: Optional[float] = None,
    backend: Optional[str] = None,
    precision: Optional[str] = None,
    threads: Optional[int] = None,
    progress: Optional[Callable[[int], object]] = None,
    first_index: Optional[int] = None,
) -> SampleSet: ...
def scenes() -> list[dict[str, Any]]: ...
def baseline(problem: Problem) -> dict[str, Any]: ...
def contact_modes(
    problem: Problem,
    v: _Array,
    *,
    separation_tol: Optional[float] = None,
    slip_tol: Optional[float] = None,
) -> tuple[npt.NDArray[np.int32], list[str]]: ...
def covering_radius(problem: Problem, net: _Array, reference: _Array, *, metric: Optional[_Metric] = None) -> float: ...
def hausdorff(problem: Problem, a: _Array, b: _Array, *, metric: Optional[_Metric] = None) -> float: ...
def held_out_certificate(
    problem: Problem,
    net: _Array,
    held_out: _Array,
    *,
    delta: Optional[float] = None,
    metric: Optional[_Metric] = None,
) -> dict[str, Any]: ...
