"""A sweep's analysis: the grid over every repeat, the decision (`Recommendation`: keep the default, move,
move for safety, nothing certified, or label first), the points worth reporting, the tuning's gain tested on
questions it did not choose on, the guarantee on the wrong-answer rate, and the CI gate at one point. Computing
only; the `report` package lays it out.

Two rates, never confused: the **wrong-answer rate** is the share of questions (with repeats, of answers
served) that get a wrong quote, which the guarantee bounds; **wrong among quotes** is the share of quotes
that are wrong.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from ..core.errors import InputError
from ..core.plugin import System
from ..core.registry import system
from ..questions import OUTCOMES, UNKNOWN, Outcome, Question
from . import guarantee
from .grid import CODE, Axis, Judged, JudgedCurve, Table, at_point, cell_index
from .labelling import NeedsLabel, labels_by_floor, needs_label, quoted_cells
from .replay import Replayed
from .stats import (
    LEVEL,
    Choice,
    CrossValidation,
    ScoreModel,
    choose,
    cross_validate,
    outcome_scores,
    ratio_wilson,
    weighted_wilson,
)

FOLDS = 5
COSTS = (1.0, 2.0, 5.0, 10.0)  # costs of a wrong quote the summary shows the recommendation for
EXAMPLE_RATE = 0.05  # the wrong-answer rate the guarantee is priced at in questions when none was asked for
LOSSY = (Outcome.WRONG, *UNKNOWN)  # a quote not known to be correct counts as wrong for the guarantee


@dataclass(frozen=True)
class Settings:
    """How to analyse: the objective, how sure to be, and what to guarantee."""

    wrong_cost: float = 2.0
    folds: int | None = None  # cross-validation folds; None: 5 (at most one per question); 0: none (never moves)
    seed: int = 0
    level: float = LEVEL  # one-sided level of the held-out gain's test that moves the decision
    options: tuple[str, ...] = ()  # the options the sweep was given that change what it says, for reports to echo
    max_wrong_rate: float | None = None  # certify cells at this wrong-answer rate; recommend among them
    delta: float = guarantee.DELTA  # ... with probability at least 1 - delta
    answerable_share: float | None = None  # weight the questions to this production mix


@dataclass(frozen=True)
class Point:
    """One pair of cutoffs with every question's decision and outcome there, per repeat."""

    name: str
    h: float
    a: float
    judged: list[list[Judged]]  # [repeat][question]

    @classmethod
    def of(cls, name: str, h: float, a: float, judged: Sequence[Sequence[JudgedCurve]]) -> Point:
        """The point (h, a) of the judged curves of every repeat."""
        return cls(name=name, h=h, a=a, judged=[at_point(curves, h, a) for curves in judged])

    def counts(self) -> np.ndarray:
        """(repeats, outcomes): each repeat's counts, in `OUTCOMES` order."""
        return self._counts

    def codes(self) -> np.ndarray:
        """(repeats, questions): each decision's outcome code (`grid.CODE`)."""
        return self._codes

    def quotes(self) -> np.ndarray:
        """(repeats, questions): whether each decision quotes."""
        return self._quotes

    @functools.cached_property
    def _counts(self) -> np.ndarray:
        codes = self.codes()
        return np.array([(codes == CODE[outcome]).sum(axis=1) for outcome in OUTCOMES],
                        dtype=np.int64).T.reshape(len(codes), len(OUTCOMES))

    @functools.cached_property
    def _codes(self) -> np.ndarray:
        return np.array([[CODE[j.outcome] for j in run] for run in self.judged],
                        dtype=np.int64).reshape(len(self.judged), -1)

    @functools.cached_property
    def _quotes(self) -> np.ndarray:
        return np.array([[j.quote is not None for j in run] for run in self.judged],
                        dtype=bool).reshape(len(self.judged), -1)

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


class Bound(StrEnum):
    """What one check of a gate bounds."""

    MAX_WRONG = "max_wrong"  # wrong quotes, in the worst repeat, at most `limit`
    MIN_CORRECT = "min_correct"  # correct quotes, in the worst repeat, at least `limit`
    CERTIFIED = "certified"  # the point is certified: wrong-answer rate <= `limit` with probability >= 1 - delta


