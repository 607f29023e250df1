"""The words and tables of a refresh compared with its original (`sweep.py NEW --drift`) and of the shipped cell
watched over refreshes (`sweep.py --monitor`): the summary's "Drift" and "Monitor" sections, drift.csv,
drift-stages.csv, monitor.csv, their keys in decision.json, and what the terminal prints.

Every number says what it is: a share says of what, a test says which test, a bound says its confidence and
that it is one-sided."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.plugin import AxisSpec
from ..core.textsafe import csv_text, markdown_code, markdown_text
from ..questions import Outcome
from ..record.rundir import RUN_FILE
from ..sweep.analysis import Sweep
from ..sweep.compare import ChangeKind
from ..sweep.drift import LABELS, Drift, StageDrift, WrongRate
from ..sweep.monitor import CautionKind, Monitor, MonitorCaution
from .numbers import confidence, p_value, p_words, point_words, titled_point_words
from .wording import FIELD_AT_MOST, options_words

if TYPE_CHECKING:
    import pandas as pd

LIST_AT_MOST = 50


def _md(text: str, table: bool = True) -> str:
    return markdown_code(text, in_table=table, at_most=FIELD_AT_MOST)


def _share(part: int, whole: int) -> str:
    return f"{part} of {whole}" + (f" ({100 * part / whole:.0f}%)" if whole else "")


def _rate(value: float) -> str:
    return "-" if math.isnan(value) else f"{100 * value:.1f}%"


def _change(value: float | None) -> str:
    return "-" if value is None else f"{value:+.4f}"


def stage_words(stage: StageDrift) -> str:
    """'search results: 3 of 10 answered differently, 1 asked afresh'."""
    parts = []
    if stage.changed:
        parts.append(f"{stage.changed} of {stage.paired} requests asked again answered differently")
    if stage.fresh:
        parts.append(f"{stage.fresh} of {stage.asked} were asked afresh (their inputs changed upstream)")
    return f"{stage.stage}: {', '.join(parts)}"


def shift_words(stage: StageDrift, drift: Drift) -> str:
    tested = sum(1 for s in drift.stages if s.p_value is not None)
    return (f"{stage.probability} probabilities ({stage.stage}) moved {_change(stage.mean_change)} per question on "
            f"average (two-sided Wilcoxon signed-rank {p_words(stage.p_value)} < {drift.significance:g} / {tested} "
            "stages tested)")


def sign_words(drift: Drift) -> str:
    worse, fixed, p = drift.sign_test
    verdict = (f"< {drift.significance:g}: WORSE beyond noise" if drift.worse
               else f">= {drift.significance:g}: not worse beyond noise")
    if not drift.decisions.fixed:
        verdict += f" (advisory: {ADVISORY})"
    return f"{worse} worse against {fixed} fixed, one-sided exact sign test {p_words(p)} {verdict}"


def rate_words(rate: WrongRate, alpha: float | None = None) -> str:
    level = confidence(rate.delta)
    sampled = sum(1 for _, _, n, _ in rate.strata if n)
    left = (f"; {', '.join(LABELS[label] for label in rate.partial)} not sampled, so counted as anything from 0 to "
            "100%" if rate.partial else "")
    words = (f"{_rate(rate.estimate)} (one-sided {level} bounds, each: at least {_rate(rate.lower)}, at most "
             f"{_rate(rate.upper)}; exact Clopper-Pearson per label at {rate.delta:g} / {sampled}, weighted by each "
             f"label's share of the original's questions; first repeats{left})")
    if alpha is not None:
        words += (f"; above --max-wrong-rate {alpha:g} with {level} confidence: "
                  f"{'YES' if rate.lower > alpha else 'no'}")
    return words


ADVISORY = ("the cell is not the run's default cutoffs, so it was chosen on the original's responses, where fresh "
            "ones look worse by chance alone and the test says WORSE more often than its level: it never fails the "
            "check here; give --max-wrong-rate to test the rate now instead")


def verdict(drift: Drift) -> str:
    """The drift in words: the evidence still describes the API, or what changed and what to do; and, apart, what
    the rate now says."""
    rate = ""
    if drift.above:
        rate = (f" The wrong-answer rate at the shipped cell is above {drift.max_wrong_rate:g} now, with "
                f"{confidence(drift.rate.delta)} confidence (at least {_rate(drift.rate.lower)}): the cutoffs do not "
                "keep that promise on today's API, whether or not it changed.")
    if not (drift.changed or drift.shifted or drift.decisions.fails):
        same = [f"{s.stage}: {s.paired} of {s.asked} asked again, every answer the same" for s in drift.stages
                if s.sources]
        noisy = [f"{s.stage}: {s.changed} of {s.paired} answered differently and {s.fresh} asked afresh"
                 + (f", {s.probability} moved {_change(s.mean_change)} per question (Wilcoxon {p_words(s.p_value)})"
                    if s.probability else "")
                 for s in drift.stages if not s.sources]
        return ("The evidence still describes the API: " + "; ".join([*same, *noisy])
                + (" (noise alone changes close calls, and text written anew, both ways)" if noisy else "")
                + f"; decisions at the shipped cell: {sign_words(drift)}." + rate)
    what = [stage_words(s) for s in drift.changed] + [shift_words(s, drift) for s in drift.shifted]
    if drift.decisions.fails:
        what.append(f"decisions at the shipped cell got worse ({sign_words(drift)})")
    todo = ("re-record the run (all of its questions) and sweep it again before trusting its cutoffs"
            if drift.failed else
            "no test that gates the check failed, so the cutoffs still stand on this sample; re-record the run when "
            "you next tune them, since its evidence no longer describes every answer")
    if not drift.decisions.fails:
        todo += f"; decisions at the shipped cell: {sign_words(drift)}"
    return f"The API has changed since {drift.original} was recorded: {'; '.join(what)}. What to do: {todo}." + rate


def exit_words(drift: Drift) -> str:
    if not drift.failed:
        return ("PASS (exit 0): no stage's probabilities shifted beyond noise"
                + (", decisions at the shipped cell (the run's default cutoffs) are not worse beyond noise"
                   if drift.decisions.fixed else "")
                + (f" and the rate is not shown above {drift.max_wrong_rate:g}" if drift.max_wrong_rate is not None
                   else ""))
    reasons = [r for r, bad in (("decisions at the run's default cutoffs got worse beyond noise",
                                 drift.decisions.fails),
                                ("a stage's probabilities shifted beyond noise", bool(drift.shifted)),
                                (f"the rate is above {drift.max_wrong_rate} with confidence", drift.above)) if bad]
    return f"FAIL (exit 1): {' and '.join(reasons)}"


def _strata(drift: Drift) -> str:
    refresh = drift.refresh_record.refresh
    if refresh is None:
        return f"{len(drift.questions)} question(s) compared"
    parts = ", ".join(f"{LABELS[label]} {taken} of {held}" for label, taken, held in refresh.strata)
    return f"a sample of {refresh.sample} ({parts}), seed {refresh.seed}"


def _outcomes(outcomes: Sequence[Outcome]) -> str:
    return " ".join(o.label for o in outcomes)


def drift_markdown(drift: Drift, result: Sweep) -> list[str]:
    """The summary's "Drift" section."""
    then, now = drift.original_record, drift.refresh_record
    lines = ["## Drift", "",
             f"**{markdown_text(verdict(drift))}**", "",
             f"- Exit status: {exit_words(drift)}",
             f"- Original: {_md(str(drift.original), False)}, recorded {then.started_at or '?'} to "
             f"{then.finished_at or '?'}; refresh: {_md(str(drift.refresh), False)}, recorded {now.started_at or '?'} "
             f"to {now.finished_at or '?'}; {_strata(drift)}; each question compared on its first "
             f"{drift.repeats_compared} repeat(s) in each run",
             f"- Shipped cell: {point_words(result.system.axes, drift.point)} ({markdown_text(drift.point_from)})",
             *(f"- CAUTION: {markdown_text(caution)}" for caution in drift.cautions), "",
             "### The evidence, stage by stage", "",
             "Every request the refresh sent, looked up in the original's cache: asked then too when its body and "
             "repeat are the same (its inputs did not change), else asked afresh. A probability's change is now minus "
             "then, averaged within each question; the test is over the questions.", "",
             "| Stage | Requests now | Asked then too | Answer changed | Asked afresh | Probability | Mean change "
             "per question | Wilcoxon p (two-sided) |",
             "|---|---:|---:|---:|---:|---|---:|---:|"]
    for s in drift.stages:
        lines.append(f"| {s.stage} | {s.asked} | {s.paired} | {_share(s.changed, s.paired)} | {s.fresh} | "
                     f"{s.probability or '-'} | {_change(s.mean_change)} | {p_value(s.p_value)} |")
    tally = {kind: sum(1 for q in drift.questions if q.change.kind is kind) for kind in ChangeKind}
    tops = sum(1 for q in drift.questions if q.top_changed)
    quotes = sum(1 for q in drift.questions if q.quote_changed)
    lines += ["", "### Decisions at the shipped cell", "",
              f"- Questions: {', '.join(f'{k.value} {n}' for k, n in tally.items())}",
              f"- Worse overall? {sign_words(drift)}",
              f"- Top result changed: {_share(tops, len(drift.questions))} questions; quote changed (first repeat): "
              f"{_share(quotes, len(drift.questions))}",
              f"- Wrong-answer rate now: {rate_words(drift.rate, drift.max_wrong_rate)}", ""]
    moved = [q for q in drift.questions
             if q.top_changed or q.quote_changed or q.change.kind is not ChangeKind.UNCHANGED]
    if moved:
        lines += ["| Question | Top result changed | Quoted then | Quoted now | Outcomes then | Outcomes now "
                  "| Change |",
                  "|---|---|---|---|---|---|---|"]
        for q in moved[:LIST_AT_MOST]:
            lines.append(f"| {_md(q.question.id)} | {'yes' if q.top_changed else 'no'} | "
                         f"{_md(q.quote_then) if q.quote_then is not None else '(no answer)'} | "
                         f"{_md(q.quote_now) if q.quote_now is not None else '(no answer)'} | "
                         f"{_outcomes(q.change.before)} | {_outcomes(q.change.after)} | {q.change.kind.value} |")
        if len(moved) > LIST_AT_MOST:
            lines.append(f"\n... and {len(moved) - LIST_AT_MOST} more in `drift.csv`.")
        lines.append("")
    lines += ["`drift.csv` lists every sampled question, `drift-stages.csv` every stage.", ""]
    return lines


