"""Progress reports (impactset._progress): one bar for sample, reach and
ray.reach, and the callbacks each front end hands the native call."""

from __future__ import annotations

import sys

import impactset
import impactset._progress as progress
import numpy as np
import pytest


@pytest.fixture
def no_tqdm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)


def test_the_plain_bar_redraws_only_when_its_text_changes(capsys: pytest.CaptureFixture[str]) -> None:
    bar = progress.StderrBar(60)
    bar.update(1)  # 0 of 30 marks: drawn once
    bar.update(1)  # the count changed: drawn again
    bar.close()
    err = capsys.readouterr().err
    assert err == "\r[" + "." * 30 + "] 1/60 samples\r[#" + "." * 29 + "] 2/60 samples\n"
    progress.StderrBar(5).close()  # nothing drawn, nothing to end
    assert capsys.readouterr().err == ""


def test_sample_and_reach_draw_the_same_bar(no_tqdm: None, capsys: pytest.CaptureFixture[str]) -> None:
    p = impactset.Problem.scene("compass-gait")
    impactset.sample(p, 64, progress=True)
    sample_err = capsys.readouterr().err
    impactset.reach(p, 32, velocities=np.array([p.v, p.v]), progress=True)
    reach_err = capsys.readouterr().err
    assert sample_err.endswith("] 64/64 samples\n") and "#" * 30 in sample_err
    assert reach_err.endswith("] 64/64 samples\n") and "#" * 30 in reach_err


def test_bar_totals_are_at_least_one(no_tqdm: None) -> None:
    for total in (0, -3):
        update, close = progress.bar(total)
        assert update.__self__.total == 1  # type: ignore[attr-defined]
        close()
    update, _ = progress.for_batch(True, None)
    assert update.__self__.total == 1  # type: ignore[union-attr]


def test_a_sample_callable_sees_done_and_total() -> None:
    seen: list[tuple[int, int]] = []
    report, close = progress.for_sample(lambda done, total: seen.append((done, total)), lambda: 10)
    assert close is None and report is not None
    report(3)
    report(7)
    assert seen == [(3, 10), (10, 10)]


def test_no_progress_asks_for_no_total() -> None:
    def total() -> int:
        raise AssertionError("not needed")

    assert progress.for_sample(False, total) == (None, None)
    assert progress.for_sample(None, total) == (None, None)
    with pytest.raises(TypeError, match="progress: expected True, False or a callable"):
        progress.for_sample("yes", total)


def test_a_batch_callable_sees_done_and_total_and_the_former_form_is_deprecated() -> None:
    seen: list[tuple[int, int | None]] = []
    report, close = progress.for_batch(lambda done, total: seen.append((done, total)), 10)
    assert close is None and report is not None
    report(4)
    report(6)
    assert seen == [(4, 10), (10, 10)]
    newly: list[int] = []
    with pytest.warns(DeprecationWarning, match="one argument"):
        assert progress.for_batch(newly.append, 10) == (newly.append, None)
    assert progress.for_batch(False, 10) == (None, None)
    assert progress.for_batch(None, None) == (None, None)
    with pytest.raises(TypeError, match="progress: expected True, False or a callable"):
        progress.for_batch(3, 10)
