"""`quotefinder drift RUN [REFRESHED]`: is the evidence still true? A refresh compared with the run it refreshed."""

from __future__ import annotations

import argparse
from pathlib import Path

from .options import add_gate, add_grid, add_guarantee, add_output, add_rule, add_significance, launch, verb_parser

EXAMPLES = ("runs/mine-2026-12", "runs/mine-2026-12 runs/mine --at 0.3,0.9 --max-wrong-rate 0.05")


def build_parser() -> argparse.ArgumentParser:
    parser = verb_parser(
        "drift", "RUN [REFRESHED] [options]",
        "Compare RUN, a refresh (`quotefinder refresh`), with REFRESHED, the run it refreshed: the evidence\n"
        "stage by stage, the decisions at the shipped cell (--at, else REFRESHED's recommended cell) with a\n"
        "sign test, and the wrong-answer rate there now. exit: 1 decisions got worse beyond noise, or the\n"
        "rate is above --max-wrong-rate; 0 not; 2 cannot compare.", EXAMPLES)
    parser.add_argument("runs", type=Path, nargs=1, metavar="RUN", help=argparse.SUPPRESS)
    parser.add_argument("drift", type=Path, nargs="?", default=True, metavar="REFRESHED", help=argparse.SUPPRESS)
    add_grid(parser)
    add_rule(parser)
    add_guarantee(parser, "fail if the wrong-answer rate now is above ALPHA")
    add_significance(add_gate(parser), "the sign test's level")
    add_output(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    return launch(build_parser(), argv)
