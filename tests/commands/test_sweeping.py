"""commands/sweeping.py: the work the sweeping verbs share, and `python sweep.py` (the alias) routed to its verb."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from quotefinder.commands import sweeping
from quotefinder.commands.sweeping import build_parser, completed, echoed, verb_of


@pytest.mark.parametrize(("argv", "verb"), [
    (["runs/ten"], "sweep"),
    (["runs/ten", "--at", "0.3,0.9", "--max-wrong", "0"], "sweep"),
    (["runs/ten", "runs/ten-one-shot"], "compare"),
    (["runs/new", "--drift"], "drift"),
    (["runs/new", "--drift", "runs/old"], "drift"),
    (["--monitor", "runs/a", "runs/a-1", "--at", "0.3,0.9", "--max-wrong-rate", "0.05"], "monitor"),
    (["runs/mine", "--review"], "review"),
])
def test_each_sweep_py_command_line_is_one_verb(argv: list[str], verb: str) -> None:
    assert verb_of(build_parser(argv).parse_args(argv)) == verb


@pytest.mark.parametrize(("argv", "work"), [
    (["runs/ten", "runs/ten-one-shot", "--no-plots"], "_systems"),
    (["runs/ten", "--no-plots"], "_sweep"),
    (["--monitor", "runs/ten", "runs/ten-one-shot", "--at", "0.3,0.9", "--max-wrong-rate", "0.05"], "_monitor"),
])
def test_the_alias_hands_the_parsed_line_to_its_verbs_work(argv: list[str], work: str, ten: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ten.parent.parent)
    called: list[str] = []
    for name in ("_systems", "_sweep", "_monitor"):
        monkeypatch.setattr(sweeping, name, lambda *args, name=name: called.append(name) or 0)
    assert sweeping.main(argv) == 0
    assert called == [work]


def test_an_option_a_verb_lacks_takes_sweep_pys_default() -> None:
    args = completed(argparse.Namespace(runs=[Path("runs/ten")]))
    legacy = build_parser(["runs/ten"]).parse_args(["runs/ten"])
    assert vars(args) == vars(legacy)
    kept = completed(argparse.Namespace(runs=[Path("x")], wrong_cost=3.0))
    assert kept.wrong_cost == 3.0 and kept.review is False and kept.drift is None


def test_echoed_leaves_out_what_does_not_change_a_report() -> None:
    parser = build_parser(["runs/ten"])
    assert echoed(["runs/ten", "--out", "x", "--wrong-cost=3", "--jobs", "2", "--strict"], parser) == (
        "--wrong-cost 3", "--strict")
