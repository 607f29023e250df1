"""The decision rule: which candidates are compared, and which one, if any, is quoted.

This module is the rule. The pipeline (recording) calls `decide`; the quote finder's curve
(`recipe/system.py`), which everything after replay reads, follows from it and is tested against it at
every point, values exactly on a cutoff included.

Direction of both cutoffs: a probability passes a cutoff when ``probability >= cutoff``, so a value
exactly on a cutoff passes it. Values are compared unrounded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

HAS_ANSWER_CUTOFF = 0.3
ANSWER_CUTOFF = 0.6
MIN_SENTENCES = 1

# What each cutoff does, in the words every axis label and --help uses.
HAS_ANSWER_WORDS = "compare results whose has_answer >= it"
ANSWER_WORDS = "quote when the top compare probability >= it"


@dataclass(frozen=True)
class Cutoffs:
    """The recipe's three parameters; the defaults are its starting points, not validated values."""

    has_answer: float = HAS_ANSWER_CUTOFF
    answer: float = ANSWER_CUTOFF
    min_sentences: int = MIN_SENTENCES


@dataclass(frozen=True)
class Candidate:
    """One result's chosen sentence with the numbers behind it. `result` is 1-based, in search order."""

    result: int
    title: str
    url: str
    date: str | None
    sentence_id: int
    sentence: str
    choice_probability: float
    confidence: float
    has_answer: float

    @property
    def source(self) -> str:
        """Where the sentence comes from, as the recipe prints it: title, URL, date (the ones it has)."""
        return ", ".join(part for part in (self.title, self.url, self.date) if part)


@dataclass(frozen=True)
class Scored:
    """A candidate with its compare probability (`answers`), or None when nothing was compared."""

    candidate: Candidate
    answers: float | None


@dataclass(frozen=True)
class Decision:
    """What the pipeline does for one question at one pair of cutoffs.

    `quote` is the quoted candidate, or None for the no-answer line; `closest` is the candidate shown
    below the cutoff when nothing is quoted (None when there was no candidate at all).
    """

    quote: Scored | None
    closest: Scored | None
    qualified: tuple[int, ...]

    @property
    def sentence(self) -> str | None:
        """The quoted sentence, or None for the no-answer line: what judging looks at."""
        return self.quote.candidate.sentence if self.quote else None


def passes(value: Any, cutoff: Any) -> Any:
    """``value >= cutoff``: the one comparison behind both cutoffs. Works elementwise on numpy arrays."""
    return value >= cutoff


def qualified(candidates: Sequence[Candidate], has_answer_cutoff: float) -> tuple[Candidate, ...]:
    """The candidates that go into the compare request, in result order."""
    return tuple([c for c in candidates if passes(c.has_answer, has_answer_cutoff)])


def set_key(candidates: Sequence[Candidate]) -> tuple[int, ...]:
    """A qualified set named by its result numbers, e.g. (1, 3, 4)."""
    return tuple(c.result for c in candidates)


def best(compared: Sequence[Candidate], answers: Sequence[float]) -> Scored:
    """The top compared candidate: highest `answers`, then highest has_answer, then earliest result."""
    pairs = zip(compared, answers, strict=True)
    ranked = sorted(pairs, key=lambda pair: (-pair[1], -pair[0].has_answer, pair[0].result))
    return Scored(*ranked[0])


def closest(candidates: Sequence[Candidate]) -> Candidate:
    """The candidate shown when no set qualifies: highest has_answer, then earliest result."""
    return max(candidates, key=lambda c: (c.has_answer, -c.result))


def decide(
    candidates: Sequence[Candidate],
    compares: Mapping[tuple[int, ...], Sequence[float]],
    has_answer_cutoff: float,
    answer_cutoff: float,
) -> Decision:
    """Apply both cutoffs to one question.

    `candidates` are the ranked results' candidates in result order; `compares` maps a qualified set
    (see `set_key`) to its compare probabilities in candidate order. Raises KeyError naming the set
    when the qualified set's compare response is not there.
    """
    chosen = qualified(candidates, has_answer_cutoff)
    if not chosen:
        if not candidates:
            return Decision(None, None, ())
        return Decision(None, Scored(closest(candidates), None), ())
    key = set_key(chosen)
    top = best(chosen, compares[key])
    if passes(top.answers, answer_cutoff):
        return Decision(top, None, key)
    return Decision(None, top, key)
