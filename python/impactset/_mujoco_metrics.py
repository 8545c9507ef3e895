"""Per-rollout numbers from MuJoCo state trajectories: :class:`Trajectories`
(what a metric reads) and the built-in metrics of
:func:`impactset.mujoco.rollouts` (base height, base tilt, contact loss,
fell). Re-exported by :mod:`impactset.mujoco`.

A metric is any callable ``metric(model, trajectories)`` returning one number
per rollout (``(S,)``); it must treat the rollouts (rows) independently, as
:func:`~impactset.mujoco.rollouts` hands them over in chunks."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from ._mujoco_importer import DEFAULT_DISTANCE, import_mujoco

if TYPE_CHECKING:  # pragma: no cover
    import mujoco


@dataclass(frozen=True)
class Trajectories:
    """States of ``S`` rollouts at ``T`` times, as MuJoCo's
    ``mjSTATE_FULLPHYSICS`` arrays.

    ``states`` (S, T, nstate): row ``[i, k]`` is rollout ``i`` at ``time[k]``
    (seconds since the impact; ``time[0] = 0`` is the impact state with the
    post-impact velocity). ``nq``, ``nv``: the model's sizes, for the views
    :attr:`qpos` and :attr:`qvel` (the state's layout: time, qpos, qvel,
    then act, history, plugin and plastic state)."""

    states: npt.NDArray[np.float64]
    time: npt.NDArray[np.float64]
    nq: int
    nv: int

    @property
    def qpos(self) -> npt.NDArray[np.float64]:
        """(S, T, nq) joint positions, a view of :attr:`states`."""
        return self.states[..., 1 : 1 + self.nq]

    @property
    def qvel(self) -> npt.NDArray[np.float64]:
        """(S, T, nv) joint velocities, a view of :attr:`states`."""
        return self.states[..., 1 + self.nq : 1 + self.nq + self.nv]


#: A per-rollout metric: ``metric(model, trajectories) -> (S,)`` numbers.
Metric = Callable[["mujoco.MjModel", Trajectories], npt.ArrayLike]

Reduce = Literal["min", "max", "final"]


def base_joint(model: mujoco.MjModel) -> int:
    """The qpos address of the model's first free joint (the floating base),
    else ``ValueError``."""
    mj = import_mujoco()
    free = np.flatnonzero(np.asarray(model.jnt_type) == int(mj.mjtJoint.mjJNT_FREE))
    if free.size == 0:
        raise ValueError("model: the base metrics need a floating base (a free joint); it has none")
    return int(model.jnt_qposadr[free[0]])


def _reduce(values: npt.NDArray[np.float64], reduce: str) -> npt.NDArray[np.float64]:
    """(S, T) → (S,): the least, the largest or the last value of each row."""
    if reduce == "min":
        return np.min(values, axis=1)
    if reduce == "max":
        return np.max(values, axis=1)
    return values[:, -1]


def _check_reduce(reduce: object) -> str:
    if reduce not in ("min", "max", "final"):
        raise ValueError(f"reduce: expected 'min', 'max' or 'final', got {reduce!r}")
    return str(reduce)


def heights(model: mujoco.MjModel, trajectories: Trajectories) -> npt.NDArray[np.float64]:
    """(S, T) world height of the floating base's origin."""
    return trajectories.qpos[..., base_joint(model) + 2]


def tilts(model: mujoco.MjModel, trajectories: Trajectories) -> npt.NDArray[np.float64]:
    """(S, T) angle in radians between the floating base's z axis and the
    world's: ``arccos(1 − 2(x² + y²))`` of its quaternion ``(w, x, y, z)``
    (normalised first)."""
    a = base_joint(model)
    q = trajectories.qpos[..., a + 3 : a + 7]
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    return np.arccos(np.clip(1.0 - 2.0 * (q[..., 1] ** 2 + q[..., 2] ** 2), -1.0, 1.0))


def base_height(reduce: Reduce = "min") -> Metric:
    """The floating base's height (world z of its origin, metres): its least
    value over each rollout (``reduce="min"``, the default), its largest
    (``"max"``) or its value at the end (``"final"``)."""
    how = _check_reduce(reduce)

    def metric(model: mujoco.MjModel, trajectories: Trajectories) -> npt.NDArray[np.float64]:
        return _reduce(heights(model, trajectories), how)

    return metric