@dataclass(frozen=True)
class Check:
    """One check of a gate: what it bounds, what was found (the worst repeat's count; for CERTIFIED, 1 when the
    point is certified, else 0), the limit, and whether it holds. `delta` is the certificate's (CERTIFIED only)."""

    bound: Bound
    found: int
    limit: float
    holds: bool
    delta: float | None = None


@dataclass(frozen=True)
class Gate:
    """A CI check at one point: count bounds in every repeat (the worst one decides), and, with a
    certificate, whether the point is certified. `worst_of` is the number of repeats the counts are the worst of
    (1: a single repeat)."""

    point: tuple[float, float]
    checks: tuple[Check, ...]
    worst_of: int = 1

    @property
    def holds(self) -> bool:
        return all(check.holds for check in self.checks)


@dataclass(frozen=True)
class CostChoice:
    """The recommendation had a wrong quote cost `cost` instead."""

    cost: float
    choice: Choice
    score: float


@dataclass(frozen=True)
class Guarantee:
    """What the run can guarantee about the wrong-answer rate (see `guarantee`): each question's first
    repeat, one served answer per question; with a production mix, for that mix."""

    delta: float
    n: int
    repeats: int  # the run's repeats (the guarantee uses the first)
    rows: int  # the families delta is shared among: the grid's rows, or its cells when not `ordered`
    totals: np.ndarray  # (H, A): wrong or unjudged quotes in the first repeat, over the questions
    default_total: int  # the same at the default point
    default_bound: float  # 1 - delta upper bound on the wrong-answer rate at the default point (fixed in advance)
    smallest: float  # the smallest alpha the grid procedure certifies any cell at
    smallest_row: int
    best_case: float  # the smallest alpha n questions could certify (no wrong quote at a cell)
    certificate: guarantee.Certificate | None = None  # with --max-wrong-rate
    needed: int | None = None  # questions the requested alpha needs at the least
    example_needed: int | None = None  # questions EXAMPLE_RATE needs at the least (priced when no alpha is asked for)
    mix: guarantee.Mix | None = None  # with --answerable-share: the guarantee is for that mix
    unavailable: str | None = None  # why nothing can be bounded (a mix with unlabelled questions): the bounds
    # above are then not claims, and the reports print this instead
    ordered: bool = True  # each row tested in a fixed sequence; False: every cell on its own (no axis removes quotes)
    smallest_column: int | None = None  # without an order: the column of the cell certifiable at `smallest`

    @property
    def cells(self) -> int:
        return int(self.totals.size)

    @property
    def observed(self) -> np.ndarray:
        """(H, A): the observed wrong-answer rate at every cell, in the data the guarantee uses."""
        return self.mix.observed() if self.mix is not None else self.totals / self.n

    def rate_at(self, cell: tuple[int, int]) -> float:
        """The observed wrong-answer rate at one cell."""
        return float(self.observed[cell])

    @functools.cached_property
    def bounds(self) -> np.ndarray:
        """(H, A): each cell's 1 - delta / rows upper bound on its wrong-answer rate, the bound the
        certificate's test at that cell compares with alpha (a cell is certified at alpha when it and every
        cell to its right in its row have a bound <= alpha)."""
        level = self.delta / self.rows
        return self.mix.bounds(level) if self.mix is not None else guarantee.upper_bounds(self.totals, self.n, level)

    def bound_at(self, cell: tuple[int, int], level: float) -> float:
        """One cell's upper bound at confidence 1 - `level`."""
        if self.mix is not None:
            return self.mix.bound_at(cell, level)
        return guarantee.upper_bound(int(self.totals[cell]), self.n, 1, level)


class Action(StrEnum):
    """What the sweep says to do about the cutoffs in production (`decision.json`'s `action`: stable values)."""

    KEEP = "keep"  # keep the default: no gain from tuning is shown on questions the rule did not choose on
    MOVE = "move"  # ship the rule's cell: its gain over the default is shown out of sample
    MOVE_FOR_SAFETY = "move_for_safety"  # the default is not certified at --max-wrong-rate, the rule's cell is
    NOTHING_CERTIFIED = "nothing_certified"  # --max-wrong-rate certifies no cell: keep the default, get questions
    LABEL_FIRST = "label_first"  # quotes nobody has judged could change the decision: label them, then sweep again


