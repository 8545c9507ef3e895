"""Simulation with impacts drawn from the set (:class:`ImpactSampler`): a
replacement for ``mujoco.mj_step`` that resolves each impact with one
outcome sampled from its post-impact set. Re-exported by
:mod:`impactset.mujoco`; ``docs/rollouts.md`` says where it hooks into the
step and why."""

from __future__ import annotations

import collections
import copy
import math
import time as clock
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ._impactset import SELECTIONS, Problem, SampleSet
from ._mujoco_importer import DEFAULT_DISTANCE, check_data, import_mujoco
from ._mujoco_importer import _collide_within as collide_within
from ._mujoco_importer import problem as mujoco_problem
from ._names import SelectionName

if TYPE_CHECKING:  # pragma: no cover
    import mujoco

#: The step cap K of every impact's sampling: high enough that a sample is
#: not cut short (an impact takes a few to a few hundred steps), and set so
#: that no pilot run (64 samples) is spent on each impact.
IMPACT_STEP_CAP = 1000


#: A step's contacts: their geom pairs (k, 2) and world points (k, 3).
_Contacts = tuple[npt.NDArray[np.int32], npt.NDArray[np.float64]]
_NONE: _Contacts = (np.zeros((0, 2), dtype=np.int32), np.zeros((0, 3)))


@dataclass(frozen=True)
class ImpactRecord:
    """One resolved impact: the simulation ``time`` it began, its contacts'
    ``names``, the configuration ``qpos``, the velocities before and after
    (``v_minus``, ``v_plus``, qvel coordinates), the kinetic energies
    ``energy_before`` and ``energy_after`` (``½ vᵀ M v``), the fastest
    approach speed of a new contact, which made it an impact, and the ``index`` of the sample
    drawn (the sampling stream)."""

    time: float
    names: list[str]
    qpos: npt.NDArray[np.float64]
    v_minus: npt.NDArray[np.float64]
    v_plus: npt.NDArray[np.float64]
    energy_before: float
    energy_after: float
    approach_speed: float
    index: int


