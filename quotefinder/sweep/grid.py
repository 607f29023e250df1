"""The cutoff grid: exact decimal axes, each question's decision as a function of both cutoffs, the
vectorised fill, and the recommended cell. (The tests hold the fill to a slow per-cell `decide`.)

Direction: a cutoff is passed by ``probability >= cutoff`` (`decision.passes`), on both axes; the
vectorised counts use `decision.cutoffs_passed` and `decision.values_below`, the same comparison.

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

from ..errors import InputError
from ..questions import OUTCOMES, Outcome, Question
from ..recipe.decision import Decision, Scored, cutoffs_passed, decide, passes, values_below
from ..recipe.pipeline import Trace

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


def parse_axis(spec: str, option: str = "") -> Axis:
    """'START:STOP:STEP', both ends included, in exact decimal steps inside [0, 1].

    Raises `InputError` (naming `option` when given) for a step <= 0, a step that does not land on STOP,
    or values outside [0, 1].
    """
    where = f"{option} {spec!r}" if option else repr(spec)
    parts = [part.strip() for part in spec.split(":")]
    try:
        start, stop, step = (Decimal(part) for part in parts) if len(parts) == 3 else (None, None, None)
    except InvalidOperation:
        start = stop = step = None
    if start is None or stop is None or step is None or not all(d.is_finite() for d in (start, stop, step)):
        raise InputError(f"{where}: write START:STOP:STEP, e.g. 0:1:0.05 (or 0.3:0.3:0.1 for one value)")
    if step <= 0:
        raise InputError(f"{where}: STEP must be greater than 0")
    if not Decimal(0) <= start <= stop <= Decimal(1):
        raise InputError(f"{where}: need 0 <= START <= STOP <= 1")
    if (stop - start) / step >= MAX_AXIS_VALUES:
        raise InputError(f"{where}: more than {MAX_AXIS_VALUES} values; at most {MAX_AXIS_VALUES} per axis")
    count, remainder = divmod(stop - start, step)
    if remainder != 0:
        raise InputError(f"{where}: STEP {step} does not reach STOP {stop} exactly from START {start}")
    return Axis(spec, tuple(start + step * k for k in range(int(count) + 1)))


@dataclass
class Curve:
    """One question's decision over both cutoffs.

    `thresholds` are the distinct has_answer values, ascending; set j is `qualified(candidates,
    thresholds[j])`, `tops[j]` its top candidate with its compare probability and `codes[j]` the
    outcome code of quoting it (None and -1 when that set was not needed, so not replayed). A
    HAS_ANSWER_CUTOFF above every threshold selects nothing; `unquoted` is the code of quoting nothing.
    """

    question: Question
    thresholds: np.ndarray
    tops: list[Scored | None]
    codes: list[int]
    unquoted: int

    @classmethod
    def of(cls, question: Question, trace: Trace) -> Curve:
        thresholds = [value for value, _ in trace.tops]
        tops = [top for _, top in trace.tops]
        codes = [CODE[question.judge(top.candidate.sentence)] if top else -1 for top in tops]
        return cls(question, np.array(thresholds, dtype=float), tops, codes, CODE[question.judge(None)])

    def set_index(self, has_answer_cutoff: float) -> int:
        """The index of the qualified set a cutoff selects (len(thresholds): the empty set): how many
        has_answer values fail the cutoff."""
        return int(values_below(self.thresholds, has_answer_cutoff))

    def top_at(self, has_answer_cutoff: float) -> tuple[Scored | None, int]:
        """The top candidate of the set a cutoff selects (None when nothing qualifies) and the outcome
        code of quoting it (-1 when nothing qualifies)."""
        index = self.set_index(has_answer_cutoff)
        if index == len(self.tops):
            return None, -1
        return self.tops[index], self.codes[index]


@dataclass
class Table:
    """Every question's decision along HAS_ANSWER_CUTOFF, as arrays: row q, column h.

    `probability[q, h]` is the compare probability of the top candidate of the set h selects (-inf
    when it selects nothing), `quoted[q, h]` the outcome code of quoting it, `unquoted[q]` the code of
    quoting nothing. At ANSWER_CUTOFF a the outcome is `quoted` where `passes(probability, a)`.
    """

    has_answer: np.ndarray
    probability: np.ndarray
    quoted: np.ndarray
    unquoted: np.ndarray

    @classmethod
    def of(cls, curves: Sequence[Curve], has_answer: np.ndarray) -> Table:
        """Built without a loop over cells: the set index of (q, h) is how many of q's thresholds are
        below h, counted for all questions at once with one searchsorted and a cumulative sum."""
        n_q, n_h = len(curves), len(has_answer)
        sizes = np.array([len(c.tops) for c in curves], dtype=np.int64)
        starts = np.cumsum(sizes + 1) - (sizes + 1)  # q's block: its sets, then a sentinel for "none"
        probability = np.full(int((sizes + 1).sum()), -np.inf)
        quoted = np.full(len(probability), -1, dtype=np.int64)
        for curve, start in zip(curves, starts, strict=True):
            for j, top in enumerate(curve.tops):
                if top is not None:
                    probability[start + j] = top.answers
                    quoted[start + j] = curve.codes[j]
        thresholds = np.concatenate([c.thresholds for c in curves]) if n_q else np.zeros(0)
        owner = np.repeat(np.arange(n_q), sizes)
        below = np.zeros((n_q, n_h + 1), dtype=np.int64)
        np.add.at(below, (owner, cutoffs_passed(has_answer, thresholds)), 1)
        index = starts[:, None] + np.cumsum(below, axis=1)[:, :n_h]
        if ((quoted[index] < 0) & (index - starts[:, None] < sizes[:, None])).any():
            raise AssertionError("a qualified set on the grid was not replayed")
        unquoted = np.array([c.unquoted for c in curves], dtype=np.int64)
        return cls(has_answer, probability[index], quoted[index], unquoted)

    def outcomes(self, answer_cutoff: float) -> np.ndarray:
        """Outcome codes (Q, H) at one ANSWER_CUTOFF."""
        return np.where(passes(self.probability, answer_cutoff), self.quoted, self.unquoted[:, None])

    def counts(self, answer: np.ndarray) -> np.ndarray:
        """Outcome counts, shape (H, len(answer), len(OUTCOMES)), in `OUTCOMES` order.

        `answer` must be ascending. A question quotes at (h, a) when its top's probability p for the
        set h selects satisfies p >= a, i.e. for the first `cutoffs_passed(answer, p)` values of a.
        """
        n_h, n_a, n_k = len(self.has_answer), len(answer), len(OUTCOMES)
        passed = cutoffs_passed(answer, self.probability)  # (Q, H): how many a-values p passes
        h_index = np.broadcast_to(np.arange(n_h), passed.shape)
        unquoted = np.broadcast_to(self.unquoted[:, None], passed.shape)
        shape = (n_h, n_a + 1, n_k)
        quotes = passed > 0

        def histogram(*index: np.ndarray) -> np.ndarray:
            return np.bincount(np.ravel_multi_index(index, shape), minlength=int(np.prod(shape))).reshape(shape)

        quote_hist = histogram(h_index[quotes], passed[quotes], self.quoted[quotes])
        none_hist = histogram(h_index.ravel(), passed.ravel(), unquoted.ravel())
        # no quote at answer index i when passed <= i: the sum over passed in [0, i]
        return quoted_sums(quote_hist) + np.cumsum(none_hist, axis=1)[:, :n_a]


    def quotes(self, answer: np.ndarray, codes: Sequence[int] = tuple(CODE.values())) -> np.ndarray:
        """How many questions are quoted, with an outcome code in `codes`, at each cell (H, A) (ints)."""
        n_h, n_a = len(self.has_answer), len(answer)
        passed = cutoffs_passed(answer, self.probability)
        counted = np.isin(self.quoted, list(codes)) & (passed > 0)
        h_index = np.broadcast_to(np.arange(n_h), passed.shape)
        histogram = np.bincount(h_index[counted] * (n_a + 1) + passed[counted], minlength=n_h * (n_a + 1))
        return quoted_sums(histogram.reshape(n_h, n_a + 1))


def quoted_sums(histogram: np.ndarray) -> np.ndarray:
    """From a histogram over T, how many ANSWER_CUTOFF values a top's probability passes (axis 1, size
    A + 1), the sum over T > i for every answer index i (size A): a top is quoted exactly where i < T."""
    return np.cumsum(histogram[:, ::-1], axis=1)[:, ::-1][:, 1:]


@dataclass(frozen=True)
class Judged:
    """One question's decision at one pair of cutoffs, and its outcome."""

    decision: Decision
    outcome: Outcome


