"""The summary a team reads in CI: `summary.md`, Markdown that GitHub renders as a job summary.

Deterministic (stable orders, no clock), so a committed report diffs cleanly and CI can tell when it
is stale. Page text, and every name a user passes (the run, the baseline, the question file, question
ids), is shown in code spans (`textsafe.markdown_code`), so it cannot inject links, images, HTML or table
breaks; the cautions of a comparison, prose that names questions, are escaped (`textsafe.markdown_text`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from ..core.textsafe import markdown_code, markdown_text
from ..questions import OUTCOMES, UNKNOWN, Outcome
from ..sweep.analysis import EXAMPLE_RATE, Point, Sweep
from ..sweep.compare import ChangeKind, Comparison
from ..sweep.grid import CODE, Axis, Judged
from .numbers import at_most, confidence, p_words, plain_number, point_words
from .wording import (
    FIELD_AT_MOST,
    assumption_words,
    cell_words,
    comparison_verdict_words,
    decision_lines,
    gain_words,
    interval_words,
    options_words,
    pipeline_words,
    rate_subject,
    sweep_title,
    tally_words,
)

LIST_AT_MOST = 50  # rows of a per-question list in the summary; questions.csv has them all
SUMMARY_AT_MOST = 1_000_000  # bytes; GitHub refuses a job summary over 1 MiB (1,048,576 bytes)


def _md(text: str, table: bool = True) -> str:
    return markdown_code(text, in_table=table, at_most=FIELD_AT_MOST)


def _axis_words(axis: Axis) -> str:
    """'0 to 1 in steps of 0.05', 'instant, deep', '1, 2, 3 and 5': the grid's values of one axis."""
    first, last = axis.text(0), axis.text(len(axis.decimals) - 1)
    if len(axis.decimals) == 1:
        return first
    steps = {axis.decimals[k + 1] - axis.decimals[k] for k in range(len(axis.decimals) - 1)}
    if axis.labels or len(steps) > 1:
        texts = [axis.text(k) for k in range(len(axis.decimals))]
        return f"{', '.join(texts[:-1])} and {texts[-1]}"
    step = format(steps.pop().normalize(), "f")
    return f"{first} to {last} in steps of {step}"


