"""The sweep's results as tables and a Markdown summary. Computing lives in `grid`; plotting in `plots`.

Everything here is deterministic (stable orders, no clock), so a committed report diffs cleanly and
CI can tell when it is stale. Third-party text is made inert on the way out (`textsafe`).
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from .analysis import Point, Sweep
from .cache import write_atomic
from .compare import Comparison
from .decision import Decision
from .grid import CODE, Axis, Curve, score
from .questions import OUTCOMES, Outcome
from .textsafe import csv_text, markdown_code

COUNT_COLUMNS = [outcome.value for outcome in OUTCOMES]  # correct, wrong, missed, no_answer, unjudged
LIST_AT_MOST = 50  # rows of a per-question list in the summary; questions.csv has them all


def label(outcome: Outcome) -> str:
    return outcome.value.replace("_", "-")


# ---- tables -------------------------------------------------------------------------------------


def _number(value: float) -> float | int:
    """An integer when it is one, else rounded to 4 decimals (means over repeats)."""
    return int(value) if float(value).is_integer() else round(float(value), 4)


def _numbers(values: np.ndarray) -> pd.Series:
    """A column of `_number`s that stays as written: 6 stays 6 beside 5.6667, not 6.0."""
    return pd.Series([_number(v) for v in np.ravel(values)], dtype=object)


def _cells(result: Sweep) -> pd.DataFrame:
    """The grid's cells, row-major: HAS_ANSWER_CUTOFF, then ANSWER_CUTOFF."""
    h_index, a_index = np.meshgrid(np.arange(len(result.h_axis.decimals)), np.arange(len(result.a_axis.decimals)),
                                   indexing="ij")
    return pd.DataFrame({
        "has_answer_cutoff": result.h_axis.values[h_index.ravel()],
        "answer_cutoff": result.a_axis.values[a_index.ravel()],
    })


def grid_frame(result: Sweep) -> pd.DataFrame:
    """One row per cell: both cutoffs, the five counts (means over repeats), then quoted, score,
    `<outcome>_min`/`_max` over repeats (when there are several), the bootstrap's share of
    recommendations, and evidence."""
    frame = _cells(result)
    flat = result.counts.reshape(-1, len(OUTCOMES))
    for column, outcome in zip(COUNT_COLUMNS, OUTCOMES, strict=True):
        frame[column] = _numbers(flat[:, CODE[outcome]])
    frame["quoted"] = _numbers(flat[:, [CODE[o] for o in (Outcome.CORRECT, Outcome.WRONG, Outcome.UNJUDGED)]].sum(1))
    frame["score"] = _numbers(score(result.counts, result.wrong_cost))
    if result.repeats > 1:
        lows, highs = result.per_repeat.min(axis=0), result.per_repeat.max(axis=0)
        for column, outcome in zip(COUNT_COLUMNS, OUTCOMES, strict=True):
            frame[f"{column}_min"] = lows[..., CODE[outcome]].ravel()
            frame[f"{column}_max"] = highs[..., CODE[outcome]].ravel()
    if result.stability is not None:
        frame["bootstrap_share"] = _numbers(result.stability.frequency)
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


def questions_frame(result: Sweep, comparison: Comparison | None = None) -> pd.DataFrame:
    """Per question: outcomes at the default and recommended points, the quote, where outcomes change
    (first repeat), its outcomes in every repeat, and its change against a baseline."""
    rec = result.recommended
    h_text = [result.h_axis.text(i) for i in range(len(result.h_axis.decimals))]
    along_h = result.tables[0].outcomes(rec.a)
    changes = {(q.question, repeat): (before, name) for q, repeat, before, _, name in comparison.rows} \
        if comparison else {}
    rows = []
    for index, ((question, _), curve, codes, (d_decision, d_outcome), (r_decision, r_outcome)) in enumerate(zip(
            result.items, result.curves, along_h, result.default.first, rec.first, strict=True)):
        shown = r_decision.quote or r_decision.closest
        c = shown.candidate if shown else None
        row = {
            "id": csv_text(question.id),
            "question": csv_text(question.question),
            "expect": question.expect,
            "default_outcome": d_outcome.value,
            "recommended_outcome": r_outcome.value,
            "default_quote": csv_text(d_decision.sentence or ""),
            "recommended_quote": csv_text(r_decision.sentence or ""),
            "closest_if_no_quote": csv_text(c.sentence if c and not r_decision.quote else ""),
            "answers": shown.answers if shown and shown.answers is not None else "",
            "source_title": csv_text(c.title if c else ""),
            "source_url": csv_text(c.url if c else ""),
            "source_date": csv_text(c.date if c and c.date else ""),
            "along_answer_cutoff": _along_answer(curve, rec.h),
            "along_has_answer_cutoff": _spans(h_text, codes),
        }
        if result.repeats > 1:
            row["recommended_by_repeat"] = " ".join(o.value for o in rec.outcomes(index))
        if comparison:
            before, name = changes.get((question.question, 0), (None, ""))
            row["baseline_outcome"] = before.value if before else ""
            row["change"] = name
        row["evidence"] = result.replayed.record.get("evidence") or "unknown"
        rows.append(row)
    return pd.DataFrame(rows)


