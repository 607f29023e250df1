"""`quotefinder pipeline show [SYSTEM]`: print a system's default pipeline file, to copy and edit."""

from __future__ import annotations

import argparse
import sys

from .. import cli
from ..core.pipelinefile import default_file, unknown_system
from ..core.registry import known_systems
from .options import WIDTH

NOTES = f"""\
The printed file holds every key with the system's default value and a comment. Every key is
optional: keep the ones you change (and `name:`, which names the default run directory
runs/<questions>-<name>), then record with it (quotefinder record QUESTIONS --pipeline FILE).

systems: {known_systems()[0]} (the default), {', '.join(known_systems()[1:])}
"""


EXAMPLES = ("show > pipelines/mine.yaml", "show quote-answer > pipelines/quote-answer.yaml")


def build_parser(prog: str = "quotefinder pipeline", examples: tuple[str, str] = EXAMPLES) -> argparse.ArgumentParser:
    """`pipeline`'s parser (also `python -m quotefinder.pipelines`'s, under its `prog`)."""
    parser = argparse.ArgumentParser(prog=prog, description="Pipeline files for --pipeline.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    shown = commands.add_parser(
        "show", help="print a system's default pipeline file",
        description="Print a system's default pipeline file (YAML), ready to copy and edit.",
        epilog=NOTES + "\nexamples:\n" + "\n".join(f"  {prog} {example}" for example in examples),
        formatter_class=lambda prog: argparse.RawDescriptionHelpFormatter(prog, width=WIDTH))
    shown.add_argument("system", nargs="?", default=known_systems()[0], metavar="SYSTEM",
                       help=f"the system (default {known_systems()[0]}; the systems are: {', '.join(known_systems())})")
    return parser


def run(argv: list[str] | None, parser: argparse.ArgumentParser) -> int:
    """Print the pipeline file `argv` names (parsed by `parser`)."""
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help, or a usage error argparse has printed
        return int(done.code or 0)
    if args.system not in known_systems():
        print(f"{parser.prog} show: {unknown_system(args.system)}", file=sys.stderr)
        return cli.EXIT_ERROR
    sys.stdout.write(default_file(args.system))
    return cli.EXIT_OK


@cli.quiet_on_a_closed_stdout
def main(argv: list[str] | None = None) -> int:
    return run(sys.argv[2:] if argv is None else argv, build_parser())