class ImpactSampler:
    """Steps a MuJoCo simulation like ``mujoco.mj_step``, but resolves every
    impact with one outcome drawn from its post-impact set.

    ``sampler.step(model, data)`` takes one ``mj_step``. When that step began
    with a new contact (within ``distance``) approaching faster than
    ``threshold`` (m/s: an impact), the step is undone, the impact problem is
    built at its start (:func:`impactset.mujoco.problem`) for the bodies of
    the impact (the approaching contacts' kinematic trees and every tree
    touching them), one sample is drawn from the set
    (:func:`impactset.sample`), ``data.qvel`` is set to it and the step is
    taken again. Every other step is ``mj_step`` itself, bit
    for bit.

    Parameters
    ----------
    model
        The model to simulate. The impact problems are built on a private copy
        taken here (the importer raises the geom margins while it looks for
        near contacts, which must not happen to a model that other threads
        step): make a new sampler after changing the model's parameters.
        :meth:`step` refuses (``ValueError``) an ``MjData`` made for another
        model, and a model built unlike this one (other sizes or size
        signature).
    seed
        The sampling seed (default 0). Impact ``k`` (counted from 0) draws
        sample ``k·attempts`` of this seed, then the next ones while samples
        are rejected, so a run is reproducible from its seed.
    selection
        The step-selection rule (:func:`impactset.sample`; default the
        library's, ``"all"``; one of ``impactset.SELECTIONS``).
    threshold
        Approach speed (m/s, default 0.1) above which a new contact starts an
        impact. Below it MuJoCo's soft contacts handle the contact as usual.
    radius
        Contacts of one geom pair less than ``radius`` apart (m, default
        1 cm) at consecutive steps are the same contact. Only a new contact
        (none of its pair that close at the previous step) starts an impact:
        a foot pressed into the floor by a landing's load keeps sinking into
        MuJoCo's soft contact at about 0.1 m/s, and is no new impact.
    distance
        Contacts within this distance (default 1 mm) are part of an impact,
        as in :func:`impactset.mujoco.problem`.
    step_size, steps
        The impulse step ``h`` (a positive number; default the library's)
        and the step cap ``K`` (a whole number ≥ 1; default
        :data:`IMPACT_STEP_CAP`) of each impact's sampling, checked here by
        the core within its bounds, as :meth:`Problem.from_arrays` checks
        them.
    restitution
        One coefficient of restitution for every contact of every impact
        (Stronge's energetic ``e``, ``0 ≤ e ≤ 1``, docs/model.md §4b;
        default the library's, 0: inelastic). One number, since the
        contacts change from impact to impact; checked here by the core.
    attempts
        Samples tried per impact before giving up (default 4); an impact none
        of them resolves is left to MuJoCo and counted in :attr:`unresolved`,
        as is one whose impact problem cannot be built (a body welded to a
        mocap body or to the world, whose contacts cannot move along their
        normals); a warning says which of the two happened.
    records
        The last ``records`` resolved impacts are kept in :attr:`history`
        (default 1000).

    Statistics: :attr:`impacts` met, :attr:`unresolved` (those of them left
    to MuJoCo), :attr:`steps` taken, :attr:`seconds` spent resolving impacts
    (wall time) and :attr:`history`, an :class:`ImpactRecord` per resolved
    impact.

    Threads: a sampler holds one simulation's impact count, history and last
    contacts, so use one sampler per ``MjData`` (per thread); several samplers may step
    their own ``MjData`` of one shared ``MjModel`` in threads at once.
    ``mj_step`` and the sampling release the GIL.

    The sampler reads the contacts ``mj_step`` found at the start of the step
    (``data.contact`` and ``data.efc_vel``, still the step's own after Euler
    and implicit integration); the RK4 integrator overwrites them with its
    last stage, so models using it are refused.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        *,
        seed: int = 0,
        selection: SelectionName | None = None,
        threshold: float = 0.1,
        radius: float = 0.01,
        distance: float = DEFAULT_DISTANCE,
        step_size: float | None = None,
        steps: int | None = None,
        restitution: float | None = None,
        attempts: int = 4,
        records: int = 1000,
    ) -> None:
        mj = import_mujoco()
        if int(model.opt.integrator) == int(mj.mjtIntegrator.mjINT_RK4):
            raise ValueError("model: the RK4 integrator is not supported (use Euler, implicit or implicitfast)")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed: expected a whole number ≥ 0, got {seed!r}")
        self.threshold = _non_negative(threshold, "threshold")
        self.distance = _non_negative(distance, "distance")
        self.radius = _non_negative(radius, "radius")
        self.seed = int(seed)
        if selection is not None and selection not in SELECTIONS:
            raise ValueError(f"selection: expected one of {', '.join(SELECTIONS)}, got {selection!r}")
        self.selection = selection
        if restitution is not None and (
            isinstance(restitution, bool) or not isinstance(restitution, (int, float, np.integer, np.floating))
        ):
            raise TypeError(f"restitution: expected one number for every contact, got {type(restitution).__name__}")
        cap = IMPACT_STEP_CAP if steps is None else _whole(steps, "steps")
        # The core's checks of h, K and e, on a one-contact problem: a bad
        # value would otherwise make every impact's problem fail, and every
        # impact be left to MuJoCo.
        Problem.from_arrays(
            np.eye(1), [-1.0], [[1.0]], [[0.0]], [0.0], restitution=restitution, step_size=step_size, steps=cap
        )
        self.step_size = step_size
        self.restitution = restitution
        self.cap = cap
        self.attempts = _whole(attempts, "attempts")
        self.history: collections.deque[ImpactRecord] = collections.deque(maxlen=_whole(records, "records", 0))
        self.impacts = 0
        self.unresolved = 0
        self.steps = 0
        self.seconds = 0.0
        self._mj = mj
        self._model = copy.deepcopy(model)
        self._data = mj.MjData(self._model)
        self._spec = int(mj.mjtState.mjSTATE_INTEGRATION)
        # The integration state at the start of this step and of the one before, alternately.
        self._starts = np.empty((2, mj.mj_stateSize(model, self._spec)))
        self._elliptic = int(model.opt.cone) == int(mj.mjtCone.mjCONE_ELLIPTIC)
        self._checked: tuple[object, object] | None = None  # the last (model, data) found to be this model's

    def _check(self, model: mujoco.MjModel | None, data: mujoco.MjData) -> None:
        """``ValueError`` unless ``data`` is ``model``'s and ``model`` is
        this sampler's (built alike: the same sizes and compilation
        signature). Remembers the pair that passed, since sizes do not
        change: each step checks two identities only."""
        if self._checked is not None and self._checked[0] is model and self._checked[1] is data:
            return
        if model is not None:
            check_data(model, data)
        try:
            check_data(self._model, data)
        except ValueError as e:
            what = "data" if model is None else "model"
            raise ValueError(f"{what}: not built like the model this sampler was made for ({e})") from None
        self._checked = (model, data)

    def step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """One step of ``data``, as ``mujoco.mj_step(model, data)``, with an
        impact at its start resolved from the set."""
        self._check(model, data)
        mj = self._mj
        before = self._starts[self.steps % 2]
        mj.mj_getState(model, data, before, self._spec)
        mj.mj_step(model, data)
        self.steps += 1
        # No contact row approaching faster than the threshold, no impact: the
        # normal velocity is a contact's first row (elliptic cone) or the mean
        # of its rows (pyramidal), never below the least row. Rows of
        # equality constraints and friction loss come first and are skipped.
        rows = data.efc_vel[data.ne + data.nf :]
        if rows.size == 0 or rows.min() >= -self.threshold:
            return
        normal, geoms, where = self._normal_velocities(data)
        fast = np.flatnonzero(normal < -self.threshold)
        if fast.size == 0:
            return
        earlier = self._contacts_at(self._starts[self.steps % 2]) if self.steps > 1 else _NONE
        new = fast[self._new(geoms[fast], where[fast], earlier)]
        if new.size:
            self._resolve(model, data, before, -float(normal[new].min()), geoms[new])

    def _contacts_at(self, state: npt.NDArray[np.float64]) -> _Contacts:
        """The contacts ``mj_step`` found at the start of the previous step:
        its start ``state`` on the private copy, MuJoCo's collision again."""
        mj = self._mj
        mj.mj_setState(self._model, self._data, state, self._spec)
        mj.mj_fwdPosition(self._model, self._data)
        contacts = self._data.contact
        near = (np.asarray(contacts.efc_address) >= 0) & (np.asarray(contacts.dist) <= self.distance)
        return np.asarray(contacts.geom)[near], np.asarray(contacts.pos)[near]

    def _new(
        self, geoms: npt.NDArray[np.int32], where: npt.NDArray[np.float64], previous: _Contacts
    ) -> npt.NDArray[np.bool_]:
        """Which of these contacts (geom pairs, world points) had no contact
        of the same geom pair within ``radius`` at the previous step."""
        old_geoms, old_where = previous
        same_pair = np.all(geoms[:, None, :] == old_geoms[None, :, :], axis=2)
        close = np.linalg.norm(where[:, None, :] - old_where[None, :, :], axis=2) <= self.radius
        return ~np.any(same_pair & close, axis=1)

    def approach_speed(self, data: mujoco.MjData) -> float:
        """The fastest approach (m/s, ≥ 0) of the contacts within
        ``distance`` at the start of the step ``data`` just took."""
        self._check(None, data)
        normal, _, _ = self._normal_velocities(data)
        return max(0.0, -float(normal.min())) if normal.size else 0.0

    def _normal_velocities(
        self, data: mujoco.MjData
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int32], npt.NDArray[np.float64]]:
        """The normal velocities (positive separates) of the contacts within
        ``distance`` at the start of the step ``data`` just took, their geom
        pairs and world points, from MuJoCo's constraint rows: ``data.efc_vel`` is
        ``J q̇`` at the start of the step. The normal row is a contact's first
        row with an elliptic cone; a pyramidal cone's rows are ``n ± μ tᵢ``
        in pairs, whose mean is the normal velocity."""
        contacts = data.contact
        address = np.asarray(contacts.efc_address)
        near = (address >= 0) & (np.asarray(contacts.dist) <= self.distance)
        velocity = data.efc_vel
        first = address[near]
        geoms, where = np.asarray(contacts.geom)[near], np.asarray(contacts.pos)[near]
        if self._elliptic or first.size == 0:
            return np.array(velocity[first]), geoms, where
        dims = np.asarray(contacts.dim)[near]
        rows = np.where(dims == 1, 1, 2 * (dims - 1))
        starts = np.cumsum(rows) - rows
        every = np.repeat(first - starts, rows) + np.arange(int(rows.sum()))
        normal = np.add.reduceat(velocity[every], starts) / rows
        return normal, geoms, where

    def _resolve(
        self,
        model: mujoco.MjModel,
        data: mujoco.MjData,
        before: npt.NDArray[np.float64],
        speed: float,
        approaching: npt.NDArray[np.int32],
    ) -> None:
        """Undoes the step (back to the state ``before`` it), draws the
        impact's outcome into ``data.qvel`` and steps again.
        ``approaching``: the geom pairs that made it an impact."""
        mj = self._mj
        started = clock.perf_counter()
        mj.mj_setState(model, data, before, self._spec)
        mj.mj_setState(self._model, self._data, before, self._spec)
        first = self.impacts * self.attempts
        self.impacts += 1
        problem, drawn = self._draw(first, self._impact_bodies(approaching))
        if isinstance(problem, ValueError) or drawn is None:
            self.unresolved += 1
            why = (
                f"its impact problem could not be built: {problem}"
                if isinstance(problem, ValueError)
                else f"none of {self.attempts} samples was accepted"
            )
            warnings.warn(
                f"ImpactSampler: the impact at t = {data.time:g} s kept MuJoCo's own outcome ({why})", stacklevel=3
            )
        else:
            index, v_plus = drawn
            v_minus = np.array(data.qvel)
            data.qvel[:] = v_plus
            self.history.append(
                ImpactRecord(
                    time=float(data.time),
                    names=problem.names,
                    qpos=np.array(data.qpos),
                    v_minus=v_minus,
                    v_plus=v_plus,
                    energy_before=0.5 * float(v_minus @ problem.M @ v_minus),
                    energy_after=0.5 * float(v_plus @ problem.M @ v_plus),
                    approach_speed=speed,
                    index=index,
                )
            )
        mj.mj_step(model, data)
        self.seconds += clock.perf_counter() - started

    def _impact_bodies(self, approaching: npt.NDArray[np.int32]) -> list[int]:
        """The bodies of the impact at the private copy's state: the kinematic
        trees of the ``approaching`` geom pairs and, transitively, every tree
        in contact (within ``distance``) with one of them. Other trees are
        left out of the problem: ``M`` does not couple them, so their
        velocities would come out unchanged, and their contacts would only
        make the problem larger."""
        model, data = self._model, self._data
        self._mj.mj_fwdPosition(model, data)
        collide_within(model, data, self.distance)
        contacts = data.contact
        near = (np.asarray(contacts.dist) <= self.distance) & (np.asarray(contacts.exclude) < 2)
        root = np.asarray(model.body_rootid)
        body = np.asarray(model.geom_bodyid)
        touching = root[body[np.asarray(contacts.geom)[near]]].reshape(-1, 2)
        trees = set(root[body[approaching.reshape(-1)]].tolist()) - {0}
        grown = True
        while grown:
            grown = False
            for a, b in touching.tolist():
                if (a in trees or b in trees) and not {a, b} - {0} <= trees:
                    trees |= {a, b} - {0}
                    grown = True
        return np.flatnonzero(np.isin(root, sorted(trees))).tolist()

    def _draw(
        self, first: int, bodies: list[int]
    ) -> tuple[Problem | ValueError, tuple[int, npt.NDArray[np.float64]] | None]:
        """The impact problem of ``bodies`` at the private copy's state (or
        the importer's error) and one accepted sample from index ``first``
        on (None when none is)."""
        from . import sample

        try:
            problem = mujoco_problem(
                self._model,
                self._data,
                distance=self.distance,
                bodies=bodies,
                steps=self.cap,
                step_size=self.step_size,
                restitution=self.restitution,
            )
        except ValueError as e:
            return e, None
        for index in range(first, first + self.attempts):
            s: SampleSet = sample(problem, 1, seed=self.seed, selection=self.selection, threads=1, first_index=index)
            if len(s):
                return problem, (index, np.array(s.v_plus[0]))
        return problem, None


def _non_negative(value: object, name: str) -> float:
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a finite number ≥ 0, got {value!r}") from None
    if isinstance(value, bool) or not (math.isfinite(x) and x >= 0):
        raise ValueError(f"{name}: expected a finite number ≥ 0, got {value!r}")
    return x


def _whole(value: object, name: str, least: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise ValueError(f"{name}: expected a whole number ≥ {least}, got {value!r}")
    return int(value)
