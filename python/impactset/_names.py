"""The words that name a selection rule, a backend and a precision, as
``typing.Literal`` types for signatures and stubs.

The library declares each list once (``Selection``, ``BackendChoice`` and
``Precision`` in the Rust core); the native module exports them as
``SELECTIONS``, ``BACKENDS`` and ``PRECISIONS``, and a test checks that
these types spell the same words in the same order.
"""

from __future__ import annotations

from typing import Literal

SelectionName = Literal["lemke", "random-lemke", "all"]
"""A step-selection rule: ``"all"`` (the default), ``"random-lemke"``, ``"lemke"``."""

BackendName = Literal["cpu", "gpu", "auto"]
"""A backend: ``"cpu"`` (the default), ``"gpu"``, ``"auto"``."""

PrecisionName = Literal["f32", "f64"]
"""A GPU precision: ``"f32"`` or ``"f64"``."""
