"""Two problems of one robot in one order: coordinates and contacts matched
by name (``docs/robots.md``, "One robot, two importers")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ._impactset import Problem


def align(
    problem: Problem,
    to: Problem,
    *,
    coordinates: Sequence[str],
    to_coordinates: Sequence[str],
    contacts: Mapping[str, str] | None = None,
) -> Problem:
    """``problem`` with its coordinates and contacts reordered to those of
    ``to``: the same impact problem, written in ``to``'s order.

    ``coordinates`` and ``to_coordinates`` name each velocity coordinate of
    the two problems (``impactset.mujoco.coordinate_names(model)``,
    ``impactset.pinocchio.coordinate_names(model)``): coordinate ``j`` of
    the result is the coordinate of ``problem`` named ``to_coordinates[j]``.
    Contacts are matched by name: ``problem.names`` (renamed through
    ``contacts``, a mapping from ``problem``'s names to ``to``'s, when
    given) against ``to.names``; the result takes ``to``'s names and
    ``problem``'s own rows, friction, restitution, bilateral rows and
    sampling defaults. Only the order changes: each coordinate keeps its
    own frame (``docs/robots.md``: a free base's linear velocity is in the
    world frame in MuJoCo and in the base frame in Pinocchio, the same when
    the base is unrotated).

    Raises ``ValueError`` naming what does not match: a name given twice,
    coordinates or contacts that only one side has, a count that is not the
    problem's.

    >>> import numpy as np, impactset
    >>> a = impactset.Problem.from_arrays(np.diag([1.0, 2.0]), [0.5, -1.0], [[0.0, 1.0]], [[1.0, 0.0]], [0.5], ["foot"])
    >>> b = impactset.align(a, a, coordinates=["x", "z"], to_coordinates=["z", "x"])
    >>> b.M.tolist(), b.v.tolist(), b.Jn.tolist()
    ([[2.0, 0.0], [0.0, 1.0]], [-1.0, 0.5], [[1.0, 0.0]])
    """
    order = _order("coordinates", list(coordinates), list(to_coordinates), problem.n, to.n)
    own = list(problem.names)
    if contacts is not None:
        unknown = sorted(set(contacts) - set(own))
        if unknown:
            raise ValueError(f"contacts: {unknown} are not contacts of the problem (its names: {own})")
        own = [contacts.get(name, name) for name in own]
    rows = _order("contacts", own, list(to.names), problem.m, to.m)
    jt = np.asarray(problem.Jt)
    bilateral = np.asarray(problem.bilateral)
    return Problem.from_arrays(
        np.asarray(problem.M)[np.ix_(order, order)],
        np.asarray(problem.v)[order],
        np.asarray(problem.Jn)[np.ix_(rows, order)],
        jt[rows][..., order],
        np.asarray(problem.mu)[rows],
        list(to.names),
        bilateral=bilateral[:, order] if bilateral.shape[0] else None,
        restitution=np.asarray(problem.restitution)[rows],
        name=problem.name,
        friction_directions=problem.friction_directions if problem.dimension == "spatial" else None,
        step_size=problem.step_size,
        steps=problem.steps,
        samples=problem.samples,
    )


def _order(what: str, own: list[str], target: list[str], count: int, target_count: int) -> list[int]:
    """Where each of ``target``'s names is in ``own``; ``ValueError`` naming
    ``what`` unless both are the same names, once each, ``count`` of them."""
    for label, names, expected in (("the problem's", own, count), ("to's", target, target_count)):
        if len(names) != expected:
            raise ValueError(f"{what}: {len(names)} names for {label} {expected} {what}")
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"{what}: {label} names {twice} are given more than once")
    missing, extra = sorted(set(target) - set(own)), sorted(set(own) - set(target))
    if missing or extra:
        raise ValueError(f"{what}: the names differ: only to has {missing}, only the problem has {extra}")
    where = {name: k for k, name in enumerate(own)}
    return [where[name] for name in target]
