"""Progress reports of the native runs (``sample``, ``reach``,
``impactset.ray.reach``): the native call reports samples newly done to a
callback; this module turns the user's ``progress`` argument into that
callback and the closer to call when the run ends. ``progress=True`` is a
bar on standard error: tqdm's when installed, else a plain one."""

from __future__ import annotations

import sys
from collections.abc import Callable

#: A progress callback taking the samples newly done (None: no reports), and
#: the closer to call once the run ends (None: nothing to close).
Callbacks = tuple[Callable[[int], object] | None, Callable[[], None] | None]


def for_sample(progress: object, samples: Callable[[], int]) -> Callbacks:
    """The callbacks for :func:`impactset.sample`'s ``progress``: a bar for
    True, ``progress(done, total)`` for a callable, none for False or None;
    ``TypeError`` for another kind of value. ``samples()`` gives the run's
    total, asked only when a report needs it."""
    if progress is False or progress is None:
        return None, None
    if progress is True:
        return bar(samples())
    if not callable(progress):
        raise TypeError(
            f"progress: expected True, False or a callable progress(done, total), got {type(progress).__name__}"
        )
    total = samples()
    done = 0

    def report(k: int) -> None:
        nonlocal done
        done += k
        progress(done, total)

    return report, None


def for_batch(progress: object, total: int | None) -> Callbacks:
    """The callbacks for a batch's ``progress`` (:func:`impactset.reach`,
    :func:`impactset.ray.reach`): a bar over ``total`` samples for True
    (None: unknown), none for False or None, else ``progress`` itself,
    called with the samples newly done (the native call checks it)."""
    if progress is True:
        return bar(total or 1)
    if progress is False or progress is None:
        return None, None
    return progress, None  # type: ignore[return-value]


def bar(total: int) -> tuple[Callable[[int], None], Callable[[], None]]:
    """A progress bar over ``total`` samples (at least 1): its update (samples
    newly done) and its closer. tqdm's when installed, else
    :class:`StderrBar`."""
    total = max(int(total), 1)
    try:
        from tqdm.auto import tqdm  # type: ignore[import-not-found]
    except ImportError:
        plain = StderrBar(total)
        return plain.update, plain.close
    tqdm_bar = tqdm(total=total, unit="samples", unit_scale=True, dynamic_ncols=True)
    return tqdm_bar.update, tqdm_bar.close


class StderrBar:
    """A one-line progress bar on standard error, redrawn only when its text
    changes."""

    def __init__(self, total: int) -> None:
        self.total = max(total, 1)
        self.done = 0
        self.last = ""

    def update(self, k: int) -> None:
        """Adds ``k`` samples done and redraws the line if it changed."""
        self.done += k
        width = 30
        filled = width * min(self.done, self.total) // self.total
        line = f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} samples"
        if line != self.last:
            sys.stderr.write(line)
            sys.stderr.flush()
            self.last = line

    def close(self) -> None:
        """Ends the line (nothing when nothing was drawn)."""
        if self.last:
            sys.stderr.write("\n")
            sys.stderr.flush()
