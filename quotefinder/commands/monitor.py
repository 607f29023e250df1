"""`quotefinder monitor RUN REFRESH [REFRESH...]`: watch the shipped cell over a run's refreshes."""

from __future__ import annotations

import argparse
from pathlib import Path

from .options import add_gate, add_guarantee, add_output, launch, verb_parser

EXAMPLES = ("runs/mine runs/mine-2026-11 --at 0.3,0.9 --max-wrong-rate 0.05",
            "runs/mine runs/mine-11 runs/mine-12 --at 0.3,0.9 --max-wrong-rate 0.05")


def build_parser() -> argparse.ArgumentParser:
    parser = verb_parser(
        "monitor", "RUN REFRESH [REFRESH...] --at H,A --max-wrong-rate ALPHA [options]",
        "Watch the cell you ship (--at) over RUN's refreshes in the order they were recorded, with an\n"
        "anytime-valid confidence sequence for its wrong-answer rate: checking after every refresh, forever,\n"
        "keeps the chance of a false alarm at most --delta. exit: 1 the first time the rate's lower bound\n"
        "passes ALPHA; 0 no alarm; 2 cannot compare.", EXAMPLES)
    parser.add_argument("runs", type=Path, nargs="+", metavar="RUN", help=argparse.SUPPRESS)
    parser.add_argument("--questions", type=Path, metavar="FILE", help="judge with this question file (default: "
                        "the run's)")
    add_gate(parser, bounds=False)
    add_guarantee(parser, "alarm when the rate's lower bound passes ALPHA (required)")
    add_output(parser, plots=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    return launch(build_parser(), argv)