def drift_frame(drift: Drift) -> pd.DataFrame:
    """drift.csv: every sampled question then and now at the shipped cell."""
    import pandas as pd  # here: a sweep that writes tables alone never imports pandas

    return pd.DataFrame([{
        "id": csv_text(q.question.id), "question": csv_text(q.question.question), "expect": q.question.expect or "",
        "top_then": csv_text(q.top_then), "top_now": csv_text(q.top_now), "top_changed": q.top_changed,
        "quoted_then": csv_text(q.quote_then), "quoted_now": csv_text(q.quote_now), "quote_changed": q.quote_changed,
        "outcomes_then": _outcomes(q.change.before), "outcomes_now": _outcomes(q.change.after),
        "change": q.change.kind.value} for q in drift.questions],
        columns=["id", "question", "expect", "top_then", "top_now", "top_changed", "quoted_then", "quoted_now",
                 "quote_changed", "outcomes_then", "outcomes_now", "change"])


def stages_frame(drift: Drift) -> pd.DataFrame:
    """drift-stages.csv: every stage's requests, answers changed, and probabilities' paired change."""
    import pandas as pd  # here: a sweep that writes tables alone never imports pandas

    return pd.DataFrame([{
        "stage": s.stage, "requests_now": s.asked, "asked_then_too": s.paired, "answer_changed": s.changed,
        "asked_afresh": s.fresh, "probability": s.probability, "questions_compared": len(s.per_question),
        "probabilities_compared": s.pairs,
        "mean_change_per_question": s.mean_change if s.mean_change is not None else float("nan"),
        "wilcoxon_p": s.p_value if s.p_value is not None else float("nan")} for s in drift.stages],
        columns=["stage", "requests_now", "asked_then_too", "answer_changed", "asked_afresh", "probability",
                 "questions_compared", "probabilities_compared", "mean_change_per_question", "wilcoxon_p"])


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value