MOVES = frozenset({Action.MOVE, Action.MOVE_FOR_SAFETY})  # the actions that ship the rule's cell


class BoundKind(StrEnum):
    """Which bound on the wrong-answer rate the shipped point has (`Recommendation.bound`; decision.json's
    `bound_kind`: stable values)."""

    CERTIFIED = "certified"  # alpha: the point is certified (every certified cell at once)
    DEFAULT = "default"  # the default's own bound, fixed before looking
    GRID = "grid"  # Bonferroni over the grid's cells: a moved-to cell chosen after looking, not certified
    NONE = "none"  # nothing can be claimed (`Guarantee.unavailable`)


@dataclass(frozen=True)
class Recommendation:
    """The decision, named the same way by the terminal, summary.md, index.html and decision.json.

    `choice` is what the recommendation rule picks on all the questions (region of best score, keep the default,
    deepest cell; with a certificate that certifies some cell, among the certified cells): the cell a move ships.
    `action` says whether it is shipped (`Action`), and `cell` and `point` are what is shipped: the rule's cell for
    MOVE and MOVE_FOR_SAFETY, the default otherwise (`cell` None when the default is not a cell of the grid).

    `bound` is a 1 - delta upper bound on the wrong-answer rate at the shipped point: alpha when it is certified
    (every certified cell at once, `bound_kind` "certified"); at the default, its own bound, fixed before looking
    ("default"); at a moved-to cell that is not certified, Bonferroni over the grid's cells, since the cell was
    chosen after looking ("grid"); None ("none") when the guarantee is unavailable (`Guarantee.unavailable`).
    `unknown` lists the questions (indices) whose quote at the default or at the rule's cell nobody has judged.
    """

    action: Action
    cell: tuple[int, int] | None
    point: tuple[float, float]
    choice: Choice
    score_only: Choice  # what the score alone recommends, certified or not
    certified: bool | None  # the shipped point is certified (None without a certificate)
    best_certified: tuple[int, int] | None  # the highest-scoring certified cell
    bound: float | None
    bound_kind: BoundKind
    is_default: bool  # the shipped point is the default
    unknown: tuple[int, ...] = ()

    @property
    def best(self) -> tuple[int, int]:
        """The highest-scoring cell (certified or not)."""
        return self.score_only.best

    @property
    def tuned(self) -> tuple[int, int]:
        """The cell the rule picks on all the questions (shipped only by a move)."""
        return self.choice.cell

    @property
    def moves(self) -> bool:
        return self.action in MOVES

    @property
    def marked(self) -> tuple[int, int]:
        """The cell the reports mark as the decision's (the star, the risk-coverage row): the shipped cell, or the
        rule's cell when the shipped default is not a cell of the grid."""
        return self.cell if self.cell is not None else self.tuned


