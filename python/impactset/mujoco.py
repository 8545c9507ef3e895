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

>>> model = mujoco.MjModel.from_xml_string('''
... <mujoco><worldbody>
...   <body name="a"><freejoint/><geom size=".1"/></body>
...   <body name="b" pos=".3 0 0"><freejoint/><geom size=".1"/></body>
... </worldbody><equality><connect body1="a" body2="b" anchor=".15 0 0"/></equality></mujoco>''')
>>> data = mujoco.MjData(model)
>>> mujoco.mj_forward(model, data)
>>> impactset.mujoco.equality_jacobian(model, data).shape  # a ball joint between two free bodies: 3 rows
(3, 12)

:func:`coordinate_names` names each ``qvel`` coordinate in the convention
shared with :mod:`impactset.pinocchio` (``base_vx`` … ``base_wz``, then the
joints), for :func:`impactset.align` and ``SampleSet.plot(coordinates=...)``;
a problem is named after the model (``<mujoco model="...">``).

The command line writes a problem file::

    python -m impactset.mujoco MODEL.xml --keyframe land --out problem.toml

:func:`outcome` is MuJoCo's own post-impact velocity, simulated with stiff
contacts, to compare with the sampled set.

Controllers in the loop (``docs/rollouts.md``): :func:`rollouts` runs one
MuJoCo rollout per post-impact sample (and one from :func:`outcome`) and
returns the states at chosen times with per-rollout metrics
(:func:`base_height`, :func:`base_tilt`, :func:`contact_loss`, :func:`fell`,
or any function of :class:`Trajectories`); :class:`ImpactSampler` steps a
simulation like ``mujoco.mj_step`` but resolves each impact with one outcome
drawn from its post-impact set.
"""

import sys as _sys

# The public names of the modules behind this one: the importer (contacts
# and rows at a state, the problem), MuJoCo's own outcome, the command line,
# the rows type shared with impactset.pinocchio, rollouts from a set with
# their metrics, and the impact sampler.
from ._contact_rows import ContactRows
from ._mujoco_cli import main as _main
from ._mujoco_control import keyframe_pd, support_bias
from ._mujoco_impact_sampler import IMPACT_STEP_CAP as IMPACT_STEP_CAP
from ._mujoco_impact_sampler import ImpactRecord, ImpactSampler
from ._mujoco_importer import DEFAULT_DISTANCE as DEFAULT_DISTANCE
from ._mujoco_importer import contact_rows, coordinate_names, equality_jacobian, mass_matrix, problem
from ._mujoco_metrics import (
    Trajectories,
    base_height,
    base_tilt,
    body_height,
    contact_loss,
    fell,
    joint_position,
    joint_speed,
)
from ._mujoco_outcome import MAX_OUTCOME_STEPS as MAX_OUTCOME_STEPS
from ._mujoco_outcome import outcome
from ._mujoco_rollouts import Rollouts, rollouts
from ._mujoco_urdf import example_robot_data, load_urdf

__all__ = [
    "DEFAULT_DISTANCE",
    "IMPACT_STEP_CAP",
    "MAX_OUTCOME_STEPS",
    "ContactRows",
    "ImpactRecord",
    "ImpactSampler",
    "Rollouts",
    "Trajectories",
    "base_height",
    "base_tilt",
    "body_height",
    "contact_loss",
    "contact_rows",
    "coordinate_names",
    "equality_jacobian",
    "example_robot_data",
    "fell",
    "joint_position",
    "joint_speed",
    "keyframe_pd",
    "load_urdf",
    "mass_matrix",
    "outcome",
    "problem",
    "rollouts",
    "support_bias",
]


if __name__ == "__main__":
    _sys.exit(_main())
