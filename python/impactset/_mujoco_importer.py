"""Impact problems from MuJoCo states: the contacts MuJoCo finds at the
state in ``data``, their rows from MuJoCo's point Jacobians, the mass matrix
and the active equality constraints. The public names are re-exported by
:mod:`impactset.mujoco`, whose docstring states the conventions."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable
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
    import mujoco

#: Default distance tolerance: MuJoCo contacts with ``dist ≤ 1 mm`` count.
DEFAULT_DISTANCE = 1e-3


def import_mujoco() -> Any:
    """The mujoco package, else ``ImportError`` saying how to install it."""
    try:
        import mujoco
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("impactset.mujoco needs the mujoco package: pip install 'impactset[mujoco]'") from e
    return mujoco


#: ``MjData`` arrays whose length is a size of the model that made it,
#: with that size's name in ``MjModel``.
_SIZED_BY_MODEL = (
    ("qpos", "nq"),
    ("qvel", "nv"),
    ("act", "na"),
    ("ctrl", "nu"),
    ("xpos", "nbody"),
    ("xanchor", "njnt"),
    ("geom_xpos", "ngeom"),
    ("site_xpos", "nsite"),
    ("cam_xpos", "ncam"),
    ("light_xpos", "nlight"),
    ("mocap_pos", "nmocap"),
    ("eq_active", "neq"),
    ("ten_length", "ntendon"),
    ("sensordata", "nsensordata"),
    ("userdata", "nuserdata"),
)


def check_data(model: mujoco.MjModel, data: mujoco.MjData) -> None:
    """``ValueError`` naming ``data`` unless it was made for ``model``
    (``mujoco.MjData(model)``, or for a model compiled from the same
    structure): MuJoCo's functions index ``data`` by the sizes of ``model``
    and check nothing, so another model's data corrupts memory. Checks the
    array lengths that are model sizes, then MuJoCo's compilation
    ``signature``, which both carry."""
    mj = import_mujoco()
    if not isinstance(model, mj.MjModel):
        raise TypeError(f"model: expected a mujoco.MjModel, got {type(model).__name__}")
    if not isinstance(data, mj.MjData):
        raise TypeError(f"data: expected a mujoco.MjData, got {type(data).__name__}")
    for field, size in _SIZED_BY_MODEL:
        have, want = len(getattr(data, field)), int(getattr(model, size))
        if have != want:
            raise ValueError(
                f"data: made for another model: data.{field} has {have} entries, model.{size} = {want} "
                "(make it with mujoco.MjData(model))"
            )
    signature = getattr(model, "signature", None)
    if signature is not None and getattr(data, "signature", signature) != signature:
        raise ValueError(
            f"data: made for another model: data.signature = {data.signature}, model.signature = {signature} "
            "(make it with mujoco.MjData(model))"
        )


def mass_matrix(model: mujoco.MjModel, data: mujoco.MjData) -> npt.NDArray[np.float64]:
    """MuJoCo's joint-space inertia ``M`` (nv, nv) at the state of ``data``
    (after ``mj_forward``), dense, symmetric, armature included.
    ``ValueError`` when ``data`` is another model's."""
    mj = import_mujoco()
    check_data(model, data)
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
    to the largest. Empty (0, nv) when no equality is active. An example
    (a ball joint between two free bodies: 3 rows) is in the docstring of
    :mod:`impactset.mujoco`. ``ValueError`` when ``data`` is another
    model's."""
    mj = import_mujoco()
    check_data(model, data)
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
    mj = import_mujoco()
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
    mj = import_mujoco()
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
    mj = import_mujoco()
    check_data(model, data)
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
    check_finite(data.qpos, "data.qpos")
    if v is None:
        v = np.array(data.qvel, dtype=float)
        vname = "data.qvel"
    else:
        v = np.array(v, dtype=float).reshape(-1)
        vname = "v"
        if v.shape != (model.nv,):
            raise ValueError(f"v: expected {model.nv} velocities (model.nv), got {v.size}")
    check_finite(v, vname)
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
        names=unique_names(names),
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
    restitution: npt.ArrayLike | None = None,
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
    restitution
        Coefficients of restitution (Stronge's energetic ``e``, ``0 ≤ e ≤ 1``,
        docs/model.md §4b): one number for every contact or one per contact
        in the order of the problem's ``names``; default 0 (inelastic).
        MuJoCo's own ``solref``/``solimp`` bounce is not read.
    name, friction_directions, step_size, steps, samples
        As in :meth:`Problem.from_arrays`; ``name`` defaults to the model's
        name.

    Raises
    ------
    ValueError
        ``data`` made for another model, no contact within ``distance``, a
        non-finite state, flex contacts, an unknown geom/body name, a
        contact whose normal row is zero, a coefficient of restitution
        outside ``[0, 1]`` or of the wrong length, active equality
        constraints that leave the system or a contact no motion (a body
        welded to a mocap body or to the world; ``equality=False`` leaves
        them out).
    """
    if not isinstance(equality, (bool, np.bool_)):
        raise TypeError(f"equality: expected True or False, got {type(equality).__name__}")
    rows = contact_rows(model, data, distance=distance, geoms=geoms, bodies=bodies, v=v, planar=planar)
    if name is None:
        name = model_name(model)
    options = {
        "name": name,
        "restitution": restitution,
        "friction_directions": friction_directions,
        "step_size": step_size,
        "steps": steps,
        "samples": samples,
    }
    bilateral = rows.J_eq if equality else None
    try:
        return problem_from_rows(rows, bilateral=bilateral, **options)
    except ValueError as e:
        if bilateral is None or bilateral.shape[0] == 0:
            raise
        problem_from_rows(rows, **options)  # raises when the arrays are wrong even without the constraints
        raise ValueError(
            f"equality: the model's active equality constraints are refused as bilateral constraints: {e} "
            f"(contact k is names[k] of {rows.names}). A body welded to a mocap body or to the world cannot "
            "move; equality=False leaves the constraints out"
        ) from None


def model_name(model: Any) -> str:
    """The model's name (``<mujoco model="...">``), else ``"mujoco"``.

    MuJoCo keeps it as the first entry of ``model.names`` (offset 0); its
    name lookup ``mj_id2name(model, mjOBJ_MODEL, 0)`` returns None in some
    releases, so the name is read from there."""
    names = bytes(getattr(model, "names", b""))
    first = names.split(b"\0", 1)[0].decode("utf-8", errors="replace")
    return first or "mujoco"


def coordinate_names(model: Any) -> list[str]:
    """A name for each velocity coordinate (``qvel``) of ``model``, in the
    convention shared with :func:`impactset.pinocchio.coordinate_names`
    (``docs/robots.md``): a free joint on a body whose parent is the world
    (a floating base; the first such) gives ``base_vx, base_vy, base_vz``
    (the body origin's linear velocity, world frame) and ``base_wx,
    base_wy, base_wz`` (angular velocity, body frame); another free joint
    ``<joint>_vx`` … ``<joint>_wz``, a ball joint ``<joint>_wx`` …
    ``<joint>_wz``, a hinge or slide joint its name. An unnamed joint is
    ``joint<id>``.

    >>> import mujoco, impactset.mujoco
    >>> model = mujoco.MjModel.from_xml_string(
    ...     '<mujoco><worldbody><body><freejoint/><geom size=".1"/>'
    ...     '<body><joint name="knee"/><geom size=".1"/></body></body></worldbody></mujoco>')
    >>> impactset.mujoco.coordinate_names(model)
    ['base_vx', 'base_vy', 'base_vz', 'base_wx', 'base_wy', 'base_wz', 'knee']
    """
    mj = import_mujoco()
    if not isinstance(model, mj.MjModel):
        raise TypeError(f"model: expected a mujoco.MjModel, got {type(model).__name__}")
    names: list[str] = []
    base = False
    for j in range(int(model.njnt)):
        kind = int(model.jnt_type[j])
        name = model.joint(j).name or f"joint{j}"
        if kind == int(mj.mjtJoint.mjJNT_FREE):
            floating = not base and int(model.body_parentid[model.jnt_bodyid[j]]) == 0
            base = base or floating
            names.extend(f"{'base' if floating else name}_{s}" for s in FREE_SUFFIXES)
        elif kind == int(mj.mjtJoint.mjJNT_BALL):
            names.extend(f"{name}_{s}" for s in BALL_SUFFIXES)
        else:
            names.append(name)
    return names