@dataclass(frozen=True)
class Sweep:
    """A filled grid over every repeat and what the summary says about it: built once, by `analyse`, with every
    field named; nothing changes it after."""

    replayed: Replayed
    h_axis: Axis
    a_axis: Axis
    settings: Settings
    per_repeat: np.ndarray  # (repeats, H, A, outcomes)
    judged: list[list[JudgedCurve]]  # [repeat][question]: each question's curve, judged
    tables: list[Table]  # one per repeat
    model: ScoreModel
    decision: Recommendation
    default: Point
    recommended: Point  # the shipped point (the default unless the decision moves)
    tuned: Point  # the rule's cell on all questions
    guarantee: Guarantee
    costs: list[CostChoice]
    labels_needed: list[NeedsLabel]  # quoted on the grid, not judgeable without a person; most influential first
    label_floors: list[tuple[float, int]]  # (ANSWER_CUTOFF floor, labels a grid from it would need)
    rule: Rule  # the recommendation rule, to re-run on a subset of the questions (`Rule.__call__`)
    cross_validation: CrossValidation | None = None
    _rates: dict[int, tuple[Point, list[Rate]]] = field(default_factory=dict, init=False, repr=False, compare=False)
    # (`rates`' memo: the one mutable part, a cache that never changes what a call returns)

    @property
    def system(self) -> System:
        """The system under test the run was recorded with: its axes name the grid's rows and columns."""
        return system(self.replayed.record.config.system)

    @property
    def curves(self) -> list[JudgedCurve]:
        """The first repeat's judged curves, one per question."""
        return self.judged[0]

    @property
    def wrong_cost(self) -> float:
        return self.settings.wrong_cost

    @property
    def choice(self) -> Choice:
        """The recommendation rule's pick on all the questions (`decision.choice`; shipped only by a move)."""
        return self.decision.choice

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
        """Each question's contribution to the objective at a point (`contributions`)."""
        return contributions(point, self.weights, self.wrong_cost)

    def score(self, point: Point) -> float:
        return float(self.per_question(point).sum())

    def flaky(self) -> list[Flaky]:
        """Questions whose decision at the recommended point (the sentence quoted, or none) differs
        between repeats: each with its outcome in every repeat and how many different decisions."""
        found = []
        for index, question in enumerate(self.questions):
            quotes = {run[index].sentence for run in self.recommended.judged}
            if len(quotes) > 1:
                found.append(Flaky(question=question, outcomes=self.recommended.outcomes(index),
                                   decisions=len(quotes)))
        return found

    def first_passage(self, point: Point) -> tuple[int, int] | None:
        """For quotes made of several passages (`Quote.passages`): of the correct ones at `point`, in every repeat,
        how many are correct from their first passage alone, and how many correct ones there are; None when no
        quote at the point has passages."""
        found = []
        for run, quoted in zip(point.judged, point.quotes(), strict=True):
            for index in np.flatnonzero(quoted).tolist():  # (the decisions that quote, in question order)
                quote = run[index].quote
                if quote is not None and quote.passages:
                    found.append((self.questions[index], quote.passages, run[index].outcome))
        if not found:
            return None
        correct = [(question, passages) for question, passages, outcome in found if outcome is Outcome.CORRECT]
        alone = sum(1 for question, passages in correct if question.judge(passages[0]) is Outcome.CORRECT)
        return alone, len(correct)

    def rates(self, point: Point) -> list[Rate]:
        """Correct among answerable, wrong among quotes (unjudged and unlabelled quotes as a range), no-answer
        among unanswerable: every repeat, each question's repeats averaged, weighted to the production mix."""
        cached = self._rates.get(id(point))
        if cached is not None and cached[0] is point:
            return cached[1]
        codes, quotes = point.codes(), point.quotes()
        share = {o: (codes == CODE[o]).mean(axis=0) for o in OUTCOMES}
        quoted = quotes.mean(axis=0)
        answerable, unanswerable = (mask.astype(float) for mask in label_masks(self.questions))
        unknown = (quotes & np.isin(codes, [CODE[o] for o in UNKNOWN])).mean(axis=0)  # quotes nobody has judged
        weights = self.weights

        def rate(name: str, successes: np.ndarray, trials: np.ndarray, upper: np.ndarray | None = None,
                 interval_of: Callable[..., tuple[float, float, tuple[float, float] | None]] = weighted_wilson
                 ) -> Rate:
            proportion, effective, interval = interval_of(successes, trials, weights)
            total = float(weights @ trials)
            if upper is None:
                return Rate(name=name, successes=proportion * total, trials=total, effective=effective,
                            interval=interval)
            high, _, high_interval = interval_of(upper, trials, weights)
            return Rate(name=name, successes=proportion * total, trials=total, effective=effective, interval=interval,
                        upper_successes=high * total, upper_interval=high_interval)

        rates = [
            rate("correct among answerable questions", share[Outcome.CORRECT], answerable),
            # a ratio of two weighted sums: its interval uses the ratio's own variance (`ratio_wilson`)
            rate("wrong among quotes", share[Outcome.WRONG], quoted, share[Outcome.WRONG] + unknown,
                 interval_of=ratio_wilson),
            rate("no-answer among unanswerable questions", share[Outcome.NO_ANSWER], unanswerable),
        ]
        self._rates[id(point)] = (point, rates)  # (the point kept: its id is not reused while it is cached)
        return rates

    def gate(self, at: tuple[float, float], max_wrong: int | None, min_correct: int | None) -> Gate:
        """Check the bounds at one point in every repeat (the worst one decides), and, when cells were
        certified, that the point is one of them."""
        runs = Point.of("gate", *at, self.judged).counts()
        shown = ",".join(spec.shown(value) for spec, value in zip(self.system.axes, at, strict=True))
        wrong = int(runs[:, CODE[Outcome.WRONG]].max())
        correct = int(runs[:, CODE[Outcome.CORRECT]].min())
        checks = []
        if max_wrong is not None:
            checks.append(Check(Bound.MAX_WRONG, wrong, max_wrong, wrong <= max_wrong))
        if min_correct is not None:
            checks.append(Check(Bound.MIN_CORRECT, correct, min_correct, correct >= min_correct))
        certificate = self.guarantee.certificate
        if certificate is not None:
            cell = (cell_index(self.h_axis.values, at[0]), cell_index(self.a_axis.values, at[1]))
            if cell[0] is None or cell[1] is None:
                raise InputError(f"--at {shown} is not a cell of the grid, so it cannot be certified; choose a point "
                                 "on the grid's axes")
            certified = bool(certificate.certified[cell])
            checks.append(Check(Bound.CERTIFIED, int(certified), float(certificate.alpha), certified,
                                float(certificate.delta)))
        if not checks:
            raise InputError(f"--at {shown}: nothing to check there; give --max-wrong, --min-correct or "
                             "--max-wrong-rate (a gate that checks nothing never passes)")
        return Gate(at, tuple(checks), len(runs))


