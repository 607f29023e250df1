"""The option groups the verbs share, each option on one line of --help: a verb's parser is `verb_parser` plus the
groups it needs. An option a verb lacks is left unset (`argparse.SUPPRESS`): the work reads sweep.py's or eval.py's
default for it (`sweeping.completed`, `recording.run`), and a project configuration can fill it (`config`)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from .. import cli, config
from ..core import values
from ..core.plugin import System
from ..sweep.compare import SIGNIFICANCE
from ..sweep.guarantee import DELTA
from ..sweep.stats import LEVEL
from .sweeping import figure_formats, named_axis, run, system_of

WIDTH = 100  # the --help of every verb fits a screen this wide: at most SCREEN lines, two examples last
SCREEN = 45
RULE = "the rule and its guarantee"


def verb_parser(verb: str, usage: str, description: str, examples: tuple[str, str]) -> argparse.ArgumentParser:
    """The parser of `quotefinder VERB`: its one-line usage, a short description, and two examples at the end."""
    parser = argparse.ArgumentParser(
        prog=f"quotefinder {verb}", usage=f"%(prog)s {usage}", description=description,
        epilog="examples:\n" + "\n".join(f"  quotefinder {verb} {example}" for example in examples),
        formatter_class=lambda prog: argparse.RawDescriptionHelpFormatter(prog, max_help_position=28, width=WIDTH),
        argument_default=argparse.SUPPRESS, allow_abbrev=False)  # an option is typed whole, as the docs show it
    parser.set_defaults(verb=verb)
    return parser


def axes_words(under_test: System, option: str) -> str:
    """The lines of a verb's --help that name a system's axes: each one's name (for `option` NAME=...), title,
    default and what it does."""
    lines = [f"the axes of the {under_test.name} system ({option} NAME=...):"]
    lines += [f"  {spec.name}: {spec.title}, default {spec.shown(spec.default)}; {spec.words}"
              for spec in under_test.axes]
    return "\n".join(lines)


def add_grid(parser: argparse.ArgumentParser) -> None:
    """The questions judged against and the grid swept."""
    parser.add_argument("--questions", type=Path, metavar="FILE", help="judge with this question file (default: "
                        "the run's)")
    parser.add_argument("--grid", type=named_axis, action="append", metavar="NAME=VALUES",
                        help="an axis's START:STOP:STEP or A,B (repeat per axis), e.g. answer=0.5:1:0.01")


def add_rule(parser: argparse.ArgumentParser) -> None:
    """The objective and how sure the recommendation must be."""
    rule = parser.add_argument_group(RULE)
    rule.add_argument("--wrong-cost", type=values.wrong_cost, metavar="C",
                      help="score = correct + no-answer - C x wrong (default 2)")
    rule.add_argument("--folds", type=values.folds, metavar="K",
                      help="cross-validate the tuning over K folds (default 5; 0: keep the default)")
    rule.add_argument("--level", type=values.open_unit("--level"), metavar="P",
                      help=f"one-sided level of that test (default {LEVEL:g})")
    rule.add_argument("--seed", type=values.seed, metavar="N", help="seed of the folds (default 0)")
    rule.add_argument("--answerable-share", type=values.open_unit("--answerable-share"), metavar="S",
                      help="weight answerable questions to S of the total (a production mix)")


def add_guarantee(parser: argparse.ArgumentParser, words: str = "certify cells with wrong-answer rate <= ALPHA"
                  ) -> None:
    """The wrong-answer rate to certify (or watch) and how often that may fail."""
    sure = next((group for group in parser._action_groups if group.title == RULE), None) or \
        parser.add_argument_group("the guarantee")  # (argparse has no public look-up of a group)
    sure.add_argument("--max-wrong-rate", type=values.open_unit("--max-wrong-rate"), metavar="ALPHA", help=words)
    sure.add_argument("--delta", type=values.open_unit("--delta"), metavar="DELTA",
                      help=f"how often the guarantee may fail (default {DELTA:g})")


def add_gate(parser: argparse.ArgumentParser, bounds: bool = True) -> argparse._ArgumentGroup:
    """The point checked (--at) and, with `bounds`, the counts it must meet there."""
    gate = parser.add_argument_group("the gate (exit 1 when it fails)")
    gate.add_argument("--at", metavar="H,A", help="the cell checked, a value of each axis, e.g. 0.3,0.9")
    if bounds:
        gate.add_argument("--max-wrong", type=values.count, metavar="N", help="fail if a repeat has > N wrong quotes")
        gate.add_argument("--min-correct", type=values.count, metavar="N", help="fail if a repeat has < N correct")
    return gate


def add_significance(group: argparse.ArgumentParser | argparse._ArgumentGroup, words: str) -> None:
    group.add_argument("--significance", type=values.open_unit("--significance"), metavar="P",
                       help=f"{words} (default {SIGNIFICANCE:g})")


def add_baseline(group: argparse._ArgumentGroup) -> None:
    """The comparison with an earlier run (in the gate's group: it fails the gate too)."""
    group.add_argument("--baseline", type=Path, metavar="RUN", help="fail if worse than this earlier run at --at")
    add_significance(group, "the sign test's level for --baseline")
    group.add_argument("--strict", action="store_true", help="with --baseline, fail if any question got worse")


def add_output(parser: argparse.ArgumentParser, plots: bool = True) -> None:
    """Where the report goes, what it holds, and how the run is read."""
    out = parser.add_argument_group("the report")
    out.add_argument("--out", type=Path, metavar="DIR", help="report directory (default: reports/<run name>)")
    out.add_argument("--force", action="store_true", help="write into a DIR of files no report of ours wrote")
    if plots:
        out.add_argument("--no-plots", action="store_true", help="tables and summary only: the fast path")
        out.add_argument("--no-html", action="store_true", help="leave out index.html, the explorable page")
        out.add_argument("--figures", type=figure_formats, metavar="FORMATS",
                         help="each figure as png, svg or pdf, comma-separated (default png)")
    out.add_argument("--allow-incomplete", action="store_true", help="leave out (and list) what cannot be replayed")
    out.add_argument("--no-index", action="store_true", help="replay from the cache, without RUN/replay-index/")
    out.add_argument("--jobs", type=values.jobs, metavar="N",
                     help=f"processes loading the run (default {min(os.cpu_count() or 1, 8)}; 1: serial)")


def add_recording(parser: argparse.ArgumentParser) -> None:
    """How requests are sent, and what they would cost."""
    send = parser.add_argument_group("sending")
    send.add_argument("--offline", action="store_true", help="never connect; exit 2 listing what is missing")
    send.add_argument("--concurrency", type=values.concurrency, metavar="N", help="questions in flight (default 8)")
    send.add_argument("--rate", type=values.rate, metavar="R",
                      help="requests per second (default 10; 0: no limit)")
    send.add_argument("--timeout", type=values.timeout, metavar="S",
                      help="seconds per request attempt (default 30)")
    send.add_argument("--retries", type=values.retries, metavar="N", help="retries of a transient failure (default 4)")
    send.add_argument("--backoff", type=values.backoff, metavar="S",
                      help="first wait before a retry, doubling (default 1)")
    send.add_argument("--max-requests", type=values.count, metavar="N", help="send at most N requests, then stop")
    send.add_argument("--verbose", action="store_true", help="print every question's decision")
    cost = parser.add_argument_group("cost")
    cost.add_argument("--estimate", action="store_true", help="send nothing; print requests, tokens, time and cost")
    cost.add_argument("--price-per-1k-requests", type=values.price, metavar="P",
                      help="with --estimate: what 1,000 requests cost")
    cost.add_argument("--price-per-million-tokens", type=values.price, metavar="P",
                      help="with --estimate: what a million input tokens cost")


def launch(parser: argparse.ArgumentParser, argv: list[str] | None,
           ask: Callable[[str], str] | None = None, at_least: int = 1) -> int:
    """Run a sweeping verb (of `at_least` runs): `parser`'s options over the project's configuration
    (./quotefinder.toml, or ./pyproject.toml's [tool.quotefinder]: `config`), then `sweeping.run`. Exit 2 for a
    bad configuration."""
    given = sys.argv[2:] if argv is None else argv  # after `quotefinder VERB`
    named = system_of(given, parser)
    try:
        found = config.found()
        preset = config.namespace(found, parser, named[0])
    except config.ConfigError as error:
        cli.report_error(parser.prog, error)
        return cli.EXIT_ERROR
    return run(parser, given, named, ask, preset, prog=parser.prog, at_least=at_least,
               used=lambda typed: config.used(found, typed, preset))
