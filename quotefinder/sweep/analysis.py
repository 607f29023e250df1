"""A sweep's analysis: the grid over every repeat, the recommended cell, the points worth reporting,
how sure the choice can be, the wrong-quote guarantee, and the CI gate at one point. Computing only;
the `report` package lays it out.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..questions import OUTCOMES, UNKNOWN, Outcome, Question
from . import guarantee
from .grid import CODE, Axis, Curve, Judged, Table, at_point, cell_index
from .labelling import NeedsLabel, labels_by_floor, needs_label, quoted_cells
from .replay import Replayed
from .stats import (
    Choice,
    CrossValidation,
    ScoreModel,
    Stability,
    bootstrap,
    choose,
    cross_validate,
    outcome_scores,
    weighted_wilson,
)

BOOTSTRAP = 1000
BOOTSTRAP_BUDGET = 3e7  # work units (see `resamples_for`) x resamples, when the number is not asked for
FOLDS = 5
COSTS = (1.0, 2.0, 5.0, 10.0)  # wrong-quote costs the summary shows the recommendation for
LOSSY = (Outcome.WRONG, *UNKNOWN)  # a quote not known to be correct counts as wrong for the guarantee


@dataclass(frozen=True)
class Settings:
    """How to analyse: the objective, how sure to be, and what to guarantee."""

    wrong_cost: float = 2.0
    resamples: int | None = None  # bootstrap size; None: 1,000, fewer for very large sweeps
    folds: int | None = None  # cross-validation folds; None: 5 (at most one per question); 0: none
    seed: int = 0
    max_wrong_rate: float | None = None  # certify cells at this wrong-quote rate
    delta: float = guarantee.DELTA  # ... with probability at least 1 - delta
    answerable_share: float | None = None  # weight the questions to this production mix


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
    """A proportion at a point over questions (each question's repeats averaged, weighted to the production
    mix when there is one) with its 95% Wilson interval (None when nothing was counted). `upper` is the
    proportion counting unjudged quotes as wrong too, for a rate shown as a range."""

    name: str
    successes: float
    trials: float
    effective: float  # trials for the interval (Kish's effective sample size under weights)
    interval: tuple[float, float] | None
    upper_successes: float | None = None
    upper_interval: tuple[float, float] | None = None


@dataclass(frozen=True)
class Flaky:
    """A question whose decision at the recommended point differs between repeats."""

    question: Question
    outcomes: list[Outcome]  # in each repeat
    decisions: int  # how many different decisions (the sentence quoted, or none)


@dataclass(frozen=True)
class Gate:
    """A CI check at one point: count bounds in every repeat (the worst one decides), and, with a
    certificate, whether the point is certified."""

    point: tuple[float, float]
    holds: bool
    words: str  # e.g. "PASS at (0.3, 0.9): wrong 0 <= 0 holds"


@dataclass(frozen=True)
class CostChoice:
    """The recommendation had a wrong quote cost `cost` instead."""

    cost: float
    choice: Choice
    score: float


@dataclass(frozen=True)
class Guarantee:
    """What the run can guarantee about the wrong-quote rate (see `guarantee`)."""

    delta: float
    n: int
    repeats: int
    rows: int
    totals: np.ndarray  # (H, A): loss totals (0/1 losses summed over questions and repeats)
    default_total: int  # the same at the default point
    default_bound: float  # 1 - delta upper bound on the risk at the default point
    smallest: float  # the smallest alpha the grid procedure certifies any cell at
    smallest_row: int
    best_case: float  # the smallest alpha n questions could certify (no wrong quote at a cell)
    certificate: guarantee.Certificate | None = None  # with --max-wrong-rate
    best: Choice | None = None  # the certified cell with the best score
    needed: int | None = None  # questions the requested alpha needs at the least

    def rate_at(self, cell: tuple[int, int]) -> float:
        """The observed loss rate at a cell: wrong or unjudged quotes per question, repeats averaged."""
        return float(self.totals[cell]) / (self.repeats * self.n)


@dataclass
class Sweep:
    """A filled grid over every repeat and what the summary says about it."""

    replayed: Replayed
    h_axis: Axis
    a_axis: Axis
    settings: Settings
    per_repeat: np.ndarray  # (repeats, H, A, outcomes)
    curves: list[Curve]  # the first repeat's, one per question
    tables: list[Table]  # one per repeat
    model: ScoreModel
    choice: Choice
    default: Point
    recommended: Point
    guarantee: Guarantee
    costs: list[CostChoice]
    labels_needed: list[NeedsLabel]  # quoted on the grid, not judgeable without a person; most influential first
    label_floors: list[tuple[float, int]]  # (ANSWER_CUTOFF floor, labels a grid from it would need)
    stability: Stability | None = None
    bootstrap_capped: bool = False  # fewer resamples than the default, to keep a large sweep quick
    cross_validation: CrossValidation | None = None

    @property
    def wrong_cost(self) -> float:
        return self.settings.wrong_cost

    @property
    def weights(self) -> np.ndarray:
        """Each question's weight in the score and the rates (all 1 without a production mix)."""
        return self.model.weights

    @property
    def counts(self) -> np.ndarray:
        """(H, A, outcomes): mean over repeats."""
        return self.per_repeat.mean(axis=0)

    @property
    def quoted(self) -> np.ndarray:
        """(H, A): how many questions are quoted at each cell, mean over repeats."""
        return np.mean([table.quotes(self.a_axis.values) for table in self.tables], axis=0)

    @property
    def scores(self) -> np.ndarray:
        """(H, A): the objective at every cell, weighted, averaged over repeats."""
        return self.model.grid(np.ones(self.model.n_questions))

    @property
    def repeats(self) -> int:
        return len(self.per_repeat)

    @property
    def questions(self) -> list[Question]:
        """The swept questions, in file order."""
        return self.replayed.questions

    def per_question(self, point: Point) -> np.ndarray:
        """Each question's contribution to the objective at a point: weight x score averaged over repeats."""
        values = outcome_scores(self.wrong_cost)
        return self.weights * np.mean([[values[CODE[j.outcome]] for j in run] for run in point.judged], axis=0)

    def score(self, point: Point) -> float:
        return float(self.per_question(point).sum())

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
        """Correct among answerable, wrong among quotes (unjudged and unlabelled quotes as a range), no-answer
        among unanswerable: every repeat, each question's repeats averaged, weighted to the production mix."""
        share = {o: np.mean([[j.outcome is o for j in run] for run in point.judged], axis=0) for o in OUTCOMES}
        quoted = np.mean([[j.decision.quote is not None for j in run] for run in point.judged], axis=0)
        answerable = np.array([q.expect == "answer" for q in self.questions], dtype=float)
        unanswerable = np.array([q.expect == "no-answer" for q in self.questions], dtype=float)
        unknown = np.mean([[j.decision.quote is not None and j.outcome in UNKNOWN for j in run]
                           for run in point.judged], axis=0)  # quotes nobody has judged or labelled
        weights = self.weights

        def rate(name: str, successes: np.ndarray, trials: np.ndarray, upper: np.ndarray | None = None) -> Rate:
            proportion, effective, interval = weighted_wilson(successes, trials, weights)
            total = float(weights @ trials)
            if upper is None:
                return Rate(name, proportion * total, total, effective, interval)
            high, _, high_interval = weighted_wilson(upper, trials, weights)
            return Rate(name, proportion * total, total, effective, interval, high * total, high_interval)

        return [
            rate("correct among answerable questions", share[Outcome.CORRECT], answerable),
            rate("wrong among quotes", share[Outcome.WRONG], quoted, share[Outcome.WRONG] + unknown),
            rate("no-answer among unanswerable questions", share[Outcome.NO_ANSWER], unanswerable),
        ]

    def gate(self, at: tuple[float, float], max_wrong: int | None, min_correct: int | None) -> Gate:
        """Check the bounds at one point in every repeat (the worst one decides), and, when cells were
        certified, that the point is one of them."""
        runs = Point.of("gate", *at, self.replayed).counts()
        wrong = int(runs[:, CODE[Outcome.WRONG]].max())
        correct = int(runs[:, CODE[Outcome.CORRECT]].min())
        checks = []
        if max_wrong is not None:
            checks.append((wrong <= max_wrong, f"wrong {wrong} <= {max_wrong}"))
        if min_correct is not None:
            checks.append((correct >= min_correct, f"correct {correct} >= {min_correct}"))
        certificate = self.guarantee.certificate
        if certificate is not None:
            cell = (cell_index(self.h_axis.values, at[0]), cell_index(self.a_axis.values, at[1]))
            if cell[0] is None or cell[1] is None:
                raise InputError(f"--at {at[0]:g},{at[1]:g} is not a cell of the grid, so it cannot be certified; "
                                 "choose a point on the --has-answer and --answer axes")
            checks.append((bool(certificate.certified[cell]), f"wrong-quote rate <= {certificate.alpha:g} certified "
                           f"with probability >= {1 - certificate.delta:g}"))
        holds = all(ok for ok, _ in checks)
        words = ", ".join(f"{text} {'holds' if ok else 'BROKEN'}" for ok, text in checks) or "no bounds given"
        worst = " (the worst of the repeats)" if len(runs) > 1 and (max_wrong, min_correct) != (None, None) else ""
        return Gate(at, holds, f"{'PASS' if holds else 'FAIL'} at ({at[0]:g}, {at[1]:g}){worst}: {words}")


