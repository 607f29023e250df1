"""The summary a team reads in CI: `summary.md`, Markdown that GitHub renders as a job summary.

Deterministic (stable orders, no clock), so a committed report diffs cleanly and CI can tell when it
is stale. Page text is shown in code spans (`textsafe.markdown_code`), so it cannot inject links,
images, HTML or table breaks.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from ..questions import OUTCOMES, UNKNOWN, Outcome
from ..recipe.decision import Decision
from ..sweep import guarantee
from ..sweep.analysis import Point, Rate, Sweep
from ..sweep.compare import ChangeKind, Comparison
from ..sweep.grid import CODE, Axis
from ..textsafe import markdown_code
from .numbers import at_least, at_most, confidence, plain_number

LIST_AT_MOST = 50  # rows of a per-question list in the summary; questions.csv has them all
FIELD_AT_MOST = 300  # characters of one piece of page text (a title, a URL, a sentence) in the summary
SUMMARY_AT_MOST = 1_000_000  # bytes; GitHub refuses a job summary over 1 MiB (1,048,576 bytes)
EXAMPLE_RATE = 0.05  # the wrong-quote rate the guarantee section prices in questions when none was asked for


def _md(text: str, table: bool = True) -> str:
    return markdown_code(text, in_table=table, at_most=FIELD_AT_MOST)


def _axis_words(axis: Axis) -> str:
    first, last = axis.text(0), axis.text(len(axis.decimals) - 1)
    if len(axis.decimals) == 1:
        return first
    step = format((axis.decimals[1] - axis.decimals[0]).normalize(), "f")
    return f"{first} to {last} in steps of {step}"


def summary_markdown(result: Sweep, plots: Sequence[tuple[str, str]] = (), gate: str = "",
                     comparison: Comparison | None = None, page: bool = False) -> str:
    """The summary a team reads in CI. `plots` are (title, relative path); `gate` a line to add; `page`
    whether index.html is written beside it. At most `SUMMARY_AT_MOST` bytes, whatever the pages say."""
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
    n_none = sum(1 for q in result.questions if q.expect == "no-answer")
    unlabelled = f", {swept - n_answer - n_none} unlabelled" if swept > n_answer + n_none else ""
    repeats = f", {result.repeats} repeats of every request" if result.repeats > 1 else ""
    lines += [
        f"- Question set: {_md(os.path.normpath(judged.path), False)} (sha256 {judged.sha256[:12]}), "
        f"{swept} question(s) swept: {n_answer} answer, {n_none} no-answer{unlabelled}",
        f"- Run: {_md(str(replayed.run_dir), False)}, evidence **{evidence}**, recorded "
        f"{record.started_at or '?'} to {record.finished_at or '?'}, "
        f"{'complete' if record.complete else 'INCOMPLETE'}{repeats}",
        f"- Requests: {record.responses} cached responses, {record.input_tokens} input tokens "
        f"(last recording sent {record.requests.sent})",
        f"- Grid: HAS_ANSWER_CUTOFF {_axis_words(result.h_axis)} x ANSWER_CUTOFF {_axis_words(result.a_axis)} "
        f"({result.counts.shape[0] * result.counts.shape[1]} cells); a probability equal to a cutoff passes it",
        f"- Recommended by: {_objective_words(result)}; the best cell is {_cell(result, result.choice.best)} with "
        f"score {_score(result.choice.best_score)}, and the region of best score is the "
        f"{int(result.choice.region.sum())} cell(s) within one standard error of it (from the per-question "
        "differences); the recommendation is the default when the default lies in that region, else the "
        "cell deepest inside it (grid steps to the nearest cell outside it, the grid's edge counting as "
        "outside), then the one nearest the default",
    ]
    if replayed.unjudged_in_run:
        lines.append(f"- {replayed.unjudged_in_run} recorded question(s) are not in the question file: not counted")
    if gate:
        lines.append(f"- Gate: {gate}")
    lines += ["", *_outcome_table(result), "", *_guarantee(result), *_certainty(result), *_costs(result),
              *_flaky(result)]
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
    lines += [f"- [{title}]({path})" for title, path in plots]
    lines += ["- `questions.csv`, `grid.csv`: every question and every cell", "",
              f"Page text is cut here at {FIELD_AT_MOST} characters and lists at {LIST_AT_MOST} rows; {full} "
              "every question in full."]
    return _capped("\n".join(lines).rstrip() + "\n", full)


def _capped(text: str, full: str) -> str:
    """`text`, cut at a line end if need be to stay within `SUMMARY_AT_MOST` bytes, saying so."""
    if len(text.encode()) <= SUMMARY_AT_MOST:
        return text
    note = (f"\n**The summary is cut here**, at GitHub's limit for a job summary; {full} every question in "
            "full.\n")
    budget = SUMMARY_AT_MOST - len(note.encode())
    kept = text.encode()[:budget].decode(errors="ignore")
    return kept[:kept.rfind("\n") + 1] + note


def _objective_words(result: Sweep) -> str:
    words = f"score = correct + no-answer - {result.wrong_cost:g} x wrong (missed, unjudged and unlabelled score 0)"
    if result.repeats > 1:
        words += ", averaged over repeats"
    share = result.settings.answerable_share
    if share is not None:
        words += (f", weighted so that answerable questions make up {share:.0%} of the total (the production mix; "
                  "the counts below are not weighted)")
    return words


def _cell(result: Sweep, cell: tuple[int, int]) -> str:
    return f"({result.h_axis.values[cell[0]]:g}, {result.a_axis.values[cell[1]]:g})"


def _score(value: float) -> str:
    return str(plain_number(round(value, 4)))


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
        shown = outcome not in UNKNOWN or d.mean(outcome) or r.mean(outcome)
        if shown:
            cells = f"| {outcome.label} | {_count(d, outcome)} | {_count(r, outcome)} |"
            if cv is not None:
                cells += f" {plain_number(round(float(cv.counts[CODE[outcome]]), 4))} |"
            lines.append(cells)
    scores = f"| **score** | {_score(result.score(d))} | {_score(result.score(r))} |"
    if cv is not None:
        held_out = float(result.per_question(d).sum() + cv.gain.per_question.sum())
        scores += f" {_score(held_out)} |"
    lines.append(scores)
    if result.choice.is_default:
        lines += ["", f"The recommended point is the default ({d.h:g}, {d.a:g}): its score is within one standard "
                      "error of the best cell's, so this run is no evidence for changing it."]
    if result.repeats > 1:
        lines += ["", f"Counts are means over {result.repeats} repeats, with the lowest and highest in parentheses."]
    if cv is not None:
        lines += ["", "Cross-validated: for each fold the cutoffs were chosen on the other folds (stratified by "
                      "label) and the held-out questions judged at them; the counts add up the folds. Cutoffs "
                      f"chosen per fold: {_fold_choices(result)}."]
    return lines


def _fold_choices(result: Sweep) -> str:
    choices = result.cross_validation.choices if result.cross_validation else []
    return ", ".join(_cell(result, cell) for cell in choices)


def _guarantee(result: Sweep) -> list[str]:
    """How often these cutoffs would quote something wrong, with the assumption it rests on."""
    g = result.guarantee
    sure = confidence(g.delta)
    method = "exact binomial" if g.repeats == 1 else "Hoeffding-Bentkus, each question's repeats averaged"
    d = result.default
    lines = ["## Guarantee", ""]
    certificate = g.certificate
    if certificate is not None:
        lines += [f"Cells certified to keep the wrong-quote rate at most {at_most(certificate.alpha)} with "
                  f"probability at least {sure} (Learn-then-Test: each of the {g.rows} HAS_ANSWER_CUTOFF rows "
                  "tested from its highest ANSWER_CUTOFF down, stopping at its first failure, each test at level "
                  f"{g.delta:g}/{g.rows} = {certificate.level:.3g}; {method} p-values). A wrong quote is one that "
                  "is wrong or unjudged: an unjudged quote counts as wrong here.", ""]
        if g.best is not None:
            best = g.best.cell
            unjudged = float(result.counts[(*best, CODE[Outcome.UNJUDGED])])
            lines += [
                f"- {int(certificate.certified.sum())} of {certificate.certified.size} cells are certified "
                "(`certified` in `grid.csv`; outlined in the heatmaps).",
                f"- The certified cell with the best score (the recommendation's rule, among certified cells) is "
                f"{_cell(result, best)}, score {_score(float(result.scores[best]))}: **with probability at least "
                f"{sure}, at most {at_most(certificate.alpha)} of questions like these get a wrong quote at "
                f"{_cell(result, best)}.** Observed there: {plain_number(round(g.rate_at(best) * g.n, 4))} wrong "
                f"or unjudged quote(s) in {g.n} questions.",
            ]
            if unjudged:
                lines.append(f"- {plain_number(round(unjudged, 4))} of those are unjudged and counted as wrong; "
                             "reviewing them (`sweep.py RUN --review`) can only enlarge the certified set.")
        else:
            lines.append(f"- **No cell is certified at {at_most(certificate.alpha)}.** With {g.n} questions the "
                         f"smallest rate any cell could be certified at is {at_most(g.best_case)} (a cell with no "
                         f"wrong quote at all); {at_most(certificate.alpha)} needs at least {g.needed} questions, "
                         "none of them quoted wrong at the certified cell (more if some are).")
    else:
        lines.append("How often would these cutoffs quote something wrong? A wrong quote here is one that is wrong "
                     "or unjudged: an unjudged quote counts as wrong.")
        lines.append("")
        row = result.h_axis.values[g.smallest_row]
        lines.append(f"- The smallest wrong-quote rate the grid procedure (`--max-wrong-rate ALPHA`, which shares "
                     f"the {g.delta:g} among the {g.rows} HAS_ANSWER_CUTOFF rows) certifies at any cell with "
                     f"probability at least {sure} is {at_most(g.smallest)} (in the HAS_ANSWER_CUTOFF {row:g} "
                     f"row). With {g.n} questions it cannot certify any cell below {at_most(g.best_case)}, even one "
                     f"with no wrong quote at all; certifying {at_most(EXAMPLE_RATE)} would take at least "
                     f"{guarantee.questions_needed(EXAMPLE_RATE, g.rows, g.delta)} questions, none of them quoted "
                     "wrong at the certified cell (more if some are).")
    lines.append(f"- At the default point ({d.h:g}, {d.a:g}): with probability at least {sure}, at most "
                 f"{at_most(g.default_bound)} of questions like these get a wrong quote there (a one-sided upper "
                 f"bound, {method}, from {plain_number(round(g.default_total / g.repeats, 4))} wrong or unjudged "
                 f"quote(s) in {g.n} questions; valid on its own because that point was fixed before looking).")
    assumption = ("- What this rests on: these questions are a random sample of the questions you will serve, the "
                  "pages and the model behave as they did when the run was recorded, and the grid, the rate and "
                  f"{g.delta:g} were chosen before looking at these results (narrowing the grid to a row this "
                  f"summary names, and sweeping again, spends the guarantee). Each statement above holds with "
                  f"probability at least {sure} on its own.")
    if result.settings.answerable_share is not None:
        assumption += " It is about the questions as sampled, not reweighted to the production mix."
    return [*lines, assumption, ""]


def _interval(rate: Rate) -> str:
    """'6/6 = 100% [60.9%, 100%]': the interval rounded outwards; a range when some quotes are unjudged."""
    if rate.interval is None:
        return "n/a (none counted)"
    successes = plain_number(round(rate.successes, 4))
    trials = plain_number(round(rate.trials, 4))
    high = rate.interval[1]
    shown = f"{successes}/{trials} = {rate.successes / rate.trials:.0%}"
    if rate.upper_successes is not None and rate.upper_interval is not None and rate.upper_successes != rate.successes:
        upper = plain_number(round(rate.upper_successes, 4))
        shown = (f"{successes}-{upper}/{trials} = {rate.successes / rate.trials:.0%}-"
                 f"{rate.upper_successes / rate.trials:.0%}")
        high = rate.upper_interval[1]
    effective = "" if abs(rate.effective - rate.trials) < 1e-9 else f", effective n {rate.effective:.3g}"
    return f"{shown} [{at_least(rate.interval[0])}, {at_most(high)}{effective}]"


def _certainty(result: Sweep) -> list[str]:
    """Intervals, the bootstrap's stability, the cross-validated gain and, in words, what they mean."""
    d, r = result.default, result.recommended
    each = ", every repeat" if result.repeats > 1 else ""
    lines = ["## How sure", "", f"| Rate, 95% Wilson interval{each} | Default | Recommended |", "|---|---|---|"]
    for d_rate, r_rate in zip(result.rates(d), result.rates(r), strict=True):
        lines.append(f"| {d_rate.name} | {_interval(d_rate)} | {_interval(r_rate)} |")
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
    stability = result.stability
    if stability is not None:
        fewer = (" (fewer than the usual 1000 to keep a sweep this large quick; `--bootstrap N` asks for more)"
                 if result.bootstrap_capped else "")
        lines += [f"Bootstrap ({stability.resamples} resamples of the questions, seeded{fewer}): the recommended "
                  f"cell itself was chosen in {stability.same_cell:.0%} of them, a cell of its region of best "
                  f"score in {stability.in_region:.0%}.", ""]
    cv = result.cross_validation
    if cv is not None:
        gain = cv.gain
        head = (f"Gain over the default, cross-validated ({cv.k} folds): each question scored at the cutoffs chosen "
                "without it, minus its score at the default: ")
        if not gain.per_question.any():
            lines += [head + "0 on every question (every fold's choice scores like the default on the questions it "
                      "left out).", ""]
        else:
            lines += [head + f"{gain.mean:+.3f} +/- {gain.standard_error:.3f} per question (mean +/- standard error "
                      f"over {len(gain.per_question)} questions; {_score(float(gain.per_question.sum()))} in all), "
                      f"one-sided {_p(gain.p_value)} (paired t-test of no gain; approximate, the folds share "
                      "training questions).", ""]
    lines += [_verdict_in_words(result), ""]
    return lines