def comparison_frame(result: Sweep, comparison: Comparison) -> pd.DataFrame:
    """One row per cell: the run's mean counts minus the baseline's, and the score difference."""
    frame = _cells(result)
    flat = comparison.difference.reshape(-1, len(OUTCOMES))
    for column, outcome in zip(COUNT_COLUMNS, OUTCOMES, strict=True):
        frame[f"{column}_change"] = _numbers(flat[:, CODE[outcome]])
    frame["score_change"] = _numbers(comparison.score_difference)
    return frame


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


def summary_markdown(result: Sweep, plots: Sequence[tuple[str, str]] = (), gate: str = "",
                     comparison: Comparison | None = None) -> str:
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
    repeats = f", {result.repeats} repeats of every request" if result.repeats > 1 else ""
    lines += [
        f"- Question set: {_md(os.path.normpath(judged.path), False)} (sha256 {judged.sha256[:12]}), "
        f"{len(replayed.items)} question(s) swept: {n_answer} answer, {len(replayed.items) - n_answer} no-answer",
        f"- Run: {_md(str(replayed.run_dir), False)}, evidence **{evidence}**, recorded "
        f"{record.get('started_at', '?')} to {record.get('finished_at', '?')}, "
        f"{'complete' if record.get('complete') else 'INCOMPLETE'}{repeats}",
        f"- Requests: {record.get('responses', '?')} cached responses, {record.get('input_tokens', '?')} input tokens "
        f"(last recording sent {record.get('requests', {}).get('sent', '?')})",
        f"- Grid: HAS_ANSWER_CUTOFF {_axis_words(result.h_axis)} x ANSWER_CUTOFF {_axis_words(result.a_axis)} "
        f"({result.counts.shape[0] * result.counts.shape[1]} cells); a probability equal to a cutoff passes it",
        f"- Recommended by: score = correct + no-answer - {result.wrong_cost:g} x wrong (missed and unjudged score 0)"
        f"{', averaged over repeats' if result.repeats > 1 else ''}; {result.choice.tied} cell(s) share the best "
        f"score {_number(result.choice.best_score)}; among them the one deepest inside that region "
        f"({_depth_words(result.choice.depth)}), then the one nearest the default",
    ]
    if replayed.unjudged_in_run:
        lines.append(f"- {replayed.unjudged_in_run} recorded question(s) are not in the question file: not counted")
    if gate:
        lines.append(f"- Gate: {gate}")
    lines += ["", *_outcome_table(result), "", *_certainty(result), *_flaky(result)]
    if comparison is not None:
        lines += _comparison(result, comparison)
    lines += [*_changed(result), *_review(result)]
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


def _count(point: Point, outcome: Outcome) -> str:
    """A count at a point: the number, or the mean over repeats with its range."""
    low, high = point.low_high(outcome)
    return str(low) if low == high else f"{_number(point.mean(outcome))} ({low}-{high})"


def _outcome_table(result: Sweep) -> list[str]:
    d, r, cv = result.default, result.recommended, result.cross_validation
    head = f"| Outcome | Default ({d.h:g}, {d.a:g}) | Recommended ({r.h:g}, {r.a:g}) |"
    rule = "|---|---:|---:|"
    if cv is not None:
        head += f" Cross-validated ({cv.k} folds) |"
        rule += "---:|"
    lines = [head, rule]
    for outcome in OUTCOMES:
        shown = outcome is not Outcome.UNJUDGED or d.mean(outcome) or r.mean(outcome)
        if shown:
            cells = f"| {label(outcome)} | {_count(d, outcome)} | {_count(r, outcome)} |"
            if cv is not None:
                cells += f" {_number(cv.counts[CODE[outcome]])} |"
            lines.append(cells)
    scores = f"| **score** | {_number(result.score(d))} | {_number(result.score(r))} |"
    if cv is not None:
        scores += f" {_number(float(score(cv.counts, result.wrong_cost)))} |"
    lines.append(scores)
    if result.repeats > 1:
        lines += ["", f"Counts are means over {result.repeats} repeats, with the lowest and highest in brackets."]
    if cv is not None:
        lines += ["", "Cross-validated: for each fold the cutoffs were chosen on the other folds (stratified by "
                      "label) and the held-out questions judged at them; the counts add up the folds. Cutoffs "
                      f"chosen per fold: {_fold_choices(result)}."]
    return lines


