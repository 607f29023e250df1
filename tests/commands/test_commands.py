"""`quotefinder` (commands/__init__.py, and `python -m quotefinder`: quotefinder/__main__.py): the verbs, one line
each, and each verb's own command line."""

from __future__ import annotations

import importlib
import inspect
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from conftest import ROOT
from quotefinder import commands
from quotefinder.commands import VERBS, main

NAMES = ["record", "refresh", "sweep", "compare", "drift", "monitor", "review", "import", "pipeline"]


def test_the_verbs_are_the_ones_the_docs_name() -> None:
    assert list(VERBS) == NAMES


def test_help_lists_every_verb_on_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) <= 40 and all(len(line) <= 100 for line in lines)
    listed = [line.split()[0] for line in lines if line.startswith("  ") and not line.startswith("  quotefinder")]
    assert listed == NAMES
    assert lines[-3:] == ["examples:", "  quotefinder record questions/ten.yaml", "  quotefinder sweep runs/ten"]


def test_python_m_quotefinder_is_the_same_command() -> None:
    done = subprocess.run([sys.executable, "-m", "quotefinder", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == commands.overview()
    done = subprocess.run([sys.executable, "-m", "quotefinder", "pipeline", "show"], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0 and done.stdout.startswith("#")


def test_no_verb_or_an_unknown_one_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "record" in capsys.readouterr().err
    assert main(["swep", "runs/ten"]) == 2
    assert "unknown verb 'swep'; the verbs are: record, refresh, sweep" in capsys.readouterr().err


def test_each_verb_hands_its_words_to_its_module(capsys: pytest.CaptureFixture[str]) -> None:
    """The verb's own parser reads the rest: an option of another verb is refused, with the verb's name."""
    assert main(["compare", "runs/ten", "runs/ten-one-shot", "--max-wrong", "0"]) == 2
    assert "quotefinder compare: error: unrecognized arguments: --max-wrong 0" in capsys.readouterr().err


def test_the_installed_script_is_a_main_taking_argv_and_returning_an_exit_status() -> None:
    """[project.scripts] quotefinder points at `main(argv=None) -> int` (nothing installed: the entry read and
    resolved as the installer would)."""
    with (ROOT / "pyproject.toml").open("rb") as file:
        project = tomllib.load(file)
    target = project["project"]["scripts"]["quotefinder"]
    module, _, name = target.partition(":")
    found = getattr(importlib.import_module(module), name)
    assert found is main and callable(found)
    signature = inspect.signature(found)
    assert list(signature.parameters) == ["argv"] and signature.parameters["argv"].default is None
    assert signature.return_annotation in (int, "int")
    assert "quotefinder" not in project.get("tool", {}), "the repository's own pyproject configures nothing"


@pytest.mark.parametrize("verb", [["sweep"], ["pipeline", "show"]])
def test_the_front_door_ends_quietly_on_a_closed_stdout_never_with_1(ten: Path, tmp_path: Path, verb: list[str]
                                                                      ) -> None:
    """`quotefinder ... | head -1` with the reader gone before the first line: 141 and nothing on stderr, as the
    aliases do; never 1, which a CI gate reads as failed (here the gate passes)."""
    read, write = os.pipe()
    os.close(read)
    gate = [str(ten), "--out", str(tmp_path / "r"), "--no-plots", "--at", "0.3,0.9", "--max-wrong", "9"]
    try:
        done = subprocess.run([sys.executable, "-m", "quotefinder", *verb, *(gate if verb == ["sweep"] else [])],
                              stdout=write, stderr=subprocess.PIPE, text=True, cwd=tmp_path, timeout=300)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (141, "")
