"""`quotefinder sweep RUN`: replay one recorded run over a grid of cutoffs, offline, and write its report."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from ..core.plugin import System
from ..core.registry import DEFAULT_SYSTEM, system
from .options import (
    add_baseline,
    add_gate,
    add_grid,
    add_guarantee,
    add_output,
    add_rule,
    axes_words,
    launch,
    verb_parser,
)
from .sweeping import system_of

EXAMPLES = ("runs/ten --out reports/ten", "runs/ten --at 0.3,0.9 --max-wrong 0 --min-correct 6")


def build_parser(under_test: System | None = None) -> argparse.ArgumentParser:
    """The verb's parser; its --help names the axes of `under_test` (the system RUN was recorded with, else the
    default)."""
    parser = verb_parser(
        "sweep", "RUN [options]",
        "Replay RUN (from `quotefinder record`) over a grid of cutoffs, offline: what the pipeline does at\n"
        "each cell, the cutoffs to ship and how sure. exit: 0 done; 1 the gate fails; 2 cannot run.\n"
        + axes_words(under_test or system(DEFAULT_SYSTEM), "--grid"), EXAMPLES)
    parser.add_argument("runs", type=Path, nargs=1, metavar="RUN", help=argparse.SUPPRESS)
    add_grid(parser)
    add_rule(parser)
    add_guarantee(parser)
    add_baseline(add_gate(parser))
    add_output(parser)
    return parser


def main(argv: list[str] | None = None, ask: Callable[[str], str] | None = None) -> int:
    given = sys.argv[2:] if argv is None else argv
    return launch(build_parser(system_of(given, build_parser())[0]), given, ask)