def summary_markdown(result: Sweep, plots: Sequence[tuple[str, ...]] = (), gate: str = "",
                     comparison: Comparison | None = None, page: bool = False, first: Sequence[str] = ()) -> str:
    """The summary a team reads in CI. `plots` are (title, relative path, the same figure's other files); `gate` a
    line to add; `page`
    whether index.html is written beside it; `first` a section to open with (a refresh's "Drift"). At most
    `SUMMARY_AT_MOST` bytes, whatever the pages say."""
    opening = list(first)
    replayed, record = result.replayed, result.replayed.record
    evidence = record.evidence_word
    first_axis, second = result.system.axes
    lines = []
    if replayed.excluded:
        lines.append(f"**Incomplete: {len(replayed.excluded)} question(s) could not be replayed and are left out "
                     "of every count below** (listed at the end).")
        lines.append("")
    marker = " (SYNTHETIC evidence)" if evidence == "synthetic" else ""
    lines.append(f"# {sweep_title(result)}: {_md(replayed.run_dir.name, False)}{marker}")
    lines.append("")
    if evidence == "synthetic":
        lines += ["> **Synthetic evidence.** This run was recorded against the stand-in API from invented pages: it "
                  "shows what the harness reports, not how the real pipeline performs.", ""]
    also = "the terminal and the header of `index.html`" if page else "the terminal"
    checks = "the Drift section checks" if opening else "`sweep.py RUN --drift` checks"
    alone = ([f"This is the sweep of the refresh's sample on its own ({len(result.questions)} question(s)); the cell "
              f"you ship is the one {checks}; choose cutoffs on a whole run, re-recorded.", ""]
             if record.refresh is not None else [])
    heading = "## Decision (this sample alone)" if record.refresh is not None else "## Decision"
    lines += [*opening, heading, "", *alone, *(f"- {line}" for line in decision_lines(result)), "",
              f"The same decision is in `decision.json` (for CI) and {also}.", "", "## The run", ""]
    judged = replayed.question_set
    swept = len(result.questions)
    n_answer = sum(1 for q in result.questions if q.expect == "answer")
    n_none = sum(1 for q in result.questions if q.expect == "no-answer")
    unlabelled = f", {swept - n_answer - n_none} unlabelled" if swept > n_answer + n_none else ""
    repeats = f", {result.repeats} repeats of every request" if result.repeats > 1 else ""
    lines += [
        f"- Question set: {_md(os.path.normpath(judged.path), False)} (sha256 {judged.sha256[:12]}), "
        f"{swept} question(s) swept: {n_answer} answer, {n_none} no-answer{unlabelled}",
        f"- Run: {_md(str(replayed.run_dir), False)}, evidence **{evidence}**, recorded "
        f"{record.started_at or '?'} to {record.finished_at or '?'}, "
        f"{'complete' if record.complete else 'INCOMPLETE'}{repeats}"
        + (f"; a refresh of {_md(record.refresh.run, False)} (a sample of {record.refresh.sample}, seed "
           f"{record.refresh.seed})" if record.refresh else ""),
        *([f"- Pipeline: {markdown_text(pipeline)}"] if (pipeline := pipeline_words(result)) else []),
        f"- Options given: {options_words(result.settings.options)}",
        f"- Requests: {record.responses} cached responses, {record.input_tokens} input tokens "
        f"(last recording sent {record.requests.sent})",
        f"- Grid: {first_axis.title} {_axis_words(result.h_axis)} x {second.title} {_axis_words(result.a_axis)} "
        f"({result.counts.shape[0] * result.counts.shape[1]} cells)"
        + ("; a probability equal to a cutoff passes it" if "cutoff" in (first_axis.kind, second.kind) else ""),
        f"- The rule: {_objective_words(result)}; {_eligible(result)} the best of them is "
        f"{_cell(result, result.choice.best)} with score {_score(result.choice.best_score)}, and the region of best "
        f"score is the {int(result.choice.region.sum())} cell(s) whose score is the best's or falls short of it by "
        "less than one paired standard error (from the per-question differences; a difference on a single "
        "question never counts as within it), none scoring below the default when the default is eligible; the "
        "rule picks the default when the default lies in that region, else the cell deepest inside it "
        "(grid steps to the nearest cell outside it, the grid's edge counting as outside), then the one nearest "
        "the default",
        f"- The decision: {_decided_by(result)}",
    ]
    if replayed.unjudged_in_run:
        lines.append(f"- {replayed.unjudged_in_run} recorded question(s) are not in the question file: not counted")
    if gate:
        lines.append(f"- Gate: {gate}")
    lines += ["", *_outcome_table(result), "", *_first_passage(result), *_guarantee(result), *_certainty(result),
              *_costs(result), *_flaky(result)]
    if comparison is not None:
        lines += _comparison(result, comparison)
    lines += [*_changed(result), *_labels(result), *_review(result)]
    if replayed.excluded:
        lines += ["## Left out", "", "| Question | Why |", "|---|---|"]
        lines += [f"| {_md(left.question.id)} | {_md(left.why)} |" for left in replayed.excluded[:LIST_AT_MOST]]
        lines += [*_more(len(replayed.excluded)), ""]
    full = "`questions.csv` and `index.html` have" if page else "`questions.csv` has"
    lines += ["## The whole report", "", "Beside this summary (in CI, in the run's uploaded report artifact):", ""]
    if page:
        lines.append("- `index.html`: open it in a browser to explore the grid; hover a cell for its counts, click "
                     "it for its questions")
    lines += [_figure_line(title, *paths) for title, *paths in plots]
    lines += ["- `questions.csv`, `grid.csv`: every question and every cell",
              "- `decision.json`: the decision, for CI; `report.json`: every file of this report with its SHA-256", "",
              f"Page text is cut here at {FIELD_AT_MOST} characters and lists at {LIST_AT_MOST} rows; {full} "
              "every question in full."]
    return _capped("\n".join(lines).rstrip() + "\n", full)


def _figure_line(title: str, path: str, *others: str) -> str:
    """A figure's line in "The whole report": its title linking its first file, then its other formats' files."""
    also = ", ".join(f"[{other.rsplit('.', 1)[-1].upper()}]({other})" for other in others)
    return f"- [{markdown_text(title)}]({path})" + (f" (also {also})" if also else "")  # a title may name a run


