"""Long calls release the GIL, report progress only when asked, and stop
on Ctrl-C (KeyboardInterrupt) long before they would have finished."""

from __future__ import annotations

import _thread
import threading
import time

import impactset
import pytest

# A run of this size takes minutes (disk-stack, every solution of each step).
LONG = 1 << 24


def test_another_thread_runs_during_sample() -> None:
    p = impactset.Problem.scene("compass-gait")
    ticks = 0
    stop = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1

    during: list[int] = []

    def progress(k: int) -> None:
        during.append(ticks)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        # About 0.4 s on one core, so the binding reports progress several
        # times (it polls every 50 ms); 2**15 samples took 60 ms, and a run
        # that finished between two polls reported once and proved nothing.
        impactset._impactset.sample_native(p, 1 << 18, progress=progress)
    finally:
        stop.set()
        counter.join()
    assert len(during) >= 2, f"one progress report only: {during}"
    # The counting thread advanced between the sampler's progress reports:
    # it held the interpreter while the samples were being computed.
    assert during[-1] > during[0]


def test_sample_in_a_background_thread_leaves_the_caller_free() -> None:
    p = impactset.Problem.scene("compass-gait")
    result: dict[str, object] = {}
    worker = threading.Thread(target=lambda: result.update(s=impactset.sample(p, 1 << 15, seed=4)))
    worker.start()
    spins = 0
    while worker.is_alive():
        spins += 1
    worker.join()
    assert spins > 1000
    reference = impactset.sample(p, 1 << 15, seed=4)
    assert result["s"].v_plus.tobytes() == reference.v_plus.tobytes()  # type: ignore[attr-defined]


def test_progress_callback_counts_every_sample() -> None:
    seen: list[int] = []
    impactset._impactset.sample_native(impactset.Problem.scene("rocking-block"), 5000, progress=seen.append)
    assert sum(seen) == 5000 and all(k > 0 for k in seen)


def test_progress_bar_only_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    p = impactset.Problem.scene("rocking-block")
    impactset.sample(p, 2000)
    assert capsys.readouterr().err == ""
    impactset.sample(p, 2000, progress=True)
    assert "2000" in capsys.readouterr().err or "2.00k" in capsys.readouterr().err


def test_ctrl_c_stops_a_long_sample(sigint: None) -> None:
    p = impactset.Problem.scene("disk-stack")
    done: list[int] = []
    timer = threading.Timer(1.0, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        impactset._impactset.sample_native(p, LONG, progress=done.append)
    elapsed = time.monotonic() - start
    timer.cancel()
    # Stopped early: far fewer samples than asked for were computed.
    assert sum(done) < LONG // 100
    # And the interpreter is usable again.
    assert len(impactset.sample(impactset.Problem.scene("slope-point"), 8)) == 8
    assert elapsed < 60


def test_ctrl_c_during_a_plot_leaves_no_file(tmp_path, sigint: None) -> None:  # type: ignore[no-untyped-def]
    s = impactset.sample(impactset.Problem.scene("disk-stack"), 256)
    path = tmp_path / "set.svg"
    timer = threading.Timer(0.05, _thread.interrupt_main)
    timer.start()
    try:
        s.plot(path, trajectories=256)
    except KeyboardInterrupt:
        interrupted = True
    else:
        interrupted = False
    timer.cancel()
    time.sleep(0.1)
    leftovers = [f.name for f in tmp_path.iterdir() if f.name != "set.svg"]
    assert leftovers == []
    if interrupted:
        # Either nothing or the whole figure.
        assert not path.exists() or path.read_text().rstrip().endswith("</svg>")
    else:
        assert path.read_text().rstrip().endswith("</svg>")


def _without_steps(scene: str, shrink: float) -> impactset.Problem:
    """`scene` with no step cap and `shrink` times its step size: a run derives
    the cap from a pilot run of 64 samples under its own rule (docs/model.md
    §11), and with a small enough step every pilot impact runs to the
    pilot's cap of 10 000 steps."""
    p = impactset.Problem.scene(scene)
    return impactset.Problem.from_arrays(
        p.M, p.v, p.Jn, p.Jt, p.mu, friction_directions=p.friction_directions, step_size=p.step_size * shrink
    )


def test_the_pilot_run_keeps_to_the_threads_asked_for() -> None:
    q = _without_steps("rocking-block", 1e-4)
    assert q.steps is None
    wall, cpu = time.perf_counter(), time.process_time()
    with pytest.warns(UserWarning):
        impactset.sample(q, 1, threads=1, selection="random-lemke")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    # One worker: the process's CPU time is its wall time (two workers on
    # two cores would make it about twice that).
    assert cpu < 1.4 * wall, f"CPU {cpu:.2f} s in {wall:.2f} s: more than one worker"


def test_ctrl_c_stops_the_pilot_run(sigint: None) -> None:
    q = _without_steps("cube-flat", 1e-4)
    # The time of one 10 000-step sample (the pilot's cap for a sample).
    one = time.perf_counter()
    with pytest.warns(UserWarning):
        impactset.sample(q, 1, steps=10_000, threads=1, selection="random-lemke")
    one = time.perf_counter() - one
    # Uninterrupted, the call takes about 4.3 such samples: the pilot's
    # budget of 32 768 steps (every round and sample together, none of
    # them more than 256 steps here), then the sample at the derived
    # K = 10 000. The interrupt comes half a sample in, in the pilot's first
    # round, whatever the machine's speed (a fixed delay outlasted the whole
    # call on a fast machine, and the interrupt then hit pytest itself).
    timer = threading.Timer(one / 2, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        impactset.sample(q, 1, threads=1, selection="random-lemke")
    elapsed = time.monotonic() - start
    timer.cancel()
    # It stopped within a few pilot samples of the interrupt.
    assert elapsed < 3 * one, f"{elapsed:.2f} s; one 10 000-step sample {one:.2f} s"
