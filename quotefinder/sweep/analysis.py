"""A sweep's analysis: the grid over every repeat, the recommended cell, the points worth reporting,
how sure the choice can be, and the CI gate at one point. Computing only; `report` writes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..questions import OUTCOMES, Outcome, Question
from .grid import CODE, Axis, Choice, Curve, Judged, Table, at_point, recommend_scores, score
from .replay import Replayed
from .stats import CrossValidation, ScoreModel, Stability, bootstrap, cross_validate, outcome_scores, wilson

BOOTSTRAP = 1000
BOOTSTRAP_BUDGET = 3e7  # work units (see `resamples_for`) x resamples, when the number is not asked for


@dataclass
class Point:
    """One pair of cutoffs with every question's decision and outcome there, per repeat."""

    name: str
    h: float
    a: float
    judged: list[list[Judged]]  # [repeat][question]
    _counts: np.ndarray | None = field(default=None, init=False, repr=False)

    @classmethod
    def of(cls, name: str, h: float, a: float, replayed: Replayed) -> Point:
        return cls(name, h, a, [at_point(replayed.questions, traces, h, a) for traces in replayed.traces])

    def counts(self) -> np.ndarray:
        """(repeats, outcomes): each repeat's counts, in `OUTCOMES` order."""
        if self._counts is None:
            self._counts = np.array([[sum(1 for j in run if j.outcome is outcome) for outcome in OUTCOMES]
                                     for run in self.judged])
        return self._counts

    def mean(self, outcome: Outcome) -> float:
        return float(self.counts()[:, CODE[outcome]].mean())

    def low_high(self, outcome: Outcome) -> tuple[int, int]:
        column = self.counts()[:, CODE[outcome]]
        return int(column.min()), int(column.max())

    def outcomes(self, index: int) -> list[Outcome]:
        """Question `index`'s outcome in each repeat."""
        return [run[index].outcome for run in self.judged]

    @property
    def first(self) -> list[Judged]:
        return self.judged[0]


@dataclass(frozen=True)
class Rate:
    """A proportion at a point with its 95% Wilson interval (None when nothing was counted)."""

    name: str
    successes: int
    trials: int
    interval: tuple[float, float] | None


@dataclass(frozen=True)
class Flaky:
    """A question whose decision at the recommended point differs between repeats."""

    question: Question
    outcomes: list[Outcome]  # in each repeat
    decisions: int  # how many different decisions (the sentence quoted, or none)


@dataclass(frozen=True)
class Gate:
    """A CI check of bounds at one point, in every repeat (the worst one decides)."""

    point: tuple[float, float]
    holds: bool
    words: str  # e.g. "PASS at (0.3, 0.9): wrong 0 <= 0 holds"


@dataclass
class Sweep:
    """A filled grid over every repeat and what the summary says about it."""

    replayed: Replayed
    h_axis: Axis
    a_axis: Axis
    wrong_cost: float
    per_repeat: np.ndarray  # (repeats, H, A, outcomes)
    curves: list[Curve]  # the first repeat's, one per question
    tables: list[Table]  # one per repeat
    choice: Choice
    default: Point
    recommended: Point
    stability: Stability | None = None
    bootstrap_capped: bool = False  # fewer resamples than the default, to keep a large sweep quick
    cross_validation: CrossValidation | None = None

    @property
    def counts(self) -> np.ndarray:
        """(H, A, outcomes): mean over repeats."""
        return self.per_repeat.mean(axis=0)

    @property
    def repeats(self) -> int:
        return len(self.per_repeat)

    @property
    def questions(self) -> list[Question]:
        """The swept questions, in file order."""
        return self.replayed.questions

    def score(self, point: Point) -> float:
        return float(score(point.counts(), self.wrong_cost).mean())

    def flaky(self) -> list[Flaky]:
        """Questions whose decision at the recommended point (the sentence quoted, or none) differs
        between repeats: each with its outcome in every repeat and how many different decisions."""
        found = []
        for index, question in enumerate(self.questions):
            quotes = {run[index].decision.sentence for run in self.recommended.judged}
            if len(quotes) > 1:
                found.append(Flaky(question, self.recommended.outcomes(index), len(quotes)))
        return found

    def rates(self, point: Point) -> list[Rate]:
        """Correct among answerable, wrong among quoted, no-answer among unanswerable (first repeat)."""
        counts = point.counts()[0]
        answerable = sum(1 for q in self.questions if q.expect == "answer")
        quoted = int(counts[CODE[Outcome.CORRECT]] + counts[CODE[Outcome.WRONG]] + counts[CODE[Outcome.UNJUDGED]])
        found = []
        for name, successes, trials in (
            ("correct among answerable questions", counts[CODE[Outcome.CORRECT]], answerable),
            ("wrong among quotes", counts[CODE[Outcome.WRONG]], quoted),
            ("no-answer among unanswerable questions", counts[CODE[Outcome.NO_ANSWER]],
             len(self.questions) - answerable),
        ):
            found.append(Rate(name, int(successes), int(trials), wilson(successes, trials)))
        return found

    def gate(self, at: tuple[float, float], max_wrong: int | None, min_correct: int | None) -> Gate:
        """Check the bounds at one point in every repeat (the worst one decides)."""
        runs = Point.of("gate", *at, self.replayed).counts()
        wrong = int(runs[:, CODE[Outcome.WRONG]].max())
        correct = int(runs[:, CODE[Outcome.CORRECT]].min())
        checks = []
        if max_wrong is not None:
            checks.append((wrong <= max_wrong, f"wrong {wrong} <= {max_wrong}"))
        if min_correct is not None:
            checks.append((correct >= min_correct, f"correct {correct} >= {min_correct}"))
        holds = all(ok for ok, _ in checks)
        words = ", ".join(f"{text} {'holds' if ok else 'BROKEN'}" for ok, text in checks) or "no bounds given"
        worst = " (the worst of the repeats)" if len(runs) > 1 else ""
        return Gate(at, holds, f"{'PASS' if holds else 'FAIL'} at ({at[0]:g}, {at[1]:g}){worst}: {words}")