def _capped(text: str, full: str) -> str:
    """`text`, cut at a line end if need be to stay within `SUMMARY_AT_MOST` bytes, saying so."""
    if len(text.encode()) <= SUMMARY_AT_MOST:
        return text
    note = (f"\n**The summary is cut here**, at GitHub's limit for a job summary; {full} every question in "
            "full.\n")
    budget = SUMMARY_AT_MOST - len(note.encode())
    kept = text.encode()[:budget].decode(errors="ignore")
    return kept[:kept.rfind("\n") + 1] + note


def _decided_by(result: Sweep) -> str:
    """How the action follows from the evidence, in one clause list."""
    cv = result.cross_validation
    tested = (f"the rule's gain over the default is tested on questions it did not choose on ({cv.repetitions} "
              f"times {cv.k} folds stratified by label, the corrected repeated cross-validation t-test, one-sided at "
              f"{cv.test.level:g})" if cv is not None else "no gain can be tested without cross-validation")
    safety = ("; with `--max-wrong-rate`, nothing certified keeps the default, and a default that is not certified "
              "moves to the rule's certified cell" if result.guarantee.certificate is not None else "")
    return (f"label first when a quote at the default or at the rule's cell has no verdict{safety}; otherwise "
            f"{tested}, and the default is kept unless that gain is shown")


def _objective_words(result: Sweep) -> str:
    words = f"score = correct + no-answer - {result.wrong_cost:g} x wrong (missed, unjudged and unlabelled score 0)"
    if result.repeats > 1:
        words += ", averaged over repeats"
    share = result.settings.answerable_share
    if share is not None:
        words += (f", weighted so that answerable questions make up {share:.0%} of the total (the production mix; "
                  "the counts below are not weighted)")
    return words


def _eligible(result: Sweep) -> str:
    certificate = result.guarantee.certificate
    if certificate is not None and certificate.any:
        return f"the eligible cells are the {int(certificate.certified.sum())} certified ones;"
    if certificate is not None:
        return "no cell is certified, so every cell is eligible (the result is NOT CERTIFIED);"
    return "every cell is eligible;"


def _cell(result: Sweep, cell: tuple[int, int]) -> str:
    return cell_words(result, cell)


def _score(value: float) -> str:
    return str(plain_number(round(value, 4)))


def _count(point: Point, outcome: Outcome) -> str:
    """A count at a point: the number, or the mean over repeats with its range."""
    low, high = point.low_high(outcome)
    return str(low) if low == high else f"{plain_number(point.mean(outcome))} ({low}-{high})"


def _outcome_table(result: Sweep) -> list[str]:
    d, t, cv = result.default, result.tuned, result.cross_validation
    axes = result.system.axes
    head = (f"| Outcome | Default {point_words(axes, (d.h, d.a))} | Rule's cell {point_words(axes, (t.h, t.a))}, "
            "in sample |")
    rule = "|---|---:|---:|"
    if cv is not None:
        head += f" Cross-validated ({cv.k} folds) |"
        rule += "---:|"
    lines = [head, rule]
    for outcome in OUTCOMES:
        shown = outcome not in UNKNOWN or d.mean(outcome) or t.mean(outcome)
        if shown:
            cells = f"| {outcome.label} | {_count(d, outcome)} | {_count(t, outcome)} |"
            if cv is not None:
                cells += f" {plain_number(round(float(cv.counts[CODE[outcome]]), 4))} |"
            lines.append(cells)
    scores = f"| **score** | {_score(result.score(d))} | {_score(result.score(t))} |"
    if cv is not None:
        held_out = float(result.per_question(d).sum() + cv.per_question.sum())
        scores += f" {_score(held_out)} |"
    lines.append(scores)
    shipped = "the rule's cell" if result.decision.moves else "the default"
    lines += ["", f"The decision ships {shipped} ({result.decision.action.value}, see Decision). The rule's cell is "
                  "scored on the very questions it was picked on, so its column flatters it; the cross-validated "
                  "column does not."]
    ranged = any(p.low_high(o)[0] != p.low_high(o)[1] for p in (d, t) for o in OUTCOMES)
    if ranged:
        lines += ["", f"Counts are means over {result.repeats} repeats, with the lowest and highest in parentheses."]
    if cv is not None:
        word = result.system.settings
        lines += ["", f"Cross-validated: for each fold the {word} were chosen on the other folds (stratified by "
                      f"label) and the held-out questions judged at them; the counts add up the folds of the first "
                      f"of the {cv.repetitions} dealings. {word.capitalize()} chosen per fold: "
                      f"{_fold_choices(result)}."]
    return lines


