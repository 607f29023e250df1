"""`quotefinder refresh RUN`: record a seeded sample of a run's questions afresh, for `quotefinder drift`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ..core import values
from .options import add_recording, verb_parser
from .recording import launch

if TYPE_CHECKING:
    import httpx

EXAMPLES = ("runs/mine --sample 200 --seed 20261201 --run runs/mine-2026-12 --estimate",
            "runs/mine --sample 200 --seed 20261201 --run runs/mine-2026-12")


def build_parser() -> argparse.ArgumentParser:
    parser = verb_parser(
        "refresh", "RUN --sample N --run NEW [options]",
        "Record a seeded sample of RUN's questions afresh into NEW: the same pipeline, repeats and axis\n"
        "values, nothing served from RUN's cache; NEW's run.json names RUN. Then `quotefinder drift NEW`\n"
        "says whether the evidence still holds. exit: 0 complete; 2 not (rerun to resume).", EXAMPLES)
    parser.add_argument("refresh", type=Path, metavar="RUN", help=argparse.SUPPRESS)
    parser.add_argument("--sample", type=values.positive_int, metavar="N", required=True,
                        help="how many questions, stratified by label (each label its share)")
    parser.add_argument("--seed", type=values.seed, metavar="S",
                        help="seed of the sample (default 0; a new one each refresh, e.g. YYYYMMDD)")
    parser.add_argument("--run", type=Path, metavar="NEW", required=True, help="the new run directory")
    add_recording(parser)
    return parser


def main(argv: list[str] | None = None, env: dict[str, str] | None = None,
         transport: httpx.AsyncBaseTransport | None = None) -> int:
    return launch(build_parser(), argv, env, transport, lambda args: ["--refresh", str(args.refresh)])
