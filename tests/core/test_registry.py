"""The registry of systems: the built-ins listed with the default first, a clear KeyError for an unknown name,
register/unregister for a system made in the process, and a name that is taken is refused."""

from __future__ import annotations

import pytest

from quotefinder.core import registry
from quotefinder.core.registry import BUILT_IN, DEFAULT_SYSTEM, axis_spec, known_systems, register, system, unregister
from quotefinder.recipe.system import QUOTE_FINDER


def test_the_built_in_systems_are_listed_the_default_first() -> None:
    names = known_systems()
    assert names[0] == DEFAULT_SYSTEM == QUOTE_FINDER.name
    assert set(names) >= {"quote-finder", "quote-answer", "one-shot"}
    assert len(names) >= len(BUILT_IN)
    assert system() is system(DEFAULT_SYSTEM) is QUOTE_FINDER


def test_an_unknown_system_is_a_key_error_naming_the_known_ones() -> None:
    with pytest.raises(KeyError) as caught:
        system("no-such-system")
    message = str(caught.value)
    assert "'no-such-system'" in message
    assert all(name in message for name in known_systems())


def test_a_system_registered_in_the_process_is_found_then_gone_when_unregistered() -> None:
    mine = _renamed(QUOTE_FINDER, "mine-for-a-test")
    try:
        assert register(mine) is mine  # returned, so that it can decorate an assignment
        assert register(mine) is mine  # the same object again: nothing to refuse
        assert system("mine-for-a-test") is mine
        assert known_systems()[0] == DEFAULT_SYSTEM and known_systems()[-1] == "mine-for-a-test"
    finally:
        unregister("mine-for-a-test")
    assert "mine-for-a-test" not in known_systems()
    unregister("mine-for-a-test")  # nothing registered under that name: nothing happens


def test_a_name_that_is_taken_is_refused_and_the_held_system_kept() -> None:
    impostor = _renamed(QUOTE_FINDER, DEFAULT_SYSTEM)
    assert impostor is not QUOTE_FINDER
    with pytest.raises(ValueError, match="'quote-finder' is already registered"):
        register(impostor)
    assert system(DEFAULT_SYSTEM) is QUOTE_FINDER


def test_an_axis_is_found_by_its_name_and_an_unknown_one_names_the_axes() -> None:
    first = QUOTE_FINDER.axes[0]
    assert axis_spec(QUOTE_FINDER, first.name) is first
    with pytest.raises(KeyError) as caught:
        axis_spec(QUOTE_FINDER, "no-such-axis")
    assert all(spec.name in str(caught.value) for spec in QUOTE_FINDER.axes)


def test_the_core_imports_no_system_until_asked() -> None:
    """The built-ins are named as strings ("module:attribute"), so that the core imports none of them."""
    assert all(":" in spec and spec.startswith("quotefinder.") for spec in BUILT_IN)
    assert BUILT_IN[0].endswith(":QUOTE_FINDER")
    assert registry.GROUP == "quotefinder.systems"


class _Renamed:
    """A system that answers as `wrapped` does, under another name."""

    def __init__(self, wrapped: object, name: str) -> None:
        self._wrapped, self.name = wrapped, name

    def __getattr__(self, attribute: str) -> object:
        return getattr(self._wrapped, attribute)


def _renamed(wrapped: object, name: str) -> object:
    return _Renamed(wrapped, name)
