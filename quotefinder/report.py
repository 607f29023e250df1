"""The sweep's results as tables and a Markdown summary. Computing lives in `grid`; plotting in `plots`.

Everything here is deterministic (stable orders, no clock), so a committed report diffs cleanly and
CI can tell when it is stale. Third-party text is made inert on the way out (`textsafe`).
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .cache import write_atomic
from .decision import ANSWER_CUTOFF, HAS_ANSWER_CUTOFF, Decision
from .grid import CODE, Axis, Choice, Curve, Table, at_point, recommend, score
from .questions import OUTCOMES, Outcome, Question
from .replay import Replayed
from .textsafe import csv_text, markdown_code

COUNT_COLUMNS = [outcome.value for outcome in OUTCOMES]  # correct, wrong, missed, no_answer, unjudged


def label(outcome: Outcome) -> str:
    return outcome.value.replace("_", "-")


@dataclass
class Point:
    """One pair of cutoffs with every question's decision and outcome there."""

    name: str
    h: float
    a: float
    judged: list[tuple[Decision, Outcome]]

    def count(self, outcome: Outcome) -> int:
        return sum(1 for _, o in self.judged if o is outcome)

    def counts(self) -> np.ndarray:
        """Counts in `OUTCOMES` order."""
        return np.array([self.count(outcome) for outcome in OUTCOMES])

    def title(self) -> str:
        return f"{self.name} ({self.h:g}, {self.a:g})"


@dataclass
class Sweep:
    """A filled grid and the points worth reporting."""

    replayed: Replayed
    h_axis: Axis
    a_axis: Axis
    counts: np.ndarray  # (H, A, outcome)
    curves: list[Curve]
    table: Table
    wrong_cost: float
    choice: Choice
    default: Point
    recommended: Point

    @property
    def items(self) -> list[tuple[Question, object]]:
        return self.replayed.items

    def score(self, point: Point) -> float:
        return float(score(point.counts(), self.wrong_cost))


def sweep(replayed: Replayed, h_axis: Axis, a_axis: Axis, wrong_cost: float) -> Sweep:
    """Fill the grid, choose the recommended cell, and judge the default and recommended points."""
    curves = [Curve.of(question, trace) for question, trace in replayed.items]
    table = Table.of(curves, h_axis.values)
    counts = table.counts(a_axis.values)
    config = replayed.record.get("config", {})
    default_h = config.get("has_answer_cutoff", HAS_ANSWER_CUTOFF)
    default_a = config.get("answer_cutoff", ANSWER_CUTOFF)
    choice = recommend(counts, h_axis.values, a_axis.values, wrong_cost, (default_h, default_a))
    best_h, best_a = h_axis.values[choice.h_index], a_axis.values[choice.a_index]
    return Sweep(
        replayed, h_axis, a_axis, counts, curves, table, wrong_cost, choice,
        Point("default", default_h, default_a, at_point(replayed.items, default_h, default_a)),
        Point("recommended", float(best_h), float(best_a), at_point(replayed.items, best_h, best_a)),
    )


# ---- tables -------------------------------------------------------------------------------------


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else float(value)


def grid_frame(result: Sweep) -> pd.DataFrame:
    """One row per cell: both cutoffs, the five counts, then quoted, score and evidence."""
    h_index, a_index = np.meshgrid(np.arange(len(result.h_axis.decimals)), np.arange(len(result.a_axis.decimals)),
                                   indexing="ij")
    frame = pd.DataFrame({
        "has_answer_cutoff": result.h_axis.values[h_index.ravel()],
        "answer_cutoff": result.a_axis.values[a_index.ravel()],
    })
    flat = result.counts.reshape(-1, len(OUTCOMES))
    for column, outcome in zip(COUNT_COLUMNS, OUTCOMES, strict=True):
        frame[column] = flat[:, CODE[outcome]]
    frame["quoted"] = frame["correct"] + frame["wrong"] + frame["unjudged"]
    frame["score"] = [_number(v) for v in score(result.counts, result.wrong_cost).ravel()]
    frame["evidence"] = result.replayed.record.get("evidence") or "unknown"
    return frame


def _spans(values: Sequence[str], codes: np.ndarray) -> str:
    """'correct 0-0.95; missed 1': the outcome (by code) over runs of consecutive cutoff values."""
    ends = [*np.flatnonzero(codes[1:] != codes[:-1]), len(codes) - 1]
    parts, start = [], 0
    for end in ends:
        span = values[start] if end == start else f"{values[start]}-{values[end]}"
        parts.append(f"{label(OUTCOMES[codes[start]])} {span}")
        start = end + 1
    return "; ".join(parts)