def _p(value: float) -> str:
    """'p = 0.042', or 'p < 0.001' for the small ones (a t-test's p is no more exact than that)."""
    return "p < 0.001" if value < 0.001 else f"p = {value:.2g}"


def _verdict_in_words(result: Sweep) -> str:
    """Whether the recommendation is worth acting on, from the cross-validated gain."""
    n = len(result.questions)
    if result.choice.is_default:
        return "The recommended point is the default: keep it until more questions say otherwise."
    cv = result.cross_validation
    if cv is None:
        return (f"Without cross-validation (`--folds 0`) nothing here says whether {n} questions are enough to "
                "prefer the recommended point to the default.")
    gain = cv.gain
    if gain.mean <= 0:
        return (f"**With {n} questions choosing the cutoffs this way gains nothing over the default on questions they "
                "were not chosen on**: the gain seen in sample was fitted to these questions. Keep the default.")
    if gain.p_value >= 0.05:
        needed = f" Roughly {gain.needed} questions would detect a gain this size." if gain.needed else ""
        return (f"**With {n} questions this run cannot tell the recommended point from the default**: the "
                f"cross-validated gain could be noise ({_p(gain.p_value)}).{needed} Treat the recommendation as a "
                "hypothesis and check it on more questions before changing the cutoffs.")
    return (f"On {n} questions the gain of choosing the cutoffs this way holds on questions they were not chosen on "
            f"(cross-validated, {_p(gain.p_value)}).")


