"""`quotefinder record QUESTIONS`: record a question set's API responses, then show its decisions."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from .. import cli
from ..core import values
from .options import add_recording, verb_parser
from .recording import launch

if TYPE_CHECKING:
    import httpx

EXAMPLES = ("questions/ten.yaml --offline", "questions/ten.yaml --pipeline pipelines/terse-criteria.yaml --estimate")


def build_parser() -> argparse.ArgumentParser:
    parser = verb_parser(
        "record", "QUESTIONS [options]",
        "Record the pipeline's responses for QUESTIONS (a YAML file), then show its decisions at the default\n"
        "cutoffs. What is saved is served from the run's cache; only what is missing is sent, so a rerun\n"
        "resumes. Keys: PERPLEXITY_API_KEY, QUOTEANSWER_API_KEY (see `python eval.py --help`).\n"
        "exit: 0 the run is complete; 2 something kept it from completing (rerun to resume).", EXAMPLES)
    parser.add_argument("questions", type=Path, metavar="QUESTIONS", help=argparse.SUPPRESS)
    parser.add_argument("--run", type=Path, metavar="DIR", help="run directory (default: runs/<questions stem>)")
    parser.add_argument("--pipeline", type=Path, metavar="FILE", help="record with this pipeline file")
    parser.add_argument("--range", type=cli.named_values, action="append", metavar="NAME=VALUES", dest="ranges",
                        help="record what a sweep over these values of an axis needs, e.g. has_answer=0.2:0.5")
    parser.add_argument("--repeats", type=values.repeats, metavar="N",
                        help="observations of every request (default: the run's, or 1)")
    add_recording(parser)
    return parser


def pipeline_words(args: argparse.Namespace) -> list[str]:
    """The words that name the run's system and pipeline, as eval.py reads them (`preparsed_pipeline`)."""
    return [*(["--run", str(args.run)] if "run" in args else []),
            *(["--pipeline", str(args.pipeline)] if "pipeline" in args else [])]


def main(argv: list[str] | None = None, env: dict[str, str] | None = None,
         transport: httpx.AsyncBaseTransport | None = None) -> int:
    return launch(build_parser(), argv, env, transport, pipeline_words)
