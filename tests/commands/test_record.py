"""`quotefinder record QUESTIONS` (commands/record.py): eval.py's recording, with only its own options."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import checked_help
from quotefinder import evalcmd
from quotefinder.commands.record import build_parser, main


def test_help_fits_a_screen_and_ends_with_two_examples(capsys: pytest.CaptureFixture[str]) -> None:
    text = checked_help(main, [], build_parser(), capsys)
    assert "--estimate" in text and "--refresh" not in text and "--sample" not in text


def test_offline_it_says_what_eval_py_says(ten: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ten.parent.parent)
    assert main(["questions/ten.yaml", "--offline"], env={}) == 0
    verb = capsys.readouterr()
    assert evalcmd.main(["questions/ten.yaml", "--offline"], env={}) == 0
    assert capsys.readouterr() == verb
    assert "no-answer" in verb.out


def test_a_refresh_is_its_own_verb(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["questions/ten.yaml", "--refresh", "runs/ten"]) == 2
    assert "quotefinder record: error: unrecognized arguments: --refresh runs/ten" in capsys.readouterr().err
