"""Impact problems from MuJoCo models: the state in ``data``, MuJoCo's own
contacts, mass matrix and Jacobians.

>>> import mujoco, numpy as np, impactset.mujoco
>>> model = mujoco.MjModel.from_xml_string('''
... <mujoco><worldbody><geom name="floor" type="plane" size="1 1 .1" friction=".5"/>
...   <body pos="0 0 .1"><freejoint/><geom name="ball" type="sphere" size=".1" friction=".3"/></body>
... </worldbody></mujoco>''')
>>> data = mujoco.MjData(model)
>>> data.qvel[:3] = [0.2, 0.0, -1.0]  # a ball touching the floor, falling at 1
>>> p = impactset.mujoco.problem(model, data)
>>> p.n, p.m, p.names, p.mu.tolist()
(6, 1, ['floor/ball'], [0.5])
>>> s = impactset.sample(p, 64, seed=1)
>>> data.qvel[:] = s.v_plus[0]  # a valid post-impact state
>>> bool(abs(s.v_plus[0][2]) < 1e-9)  # the ball stays on the floor (μ = max(0.5, 0.3))
True

Conventions (``docs/robots.md``):

* velocities are MuJoCo's ``qvel`` coordinates (a free joint: linear
  velocity of the body origin in the world frame, angular velocity in the
  body frame); ``M`` is ``mj_fullM``'s joint-space inertia and every
  contact row is a combination of MuJoCo's point Jacobians, so no
  conversion is needed: ``data.qvel[:] = v_plus`` is the post-impact state;
* contact ``i``'s normal row is ``n · (J₂ − J₁)``, ``n`` the first row of
  ``contact.frame`` (pointing from ``geom1`` to ``geom2``) and ``Jₖ`` the
  translational Jacobian of the contact point attached to the body of
  ``geomₖ``: positive normal velocity separates; the tangent rows use the
  frame's second and third rows;
* friction is ``contact.friction[0]``, MuJoCo's combination of the pair's
  sliding friction (priority and ``<pair>`` overrides included); condim 1
  contacts are frictionless (``μ = 0``); condim 4 and 6 keep their sliding
  friction and a warning says that torsional and rolling friction are
  ignored;
* active equality constraints (connect, weld, joint, tendon) are the rows
  of ``data.efc_J`` of type ``mjCNSTR_EQUALITY`` (:func:`equality_jacobian`);
  they are the problem's bilateral constraints (``Problem.bilateral``).

The command line writes a problem file::

    python -m impactset.mujoco MODEL.xml --keyframe land --out problem.toml
"""

from __future__ import annotations

import argparse
import copy
import math
import sys
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ._impactset import Problem

if TYPE_CHECKING:  # pragma: no cover
    import mujoco

__all__ = ["ContactRows", "contact_rows", "equality_jacobian", "main", "mass_matrix", "outcome", "problem"]

#: Default distance tolerance: MuJoCo contacts with ``dist ≤ 1 mm`` count.
DEFAULT_DISTANCE = 1e-3


@dataclass(frozen=True)
class ContactRows:
    """The arrays of an impact problem read from a MuJoCo state.

    ``M`` (n, n), ``v`` (n,), ``Jn`` (m, n), ``Jt`` (m·t, n) contact-major,
    ``mu`` (m,), ``names`` (m contact names ``geom1/geom2``), ``J_eq``
    (r, n) the independent rows of the active equality constraints; per
    contact MuJoCo's ``geom`` pair (m, 2), ``pos`` (m, 3), ``frame``
    (m, 3, 3) (rows: normal, tangents) and ``dist`` (m,)."""

    M: npt.NDArray[np.float64]
    v: npt.NDArray[np.float64]
    Jn: npt.NDArray[np.float64]
    Jt: npt.NDArray[np.float64]
    mu: npt.NDArray[np.float64]
    names: list[str]
    J_eq: npt.NDArray[np.float64]
    geom: npt.NDArray[np.int64]
    pos: npt.NDArray[np.float64]
    frame: npt.NDArray[np.float64]
    dist: npt.NDArray[np.float64]

    @property
    def friction_rows(self) -> int:
        """Tangent rows per contact: 1 (planar) or 2 (spatial)."""
        return self.Jt.shape[0] // max(self.Jn.shape[0], 1)