def _fold_choices(result: Sweep) -> str:
    h, a = result.h_axis.values, result.a_axis.values
    return ", ".join(f"({h[i]:g}, {a[j]:g})" for i, j in result.cross_validation.choices)


def _interval(rate) -> str:
    if rate.interval is None:
        return "n/a (none counted)"
    low, high = rate.interval
    return f"{rate.successes}/{rate.trials} = {rate.successes / rate.trials:.0%} [{low:.0%}, {high:.0%}]"


def _certainty(result: Sweep) -> list[str]:
    """Intervals, the bootstrap's stability and, when the set is too small, a plain warning."""
    d, r = result.default, result.recommended
    first = " (first repeat)" if result.repeats > 1 else ""
    lines = ["## How sure", "", f"| Rate, 95% Wilson interval{first} | Default | Recommended |", "|---|---|---|"]
    for d_rate, r_rate in zip(result.rates(d), result.rates(r), strict=True):
        lines.append(f"| {d_rate.name} | {_interval(d_rate)} | {_interval(r_rate)} |")
    lines.append("")
    stability = result.stability
    if stability is not None:
        fewer = (" (fewer than the usual 1000 to keep a sweep this large quick; `--bootstrap N` asks for more)"
                 if result.bootstrap_capped else "")
        lines.append(
            f"Bootstrap ({stability.resamples} resamples of the questions, seeded{fewer}): the recommended cell "
            f"itself was chosen in {stability.same_cell:.0%} of them, a cell of its region of best score in "
            f"{stability.in_region:.0%}.")
        if stability.difference is not None:
            low, high = stability.difference
            lines.append(f"Score gained over the default: {_number(result.score(r) - result.score(d))} on these "
                         f"questions, where the cutoffs were chosen. Chosen on each resample and scored on the "
                         f"questions it left out, scaled to {len(result.items)} questions, the gain has the 95% "
                         f"interval [{_number(round(low, 2))}, {_number(round(high, 2))}].")
        lines.append("")
    lines += [_verdict_in_words(result), ""]
    return lines


def _verdict_in_words(result: Sweep) -> str:
    """Whether the difference between the default and the recommended point means anything."""
    n = len(result.items)
    d, r = result.default, result.recommended
    if (d.h, d.a) == (r.h, r.a):
        return "The recommended point is the default."
    gained = result.score(r) - result.score(d)
    stability = result.stability
    if gained <= 0:
        return "The recommended point scores no better than the default on these questions."
    if stability is None or stability.difference is None:
        return f"No bootstrap was run, so nothing here says whether {n} questions are enough to prefer it."
    if stability.difference[0] <= 0:
        return (f"**With {n} questions this run cannot tell the recommended point from the default**: chosen "
                "on resamples and scored on the questions they left out, the gain's interval includes zero. "
                "Treat the recommendation as a hypothesis and check it on more questions before changing "
                "the cutoffs.")
    cv = result.cross_validation
    if cv is not None and float(score(cv.counts, result.wrong_cost)) <= result.score(d):
        return ("Chosen on these questions the recommended point looks better, but cross-validated it is not: "
                "the gain may be fitted to this set. Add questions before changing the cutoffs.")
    return (f"On {n} questions the recommended point's gain over the default holds on questions it was not "
            f"chosen on (out of bag{' and cross-validated' if cv is not None else ''}).")


def _flaky(result: Sweep) -> list[str]:
    if result.repeats < 2:
        return []
    flaky = result.flaky()
    if not flaky:
        return [f"No question's decision at the recommended point changes between the {result.repeats} repeats.", ""]
    lines = ["## Flaky questions", "", f"Their decision at the recommended point (the sentence quoted, or none) "
             f"changes between the {result.repeats} repeats, whether or not the outcome does:",
             "", "| Question | Outcome in each repeat | Different decisions |", "|---|---|---:|"]
    lines += [f"| {_md(q.id)} | {', '.join(label(o) for o in outcomes)} | {kinds} |"
              for q, outcomes, kinds in flaky[:LIST_AT_MOST]]
    return [*lines, *_more(len(flaky)), ""]


