"""The words of selection rules, schedules, backends and precisions are declared once,
in the core: the Literal types of the package and of the stubs spell the
native module's lists, and every word is accepted by ``sample``."""

from __future__ import annotations

import ast
import pathlib
import typing

import impactset
import pytest
from impactset import _impactset

STUBS = pathlib.Path(impactset.__file__).with_name("_impactset.pyi")


def _stub_literal(name: str) -> tuple[str, ...]:
    """The arguments of the stubs' ``name = Literal[...]``."""
    for node in ast.parse(STUBS.read_text()).body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets if isinstance(t, ast.Name)] == [name]:
            return tuple(ast.literal_eval(node.value.slice))
    raise AssertionError(f"{name} not in {STUBS}")


@pytest.mark.parametrize(
    ("literal", "stub", "native"),
    [
        (impactset.SelectionName, "_Selection", _impactset.SELECTIONS),
        (impactset.ScheduleName, "_Schedule", _impactset.SCHEDULES),
        (impactset.BackendName, "_Backend", _impactset.BACKENDS),
        (impactset.PrecisionName, "_Precision", _impactset.PRECISIONS),
    ],
)
def test_literal_types_spell_the_cores_words(literal, stub, native):
    assert typing.get_args(literal) == native
    assert _stub_literal(stub) == native


def test_every_selection_word_runs_and_an_unknown_one_lists_them_all():
    p = impactset.Problem.scene("rocking-block")
    for word in _impactset.SELECTIONS:
        assert impactset.sample(p, 8, selection=word).summary["selection"] == word
    with pytest.raises(ValueError, match="selection: expected one of 'lemke', 'random-lemke', 'all', got 'fast'"):
        impactset.sample(p, 8, selection="fast")


def test_unset_arguments_take_the_cores_defaults():
    # The command line's defaults: seed 0, selection all, the CPU in f64.
    p = impactset.Problem.scene("rocking-block")
    unset = impactset.sample(p, 64)
    given = impactset.sample(p, 64, seed=0, selection="all", backend="cpu", first_index=0)
    assert unset.summary["selection"] == "all" and unset.summary["backend"] == "cpu"
    assert (unset.v_plus == given.v_plus).all()