def _mujoco() -> Any:
    try:
        import mujoco
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("impactset.mujoco needs the mujoco package: pip install 'impactset[mujoco]'") from e
    return mujoco


def mass_matrix(model: mujoco.MjModel, data: mujoco.MjData) -> npt.NDArray[np.float64]:
    """MuJoCo's joint-space inertia ``M`` (nv, nv) at the state of ``data``
    (after ``mj_forward``), dense, symmetric, armature included."""
    mj = _mujoco()
    M = np.zeros((model.nv, model.nv))
    try:
        mj.mj_fullM(model, data, M)  # MuJoCo ≥ 4.0: (m, d, dst)
    except TypeError:  # pragma: no cover - MuJoCo 3.x: (m, dst, M)
        mj.mj_fullM(model, M, data.qM)
    return 0.5 * (M + M.T)


def equality_jacobian(model: mujoco.MjModel, data: mujoco.MjData, *, rtol: float = 1e-10) -> npt.NDArray[np.float64]:
    """The active equality constraints' Jacobian (r, nv) at the state of
    ``data`` (after ``mj_forward``): MuJoCo's constraint rows of type
    ``mjCNSTR_EQUALITY``, reduced to an orthonormal basis of their row space
    (a closed kinematic loop often has redundant rows; the constraint
    ``J_eq v = 0`` is the same). ``rtol`` is the singular-value cut relative
    to the largest. Empty (0, nv) when no equality is active.

    >>> import mujoco
    >>> model = mujoco.MjModel.from_xml_string('''
    ... <mujoco><worldbody>
    ...   <body name="a"><freejoint/><geom size=".1"/></body>
    ...   <body name="b" pos=".3 0 0"><freejoint/><geom size=".1"/></body>
    ... </worldbody><equality><connect body1="a" body2="b" anchor=".15 0 0"/></equality></mujoco>''')
    >>> data = mujoco.MjData(model)
    >>> mujoco.mj_forward(model, data)
    >>> equality_jacobian(model, data).shape  # a ball joint between two free bodies: 3 rows
    (3, 12)
    """
    mj = _mujoco()
    nv = model.nv
    kind = np.asarray(data.efc_type[: data.nefc])
    rows = np.flatnonzero(kind == int(mj.mjtConstraint.mjCNSTR_EQUALITY))
    if rows.size == 0:
        return np.zeros((0, nv))
    if mj.mj_isSparse(model):
        J = np.zeros((rows.size, nv))
        for k, r in enumerate(rows):
            adr, nnz = int(data.efc_J_rowadr[r]), int(data.efc_J_rownnz[r])
            J[k, data.efc_J_colind[adr : adr + nnz]] = data.efc_J[adr : adr + nnz]
    else:
        J = np.asarray(data.efc_J[: data.nefc * nv]).reshape(data.nefc, nv)[rows]
    _, sv, vt = np.linalg.svd(J, full_matrices=False)
    rank = int(np.sum(sv > rtol * sv[0])) if sv.size and sv[0] > 0 else 0
    return np.ascontiguousarray(vt[:rank])


def _names_to_ids(model: Any, names: Iterable[str | int] | None, objtype: Any, what: str, one: str) -> set[int] | None:
    """The ids of the ``what`` argument's names or ids (each a ``one``:
    ``geom``, ``body``)."""
    mj = _mujoco()
    if names is None:
        return None
    if isinstance(names, (str, int)):
        names = [names]
    ids = set()
    for name in names:
        if isinstance(name, (int, np.integer)) and not isinstance(name, bool):
            ids.add(int(name))
            continue
        if not isinstance(name, str):
            raise TypeError(f"{what}: expected {one} names or ids, got {type(name).__name__}")
        i = mj.mj_name2id(model, objtype, name)
        if i < 0:
            raise ValueError(f"{what}: no {one} named {name!r} in the model")
        ids.add(i)
    return ids


