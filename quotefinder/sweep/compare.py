"""Comparing a run with a baseline run: what got worse, what got fixed, at one pair of cutoffs and
over the whole grid. Both runs are judged with the same question file, so only evidence differs.

Two runs are comparable only when they asked the same questions the same way: the same question
texts, pipeline and cache versions, model and search settings, and the same kind of evidence (a
synthetic run is never compared with a live one). Only a different code version is allowed, and
said. Per question (and repeat) at the point:

    UNCHANGED   the same outcome
    NEW_WRONG   now a wrong quote, and it was not before
    NEW_MISSED  now missed, and it was correct before
    FIXED       better than before: a wrong quote gone, or a missed answer now correct
    REVIEW      a change to or from an unjudged quote: nobody has said whether it is better
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from ..errors import InputError
from ..questions import Outcome, Question
from ..record.rundir import RunRecord
from .analysis import Sweep
from .grid import at_point
from .replay import Replayed
from .stats import outcome_scores


class ChangeKind(StrEnum):
    """How one question's outcome changed between the baseline and the run, in reporting order."""

    NEW_WRONG = "NEW_WRONG"
    NEW_MISSED = "NEW_MISSED"
    FIXED = "FIXED"
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
        "model": (base.config.model, new.config.model),
        "max results": (base.config.max_results, new.config.max_results),
        "max tokens per page": (base.config.max_tokens_per_page, new.config.max_tokens_per_page),
        "min sentences": (base.config.min_sentences, new.config.min_sentences),
    }
    for name, (then, now) in settings.items():
        if then != now:
            problems.append(f"different {name} ({then!r} then, {now!r} now)")
    if new.evidence != base.evidence:
        problems.append(f"{base.evidence} evidence against {new.evidence} evidence")
    if new.code_version != base.code_version:
        cautions.append(f"recorded by different code versions ({base.code_version} then, "
                        f"{new.code_version} now): a harness change can move results on its own")
    return problems, cautions


def require_comparable(new: RunRecord, base: RunRecord, new_name: object, base_name: object) -> list[str]:
    """The cautions for comparing two run records; `InputError` with every reason if they are not comparable."""
    problems, cautions = comparability(new, base)
    if problems:
        raise InputError(f"{new_name} and {base_name} are not comparable: " + "; ".join(problems))
    return cautions


def change(before: Outcome, after: Outcome) -> ChangeKind:
    """How one question's outcome changed between the baseline and the run."""
    if before is after:
        return ChangeKind.UNCHANGED
    if Outcome.UNJUDGED in (before, after):
        return ChangeKind.REVIEW
    if after is Outcome.WRONG:
        return ChangeKind.NEW_WRONG
    if after is Outcome.MISSED and before is Outcome.CORRECT:
        return ChangeKind.NEW_MISSED
    return ChangeKind.FIXED


@dataclass(frozen=True)
class Change:
    """One question (one repeat) at the compared point: its outcome then and now, and the change."""

    question: Question
    repeat: int
    before: Outcome
    after: Outcome
    kind: ChangeKind


@dataclass
class Comparison:
    """The run against its baseline at one point, and the difference of their grids."""

    baseline: Replayed
    point: tuple[float, float]
    rows: list[Change]
    difference: np.ndarray  # (H, A, outcomes): run's mean counts minus the baseline's
    score_difference: np.ndarray  # (H, A)
    cautions: list[str]
    repeats: int

    @property
    def worse(self) -> bool:
        return any(row.kind.worse for row in self.rows)

    def tally(self) -> dict[ChangeKind, int]:
        """How many rows of each kind, every kind present, in reporting order."""
        return {kind: sum(1 for row in self.rows if row.kind is kind) for kind in ChangeKind}

    def tally_words(self) -> str:
        """'NEW_WRONG 1, NEW_MISSED 0, FIXED 2, REVIEW 0, UNCHANGED 7'."""
        return ", ".join(f"{kind.value} {count}" for kind, count in self.tally().items())


def compare(result: Sweep, baseline: Sweep, point: tuple[float, float]) -> Comparison:
    """Label each question (and repeat both runs hold) at `point`, and difference the two grids."""
    run, base = result.replayed, baseline.replayed
    cautions = require_comparable(run.record, base.record, run.run_dir, base.run_dir)
    repeats = min(run.repeats, base.repeats)
    if run.repeats != base.repeats:
        cautions.append(f"the runs hold {base.repeats} and {run.repeats} repeats; the first {repeats} are compared")
    base_index = {q.question: n for n, q in enumerate(base.questions)}
    unmatched = sorted({q.id for q in run.questions if q.question not in base_index}
                       | {q.id for q in base.questions} - {q.id for q in run.questions})
    if unmatched:
        cautions.append(f"{len(unmatched)} question(s) could be replayed in only one of the runs and are not "
                        f"compared ({', '.join(unmatched[:10])}{', ...' if len(unmatched) > 10 else ''}); the grid "
                        "difference is over different question sets")
    rows = []
    for repeat in range(repeats):
        after = at_point(run.questions, run.traces[repeat], *point)
        before = at_point(base.questions, base.traces[repeat], *point)
        for question, now in zip(run.questions, after, strict=True):
            if question.question in base_index:
                then = before[base_index[question.question]].outcome
                rows.append(Change(question, repeat, then, now.outcome, change(then, now.outcome)))
    difference = result.counts - baseline.counts
    score_difference = difference @ outcome_scores(result.wrong_cost)
    return Comparison(base, point, rows, difference, score_difference, cautions, repeats)