def _along_answer(curve: Curve, h: float) -> str:
    """Where the outcome changes along ANSWER_CUTOFF at one HAS_ANSWER_CUTOFF: the top's probability."""
    index = curve.set_index(h)
    none = label(OUTCOMES[curve.unquoted])
    if index == len(curve.tops):
        return f"{none} at any ANSWER_CUTOFF (no candidate qualifies)"
    return f"{label(OUTCOMES[curve.codes[index]])} up to {curve.tops[index].answers!r}; {none} above"


def questions_frame(result: Sweep) -> pd.DataFrame:
    """Per question: outcomes at the default and recommended points, the quote, where outcomes change."""
    rec = result.recommended
    h_text = [result.h_axis.text(i) for i in range(len(result.h_axis.decimals))]
    along_h = result.table.outcomes(rec.a)
    rows = []
    for (question, _), curve, codes, (d_decision, d_outcome), (r_decision, r_outcome) in zip(
            result.items, result.curves, along_h, result.default.judged, rec.judged, strict=True):
        shown = r_decision.quote or r_decision.closest
        c = shown.candidate if shown else None
        rows.append({
            "id": csv_text(question.id),
            "question": csv_text(question.question),
            "expect": question.expect,
            "default_outcome": d_outcome.value,
            "recommended_outcome": r_outcome.value,
            "default_quote": csv_text(d_decision.quote.candidate.sentence if d_decision.quote else ""),
            "recommended_quote": csv_text(r_decision.quote.candidate.sentence if r_decision.quote else ""),
            "closest_if_no_quote": csv_text(c.sentence if c and not r_decision.quote else ""),
            "answers": shown.answers if shown and shown.answers is not None else "",
            "source_title": csv_text(c.title if c else ""),
            "source_url": csv_text(c.url if c else ""),
            "source_date": csv_text(c.date if c and c.date else ""),
            "along_answer_cutoff": _along_answer(curve, rec.h),
            "along_has_answer_cutoff": _spans(h_text, codes),
            "evidence": result.replayed.record.get("evidence") or "unknown",
        })
    return pd.DataFrame(rows)


def csv_bytes(frame: pd.DataFrame) -> bytes:
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False, lineterminator="\n")
    return buffer.getvalue().encode()


# ---- summary -------------------------------------------------------------------------------------


def _md(text: str, table: bool = True) -> str:
    return markdown_code(text, in_table=table)


def _axis_words(axis: Axis) -> str:
    first, last = axis.text(0), axis.text(len(axis.decimals) - 1)
    if len(axis.decimals) == 1:
        return first
    step = format((axis.decimals[1] - axis.decimals[0]).normalize(), "f")
    return f"{first} to {last} in steps of {step}"