def per_question_scores(point: Point, wrong_cost: float) -> np.ndarray:
    """Each question's contribution to the objective at a point, averaged over repeats."""
    values = outcome_scores(wrong_cost)
    return np.mean([[values[CODE[j.outcome]] for j in run] for run in point.judged], axis=0)


def resamples_for(model: ScoreModel, repeats: int, asked: int | None) -> int:
    """The bootstrap's size: as asked, or 1,000 unless the run or the grid is so large that fewer keep a
    sweep quick. A resample costs a pass over question x repeat x HAS_ANSWER_CUTOFF entries, plus the
    recommendation's erosion of the grid (cells x up to half the longer axis)."""
    if asked is not None:
        return asked
    work = model.n_questions * repeats * model.n_h + model.n_h * model.n_a * max(model.n_h, model.n_a) / 4
    return min(BOOTSTRAP, max(20, int(BOOTSTRAP_BUDGET / max(work, 1))))


def analyse(replayed: Replayed, h_axis: Axis, a_axis: Axis, wrong_cost: float, resamples: int | None = None,
            folds: int = 0, seed: int = 0) -> Sweep:
    """Fill the grid for every repeat, choose the recommended cell on the mean score, judge the default
    and recommended points, and measure how stable the choice is (bootstrap; K-fold if `folds`)."""
    h, a = h_axis.values, a_axis.values
    tables: list[Table] = []
    curves: list[Curve] = []
    for traces in replayed.traces:
        run_curves = [Curve.of(question, trace) for question, trace in zip(replayed.questions, traces, strict=True)]
        curves = curves or run_curves
        tables.append(Table.of(run_curves, h))
    per_repeat = np.stack([table.counts(a) for table in tables])
    config = replayed.record.config
    default = (config.has_answer_cutoff, config.answer_cutoff)
    model = ScoreModel(tables, a, wrong_cost)
    full = model.grid(np.ones(model.n_questions))
    choice = recommend_scores(full, h, a, default)
    default_point = Point.of("default", float(default[0]), float(default[1]), replayed)
    recommended = Point.of("recommended", float(h[choice.h_index]), float(a[choice.a_index]), replayed)
    result = Sweep(replayed, h_axis, a_axis, wrong_cost, per_repeat, curves, tables, choice, default_point, recommended)
    count = resamples_for(model, len(tables), resamples)
    if count > 0 and model.n_questions:
        region = np.round(full, 9) == np.round(full, 9).max()
        result.stability = bootstrap(model, h, a, default, (choice.h_index, choice.a_index), region,
                                     per_question_scores(default_point, wrong_cost), count, seed)
        result.bootstrap_capped = resamples is None and count < BOOTSTRAP
    if folds >= 2:
        expect = [q.expect for q in replayed.questions]
        result.cross_validation = cross_validate(model, tables, expect, folds, h, a, default, seed)
    return result