def base_tilt(reduce: Reduce = "max") -> Metric:
    """The floating base's tilt (radians between its z axis and the world's):
    its largest value over each rollout (``reduce="max"``, the default), its
    least (``"min"``) or its value at the end (``"final"``)."""
    how = _check_reduce(reduce)

    def metric(model: mujoco.MjModel, trajectories: Trajectories) -> npt.NDArray[np.float64]:
        return _reduce(tilts(model, trajectories), how)

    return metric


def fell(
    *, max_tilt: float = math.pi / 3, min_height: float | None = None, at: Literal["any", "end"] = "any"
) -> Metric:
    """True for a rollout in which the floating base tilts more than
    ``max_tilt`` (radians, default 60°) or its origin drops below
    ``min_height`` (metres, world z; default half its height at the impact):
    at any time (``at="any"``, the default) or at the end (``at="end"``: the
    robot is down when the rollout ends, whatever happened before)."""
    max_tilt = _finite(max_tilt, "max_tilt")
    low = None if min_height is None else _finite(min_height, "min_height")
    if at not in ("any", "end"):
        raise ValueError(f"at: expected 'any' or 'end', got {at!r}")
    end = at == "end"

    def metric(model: mujoco.MjModel, trajectories: Trajectories) -> npt.NDArray[np.bool_]:
        z = heights(model, trajectories)
        floor = 0.5 * z[:, :1] if low is None else low
        down = (tilts(model, trajectories) > max_tilt) | (z < floor)
        return down[:, -1] if end else np.any(down, axis=1)

    return metric


def _joint(model: mujoco.MjModel, name: str) -> int:
    try:
        return int(model.joint(name).id)
    except KeyError:
        raise ValueError(f"joint: the model has no joint {name!r}") from None


def joint_position(joint: str, reduce: Reduce = "max") -> Metric:
    """A hinge or slide joint's position (rad or m), reduced over each
    rollout: largest (default), least or last."""
    how = _check_reduce(reduce)

    def metric(model: mujoco.MjModel, trajectories: Trajectories) -> npt.NDArray[np.float64]:
        j = _joint(model, joint)
        if int(model.jnt_type[j]) not in (2, 3):  # mjJNT_SLIDE, mjJNT_HINGE
            raise ValueError(f"joint: {joint!r} is not a hinge or slide joint")
        return _reduce(trajectories.qpos[..., int(model.jnt_qposadr[j])], how)

    return metric


def joint_speed(joints: Sequence[str] | None = None, reduce: Reduce = "max") -> Metric:
    """The largest joint speed ``|q̇|`` (rad/s or m/s) among the named hinge
    and slide joints (default: all of them) at each time, reduced over each
    rollout: largest (default), least or last."""
    how = _check_reduce(reduce)

    def metric(model: mujoco.MjModel, trajectories: Trajectories) -> npt.NDArray[np.float64]:
        names = joints
        if names is None:
            names = [model.joint(j).name for j in range(model.njnt) if int(model.jnt_type[j]) in (2, 3)]
        ids = [_joint(model, n) for n in names]
        bad = [n for n, j in zip(names, ids, strict=True) if int(model.jnt_type[j]) not in (2, 3)]
        if bad or not ids:
            raise ValueError(f"joints: expected hinge or slide joints, got {list(names)!r}")
        dofs = np.asarray(model.jnt_dofadr)[ids]
        return _reduce(np.max(np.abs(trajectories.qvel[..., dofs]), axis=-1), how)

    return metric


def body_height(body: str, reduce: Reduce = "max", *, every: float = 0.01) -> Metric:
    """A body's world height (z of its frame's origin, metres), e.g. a foot's,
    read every ``every`` seconds (and at the last state; each read needs
    MuJoCo's kinematics, on a copy of the model) and reduced over each
    rollout: largest (default: how high a foot lifts), least or last."""
    how = _check_reduce(reduce)
    every = _finite(every, "every", positive=True)

    def metric(model: mujoco.MjModel, trajectories: Trajectories) -> npt.NDArray[np.float64]:
        mj = import_mujoco()
        try:
            b = int(model.body(body).id)
        except KeyError:
            raise ValueError(f"body: the model has no body {body!r}") from None
        model = copy.deepcopy(model)
        data = mj.MjData(model)
        full = int(mj.mjtState.mjSTATE_FULLPHYSICS)
        read = _read_indices(trajectories.time, every)
        z = np.empty((trajectories.states.shape[0], read.size))
        for i, rollout in enumerate(trajectories.states):
            for c, k in enumerate(read):
                mj.mj_setState(model, data, rollout[k], full)
                mj.mj_kinematics(model, data)
                z[i, c] = data.xpos[b, 2]
        return _reduce(z, how)

    return metric


