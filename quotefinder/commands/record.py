"""`quotefinder record QUESTIONS`: record a question set's API responses, then show its decisions."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .. import cli
from ..core import values
from ..core.errors import QuoteFinderError
from ..core.registry import DEFAULT_SYSTEM, system
from .options import add_recording, axes_words, verb_parser
from .recording import launch, preparsed_pipeline

if TYPE_CHECKING:
    import httpx

EXAMPLES = ("questions/ten.yaml --offline", "questions/ten.yaml --pipeline pipelines/terse-criteria.yaml --estimate")


def build_parser(under_test: str = DEFAULT_SYSTEM) -> argparse.ArgumentParser:
    """The verb's parser; its --help names the API key and the axes of `under_test` (the system a --pipeline
    FILE or the --run DIR names, else the default)."""
    chosen = system(under_test)
    parser = verb_parser(
        "record", "QUESTIONS [options]",
        "Record the pipeline's responses for QUESTIONS (a YAML file), then show its decisions at the default\n"
        "cutoffs. What is saved is served from the run's cache; only what is missing is sent, so a rerun\n"
        "resumes. The API key comes from the environment only, and is never written or shown in any form:\n"
        f"{' and '.join(api.key_variable for api in chosen.apis)}.\n"
        "exit: 0 the run is complete; 2 something kept it from completing (rerun to resume).\n"
        + axes_words(chosen, "--range"), EXAMPLES)
    parser.add_argument("questions", type=Path, metavar="QUESTIONS", help=argparse.SUPPRESS)
    parser.add_argument("--run", type=Path, metavar="DIR", help="run directory (default: runs/<questions stem>)")
    parser.add_argument("--pipeline", type=Path, metavar="FILE", help="record with this pipeline file")
    parser.add_argument("--range", type=cli.named_values, action="append", metavar="NAME=VALUES", dest="ranges",
                        help="record what a sweep over these values of an axis needs, e.g. has_answer=0.2:0.5")
    parser.add_argument("--repeats", type=values.repeats, metavar="N",
                        help="observations of every request (default: the run's, or 1)")
    parser.add_argument("--force", action="store_true",
                        help="record into a --run DIR of another file's questions, replacing them")
    add_recording(parser)
    return parser


def pipeline_words(args: argparse.Namespace) -> list[str]:
    """The words that name the run's system and pipeline (`preparsed_pipeline`)."""
    return [*(["--run", str(args.run)] if "run" in args else []),
            *(["--pipeline", str(args.pipeline)] if "pipeline" in args else [])]


def main(argv: list[str] | None = None, env: dict[str, str] | None = None,
         transport: httpx.AsyncBaseTransport | None = None) -> int:
    given = sys.argv[2:] if argv is None else argv
    try:
        named = preparsed_pipeline(given)[0]  # the system its --help shows (a bad file is said by `launch`)
    except QuoteFinderError:
        named = DEFAULT_SYSTEM
    return launch(build_parser(named), given, env, transport, pipeline_words)