def _select_contacts(
    model: Any, data: Any, distance: float, geoms: set[int] | None, bodies: set[int] | None
) -> list[tuple[int, float, int, int, npt.NDArray[np.float64], npt.NDArray[np.float64], int, float]]:
    """MuJoCo's contacts at the state of ``data`` with ``dist ≤ distance``,
    as (index, dist, geom1, geom2, pos, frame, dim, μ)."""
    out = []
    for i in range(data.ncon):
        c = data.contact[i]
        g1, g2 = int(c.geom1), int(c.geom2)
        if g1 < 0 or g2 < 0:
            raise ValueError(f"contact {i}: a flex (deformable) contact; the importer handles geom-geom contacts only")
        if int(c.exclude) >= 2 or float(c.dist) > distance:  # 2: fused bodies, 3: no degrees of freedom
            continue
        if geoms is not None or bodies is not None:
            b1, b2 = int(model.geom_bodyid[g1]), int(model.geom_bodyid[g2])
            hit = geoms is not None and (g1 in geoms or g2 in geoms)
            hit = hit or (bodies is not None and (b1 in bodies or b2 in bodies))
            if not hit:
                continue
        out.append(
            (
                i,
                float(c.dist),
                g1,
                g2,
                np.array(c.pos),
                np.array(c.frame).reshape(3, 3),
                int(c.dim),
                float(c.friction[0]),
            )
        )
    return out


def _collide_within(model: Any, data: Any, distance: float) -> None:
    """Runs MuJoCo's collision with every margin raised to at least
    ``distance`` (so touching, not yet penetrating pairs are reported), then
    puts the margins back."""
    mj = _mujoco()
    geom_margin = np.array(model.geom_margin)
    pair_margin = np.array(model.pair_margin)
    try:
        np.maximum(model.geom_margin, distance, out=model.geom_margin)
        if model.npair:
            np.maximum(model.pair_margin, distance, out=model.pair_margin)
        mj.mj_collision(model, data)
    finally:
        model.geom_margin[:] = geom_margin
        model.pair_margin[:] = pair_margin


def _geom_name(model: Any, g: int) -> str:
    name = model.geom(g).name
    return name if name else f"geom{g}"


def contact_rows(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    *,
    distance: float = DEFAULT_DISTANCE,
    geoms: Iterable[str | int] | None = None,
    bodies: Iterable[str | int] | None = None,
    v: npt.ArrayLike | None = None,
    planar: bool | None = None,
) -> ContactRows:
    """The arrays of the impact problem at the state of ``data``; see
    :func:`problem` for the arguments. Runs ``mj_forward`` on ``data``
    (its ``qpos``/``qvel`` are not changed).

    When ``distance > 0`` collision is run a second time with every margin
    raised to ``distance`` so that pairs within ``distance`` but not yet
    penetrating are found; ``mj_forward`` then makes ``data`` MuJoCo's own
    again."""
    mj = _mujoco()
    try:
        distance = float(distance)
    except (TypeError, ValueError):
        raise ValueError(f"distance: expected a finite number ≥ 0, got {distance!r}") from None
    if not (math.isfinite(distance) and distance >= 0):
        raise ValueError(f"distance: expected a finite number ≥ 0, got {distance!r}")
    if planar is not None and not isinstance(planar, (bool, np.bool_)):
        raise TypeError(f"planar: expected None, True or False, got {type(planar).__name__}")
    if model.nv == 0:
        raise ValueError("model: it has no degrees of freedom")
    if not np.all(np.isfinite(data.qpos)):
        raise ValueError(f"data.qpos: not finite at index {int(np.flatnonzero(~np.isfinite(data.qpos))[0])}")
    if v is None:
        v = np.array(data.qvel, dtype=float)
        vname = "data.qvel"
    else:
        v = np.array(v, dtype=float).reshape(-1)
        vname = "v"
        if v.shape != (model.nv,):
            raise ValueError(f"v: expected {model.nv} velocities (model.nv), got {v.size}")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{vname}: not finite at index {int(np.flatnonzero(~np.isfinite(v))[0])}")
    geom_ids = _names_to_ids(model, geoms, mj.mjtObj.mjOBJ_GEOM, "geoms", "geom")
    body_ids = _names_to_ids(model, bodies, mj.mjtObj.mjOBJ_BODY, "bodies", "body")

    mj.mj_forward(model, data)
    J_eq = equality_jacobian(model, data)  # before collision runs again: mj_collision clears the constraint rows
    if distance > 0:
        _collide_within(model, data, distance)
    try:
        found = _select_contacts(model, data, distance, geom_ids, body_ids)
    finally:
        if distance > 0:
            mj.mj_forward(model, data)  # data as MuJoCo's own again (kinematics unchanged)
    if not found:
        subset = " among the named geoms/bodies" if geom_ids is not None or body_ids is not None else ""
        raise ValueError(f"data: no contact within distance {distance:g}{subset} at this state (ncon = {data.ncon})")

    nv = model.nv
    M = mass_matrix(model, data)
    m = len(found)
    Jn = np.zeros((m, nv))
    Jt = np.zeros((m, 2, nv))
    mu = np.zeros(m)
    names = []
    jac1 = np.zeros((3, nv))
    jac2 = np.zeros((3, nv))
    torsional = []
    for k, (_, _, g1, g2, pos, frame, dim, friction) in enumerate(found):
        mj.mj_jac(model, data, jac1, None, pos, int(model.geom_bodyid[g1]))
        mj.mj_jac(model, data, jac2, None, pos, int(model.geom_bodyid[g2]))
        rel = frame @ (jac2 - jac1)  # relative velocity of geom2's point w.r.t. geom1's, in the contact frame
        Jn[k] = rel[0]
        Jt[k] = rel[1:]
        if dim == 1:
            mu[k] = 0.0
        else:
            mu[k] = friction
            if dim > 3:
                torsional.append(k)
        names.append(f"{_geom_name(model, g1)}/{_geom_name(model, g2)}")
    if torsional:
        warnings.warn(
            f"contacts {[names[k] for k in torsional]}: condim 4/6 — torsional and rolling friction are ignored, "
            "sliding friction kept",
            stacklevel=3,
        )
    for k in range(m):
        if not np.any(Jn[k]):
            raise ValueError(f"contact {names[k]}: its normal row is zero (neither side moves)")
    Jt_rows = _tangent_rows(M, Jt, mu, planar)
    return ContactRows(
        M=M,
        v=v,
        Jn=Jn,
        Jt=Jt_rows,
        mu=mu,
        names=_unique(names),
        J_eq=J_eq,
        geom=np.array([(f[2], f[3]) for f in found], dtype=np.int64),
        pos=np.array([f[4] for f in found]),
        frame=np.array([f[5] for f in found]),
        dist=np.array([f[1] for f in found]),
    )


