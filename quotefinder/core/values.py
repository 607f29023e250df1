"""The numbers an option takes (a count, a rate, a number of seconds), each read from its text by one function
that refuses a value out of its bounds with words saying what it takes: argparse types, shared by the command
lines (`cli`, `commands`) and the Python API (`api`), so that both refuse exactly the same values. A number's
text is at most `MAX_NUMBER_TEXT` characters: no one types more, and a number of thousands of digits costs time
to read."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import TypeVar

from .textsafe import shown

Number = TypeVar("Number", int, float)


def bounded(kind: Callable[[str], Number], minimum: float, what: str, finite: bool = True,
            maximum: float | None = None) -> Callable[[str], Number]:
    """An argparse type: a `kind` (int or float) of at least `minimum` and, given, at most `maximum`; never NaN (nor
    infinite if `finite`); its text at most `MAX_NUMBER_TEXT` characters (no one types more, and a number of
    thousands of digits costs time to read)."""

    def parse(text: str) -> Number:
        try:
            if not plain(text):
                raise ValueError
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{shown(text)} is not {what}") from None
        if not value >= minimum or (finite and not math.isfinite(value)) or (maximum is not None
                                                                            and not value <= maximum):
            raise argparse.ArgumentTypeError(f"{shown(text)} is not {what}")
        return value

    return parse


MAX_NUMBER_TEXT = 40


def plain(text: str) -> bool:
    """Whether `text` may be read as a number: at most `MAX_NUMBER_TEXT` characters of ASCII, no `_` (Python reads
    `1_0` as 10 and full-width digits as digits; no one means them on a command line)."""
    return len(text) <= MAX_NUMBER_TEXT and text.isascii() and "_" not in text
MAX_COUNT = 10**12  # more questions, requests or quotes than any run holds
positive_int = bounded(int, 1, "a whole number from 1 to 10^12", maximum=MAX_COUNT)
count = bounded(int, 0, "a whole number from 0 to 10^12", maximum=MAX_COUNT)
seed = bounded(int, 0, "a whole number from 0 to 2^63 - 1", maximum=2**63 - 1)
jobs = bounded(int, 1, "a whole number of processes from 1 to 64", maximum=64)
concurrency = bounded(int, 1, "a whole number from 1 to 1,000", maximum=1000)
repeats = bounded(int, 1, "a whole number from 1 to 1,000", maximum=1000)
retries = bounded(int, 0, "a whole number from 0 to 100", maximum=100)
wrong_cost = bounded(float, 0, "a number from 0 to 1,000,000", maximum=1e6)
rate = bounded(float, 0, "a rate from 0 (no limit) to 1,000,000 requests a second", maximum=1e6)
timeout = bounded(float, 0.001, "a number of seconds from 0.001 to 86,400", maximum=86_400)
backoff = bounded(float, 0, "a number of seconds from 0 to 3,600", maximum=3_600)
price = bounded(float, 0, "a price from 0 to 10^9", maximum=1e9)
MAX_FOLDS = 100



def folds(text: str) -> int:
    """A number of cross-validation folds: 0 (none) or from 2 to `MAX_FOLDS`."""
    value = bounded(int, 0, f"a whole number from 0 to {MAX_FOLDS}", maximum=MAX_FOLDS)(text)
    if value == 1:
        raise argparse.ArgumentTypeError("cross-validation needs at least 2 folds (0: none)")
    return value


RATE_LEAST = 1e-6  # a rate, share or probability nearer 0 or 1 than this means nothing that can be measured


def open_unit(what: str) -> Callable[[str], float]:
    """An argparse type: a number strictly between 0 and 1 (a rate, a share, a probability), at least `RATE_LEAST`
    from either end."""

    def parse(text: str) -> float:
        try:
            value = float(text) if plain(text) else math.nan
        except ValueError:
            value = math.nan
        if not RATE_LEAST <= value <= 1.0 - RATE_LEAST:
            raise argparse.ArgumentTypeError(f"{shown(text)}: {what} must be a number strictly between 0 and 1 "
                                             f"(from {RATE_LEAST:g} to 1 - {RATE_LEAST:g}), e.g. 0.05")
        return value

    return parse
