"""`python sweep.py RUN...`: the project's sweeping command line as it has always been typed, every option in one
parser; each command line is routed to its verb of `quotefinder` (sweep, compare, drift, monitor, review:
`commands.sweeping.verb_of`)."""

from .commands.sweeping import main

__all__ = ["main"]
