"""`quotefinder compare RUN RUN [RUN...]`: systems recorded on the same questions, side by side."""

from __future__ import annotations

import argparse
from pathlib import Path

from .options import add_grid, add_guarantee, add_output, add_rule, add_significance, launch, verb_parser

EXAMPLES = ("runs/ten runs/ten-terse-criteria", "runs/ten runs/ten-quote-answer runs/ten-one-shot --out reports/which")


def build_parser() -> argparse.ArgumentParser:
    parser = verb_parser(
        "compare", "RUN RUN [RUN...] [options]",
        "Compare the RUNs, systems (or pipelines) recorded on the same questions, each swept at its own\n"
        "recommended cutoffs, on cross-validated scores, and say which to ship.\n"
        "exit: 0 done; 2 cannot compare.", EXAMPLES)
    parser.add_argument("runs", type=Path, nargs="+", metavar="RUN", help=argparse.SUPPRESS)
    add_grid(parser)
    add_rule(parser)
    add_significance(parser, "the level at which one system is called better")
    add_guarantee(parser)
    add_output(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    return launch(parser, argv, at_least=2)