def _tangent_rows(
    M: npt.NDArray[np.float64], Jt: npt.NDArray[np.float64], mu: npt.NDArray[np.float64], planar: bool | None
) -> npt.NDArray[np.float64]:
    """(m·t, n) tangent rows: the two frame tangents (spatial), or one
    tangent per contact when every contact's tangent plane moves the system
    along one direction only (a planar model in 3-D: the in-plane tangent,
    the principal direction of ``Jt M⁻¹ Jtᵀ``)."""
    m, _, n = Jt.shape
    if planar is False:
        return Jt.reshape(2 * m, n)
    W = np.einsum("kan,kbn->kab", Jt, np.linalg.solve(M, Jt.reshape(2 * m, n).T).T.reshape(m, 2, n))
    lam, vec = np.linalg.eigh(W)  # ascending
    flat = lam[:, 0] <= 1e-12 * np.maximum(lam[:, 1], np.finfo(float).tiny)
    if planar is None and not np.all(flat | (mu == 0)):
        return Jt.reshape(2 * m, n)
    if planar and not np.all(flat | (mu == 0)):
        bad = int(np.flatnonzero(~(flat | (mu == 0)))[0])
        raise ValueError(f"planar: contact {bad} has friction in two independent tangent directions")
    if planar is None and not np.any(flat):
        return Jt.reshape(2 * m, n)
    return np.einsum("ka,kan->kn", vec[:, :, 1], Jt)


def _unique(names: list[str]) -> list[str]:
    counts: dict[str, int] = {}
    for s in names:
        counts[s] = counts.get(s, 0) + 1
    seen: dict[str, int] = {}
    out = []
    for s in names:
        if counts[s] > 1:
            seen[s] = seen.get(s, 0) + 1
            out.append(f"{s}#{seen[s]}")
        else:
            out.append(s)
    return out