def production_weights(questions: list[Question], share: float | None) -> np.ndarray:
    """Weights that make answerable questions `share` of the total (mean weight 1); all 1 without a share."""
    n = len(questions)
    if share is None:
        return np.ones(n)
    answerable = np.array([q.expect == "answer" for q in questions])
    unanswerable = np.array([q.expect == "no-answer" for q in questions])
    n_answer, n_none = int(answerable.sum()), int(unanswerable.sum())
    if not n_answer or not n_none:
        raise InputError(f"--answerable-share {share:g}: the questions must include both answerable and "
                         "unanswerable ones to be weighted to a mix")
    labelled = n_answer + n_none  # unlabelled questions keep weight 1: they belong to neither side of the mix
    return np.where(answerable, share * labelled / n_answer, np.where(unanswerable, (1 - share) * labelled / n_none,
                                                                       1.0))


def loss_totals(tables: list[Table], answer: np.ndarray) -> np.ndarray:
    """(H, A): how many quotes not known to be correct, summed over questions and repeats (integers)."""
    codes = [CODE[o] for o in LOSSY]
    return np.sum([table.quotes(answer, codes) for table in tables], axis=0)


def assess(model: ScoreModel, tables: list[Table], h: np.ndarray, a: np.ndarray, default: Point,
           settings: Settings) -> Guarantee:
    """The guarantee section's numbers: the bound at the default point, the smallest certifiable alpha,
    and, with a requested alpha, the certified cells and the best of them (the recommendation's rule,
    among certified cells)."""
    n, repeats = model.n_questions, len(tables)
    totals = loss_totals(tables, a)
    rows, delta = totals.shape[0], settings.delta
    default_total = sum(1 for run in default.judged for j in run
                        if j.decision.quote is not None and j.outcome in LOSSY)
    smallest, row = guarantee.smallest_certifiable(totals, n, repeats, delta)
    found = Guarantee(delta, n, repeats, rows, totals, default_total,
                      guarantee.upper_bound(default_total, n, repeats, delta), smallest, row,
                      guarantee.best_case_alpha(n, rows, delta))
    if settings.max_wrong_rate is None:
        return found
    certificate = guarantee.certify(totals, n, repeats, settings.max_wrong_rate, delta)
    best = None
    if certificate.any:
        best = choose(model, np.ones(n), h, a, (default.h, default.a), allowed=certificate.certified)
    needed = guarantee.questions_needed(settings.max_wrong_rate, rows, delta)
    return dataclasses.replace(found, certificate=certificate, best=best, needed=needed)