def _costs(result: Sweep) -> list[str]:
    """Which cell is recommended as a wrong quote costs more, so a reader sees how much the choice depends on C."""
    lines = ["## If a wrong quote cost more", "", "| Wrong-quote cost C | Recommended | Score there | |",
             "|---:|---|---:|---|"]
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
    averaged = " (each question's repeats taken together in each run)" if max(result.repeats, base.repeats) > 1 else ""
    lines = [f"## Compared with {_md(str(base.run_dir), False)}", "",
             f"At ({h:g}, {a:g}), question by question{averaged}: {comparison.tally_words()}.", "",
             f"Worse overall? {comparison.verdict_words()}."]
    if comparison.cautions:
        lines += ["", *(f"> Caution: {caution}." for caution in comparison.cautions)]
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


def _labels(result: Sweep) -> list[str]:
    """Which questions need a person before the grid can be judged, and how many a narrower grid would need."""
    needed = result.labels_needed
    unlabelled = [q for q in result.questions if q.expect is None]
    if not needed and not unlabelled:
        return []
    lines = ["## Label these", ""]
    if not needed:
        return [*lines, f"{len(unlabelled)} unlabelled question(s) are quoted nowhere on the grid: however they are "
                        "labelled, they cannot change the recommended cell or any cell's wrong-quote rate.", ""]
    missing = sum(1 for item in needed if item.missing_expect)
    lines += [f"**Label these {len(needed)} of {len(result.questions)}**: they are quoted somewhere on the grid and "
              f"cannot be judged without a person ({missing} have no `expect`, {len(needed) - missing} have quotes "
              "no accept pattern or verdict judges). The other questions cannot change the recommended cell or any "
              "cell's wrong-quote rate, however they are labelled. `sweep.py RUN --review` asks for exactly these, "
              "most influential first (quoted in the most cells near the recommended point).", ""]
    floors = result.label_floors
    lines += ["| If the grid's ANSWER_CUTOFF started at | " + " | ".join(f"{f:g}" for f, _ in floors) + " |",
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
