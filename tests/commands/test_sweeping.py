"""commands/sweeping.py: the work the sweeping verbs share: every option a verb lacks at its default, what a report
echoes of the options typed, and each verb's own work."""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

import pytest

from quotefinder.commands import sweeping
from quotefinder.commands.aliases import SWEEPING
from quotefinder.commands.sweeping import DEFAULTS, completed, echoed, verb_of


def test_an_option_a_verb_lacks_takes_its_default() -> None:
    args = completed(argparse.Namespace(runs=[Path("runs/ten")], verb="sweep"))
    assert {name: getattr(args, name) for name in DEFAULTS} == DEFAULTS and verb_of(args) == "sweep"
    kept = completed(argparse.Namespace(runs=[Path("x")], wrong_cost=3.0, verb="review"))
    assert kept.wrong_cost == 3.0 and kept.drift is None and verb_of(kept) == "review"


def test_every_option_of_the_sweeping_verbs_has_a_default() -> None:
    dests = {action.dest for verb in SWEEPING
             for action in importlib.import_module(f"quotefinder.commands.{verb}").build_parser()._actions}
    assert dests - {"help", "runs", "verb"} <= set(DEFAULTS)


def test_echoed_leaves_out_what_does_not_change_a_report() -> None:
    from quotefinder.commands.sweep import build_parser

    parser = build_parser()
    assert echoed(["runs/ten", "--out", "x", "--wrong-cost=3", "--jobs", "2", "--baseline", "runs/b"], parser) == (
        "--wrong-cost 3", "--baseline runs/b")


@pytest.mark.parametrize(("verb", "argv", "work"), [
    ("compare", ["runs/ten", "runs/ten-one-shot", "--no-plots"], "_systems"),
    ("sweep", ["runs/ten", "--no-plots"], "_sweep"),
    ("monitor", ["runs/ten", "runs/ten-one-shot", "--at", "0.3,0.9", "--max-wrong-rate", "0.05"], "_monitor"),
])
def test_each_verb_hands_its_parsed_line_to_its_work(verb: str, argv: list[str], work: str, ten: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ten.parent.parent)
    called: list[str] = []
    for name in ("_systems", "_sweep", "_monitor"):
        monkeypatch.setattr(sweeping, name, lambda *args, name=name: called.append(name) or 0)
    assert importlib.import_module(f"quotefinder.commands.{verb}").main(argv) == 0
    assert called == [work]
