"""`python sweep.py` and `python eval.py`, the README's first two commands: aliases of the verbs, each command line of
the old forms mapped onto its verb, which then does everything (its parser, the project's configuration, its
messages, its exit status):

    sweep.py RUN ...                  quotefinder sweep RUN ...
    sweep.py RUN_A RUN_B ...          quotefinder compare RUN_A RUN_B ...
    sweep.py NEW --drift [RUN] ...    quotefinder drift NEW [RUN] ...
    sweep.py --monitor RUN R1 ...     quotefinder monitor RUN R1 ...
    sweep.py RUN --review ...         quotefinder review RUN ...
    eval.py QUESTIONS ...             quotefinder record QUESTIONS ...
    eval.py --refresh RUN ...         quotefinder refresh RUN ...

and an axis's older flag, its system's own (`AxisSpec.flag`: the quote finder's `--has-answer X` and `--answer X`;
`--has-answer-range X` of a recording) as `--grid NAME=X` (`--range NAME=X`).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from ..core.registry import DEFAULT_SYSTEM, system

SWEEPING = ("sweep", "compare", "drift", "monitor", "review")


def _flags(suffix: str, option: str) -> dict[str, str]:
    """Each older axis flag (with `suffix`) of the default system, and the option of the verb it stands for."""
    return {f"{spec.flag}{suffix}": f"{option} {spec.name}=" for spec in system(DEFAULT_SYSTEM).axes if spec.flag}


def _renamed(words: Sequence[str], flags: dict[str, str]) -> list[str]:
    """`words` with each older flag (`--flag X` or `--flag=X`) written as the option it stands for."""
    found: list[str] = []
    given = iter(words)
    for word in given:
        flag, equals, value = word.partition("=")
        if flag in flags:
            option, prefix = flags[flag].split(" ")
            found += [option, prefix + (value if equals else next(given, ""))]
        else:
            found.append(word)
    return found


def _switches() -> set[str]:
    """The options of the sweeping verbs that take no value: the rest take the word after them."""
    switches = set()
    for verb in SWEEPING:
        parser = importlib.import_module(f".{verb}", __package__).build_parser()
        switches |= {flag for flag, action in parser._option_string_actions.items() if action.nargs == 0}
    return switches


def sweep_words(argv: Sequence[str]) -> tuple[str, list[str]]:
    """The verb a `python sweep.py` command line (`argv`, after the program) is, and the words to give it."""
    words = _renamed(argv, _flags("", "--grid"))
    verb = "sweep"
    if "--monitor" in words:
        verb = "monitor"
        words.remove("--monitor")
    elif "--review" in words:
        verb = "review"
        words.remove("--review")
    drift = next((n for n, word in enumerate(words) if word == "--drift" or word.startswith("--drift=")), None)
    if drift is not None:
        verb = "drift"
        flag, equals, named = words.pop(drift).partition("=")
        if not equals and drift < len(words) and not words[drift].startswith("-"):
            named = words.pop(drift)  # --drift RUN: the run refreshed, REFRESHED of the verb
        words = [*_positionals(words)[:1], *([named] if named else []), *_without_positionals(words, 1)]
    elif verb == "sweep" and len(_positionals(words)) > 1:
        verb = "compare"
    return verb, words


def _positionals(words: Sequence[str]) -> list[str]:
    """The words that are no option and no option's value."""
    return [word for word, positional in zip(words, _marks(words), strict=True) if positional]


def _without_positionals(words: Sequence[str], count: int) -> list[str]:
    """`words` without their first `count` positionals."""
    kept, skipped = [], 0
    for word, positional in zip(words, _marks(words), strict=True):
        if positional and skipped < count:
            skipped += 1
            continue
        kept.append(word)
    return kept


def _marks(words: Sequence[str]) -> list[bool]:
    """For each word, whether it is a positional (no option, no option's value)."""
    switches, marks, value = _switches(), [], False
    for word in words:
        if value:
            marks.append(False)
            value = False
        elif word.startswith("-"):
            marks.append(False)
            value = word not in switches and "=" not in word
        else:
            marks.append(True)
    return marks


def eval_words(argv: Sequence[str]) -> tuple[str, list[str]]:
    """The verb a `python eval.py` command line (`argv`, after the program) is, and the words to give it."""
    words = _renamed(argv, _flags("-range", "--range"))
    refresh = next((n for n, word in enumerate(words) if word == "--refresh" or word.startswith("--refresh=")), None)
    if refresh is None:
        return "record", words
    flag, equals, run = words.pop(refresh).partition("=")
    if not equals and refresh < len(words):
        run = words.pop(refresh)
    return "refresh", [run, *words]
