"""The rows type and steps both robot importers share
(impactset._contact_rows): one ContactRows, the contact names made unique,
the finite-state check and the hand-off to Problem.from_arrays."""

from __future__ import annotations

import impactset
import impactset.mujoco
import impactset.pinocchio
import numpy as np
import pytest
from impactset._contact_rows import ContactRows, check_finite, problem_from_rows, unique_names


def test_both_importers_return_the_same_rows_type() -> None:
    assert impactset.mujoco.ContactRows is ContactRows
    assert impactset.pinocchio.ContactRows is ContactRows


def test_shared_names_get_a_count_and_explicit_names_are_kept() -> None:
    assert unique_names(["a", "b", "a", "c", "a"]) == ["a#1", "b", "a#2", "c", "a#3"]
    # A name given explicitly is neither renamed nor counted.
    assert unique_names(["a", "a", "a"], [False, True, False]) == ["a#1", "a", "a#2"]
    assert unique_names(["a", "a"], [False, True]) == ["a", "a"]


def test_a_non_finite_state_names_the_argument_and_the_index() -> None:
    check_finite(np.zeros(3), "q")
    with pytest.raises(ValueError, match=r"^v: not finite at index 2$"):
        check_finite([0.0, 1.0, np.inf, np.nan], "v")


def _rows(t: int) -> ContactRows:
    """A unit point mass on a floor: one contact, planar (t = 1) or
    spatial (t = 2)."""
    n = t + 1
    Jt = np.eye(n)[:t]
    Jn = np.eye(n)[n - 1 :]
    v = np.zeros(n)
    v[-1] = -1.0
    return ContactRows(M=np.eye(n), v=v, Jn=Jn, Jt=Jt, mu=np.array([0.5]), names=["floor"])


@pytest.mark.parametrize("t", [1, 2])
def test_rows_become_the_problem_of_from_arrays(t: int) -> None:
    rows = _rows(t)
    assert rows.friction_rows == t
    p = problem_from_rows(rows, name="point", samples=7)
    q = impactset.Problem.from_arrays(
        rows.M, rows.v, rows.Jn, rows.Jt.reshape(1, t, -1) if t == 2 else rows.Jt, rows.mu, ["floor"], name="point"
    )
    for field in ("M", "v", "Jn", "Jt", "mu"):
        np.testing.assert_array_equal(getattr(p, field), getattr(q, field))
    assert (p.name, p.names, p.dimension, p.samples) == ("point", ["floor"], q.dimension, 7)
    assert p.bilateral.shape[0] == 0


def test_bilateral_rows_are_handed_over_only_when_there_are_some() -> None:
    rows = _rows(2)
    assert problem_from_rows(rows, name="x", bilateral=np.zeros((0, 3))).bilateral.shape[0] == 0
    p = problem_from_rows(rows, name="x", bilateral=np.array([[1.0, 0.0, 0.0]]))
    np.testing.assert_array_equal(p.bilateral, [[1.0, 0.0, 0.0]])