def drift_record(drift: Drift, result: Sweep) -> dict[str, object]:
    """decision.json's `drift`: the verdict and the numbers a CI step reads."""
    worse, fixed, p = drift.sign_test
    return {"original": str(drift.original), "refresh": str(drift.refresh),
            "shipped": [spec.written(v) for spec, v in zip(result.system.axes, drift.point, strict=True)],
            "shipped_from": drift.point_from, "holds": drift.holds, "failed": drift.failed,
            "worse_questions": worse, "fixed_questions": fixed, "sign_test_p": p, "significance": drift.significance,
            "sign_test_gates": drift.decisions.fixed,
            "wrong_rate": {"estimate": _finite(drift.rate.estimate), "lower": drift.rate.lower,
                           "upper": drift.rate.upper, "confidence": 1 - drift.rate.delta,
                           "means": "one-sided bounds, each at this confidence, on the wrong-answer rate at the "
                                    "shipped cell for the original's question mix (first repeats)"},
            "max_wrong_rate": drift.max_wrong_rate,
            "stages_changed": [s.stage for s in drift.changed], "stages_shifted": [s.stage for s in drift.shifted]}


def drift_console(drift: Drift, result: Sweep) -> list[str]:
    """What the terminal prints of the drift."""
    lines = [f"Drift against {drift.original} at {point_words(result.system.axes, drift.point)} ({drift.point_from}):",
             f"  {verdict(drift)}"]
    for s in drift.stages:
        lines.append(f"  {s.stage}: {s.asked} requests, {s.paired} asked then too, {s.changed} answered "
                     f"differently, {s.fresh} asked afresh"
                     + (f"; {s.probability} mean change {_change(s.mean_change)} per question, Wilcoxon "
                        f"{p_words(s.p_value)}" if s.probability else ""))
    lines += [f"  Decisions: {sign_words(drift)}",
              f"  Wrong-answer rate now: {rate_words(drift.rate, drift.max_wrong_rate)}",
              *(f"  CAUTION: {c}" for c in drift.cautions), f"  {exit_words(drift)}"]
    return lines


