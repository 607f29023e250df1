"""`python eval.py QUESTIONS`: the project's recording command line as it has always been typed; routed to
`quotefinder record`, or with --refresh to `quotefinder refresh` (`commands.recording.run`)."""

from .commands.recording import main

__all__ = ["main"]