def _fold_choices(result: Sweep) -> str:
    choices = result.cross_validation.choices if result.cross_validation else []
    return ", ".join(_cell(result, cell) for cell in choices)


def _first_passage(result: Sweep) -> list[str]:
    """For answers made of several passages: how often the first passage alone is correct, at the recommended
    cell."""
    found = result.first_passage(result.recommended)
    if found is None:
        return []
    alone, correct = found
    every = f", over {result.repeats} repeats" if result.repeats > 1 else ""
    return [f"First passage alone: {alone} of the {correct} correct answers at the recommended cell{every} are "
            "correct from their first passage alone (an answer counts as correct when any of its passages is; the "
            "rest need a later one).", ""]


def _procedure(result: Sweep) -> str:
    """How the grid procedure tests: each row in a fixed sequence, or, when no axis can only remove quotes, every
    cell on its own."""
    g, (first, second) = result.guarantee, result.system.axes
    if g.ordered:
        return (f"Learn-then-Test: each of the {g.rows} {first.title} rows tested from its highest {second.title} "
                "down, stopping at its first failure")
    return (f"Learn-then-Test without an order: {result.system.name} does not say that raising {second.title} can "
            f"only remove quotes, so no row has an order to test in and each of the {g.rows} cells is tested on its "
            "own (Bonferroni)")


def _guarantee(result: Sweep) -> list[str]:
    """How often these cutoffs would quote something wrong, what exactly is bounded, and the assumption."""
    g = result.guarantee
    sure = confidence(g.delta)
    mix = result.settings.answerable_share
    combined = f"combined as {mix:g} x answerable + {1 - mix:g} x unanswerable" if mix is not None else ""
    method = (f"Clopper-Pearson bounds per class at half each test's level, {combined}" if mix is not None
              else "exact binomial")
    one_point = f"Clopper-Pearson bounds per class at {g.delta / 2:g} each, {combined}" if mix is not None \
        else "exact binomial"
    first = (f" It uses each question's first repeat (one served answer per question, fixed before looking), so "
             f"{g.repeats} repeats certify exactly what one would." if g.repeats > 1 else "")
    d = result.default
    lines = ["## Guarantee", "",
             f"The **wrong-answer rate** at a cell is the share of {rate_subject(result)} that get a wrong quote "
             "there; a quote nobody has judged (unjudged, or on an unlabelled question) counts as wrong. It is not "
             f"**wrong among quotes** (the share of quotes that are wrong, under \"How sure\").{first}", ""]
    certificate = g.certificate
    if g.unavailable:
        lines += [f"- **No guarantee for the production mix**: {g.unavailable}. No cell is certified and no bound "
                  "is claimed until then.", ""]
        return lines
    if certificate is not None:
        lines += [f"Cells certified to keep the wrong-answer rate at most {at_most(certificate.alpha)} with "
                  f"probability at least {sure} ({_procedure(result)}, each test at level "
                  f"{g.delta:g}/{g.rows} = {certificate.level:.3g}; {method}).", ""]
        best = result.decision.best_certified
        if best is not None:
            unjudged = float(result.counts[(*best, CODE[Outcome.UNJUDGED])])
            lines += [
                f"- {int(certificate.certified.sum())} of {certificate.certified.size} cells are certified "
                "(`certified` in `grid.csv`; outlined in the heatmaps).",
                f"- The best-scoring certified cell is {_cell(result, best)}, score "
                f"{_score(float(result.scores[best]))}; the rule's cell, {_cell(result, result.decision.tuned)}, "
                "is chosen among the certified cells by the rule above. **With probability at least "
                f"{sure}, every certified cell's wrong-answer rate is at most {at_most(certificate.alpha)}.** "
                f"Observed at the rule's cell: {_observed(result, result.decision.tuned)}.",
            ]
            if unjudged:
                lines.append(f"- {plain_number(round(unjudged, 4))} quote(s) at the best certified cell are unjudged "
                             "and counted as wrong; reviewing them (`sweep.py RUN --review`) can only enlarge the "
                             "certified set.")
        else:
            lines.append(f"- **No cell is certified at {at_most(certificate.alpha)}.** With {g.n} questions the "
                         f"smallest rate any cell could be certified at is {at_most(g.best_case)} (a cell with no "
                         f"wrong quote at all); {at_most(certificate.alpha)} needs {_needed(g.needed)}, none of "
                         "them quoted wrong at the certified cell (more if some are).")
    else:
        first = result.system.axes[0].title
        families = f"{g.rows} {first} rows" if g.ordered else f"{g.rows} cells"
        where = (f"in the {first} {result.h_axis.text(g.smallest_row)} row" if g.smallest_column is None
                 else f"at {_cell(result, (g.smallest_row, g.smallest_column))}")
        lines.append(f"- The smallest wrong-answer rate the grid procedure (`--max-wrong-rate ALPHA`, which shares "
                     f"the {g.delta:g} among the {families}) certifies at any cell with probability at least {sure} "
                     f"is {at_most(g.smallest)} ({where}). With "
                     f"{g.n} questions it cannot certify any cell below {at_most(g.best_case)}, even one with no wrong "
                     f"quote at all; certifying {at_most(EXAMPLE_RATE)} would take {_needed(g.example_needed)}, none "
                     "of them quoted wrong at the certified cell (more if some are).")
    lines.append(f"- At the default point {point_words(result.system.axes, (d.h, d.a))}: with probability at least "
                 f"{sure}, the wrong-answer rate there is at most {at_most(g.default_bound)} (a one-sided upper bound, "
                 f"{one_point}, from "
                 f"{g.default_total} wrong or unjudged quote(s) in the first repeat of {g.n} questions; valid on "
                 "its own because that point was fixed before looking).")
    lines.append(f"- What this rests on: {assumption_words(result)}, and the grid, the rate and {g.delta:g} were "
                 "chosen before looking at these results (narrowing the grid to a row this summary names, and "
                 "sweeping again, spends the guarantee). Each statement above holds with probability at least "
                 f"{sure} on its own.")
    return [*lines, ""]


