"""``impactset.extremes`` (``docs/model.md`` §5d): the worst case per
direction, a certified member of the set, the same whatever the thread
count, and stopped by Ctrl-C."""

from __future__ import annotations

import _thread
import threading
import time

import impactset
import numpy as np
import pytest


def test_extremes_beat_the_samples_and_state_their_outcomes() -> None:
    p = impactset.Problem.scene("cube-edge")
    e = impactset.extremes(p, [[0, 0, 1, 0, 0, 0]], random=3, n=256, budget=128, seed=2, threads=1)
    assert e.directions.shape == (4, 6) and e.v_plus.shape == (4, 6)
    assert (e.value >= e.sampled).all()
    # value = cᵀv⁺ of the outcome it names, and the gain is relative to ‖v⁻‖_M.
    np.testing.assert_allclose(e.value, np.einsum("ij,ij->i", e.directions, e.v_plus), rtol=1e-12)
    np.testing.assert_allclose(e.gain, (e.value - e.sampled) / e.scale)
    assert e.scale == pytest.approx(np.sqrt(p.v @ p.M @ p.v))
    assert set(e.origin) <= {"sample", "anchor", "search"}
    assert all(s.shape[1] == p.m for s in e.schedules)
    # No contact approaching, no energy gained.
    assert (e.v_plus @ p.Jn.T >= -1e-9).all()
    assert (np.einsum("ij,jk,ik->i", e.v_plus, p.M, e.v_plus) <= p.v @ p.M @ p.v * (1 + 1e-9)).all()
    again = impactset.extremes(p, [[0, 0, 1, 0, 0, 0]], random=3, n=256, budget=128, seed=2, threads=2)
    np.testing.assert_array_equal(again.v_plus, e.v_plus)
    np.testing.assert_array_equal(again.index, e.index)


def test_bad_directions_are_named() -> None:
    p = impactset.Problem.scene("cube-edge")
    with pytest.raises(ValueError, match="directions"):
        impactset.extremes(p, [[1.0, 0.0]])
    with pytest.raises(ValueError, match="directions"):
        impactset.extremes(p)
    with pytest.raises(ValueError, match="schedule"):
        impactset.extremes(p, random=1, schedule="fast")  # type: ignore[arg-type]


@pytest.mark.parametrize("random", [2**64 - 1, 100_000_000_000, 2**17 + 1])
def test_a_random_count_past_the_limit_is_a_value_error_not_a_panic(random: int) -> None:
    p = impactset.Problem.scene("cube-edge")
    with pytest.raises(ValueError, match=rf"^random={random}: at most 131072 \(2¹⁷\) directions"):
        impactset.extremes(p, random=random)


def test_a_budget_past_the_limit_is_a_value_error_before_anything_runs() -> None:
    p = impactset.Problem.scene("cube-edge")
    # 2⁶⁴ − 1 schedules would search forever; the limit is one direction's
    # 2²⁴ selection streams (docs/model.md §5d).
    with pytest.raises(ValueError, match=r"^budget=18446744073709551615: at most 16777216 \(2²⁴\)"):
        impactset.extremes(p, random=1, budget=2**64 - 1)
    with pytest.raises(ValueError, match=r"^budget=16777217: "):
        impactset.extremes(p, random=1, budget=2**24 + 1)


def test_a_non_finite_direction_is_named() -> None:
    p = impactset.Problem.scene("cube-edge")
    with pytest.raises(ValueError, match="^directions"):
        impactset.extremes(p, [[np.nan, 0, 0, 0, 0, 1]])


def test_ctrl_c_stops_a_long_search(sigint: None) -> None:
    p = impactset.Problem.scene("cube-flat")
    timer = threading.Timer(1.0, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        impactset.extremes(p, random=50, n=1024, budget=1 << 20)
    timer.cancel()
    assert time.monotonic() - start < 30