def contributions(point: Point, weights: np.ndarray, wrong_cost: float) -> np.ndarray:
    """Each question's contribution to the objective at a point: weight x score averaged over repeats."""
    return weights * np.mean(outcome_scores(wrong_cost)[point.codes()], axis=0)


def label_masks(questions: list[Question]) -> tuple[np.ndarray, np.ndarray]:
    """(answerable, unanswerable): which questions expect an answer and which expect none (bool, (Q,) each;
    an unlabelled question is in neither)."""
    return (np.array([q.expect == "answer" for q in questions], dtype=bool),
            np.array([q.expect == "no-answer" for q in questions], dtype=bool))


def production_weights(questions: list[Question], share: float | None) -> np.ndarray:
    """Weights that make answerable questions `share` of the total (mean weight 1); all 1 without a share."""
    n = len(questions)
    if share is None:
        return np.ones(n)
    answerable, unanswerable = label_masks(questions)
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


def _default_total(default: Point, keep: np.ndarray | None = None) -> int:
    """Wrong or unjudged quotes at the default point in the first repeat (among the questions `keep`, a bool mask,
    selects)."""
    lost = default.quotes()[0] & np.isin(default.codes()[0], [CODE[o] for o in LOSSY])
    return int((lost if keep is None else lost & keep).sum())


class Rule:
    """The recommendation rule as a function of which questions count (`counts`: 1 each, 0 to leave a question
    out), for the cross-validation to re-run the very rule that chose the cell: with a certificate, certify on the
    counted questions and choose among the certified cells (score alone when none is)."""

    def __init__(self, model: ScoreModel, tables: list[Table], h: np.ndarray, a: np.ndarray,
                 default: tuple[float, float], settings: Settings, questions: list[Question], ordered: bool = True
                 ) -> None:
        self.model, self.h, self.a, self.default = model, h, a, default
        self.alpha, self.delta, self.share = settings.max_wrong_rate, settings.delta, settings.answerable_share
        self.ordered = ordered
        first = tables[0]
        self.lossy = first.bins(a, first.quoted & np.isin(first.codes, [CODE[o] for o in LOSSY]))  # placed once
        self.answerable, self.unanswerable = label_masks(questions)
        self.unlabelled = any(q.expect is None for q in questions)

    def totals(self, counts: np.ndarray) -> np.ndarray:
        """(H, A): first-repeat losses summed over the counted questions."""
        return np.rint(self.lossy.sums(counts)[..., 0]).astype(int)

    def mix(self, counts: np.ndarray) -> guarantee.Mix:
        """The production mix's classes over the counted questions: their sizes and loss totals."""
        assert self.share is not None, "a mix needs --answerable-share"
        return guarantee.Mix(self.share, int(round(counts[self.answerable].sum())),
                             int(round(counts[self.unanswerable].sum())), self.totals(counts * self.answerable),
                             self.totals(counts * self.unanswerable))

    def certified(self, counts: np.ndarray) -> np.ndarray | None:
        if self.alpha is None:
            return None
        if self.share is None:
            return guarantee.certify(self.totals(counts), int(round(counts.sum())), 1, self.alpha, self.delta,
                                     self.ordered).certified
        if self.unlabelled:
            return None
        mix = self.mix(counts)
        if not mix.n_answer or not mix.n_none:
            return None
        return guarantee.certify_mix(mix, self.alpha, self.delta, self.ordered).certified

    def __call__(self, counts: np.ndarray) -> Choice:
        allowed = self.certified(counts)
        if allowed is None or not allowed.any():
            return choose(self.model, counts, self.h, self.a, self.default)
        return choose(self.model, counts, self.h, self.a, self.default, allowed=allowed)


