"""The arrays both robot importers produce (:mod:`impactset.mujoco`,
:mod:`impactset.pinocchio`) and the steps they share: checking the state,
naming the contacts, and handing the rows to :meth:`Problem.from_arrays`.

A contact row is the velocity of the contact point in the contact frame:
the normal row (positive separates) and one or two tangent rows, each a
linear function of the generalized velocity (``docs/robots.md``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ._impactset import Problem

#: The velocity coordinates of a floating joint (MuJoCo's free joint,
#: Pinocchio's free flyer) and of a ball (spherical) joint, by the suffix
#: both importers' ``coordinate_names`` give them (``docs/robots.md``).
FREE_SUFFIXES = ("vx", "vy", "vz", "wx", "wy", "wz")
BALL_SUFFIXES = ("wx", "wy", "wz")


@dataclass(frozen=True)
class ContactRows:
    """The arrays of an impact problem read from a robot model's state.

    ``M`` (n, n), ``v`` (n,), ``Jn`` (m, n), ``Jt`` (m·t, n) contact-major,
    ``mu`` (m,), ``names`` (m unique contact names), ``J_eq`` (r, n) the
    independent rows of the active equality constraints (empty for
    Pinocchio models); per contact its world point ``pos`` (m, 3) and
    ``frame`` (m, 3, 3) (rows: normal, tangents); MuJoCo's own per-contact
    data, None for Pinocchio models: the ``geom`` pair (m, 2) and ``dist``
    (m,)."""

    M: npt.NDArray[np.float64]
    v: npt.NDArray[np.float64]
    Jn: npt.NDArray[np.float64]
    Jt: npt.NDArray[np.float64]
    mu: npt.NDArray[np.float64]
    names: list[str]
    J_eq: npt.NDArray[np.float64] | None = None
    geom: npt.NDArray[np.int64] | None = None
    pos: npt.NDArray[np.float64] | None = None
    frame: npt.NDArray[np.float64] | None = None
    dist: npt.NDArray[np.float64] | None = None

    @property
    def friction_rows(self) -> int:
        """Tangent rows per contact: 1 (planar) or 2 (spatial)."""
        return self.Jt.shape[0] // max(self.Jn.shape[0], 1)


def check_finite(x: npt.ArrayLike, what: str) -> None:
    """``ValueError`` naming ``what`` and the first index where ``x`` is not
    finite."""
    finite = np.isfinite(x)
    if not np.all(finite):
        raise ValueError(f"{what}: not finite at index {int(np.flatnonzero(~finite)[0])}")


def unique_names(names: list[str], explicit: list[bool] | None = None) -> list[str]:
    """``names`` with ``#k`` appended (k = 1, 2, …) to each name that several
    contacts share; names the caller gave explicitly (``explicit[i]``) are
    kept as they are and not counted."""
    given = explicit if explicit is not None else [False] * len(names)
    counts: dict[str, int] = {}
    for name, kept in zip(names, given, strict=True):
        if not kept:
            counts[name] = counts.get(name, 0) + 1
    seen: dict[str, int] = {}
    out = []
    for name, kept in zip(names, given, strict=True):
        if not kept and counts[name] > 1:
            seen[name] = seen.get(name, 0) + 1
            out.append(f"{name}#{seen[name]}")
        else:
            out.append(name)
    return out


def problem_from_rows(
    rows: ContactRows,
    *,
    name: str,
    bilateral: npt.NDArray[np.float64] | None = None,
    restitution: npt.ArrayLike | None = None,
    friction_directions: int | None = None,
    step_size: float | None = None,
    steps: int | None = None,
    samples: int | None = None,
) -> Problem:
    """:meth:`Problem.from_arrays` of ``rows``, with ``bilateral`` (r, n) as
    the problem's bilateral constraints when it has rows and ``restitution``
    (a number or one per contact; None: the core's default) as given."""
    m, t = rows.Jn.shape[0], rows.friction_rows
    Jt = rows.Jt if t == 1 else rows.Jt.reshape(m, t, -1)  # (m, 2, n): unambiguous when m = 2
    options: dict[str, object] = {
        "name": name,
        "restitution": restitution,
        "friction_directions": friction_directions,
        "step_size": step_size,
        "steps": steps,
        "samples": samples,
    }
    if bilateral is not None and bilateral.shape[0]:
        options["bilateral"] = bilateral
    return Problem.from_arrays(rows.M, rows.v, rows.Jn, Jt, rows.mu, rows.names, **options)
