"""Progress reports of the long runs (``sample``, ``reach``,
``impactset.ray.reach``, ``impactset.mujoco.rollouts``): the native call
reports items newly done to a callback; this module turns the user's
``progress`` argument into that callback and the closer to call when the run
ends. ``progress=True`` is a bar on standard error: tqdm's when installed,
else a plain one. A callable is called as ``progress(done, total)`` by every
entry point."""

from __future__ import annotations

import inspect
import sys
import warnings
from collections.abc import Callable

#: A progress callback taking the items newly done (None: no reports), and
#: the closer to call once the run ends (None: nothing to close).
Callbacks = tuple[Callable[[int], object] | None, Callable[[], None] | None]


def for_sample(progress: object, samples: Callable[[], int], unit: str = "samples") -> Callbacks:
    """The callbacks for a run's ``progress``: a bar over ``samples()``
    ``unit`` for True, ``progress(done, total)`` for a callable, none for
    False or None; ``TypeError`` for another kind of value. ``samples()``
    gives the run's total, asked only when a report needs it."""
    if progress is False or progress is None:
        return None, None
    if progress is True:
        return bar(samples(), unit)
    if not callable(progress):
        raise TypeError(
            f"progress: expected True, False or a callable progress(done, total), got {type(progress).__name__}"
        )
    return counted(progress, samples()), None


def for_batch(progress: object, total: int | None) -> Callbacks:
    """The callbacks for a batch's ``progress`` (:func:`impactset.reach`,
    :func:`impactset.ray.reach`): a bar over ``total`` samples for True
    (None: unknown), none for False or None, ``progress(done, total)`` for a
    callable of two arguments. A callable of one argument is the batches'
    former form, ``progress(newly_done)``: it is still called so, with a
    ``DeprecationWarning``. ``TypeError`` for another kind of value."""
    if progress is True:
        return bar(total or 1)
    if progress is False or progress is None:
        return None, None
    if not callable(progress):
        raise TypeError(
            f"progress: expected True, False or a callable progress(done, total), got {type(progress).__name__}"
        )
    if takes_one_argument(progress):
        warnings.warn(
            "progress: a callable of one argument (the samples newly done) is deprecated; "
            "progress is called as progress(done, total), as in impactset.sample",
            DeprecationWarning,
            stacklevel=3,
        )
        return progress, None  # type: ignore[return-value]
    return counted(progress, total), None


def counted(progress: Callable[[int, int | None], object], total: int | None) -> Callable[[int], None]:
    """A callback taking the items newly done that calls
    ``progress(done, total)`` with the items done so far."""
    done = 0

    def report(k: int) -> None:
        nonlocal done
        done += k
        progress(done, total)

    return report


def takes_one_argument(f: Callable[..., object]) -> bool:
    """Whether ``f`` accepts one positional argument but not two (the
    former batch form ``progress(newly_done)``); False when its signature
    cannot be read."""
    try:
        signature = inspect.signature(f)
    except (TypeError, ValueError):
        return False

    def accepts(*args: int) -> bool:
        try:
            signature.bind(*args)
        except TypeError:
            return False
        return True

    return accepts(0) and not accepts(0, 0)


def bar(total: int, unit: str = "samples") -> tuple[Callable[[int], None], Callable[[], None]]:
    """A progress bar over ``total`` ``unit`` (at least 1): its update (items
    newly done) and its closer. tqdm's when installed, else
    :class:`StderrBar`."""
    total = max(int(total), 1)
    try:
        from tqdm.auto import tqdm  # type: ignore[import-not-found]
    except ImportError:
        plain = StderrBar(total, unit)
        return plain.update, plain.close
    tqdm_bar = tqdm(total=total, unit=unit, unit_scale=True, dynamic_ncols=True)
    return tqdm_bar.update, tqdm_bar.close


class StderrBar:
    """A one-line progress bar on standard error over ``total`` ``unit``,
    redrawn only when its text changes."""

    def __init__(self, total: int, unit: str = "samples") -> None:
        self.total = max(total, 1)
        self.unit = unit
        self.done = 0
        self.last = ""

    def update(self, k: int) -> None:
        """Adds ``k`` items done and redraws the line if it changed."""
        self.done += k
        width = 30
        filled = width * min(self.done, self.total) // self.total
        line = f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {self.unit}"
        if line != self.last:
            sys.stderr.write(line)
            sys.stderr.flush()
            self.last = line

    def close(self) -> None:
        """Ends the line (nothing when nothing was drawn)."""
        if self.last:
            sys.stderr.write("\n")
            sys.stderr.flush()
