"""The cutoff grid: exact decimal axes, each question's decision as a function of both cutoffs, the
vectorised fill, a slow per-cell reference, and the recommended cell.

Direction: a cutoff is passed by ``probability >= cutoff`` (`decision.passes`), on both axes.

The fill never loops over cells in Python. For one question, HAS_ANSWER_CUTOFF only matters through
the qualified set it selects, and the sets change only at the question's distinct has_answer
values; each set has one top candidate (`decision.best`) with one compare probability p, quoted
exactly when ``p >= ANSWER_CUTOFF``. So a `Curve` per question (at most five sets) plus
`searchsorted` and cumulative sums fill an H x A grid in O(questions x H + H x A) time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

import numpy as np

from .decision import Decision, Scored, best, decide, passes, qualified, set_key
from .errors import InputError
from .pipeline import Trace
from .questions import OUTCOMES, Outcome, Question

CODE = {outcome: code for code, outcome in enumerate(OUTCOMES)}
MAX_AXIS_VALUES = 1001


@dataclass(frozen=True)
class Axis:
    """Cutoff values in ascending order, each the float nearest an exact decimal on the grid."""

    spec: str
    decimals: tuple[Decimal, ...]

    @property
    def values(self) -> np.ndarray:
        return np.array([float(d) for d in self.decimals])

    def text(self, index: int) -> str:
        """The decimal as written, e.g. '0.35' (never '0.35000000000000003')."""
        return format(self.decimals[index].normalize(), "f")


def parse_axis(spec: str, option: str) -> Axis:
    """'START:STOP:STEP', both ends included, in exact decimal steps inside [0, 1].

    Raises `InputError` for a step <= 0, a step that does not land on STOP, or values outside [0, 1].
    """
    parts = spec.split(":")
    try:
        start, stop, step = (Decimal(part.strip()) for part in parts) if len(parts) == 3 else (None,) * 3
    except InvalidOperation:
        start = None
    if start is None or not all(d.is_finite() for d in (start, stop, step)):
        raise InputError(f"{option} {spec!r}: write START:STOP:STEP, e.g. 0:1:0.05 (or 0.3:0.3:0.1 for one value)")
    if step <= 0:
        raise InputError(f"{option} {spec!r}: STEP must be greater than 0")
    if not Decimal(0) <= start <= stop <= Decimal(1):
        raise InputError(f"{option} {spec!r}: need 0 <= START <= STOP <= 1")
    count, remainder = divmod(stop - start, step)
    if remainder != 0:
        raise InputError(f"{option} {spec!r}: STEP {step} does not reach STOP {stop} exactly from START {start}")
    if count + 1 > MAX_AXIS_VALUES:
        raise InputError(f"{option} {spec!r}: {count + 1} values; at most {MAX_AXIS_VALUES} per axis")
    return Axis(spec, tuple(start + step * k for k in range(int(count) + 1)))


@dataclass
class Curve:
    """One question's decision over both cutoffs.

    `thresholds` are the distinct has_answer values, ascending; set j is `qualified(candidates,
    thresholds[j])`, and `tops[j]` its top candidate with its compare probability (None when that
    set was not needed, so not replayed). A HAS_ANSWER_CUTOFF above every threshold selects nothing.
    """

    question: Question
    trace: Trace
    thresholds: np.ndarray
    tops: list[Scored | None]

    @classmethod
    def of(cls, question: Question, trace: Trace) -> Curve:
        thresholds = sorted({c.has_answer for c in trace.candidates})
        tops: list[Scored | None] = []
        for value in thresholds:
            chosen = qualified(trace.candidates, value)
            answers = trace.compares.get(set_key(chosen))
            tops.append(best(chosen, answers) if answers is not None else None)
        return cls(question, trace, np.array(thresholds, dtype=float), tops)

    def set_index(self, has_answer_cutoffs: np.ndarray) -> np.ndarray:
        """For each cutoff, the index of its qualified set (len(thresholds): the empty set)."""
        return np.searchsorted(self.thresholds, has_answer_cutoffs, side="left")

    def rows(self, has_answer_cutoffs: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        """Per HAS_ANSWER_CUTOFF: the top's compare probability (-inf: nothing to quote) and the
        outcome code if it is quoted; then the outcome code of quoting nothing."""
        probability = np.full(len(self.tops) + 1, -np.inf)
        quoted = np.full(len(self.tops) + 1, -1)
        for j, top in enumerate(self.tops):
            if top is not None:
                probability[j] = top.answers
                quoted[j] = CODE[self.question.judge(top.candidate.sentence)]
        index = self.set_index(has_answer_cutoffs)
        needed = index < len(self.tops)
        if np.any(quoted[index[needed]] < 0):
            raise AssertionError(f"{self.question.id}: a qualified set on the grid was not replayed")
        return probability[index], quoted[index], CODE[self.question.judge(None)]

    def along_has_answer(self, has_answer_cutoffs: np.ndarray, answer_cutoff: float) -> list[Outcome]:
        """The outcome at each HAS_ANSWER_CUTOFF, at one ANSWER_CUTOFF."""
        probability, quoted, unquoted = self.rows(has_answer_cutoffs)
        codes = np.where(passes(probability, answer_cutoff), quoted, unquoted)
        return [OUTCOMES[code] for code in codes]


def fill(curves: Sequence[Curve], has_answer: np.ndarray, answer: np.ndarray) -> np.ndarray:
    """Outcome counts, shape (len(has_answer), len(answer), len(OUTCOMES)), in `OUTCOMES` order.

    `answer` must be ascending. A question quotes at (h, a) when its top's probability p for the set
    h selects satisfies p >= a, i.e. for the first `searchsorted(answer, p, 'right')` values of a.
    """
    n_h, n_a, n_k = len(has_answer), len(answer), len(OUTCOMES)
    counts = np.zeros((n_h, n_a, n_k), dtype=np.int64)
    if not curves:
        return counts
    rows = [curve.rows(has_answer) for curve in curves]
    probability = np.stack([r[0] for r in rows])  # (Q, H)
    quoted = np.stack([r[1] for r in rows])
    unquoted = np.repeat(np.array([r[2] for r in rows])[:, None], n_h, axis=1)
    passed = np.searchsorted(answer, probability, side="right")  # (Q, H): how many a-values p passes
    h_index = np.broadcast_to(np.arange(n_h), passed.shape)
    shape = (n_h, n_a + 1, n_k)
    flat = np.ravel_multi_index

    quote_hist = np.bincount(flat((h_index[passed > 0], passed[passed > 0], quoted[passed > 0]), shape).ravel(),
                             minlength=np.prod(shape)).reshape(shape)
    none_hist = np.bincount(flat((h_index.ravel(), passed.ravel(), unquoted.ravel()), shape),
                            minlength=np.prod(shape)).reshape(shape)
    # quote at answer index i when i < passed: sum over passed in (i, n_a]; no quote when passed <= i.
    counts += np.cumsum(quote_hist[:, ::-1], axis=1)[:, ::-1][:, 1:, :]
    counts += np.cumsum(none_hist, axis=1)[:, :n_a, :]
    return counts


def at_point(items: Sequence[tuple[Question, Trace]], h: float, a: float) -> list[tuple[Decision, Outcome]]:
    """Each question's decision and outcome at one pair of cutoffs, straight from `decide`."""
    judged = []
    for question, trace in items:
        decision = decide(trace.candidates, trace.compares, h, a)
        judged.append((decision, question.judge(decision.quote.candidate.sentence if decision.quote else None)))
    return judged


