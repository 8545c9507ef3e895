"""`impactset.ray.reach` on a real local Ray cluster (2 CPUs): the table
equals the local `impactset.reach` table bit for bit, also when a worker
dies in the middle of the batch and its task is retried."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import impactset
import impactset.ray
import numpy as np
import pytest
import ray  # scripts/test-all.sh installs it (pip install "ray>=2.9,<3")
from impactset.ray import shard_ranges
from test_reach import assert_same_table, gait, twin, velocities

SAMPLES = 64


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def test_shard_ranges_partition_the_states() -> None:
    for states in [0, 1, 2, 7, 100]:
        for shards in range(1, 9):
            ranges = shard_ranges(states, shards)
            assert ranges[0][0] == 0 and ranges[-1][1] == states
            assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:], strict=False))
            assert len(ranges) == max(1, min(states, shards))
    with pytest.raises(ValueError, match="^num_tasks: "):
        shard_ranges(3, 0)


def test_ray_table_equals_the_local_table(cluster: None) -> None:
    p = gait()
    V = velocities(p, 11, seed=21)
    local = impactset.reach(p, SAMPLES, velocities=V, seed=7, keep_sets=True)
    done: list[int] = []
    remote = impactset.ray.reach(
        p, SAMPLES, velocities=V, seed=7, keep_sets=True, num_tasks=4, progress=lambda k, total: done.append(k)
    )
    assert_same_table(remote, local)
    assert remote.sets is not None and local.sets is not None
    assert [s.tobytes() for s in remote.sets] == [s.tobytes() for s in local.sets]
    assert remote.run["shards"] == 4 and remote.run["states"] == 11
    assert done[-1] == 11 * SAMPLES


def test_extremes_and_schedule_pass_through(cluster: None) -> None:
    p = impactset.Problem.scene("cube-edge")
    V = velocities(p, 3, seed=4)
    options = {"velocities": V, "seed": 2, "selection": "random-lemke", "schedule": "uniform", "extremes": True}
    local = impactset.reach(p, 16, extremes_budget=8, **options)
    remote = impactset.ray.reach(p, 16, extremes_budget=8, num_tasks=2, **options)
    assert_same_table(remote, local)
    assert "v0_extreme" in remote.columns and "extremes_gap" in remote.columns
    assert remote.run["schedule"] == "uniform"


def test_a_list_of_problems_with_the_default_split(cluster: None) -> None:
    p = gait()
    problems = [twin(p, v) for v in velocities(p, 5, seed=3)]
    local = impactset.reach(problems, SAMPLES, seed=1, directions={"d": [1, 0, -1, 0]}, baselines=False)
    remote = impactset.ray.reach(problems, SAMPLES, seed=1, directions={"d": [1, 0, -1, 0]}, baselines=False)
    assert_same_table(remote, local)
    # Four shards per cluster CPU, at most one per state.
    assert remote.run["shards"] == 5


def kill_the_first_try(marker: Path) -> Callable[[int, int], None]:
    """A shard hook that ends its worker process the first time the shard
    of state 0 starts (a crash, as a lost node or an OOM kill)."""

    def hook(start: int, end: int) -> None:
        if start == 0 and not marker.exists():
            marker.write_text(str(os.getpid()))
            os._exit(1)

    return hook


def test_a_killed_worker_is_retried_and_the_table_is_unchanged(cluster: None, tmp_path: Path) -> None:
    p = gait()
    V = velocities(p, 6, seed=8)
    local = impactset.reach(p, SAMPLES, velocities=V, seed=3)
    marker = tmp_path / "killed"
    remote = impactset.ray.reach(
        p, SAMPLES, velocities=V, seed=3, num_tasks=3, max_retries=2, _shard_hook=kill_the_first_try(marker)
    )
    assert marker.exists() and int(marker.read_text()) != os.getpid()
    assert_same_table(remote, local)


def test_without_retries_a_killed_worker_fails_the_batch(cluster: None, tmp_path: Path) -> None:
    p = gait()
    with pytest.raises(ray.exceptions.RayError):
        impactset.ray.reach(
            p,
            SAMPLES,
            velocities=velocities(p, 2),
            num_tasks=2,
            max_retries=0,
            _shard_hook=kill_the_first_try(tmp_path / "killed"),
        )


def test_cpus_per_task_beyond_every_node_is_refused_not_a_hang(cluster: None) -> None:
    p = gait()
    message = r"^cpus_per_task: 1000 CPUs per task, but the largest node of the cluster has 2 \(2 in all\)"
    with pytest.raises(ValueError, match=message):
        impactset.ray.reach(p, SAMPLES, velocities=velocities(p, 2), cpus_per_task=1000)
    # What the cluster has runs.
    assert len(impactset.ray.reach(p, SAMPLES, velocities=velocities(p, 2), cpus_per_task=2)) == 2


def test_num_tasks_beyond_the_states_is_capped_at_one_per_state(cluster: None) -> None:
    p = gait()
    V = velocities(p, 3, seed=5)
    remote = impactset.ray.reach(p, SAMPLES, velocities=V, seed=2, num_tasks=10**9)
    assert remote.run["shards"] == 3
    assert_same_table(remote, impactset.reach(p, SAMPLES, velocities=V, seed=2))
    assert shard_ranges(3, 10**18) == [(0, 1), (1, 2), (2, 3)]


def test_arguments_are_checked_before_any_task() -> None:
    p = gait()
    with pytest.raises(ValueError, match="^n: "):
        impactset.ray.reach(p, 0)
    with pytest.raises(ValueError, match="^num_tasks: "):
        impactset.ray.reach(p, 8, num_tasks=0)
    with pytest.raises(ValueError, match="^cpus_per_task: "):
        impactset.ray.reach(p, 8, cpus_per_task=0)
    with pytest.raises(ValueError, match=r"^velocities: expected shape \(K, 4\)"):
        impactset.ray.reach(p, 8, velocities=np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"^directions\['x'\]"):
        impactset.ray.reach(p, 8, directions={"x": [1.0]})
    with pytest.raises(ValueError, match="^extremes_budget: "):
        impactset.ray.reach(p, 8, extremes_budget=8)


def test_without_ray_the_error_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ImportError, match=r"pip install 'ray>=2.9,<3'"):
        impactset.ray.reach(gait(), 8)


def test_the_shards_warnings_are_raised_in_the_driver(cluster: None) -> None:
    # State 1 moves away from its contact: the shard that runs it warns in
    # its worker, and the driver raises that warning where its user sees it.
    p = impactset.Problem.scene("slope-point-stick")
    with pytest.warns(UserWarning, match=r"state 1: no contact is colliding"):
        impactset.ray.reach(p, 8, velocities=np.array([p.v, -p.v, p.v]), num_tasks=3)