def _comparison(result: Sweep, comparison: Comparison) -> list[str]:
    h, a = comparison.point
    base = comparison.baseline
    tally = comparison.tally()
    lines = [f"## Compared with {_md(str(base.run_dir), False)}", "",
             f"At ({h:g}, {a:g}), question by question{' and repeat by repeat' if comparison.repeats > 1 else ''}: "
             + ", ".join(f"{name} {tally.get(name, 0)}" for name in
                         ("NEW_WRONG", "NEW_MISSED", "FIXED", "REVIEW", "UNCHANGED")) + "."]
    if comparison.cautions:
        lines += ["", *(f"> Caution: {caution}." for caution in comparison.cautions)]
    changed = [row for row in comparison.rows if row[4] != "UNCHANGED"]
    if changed:
        lines += ["", "| Question | Repeat | Baseline | Now | Change |", "|---|---:|---|---|---|"]
        lines += [f"| {_md(q.id)} | {repeat} | {label(before)} | {label(after)} | {name} |"
                  for q, repeat, before, after, name in changed[:LIST_AT_MOST]]
        lines += _more(len(changed))
    best = float(comparison.score_difference.max())
    worst = float(comparison.score_difference.min())
    lines += ["", f"Over the grid the score changed by {_number(worst)} to {_number(best)} per cell "
                  "(`comparison.csv`).", ""]
    return lines


def _quote_cell(decision: Decision) -> str:
    return _md(decision.quote.candidate.sentence) if decision.quote else "(no quote)"


def _changed(result: Sweep) -> list[str]:
    rows = [(q, d, r) for (q, _), d, r in zip(result.items, result.default.first, result.recommended.first,
                                               strict=True) if d[1] is not r[1]]
    if not rows:
        return ["No question's outcome differs between the default and the recommended point.", ""]
    first = " (first repeat)" if result.repeats > 1 else ""
    lines = [f"## Questions whose outcome differs{first}", "",
             "| Question | Default | Recommended | Quote at default | Quote at recommended |", "|---|---|---|---|---|"]
    for q, (d_decision, d_outcome), (r_decision, r_outcome) in rows[:LIST_AT_MOST]:
        lines.append(f"| {_md(q.id)} | {label(d_outcome)} | {label(r_outcome)} | {_quote_cell(d_decision)} "
                     f"| {_quote_cell(r_decision)} |")
    return [*lines, *_more(len(rows)), ""]


def _more(total: int) -> list[str]:
    """The line under a list cut at `LIST_AT_MOST` rows."""
    return ["", f"... and {total - LIST_AT_MOST} more: every question is in `questions.csv`."] \
        if total > LIST_AT_MOST else []


def _review(result: Sweep) -> list[str]:
    """Quotes printed at either point (any repeat) that are unjudged or judged wrong."""
    seen, rows = set(), []
    for point in (result.default, result.recommended):
        for run, judged in zip(result.replayed.runs, point.judged, strict=True):
            for (question, _), (decision, outcome) in zip(run, judged, strict=True):
                if decision.quote and outcome in (Outcome.UNJUDGED, Outcome.WRONG):
                    c = decision.quote.candidate
                    if (question.id, c.sentence) not in seen:
                        seen.add((question.id, c.sentence))
                        rows.append(f"| {_md(question.id)} | {label(outcome)} at {point.name} | {_md(c.sentence)} "
                                    f"| {_md(c.title)} | {_md(c.url)} |")
    if not rows:
        return []
    hint = ["Unjudged quotes can be judged once, for good, with `sweep.py RUN --review`.", ""] \
        if any("| unjudged at " in row for row in rows) else []
    return ["## Quotes that need review", "", *hint, "| Question | Status | Quote | Source | URL |",
            "|---|---|---|---|---|", *rows[:LIST_AT_MOST], *_more(len(rows)), ""]


# ---- writing -------------------------------------------------------------------------------------


REPORT_FILES = ("grid.csv", "questions.csv", "comparison.csv", "summary.md", "heatmap-*.png", "along-*.png",
                "flips.png")


def write_files(out_dir: Path, files: dict[str, bytes], plots: Sequence[str] = ()) -> None:
    """Write each file atomically (0644: reports are meant to be shared), then remove report files an
    earlier sweep left that this one did not make (a plot from before `--no-plots`, an old
    comparison), so the directory shows one sweep."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        write_atomic(out_dir / name, data, 0o644)
    made = {*files, *plots}
    for pattern in REPORT_FILES:
        for path in out_dir.glob(pattern):
            if path.name not in made:
                path.unlink()