def at_point(questions: Sequence[Question], traces: Sequence[Trace], h: float, a: float) -> list[Judged]:
    """Each question's decision and outcome at one pair of cutoffs, straight from `decide`."""
    judged = []
    for question, trace in zip(questions, traces, strict=True):
        decision = decide(trace.candidates, trace.compares, h, a)
        judged.append(Judged(decision, question.judge(decision.sentence)))
    return judged


def score(counts: np.ndarray, wrong_cost: float) -> np.ndarray:
    """The objective: correct + no-answer - wrong_cost x wrong (missed, unjudged and unlabelled score 0).

    `counts` has outcomes on its last axis: one point's counts, or a whole grid's.
    """
    return (counts[..., CODE[Outcome.CORRECT]] + counts[..., CODE[Outcome.NO_ANSWER]]
            - wrong_cost * counts[..., CODE[Outcome.WRONG]])


def depth(region: np.ndarray) -> np.ndarray:
    """For each cell of a boolean region: its Chebyshev distance, in grid steps, to the nearest cell
    outside the region, the grid's edge counting as outside (0 outside; a region's edge cells are 1
    deep, so a region that runs to the end of an axis is not deeper for it)."""
    result = np.zeros(region.shape, dtype=float)
    inside = region.copy()
    level = 0
    while inside.any():
        level += 1
        result[inside] = level
        padded = np.pad(inside, 1, mode="constant", constant_values=False)
        shrunk = np.ones_like(inside)
        for di in (0, 1, 2):
            for dj in (0, 1, 2):
                shrunk &= padded[di : di + inside.shape[0], dj : dj + inside.shape[1]]
        inside = shrunk
    return result


