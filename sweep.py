"""Replay a recorded run over a grid of cutoffs, offline: see `python sweep.py --help`."""

from quotefinder import cli
from quotefinder.sweepcmd import main

if __name__ == "__main__":
    cli.run_then_exit(main)
