"""Which system to ship: systems recorded on the same questions (`sweep.py RUN_A RUN_B ...`), each tuned on its
own axes by its own recommendation rule, compared on questions their cutoffs were not chosen on. Computing
only; `report.systems` lays it out.

**The score that decides.** Each system was tuned on these very questions, so its in-sample score at its
recommended cell flatters it, and the more so the more its cutoffs could bend to noise. So every question
gets a **cross-validated score** per system, over r = 10 repetitions (`REPETITIONS`) of K folds (`stats.folds`,
stratified by label; repetition i seeded `seed * r + i`, `fold_runs`): the folds are the SAME for every system
within a repetition, and for each fold the system's `Rule` (the very rule that chose its cell, certified cells
only with `--max-wrong-rate`) chooses the cutoffs with the fold's questions left out (counts 0 there); each
held-out question scores its contribution x_q there. A system's `cv` is each question's mean over the
repetitions, its `cv_score` the mean over questions.

**Which to ship** (`kept`). The eligible systems are those whose recommended cell is certified when any is
(with `--max-wrong-rate`; a certified system is shipped before one that is not), else all. Of them, the
candidates are those no other eligible system is shown better than (the test below, p < the significance,
its centre on the other's side). One candidate is shipped as "better". Among several, nothing is shown
between them, and the one shipped does not depend on the order the runs are given: the cheaper per question
(`Cost`: the recording's requests per question repeat, then its input tokens, from run.json; a cost not
recorded counts as the highest), as "cheaper"; at equal cost the INCUMBENT, the first run given, as
"incumbent" (the one role the order carries, and only at equal cost); else the higher `cv_score` (the first
given among equals). The reports say "not shown better, p = ..." and why.

**The test, and why it is two-sided.** The shipped system and each other one are compared on the
per-question paired differences d_q = cv_best(q) - cv_other(q): their mean, its per-question standard error
(sd with n - 1, over sqrt(n)), and a p-value. That p-value is TWO-SIDED, with a Bonferroni factor over the
k(k - 1) / 2 pairs of systems when there are k > 2 (p = min(1, pairs x p_two_sided)). The one-sided test "the
other is worse" would not hold its level: the best is chosen as the one with the higher mean on these same
scores, so the test's direction is always the one the data favour. With two equally good systems, the
one-sided p-value of the chosen direction is half the two-sided one, and it falls below 0.05 whenever the
two-sided one falls below 0.10: about 10% of the time, twice the stated 5% (`tests/sweep/test_systems.py`
measures both). The two-sided test of "the two are equally good" does not care which one was named best.
With k systems, any pair may be the one reported, and which depends on the data; Bonferroni over all of them
bounds the chance that any comparison rejects falsely by the level.

**Why not a t-test over questions.** The questions of a fold share the cell each system chose without
them, so their differences share that choice's luck: how good the chosen cells truly are moves every
question of the fold together, and that part of the variance does not shrink with more questions. A paired
t-test over the n questions ignores it and does not hold its level. Simulated through the real rule and
real folds (two independent recordings of equally good systems, random quote-finder traces, 11 x 11 grid,
5 folds), the two-sided per-question t-test at 5% rejected 5.7% of 1,500 draws at 40 questions (Monte-Carlo
s.e. 0.6%), 8.7% of 1,500 at 80 and 12.9% of 800 at 160 (s.e. 0.8%); testing on a half split instead (cells
chosen on one half, the other half's differences t-tested) was no better (10.5% at 80, 14.2% at 160). The
corrected resampled t-test of Nadeau and Bengio (2003) over ONE K-fold split's K fold means held its level
(0.7% at 40 questions, 2.0% at 160) but, on K - 1 = 4 degrees of freedom, had little power: a statistical
review found a system better by 0.16 score per question in 3.7% of samples at 40 questions and 24% at 100.
So the test is the **corrected repeated cross-validation t-test** (Bouckaert and Frank 2004): over the k r
fold means D of d_q (K folds in each of r repetitions), t = mean(D) / sqrt((1 / (k r) + n_test / n_train)
var(D)) with n_test / n_train = 1 / (K - 1), on k r - 1 degrees of freedom (`scipy.stats.t`). Its variance
counts the folds' shared luck and the repetitions' overlapping training sets. In `tests/sweep/test_systems_power.py`
(its own world, tables drawn with numpy, 10 x 5 folds, 100 questions, a better system truly ahead by 0.16 score
per question at the two recommended cells on 200,000 questions) it rejected 21 of 600 draws of equally good
systems (3.5%, MC s.e. 0.9% at 5%; 26 of 800 in development) and found the better system in 515 of 600 (85.8%,
MC s.e. 1.4%). `Difference.standard_error` is the per-question one, for reading the size of a difference;
`test_standard_error` is the test's.

When every paired difference is 0 (the same run given twice, or a pipeline re-recorded against the
deterministic stand-in: identical responses), p = 1: the two are indistinguishable, every question scores the
same. A live re-recording differs by the API's noise and goes through the test like any other pair.

**With a certificate** (`--max-wrong-rate`), each system's certified point is its recommended cell when that
is certified, and none otherwise; the best and each other system are also compared there by an exact
McNemar test (`scipy.stats.binomtest(b, b + c, 0.5)`, two-sided, with the same Bonferroni factor) on each
question's first repeat: b the questions correct only in the best system, c those correct only in the other.
It is IN-SAMPLE (at cells chosen on these same questions, so it flatters the difference): the cross-validated
test is the one that decides.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..core.errors import InputError
from ..core.textsafe import shown
from ..questions import OUTCOMES, Outcome, Question
from ..record.rundir import RunRecord
from . import stats
from .analysis import Sweep
from .stats import Choice

SIGNIFICANCE = 0.05
FOLDS = 5
REPETITIONS = 10  # the repeated cross-validation's r: each a K-fold split of its own
INCUMBENT = 0  # the first run given: kept when no other is shown better and none is cheaper
KEPT_AS = ("better", "cheaper", "incumbent", "higher score")  # why a system is shipped (`kept`)
POWER = 0.8  # for "questions needed": a difference of this size detected with this probability


@dataclass(frozen=True)
class Cost:
    """What recording a run cost per question, from its run.json (`RunRecord`): `requests` the requests its
    recorded question repeats made (`responses`: sent or served from its cache) over those question repeats,
    `input_tokens` its `input_tokens` over them; None when the run records none (no response at all; the
    quote-answer API reports answer units, not tokens). It is the recording's cost, over the coverage recorded
    (a wider HAS_ANSWER_CUTOFF range, more configurations of the quote-answer API cost more), not the cost at the
    recommended cell alone."""

    requests: float | None
    input_tokens: float | None

    @classmethod
    def of(cls, record: RunRecord) -> Cost:
        repeats = len(record.questions) * record.repeats - len(record.errors)
        if repeats <= 0 or record.responses <= 0:
            return cls(None, None)
        return cls(record.responses / repeats, record.input_tokens / repeats if record.input_tokens > 0 else None)

    @property
    def key(self) -> tuple[float, float]:
        """The order "cheaper first": requests per question, then input tokens per question; a cost a run does not
        record counts as the highest."""
        return (math.inf if self.requests is None else self.requests,
                math.inf if self.input_tokens is None else self.input_tokens)


@dataclass(frozen=True)
class TunedSystem:
    """One run, tuned on its own axes: its recommended cell and how it scores, per question in the common
    order (`Systems.questions`, the first run's file order)."""

    name: str  # the run directory as given
    pipeline: str
    cell: tuple[int, int]  # grid indices of the point its own decision ships (`Recommendation.marked`)
    point: tuple[float, float]  # (first axis, second axis) there
    point_text: tuple[str, str]  # the same, as the run's axes write them ('0.35', never '0.35000000000000003')
    certified: bool | None  # None without --max-wrong-rate
    counts: dict[Outcome, float]  # at the recommended cell, mean over repeats
    score: float  # in-sample: the sum over questions of x_q at the recommended cell (tuned on these questions)
    cv: np.ndarray  # (Q,): each question's held-out score, mean over the repetitions (see `cv_runs`)
    cv_runs: np.ndarray  # (r, Q): each question's score at the cell chosen without its fold, per repetition
    fold_cells: tuple[tuple[tuple[int, int], ...], ...]  # per repetition, per fold: the cell chosen without it
    outcomes: tuple[Outcome, ...]  # (Q,): each question's outcome at the recommended cell, first repeat
    titles: tuple[str, str]  # its system's axes, as its reports name them (`AxisSpec.title`)
    headings: tuple[str, str]  # ... as its tables name them (`AxisSpec.heading`)
    certified_correct: int | None = None  # correct at the certified point, first repeat; None when none is certified
    written: tuple[Any, ...] = ()  # `point` as run.json and decision.json write it (a choice by its name)
    settings: str = "cutoffs"  # what its points are (`pipelines.System.settings`)
    cost: Cost = Cost(None, None)  # what recording it cost per question

    @property
    def cv_score(self) -> float:
        """The mean cross-validated score per question."""
        return float(self.cv.mean()) if len(self.cv) else 0.0

    @property
    def certified_point(self) -> tuple[float, float] | None:
        """The certified point: the recommended cell when it is certified, else None."""
        return self.point if self.certified else None


@dataclass(frozen=True)
class McNemar:
    """An exact McNemar test at two systems' certified points, first repeat: `best_only` questions correct only
    in the best system, `other_only` only in the other; `p_value` two-sided, times `pairs` (Bonferroni, at most
    1); `p_two_sided` without the factor."""

    best_only: int
    other_only: int
    p_two_sided: float
    p_value: float
    pairs: int


@dataclass(frozen=True)
class Difference:
    """The best system against another, on cross-validated scores paired by question.

    `mean` is the mean over questions of d_q = cv_best(q) - cv_other(q), averaged over the repetitions (the
    "best" is the system to ship: negative for one that scores higher but is not shown better, or has no
    certified cell when the best has one), `standard_error` its per-question standard error sd(d) / sqrt(n) (sd
    with n - 1); `test_standard_error` the corrected repeated cross-validation t-test's (Bouckaert and Frank,
    over the k r fold means, see the module's docstring), `p_two_sided` that test's two-sided p-value on
    k r - 1 degrees of freedom, `p_value` that times `pairs` (Bonferroni over the k(k - 1) / 2 pairs of
    systems when k > 2), at most 1: the number to report. `identical`: every d_q is 0
    (p = 1). `needed`: about how many questions a difference of this size would need for the test to detect it
    at this significance (two-sided, with the factor) with 80% power, taking the test's variance to shrink as
    1 / n on its fixed k r - 1 degrees of freedom (a noncentral t; None when the difference or its variance is 0).
    When every fold's mean difference is the same, the t-test has no spread: the exact sign test of the
    questions that differ gives the p-value."""

    other: int  # index into `Systems.systems`
    n: int
    mean: float
    standard_error: float
    test_standard_error: float
    p_two_sided: float
    p_value: float
    pairs: int
    folds: int
    significance: float
    identical: bool
    needed: int | None
    mcnemar: McNemar | None = None  # with a certificate, when both systems have a certified point
    mean_of_folds: float = 0.0  # the test's centre: the mean of the k r fold means of d_q
    repetitions: int = 1  # r: how many K-fold splits the test's fold means come from

    @property
    def better(self) -> bool:
        """Whether the best system is better than this one at the significance level."""
        return self.p_value < self.significance

    @property
    def verdict(self) -> str:
        """'better' (the best is better, p < significance), 'identical' (every question scores the same) or
        'indistinguishable' (at this many questions)."""
        if self.identical:
            return "identical"
        return "better" if self.better else "indistinguishable"


@dataclass(frozen=True)
class Systems:
    """Every system, the best one (the highest `cv_score`, the first given among equals), and each other one
    against it (`differences[s]`, None for the best)."""

    systems: tuple[TunedSystem, ...]
    questions: tuple[Question, ...]  # the common order: the first run's
    fold_of: np.ndarray  # (r, Q): each question's fold in each repetition, the same for every system
    seed: int
    best: int
    differences: tuple[Difference | None, ...]
    significance: float
    pairs: int  # the Bonferroni factor: k(k - 1) / 2 when k > 2, else 1
    wrong_cost: float
    certificate: bool  # every run was swept with --max-wrong-rate
    max_wrong_rate: float | None
    evidence: str
    top: int = 0  # the highest cv_score among the eligible systems (the first given among equals)
    kept_as: str = "better"  # why `best` is shipped: one of KEPT_AS

    @property
    def k(self) -> int:
        """The number of folds."""
        return int(self.fold_of.max()) + 1 if len(self.fold_of) else 0

    @property
    def repetitions(self) -> int:
        """r: how many seeded K-fold splits."""
        return int(np.atleast_2d(self.fold_of).shape[0])

    @property
    def chosen(self) -> TunedSystem:
        return self.systems[self.best]

    def others(self) -> list[tuple[TunedSystem, Difference]]:
        """Every system but the best, in the order given, with its difference from the best."""
        return [(system, difference) for system, difference in zip(self.systems, self.differences, strict=True)
                if difference is not None]


# ---- the refusal ----------------------------------------------------------------------------------------------

def _by_text(sweep: Sweep, name: str) -> dict[str, Question]:
    found: dict[str, Question] = {}
    for question in sweep.questions:
        if question.question in found:
            raise InputError(f"{name}: the question {shown(question.question)} is swept twice; systems are "
                             "compared question by question, so each question text must appear once")
        found[question.question] = question
    return found


def check_same_questions(sweeps: Sequence[Sweep], names: Sequence[str]) -> None:
    """Refuse (`InputError`, exit 2) runs that cannot be compared as systems: fewer than two, swept on different
    question sets (the same texts, in any order, with the same `expect` and `accept` labels), with live and
    synthetic evidence mixed, or scored differently (`--wrong-cost`, `--answerable-share`). The message names
    the first difference and what to do."""
    if len(sweeps) != len(names):
        raise ValueError(f"{len(sweeps)} sweeps but {len(names)} names")
    if len(sweeps) < 2:
        raise InputError("comparing systems needs at least two runs (sweep.py RUN_A RUN_B ...)")
    first, first_name = sweeps[0], names[0]
    reference = _by_text(first, first_name)
    for sweep, name in zip(sweeps[1:], names[1:], strict=True):
        texts = _by_text(sweep, name)
        only_here = [text for text in texts if text not in reference]
        only_there = [text for text in reference if text not in texts]
        if only_here or only_there:
            example = (f"first: {shown(only_here[0])} is not in {first_name}" if only_here
                       else f"first: {shown(only_there[0])} is missing")
            raise InputError(f"{name}: {len(only_here) + len(only_there)} question(s) differ from {first_name}'s "
                             f"({len(only_here)} only in {name}, {len(only_there)} only in {first_name}; {example}): "
                             "systems are compared on one question set; record both from the same question file")
        relabelled = [text for text, question in texts.items()
                      if (question.expect, question.accept) != (reference[text].expect, reference[text].accept)]
        if relabelled:
            mine, theirs = texts[relabelled[0]], reference[relabelled[0]]
            raise InputError(f"{name}: {len(relabelled)} question(s) are labelled differently from {first_name}'s "
                             f"(first: {shown(relabelled[0])}, expect {mine.expect!r} accept {list(mine.accept)!r} "
                             f"against expect {theirs.expect!r} accept {list(theirs.accept)!r}): systems are judged "
                             "by one set of labels; sweep both with the same question file (--questions FILE)")
        evidence, first_evidence = sweep.replayed.record.evidence_word, first.replayed.record.evidence_word
        if evidence != first_evidence:
            raise InputError(f"{name} holds {evidence} evidence and {first_name} {first_evidence} evidence: a "
                             "synthetic run shows what the harness reports, not how a pipeline performs, so it is "
                             "never compared with a live one; record both against the same API")
        for what, option in (("wrong_cost", "--wrong-cost"), ("answerable_share", "--answerable-share")):
            mine_value, theirs_value = getattr(sweep.settings, what), getattr(first.settings, what)
            if mine_value != theirs_value:
                raise InputError(f"{name} was scored with {option} {mine_value} and {first_name} with "
                                 f"{theirs_value}: systems are compared on one objective; sweep them together")


# ---- the statistics -------------------------------------------------------------------------------------------

def fold_runs(expect: Sequence[str | None], k: int, seed: int = 0, repetitions: int = REPETITIONS) -> np.ndarray:
    """(repetitions, Q): each repetition's folds, `stats.folds(expect, k, seed * repetitions + i)` for repetition
    i: distinct seeds within a comparison, and disjoint sets of seeds for different `seed`s (seed 0's first
    repetition is the single K-fold split's seed 0)."""
    return np.array([stats.folds(expect, k, seed * repetitions + i) for i in range(repetitions)], dtype=int)


def cross_validated_scores(per_question: Callable[[int, int], np.ndarray], rule: Callable[[np.ndarray], Choice],
                           fold_of: np.ndarray) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """(each question's score at the cell `rule` chose with its fold left out, (Q,); the cell per fold).

    `rule(counts)` is the recommendation rule on the questions weighted by `counts` (0: left out);
    `per_question(i, j)` each question's contribution at cell (i, j); both in the order of `fold_of`."""
    scores = np.zeros(len(fold_of))
    cells = []
    for fold in range(int(fold_of.max()) + 1 if len(fold_of) else 0):
        held_out = fold_of == fold
        cell = rule((~held_out).astype(float)).cell
        cells.append(cell)
        scores[held_out] = per_question(*cell)[held_out]
    return scores, cells


def repeated_scores(per_question: Callable[[int, int], np.ndarray], rule: Callable[[np.ndarray], Choice],
                    folds_of: np.ndarray) -> tuple[np.ndarray, list[list[tuple[int, int]]]]:
    """`cross_validated_scores` once per repetition (a row of `folds_of`, (r, Q)): the scores (r, Q) and each
    repetition's cells per fold."""
    found = [cross_validated_scores(per_question, rule, fold_of) for fold_of in np.atleast_2d(folds_of)]
    return np.array([scores for scores, _ in found]).reshape(np.atleast_2d(folds_of).shape), \
        [cells for _, cells in found]


def pairs_of(k: int) -> int:
    """The Bonferroni factor for comparing k systems: every pair, k(k - 1) / 2, when k > 2; 1 for two."""
    return k * (k - 1) // 2 if k > 2 else 1


def paired(best: np.ndarray, other: np.ndarray, fold_of: np.ndarray, pairs: int = 1,
           significance: float = SIGNIFICANCE, other_index: int = 1) -> Difference:
    """The best system's cross-validated scores per question against another's: (Q,) for one K-fold split, or
    (r, Q) for r repetitions, with `fold_of` of the same shape (each question's fold in each repetition). The
    mean difference, its per-question standard error (over the questions' differences averaged over the
    repetitions), and the corrected repeated cross-validation t-test over the k r fold means, TWO-SIDED, times
    `pairs` (see `Difference`)."""
    d_runs = np.atleast_2d(np.asarray(best, dtype=float) - np.asarray(other, dtype=float))
    fold_runs_of = np.atleast_2d(fold_of)
    d = d_runs.mean(axis=0)
    n, repetitions = d_runs.shape[1], d_runs.shape[0]
    mean = float(d.mean()) if n else 0.0
    error = float(d.std(ddof=1)) / math.sqrt(n) if n > 1 else 0.0
    identical = bool(n and np.all(np.abs(d_runs) <= 1e-12))
    k = int(fold_runs_of.max()) + 1 if n else 0
    fold_means = np.array([row[folds == fold].mean() for row, folds in zip(d_runs, fold_runs_of, strict=True)
                           for fold in range(k) if (folds == fold).any()])
    means = len(fold_means)
    # Bouckaert and Frank (2004): var(D) x (1 / (k r) + n_test / n_train), n_test / n_train = 1 / (k - 1)
    variance = (1 / means + 1 / (k - 1)) * float(fold_means.var(ddof=1)) if means > 1 and k > 1 else 0.0
    test_error = math.sqrt(variance)
    centre = float(fold_means.mean()) if means else 0.0
    from scipy import optimize, stats  # here, so a sweep that compares no systems never imports scipy.stats

    if identical or means < 2:
        p_two = 1.0  # nothing to test: every question scores the same (or there is one fold)
    elif test_error <= 1e-12 * max(1.0, abs(centre)):
        # every fold differs by the same amount: the t-test has no spread to stand on, so the exact sign test of
        # the questions that differ decides (4 questions all one way: p = 0.125, never 0)
        ahead, behind = int((d > 1e-12).sum()), int((d < -1e-12).sum())
        p_two = float(stats.binomtest(ahead, ahead + behind, 0.5).pvalue) if ahead + behind else 1.0
    else:
        p_two = float(min(1.0, 2 * stats.t.sf(abs(centre) / test_error, means - 1)))
    needed = None
    if centre != 0 and test_error > 0 and means > 1:
        # the test's t grows as sqrt(n) on its fixed k r - 1 degrees of freedom: the n at which it reaches the
        # noncentrality that rejects with probability POWER (noncentral t; the other tail is negligible)
        critical = float(stats.t.ppf(1 - significance / pairs / 2, means - 1))
        shift = optimize.brentq(lambda nc: float(stats.nct.sf(critical, means - 1, nc)) - POWER, 0.0, 1e3)
        needed = max(2, math.ceil(n * (shift * test_error / centre) ** 2))
    return Difference(other_index, n, mean, error, test_error, p_two, min(1.0, pairs * p_two), pairs, k,
                      significance, identical, needed, mean_of_folds=centre, repetitions=repetitions)


def mcnemar(best_correct: np.ndarray, other_correct: np.ndarray, pairs: int = 1) -> McNemar:
    """The exact McNemar test on the questions where exactly one of two systems is correct (bool arrays, (Q,)):
    `scipy.stats.binomtest(b, b + c, 0.5)`, two-sided; p = 1 when no question differs."""
    best_correct, other_correct = np.asarray(best_correct, dtype=bool), np.asarray(other_correct, dtype=bool)
    b = int((best_correct & ~other_correct).sum())
    c = int((other_correct & ~best_correct).sum())
    if b + c == 0:
        p_two = 1.0
    else:
        from scipy.stats import binomtest

        p_two = float(binomtest(b, b + c, 0.5).pvalue)
    return McNemar(b, c, p_two, min(1.0, pairs * p_two), pairs)


def _order(sweep: Sweep, texts: Sequence[str]) -> np.ndarray:
    """Where each question of the common order (`texts`) is in `sweep`'s order."""
    position = {question.question: index for index, question in enumerate(sweep.questions)}
    return np.array([position[text] for text in texts], dtype=int)


def _system(sweep: Sweep, name: str, pipeline: str, order: np.ndarray, fold_of: np.ndarray) -> TunedSystem:
    rule = sweep.rule
    if rule is None:
        raise ValueError(f"{name}: the sweep holds no recommendation rule to re-run")
    n = len(order)

    def in_sweep_order(counts: np.ndarray) -> Choice:
        placed = np.zeros(n)
        placed[order] = counts
        return rule(placed)

    def per_question(i: int, j: int) -> np.ndarray:
        return sweep.model.per_question(i, j)[order]

    cv_runs, cells = repeated_scores(per_question, in_sweep_order, fold_of)
    # the point its own decision ships (the default unless its gain is shown out of sample), as its own report says;
    # the rule's cell when that is a default off the grid
    decision = sweep.decision
    recommended = sweep.recommended if decision.cell is not None else sweep.tuned
    cell = decision.marked
    first = [recommended.first[index].outcome for index in order]
    certificate = sweep.guarantee.certificate
    certified = None if certificate is None else bool(certificate.certified[cell])
    correct = sum(1 for outcome in first if outcome is Outcome.CORRECT) if certified else None
    return TunedSystem(
        name=name, pipeline=pipeline, cell=cell, point=(recommended.h, recommended.a),
        point_text=(sweep.h_axis.text(cell[0]), sweep.a_axis.text(cell[1])), certified=certified,
        counts={outcome: recommended.mean(outcome) for outcome in OUTCOMES},
        score=float(sweep.model.per_question(*cell).sum()), cv=cv_runs.mean(axis=0), cv_runs=cv_runs,
        fold_cells=tuple(tuple(row) for row in cells), outcomes=tuple(first),
        certified_correct=correct, titles=(sweep.system.axes[0].title, sweep.system.axes[1].title),
        headings=(sweep.system.axes[0].heading, sweep.system.axes[1].heading),
        written=tuple(spec.written(value) for spec, value in zip(sweep.system.axes, (recommended.h, recommended.a),
                                                                   strict=True)),
        settings=sweep.system.settings, cost=Cost.of(sweep.replayed.record))


def kept(systems: Sequence[TunedSystem], fold_of: np.ndarray, pairs: int, significance: float = SIGNIFICANCE,
         certificate: bool = False) -> tuple[int, int, str]:
    """(the system to ship, the highest-scoring one, why the first: one of `KEPT_AS`), by the rule of the
    module's docstring. The candidates are the eligible systems (with a certificate: those whose recommended
    cell is certified, when any is; else all) that no other eligible system is shown better than (p <
    `significance` with `pairs`' factor, its test's centre above); of them the cheapest (`Cost.key`), then
    INCUMBENT (the first given), then the highest `cv_score` (the first given among equals)."""
    eligible = ([i for i, system in enumerate(systems) if system.certified] if certificate else []) \
        or list(range(len(systems)))
    top = max(eligible, key=lambda i: (systems[i].cv_score, -i))  # the first among equals

    def beaten(j: int) -> bool:
        return any(difference.better and difference.mean_of_folds > 0
                   for difference in (paired(systems[i].cv_runs, systems[j].cv_runs, fold_of, pairs, significance,
                                             j) for i in eligible if i != j))

    candidates = [i for i in eligible if not beaten(i)] or [top]
    if len(candidates) == 1:
        return candidates[0], top, "better"
    cheapest = min(systems[i].cost.key for i in candidates)
    cheap = [i for i in candidates if systems[i].cost.key == cheapest]
    if len(cheap) == 1:
        return cheap[0], top, "cheaper"
    if INCUMBENT in cheap:
        return INCUMBENT, top, "incumbent"
    return max(cheap, key=lambda i: (systems[i].cv_score, -i)), top, "higher score"


def compare_systems(sweeps: Sequence[Sweep], names: Sequence[str], folds: int = FOLDS, seed: int = 0, *,
                    pipelines: Sequence[str] | None = None, significance: float = SIGNIFICANCE,
                    repetitions: int = REPETITIONS) -> Systems:
    """Compare systems swept on the same questions (see the module's docstring): `names` are the run directories
    as given, `folds` how many folds (at most one per question), `seed` the folds' seed, `pipelines` each run's
    pipeline label (default: its recorded pipeline's name), `significance` the level of "better". Refuses runs
    that are not comparable (`check_same_questions`)."""
    check_same_questions(sweeps, names)
    if pipelines is None:
        pipelines = [sweep.replayed.record.config.pipeline.name for sweep in sweeps]
    if len(pipelines) != len(sweeps):
        raise ValueError(f"{len(sweeps)} sweeps but {len(pipelines)} pipeline labels")
    questions = tuple(sweeps[0].questions)
    if len(questions) < 2:
        raise InputError("comparing systems needs at least two questions: each is scored with its fold left out")
    k = min(folds, len(questions))
    if k < 2:
        raise InputError(f"comparing systems needs at least 2 folds, not {folds}")
    fold_of = fold_runs([q.expect for q in questions], k, seed, repetitions)
    texts = [q.question for q in questions]
    systems = tuple(_system(sweep, name, pipeline, _order(sweep, texts), fold_of)
                    for sweep, name, pipeline in zip(sweeps, names, pipelines, strict=True))
    pairs = pairs_of(len(systems))
    certificate = all(sweep.guarantee.certificate is not None for sweep in sweeps)
    best, top, kept_as = kept(systems, fold_of, pairs, significance, certificate)
    differences: list[Difference | None] = []
    chosen = systems[best]
    for index, system in enumerate(systems):
        if index == best:
            differences.append(None)
            continue
        difference = paired(chosen.cv_runs, system.cv_runs, fold_of, pairs, significance, index)
        if certificate and chosen.certified and system.certified:
            best_correct, other_correct = (np.array([o is Outcome.CORRECT for o in s.outcomes])
                                           for s in (chosen, system))
            difference = replace(difference, mcnemar=mcnemar(best_correct, other_correct, pairs))
        differences.append(difference)
    alphas = {sweep.settings.max_wrong_rate for sweep in sweeps}
    return Systems(systems, questions, fold_of, seed, best, tuple(differences), significance, pairs,
                   sweeps[0].settings.wrong_cost, certificate, alphas.pop() if len(alphas) == 1 else None,
                   sweeps[0].replayed.record.evidence_word, top=top, kept_as=kept_as)

