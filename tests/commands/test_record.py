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


def test_another_question_file_is_not_recorded_into_a_run_without_force(ten: Path, monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A run of questions/ten.yaml keeps its questions: recording another file into it is refused (naming a run of
    its own, --estimate first, and --force), estimated freely (it sends nothing), and done only with --force."""
    import yaml

    from quotefinder.record.rundir import RunRecord

    root = ten.parent.parent
    monkeypatch.chdir(root)
    data = yaml.safe_load(Path("questions/ten.yaml").read_text())
    data["questions"] = data["questions"][:4]
    Path("questions/four.yaml").write_text(yaml.safe_dump(data))
    before = Path("runs/ten/run.json").read_bytes()
    assert main(["questions/four.yaml", "--run", "runs/ten", "--offline"], env={}) == 2
    err = capsys.readouterr().err
    assert "runs/ten is a run of questions/ten.yaml (10 question(s)); recording questions/four.yaml into it would " \
           "replace its questions (6 removed" in err
    assert "`quotefinder record questions/four.yaml --run runs/four --estimate`" in err and "add --force" in err
    assert Path("runs/ten/run.json").read_bytes() == before
    assert main(["questions/four.yaml", "--run", "runs/ten", "--estimate"], env={}) == 0
    assert Path("runs/ten/run.json").read_bytes() == before
    assert main(["questions/four.yaml", "--run", "runs/ten", "--offline", "--force"], env={}) == 0
    assert len(RunRecord.require(Path("runs/ten")).questions) == 4
    assert main(["questions/four.yaml", "--run", "runs/ten", "--offline"], env={}) == 0  # its own file now
