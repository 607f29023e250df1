"""`quotefinder import DATASET` (commands/importing.py): a question file from a labelled data set."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT, checked_help
from quotefinder.commands.importing import build_parser, main

SQUAD = ROOT / "data" / "squad2-dev-sample.json"


def test_help_fits_a_screen_and_ends_with_two_examples(capsys: pytest.CaptureFixture[str]) -> None:
    text = checked_help(main, [], build_parser(), capsys)
    assert ".jsonl" in text and "--sample N" in text


def test_the_file_names_the_command_that_made_it_and_errors_name_the_verb(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(SQUAD), "--out", str(tmp_path / "verb.yaml"), "--sample", "5", "--seed", "2"]) == 0
    assert (tmp_path / "verb.yaml").read_text().startswith(
        f"# Imported by `quotefinder import {SQUAD} --out {tmp_path / 'verb.yaml'} --sample 5 --seed 2`")
    assert "Wrote" in capsys.readouterr().out
    assert main([str(SQUAD), "--out", str(tmp_path / "verb.yaml")]) == 2
    assert capsys.readouterr().err.startswith("quotefinder import: ")
