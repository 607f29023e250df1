"""`python -m quotefinder.questions import SRC --out questions/NAME.yaml`: a question set from labelled data (as
`quotefinder import` makes it: `commands.importing`)."""

from __future__ import annotations

import argparse
import sys

from ..commands.importing import EXAMPLES, SOURCES, add_arguments, run

PROG = "python -m quotefinder.questions"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Question sets for eval.py.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    imported = commands.add_parser(
        "import", help="write a question file from a labelled data set",
        description="Write a questions YAML file from SQuAD 2.0 JSON, JSON Lines or CSV.",
        epilog=SOURCES + "\nexamples:\n" + "\n".join(f"  {PROG} import {example}" for example in EXAMPLES),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(imported)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as done:  # --help, or a usage error argparse has printed
        return int(done.code or 0)
    return run(args, "import", f"{PROG} import")


if __name__ == "__main__":
    sys.exit(main())
