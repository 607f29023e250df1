"""Replay a recorded run over a grid of cutoffs, offline: see `python sweep.py --help`."""

import sys

from quotefinder.sweepcmd import main

if __name__ == "__main__":
    sys.exit(main())
