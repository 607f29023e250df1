"""`quotefinder review RUN` (commands/review.py): ask for what the grid lacks, then write the sweep's report."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import checked_help
from quotefinder.commands.review import build_parser, main
from quotefinder.commands.sweeping import completed, verb_of


def test_help_fits_a_screen_and_ends_with_two_examples(capsys: pytest.CaptureFixture[str]) -> None:
    text = checked_help(main, [], build_parser(), capsys)
    assert "then sweep RUN" in text and "--at" not in text


def test_review_is_a_sweep_that_asks_first() -> None:
    args = completed(build_parser().parse_args(["runs/mine"]))
    assert verb_of(args) == "review"


def test_a_run_with_nothing_to_ask_is_swept(ten: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo run is labelled and judged: nothing is asked, and the report is the sweep's."""
    monkeypatch.chdir(ten.parent.parent)
    asked: list[str] = []
    assert main(["runs/ten", "--no-plots", "--out", "reviewed"], ask=lambda prompt: asked.append(prompt) or "") == 0
    assert asked == []
    assert Path("reviewed", "summary.md").is_file() and Path("reviewed", "grid.csv").is_file()