# ---- the monitor ------------------------------------------------------------------------------------


METHOD = ("an anytime-valid test over every refreshed question: each stakes exp((z log rho - m (rho - 1)) / b) on its "
          "label-weighted loss z (b the largest weight), mixed over ratios rho 1.25 to 10 and over start times "
          "(weights 1/(s(s+1)), an e-detector after Shin, Ramdas & Rinaldo 2023 whose chance of ever alarming is at "
          "most delta while no rate exceeds --max-wrong-rate); the lower bound inverts it; valid at every refresh at "
          "once, however often it is checked")


def monitor_alarm_words(monitor: Monitor) -> str:
    level = confidence(monitor.delta)
    first = monitor.first_alarm
    alpha = f"--max-wrong-rate {_rate(monitor.alpha)}"
    if first is None:
        last = monitor.watches[-1]
        return (f"No alarm: after {len(monitor.watches)} refresh(es) the lower bound is {_rate(last.lower)}, below "
                f"{alpha}: nothing shows the wrong-answer rate at the shipped cell above it ({level} confidence, "
                "however often this is checked)")
    return (f"ALARM after refresh {first + 1} ({monitor.watches[first].run}): the lower bound reached {alpha}, so at "
            f"some refresh the wrong-answer rate at the shipped cell was above it ({level} confidence, "
            "anytime-valid): re-record the run, re-tune its cutoffs, and start monitoring again from the new run")


