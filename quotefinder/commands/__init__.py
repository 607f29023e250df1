"""`quotefinder VERB ...`: the project's one command, a verb per job, each with only its own options. `main` reads
the verb and hands the rest of the command line to that verb's module (`VERBS`); `python eval.py` and
`python sweep.py` are aliases routed to these verbs (`recording.main`, `sweeping.main`)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

from .. import cli

# verb: (module in this package, the line `quotefinder --help` gives it)
VERBS = {
    "record": ("record", "record a question set's API responses (resumes; --estimate costs it)"),
    "refresh": ("refresh", "record a seeded sample of a run's questions afresh, for drift"),
    "sweep": ("sweep", "replay one run over a grid of cutoffs and write its report"),
    "compare": ("compare", "compare systems recorded on the same questions; say which to ship"),
    "drift": ("drift", "compare a refresh with the run it refreshed: does the evidence still hold?"),
    "monitor": ("monitor", "watch the shipped cell's wrong-answer rate over a run's refreshes"),
    "review": ("review", "label questions and judge quotes the grid lacks, then sweep"),
    "import": ("importing", "write a question file from a labelled data set (SQuAD 2.0, JSONL, CSV)"),
    "pipeline": ("pipeline", "pipeline files: `pipeline show [SYSTEM]` prints one to copy and edit"),
}
USAGE = "usage: quotefinder VERB [options]   (quotefinder VERB --help: that verb's options)"


def overview() -> str:
    """`quotefinder --help`: the verbs, one line each, and two examples."""
    lines = [USAGE, "", "Record a quote-finding pipeline's API responses once, then tune its cutoffs offline.", "",
             "verbs:"]
    lines += [f"  {verb:<10}{words}" for verb, (_, words) in VERBS.items()]
    lines += ["", "exit status: 0 done; 1 a gate (or a drift, a monitor) was checked and failed; 2 it cannot run;",
              f"{cli.BROKEN_PIPE_HELP}",
              "", "examples:", "  quotefinder record questions/ten.yaml", "  quotefinder sweep runs/ten"]
    return "\n".join(lines) + "\n"


@cli.quiet_on_a_closed_stdout  # every verb writes its files before it prints: a closed pipe loses nothing
@cli.guarded("quotefinder")
def main(argv: list[str] | None = None) -> int:
    """Run `quotefinder VERB ...` (`argv`: the words after the program); the verb's exit status (exit 2 with one
    line for anything the verb did not return a status for: `cli.guarded`)."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        (sys.stdout if argv else sys.stderr).write(overview())
        return cli.EXIT_OK if argv else cli.EXIT_ERROR
    verb, rest = argv[0], argv[1:]
    if verb not in VERBS:
        print(f"{USAGE}\nquotefinder: error: unknown verb {verb!r}; the verbs are: {', '.join(VERBS)}",
              file=sys.stderr)
        return cli.EXIT_ERROR
    return verb_main(verb)(rest)


def verb_main(verb: str) -> Callable[..., int]:
    """The `main` of a verb's module (only the verb run is imported)."""
    module = importlib.import_module(f".{VERBS[verb][0]}", __name__)
    found: Callable[..., int] = module.main
    return found


@cli.quiet_on_a_closed_stdout
@cli.guarded("quotefinder")
def alias(verb: str, words: list[str], **given: Any) -> int:
    """Run `verb` with `words` (and the keyword arguments its `main` takes: a test's terminal, environment, or
    transport) as `quotefinder VERB WORDS` runs it: the aliases' one way in (`aliases`)."""
    return verb_main(verb)(words, **given)