def _needed(needed: int | None) -> str:
    return f"at least {needed} questions" if needed is not None else "more than 10 million questions"


def _observed(result: Sweep, cell: tuple[int, int]) -> str:
    """The wrong or unjudged quotes the guarantee counted at a cell (first repeat), per class with a mix."""
    g = result.guarantee
    if g.mix is not None:
        return (f"{int(g.mix.answer_totals[cell])} of {g.mix.n_answer} answerable and {int(g.mix.none_totals[cell])} "
                f"of {g.mix.n_none} unanswerable questions got a wrong or unjudged quote (first repeat), a "
                f"wrong-answer rate of {at_most(g.rate_at(cell))} in the mix")
    return f"{int(g.totals[cell])} wrong or unjudged quote(s) in the first repeat of {g.n} questions"


def _certainty(result: Sweep) -> list[str]:
    """Intervals at the default and the shipped point, and the tuning's gain out of sample, in words."""
    d, r = result.default, result.recommended
    each = ", every repeat" if result.repeats > 1 else ""
    shipped = "Shipped" if result.decision.moves else "Shipped (the default)"
    lines = ["## How sure", "", f"| Rate, 95% Wilson interval{each} | Default | {shipped} |", "|---|---|---|"]
    for d_rate, r_rate in zip(result.rates(d), result.rates(r), strict=True):
        lines.append(f"| {d_rate.name} | {interval_words(d_rate)} | {interval_words(r_rate)} |")
    lines.append("")
    notes = []
    if result.repeats > 1:
        notes.append("each question counts once, its repeats averaged")
    if result.settings.answerable_share is not None:
        notes.append("weighted to the production mix, with the interval on the effective number of questions")
    if any(rate.upper_successes not in (None, rate.successes) for rate in [*result.rates(d), *result.rates(r)]):
        notes.append("a range a-b counts unjudged quotes as right (a) and as wrong (b)")
    if notes:
        lines += [f"Rates: {'; '.join(notes)}.", ""]
    cv = result.cross_validation
    if cv is not None and cv.test.interval is None:
        lines += [f"Gain over the default, out of sample: {gain_words(result).removeprefix('Out of sample: ')}", ""]
    elif cv is not None:
        test = cv.test
        assert test.interval is not None
        lines += [f"Gain over the default, out of sample: the questions were dealt {cv.repetitions} times into "
                  f"{cv.k} folds stratified by label; for each fold the rule chose the {result.system.settings} on "
                  "the other folds, and the fold's questions were scored there minus at the default. The mean of "
                  f"the {cv.repetitions * cv.k} fold means is {test.mean:+.3f} score per question, with standard "
                  f"error {test.standard_error:.3f} corrected for the folds' overlapping training sets (Nadeau & "
                  f"Bengio; Bouckaert & Frank): t-test on {test.df} degrees of freedom, one-sided "
                  f"{p_words(test.p_value)}, 95% interval [{test.interval[0]:+.3f}, {test.interval[1]:+.3f}]. It tests "
                  "the procedure (choose by the rule, then ship), so the cell a move ships is the rule's pick on all "
                  "the questions.", ""]
    return lines


