"""The robot importers' doctests need their optional dependencies; without
them the modules are not collected (their tests skip themselves)."""

from __future__ import annotations

from importlib.util import find_spec

collect_ignore = [
    path
    for path, module in (("impactset/mujoco.py", "mujoco"), ("impactset/pinocchio.py", "pinocchio"))
    if find_spec(module) is None
]
