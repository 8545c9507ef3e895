"""A controller from a MuJoCo keyframe: :func:`keyframe_pd`, a joint PD to the
keyframe's joint positions with gravity compensation, for
:func:`impactset.mujoco.rollouts` (``controller=``) or any ``mj_step`` loop.
Re-exported by :mod:`impactset.mujoco`."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ._mujoco_importer import import_mujoco

if TYPE_CHECKING:  # pragma: no cover
    import mujoco


def keyframe_pd(
    model: mujoco.MjModel,
    key: str | int,
    *,
    kp: float | npt.ArrayLike,
    kd: float | npt.ArrayLike,
    gravity: bool = True,
    support: Sequence[str] | None = None,
) -> Callable[[mujoco.MjModel, mujoco.MjData], npt.NDArray[np.float64]]:
    """``controller(model, data) -> ctrl``: every motor drives its joint to
    the keyframe's position,

        τ = kp (q_key − q) − kd q̇ + b,    ctrl = τ / gear, clipped to ctrlrange,

    with ``b`` the joint's entry of MuJoCo's ``data.qfrc_bias`` (gravity,
    Coriolis and centrifugal forces at the state ``data`` holds) when
    ``gravity`` is true. ``kp`` (N·m/rad or N/m) and ``kd`` (N·m·s/rad) are
    one number or one per actuator. Every actuator must be a motor
    (``gaintype`` fixed, no bias) on a hinge or slide joint; else
    ``ValueError`` naming it.

    ``support`` (body names, e.g. a humanoid's feet): the compensation of a
    robot standing on those bodies. ``qfrc_bias`` alone holds each joint
    against the weight of the links beyond it (away from the floating
    base): a leg is compensated as if it hung from the base, not as if it
    carried the body. With ``support``, the bodies' contact wrenches ``F``
    (a force and a torque at each body's frame) that carry the base's share
    of ``b``, the least-norm solution of ``J_baseᵀ F = b_base``, are taken
    off: ``b ← b − Jᵀ F`` (``J``: the bodies' ``mj_jacBody`` rows, both at
    the state ``data`` holds), so ``b − Sᵀτ`` is a force the support can
    supply (the floating-base gravity compensation of whole-body control).
    It needs a floating base (a free joint); ``ValueError`` otherwise.

    In an ``mj_step`` loop ``data.qfrc_bias`` is the one ``mj_step``
    computed at the start of the previous step (one step behind); after
    ``mj_forward`` it is the current state's.

    >>> import mujoco, numpy as np, impactset.mujoco as imj
    >>> model = mujoco.MjModel.from_xml_string('''<mujoco><worldbody><body>
    ...   <joint name="j" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 .5 0 0" size=".05" mass="1"/>
    ... </body></worldbody><actuator><motor joint="j" gear="2"/></actuator>
    ... <keyframe><key name="up" qpos=".3"/></keyframe></mujoco>''')
    >>> data = mujoco.MjData(model); mujoco.mj_forward(model, data)
    >>> hold = imj.keyframe_pd(model, "up", kp=100.0, kd=5.0)
    >>> for _ in range(2000):
    ...     data.ctrl[:] = hold(model, data); mujoco.mj_step(model, data)
    >>> round(float(data.qpos[0]), 3)  # the arm held at the key's angle against gravity
    0.3
    """
    mj = import_mujoco()
    try:
        k = model.key(key).id
    except (KeyError, IndexError, TypeError):
        raise ValueError(f"key: the model has no keyframe {key!r}") from None
    nu = int(model.nu)
    if nu == 0:
        raise ValueError("model: no actuators to drive")
    joints = np.empty(nu, dtype=int)
    for a in range(nu):
        name = model.actuator(a).name or str(a)
        j = int(model.actuator_trnid[a, 0])
        motor = (
            int(model.actuator_trntype[a]) == int(mj.mjtTrn.mjTRN_JOINT)
            and int(model.actuator_gaintype[a]) == int(mj.mjtGain.mjGAIN_FIXED)
            and int(model.actuator_biastype[a]) == int(mj.mjtBias.mjBIAS_NONE)
            and int(model.jnt_type[j]) in (int(mj.mjtJoint.mjJNT_HINGE), int(mj.mjtJoint.mjJNT_SLIDE))
        )
        if not motor:
            raise ValueError(f"model: actuator {name!r} is not a motor on a hinge or slide joint")
        joints[a] = j
    qadr = np.asarray(model.jnt_qposadr)[joints]
    dadr = np.asarray(model.jnt_dofadr)[joints]
    target = np.array(model.key_qpos[k])[qadr]
    scale = np.asarray(model.actuator_gear)[:, 0] * np.asarray(model.actuator_gainprm)[:, 0]
    kp_a = _gains(kp, nu, "kp")
    kd_a = _gains(kd, nu, "kd")
    limited = np.asarray(model.actuator_ctrllimited, dtype=bool)
    low = np.where(limited, np.asarray(model.actuator_ctrlrange)[:, 0], -np.inf)
    high = np.where(limited, np.asarray(model.actuator_ctrlrange)[:, 1], np.inf)
    use_bias = bool(gravity)
    carry = support_bias(model, support) if use_bias and support is not None else None

    def controller(model: mujoco.MjModel, data: mujoco.MjData) -> npt.NDArray[np.float64]:
        tau = kp_a * (target - data.qpos[qadr]) - kd_a * data.qvel[dadr]
        if use_bias:
            bias = data.qfrc_bias if carry is None else carry(model, data)
            tau = tau + bias[dadr]
        return np.clip(tau / scale, low, high)

    return controller


def support_bias(
    model: mujoco.MjModel, support: Sequence[str]
) -> Callable[[mujoco.MjModel, mujoco.MjData], npt.NDArray[np.float64]]:
    """``bias(model, data) -> (nv,)``: MuJoCo's ``data.qfrc_bias`` less the
    least-norm wrenches at the ``support`` bodies' frames that carry its
    floating-base rows (``keyframe_pd(..., support=)``'s compensation, for a
    controller of one's own: add ``bias[dof]`` to each joint's torque).
    ``ValueError`` for an unknown body, no body or no floating base."""
    mj = import_mujoco()
    names = [support] if isinstance(support, str) else list(support)
    if not names:
        raise ValueError("support: expected one or more body names, got none")
    bodies = []
    for name in names:
        try:
            bodies.append(int(model.body(name).id))
        except KeyError:
            raise ValueError(f"support: the model has no body {name!r}") from None
    free = np.flatnonzero(np.asarray(model.jnt_type) == int(mj.mjtJoint.mjJNT_FREE))
    if free.size == 0:
        raise ValueError("support: needs a floating base (a free joint); the model has none")
    base = int(model.jnt_dofadr[free[0]]) + np.arange(6)

    def bias(model: mujoco.MjModel, data: mujoco.MjData) -> npt.NDArray[np.float64]:
        jacobian = np.zeros((6 * len(bodies), int(model.nv)))  # per call: controllers may run in threads
        for k, b in enumerate(bodies):
            mj.mj_jacBody(model, data, jacobian[6 * k : 6 * k + 3], jacobian[6 * k + 3 : 6 * k + 6], b)
        b_all = np.array(data.qfrc_bias)
        wrenches = np.linalg.lstsq(jacobian[:, base].T, b_all[base], rcond=None)[0]
        return b_all - jacobian.T @ wrenches

    return bias


def _gains(value: float | npt.ArrayLike, nu: int, name: str) -> npt.NDArray[np.float64]:
    a = np.asarray(value, dtype=float)
    if a.ndim == 0:
        a = np.full(nu, float(a))
    if a.shape != (nu,) or not all(math.isfinite(x) and x >= 0 for x in a):
        raise ValueError(f"{name}: expected a finite non-negative number or {nu} of them, got {value!r}")
    return a