def assess(rule: Rule, repeats: int, default: Point, settings: Settings, questions: list[Question]) -> Guarantee:
    """The guarantee's numbers, from each question's first repeat (`rule`'s loss totals over every question):
    the bound at the default point, the smallest certifiable alpha and, with a requested alpha, the certified
    cells. With a production mix, all of it is for that mix (and needs every question labelled)."""
    n, delta = rule.model.n_questions, settings.delta
    everyone = np.ones(n)
    totals = rule.totals(everyone)
    ordered = rule.ordered
    rows = totals.shape[0] if ordered else totals.size  # the families delta is shared among
    share = settings.answerable_share
    lost = _default_total(default)
    if share is None:
        smallest, row = guarantee.smallest_certifiable(totals, n, 1, delta, ordered)
        found = Guarantee(delta=delta, n=n, repeats=repeats, rows=rows, totals=totals, default_total=lost,
                          default_bound=guarantee.upper_bound(lost, n, 1, delta), smallest=smallest, smallest_row=row,
                          best_case=guarantee.best_case_alpha(n, rows, delta), ordered=ordered,
                          smallest_column=None if ordered else int(np.argmin(totals[row])),
                          example_needed=guarantee.questions_needed(EXAMPLE_RATE, rows, delta))
        if settings.max_wrong_rate is None:
            return found
        certificate = guarantee.certify(totals, n, 1, settings.max_wrong_rate, delta, ordered)
        needed = guarantee.questions_needed(settings.max_wrong_rate, rows, delta)
        return dataclasses.replace(found, certificate=certificate, needed=needed)
    unlabelled = sum(1 for q in questions if q.expect is None)
    mix = rule.mix(everyone)
    answerable, unanswerable = rule.answerable, rule.unanswerable
    level = delta / rows
    last = guarantee.families(mix.bounds(level), ordered)[:, -1]
    first = int(np.argmin(last))
    row, column = (first, None) if ordered else divmod(first, totals.shape[1])
    default_bound = (share * guarantee.upper_bound(_default_total(default, answerable), mix.n_answer, 1, delta / 2)
                     + (1 - share) * guarantee.upper_bound(_default_total(default, unanswerable), mix.n_none, 1,
                                                           delta / 2))
    sampled = mix.n_answer / max(1, n - unlabelled)  # the answerable share of the labelled questions
    found = Guarantee(delta=delta, n=n, repeats=repeats, rows=rows, totals=totals, default_total=lost,
                      default_bound=default_bound, smallest=float(last[first]), smallest_row=row,
                      best_case=mix.best_case(level), mix=mix, ordered=ordered, smallest_column=column,
                      example_needed=guarantee.mix_questions_needed(EXAMPLE_RATE, rows, delta, sampled, share))
    if unlabelled:
        found = dataclasses.replace(found, unavailable=(
            f"{unlabelled} question(s) have no `expect` label: a guarantee for a production mix needs every question "
            "in its class (label them, e.g. with `sweep.py RUN --review`)"))
    if settings.max_wrong_rate is None:
        return found
    certificate = guarantee.certify_mix(mix, settings.max_wrong_rate, delta, ordered)
    if unlabelled:
        certificate = dataclasses.replace(certificate, certified=np.zeros_like(certificate.certified))
    mix_needed = guarantee.mix_questions_needed(settings.max_wrong_rate, rows, delta, sampled, share)
    return dataclasses.replace(found, certificate=certificate, needed=mix_needed)


