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
from typing import Any

import numpy as np

from .analysis import Sweep
from .errors import InputError
from .grid import at_point
from .questions import Outcome, Question
from .replay import Replayed
from .stats import outcome_scores

SAME_SETTINGS = ("pipeline_version", "cache_format")
SAME_CONFIG = ("model", "max_results", "max_tokens_per_page", "min_sentences")
WORSE = ("NEW_WRONG", "NEW_MISSED")


def comparability(new: dict[str, Any], base: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(reasons the runs cannot be compared, cautions to print when they can)."""
    problems, cautions = [], []
    new_texts = {q["question"] for q in new.get("questions", [])}
    base_texts = {q["question"] for q in base.get("questions", [])}
    if new_texts != base_texts:
        problems.append(f"different question sets ({len(new_texts - base_texts)} only in the run, "
                        f"{len(base_texts - new_texts)} only in the baseline)")
    for key in SAME_SETTINGS:
        if new.get(key) != base.get(key):
            problems.append(f"different {key.replace('_', ' ')} ({base.get(key)!r} then, {new.get(key)!r} now)")
    for key in SAME_CONFIG:
        then, now = base.get("config", {}).get(key), new.get("config", {}).get(key)
        if then != now:
            problems.append(f"different {key.replace('_', ' ')} ({then!r} then, {now!r} now)")
    if new.get("evidence") != base.get("evidence"):
        problems.append(f"{base.get('evidence')} evidence against {new.get('evidence')} evidence")
    if new.get("code_version") != base.get("code_version"):
        cautions.append(f"recorded by different code versions ({base.get('code_version')} then, "
                        f"{new.get('code_version')} now): a harness change can move results on its own")
    return problems, cautions


def require_comparable(new: dict[str, Any], base: dict[str, Any], new_name: object, base_name: object) -> list[str]:
    """The cautions for comparing two run records; `InputError` with every reason if they are not comparable."""
    problems, cautions = comparability(new, base)
    if problems:
        raise InputError(f"{new_name} and {base_name} are not comparable: " + "; ".join(problems))
    return cautions


def change(before: Outcome, after: Outcome) -> str:
    """The label of one question's change between the baseline and the run."""
    if before is after:
        return "UNCHANGED"
    if Outcome.UNJUDGED in (before, after):
        return "REVIEW"
    if after is Outcome.WRONG:
        return "NEW_WRONG"
    if after is Outcome.MISSED and before is Outcome.CORRECT:
        return "NEW_MISSED"
    return "FIXED"


@dataclass
class Comparison:
    """The run against its baseline at one point, and the difference of their grids."""

    baseline: Replayed
    point: tuple[float, float]
    rows: list[tuple[Question, int, Outcome, Outcome, str]]  # question, repeat, before, after, label
    difference: np.ndarray  # (H, A, outcomes): run's mean counts minus the baseline's
    score_difference: np.ndarray  # (H, A)
    cautions: list[str]
    repeats: int

    @property
    def worse(self) -> bool:
        return any(row[4] in WORSE for row in self.rows)

    def tally(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for row in self.rows:
            found[row[4]] = found.get(row[4], 0) + 1
        return found


def compare(result: Sweep, baseline: Sweep, point: tuple[float, float]) -> Comparison:
    """Label each question (and repeat both runs hold) at `point`, and difference the two grids."""
    cautions = require_comparable(result.replayed.record, baseline.replayed.record, result.replayed.run_dir,
                                  baseline.replayed.run_dir)
    repeats = min(len(result.replayed.runs), len(baseline.replayed.runs))
    if len(result.replayed.runs) != len(baseline.replayed.runs):
        cautions.append(f"the runs hold {len(baseline.replayed.runs)} and {len(result.replayed.runs)} repeats; "
                        f"the first {repeats} are compared")
    base_index = {q.question: n for n, (q, _) in enumerate(baseline.replayed.items)}
    unmatched = sorted({q.id for q, _ in result.replayed.items if q.question not in base_index}
                       | {q.id for q, _ in baseline.replayed.items} - {q.id for q, _ in result.replayed.items})
    if unmatched:
        cautions.append(f"{len(unmatched)} question(s) could be replayed in only one of the runs and are not "
                        f"compared ({', '.join(unmatched[:10])}{', ...' if len(unmatched) > 10 else ''}); the grid "
                        "difference is over different question sets")
    rows = []
    for repeat in range(repeats):
        after = at_point(result.replayed.runs[repeat], *point)
        before = at_point(baseline.replayed.runs[repeat], *point)
        for (question, _), (_, outcome) in zip(result.replayed.runs[repeat], after, strict=True):
            if question.question in base_index:
                then = before[base_index[question.question]][1]
                rows.append((question, repeat, then, outcome, change(then, outcome)))
    difference = result.counts - baseline.counts
    score_difference = difference @ outcome_scores(result.wrong_cost)
    return Comparison(baseline.replayed, point, rows, difference, score_difference, cautions, repeats)
