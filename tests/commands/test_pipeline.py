"""`quotefinder pipeline show [SYSTEM]` (commands/pipeline.py): a system's default pipeline file."""

from __future__ import annotations

import pytest

from conftest import checked_help
from quotefinder.commands.pipeline import build_parser, main
from quotefinder.core.pipelinefile import default_file
from quotefinder.core.registry import known_systems


def test_help_fits_a_screen_and_ends_with_two_examples(capsys: pytest.CaptureFixture[str]) -> None:
    text = checked_help(main, ["show"], build_parser(), capsys)
    assert "quote-answer" in text


@pytest.mark.parametrize("system", known_systems())
def test_show_prints_the_systems_default_file(system: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", system]) == 0
    assert capsys.readouterr().out == default_file(system)


def test_an_unknown_system_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "nope"]) == 2
    assert capsys.readouterr().err.startswith("quotefinder pipeline show: ")
