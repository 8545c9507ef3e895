"""Set-valued rigid-body impacts: every way simultaneous frictional impacts
can turn out (Halm & Posa's set-valued Routh model), sampled by the Rust
core of ``impactset``.

>>> import numpy as np, impactset
>>> # A unit point mass falling at 1 onto a floor with friction 0.5.
>>> p = impactset.Problem.from_arrays(np.eye(2), [0.3, -1.0], [[0.0, 1.0]], [[1.0, 0.0]], [0.5])
>>> s = impactset.sample(p, 1000, seed=7)
>>> s.v_plus.shape
(1000, 2)
>>> bool(np.allclose(s.v_plus[:, 1], 0.0))  # the mass stays on the floor
True

The pieces:

* :class:`Problem`: ``M``, ``v``, ``Jn``, ``Jt``, ``mu`` from arrays
  (:meth:`Problem.from_arrays`), a built-in scene (:meth:`Problem.scene`,
  :func:`scenes`) or a problem file (:meth:`Problem.load`, :meth:`Problem.save`);
* :func:`sample` → :class:`SampleSet` (ndarrays, contact modes, summary,
  :meth:`SampleSet.plot`);
* :func:`reach` → :class:`Reach`: many pre-impact states, one table row
  each; :func:`impactset.ray.reach` runs a batch on a Ray cluster;
* :func:`extremes` → :class:`Extremes`: the worst case per direction;
* :func:`align`: two problems of one robot (say from MuJoCo and from
  Pinocchio) in one order of coordinates and contacts, matched by name;
* :func:`baseline`, :func:`contact_modes`, :func:`covering_radius`,
  :func:`hausdorff`, :func:`held_out_certificate`;
* robot models: :mod:`impactset.mujoco` (``problem(model, data)`` from a
  MuJoCo state) and :mod:`impactset.pinocchio` (``problem(model, data, q,
  v, contacts)``), loaded on first use (``docs/robots.md``).

The mathematics: ``docs/model.md`` in the repository.
"""

from __future__ import annotations

from typing import TYPE_CHECKING as _TYPE_CHECKING

from ._align import align
from ._extremes import Extremes, extremes
from ._impactset import (
    DEFAULTS,
    Problem,
    SampleSet,
    __version__,
    baseline,
    contact_modes,
    covering_radius,
    hausdorff,
    held_out_certificate,
    scenes,
)
from ._impactset import (
    sample_native as _sample_native,
)
from ._names import BackendName, PrecisionName, ScheduleName, SelectionName
from ._progress import for_sample as _progress_for_sample
from ._reach import Reach, reach

if _TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable

__all__ = [
    "Problem",
    "SampleSet",
    "sample",
    "Reach",
    "reach",
    "extremes",
    "Extremes",
    "scenes",
    "baseline",
    "contact_modes",
    "covering_radius",
    "hausdorff",
    "held_out_certificate",
    "align",
    "SelectionName",
    "ScheduleName",
    "BackendName",
    "PrecisionName",
    "DEFAULTS",
    "__version__",
    "mujoco",
    "pinocchio",
]

_SUBMODULES = ("mujoco", "pinocchio", "ray")

# The future import binds its feature; it is no part of the API.
del annotations


