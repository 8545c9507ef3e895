"""MuJoCo's own post-impact velocity (:func:`outcome`): the impact simulated
by MuJoCo with stiff, purely damped contacts, to compare with the sampled
set. Re-exported by :mod:`impactset.mujoco`."""

from __future__ import annotations

import copy
import math
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ._mujoco_importer import DEFAULT_DISTANCE, contact_rows, import_mujoco

if TYPE_CHECKING:  # pragma: no cover
    import mujoco

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
    mj = import_mujoco()
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
