"""The advice an error gives when it suggests a recording: it says what the recording would spend and replace,
offers --estimate first, and sends another question file to a new run directory."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import ROOT, TEN_QUESTIONS, write_questions
from quotefinder.record.advice import finish, record_again, record_missing
from quotefinder.record.rundir import RunRecord
from quotefinder.sweepcmd import main as sweep_main

TEN = ROOT / "runs" / "ten"
OTHER = """questions:
  - id: new-one
    question: What is the boiling point of water at sea level?
    expect: answer
    accept: ['100']
"""


def _commands(text: str) -> list[str]:
    return re.findall(r"`(quotefinder (?:record|refresh) [^`]*)`", text)


def test_another_question_file_goes_to_a_new_run_with_estimate_first(tmp_path: Path) -> None:
    other = write_questions(tmp_path / "squad50.yaml", OTHER)
    text = record_missing(other, TEN, RunRecord.require(TEN), 429, "at most 11 requests")
    assert "would replace its questions" in text and "paid API requests" in text
    assert "429 question(s) x 3 repeat(s); at most 11 requests" in text
    commands = _commands(text)
    assert commands == [f"quotefinder record {other} --run runs/squad50 --estimate"]
    assert f"--run {TEN}" not in text


def test_a_new_run_directory_never_names_an_existing_one(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs" / "ten").mkdir(parents=True)  # runs/<stem> is taken: another name
    text = record_missing(TEN_QUESTIONS.parent / "elsewhere" / "ten.yaml", TEN, RunRecord.require(TEN), 1)
    assert _commands(text) == [f"quotefinder record {TEN_QUESTIONS.parent / 'elsewhere' / 'ten.yaml'} "
                               f"--run {TEN.parent / 'ten-new'} --estimate"]


def test_the_runs_own_file_is_extended_in_place_with_estimate_first() -> None:
    text = record_missing(TEN_QUESTIONS, TEN, RunRecord.require(TEN), 2, extra="--range tier=deep")
    assert "adds them to the run" in text and "replace" not in text and "paid API requests" in text
    assert _commands(text) == [f"quotefinder record {TEN_QUESTIONS} --run {TEN} --range tier=deep --estimate"]


def test_every_advised_recording_offers_estimate_first() -> None:
    for text in (finish("quotefinder record q.yaml --run runs/q"), record_again()):
        assert "paid API requests" in text
        assert all(c.endswith("--estimate") for c in _commands(text)) and _commands(text)


def test_sweep_of_another_question_set_never_advises_replacing_the_run(ten: Path, tmp_path: Path, capsys,
                                                                      monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    other = write_questions(tmp_path / "squad50.yaml", OTHER)
    assert sweep_main(["runs/ten", "--questions", str(other), "--no-plots", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "would replace its questions" in err
    assert _commands(err) == [f"quotefinder record {other} --run runs/squad50 --estimate"]
