"""The summary a team reads in CI: `summary.md`, Markdown that GitHub renders as a job summary.

Deterministic (stable orders, no clock), so a committed report diffs cleanly and CI can tell when it
is stale. Page text is shown in code spans (`textsafe.markdown_code`), so it cannot inject links,
images, HTML or table breaks.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from ..questions import OUTCOMES, Outcome
from ..recipe.decision import Decision
from ..sweep.analysis import Point, Rate, Sweep
from ..sweep.compare import ChangeKind, Comparison
from ..sweep.grid import CODE, Axis, score
from ..textsafe import markdown_code
from .tables import plain_number

LIST_AT_MOST = 50  # rows of a per-question list in the summary; questions.csv has them all


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
    evidence = record.evidence_word
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
    judged = replayed.question_set
    swept = len(result.questions)
    n_answer = sum(1 for q in result.questions if q.expect == "answer")
    repeats = f", {result.repeats} repeats of every request" if result.repeats > 1 else ""
    lines += [
        f"- Question set: {_md(os.path.normpath(judged.path), False)} (sha256 {judged.sha256[:12]}), "
        f"{swept} question(s) swept: {n_answer} answer, {swept - n_answer} no-answer",
        f"- Run: {_md(str(replayed.run_dir), False)}, evidence **{evidence}**, recorded "
        f"{record.started_at or '?'} to {record.finished_at or '?'}, "
        f"{'complete' if record.complete else 'INCOMPLETE'}{repeats}",
        f"- Requests: {record.responses} cached responses, {record.input_tokens} input tokens "
        f"(last recording sent {record.requests.sent})",
        f"- Grid: HAS_ANSWER_CUTOFF {_axis_words(result.h_axis)} x ANSWER_CUTOFF {_axis_words(result.a_axis)} "
        f"({result.counts.shape[0] * result.counts.shape[1]} cells); a probability equal to a cutoff passes it",
        f"- Recommended by: score = correct + no-answer - {result.wrong_cost:g} x wrong (missed and unjudged score 0)"
        f"{', averaged over repeats' if result.repeats > 1 else ''}; {result.choice.tied} cell(s) share the best "
        f"score {plain_number(result.choice.best_score)}; among them the one deepest inside that region "
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
        lines += [f"| {_md(left.question.id)} | {_md(left.why)} |" for left in replayed.excluded] + [""]
    return "\n".join(lines).rstrip() + "\n"


def _depth_words(depth: float) -> str:
    if depth == float("inf"):
        return "every cell scores the same"
    return f"{int(depth)} grid step(s) from the nearest lower-scoring cell"


def _count(point: Point, outcome: Outcome) -> str:
    """A count at a point: the number, or the mean over repeats with its range."""
    low, high = point.low_high(outcome)
    return str(low) if low == high else f"{plain_number(point.mean(outcome))} ({low}-{high})"


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
            cells = f"| {outcome.label} | {_count(d, outcome)} | {_count(r, outcome)} |"
            if cv is not None:
                cells += f" {plain_number(cv.counts[CODE[outcome]])} |"
            lines.append(cells)
    scores = f"| **score** | {plain_number(result.score(d))} | {plain_number(result.score(r))} |"
    if cv is not None:
        scores += f" {plain_number(float(score(cv.counts, result.wrong_cost)))} |"
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
    choices = result.cross_validation.choices if result.cross_validation else []
    return ", ".join(f"({h[i]:g}, {a[j]:g})" for i, j in choices)


def _interval(rate: Rate) -> str:
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
            lines.append(f"Score gained over the default: {plain_number(result.score(r) - result.score(d))} on these "
                         f"questions, where the cutoffs were chosen. Chosen on each resample and scored on the "
                         f"questions it left out, scaled to {len(result.questions)} questions, the gain has the 95% "
                         f"interval [{plain_number(round(low, 2))}, {plain_number(round(high, 2))}].")
        lines.append("")
    lines += [_verdict_in_words(result), ""]
    return lines


def _verdict_in_words(result: Sweep) -> str:
    """Whether the difference between the default and the recommended point means anything."""
    n = len(result.questions)
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
    lines += [f"| {_md(f.question.id)} | {', '.join(o.label for o in f.outcomes)} | {f.decisions} |"
              for f in flaky[:LIST_AT_MOST]]
    return [*lines, *_more(len(flaky)), ""]


def _comparison(result: Sweep, comparison: Comparison) -> list[str]:
    h, a = comparison.point
    base = comparison.baseline
    lines = [f"## Compared with {_md(str(base.run_dir), False)}", "",
             f"At ({h:g}, {a:g}), question by question{' and repeat by repeat' if comparison.repeats > 1 else ''}: "
             f"{comparison.tally_words()}."]
    if comparison.cautions:
        lines += ["", *(f"> Caution: {caution}." for caution in comparison.cautions)]
    changed = [row for row in comparison.rows if row.kind is not ChangeKind.UNCHANGED]
    if changed:
        lines += ["", "| Question | Repeat | Baseline | Now | Change |", "|---|---:|---|---|---|"]
        lines += [f"| {_md(row.question.id)} | {row.repeat} | {row.before.label} | {row.after.label} | "
                  f"{row.kind.value} |" for row in changed[:LIST_AT_MOST]]
        lines += _more(len(changed))
    best = float(comparison.score_difference.max())
    worst = float(comparison.score_difference.min())
    lines += ["", f"Over the grid the score changed by {plain_number(worst)} to {plain_number(best)} per cell "
                  "(`comparison.csv`).", ""]
    return lines


def _quote_cell(decision: Decision) -> str:
    return _md(decision.quote.candidate.sentence) if decision.quote else "(no quote)"


def _changed(result: Sweep) -> list[str]:
    rows = [(q, d, r) for q, d, r in zip(result.questions, result.default.first, result.recommended.first,
                                         strict=True) if d.outcome is not r.outcome]
    if not rows:
        return ["No question's outcome differs between the default and the recommended point.", ""]
    first = " (first repeat)" if result.repeats > 1 else ""
    lines = [f"## Questions whose outcome differs{first}", "",
             "| Question | Default | Recommended | Quote at default | Quote at recommended |", "|---|---|---|---|---|"]
    for q, d, r in rows[:LIST_AT_MOST]:
        lines.append(f"| {_md(q.id)} | {d.outcome.label} | {r.outcome.label} | {_quote_cell(d.decision)} "
                     f"| {_quote_cell(r.decision)} |")
    return [*lines, *_more(len(rows)), ""]


def _more(total: int) -> list[str]:
    """The line under a list cut at `LIST_AT_MOST` rows."""
    return ["", f"... and {total - LIST_AT_MOST} more: every question is in `questions.csv`."] \
        if total > LIST_AT_MOST else []


def _review(result: Sweep) -> list[str]:
    """Quotes printed at either point (any repeat) that are unjudged or judged wrong."""
    seen, rows = set(), []
    for point in (result.default, result.recommended):
        for judged in point.judged:
            for question, j in zip(result.questions, judged, strict=True):
                if j.decision.quote and j.outcome in (Outcome.UNJUDGED, Outcome.WRONG):
                    c = j.decision.quote.candidate
                    if (question.id, c.sentence) not in seen:
                        seen.add((question.id, c.sentence))
                        rows.append(f"| {_md(question.id)} | {j.outcome.label} at {point.name} | {_md(c.sentence)} "
                                    f"| {_md(c.title)} | {_md(c.url)} |")
    if not rows:
        return []
    hint = ["Unjudged quotes can be judged once, for good, with `sweep.py RUN --review`.", ""] \
        if any("| unjudged at " in row for row in rows) else []
    return ["## Quotes that need review", "", *hint, "| Question | Status | Quote | Source | URL |",
            "|---|---|---|---|---|", *rows[:LIST_AT_MOST], *_more(len(rows)), ""]
