"""`python -m quotefinder.pipelines show [SYSTEM]`: print a system's default pipeline file, to copy and edit (as
`quotefinder pipeline show` does: `commands.pipeline`)."""

from __future__ import annotations

import sys

from .. import cli
from ..commands.pipeline import build_parser, run

PROG = "python -m quotefinder.pipelines"


@cli.quiet_on_a_closed_stdout
def main(argv: list[str] | None = None) -> int:
    return run(argv, build_parser(PROG))


if __name__ == "__main__":
    sys.exit(main())
