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


def test_f32_samples_the_host_ran_again_are_counted_and_accepted() -> None:
    """In f32 a sample that ends unaccepted runs again on the CPU: cube-flat's
    40-row f32 tableaus leave some (docs/gpu.md), the summary counts them, and
    the GPU run accepts every sample the CPU accepts; a CPU run counts none."""
    p = impactset.Problem.scene("cube-flat")
    os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
    try:
        g = impactset.sample(p, 512, backend="gpu", precision="f32", selection="random-lemke", seed=3)
    except RuntimeError as e:
        if "backend='gpu'" in str(e) and os.environ.get("IMPACTSET_REQUIRE_GPU") != "1":
            pytest.skip(f"no GPU adapter: {e}")
        raise
    c = impactset.sample(p, 512, selection="random-lemke", seed=3)
    assert g.summary["host_reruns"] > 0
    assert c.summary["host_reruns"] == 0
    assert g.summary["accepted"] == c.summary["accepted"]


def test_gpu_batch_matches_cpu() -> None:
    p = impactset.Problem.scene("compass-gait")
    V = np.asarray(p.v) * np.linspace(0.8, 1.2, 3)[:, None]
    os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
    try:
        g = impactset.reach(p, 256, velocities=V, backend="gpu", selection="random-lemke", keep_sets=True)
    except RuntimeError as e:
        if "backend='gpu'" in str(e) and os.environ.get("IMPACTSET_REQUIRE_GPU") != "1":
            pytest.skip(f"no GPU adapter: {e}")
        raise
    c = impactset.reach(p, 256, velocities=V, selection="random-lemke", keep_sets=True)
    assert g.run["backend"].startswith("gpu") and g.columns == c.columns
    for name in ["state", "seed", "samples", "accepted", "unterminated", "inaccurate"]:
        assert np.array_equal(g[name], c[name]), name
    tol = 1e-9 if g.run["precision"] == "f64" else 1e-3
    assert g.sets is not None and c.sets is not None
    for a, b in zip(g.sets, c.sets, strict=True):
        assert np.max(np.abs(a - b)) <= tol * max(1.0, np.max(np.abs(b)))
    assert np.allclose(g["v1_max"], c["v1_max"], rtol=0, atol=tol)


def test_gpu_all_with_restitution_matches_cpu() -> None:
    """``all`` with restitution runs on the GPU (docs/gpu.md) and gives the
    CPU's samples: the cradle bouncing on frictionless contacts, and a point
    that slides down a slope and bounces, whose expansion widens its
    friction cone (a twinned step); on a step of 100 or more mode tuples it
    is refused with an error that says so."""
    slope = impactset.Problem.scene("slope-point-slide").with_restitution(0.5)
    # The cradle at the inelastic step it is built from (h = 0.25, K = 40),
    # not its expansion step (docs/model.md §4b): this compares what the
    # shaders compute, and lavapipe runs the fine step for minutes.
    cradle = (impactset.Problem.scene("cradle"), {"step_size": 0.25, "steps": 40})
    for p, steps in [cradle, (slope, {})]:
        g = gpu_sample(p, 64, selection="all", seed=5, **steps)
        c = impactset.sample(p, 64, selection="all", seed=5, **steps)  # type: ignore[arg-type]
        assert g.summary["backend"].startswith("gpu")
        assert np.array_equal(g.accepted, c.accepted)
        deviation = np.max(np.abs(g.v_plus - c.v_plus), axis=1) / max(1.0, np.max(np.abs(c.v_plus)))
        if g.summary["precision"] == "f64":
            assert np.max(deviation) <= 1e-9
        else:
            # f32 on the cradle: its outcome turns on f32's rounding of
            # resting contacts (docs/gpu.md).
            assert np.mean(deviation <= 1e-3) >= 0.9
    edge = impactset.Problem.scene("cube-edge").with_restitution(0.5)
    with pytest.raises(RuntimeError, match="100 mode tuples"):
        gpu_sample(edge, 8, selection="all")