def _costs(result: Sweep) -> list[str]:
    """Which cell is recommended as a wrong quote costs more, so a reader sees how much the choice depends on C."""
    lines = ["## If a wrong quote cost more", "",
             "| Cost C of a wrong quote | Rule's cell, in sample | Score there | |", "|---:|---|---:|---|"]
    for priced in result.costs:
        note = "the default" if priced.choice.is_default else ""
        if priced.cost == result.wrong_cost:
            note = ", ".join(part for part in (note, "this sweep's C") if part)
        lines.append(f"| {priced.cost:g} | {_cell(result, priced.choice.cell)} | {_score(priced.score)} | {note} |")
    return [*lines, ""]


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


def _outcomes_words(outcomes: Sequence[Outcome]) -> str:
    """'correct x2, wrong': each outcome with how many repeats had it, in `OUTCOMES` order."""
    parts = []
    for outcome in OUTCOMES:
        count = sum(1 for o in outcomes if o is outcome)
        if count:
            parts.append(outcome.label if count == 1 else f"{outcome.label} x{count}")
    return ", ".join(parts)


def _comparison(result: Sweep, comparison: Comparison) -> list[str]:
    h, a = comparison.point
    base = comparison.baseline
    m = comparison.repeats_compared
    averaged = (f" (each question's first {m} repeat(s) in each run, taken together: like against like)"
                if max(result.repeats, base.repeats) > 1 else "")
    lines = [f"## Compared with {_md(str(base.run_dir), False)}", "",
             f"At {point_words(result.system.axes, (h, a))}, question by question{averaged}: "
             f"{tally_words(comparison)}.", "",
             f"Worse overall? {comparison_verdict_words(comparison)}."]
    if comparison.cautions:
        # a caution names questions by id and runs by code version: text from the user's files, made inert
        lines += ["", *(f"> Caution: {markdown_text(caution)}." for caution in comparison.cautions)]
    changed = [row for row in comparison.rows if row.kind is not ChangeKind.UNCHANGED]
    if changed:
        lines += ["", "| Question | Baseline | Now | Change |", "|---|---|---|---|"]
        lines += [f"| {_md(row.question.id)} | {_outcomes_words(row.before)} | {_outcomes_words(row.after)} | "
                  f"{row.kind.value} |" for row in changed[:LIST_AT_MOST]]
        lines += _more(len(changed))
    best = float(comparison.score_difference.max())
    worst = float(comparison.score_difference.min())
    lines += ["", f"Over the grid the score changed by {_score(worst)} to {_score(best)} per cell "
                  "(`comparison.csv`).", ""]
    return lines


def _quote_cell(judged: Judged) -> str:
    return _md(judged.quote.text) if judged.quote else "(no quote)"


