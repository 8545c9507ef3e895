"""The words that name a selection rule, a schedule, a backend and a precision, as
``typing.Literal`` types for signatures and stubs.

The library declares each list once (``Selection``, ``BackendChoice`` and
``Precision`` in the Rust core); the native module exports them as
``SELECTIONS``, ``SCHEDULES``, ``BACKENDS`` and ``PRECISIONS``, and a test checks that
these types spell the same words in the same order.
"""

from __future__ import annotations

from typing import Literal

SelectionName = Literal["lemke", "random-lemke", "all"]
"""A step-selection rule: ``"all"`` (the default), ``"random-lemke"``, ``"lemke"``."""

ScheduleName = Literal["mixed", "uniform", "extreme", "ordered", "held"]
"""A law of the impulse caps (``docs/model.md`` §5c): ``"mixed"`` (the
default: reaches the extremes of the set), ``"uniform"`` (Halm & Posa's
Algorithm 2), ``"extreme"``, ``"ordered"``, ``"held"``."""

BackendName = Literal["cpu", "gpu", "auto"]
"""A backend: ``"cpu"`` (the default), ``"gpu"``, ``"auto"``."""

PrecisionName = Literal["f32", "f64"]
"""A GPU precision: ``"f32"`` or ``"f64"``."""
