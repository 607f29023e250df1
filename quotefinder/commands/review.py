"""`quotefinder review RUN`: ask for the labels and verdicts the grid lacks, then sweep RUN with them."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from .options import add_grid, add_guarantee, add_output, add_rule, launch, verb_parser

EXAMPLES = ("runs/mine", "runs/mine --questions questions/mine.yaml --no-plots")


def build_parser() -> argparse.ArgumentParser:
    parser = verb_parser(
        "review", "RUN [options]",
        "Ask, in the terminal, for what the grid lacks: the label (answer / no-answer / skip) of each\n"
        "question quoted on it without an `expect`, and a verdict (correct / wrong / skip) on each unjudged\n"
        "quote, each saved beside the question file as given; then sweep RUN with them and write the report\n"
        "`quotefinder sweep RUN` would (Ctrl+C stops; what was answered is kept).", EXAMPLES)
    parser.add_argument("runs", type=Path, nargs=1, metavar="RUN", help=argparse.SUPPRESS)
    add_grid(parser)
    add_rule(parser)
    add_guarantee(parser)
    add_output(parser)
    return parser


def main(argv: list[str] | None = None, ask: Callable[[str], str] | None = None) -> int:
    return launch(build_parser(), argv, ask)