def __getattr__(name: str) -> object:
    """``impactset.mujoco``, ``impactset.pinocchio`` and ``impactset.ray`` on
    first use: importing impactset imports neither MuJoCo, Pinocchio nor Ray."""
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def sample(
    problem: Problem,
    n: int | None = None,
    *,
    seed: int | None = None,
    selection: SelectionName | None = None,
    schedule: ScheduleName | None = None,
    steps: int | None = None,
    step_size: float | None = None,
    backend: BackendName | None = None,
    precision: PrecisionName | None = None,
    threads: int | None = None,
    progress: bool | Callable[[int, int], object] = False,
    first_index: int | None = None,
    mode_tolerance: float | None = None,
) -> SampleSet:
    """Samples the post-impact set of ``problem`` (Algorithm 2 of
    ``docs/model.md``): ``n`` samples (default: the problem's sample count,
    else ``DEFAULTS["samples"]``), each a run of random Routh steps from the
    pre-impact velocity.

    Every argument left unset (None) takes the library's default, the same
    as the command line's (:data:`DEFAULTS` lists them). ``seed`` (default 0) and the sample indices
    ``first_index .. first_index + n`` (default from 0) fix every sample: the
    same arguments give bit for bit the numbers of
    ``impactset sample PROBLEM -n N --seed SEED --out x.npy``, whatever
    ``threads``. ``selection`` is ``"all"`` (``DEFAULTS["selection"]``: every solution of
    each step LCP, one picked uniformly), ``"random-lemke"`` or ``"lemke"``;
    ``schedule`` the law of each step's impulse caps (``docs/model.md`` §5c;
    default: the problem's, else ``"mixed"``, which reaches the extremes of
    the set; ``"uniform"`` is Halm & Posa's Algorithm 2); ``steps`` (the
    step cap K) and ``step_size`` (the impulse step h) default to the
    problem's, else twice the most steps of a 64-sample pilot run (under
    ``selection``, on the run's ``threads``: with ``"all"`` on many contacts
    it costs as much as 64 samples, so give ``steps`` to sample a few) and
    half the largest single-contact plastic impulse (``docs/model.md`` §11;
    with restitution at most the expansion's step size, §4b).
    ``backend`` is ``"cpu"`` (the default, f64), ``"gpu"`` or ``"auto"``
    (a hardware GPU where it runs the selection rule on this problem faster:
    under ``"all"`` for at most 64 mode tuples a step; the reason is in the
    summary's ``backend_reason``);
    ``precision`` ``"f64"`` or ``"f32"`` (GPU only; unset: f64 where the
    adapter has it, else f32). ``progress=True`` shows a progress bar on standard
    error (tqdm when installed); a callable is called as
    ``progress(done, total)`` (samples done so far, samples of the run)
    from the calling thread, at most every 50 ms while the run advances.

    ``mode_tolerance`` (default 1e-6) is the tolerance τ of the contact
    modes (``modes``, ``mode_labels``, the summary's histogram), relative to
    the pre-impact contact speed ``s`` (the largest ``|(Jn v⁻)_i|`` or
    ``‖(Jt v⁻)_i‖``, in the velocity's units, m/s for a robot): a contact
    separates when its normal velocity exceeds ``τ·s``, else sticks when its
    tangential speed is at most ``τ·s``, else slides (``docs/model.md`` §6).

    When no contact is colliding (every ``(Jn v⁻)_i ≥ 0``) a
    ``UserWarning`` says so: every sample ends at once with ``v⁺ = v⁻``.
    When fewer than 99% of the samples are accepted a ``UserWarning`` says
    why and what to change (the command line's advice), except for a
    built-in scene run with its own ``steps`` and ``step_size``, whose
    acceptance is documented. ``n`` is bounded by the memory the results
    need (``8·n_v + 33`` bytes a sample, reserved before the run):
    ``ValueError`` saying how much a larger ``n`` would need.

    The GIL is released while sampling (the pilot run included), so other
    Python threads run; Ctrl-C stops the run within about a second with
    ``KeyboardInterrupt``, or within one pilot sample during the pilot.

    >>> import impactset
    >>> s = impactset.sample(impactset.Problem.scene("compass-gait"), 2000, seed=3)
    >>> s.summary["samples"], s.summary["selection"], s.v_plus.shape == (s.summary["accepted"], 4)
    (2000, 'all', True)
    >>> s.mode_labels[0]
    'A sticks, B separates'
    """
    callback, close = _progress_for_sample(progress, lambda: _sample_total(problem, n))
    try:
        return _sample_native(
            problem,
            n,
            seed=seed,
            selection=selection,
            schedule=schedule,
            steps=steps,
            step_size=step_size,
            backend=backend,
            precision=precision,
            threads=threads,
            progress=callback,
            first_index=first_index,
            mode_tolerance=mode_tolerance,
        )
    finally:
        if close is not None:
            close()


def _sample_total(problem: object, n: object) -> int:
    """The samples of a run of ``n`` (None: the problem's, else the
    library's), for progress reports; 1 for an ``n`` the native call will
    refuse."""
    if n is None:
        n = getattr(problem, "samples", None) or DEFAULTS["samples"]
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        return 1
    return max(int(n.__index__()), 1)
