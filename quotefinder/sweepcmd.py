"""`python sweep.py RUN...`: the project's sweeping command line as it has always been typed, every option in one
parser; each command line is routed to its verb of `quotefinder` (sweep, compare, drift, monitor, review:
`commands.sweeping.verb_of`)."""

import sys

from .commands.sweeping import main

__all__ = ["main"]

if __name__ == "__main__":  # `python -m quotefinder.sweepcmd`, as the benchmarks run it
    sys.exit(main())