def monitor_markdown(monitor: Monitor, axes: tuple[AxisSpec, AxisSpec]) -> str:
    """summary.md of `sweep.py --monitor`."""
    synthetic = "synthetic" in monitor.evidence
    lines = [f"# Monitor of {_md(monitor.original, False)}{' (SYNTHETIC evidence)' if synthetic else ''}", ""]
    if synthetic:
        lines += ["> **Synthetic evidence.** These runs were recorded against the stand-in API from invented pages: "
                  "they show what the harness reports, not how the real pipeline performs.", ""]
    lines += ["## Monitor", "",
              f"**{markdown_text(monitor_alarm_words(monitor))}**", "",
              f"- Exit status: {'1 (alarm)' if monitor.alarmed else '0 (no alarm)'}",
              f"- Shipped cell: {titled_point_words(axes, monitor.point)}; "
              f"--max-wrong-rate {monitor.alpha:g}; confidence {confidence(monitor.delta)} (--delta "
              f"{monitor.delta:g})",
              f"- Options given: {options_words(monitor.options)}",
              f"- Method: {METHOD}. Every question a refresh sampled is evidence: its share of wrong answers over its "
              "repeats, weighted by its label's share of the original's questions (the estimate is their mean). It "
              "assumes each refresh is a fresh random sample (its own seed) with fresh API "
              "responses, watched in the order they began, none left out after the fact; the original's own "
              "responses, on which the cell was chosen, are not used.",
              "- A test of each refresh on its own at the same level would alarm far more often than that level over "
              "many refreshes; this bound does not.",
              *(["- The refreshes were given out of time order: they are watched in the order they began."]
                if monitor.reordered else []),
              *(f"- CAUTION: {markdown_text(monitor_caution_words(caution))}" for caution in monitor.cautions), "",
              "| # | Refresh | Began | Questions | Estimate | Lower bound | Evidence so far (e-value) | Alarm |",
              "|---:|---|---|---:|---:|---:|---:|---|"]
    for n, w in enumerate(monitor.watches, start=1):
        lines.append(f"| {n} | {_md(w.run)} | {w.started_at or '?'} | {w.questions} | {_rate(w.estimate)} | "
                     f"{_rate(w.lower)} | {w.e_value:.3g} | {'ALARM' if w.alarm else 'no'} |")
    lines += ["", f"The lower bound is one-sided at {confidence(monitor.delta)}, for the highest rate up to that "
              f"refresh, and never falls back. Evidence so far says how strongly the refreshes up to that one speak "
              f"against 'the wrong-answer rate has stayed at most {monitor.alpha:g}': 1 is no evidence either way, "
              "and it grows as refreshes show more wrong answers than that allows. It is the highest value, so "
              "far, of an e-value (what a bettor staking a little against that claim on each question would hold, "
              f"starting from 1); the alarm sounds when it reaches 1/delta = {1 / monitor.delta:g}, which, while "
              f"the rate stays at most {monitor.alpha:g}, happens with probability at most {monitor.delta:g}. "
              "`monitor.csv` has every row.", ""]
    return "\n".join(lines)


def monitor_frame(monitor: Monitor) -> pd.DataFrame:
    import pandas as pd  # here: a sweep that writes tables alone never imports pandas

    return pd.DataFrame([{"refresh": csv_text(w.run), "began": w.started_at, "questions": w.questions,
                          "estimate": w.estimate, "lower_bound": w.lower, "highest_e_value": w.e_value,
                          "alarm": w.alarm} for w in monitor.watches],
                        columns=["refresh", "began", "questions", "estimate", "lower_bound", "highest_e_value",
                                 "alarm"])


def monitor_caution_words(caution: MonitorCaution) -> str:
    """A monitor's caution as a sentence."""
    if caution.kind is CautionKind.ORIGINAL_CHANGED:
        return (f"{caution.run}/{RUN_FILE} is not what every refresh sampled from (it was re-recorded or extended "
                "since some of them): the refreshes may describe different question sets")
    if caution.kind is CautionKind.QUESTIONS_GONE:
        return (f"{caution.count} question(s) {caution.run} sampled are no longer in {caution.where}: its estimate "
                "leaves them out, so it may be off either way; restore them")
    none = " and ".join(f"none of the {LABELS[label]} questions" for label in caution.labels)
    return (f"{caution.run} sampled {none}: its estimate counts them as never wrong, so the lower bound stays valid "
            "but an alarm may come later than it would; give a refresh at least one question per label")


def monitor_record(monitor: Monitor, axes: tuple[AxisSpec, AxisSpec]) -> dict[str, object]:
    """decision.json of `sweep.py --monitor`."""
    return {"original": monitor.original,
            "shipped": [spec.written(value) for spec, value in zip(axes, monitor.point, strict=True)],
            "max_wrong_rate": monitor.alpha,
            "confidence": 1 - monitor.delta, "alarm": monitor.alarmed,
            "first_alarm": None if monitor.first_alarm is None else monitor.watches[monitor.first_alarm].run,
            "lower_bound": monitor.watches[-1].lower,
            "method": METHOD, "evidence": monitor.evidence, "refreshes": [w.run for w in monitor.watches],
            "cautions": [monitor_caution_words(caution) for caution in monitor.cautions]}