def deepest_nearest(region: np.ndarray, has_answer: np.ndarray, answer: np.ndarray,
                    default: tuple[float, float]) -> tuple[int, int, float]:
    """The cell of a non-empty region deepest inside it (`depth`), then nearest the default point, then
    with the lowest HAS_ANSWER_CUTOFF, then the lowest ANSWER_CUTOFF; with its depth."""
    depths = depth(region)
    h_grid, a_grid = np.meshgrid(has_answer, answer, indexing="ij")
    # squared distance rounded to 12 decimals: (0.1, 0.5) and (0.2, 0.4) are equally far from (0.3, 0.6)
    # in decimals, and must stay equal in floats so that the lower HAS_ANSWER_CUTOFF wins the tie
    distance = np.round((h_grid - default[0]) ** 2 + (a_grid - default[1]) ** 2, 12)
    deepest = depths == depths[region].max()
    candidates = np.flatnonzero((region & deepest).ravel())  # row-major: lower h first, then lower a
    i, j = np.unravel_index(candidates[np.argmin(distance.ravel()[candidates])], region.shape)
    return int(i), int(j), float(depths[i, j])


def top_cell(scores: np.ndarray, has_answer: np.ndarray, answer: np.ndarray,
             default: tuple[float, float]) -> tuple[int, int]:
    """The best-scoring cell: among cells sharing the top score, `deepest_nearest`.

    Scores are compared to 9 decimals: means over repeats and weighted sums are floats, and two cells
    with the same true score must not differ by a rounding error. -inf marks cells that may not be chosen.
    """
    rounded = np.round(scores, 9)
    i, j, _ = deepest_nearest(rounded == rounded.max(), has_answer, answer, default)
    return i, j


def cell_index(axis_values: np.ndarray, value: float) -> int | None:
    """The index of `value` on an axis (to 9 decimals), None when it is not a grid value."""
    found = np.flatnonzero(np.isclose(axis_values, value, rtol=0, atol=1e-9))
    return int(found[0]) if len(found) else None