def slow_fill(
    items: Sequence[tuple[Question, Trace]], has_answer: Sequence[float], answer: Sequence[float]
) -> np.ndarray:
    """The obvious reference for `fill`: every cell, every question, the pipeline's own `decide`."""
    counts = np.zeros((len(has_answer), len(answer), len(OUTCOMES)), dtype=np.int64)
    for i, h in enumerate(has_answer):
        for j, a in enumerate(answer):
            for _, outcome in at_point(items, h, a):
                counts[i, j, CODE[outcome]] += 1
    return counts


def score(counts: np.ndarray, wrong_cost: float) -> np.ndarray:
    """The objective: correct + no-answer - wrong_cost x wrong (unjudged and missed score 0).

    `counts` has outcomes on its last axis: one point's counts, or a whole grid's.
    """
    return (counts[..., CODE[Outcome.CORRECT]] + counts[..., CODE[Outcome.NO_ANSWER]]
            - wrong_cost * counts[..., CODE[Outcome.WRONG]])


def depth(region: np.ndarray) -> np.ndarray:
    """For each cell of a boolean region: its Chebyshev distance, in grid steps, to the nearest cell
    outside the region (0 outside; the grid's edge does not count as outside; inf if nothing is)."""
    result = np.zeros(region.shape, dtype=float)
    inside = region.copy()
    level = 0
    while inside.any():
        level += 1
        result[inside] = level
        padded = np.pad(inside, 1, mode="edge")
        shrunk = np.ones_like(inside)
        for di in (0, 1, 2):
            for dj in (0, 1, 2):
                shrunk &= padded[di : di + inside.shape[0], dj : dj + inside.shape[1]]
        if (shrunk == inside).all():
            result[inside] = np.inf
            break
        inside = shrunk
    return result


@dataclass(frozen=True)
class Choice:
    """The recommended cell and why."""

    h_index: int
    a_index: int
    best_score: float
    depth: float
    tied: int  # cells sharing the best score


def recommend(counts: np.ndarray, has_answer: np.ndarray, answer: np.ndarray, wrong_cost: float,
              default: tuple[float, float]) -> Choice:
    """The best-scoring cell deepest inside its region of equal score; then the one nearest the default
    point; then the lowest HAS_ANSWER_CUTOFF, then the lowest ANSWER_CUTOFF."""
    scores = score(counts, wrong_cost)
    top = scores.max()
    region = scores == top
    depths = depth(region)
    h_grid, a_grid = np.meshgrid(has_answer, answer, indexing="ij")
    distance = np.hypot(h_grid - default[0], a_grid - default[1])
    cells = [(-depths[i, j], distance[i, j], i, j) for i, j in zip(*np.nonzero(region), strict=True)]
    _, _, i, j = min(cells)
    return Choice(int(i), int(j), float(top), float(depths[i, j]), int(region.sum()))