def resamples_for(model: ScoreModel, repeats: int, asked: int | None) -> int:
    """The bootstrap's size: as asked, or 1,000 unless the run or the grid is so large that fewer keep a
    sweep quick. A resample costs three passes over question x repeat x HAS_ANSWER_CUTOFF entries (the
    scores, their squares and their products with the best cell's), plus two erosions of the grid (cells x
    up to half the longer axis)."""
    if asked is not None:
        return asked
    work = 3 * model.n_questions * repeats * model.n_h + model.n_h * model.n_a * max(model.n_h, model.n_a) / 2
    return min(BOOTSTRAP, max(20, int(BOOTSTRAP_BUDGET / max(work, 1))))


def analyse(replayed: Replayed, h_axis: Axis, a_axis: Axis, settings: Settings | None = None) -> Sweep:
    """Fill the grid for every repeat, choose the recommended cell on the mean score, judge the default
    and recommended points, measure how stable and how real the choice is (bootstrap, K-fold), and what
    can be guaranteed about wrong quotes."""
    settings = settings or Settings()
    if not replayed.questions:
        raise InputError(f"{replayed.run_dir}: no question is left to sweep")
    h, a = h_axis.values, a_axis.values
    tables: list[Table] = []
    curves: list[Curve] = []
    for traces in replayed.traces:
        run_curves = [Curve.of(question, trace) for question, trace in zip(replayed.questions, traces, strict=True)]
        curves = curves or run_curves
        tables.append(Table.of(run_curves, h))
    per_repeat = np.stack([table.counts(a) for table in tables])
    default = replayed.record.config.default_point
    weights = production_weights(replayed.questions, settings.answerable_share)
    model = ScoreModel(tables, a, outcome_scores(settings.wrong_cost), weights)
    everyone = np.ones(model.n_questions)
    choice = choose(model, everyone, h, a, default)
    costs = []
    for cost in COSTS:
        priced = ScoreModel(tables, a, outcome_scores(cost), weights, like=model)
        pick = choose(priced, everyone, h, a, default)
        costs.append(CostChoice(cost, pick, float(priced.grid(everyone)[pick.cell])))
    default_point = Point.of("default", float(default[0]), float(default[1]), replayed)
    recommended = Point.of("recommended", float(h[choice.h_index]), float(a[choice.a_index]), replayed)
    assessed = assess(model, tables, h, a, default_point, settings)
    passed = quoted_cells(tables, a)
    result = Sweep(replayed, h_axis, a_axis, settings, per_repeat, curves, tables, model, choice, default_point,
                   recommended, assessed, costs, needs_label(replayed, h, a, choice.cell, passed),
                   labels_by_floor(replayed, h, a, choice.cell, passed))
    count = resamples_for(model, len(tables), settings.resamples)
    if count > 0:
        result.stability = bootstrap(model, h, a, default, choice, count, settings.seed)
        result.bootstrap_capped = settings.resamples is None and count < BOOTSTRAP
    folds = min(FOLDS, model.n_questions) if settings.folds is None else settings.folds
    if folds >= 2:
        expect = [q.expect for q in replayed.questions]
        result.cross_validation = cross_validate(model, tables, expect, folds, h, a, default,
                                                 result.per_question(default_point), settings.seed)
    return result