RIGHT, NEVER = "", "(?!)"  # an accept pattern that every text matches, and one that none does


def counted_as(questions: Sequence[Question], needing: Sequence[int], pattern: str) -> list[Question]:
    """The questions with every quote nobody has judged counted right (`pattern` RIGHT) or wrong (NEVER): each
    question of `needing` (indices) becomes an answer question with that one accept pattern (an unlabelled one
    quoted right or wrong; a human's verdicts on its quotes still decide first)."""
    found = list(questions)
    for n in needing:
        found[n] = dataclasses.replace(questions[n], expect="answer", accept=(pattern,))
    return found


def action_for(choice: Choice, certified: np.ndarray | None, default_cell: tuple[int, int] | None,
               cross_validation: CrossValidation | None, unknown: bool) -> Action:
    """The action (see `decide`) from the rule's pick `choice`, the certified cells (None without a certificate),
    the default's cell (None off the grid), the held-out test, and whether some quote that matters is unjudged."""
    if unknown:
        return Action.LABEL_FIRST
    if certified is not None and not certified.any():
        return Action.NOTHING_CERTIFIED
    if certified is not None and (default_cell is None or not certified[default_cell]):
        return Action.MOVE_FOR_SAFETY
    if not choice.is_default and cross_validation is not None and cross_validation.test.shown:
        return Action.MOVE
    return Action.KEEP


def decide(model: ScoreModel, h: np.ndarray, a: np.ndarray, default: tuple[float, float], assessed: Guarantee,
           choice: Choice, cross_validation: CrossValidation | None, unknown: Sequence[int] = ()) -> Recommendation:
    """The decision (see `Action`) from the rule's pick on all the questions (`choice`: `Rule` over every
    question, among the certified cells when some are), in this order:

    1. LABEL_FIRST when labels could change the decision (`unknown`, the questions to label: see `analyse`);
    2. with a certificate (`--max-wrong-rate`): NOTHING_CERTIFIED when no cell is certified (the default is
       kept); MOVE_FOR_SAFETY when the default is not certified and the rule's cell, chosen among the certified
       ones, is;
    3. MOVE when the rule's pick is not the default and its gain over the default is shown on questions it did
       not choose on (`cross_validation.test`, one-sided at its level); KEEP otherwise (without
       cross-validation no gain can be shown, so the default is kept).
    """
    score_only = choose(model, np.ones(model.n_questions), h, a, default)
    certificate = assessed.certificate
    best_certified = choice.best if certificate is not None and certificate.any else None
    d_h, d_a = cell_index(h, default[0]), cell_index(a, default[1])
    default_cell = None if d_h is None or d_a is None else (d_h, d_a)
    action = action_for(choice, None if certificate is None else certificate.certified, default_cell,
                        cross_validation, bool(unknown))
    moves = action in MOVES
    cell = choice.cell if moves else default_cell
    point = (float(h[choice.h_index]), float(a[choice.a_index])) if moves else (float(default[0]), float(default[1]))
    certified = None if certificate is None else (
        bool(certificate.certified[cell]) if cell is not None else False)
    bound: float | None
    if assessed.unavailable:
        bound, kind = None, BoundKind.NONE  # a mix with unlabelled questions: no bound can be claimed
    elif certified:
        bound, kind = float(certificate.alpha), BoundKind.CERTIFIED  # type: ignore[union-attr]
    elif not moves:
        bound, kind = assessed.default_bound, BoundKind.DEFAULT
    else:
        bound, kind = assessed.bound_at(choice.cell, assessed.delta / assessed.cells), BoundKind.GRID
    return Recommendation(action=action, cell=cell, point=point, choice=choice, score_only=score_only,
                          certified=certified, best_certified=best_certified, bound=bound, bound_kind=kind,
                          is_default=not moves or choice.is_default, unknown=tuple(unknown))


