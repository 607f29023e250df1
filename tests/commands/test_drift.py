"""`quotefinder drift RUN [REFRESHED]` (commands/drift.py): today's `python sweep.py RUN --drift [REFRESHED]`."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import checked_help
from quotefinder.commands.drift import build_parser, main
from quotefinder.commands.sweeping import completed, verb_of


def test_help_fits_a_screen_and_ends_with_two_examples(capsys: pytest.CaptureFixture[str]) -> None:
    text = checked_help(main, [], build_parser(), capsys)
    assert "--at H,A" in text and "--baseline" not in text and "--strict" not in text


def test_refreshed_is_the_run_it_compares_with_or_the_one_run_json_names() -> None:
    given = completed(build_parser().parse_args(["runs/new", "runs/old"]))
    assert (given.runs, given.drift, verb_of(given)) == ([Path("runs/new")], Path("runs/old"), "drift")
    alone = completed(build_parser().parse_args(["runs/new"]))
    assert (alone.drift, verb_of(alone)) == (True, "drift")


def test_a_run_that_refreshes_nothing_is_refused_by_the_verbs_name(ten: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ten.parent.parent)
    assert main(["runs/ten", "--no-plots"]) == 2
    assert capsys.readouterr().err.startswith("quotefinder drift: runs/ten is not a refresh")