def summary_markdown(result: Sweep, plots: Sequence[tuple[str, str]] = (), gate: str = "") -> str:
    """The summary a team reads in CI. `plots` are (title, relative path); `gate` a line to add."""
    replayed, record = result.replayed, result.replayed.record
    evidence = record.get("evidence") or "unknown"
    lines = []
    if replayed.excluded:
        lines.append(f"**Incomplete: {len(replayed.excluded)} question(s) could not be replayed and are left out "
                     "of every count below** (listed at the end).")
        lines.append("")
    marker = " (SYNTHETIC evidence)" if evidence == "synthetic" else ""
    lines.append(f"# Cutoff sweep: {_md(replayed.run_dir.name, False)}{marker}")
    lines.append("")
    if evidence == "synthetic":
        lines += ["> **Synthetic evidence.** This run was recorded against the stand-in API from invented pages: it "
                  "shows what the harness reports, not how the real pipeline performs.", ""]
    judged = replayed.questions
    n_answer = sum(1 for q, _ in replayed.items if q.expect == "answer")
    lines += [
        f"- Question set: {_md(os.path.normpath(judged.path), False)} (sha256 {judged.sha256[:12]}), "
        f"{len(replayed.items)} question(s) swept: {n_answer} answer, {len(replayed.items) - n_answer} no-answer",
        f"- Run: {_md(str(replayed.run_dir), False)}, evidence **{evidence}**, recorded "
        f"{record.get('started_at', '?')} to {record.get('finished_at', '?')}, "
        f"{'complete' if record.get('complete') else 'INCOMPLETE'}",
        f"- Requests: {record.get('responses', '?')} cached responses, {record.get('input_tokens', '?')} input tokens "
        f"(last recording sent {record.get('requests', {}).get('sent', '?')})",
        f"- Grid: HAS_ANSWER_CUTOFF {_axis_words(result.h_axis)} x ANSWER_CUTOFF {_axis_words(result.a_axis)} "
        f"({result.counts.shape[0] * result.counts.shape[1]} cells); a probability equal to a cutoff passes it",
        f"- Recommended by: score = correct + no-answer - {result.wrong_cost:g} x wrong (missed and unjudged score 0); "
        f"{result.choice.tied} cell(s) share the best score {_number(result.choice.best_score)}; among them the one "
        f"deepest inside that region ({_depth_words(result.choice.depth)}), then the one nearest the default",
    ]
    if replayed.unjudged_in_run:
        lines.append(f"- {replayed.unjudged_in_run} recorded question(s) are not in the question file: not counted")
    if gate:
        lines.append(f"- Gate: {gate}")
    lines += ["", *_outcome_table(result), "", *_changed(result), *_review(result)]
    if plots:
        lines += ["## Plots", ""] + [f"- [{title}]({path})" for title, path in plots] + [""]
    if replayed.excluded:
        lines += ["## Left out", "", "| Question | Why |", "|---|---|"]
        lines += [f"| {_md(q.id)} | {_md(why)} |" for q, why in replayed.excluded] + [""]
    return "\n".join(lines).rstrip() + "\n"


def _depth_words(depth: float) -> str:
    if depth == float("inf"):
        return "every cell scores the same"
    return f"{int(depth)} grid step(s) from the nearest lower-scoring cell"


def _outcome_table(result: Sweep) -> list[str]:
    d, r = result.default, result.recommended
    lines = [f"| Outcome | Default ({d.h:g}, {d.a:g}) | Recommended ({r.h:g}, {r.a:g}) |", "|---|---:|---:|"]
    for outcome in OUTCOMES:
        if outcome is not Outcome.UNJUDGED or d.count(outcome) or r.count(outcome):
            lines.append(f"| {label(outcome)} | {d.count(outcome)} | {r.count(outcome)} |")
    lines.append(f"| **score** | {_number(result.score(d))} | {_number(result.score(r))} |")
    return lines


def _quote_cell(decision: Decision) -> str:
    return _md(decision.quote.candidate.sentence) if decision.quote else "(no quote)"


def _changed(result: Sweep) -> list[str]:
    rows = [(q, d, r) for (q, _), d, r in zip(result.items, result.default.judged, result.recommended.judged,
                                               strict=True) if d[1] is not r[1]]
    if not rows:
        return ["No question's outcome differs between the default and the recommended point.", ""]
    lines = ["## Questions whose outcome differs", "",
             "| Question | Default | Recommended | Quote at default | Quote at recommended |", "|---|---|---|---|---|"]
    for q, (d_decision, d_outcome), (r_decision, r_outcome) in rows:
        lines.append(f"| {_md(q.id)} | {label(d_outcome)} | {label(r_outcome)} | {_quote_cell(d_decision)} "
                     f"| {_quote_cell(r_decision)} |")
    return [*lines, ""]


def _review(result: Sweep) -> list[str]:
    """Quotes printed at either point that are unjudged (no accept patterns) or judged wrong."""
    seen, rows = set(), []
    for point in (result.default, result.recommended):
        for (question, _), (decision, outcome) in zip(result.items, point.judged, strict=True):
            if decision.quote and outcome in (Outcome.UNJUDGED, Outcome.WRONG):
                c = decision.quote.candidate
                if (question.id, c.sentence) not in seen:
                    seen.add((question.id, c.sentence))
                    rows.append(f"| {_md(question.id)} | {label(outcome)} at {point.name} | {_md(c.sentence)} "
                                f"| {_md(c.title)} | {_md(c.url)} |")
    if not rows:
        return []
    return ["## Quotes that need review", "",
            "| Question | Status | Quote | Source | URL |", "|---|---|---|---|---|", *rows, ""]


# ---- writing -------------------------------------------------------------------------------------


def write_files(out_dir: Path, files: dict[str, bytes]) -> None:
    """Write each file atomically (0644: reports are meant to be shared)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        write_atomic(out_dir / name, data, 0o644)
