"""`quotefinder refresh RUN` (commands/refresh.py): today's `python eval.py --refresh RUN --sample N --run NEW`."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import checked_help
from quotefinder import evalcmd
from quotefinder.commands.refresh import build_parser, main


def test_help_fits_a_screen_and_ends_with_two_examples(capsys: pytest.CaptureFixture[str]) -> None:
    text = checked_help(main, [], build_parser(), capsys)
    assert "--sample N" in text and "--pipeline" not in text and "--range" not in text


def test_the_sample_and_the_new_run_are_required(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs/ten", "--run", "runs/new"]) == 2
    assert "the following arguments are required: --sample" in capsys.readouterr().err


def test_its_estimate_is_eval_py_refreshs(ten: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ten.parent.parent)
    words = ["--sample", "3", "--seed", "7", "--run", "runs/new", "--estimate"]
    assert main(["runs/ten", *words], env={}) == 0
    verb = capsys.readouterr()
    assert evalcmd.main(["--refresh", "runs/ten", *words], env={}) == 0
    assert capsys.readouterr() == verb
    assert "3 of its 10 question(s)" in verb.err + verb.out and not Path("runs", "new", "cache").exists()
