"""Batch reachability on a Ray cluster: :func:`reach` splits the states of
a batch into shards, runs each shard as a Ray task (the Rust core inside,
the GIL released) and joins the shards' rows into one :class:`impactset.Reach`.

State ``k`` samples with the state seed of ``(seed, k)`` (``docs/model.md``
§12), so the table is the same, bit for bit, as :func:`impactset.reach`'s
on one machine, whatever the number of tasks, the nodes or a retried task.

Ray is imported only when a batch runs; install it with
``pip install "ray>=2.9,<3"`` (or the package's ``ray`` extra). On a
cluster started with ``ray start --head`` and ``ray start --address=HEAD:6379``
on the other nodes::

    import impactset, impactset.ray
    p = impactset.Problem.scene("compass-gait")
    r = impactset.ray.reach(p, 1024, velocities=V, address="auto")
    r.to_pandas().to_parquet("reach.parquet")
"""

from ._ray_reach import reach, shard_ranges

__all__ = ["reach", "shard_ranges"]
