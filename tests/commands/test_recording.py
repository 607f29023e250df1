"""commands/recording.py: the work `record` and `refresh` share, every option its verb lacks at its default."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from quotefinder.commands import recording
from quotefinder.commands.record import build_parser as record_parser
from quotefinder.commands.recording import DEFAULTS, run
from quotefinder.commands.refresh import build_parser as refresh_parser
from quotefinder.core.registry import DEFAULT_SYSTEM


def test_an_option_the_verb_lacks_takes_its_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """`run` completes the verb's namespace with `DEFAULTS` before it records."""
    seen: list[argparse.Namespace] = []
    monkeypatch.setattr(recording, "recording_range", lambda args, parser, system: seen.append(args) or exit(2))
    args = argparse.Namespace(questions=Path("questions/ten.yaml"), verb="record")
    assert run(args, argparse.ArgumentParser(prog="quotefinder record"), DEFAULT_SYSTEM, None) == 2
    [given] = seen
    assert {name: getattr(given, name) for name in DEFAULTS} == {**DEFAULTS, "questions": Path("questions/ten.yaml")}


def test_every_option_of_the_recording_verbs_has_a_default() -> None:
    dests = {action.dest for parser in (record_parser(), refresh_parser()) for action in parser._actions}
    assert dests - {"help", "questions", "refresh"} <= set(DEFAULTS)