def problem(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    *,
    distance: float = DEFAULT_DISTANCE,
    geoms: Iterable[str | int] | None = None,
    bodies: Iterable[str | int] | None = None,
    v: npt.ArrayLike | None = None,
    planar: bool | None = None,
    equality: bool = True,
    name: str | None = None,
    friction_directions: int | None = None,
    step_size: float | None = None,
    steps: int | None = None,
    samples: int | None = None,
) -> Problem:
    """The impact problem of a MuJoCo model at the state of ``data``.

    Parameters
    ----------
    model, data
        The model and its state: ``data.qpos`` fixes the configuration,
        ``data.qvel`` (or ``v``) is the pre-impact velocity. ``mj_forward``
        is run on ``data``; ``qpos``/``qvel`` are left as they are.
    distance
        Contacts with MuJoCo distance ``dist ≤ distance`` count (default
        1e-3; pairs closer than that are found even when not penetrating).
    geoms, bodies
        Keep only contacts that involve one of these geoms / bodies (names
        or ids); with both, a contact matching either is kept.
    v
        The pre-impact velocity in ``qvel`` coordinates (default
        ``data.qvel``).
    planar
        One tangent row per contact (``t = 1``) instead of two. ``None``
        (default): planar exactly when every frictional contact's tangent
        plane moves the system along a single direction (a planar model such
        as dm_control's walker or cheetah), so no tangent row is inert.
    equality
        Hand the active equality constraints to the core as bilateral
        constraints (default True).
    name, friction_directions, step_size, steps, samples
        As in :meth:`Problem.from_arrays`; ``name`` defaults to the model's
        name.

    Raises
    ------
    ValueError
        No contact within ``distance``, a non-finite state, flex contacts,
        an unknown geom/body name, a contact whose normal row is zero.
    """
    if not isinstance(equality, (bool, np.bool_)):
        raise TypeError(f"equality: expected True or False, got {type(equality).__name__}")
    rows = contact_rows(model, data, distance=distance, geoms=geoms, bodies=bodies, v=v, planar=planar)
    if name is None:
        mj = _mujoco()
        name = mj.mj_id2name(model, mj.mjtObj.mjOBJ_MODEL, 0) or "mujoco"
    options: dict[str, Any] = {
        "name": name,
        "friction_directions": friction_directions,
        "step_size": step_size,
        "steps": steps,
        "samples": samples,
    }
    bilateral = rows.J_eq if equality else np.zeros((0, model.nv))
    return _from_arrays(rows, bilateral, options)


def _from_arrays(rows: ContactRows, bilateral: npt.NDArray[np.float64], options: dict[str, Any]) -> Problem:
    """``Problem.from_arrays`` with the equality rows as bilateral constraints."""
    m, t = rows.Jn.shape[0], rows.friction_rows
    Jt = rows.Jt if t == 1 else rows.Jt.reshape(m, t, -1)  # (m, 2, n): unambiguous when m = 2
    if bilateral.shape[0]:
        options = {**options, "bilateral": bilateral}
    return Problem.from_arrays(rows.M, rows.v, rows.Jn, Jt, rows.mu, rows.names, **options)


# ---------------------------------------------------------------------------
# MuJoCo's own outcome

#: The most simulation steps :func:`outcome` runs (``max_duration /
#: timestep``): 10⁷, a hundred seconds at the default 10 µs step.
MAX_OUTCOME_STEPS = 10_000_000


def _positive(value: object, name: str, *, zero: bool = False) -> float:
    """``value`` as a finite positive float (or 0 with ``zero``), else
    ``ValueError`` (``TypeError`` for a string, a bool or another kind of
    value) naming ``name``."""
    expected = "a finite number ≥ 0" if zero else "a finite positive number"
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}: expected {expected}, got {type(value).__name__}")
    x = float(value)
    if not (math.isfinite(x) and (x > 0 or (zero and x == 0))):
        raise ValueError(f"{name}: expected {expected}, got {value!r}")
    return x


