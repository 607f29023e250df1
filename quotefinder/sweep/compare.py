"""Comparing a run with a baseline run: what got worse, what got fixed, at one pair of cutoffs and
over the whole grid. Both runs are judged with the same question file, so only evidence differs.

Two runs are comparable only when they asked the same questions the same way: the same question
texts, pipeline and cache versions, model and search settings, and the same kind of evidence (a
synthetic run is never compared with a live one). Only a different code version is allowed, and
said. Each question is compared on its first m repeats in each run, m = min(the baseline's repeats, the
run's repeats) (`Comparison.repeats_compared`), by the shares of its outcomes over those m (never repeat r
of one run against repeat r of the other), and the direction of a change is its score's (correct +
no-answer - C x wrong, the m repeats averaged):

    UNCHANGED   the same shares of each outcome
    REVIEW      a change to or from an unjudged or unlabelled outcome: nobody has said whether it is better
    NEW_WRONG   a lower score, with a larger share of wrong quotes
    NEW_MISSED  a lower score without more wrong quotes: correct quotes became missed
    FIXED       a higher score
    MIXED       other outcomes, the same score (at C = 2: two correct quotes and a wrong one became misses)

Whether the run is worse overall is a sign test over the questions whose score changed (NEW_WRONG and
NEW_MISSED against FIXED). Two recordings of the same pipeline are exchangeable, so a question is as
likely to score lower as higher: noise moves questions both ways, a regression mostly one way. That holds
only between like and like: a share over three repeats against one draw is not symmetric (a single draw
is more often at an extreme), and the sign test then raised false alarms in far more than 5% of pure-noise
comparisons at a stated 5% (`tests/sweep/test_compare.py`); so the run with more repeats is compared on its
first m only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any

import numpy as np

from ..core.errors import InputError
from ..questions import UNKNOWN, Outcome, Question
from ..record.rundir import RunRecord
from .analysis import Sweep
from .grid import CODE, at_point
from .probability import sign_test
from .replay import Replayed
from .stats import outcome_scores

SIGNIFICANCE = 0.05


class ChangeKind(StrEnum):
    """How one question's outcome changed between the baseline and the run, in reporting order."""

    NEW_WRONG = "NEW_WRONG"
    NEW_MISSED = "NEW_MISSED"
    FIXED = "FIXED"
    MIXED = "MIXED"
    REVIEW = "REVIEW"
    UNCHANGED = "UNCHANGED"

    @property
    def worse(self) -> bool:
        return self in (ChangeKind.NEW_WRONG, ChangeKind.NEW_MISSED)


def comparability(new: RunRecord, base: RunRecord) -> tuple[list[str], list[str]]:
    """(reasons the runs cannot be compared, cautions to print when they can)."""
    problems, cautions = [], []
    new_texts, base_texts = set(new.texts), set(base.texts)
    if new_texts != base_texts:
        problems.append(f"different question sets ({len(new_texts - base_texts)} only in the run, "
                        f"{len(base_texts - new_texts)} only in the baseline)")
    settings = {
        "pipeline version": (base.pipeline_version, new.pipeline_version),
        "cache format": (base.cache_format, new.cache_format),
        "system": (base.config.system, new.config.system),
    }
    for name, (then, now) in settings.items():
        if then != now:
            problems.append(f"different {name} ({then!r} then, {now!r} now)")
    if base.config.system == new.config.system and base.config.pipeline_digest != new.config.pipeline_digest:
        changed = pipeline_changes(base.config.pipeline.as_json(), new.config.pipeline.as_json())
        problems.append(f"different pipelines ({'; '.join(changed)}): --baseline is the same system re-recorded; "
                        "to choose between two pipelines, sweep both: `sweep.py RUN_A RUN_B`")
    if new.evidence != base.evidence:
        problems.append(f"{base.evidence} evidence against {new.evidence} evidence")
    if new.code_version != base.code_version:
        cautions.append(f"recorded by different code versions ({base.code_version} then, "
                        f"{new.code_version} now): a harness change can move results on its own")
    return problems, cautions


def pipeline_changes(then: dict[str, Any], now: dict[str, Any], where: str = "") -> list[str]:
    """The values two resolved pipelines (`as_json`) differ in, as 'search.max_results 5 then, 3 now', their
    names aside (a name is not part of what is sent)."""
    changed = []
    for key in sorted({*then, *now} - ({"name"} if not where else set())):
        a, b = then.get(key), now.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            changed += pipeline_changes(a, b, f"{where}{key}.")
        elif a != b:
            changed.append(f"{where}{key} {_short(a)} then, {_short(b)} now")
    return changed


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def require_comparable(new: RunRecord, base: RunRecord, new_name: object, base_name: object) -> list[str]:
    """The cautions for comparing two run records; `InputError` with every reason if they are not comparable."""
    problems, cautions = comparability(new, base)
    if problems:
        raise InputError(f"{new_name} and {base_name} are not comparable: " + "; ".join(problems))
    return cautions


def _shares(outcomes: Sequence[Outcome]) -> dict[Outcome, Fraction]:
    return {outcome: Fraction(count, len(outcomes)) for outcome, count in Counter(outcomes).items()}


def first_repeats(before: Sequence[Outcome], after: Sequence[Outcome]
                  ) -> tuple[tuple[Outcome, ...], tuple[Outcome, ...]]:
    """Each run's first m = min(len(before), len(after)) outcomes of one question: what is compared."""
    m = min(len(before), len(after))
    return tuple(before[:m]), tuple(after[:m])


