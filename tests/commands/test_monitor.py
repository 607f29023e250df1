"""`quotefinder monitor RUN REFRESH [REFRESH...]` (commands/monitor.py): today's `python sweep.py --monitor`."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import checked_help
from quotefinder.commands.monitor import build_parser, main
from quotefinder.commands.sweeping import completed, out_of, verb_of


def test_help_fits_a_screen_and_ends_with_two_examples(capsys: pytest.CaptureFixture[str]) -> None:
    text = checked_help(main, [], build_parser(), capsys)
    assert "--max-wrong-rate ALPHA" in text and "--grid" not in text and "--no-plots" not in text


def test_it_watches_the_runs_given_at_one_cell() -> None:
    args = completed(build_parser().parse_args(["runs/a", "runs/a-1", "--at", "0.3,0.9", "--max-wrong-rate", "0.05"]))
    args.run = args.runs[0]
    assert (verb_of(args), args.at, args.max_wrong_rate) == ("monitor", "0.3,0.9", 0.05)
    assert out_of(args) == Path("reports", "a-monitor")


def test_the_cell_and_the_rate_are_required(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs/ten", "runs/ten-one-shot"]) == 2
    assert "quotefinder monitor: error: a monitor watches one cell against one rate" in capsys.readouterr().err