def _read_indices(t: npt.NDArray[np.float64], every: float) -> npt.NDArray[np.int64]:
    """Indices of the states read every ``every`` seconds, and the last."""
    stride = max(1, round(every / (t[1] - t[0]))) if t.size > 1 and t[1] > t[0] else 1
    return np.unique(np.append(np.arange(0, t.size, stride), t.size - 1))


def contact_loss(*, gap: float = 5e-3, every: float = 0.01, distance: float = DEFAULT_DISTANCE) -> Metric:
    """The largest share of the impact's contacts lost over each rollout.

    The impact's contacts are the geom pairs within ``distance`` (default
    1 mm, as :func:`impactset.mujoco.problem`) at the first state of each
    rollout; a pair is lost at a state where its geoms are more than ``gap``
    apart (default 5 mm, ``mj_geomDistance``). States are read every
    ``every`` seconds (default 0.01 s; each needs MuJoCo's kinematics), and
    the last. NaN for a rollout that starts with no contact. The contacts
    are looked for on a copy of the model (their margins raised to
    ``distance``), so rollouts of the model may run in other threads."""
    gap = _finite(gap, "gap", positive=True)
    every = _finite(every, "every", positive=True)
    distance = _finite(distance, "distance")

    def metric(model: mujoco.MjModel, trajectories: Trajectories) -> npt.NDArray[np.float64]:
        mj = import_mujoco()
        model = copy.deepcopy(model)
        data = mj.MjData(model)
        full = int(mj.mjtState.mjSTATE_FULLPHYSICS)
        read = _read_indices(trajectories.time, every)
        out = np.empty(trajectories.states.shape[0])
        start: npt.NDArray[np.float64] | None = None
        pairs: list[tuple[int, int]] = []
        for i, rollout in enumerate(trajectories.states):
            qpos = trajectories.qpos[i, 0]
            if start is None or not np.array_equal(qpos, start):  # a set's rollouts start at one configuration
                start = qpos
                pairs = _pairs_within(mj, model, data, rollout[0], full, distance)
            if not pairs:
                out[i] = np.nan
                continue
            worst = 0
            for k in read:
                mj.mj_setState(model, data, rollout[k], full)
                mj.mj_kinematics(model, data)
                lost = sum(mj.mj_geomDistance(model, data, g1, g2, 2 * gap, None) > gap for g1, g2 in pairs)
                worst = max(worst, lost)
            out[i] = worst / len(pairs)
        return out

    return metric


def _pairs_within(
    mj: object, model: mujoco.MjModel, data: mujoco.MjData, state: npt.NDArray[np.float64], spec: int, distance: float
) -> list[tuple[int, int]]:
    """The geom pairs closer than ``distance`` at ``state`` (MuJoCo's
    collision with every margin raised to ``distance``, on ``data``)."""
    from ._mujoco_importer import _collide_within

    mj.mj_setState(model, data, state, spec)  # type: ignore[attr-defined]
    mj.mj_fwdPosition(model, data)  # type: ignore[attr-defined]
    _collide_within(model, data, distance)
    contacts = data.contact
    keep = (np.asarray(contacts.dist) <= distance) & (np.asarray(contacts.exclude) < 2)
    return sorted({(int(g1), int(g2)) for g1, g2 in np.asarray(contacts.geom)[keep]})


def _finite(value: object, name: str, *, positive: bool = False) -> float:
    """``value`` as a finite float (positive with ``positive``), else
    ``ValueError`` naming ``name``."""
    expected = "a finite positive number" if positive else "a finite number"
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected {expected}, got {value!r}") from None
    if isinstance(value, bool) or not math.isfinite(x) or (positive and x <= 0):
        raise ValueError(f"{name}: expected {expected}, got {value!r}")
    return x


def default_metrics(model: mujoco.MjModel) -> dict[str, Metric]:
    """The built-ins for a model with a floating base: ``min_base_height``,
    ``max_base_tilt``, ``contact_loss`` and ``fell``; none without one."""
    try:
        base_joint(model)
    except ValueError:
        return {}
    return {
        "min_base_height": base_height("min"),
        "max_base_tilt": base_tilt("max"),
        "contact_loss": contact_loss(),
        "fell": fell(),
    }