def analyse(replayed: Replayed, h_axis: Axis, a_axis: Axis, settings: Settings | None = None, *,
            bracket: bool = True) -> Sweep:
    """Fill the grid for every repeat, run the recommendation rule on the mean score, test its gain over the
    default on questions it did not choose on (repeated K-fold), decide (`decide`), judge the default, the
    rule's and the shipped points, and say what can be guaranteed about wrong quotes.

    Quotes nobody has judged (`needs_label`) count as neither right nor wrong in the score and as wrong in the
    guarantee. With `bracket`, the decision is taken again with every one of them counted right and with every one
    counted wrong: when the three differ (in action or point), labels could change it, and the decision is to label
    them first. Under a production mix every unlabelled question sets weights, so any makes it label first."""
    settings = settings or Settings()
    if not replayed.questions:
        raise InputError(f"{replayed.run_dir}: no question is left to sweep")
    under_test = system(replayed.record.config.system)
    ordered = under_test.axes[1].removes_quotes  # else no order to test in: every cell on its own (Bonferroni)
    h, a = h_axis.values, a_axis.values
    judged = [[JudgedCurve.of(question, curve) for question, curve in zip(replayed.questions, run, strict=True)]
              for run in replayed.curves]
    tables = [Table.of(run, h) for run in judged]
    per_repeat = np.stack([table.counts(a) for table in tables])
    default = replayed.record.config.default_point
    weights = production_weights(replayed.questions, settings.answerable_share)
    model = ScoreModel(tables, a, outcome_scores(settings.wrong_cost), weights)
    everyone = np.ones(model.n_questions)
    default_point = Point.of("default", float(default[0]), float(default[1]), judged)
    rule = Rule(model, tables, h, a, default, settings, replayed.questions, ordered)  # the folds re-run it
    assessed = assess(rule, len(tables), default_point, settings, replayed.questions)
    tuned = rule(everyone)
    tuned_point = Point.of("tuned", float(h[tuned.h_index]), float(a[tuned.a_index]), judged)
    folds = min(FOLDS, model.n_questions) if settings.folds is None else settings.folds
    cross_validation = None
    if folds >= 2:
        at_default = contributions(default_point, weights, settings.wrong_cost)
        cross_validation = cross_validate(model, tables, [q.expect for q in replayed.questions], folds, h, a,
                                          default, at_default, settings.seed, rule=rule, level=settings.level)
    passed = quoted_cells(tables, a)
    mixed = settings.answerable_share is not None  # the labels set the weights: every unlabelled question matters
    needing = needs_label(judged, h, a, tuned.cell, passed, mixed)
    decision = decide(model, h, a, default, assessed, tuned, cross_validation)
    if mixed:
        unknown: tuple[int, ...] = tuple(n for n, q in enumerate(replayed.questions) if q.expect is None)
    elif needing and bracket:
        unknown = tuple(sorted(item.index for item in needing))
        either = [analyse(dataclasses.replace(replayed, questions=counted_as(replayed.questions, unknown, pattern)),
                          h_axis, a_axis, settings, bracket=False).decision for pattern in (RIGHT, NEVER)]
        if all((other.action, other.point) == (decision.action, decision.point) for other in either):
            unknown = ()
    else:
        unknown = ()
    if unknown:
        decision = decide(model, h, a, default, assessed, tuned, cross_validation, unknown)
    choice = decision.choice
    certificate = assessed.certificate
    allowed = certificate.certified if certificate is not None and certificate.any else None  # ignores C
    costs = []
    for cost in COSTS:
        priced = ScoreModel(tables, a, outcome_scores(cost), weights, like=model)
        pick = choose(priced, everyone, h, a, default, allowed=allowed)
        costs.append(CostChoice(cost=cost, choice=pick, score=float(priced.grid(everyone)[pick.cell])))
    recommended = tuned_point if decision.moves else default_point
    floors = labels_by_floor(judged, h, a, choice.cell, passed, mixed) if under_test.axes[1].kind == "cutoff" else []
    return Sweep(replayed=replayed, h_axis=h_axis, a_axis=a_axis, settings=settings, per_repeat=per_repeat,
                 judged=judged, tables=tables, model=model, decision=decision, default=default_point,
                 recommended=recommended, tuned=tuned_point, guarantee=assessed, costs=costs, labels_needed=needing,
                 label_floors=floors, rule=rule, cross_validation=cross_validation)