def outcome(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    *,
    v: npt.ArrayLike | None = None,
    distance: float = DEFAULT_DISTANCE,
    timestep: float = 1e-5,
    damping: float = 5e4,
    impedance: float = 0.99,
    impratio: float = 100.0,
    max_duration: float = 2e-3,
    tol: float = 1e-2,
) -> npt.NDArray[np.float64]:
    """MuJoCo's own post-impact ``qvel`` from the state of ``data`` (or the
    velocity ``v``): the impact simulated with stiff, overdamped contacts.

    A copy of ``model`` and ``data`` is stepped (``model`` and ``data`` are
    not changed) with

    * every geom's and pair's contacts purely damped: ``solref = (−1,
      −damping)`` (MuJoCo's direct form: stiffness 1, damping 5·10⁴ s⁻¹ by
      default) for the normal and friction directions, and
      ``solimp = (impedance, impedance, 1e-3, 0.5, 2)``, impedance 0.99 (nearly
      hard): a perfectly
      plastic contact whose approach speed and slip decay as
      ``exp(−damping·t)``, with no spring to push it apart again;
    * ``timestep`` (default 1e-5 s, so ``damping·timestep = 0.5``), the
      implicit-fast integrator, the Newton solver, an elliptic friction
      cone with ``impratio`` (default 100);
    * equality constraints with the same ``solref`` and ``solimp``;
    * gravity, actuation, springs, dampers, joint limits and friction loss
      disabled: only contacts and equality constraints act;

    until the impact is over: the contact velocities ``u = [Jn; Jt] q̇`` of
    the contacts of :func:`contact_rows` (within ``distance`` at the start,
    frames frozen) no longer approach, ``min Jn q̇ ≥ −tol·max|Jn v⁻|``, and
    changed by at most ``tol·max|Jn v⁻|`` over the last 10 steps (tol 1e-2); at most
    ``max_duration`` (default 2 ms). Stopping early matters: the bodies
    keep moving, and pairs a millimetre apart would collide a millisecond
    later. Returns ``qvel`` at the end.

    Sliding contacts come out differently from the rigid model by design:
    soft contacts push a sliding contact apart at a normal speed of about
    ``μ`` times the slip speed (``docs/robots.md``).

    Every parameter is a finite positive number (``impedance`` at most 1,
    ``tol`` may be 0) and the run at most :data:`MAX_OUTCOME_STEPS` steps
    (``max_duration / timestep``); else ``ValueError`` naming it.
    """
    mj = _mujoco()
    timestep = _positive(timestep, "timestep")
    damping = _positive(damping, "damping")
    impratio = _positive(impratio, "impratio")
    max_duration = _positive(max_duration, "max_duration")
    tol = _positive(tol, "tol", zero=True)
    impedance = _positive(impedance, "impedance")
    if not impedance <= 1:
        raise ValueError(f"impedance: expected a number in (0, 1], got {impedance!r}")
    if not (damping * timestep <= 1.0):
        raise ValueError(f"damping, timestep: need damping·timestep ≤ 1 for a stable step, got {damping}·{timestep}")
    steps = max(1, round(max_duration / timestep))
    if steps > MAX_OUTCOME_STEPS:
        raise ValueError(
            f"max_duration: {max_duration:g} s is {steps:.3g} steps of timestep {timestep:g} s, above "
            f"{MAX_OUTCOME_STEPS:g}; an impact is over within milliseconds"
        )
    rows = contact_rows(model, data, distance=distance, v=v, planar=False)
    m2 = copy.deepcopy(model)
    d2 = mj.MjData(m2)
    d2.qpos[:] = data.qpos
    d2.qvel[:] = rows.v
    if m2.nmocap:
        d2.mocap_pos[:] = data.mocap_pos
        d2.mocap_quat[:] = data.mocap_quat
    solref = np.array([-1.0, -float(damping)])
    solimp = np.array([impedance, impedance, 1e-3, 0.5, 2.0])
    m2.geom_solref[:] = solref
    m2.geom_solimp[:] = solimp
    m2.geom_solmix[:] = 1.0
    if m2.npair:
        m2.pair_solref[:] = solref
        m2.pair_solreffriction[:] = solref
        m2.pair_solimp[:] = solimp
    if m2.neq:
        m2.eq_solref[:] = solref  # equality constraints as stiff as the contacts
        m2.eq_solimp[:] = solimp
    m2.opt.timestep = timestep
    m2.opt.integrator = int(mj.mjtIntegrator.mjINT_IMPLICITFAST)
    m2.opt.cone = int(mj.mjtCone.mjCONE_ELLIPTIC)
    m2.opt.solver = int(mj.mjtSolver.mjSOL_NEWTON)
    m2.opt.impratio = impratio
    m2.opt.iterations = max(int(m2.opt.iterations), 100)
    m2.opt.tolerance = 1e-12
    m2.opt.disableflags |= int(
        mj.mjtDisableBit.mjDSBL_GRAVITY
        | mj.mjtDisableBit.mjDSBL_ACTUATION
        | mj.mjtDisableBit.mjDSBL_SPRING
        | mj.mjtDisableBit.mjDSBL_DAMPER
        | mj.mjtDisableBit.mjDSBL_LIMIT
        | mj.mjtDisableBit.mjDSBL_FRICTIONLOSS
        | mj.mjtDisableBit.mjDSBL_REFSAFE
    )
    J = np.vstack([rows.Jn, rows.Jt])
    scale = float(np.max(np.abs(rows.Jn @ rows.v))) or 1.0
    history = [J @ d2.qvel]
    for _ in range(steps):
        mj.mj_step(m2, d2)
        history.append(J @ d2.qvel)
        if len(history) > 10:
            du = history[-1] - history.pop(0)
            settled = float(np.max(np.abs(du))) <= tol * scale
            if settled and float(np.min(history[-1][: rows.Jn.shape[0]])) >= -tol * scale:
                break
    return np.array(d2.qvel)


