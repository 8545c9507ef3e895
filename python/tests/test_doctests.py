"""The examples in the native module's docstrings run (the package's own
.py docstrings are collected by pytest's --doctest-modules)."""

from __future__ import annotations

import doctest

import impactset
import impactset._impactset as native


def test_native_docstring_examples() -> None:
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = finder.find(native, "impactset._impactset", globs={"impactset": impactset})
    for cls in (impactset.Problem, impactset.SampleSet):
        tests += finder.find(cls, f"impactset.{cls.__name__}", module=False, globs={"impactset": impactset})
    seen = set()
    for test in tests:
        if test.examples and test.name not in seen:
            seen.add(test.name)
            runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0
    assert result.attempted >= 12, sorted(seen)
