"""The GPU backend from Python: the CPU's samples up to round-off (f64).
Skipped without a Vulkan adapter unless IMPACTSET_REQUIRE_GPU=1."""

from __future__ import annotations

import os

import impactset
import numpy as np
import pytest


def gpu_sample(problem: impactset.Problem, n: int, **kwargs: object) -> impactset.SampleSet:
    os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
    try:
        return impactset.sample(problem, n, backend="gpu", precision=None, **kwargs)  # type: ignore[arg-type]
    except RuntimeError as e:
        if "backend='gpu'" in str(e) and os.environ.get("IMPACTSET_REQUIRE_GPU") != "1":
            pytest.skip(f"no GPU adapter: {e}")
        raise


def test_gpu_matches_cpu() -> None:
    p = impactset.Problem.scene("rocking-block")
    g = gpu_sample(p, 512, selection="random-lemke", seed=3)
    c = impactset.sample(p, 512, selection="random-lemke", seed=3)
    assert g.summary["backend"].startswith("gpu")
    assert np.array_equal(g.accepted, c.accepted)
    tol = 1e-9 if g.summary["precision"] == "f64" else 1e-3
    assert np.max(np.abs(g.v_plus - c.v_plus)) <= tol * max(1.0, np.max(np.abs(c.v_plus)))