# ---------------------------------------------------------------------------
# Command line


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m impactset.mujoco",
        description="Write the impact problem of a MuJoCo model (MJCF) at a state as a problem file.",
    )
    parser.add_argument("model", help="the MJCF file (.xml) or compiled model (.mjb)")
    parser.add_argument(
        "--keyframe", metavar="NAME", help="the state: this keyframe (name or index); default qpos0, qvel 0"
    )
    parser.add_argument("--out", metavar="PATH", required=True, help="the problem file to write (.toml or .json)")
    parser.add_argument(
        "--distance",
        type=float,
        default=DEFAULT_DISTANCE,
        help=f"contact distance tolerance (default {DEFAULT_DISTANCE:g})",
    )
    parser.add_argument(
        "--geom", action="append", metavar="NAME", help="keep contacts involving this geom (repeatable)"
    )
    parser.add_argument(
        "--body", action="append", metavar="NAME", help="keep contacts involving this body (repeatable)"
    )
    parser.add_argument(
        "--qvel", metavar="V", help="pre-impact velocity: nv comma-separated numbers (default: the state's)"
    )
    parser.add_argument("--no-equality", action="store_true", help="ignore the model's equality constraints")
    parser.add_argument("--name", help="the problem's name (default: the model's)")
    parser.add_argument("--samples", type=int, help="the problem's default sample count")
    return parser


def _load_model(path: str) -> Any:
    mj = _mujoco()
    try:
        if path.endswith(".mjb"):
            return mj.MjModel.from_binary_path(path)
        return mj.MjModel.from_xml_path(path)
    except Exception as e:  # mujoco raises ValueError with its compiler's message
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ValueError(f"{path}: {first}") from e


def _state(model: Any, keyframe: str | None) -> Any:
    mj = _mujoco()
    data = mj.MjData(model)
    if keyframe is None:
        return data
    key = int(keyframe) if keyframe.lstrip("-").isdigit() else mj.mj_name2id(model, mj.mjtObj.mjOBJ_KEY, keyframe)
    if not 0 <= key < model.nkey:
        raise ValueError(f"--keyframe: no keyframe {keyframe!r} in the model ({model.nkey} keyframes)")
    mj.mj_resetDataKeyframe(model, data, key)
    return data


def _parse_vector(text: str, n: int, what: str) -> npt.NDArray[np.float64]:
    try:
        values = np.array([float(x) for x in text.replace(" ", ",").split(",") if x], dtype=float)
    except ValueError as e:
        raise ValueError(f"{what}: not a list of numbers: {text!r}") from e
    if values.shape != (n,):
        raise ValueError(f"{what}: expected {n} numbers, got {values.size}")
    return values


def main(argv: Sequence[str] | None = None) -> int:
    """The command line ``python -m impactset.mujoco``; returns the exit
    status (2 on an error, with one line on standard error)."""
    args = _parser().parse_args(argv)
    try:
        model = _load_model(args.model)
        data = _state(model, args.keyframe)
        v = _parse_vector(args.qvel, model.nv, "--qvel") if args.qvel else None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            p = problem(
                model,
                data,
                distance=args.distance,
                geoms=args.geom,
                bodies=args.body,
                v=v,
                equality=not args.no_equality,
                name=args.name,
                samples=args.samples,
            )
        for w in caught:
            print(f"warning: {w.message}", file=sys.stderr)
        p.save(args.out)
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{args.out}: {p.m} contacts, n = {p.n}, {p.dimension}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
