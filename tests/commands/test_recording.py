"""commands/recording.py: the recording `record` and `refresh` share, and `python eval.py` (the alias) routed to
one of them."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from quotefinder.commands import recording
from quotefinder.commands.recording import build_parser, run
from quotefinder.core.registry import DEFAULT_SYSTEM


def test_an_option_the_verb_lacks_takes_eval_pys_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """`run` completes the verb's namespace with eval.py's defaults before refusing or recording."""
    seen: list[argparse.Namespace] = []
    monkeypatch.setattr(recording, "refresh_refusal", lambda args: seen.append(args) or "stop here")
    parser = argparse.ArgumentParser(prog="quotefinder record")
    args = argparse.Namespace(questions=Path("questions/ten.yaml"))
    assert run(args, parser, DEFAULT_SYSTEM, None) == 2  # the usage error argparse exits with, as a status
    [given] = seen
    defaults = build_parser().parse_args(["questions/ten.yaml"])
    assert vars(given) == vars(defaults)


def test_eval_py_with_refresh_is_the_refresh_verb(capsys: pytest.CaptureFixture[str]) -> None:
    assert recording.main(["--refresh", "runs/ten", "--run", "runs/new"], env={}) == 2
    assert "eval.py: error: --refresh RUN needs --sample N" in capsys.readouterr().err