def _changed(result: Sweep) -> list[str]:
    rows = [(q, d, r) for q, d, r in zip(result.questions, result.default.first, result.tuned.first,
                                         strict=True) if d.outcome is not r.outcome]
    if not rows:
        return ["No question's outcome differs between the default and the rule's cell.", ""]
    first = " (first repeat)" if result.repeats > 1 else ""
    lines = [f"## Questions whose outcome differs between the default and the rule's cell{first}", "",
             "| Question | Default | Rule's cell | Quote at default | Quote at the rule's cell |",
             "|---|---|---|---|---|"]
    for q, d, r in rows[:LIST_AT_MOST]:
        lines.append(f"| {_md(q.id)} | {d.outcome.label} | {r.outcome.label} | {_quote_cell(d)} "
                     f"| {_quote_cell(r)} |")
    return [*lines, *_more(len(rows)), ""]


def _labels(result: Sweep) -> list[str]:
    """Which questions need a person before the grid can be judged, and how many a narrower grid would need."""
    needed = result.labels_needed
    unlabelled = [q for q in result.questions if q.expect is None]
    if not needed and not unlabelled:
        return []
    lines = ["## Label these", ""]
    if not needed:
        return [*lines, f"{len(unlabelled)} unlabelled question(s) are quoted nowhere on the grid: however they are "
                        "labelled, they cannot change the recommended cell or any cell's wrong-answer rate.", ""]
    missing = sum(1 for item in needed if item.missing_expect)
    lines += [f"**Label these {len(needed)} of {len(result.questions)}**: they are quoted somewhere on the grid and "
              f"cannot be judged without a person ({missing} have no `expect`, {len(needed) - missing} have quotes "
              "no accept pattern or verdict judges). The other questions cannot change the recommended cell or any "
              "cell's wrong-answer rate, however they are labelled. `sweep.py RUN --review` asks for exactly these, "
              "most influential first (quoted in the most cells near the recommended point).", ""]
    floors = result.label_floors
    if floors:  # (a cutoff's floors: none for an axis of whole numbers or names)
        lines += [f"| If the grid's {result.system.axes[1].title} started at | "
                  + " | ".join(f"{f:g}" for f, _ in floors) + " |",
                  "|---|" + "---:|" * len(floors),
                  "| questions to label | " + " | ".join(str(n) for _, n in floors) + " |", ""]
    lines += ["| Question | Needs | Quoted in cells | Near the recommendation |", "|---|---|---:|---:|"]
    for item in needed[:LIST_AT_MOST]:
        needs = "`expect`" if item.missing_expect else f"{len(item.quotes)} verdict(s)"
        lines.append(f"| {_md(item.question.id)} | {needs} | {item.cells} | {item.near} |")
    return [*lines, *_more(len(needed)), ""]


def _more(total: int) -> list[str]:
    """The line under a list cut at `LIST_AT_MOST` rows."""
    return ["", f"... and {total - LIST_AT_MOST} more: every question is in `questions.csv`."] \
        if total > LIST_AT_MOST else []


def _review(result: Sweep) -> list[str]:
    """Quotes printed at either point (any repeat) that are unjudged or judged wrong."""
    seen, found = set(), []
    for point in (result.default, result.recommended):
        codes = point.codes()
        doubtful = point.quotes() & ((codes == CODE[Outcome.UNJUDGED]) | (codes == CODE[Outcome.WRONG]))
        for judged, row in zip(point.judged, doubtful, strict=True):
            for index in np.flatnonzero(row).tolist():  # (the others, in question order, are never listed)
                question, j, quote = result.questions[index], judged[index], judged[index].quote
                if quote is not None and (question.id, quote.text) not in seen:  # (it quotes: `doubtful`)
                    seen.add((question.id, quote.text))
                    found.append((question, j.outcome, quote, point.name))
    if not found:
        return []
    hint = ["Unjudged quotes can be judged once, for good, with `sweep.py RUN --review`.", ""] \
        if any(outcome is Outcome.UNJUDGED for _, outcome, _, _ in found) else []
    rows = [f"| {_md(question.id)} | {outcome.label} at {name} | {_md(quote.text)} | {_md(quote.title)} "
            f"| {_md(quote.url)} |" for question, outcome, quote, name in found[:LIST_AT_MOST]]
    return ["## Quotes that need review", "", *hint, "| Question | Status | Quote | Source | URL |",
            "|---|---|---|---|---|", *rows, *_more(len(found)), ""]
