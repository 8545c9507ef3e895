"""Impact problems from Pinocchio models (URDF robots): the mass matrix
from the CRBA and contact rows from frame Jacobians.

>>> import numpy as np, pinocchio as pin, impactset, impactset.pinocchio
>>> model = pin.Model()  # a free-flying 1 kg cube
>>> joint = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "base")
>>> model.appendBodyToJoint(joint, pin.Inertia.FromBox(1.0, 0.1, 0.1, 0.1), pin.SE3.Identity())
>>> frame = model.addFrame(pin.Frame("corner", joint, 0, pin.SE3(np.eye(3), np.array([0.05, 0.05, -0.05])), pin.FrameType.OP_FRAME))
>>> data = model.createData()
>>> q, v = pin.neutral(model), np.array([0.2, 0.0, -1.0, 0.0, 0.0, 0.0])
>>> p = impactset.pinocchio.problem(model, data, q, v, [("corner", [0, 0, 1], 0.6)])
>>> p.n, p.m, p.dimension, p.names
(6, 1, 'spatial', ['corner'])
>>> (p.Jn @ p.v).tolist()  # the corner approaches at 1
[-1.0]

Conventions (``docs/robots.md``): velocities are Pinocchio's ``v``
coordinates (a free flyer: linear and angular velocity in the base frame);
``M`` is ``pin.crba`` symmetrised; a contact is a frame (its origin, or a
given world point rigidly attached to it) touching a surface with a given
world normal, pointing away from the surface into the robot: the normal row
is ``nᵀ J``, ``J`` the point's translational Jacobian in
``LOCAL_WORLD_ALIGNED``, so positive normal velocity separates; the two
tangent rows use an orthonormal basis ``t₁, t₂`` of the plane normal to
``n`` (:func:`tangent_basis`).

:func:`coordinate_names` names each ``v`` coordinate in the convention
shared with :mod:`impactset.mujoco` (``base_vx`` … ``base_wz``, then the
joints), for :func:`impactset.align` and ``SampleSet.plot(coordinates=...)``.

``q`` is used as given: its quaternions (free-flyer and spherical joints)
and unit complex numbers (planar and unbounded revolute joints) must have
norm 1 within :data:`UNIT_TOLERANCE`, else ``ValueError`` names the joint
(Pinocchio's Jacobians scale with the norm, so an unnormalized ``q`` gives
wrong rows); ``pinocchio.normalize(model, q)`` normalizes one.
"""

from ._contact_rows import ContactRows
from ._pinocchio_importer import UNIT_TOLERANCE as UNIT_TOLERANCE
from ._pinocchio_importer import (
    Contact,
    contact_rows,
    coordinate_names,
    ground_contacts,
    mass_matrix,
    problem,
    tangent_basis,
)

__all__ = [
    "UNIT_TOLERANCE",
    "Contact",
    "ContactRows",
    "contact_rows",
    "coordinate_names",
    "ground_contacts",
    "mass_matrix",
    "problem",
    "tangent_basis",
]
