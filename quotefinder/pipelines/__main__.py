"""`python -m quotefinder.pipelines show [SYSTEM]`: print a system's default pipeline file, to copy and edit."""

from __future__ import annotations

import argparse
import sys

from .. import cli
from ..core.pipelinefile import default_file, unknown_system
from ..core.registry import known_systems

EPILOG = f"""\
The printed file holds every key with the system's default value and a comment. Every key is optional:
keep the ones you change (and `name:`, which names the default run directory runs/<questions>-<name>),
then record with it:

  python -m quotefinder.pipelines show > pipelines/mine.yaml
  python eval.py questions/ten.yaml --pipeline pipelines/mine.yaml
  python -m quotefinder.pipelines show quote-answer > pipelines/quote-answer.yaml

systems: {known_systems()[0]} (the default), {', '.join(known_systems()[1:])}
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m quotefinder.pipelines",
                                     description="Pipeline files for eval.py --pipeline.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    shown = commands.add_parser("show", help="print a system's default pipeline file",
                                description="Print a system's default pipeline file (YAML), ready to copy and edit.",
                                epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    shown.add_argument("system", nargs="?", default=known_systems()[0], metavar="SYSTEM",
                       help=f"the system (default {known_systems()[0]}; the systems are: {', '.join(known_systems())})")
    return parser


@cli.quiet_on_a_closed_stdout
def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as done:  # --help, or a usage error argparse has printed
        return int(done.code or 0)
    if args.system not in known_systems():
        print(f"python -m quotefinder.pipelines show: {unknown_system(args.system)}", file=sys.stderr)
        return cli.EXIT_ERROR
    sys.stdout.write(default_file(args.system))
    return cli.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
