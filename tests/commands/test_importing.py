"""`quotefinder import DATASET` (commands/importing.py): a question file from a labelled data set."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT, checked_help
from quotefinder.commands.importing import build_parser, main
from quotefinder.questions.__main__ import main as questions_main

SQUAD = ROOT / "data" / "squad2-dev-sample.json"


def test_help_fits_a_screen_and_ends_with_two_examples(capsys: pytest.CaptureFixture[str]) -> None:
    text = checked_help(main, [], build_parser(), capsys)
    assert ".jsonl" in text and "--sample N" in text


def test_it_writes_what_python_m_quotefinder_questions_import_writes(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(SQUAD), "--out", str(tmp_path / "verb.yaml"), "--sample", "5", "--seed", "2"]) == 0
    assert questions_main(["import", str(SQUAD), "--out", str(tmp_path / "module.yaml"), "--sample", "5", "--seed",
                           "2"]) == 0
    verb, module = (tmp_path / "verb.yaml").read_text(), (tmp_path / "module.yaml").read_text()
    assert verb.startswith(f"# Imported by `quotefinder import {SQUAD} --out {tmp_path / 'verb.yaml'} --sample 5")
    assert verb.split("\n", 1)[1] == module.split("\n", 1)[1]  # only the command that made it differs
    assert "Wrote" in capsys.readouterr().out
    assert main([str(SQUAD), "--out", str(tmp_path / "verb.yaml")]) == 2
    assert capsys.readouterr().err.startswith("import: ")
