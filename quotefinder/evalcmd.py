"""`python eval.py QUESTIONS`: the project's recording command line as it has always been typed; routed to
`quotefinder record`, or with --refresh to `quotefinder refresh` (`commands.recording.run`)."""

import sys

from .commands.recording import main

__all__ = ["main"]

if __name__ == "__main__":  # `python -m quotefinder.evalcmd`, as the benchmarks run it
    sys.exit(main())