def change(before: Sequence[Outcome], after: Sequence[Outcome], wrong_cost: float = 2.0) -> ChangeKind:
    """How one question changed between the baseline (its outcome in each repeat) and the run, judged on
    each run's first m = min(len(before), len(after)) repeats (`first_repeats`), so that the two sides are
    equally noisy and, between recordings of the same pipeline, worse and fixed are equally likely."""
    then, now = (_shares(outcomes) for outcomes in first_repeats(before, after))
    if then == now:
        return ChangeKind.UNCHANGED
    if any(o in UNKNOWN for o in (*then, *now)):
        return ChangeKind.REVIEW
    values = outcome_scores(wrong_cost)
    gained = sum(float(share) * values[CODE[o]] for o, share in now.items()) \
        - sum(float(share) * values[CODE[o]] for o, share in then.items())
    if abs(gained) < 1e-12:
        return ChangeKind.MIXED
    if gained > 0:
        return ChangeKind.FIXED
    if now.get(Outcome.WRONG, 0) > then.get(Outcome.WRONG, 0):
        return ChangeKind.NEW_WRONG
    return ChangeKind.NEW_MISSED


def sign_test_of(kinds: Iterable[ChangeKind]) -> tuple[int, int, float]:
    """(questions worse, questions fixed, the one-sided exact sign test's p-value of "worse and fixed
    equally likely" against "worse more likely") over questions' changes."""
    found = list(kinds)
    worse = sum(1 for kind in found if kind.worse)
    fixed = sum(1 for kind in found if kind is ChangeKind.FIXED)
    return worse, fixed, sign_test(worse, fixed)


@dataclass(frozen=True)
class Change:
    """One question at the compared point: its outcome in each compared repeat (each run's first m) then and
    now, and the change."""

    question: Question
    before: tuple[Outcome, ...]
    after: tuple[Outcome, ...]
    kind: ChangeKind


@dataclass(frozen=True)
class Comparison:
    """The run against its baseline at one point, and the difference of their grids.

    `worse` is what the exit status follows: with `strict`, any question that got worse; otherwise a
    one-sided exact sign test (worse against fixed questions) below `significance`. Each question is
    labelled from its first `repeats_compared` repeats in each run (the smaller of the two runs' repeat
    counts); the grid difference is of the means over all repeats of each run.
    """

    baseline: Replayed
    point: tuple[float, float]
    rows: list[Change]
    difference: np.ndarray  # (H, A, outcomes): run's mean counts minus the baseline's
    score_difference: np.ndarray  # (H, A)
    cautions: list[str]
    significance: float = SIGNIFICANCE
    strict: bool = False
    repeats_compared: int = 1  # m: each question's first m repeats in each run are compared

    @property
    def worse_questions(self) -> int:
        return sign_test_of(row.kind for row in self.rows)[0]

    @property
    def better_questions(self) -> int:
        return sign_test_of(row.kind for row in self.rows)[1]

    @property
    def p_value(self) -> float:
        """P(at least this many of the changed questions got worse) if worse and better were equally likely."""
        return sign_test_of(row.kind for row in self.rows)[2]

    @property
    def worse(self) -> bool:
        if self.strict:
            return self.worse_questions > 0
        return self.p_value < self.significance

    def tally(self) -> dict[ChangeKind, int]:
        """How many rows of each kind, every kind present, in reporting order."""
        return {kind: sum(1 for row in self.rows if row.kind is kind) for kind in ChangeKind}


def changes_at(result: Sweep, baseline: Sweep, point: tuple[float, float]) -> tuple[list[Change], int]:
    """Each question of `result` that `baseline` holds too, labelled at `point` from its first m repeats in each
    (m = the smaller repeat count: `change`), and m."""
    base_index = {q.question: n for n, q in enumerate(baseline.replayed.questions)}
    after = [at_point(curves, *point) for curves in result.judged]
    before = [at_point(curves, *point) for curves in baseline.judged]
    m = min(len(before), len(after))
    rows = []
    for n, question in enumerate(result.replayed.questions):
        if question.question in base_index:
            then = tuple(judged[base_index[question.question]].outcome for judged in before[:m])
            now = tuple(judged[n].outcome for judged in after[:m])
            rows.append(Change(question=question, before=then, after=now, kind=change(then, now, result.wrong_cost)))
    return rows, m


def compare(result: Sweep, baseline: Sweep, point: tuple[float, float], significance: float = SIGNIFICANCE,
            strict: bool = False) -> Comparison:
    """Label each question at `point` from its first m repeats in each run (m = the smaller repeat count;
    `change`), and difference the two grids (means over all repeats)."""
    run, base = result.replayed, baseline.replayed
    cautions = require_comparable(run.record, base.record, run.run_dir, base.run_dir)
    base_index = {q.question: n for n, q in enumerate(base.questions)}
    unmatched = sorted({q.id for q in run.questions if q.question not in base_index}
                       | {q.id for q in base.questions} - {q.id for q in run.questions})
    if unmatched:
        cautions.append(f"{len(unmatched)} question(s) could be replayed in only one of the runs and are not "
                        f"compared ({', '.join(unmatched[:10])}{', ...' if len(unmatched) > 10 else ''}); the grid "
                        "difference is over different question sets")
    rows, m = changes_at(result, baseline, point)
    difference = result.counts - baseline.counts
    score_difference = result.scores - baseline.scores
    return Comparison(baseline=base, point=point, rows=rows, difference=difference,
                      score_difference=score_difference, cautions=cautions, significance=significance, strict=strict,
                      repeats_compared=m)
