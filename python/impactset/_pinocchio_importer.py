"""Impact problems from Pinocchio models: the implementation behind
:mod:`impactset.pinocchio` (conventions and examples there)."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ._contact_rows import (
    BALL_SUFFIXES,
    FREE_SUFFIXES,
    ContactRows,
    check_finite,
    problem_from_rows,
    unique_names,
)
from ._impactset import Problem

if TYPE_CHECKING:  # pragma: no cover
    import pinocchio

#: Largest ``|‖x‖ − 1|`` accepted for the quaternions and unit complex
#: numbers in ``q`` (Pinocchio's ``isNormalized`` precision): well above
#: float32 round-off, far below any physical uncertainty.
UNIT_TOLERANCE = 1e-6


@dataclass(frozen=True)
class Contact:
    """One contact: the ``frame`` (name or index) it is attached to, the
    surface's world ``normal`` (pointing into the robot; normalised), the
    friction coefficient ``mu`` ≥ 0, and the contact ``point`` in world
    coordinates (default: the frame's origin; e.g. the bottom of a spherical
    foot, ``foot centre − radius·n``)."""

    frame: str | int
    normal: Sequence[float] = (0.0, 0.0, 1.0)
    mu: float = 0.0
    point: Sequence[float] | None = None
    name: str | None = None


ContactLike = Contact | Sequence[Any] | Mapping[str, Any]


def _pin() -> Any:
    try:
        import pinocchio
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("impactset.pinocchio needs Pinocchio: pip install 'impactset[pinocchio]'") from e
    return pinocchio


def tangent_basis(normal: npt.ArrayLike) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """An orthonormal pair ``t₁, t₂`` with ``(t₁, t₂, n)`` right-handed:
    ``t₁`` is the world axis least aligned with ``n``, made normal to it.

    >>> t1, t2 = tangent_basis([0, 0, 1])
    >>> t1.tolist(), t2.tolist()
    ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    """
    n = np.asarray(normal, dtype=float)
    axis = np.zeros(3)
    axis[int(np.argmin(np.abs(n)))] = 1.0
    t1 = axis - (axis @ n) * n
    t1 /= np.linalg.norm(t1)
    return t1, np.cross(n, t1)


def _check_data(model: pinocchio.Model, data: pinocchio.Data) -> None:
    """``ValueError`` naming ``data`` unless it is ``model``'s
    (``model.createData()``; Pinocchio's own ``model.check(data)``):
    Pinocchio's algorithms index ``data`` by the sizes of ``model`` and
    check nothing, so another model's data corrupts memory."""
    pin = _pin()
    if not isinstance(model, pin.Model):
        raise TypeError(f"model: expected a pinocchio.Model, got {type(model).__name__}")
    if not isinstance(data, pin.Data):
        raise TypeError(f"data: expected a pinocchio.Data, got {type(data).__name__}")
    if model.check(data):
        return
    for what, have, size, want in (
        ("joint placements", len(data.oMi), "model.njoints", model.njoints),
        ("frame placements", len(data.oMf), "model.nframes", model.nframes),
        ("mass matrix rows", data.M.shape[0], "model.nv", model.nv),
    ):
        if have != want:
            raise ValueError(
                f"data: made for another model: it has {have} {what}, {size} = {want} (make it with model.createData())"
            )
    raise ValueError("data: made for another model: model.check(data) is False (make it with model.createData())")


def mass_matrix(model: pinocchio.Model, data: pinocchio.Data, q: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``pin.crba`` at ``q``, symmetrised (the CRBA fills the upper
    triangle only). ``ValueError`` when ``data`` is another model's or
    ``q`` has the wrong size."""
    pin = _pin()
    _check_data(model, data)
    q = np.array(q, dtype=float).reshape(-1)
    if q.shape != (model.nq,):
        raise ValueError(f"q: expected {model.nq} coordinates (model.nq), got {q.size}")
    upper = np.triu(np.array(pin.crba(model, data, q)))
    return upper + np.triu(upper, 1).T


def _check_normalized(pin: Any, model: Any, q: npt.NDArray[np.float64]) -> None:
    """``ValueError`` naming the first joint whose quaternion or unit
    complex number in ``q`` has a norm off 1 by more than
    :data:`UNIT_TOLERANCE`."""
    if pin.isNormalized(model, q, UNIT_TOLERANCE):
        return
    neutral = np.array(pin.neutral(model))
    normalized = np.array(pin.normalize(model, q))
    for j in range(1, model.njoints):
        joint = model.joints[j]
        a, nq = int(joint.idx_q), int(joint.nq)
        if nq == int(joint.nv):
            continue  # no unit-norm coordinates
        alone = neutral.copy()
        alone[a : a + nq] = q[a : a + nq]
        if pin.isNormalized(model, alone, UNIT_TOLERANCE):
            continue
        # normalize divides the unit-norm part by its norm: their ratio.
        given, unit = q[a : a + nq], normalized[a : a + nq]
        ratios = given[unit != 0] / unit[unit != 0]
        scaled = ratios[ratios != 1]
        norm = float(scaled[0]) if scaled.size else 0.0
        raise ValueError(
            f"q: joint {model.names[j]!r} ({joint.shortname()}, q[{a}:{a + nq}]) has a quaternion or unit complex "
            f"number of norm {norm:.6g}, expected 1 within {UNIT_TOLERANCE:g}; normalize q first "
            "(pinocchio.normalize(model, q))"
        )
    raise ValueError(f"q: not normalized within {UNIT_TOLERANCE:g} (pinocchio.isNormalized)")  # pragma: no cover


def _vector3(value: object, what: str, *, nonzero: bool = False) -> npt.NDArray[np.float64]:
    """``value`` as a finite 3-vector, else ``ValueError`` naming ``what``."""
    expected = "a nonzero finite 3-vector" if nonzero else "a finite 3-vector"
    try:
        x = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: expected {expected}, got {value!r}") from None
    if x.shape != (3,) or not np.all(np.isfinite(x)) or (nonzero and not np.any(x)):
        raise ValueError(f"{what}: expected {expected}, got {value!r}")
    return x


def _friction(value: object, what: str) -> float:
    """``value`` as a friction coefficient: a finite real number ≥ 0
    (``TypeError`` for a string, a bool or another kind of value)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what}: expected a number ≥ 0, got {type(value).__name__}")
    mu = float(value)
    if not (np.isfinite(mu) and mu >= 0):
        raise ValueError(f"{what}: expected a finite number ≥ 0, got {value!r}")
    return mu


def _contact(item: ContactLike, k: int) -> Contact:
    if isinstance(item, Contact):
        return item
    if isinstance(item, Mapping):
        unknown = set(item) - {"frame", "normal", "mu", "point", "name"}
        if unknown or "frame" not in item:
            raise ValueError(f"contacts[{k}]: expected keys frame, normal, mu, point, name; got {sorted(item)}")
        return Contact(**item)
    if isinstance(item, (str, bytes)) or len(item) not in (1, 2, 3, 4):
        raise ValueError(f"contacts[{k}]: expected (frame, normal, mu[, point]) or a dict, got {item!r}")
    return Contact(*item)


def contact_rows(
    model: pinocchio.Model,
    data: pinocchio.Data,
    q: npt.ArrayLike,
    v: npt.ArrayLike,
    contacts: Sequence[ContactLike],
) -> ContactRows:
    """The arrays of the impact problem; see :func:`problem`."""
    pin = _pin()
    _check_data(model, data)
    q = np.array(q, dtype=float).reshape(-1)
    v = np.array(v, dtype=float).reshape(-1)
    if q.shape != (model.nq,):
        raise ValueError(f"q: expected {model.nq} coordinates (model.nq), got {q.size}")
    if v.shape != (model.nv,):
        raise ValueError(f"v: expected {model.nv} velocities (model.nv), got {v.size}")
    check_finite(q, "q")
    check_finite(v, "v")
    _check_normalized(pin, model, q)
    if isinstance(contacts, (str, Mapping, Contact)) or contacts is None:
        raise ValueError("contacts: expected a sequence of (frame, normal, mu) tuples, dicts or Contact")
    items = [_contact(c, k) for k, c in enumerate(contacts)]
    if not items:
        raise ValueError("contacts: no contacts given")

    M = mass_matrix(model, data, q)
    pin.computeJointJacobians(model, data, q)
    pin.updateFramePlacements(model, data)
    m, nv = len(items), model.nv
    Jn = np.zeros((m, nv))
    Jt = np.zeros((m, 2, nv))
    mu = np.zeros(m)
    pos = np.zeros((m, 3))
    frame = np.zeros((m, 3, 3))
    names = []
    for k, c in enumerate(items):
        if isinstance(c.frame, (int, np.integer)) and not isinstance(c.frame, bool):
            fid = int(c.frame)
            if not 0 <= fid < model.nframes:
                raise ValueError(f"contacts[{k}].frame: no frame {fid} ({model.nframes} frames)")
        elif isinstance(c.frame, str):
            fid = model.getFrameId(c.frame)
            if fid >= model.nframes:
                raise ValueError(f"contacts[{k}].frame: no frame named {c.frame!r}")
        else:
            raise TypeError(f"contacts[{k}].frame: expected a frame name or index, got {type(c.frame).__name__}")
        n = _vector3(c.normal, f"contacts[{k}].normal", nonzero=True)
        n = n / np.linalg.norm(n)
        mu[k] = _friction(c.mu, f"contacts[{k}].mu")
        point = None if c.point is None else _vector3(c.point, f"contacts[{k}].point")
        if c.name is not None and not isinstance(c.name, str):
            raise TypeError(f"contacts[{k}].name: expected a str, got {type(c.name).__name__}")
        J = np.array(pin.getFrameJacobian(model, data, fid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED))
        Jp = J[:3]
        origin = np.array(data.oMf[fid].translation)
        if point is not None:
            r = point - origin
            Jp = Jp - np.cross(r, J[3:].T).T  # v_point = v_origin + ω × r
        t1, t2 = tangent_basis(n)
        pos[k] = origin if point is None else point
        frame[k] = (n, t1, t2)
        Jn[k] = n @ Jp
        Jt[k, 0] = t1 @ Jp
        Jt[k, 1] = t2 @ Jp
        names.append(c.name or model.frames[fid].name)
        if not np.any(Jn[k]):
            raise ValueError(f"contacts[{k}]: frame {names[-1]!r} does not move along its normal (a fixed frame?)")
    return ContactRows(
        M=M,
        v=v,
        Jn=Jn,
        Jt=Jt.reshape(2 * m, nv),
        mu=mu,
        names=unique_names(names, [bool(c.name) for c in items]),
        J_eq=np.zeros((0, nv)),
        pos=pos,
        frame=frame,
    )


def ground_contacts(
    model: pinocchio.Model,
    data: pinocchio.Data,
    geometry_model: pinocchio.GeometryModel,
    q: npt.ArrayLike,
    *,
    mu: float,
    height: float = 0.0,
    normal: Sequence[float] = (0.0, 0.0, 1.0),
    distance: float = 1e-3,
) -> list[Contact]:
    """The contacts of a robot's collision geometry with the ground plane
    ``n·x = height`` (the ground below it): one per geometry object whose
    signed distance to the ground (coal's, negative when penetrating) is at
    most ``distance``, at the geometry's point nearest the ground (deepest
    when penetrating), attached to the geometry's parent frame. Geometry
    fixed to the world is skipped. A sphere or capsule touching the plane has
    exactly one contact point; a flat face gets one point, not its corners
    (name those contacts explicitly).
    """
    pin = _pin()
    import coal

    _check_data(model, data)
    n = _vector3(normal, "ground_normal", nonzero=True)
    n = n / np.linalg.norm(n)
    mu = _friction(mu, "mu")
    q = np.array(q, dtype=float).reshape(-1)
    if q.shape != (model.nq,):
        raise ValueError(f"q: expected {model.nq} coordinates (model.nq), got {q.size}")
    check_finite(q, "q")
    for g in geometry_model.geometryObjects:
        if not 0 <= g.parentJoint < model.njoints:
            raise ValueError(
                f"geometry_model: {g.name!r} hangs on joint {g.parentJoint}, the model has {model.njoints} joints "
                "(a geometry model of another robot?)"
            )
    geometry_data = pin.GeometryData(geometry_model)
    pin.updateGeometryPlacements(model, data, geometry_model, geometry_data, q)
    ground = coal.Halfspace(n, float(height))
    found = []
    for i, g in enumerate(geometry_model.geometryObjects):
        if g.parentJoint == 0:
            continue
        placement = geometry_data.oMg[i]
        result = coal.DistanceResult()
        d = coal.distance(
            g.geometry,
            coal.Transform3s(placement.rotation, placement.translation),
            ground,
            coal.Transform3s(),
            coal.DistanceRequest(),
            result,
        )
        if d <= distance:
            frame = g.parentFrame
            if not 0 <= frame < model.nframes or model.frames[frame].parentJoint != g.parentJoint:
                raise ValueError(f"geometry_model: {g.name!r} has no parent frame on its joint {g.parentJoint}")
            found.append(Contact(frame, tuple(n), float(mu), tuple(result.getNearestPoint1()), g.name))
    return found


def problem(
    model: pinocchio.Model,
    data: pinocchio.Data,
    q: npt.ArrayLike,
    v: npt.ArrayLike,
    contacts: Sequence[ContactLike] | None = None,
    *,
    geometry_model: pinocchio.GeometryModel | None = None,
    mu: float | None = None,
    ground: float = 0.0,
    ground_normal: Sequence[float] = (0.0, 0.0, 1.0),
    distance: float = 1e-3,
    restitution: npt.ArrayLike | None = None,
    name: str | None = None,
    friction_directions: int | None = None,
    step_size: float | None = None,
    steps: int | None = None,
    samples: int | None = None,
) -> Problem:
    """The impact problem of a Pinocchio model at configuration ``q`` with
    pre-impact velocity ``v``.

    Parameters
    ----------
    model, data
        A ``pinocchio.Model`` and its ``Data`` (``model.createData()``;
        overwritten: CRBA, joint Jacobians, frame placements at ``q``).
    q, v
        Configuration (``model.nq``) and velocity (``model.nv``), Pinocchio's
        coordinates.
    contacts
        Each a ``(frame, normal, mu)`` or ``(frame, normal, mu, point)``
        tuple, a dict with those keys (and ``name``), or a :class:`Contact`:
        the frame by name or index, the surface's world normal pointing
        into the robot, the friction coefficient, the contact point in world
        coordinates (default: the frame's origin). ``None``: found from
        ``geometry_model`` by :func:`ground_contacts`.
    geometry_model, mu, ground, ground_normal, distance
        With ``contacts=None``: the collision geometry (e.g.
        ``pin.buildGeomFromUrdf(model, urdf, pin.GeometryType.COLLISION)``),
        every contact's friction coefficient, the ground plane
        ``ground_normal · x = ground`` and the distance tolerance.
    restitution
        Coefficients of restitution (Stronge's energetic ``e``, ``0 ≤ e ≤ 1``,
        docs/model.md §4b): one number for every contact or one per contact
        in the order of the problem's ``names``; default 0 (inelastic).
    name, friction_directions, step_size, steps, samples
        As in :meth:`Problem.from_arrays` (``name`` defaults to the model's).

    Raises
    ------
    ValueError
        ``data`` made for another model (``model.check(data)`` fails),
        wrong sizes, non-finite ``q``/``v``, a quaternion or unit complex
        number in ``q`` of norm off 1 by more than :data:`UNIT_TOLERANCE`,
        an unknown frame, a zero normal, a contact point that is not a
        finite 3-vector, negative friction, a contact that does not move
        along its normal, contact names given twice, a coefficient of
        restitution outside ``[0, 1]`` or of the wrong length.
    TypeError
        A friction coefficient that is not a number (``mu='0.6'``), a frame
        that is neither a name nor an index.
    """
    _check_data(model, data)
    if contacts is None:
        if geometry_model is None or mu is None:
            raise ValueError("contacts: None needs geometry_model= and mu= to find the ground contacts")
        contacts = ground_contacts(
            model, data, geometry_model, q, mu=mu, height=ground, normal=ground_normal, distance=distance
        )
        if not contacts:
            raise ValueError(f"geometry_model: no geometry within distance {distance:g} of the ground at this q")
    rows = contact_rows(model, data, q, v, contacts)
    return problem_from_rows(
        rows,
        name=name or model.name or "pinocchio",
        restitution=restitution,
        friction_directions=friction_directions,
        step_size=step_size,
        steps=steps,
        samples=samples,
    )


def coordinate_names(model: pinocchio.Model) -> list[str]:
    """A name for each velocity coordinate (``v``) of ``model``, in the
    convention shared with :func:`impactset.mujoco.coordinate_names`
    (``docs/robots.md``): a free flyer whose parent is the universe (a
    floating base; the first such) gives ``base_vx, base_vy, base_vz``
    (linear velocity, base frame) and ``base_wx, base_wy, base_wz``
    (angular velocity, base frame); another free flyer ``<joint>_vx`` …
    ``<joint>_wz``, a spherical joint ``<joint>_wx`` … ``<joint>_wz``, a
    joint of one degree of freedom its name, any other ``<joint>_<k>``.

    >>> import pinocchio as pin, impactset.pinocchio
    >>> model = pin.Model()
    >>> base = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "root_joint")
    >>> knee = model.addJoint(base, pin.JointModelRY(), pin.SE3.Identity(), "knee")
    >>> impactset.pinocchio.coordinate_names(model)
    ['base_vx', 'base_vy', 'base_vz', 'base_wx', 'base_wy', 'base_wz', 'knee']
    """
    pin = _pin()
    if not isinstance(model, pin.Model):
        raise TypeError(f"model: expected a pinocchio.Model, got {type(model).__name__}")
    names: list[str] = []
    base = False
    for j in range(1, model.njoints):
        joint, name = model.joints[j], model.names[j]
        kind = joint.shortname()
        if kind == "JointModelFreeFlyer":
            floating = not base and model.parents[j] == 0
            base = base or floating
            names.extend(f"{'base' if floating else name}_{s}" for s in FREE_SUFFIXES)
        elif kind.startswith("JointModelSpherical"):
            names.extend(f"{name}_{s}" for s in BALL_SUFFIXES)
        elif joint.nv == 1:
            names.append(name)
        else:
            names.extend(f"{name}_{k}" for k in range(joint.nv))
    return names
