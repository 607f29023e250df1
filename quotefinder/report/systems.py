"""Which system to ship, laid out: `systems.csv` (`systems_frame`), the summary's "Which to ship" section
(`which_to_ship_lines`), what `decision.json` adds (`systems_decision`) and a question's outcome in every
system (`outcomes_frame`). Presentation only: `sweep.systems` computes.

Run names and pipeline labels are what a user typed or wrote in a file: in Markdown they are code spans
(`textsafe.markdown_code`), in CSV inert text (`textsafe.csv_text`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core.textsafe import csv_text, markdown_code
from ..questions import OUTCOMES
from ..sweep.systems import Difference, Systems, TunedSystem
from .numbers import at_most, p_words, plain_number
from .wording import FIELD_AT_MOST

if TYPE_CHECKING:
    import pandas as pd



def _md(text: str) -> str:
    return markdown_code(text, at_most=FIELD_AT_MOST)


def _number(value: float) -> float | int:
    """A statistic for a machine: an integer when it is one, else to 10 significant figures (a p-value of 1e-12
    stays 1e-12; `plain_number`'s 4 decimals are for means of counts)."""
    return int(value) if float(value).is_integer() else float(f"{value:.10g}")


Code = Callable[[str], str]  # how a run name or a pipeline label is shown: a code span in Markdown, plain text


def _named(system: TunedSystem, code: Code) -> str:
    return f"{code(system.name)} (pipeline {code(system.pipeline)})"


def settings_word(systems: Systems) -> str:
    """What the systems' points are, in one word: "cutoffs" when every one is the quote finder's, else
    "settings"."""
    words = {system.settings for system in systems.systems}
    return words.pop() if len(words) == 1 else "settings"


def _at(system: TunedSystem) -> str:
    return f"{system.titles[0]} {system.point_text[0]}, {system.titles[1]} {system.point_text[1]}"


def _test_words(difference: Difference) -> str:
    """Which test the p-value is, in words."""
    factor = f", times {difference.pairs} (Bonferroni over the pairs of systems)" if difference.pairs > 1 else ""
    return (f"corrected repeated cross-validation t-test over {difference.repetitions} x {difference.folds} fold "
            f"means (Bouckaert-Frank), two-sided{factor}")


def _uncertified(systems: Systems, system: TunedSystem) -> bool:
    """Whether `system` is passed over for want of a certified cell (the one shipped has one)."""
    return systems.certificate and bool(systems.chosen.certified) and not system.certified


def _not_shown(difference: Difference, higher: str, code: Code) -> str:
    """ "`b` is not shown better, p = 0.42, at 100 questions" (and how many a difference this size would need)."""
    needed = ""
    if difference.needed is not None:
        needed = (f"; a difference this size would need about {difference.needed} questions to be detected "
                  "with 80% power")
    return f"{code(higher)} is not shown better, {p_words(difference.p_value)}, at {difference.n} questions{needed}"


def _difference_line(systems: Systems, system: TunedSystem, difference: Difference, code: Code) -> str:
    best = systems.chosen
    if difference.verdict == "identical":
        return (f"{_named(system, code)}: every question scores the same as in {code(best.name)}, cross-validated: "
                "the two are indistinguishable (p = 1).")
    test = (f"standard error {difference.standard_error:.2g} over the {difference.n} questions; "
            f"{_test_words(difference)}: {p_words(difference.p_value)}")
    if difference.mean < 0 and _uncertified(systems, system):
        return (f"{_named(system, code)} scores {-difference.mean:.3g} more per question than {code(best.name)}, "
                f"cross-validated ({test}), but its recommended cell is not certified, so it is not the one to ship.")
    if difference.mean < 0:
        return (f"{_named(system, code)} scores {-difference.mean:.3g} more per question than {code(best.name)}, "
                f"cross-validated ({test}): {_not_shown(difference, system.name, code)}.")
    words = f"{_named(system, code)} scores {difference.mean:.3g} less per question than {code(best.name)}, " \
            f"cross-validated ({test})"
    if difference.verdict == "better":
        return words + f": {code(best.name)} is better."
    return words + f": {_not_shown(difference, best.name, code)}."


def _cost(system: TunedSystem) -> str:
    cost = system.cost
    if cost.requests is None:
        return "not recorded"
    tokens = "input tokens not recorded" if cost.input_tokens is None else f"{cost.input_tokens:,.0f} input tokens"
    return f"{cost.requests:.4g} requests, {tokens}"


def _why_kept(systems: Systems, undecided: list[TunedSystem], code: Code) -> str:
    """Why the system shipped is kept over those it is not shown better than (`Systems.kept_as`)."""
    best = systems.chosen
    if systems.kept_as == "cheaper":
        return (f"{code(best.name)} is kept as the cheaper per question ({_cost(best)}; "
                + "; ".join(f"{code(s.name)} {_cost(s)}" for s in undecided) + ")")
    if systems.kept_as == "incumbent":
        return f"at equal cost, {code(best.name)} is kept as the incumbent (the first run given)"
    if systems.kept_as == "higher score":
        return f"at equal cost, {code(best.name)} is kept for its higher cross-validated score"
    return ""


def _mcnemar_lines(systems: Systems, code: Code) -> list[str]:
    if not systems.certificate:
        return []
    alpha = f" at a wrong-answer rate of at most {at_most(systems.max_wrong_rate)}" \
        if systems.max_wrong_rate is not None else ""
    points = "; ".join(
        f"{code(s.name)} at ({s.point_text[0]}, {s.point_text[1]}), {s.certified_correct} correct" if s.certified
        else f"{code(s.name)} none" for s in systems.systems)
    lines = [f"Certified points{alpha} (first repeat): {points}."]
    best = systems.chosen
    for system, difference in systems.others():
        test = difference.mcnemar
        if test is None:
            which = "neither has a" if not best.certified and not system.certified else "one of them has no"
            lines.append(f"{code(best.name)} against {code(system.name)} at their certified points: no test, "
                         f"as {which} certified point.")
            continue
        factor = f", times {test.pairs} (Bonferroni over the pairs)" if test.pairs > 1 else ""
        lines.append(f"{code(best.name)} against {code(system.name)} at their certified points: {test.best_only} "
                     f"question(s) correct only in {code(best.name)}, {test.other_only} only in {code(system.name)} "
                     f"(exact McNemar test, two-sided{factor}, IN-SAMPLE: at cells chosen on these same questions, "
                     f"so it flatters the difference: {p_words(test.p_value)}).")
    return lines


def ship_lines(systems: Systems, code: Code = _md) -> list[str]:
    """Which to ship: the first line names the system and the cell and says in plain words how sure that is;
    then each other system against it (difference, standard error, p-value and which test), the certified
    points with a certificate, and the in-sample scores, labelled as such. `code` shows a name (a Markdown code
    span by default; plain text for the page and the terminal)."""
    best = systems.chosen
    if best.certified is False:
        certified = " (NOT CERTIFIED: no system has a certified cell)"
    elif best.certified:
        certified = " (certified)"
    else:
        certified = ""
    others = systems.others()
    higher = [s for s, d in others if d.mean < 0 and _uncertified(systems, s)]
    undecided = [(s, d) for s, d in others if not d.better and s not in higher]
    if not others:
        why = ""
    elif higher or undecided:
        why = ""
        if higher:
            why += (" " + ", ".join(code(s.name) for s in higher) + " score(s) higher cross-validated but have no "
                    "certified cell, so they are not shipped.")
        if undecided:
            same = [code(s.name) for s, d in undecided if d.identical]
            why += (" It is not shown better than " + ", ".join(f"{code(s.name)}, {p_words(d.p_value)}"
                                                                for s, d in undecided)
                    + (f" (every question scores the same in {', '.join(same)})" if same else ""))
            kept = _why_kept(systems, [s for s, _ in undecided], code)
            why += (f": {kept}" if kept else "") + "; collect more questions to decide."
    else:
        why = f" It scores better than every other system on questions its {best.settings} were not chosen on."
    lines = [f"Ship {_named(best, code)} at {_at(best)}{certified}.{why}"]
    lines.append(f"Cross-validated score per question ({settings_word(systems)} chosen by each system's own rule "
                 f"without the question's fold, mean over {systems.repetitions} seeded splits into {systems.k} folds, "
                 f"the same folds for every system, seed {systems.seed}): "
                 + "; ".join(f"{code(s.name)} {s.cv_score:.4g}" for s in systems.systems) + ".")
    lines.append("Recorded cost per question (run.json: requests and input tokens of the recorded question repeats, "
                 "over the coverage each run recorded): "
                 + "; ".join(f"{code(s.name)} {_cost(s)}" for s in systems.systems) + ".")
    lines += [_difference_line(systems, system, difference, code) for system, difference in others]
    lines += _mcnemar_lines(systems, code)
    n = len(systems.questions)
    lines.append("In-sample (tuned on these questions, so it flatters each system): "
                 + "; ".join(f"{code(s.name)} score {_number(s.score)} over {n} questions at "
                             f"({s.point_text[0]}, {s.point_text[1]})" for s in systems.systems)
                 + ". Only the cross-validated scores decide.")
    return lines


def which_to_ship_lines(systems: Systems) -> list[str]:
    """The summary's "## Which to ship" section, as Markdown lines (`ship_lines`: the decision as a paragraph,
    the rest as a list)."""
    first, *rest = ship_lines(systems)
    return ["## Which to ship", "", first, "", *(f"- {line}" for line in rest), ""]


def _certified(value: bool | None) -> str:
    return "" if value is None else ("true" if value else "false")


def systems_frame(systems: Systems) -> pd.DataFrame:
    """`systems.csv`: one row per run, in the order given: its recommended cell, whether it is certified
    (true/false; empty without --max-wrong-rate), its mean counts there over repeats, its in-sample `score`
    (sum over questions), `cv_score` (mean cross-validated score per question) and, for every run but the best,
    `difference_vs_best` (per question), `standard_error` (per question), `p_vs_best` (two-sided, with the
    Bonferroni factor), then `requests_per_question` and `input_tokens_per_question` (the recording's, `Cost`;
    empty when the run records none) and, with a certificate, `mcnemar_p` (empty for the best). "best" is the
    run to ship."""
    import pandas as pd  # here: a sweep that writes tables alone never imports pandas

    rows = []
    headings = list(dict.fromkeys(heading for system in systems.systems for heading in system.headings))
    for index, system in enumerate(systems.systems):
        difference = systems.differences[index]
        row: dict[str, Any] = {"run": csv_text(system.name), "pipeline": csv_text(system.pipeline)}
        point = dict(zip(system.headings, system.written, strict=True))
        row.update({heading: point.get(heading, "") for heading in headings})  # each run on its own system's axes
        row["certified"] = _certified(system.certified)
        for outcome in OUTCOMES:
            row[outcome.value] = plain_number(system.counts[outcome])
        row.update({
            "score": _number(system.score),
            "cv_score": _number(system.cv_score),
            "best": "true" if index == systems.best else "false",
            "difference_vs_best": "" if difference is None else _number(difference.mean),
            "standard_error": "" if difference is None else _number(difference.standard_error),
            "p_vs_best": "" if difference is None else _number(difference.p_value),
            "requests_per_question": "" if system.cost.requests is None else _number(system.cost.requests),
            "input_tokens_per_question": "" if system.cost.input_tokens is None else _number(system.cost.input_tokens),
        })
        if systems.certificate:
            test = difference.mcnemar if difference is not None else None
            row["certified_correct"] = "" if system.certified_correct is None else system.certified_correct
            row["mcnemar_p"] = "" if test is None else _number(test.p_value)
        rows.append(row)
    return pd.DataFrame(rows)


def systems_decision(systems: Systems) -> dict[str, Any]:
    """What `decision.json` adds for a comparison: `system` (the run to ship, its pipeline, point and cell) and
    `systems` (every run's cell, cv_score and p_vs_best, null for the best). Stable keys."""
    best = systems.chosen
    listed = []
    for system, difference in zip(systems.systems, systems.differences, strict=True):
        listed.append({
            "run": system.name,
            "pipeline": system.pipeline,
            "point": list(system.written),
            "certified": system.certified,
            "score": _number(system.score),
            "cv_score": _number(system.cv_score),
            "p_vs_best": None if difference is None else _number(difference.p_value),
            "verdict": None if difference is None else difference.verdict,
            "requests_per_question": None if system.cost.requests is None else _number(system.cost.requests),
            "input_tokens_per_question": (None if system.cost.input_tokens is None
                                          else _number(system.cost.input_tokens)),
        })
    return {
        "system": {"run": best.name, "pipeline": best.pipeline,
                   "point": list(best.written), "cell": list(best.cell), "kept_as": systems.kept_as},
        "systems": listed,
        "systems_test": (f"corrected repeated cross-validation t-test over {systems.repetitions} x {systems.k} fold "
                         "means (Bouckaert-Frank), two-sided"
                         + (f", Bonferroni over {systems.pairs} pairs" if systems.pairs > 1 else "")),
    }


def outcomes_frame(systems: Systems) -> pd.DataFrame:
    """A question's outcome in every system: id, question, then one column per run (named by the run, in the
    order given) with its outcome at its recommended cell, first repeat."""
    import pandas as pd  # here: a sweep that writes tables alone never imports pandas

    frame = pd.DataFrame({"id": [csv_text(q.id) for q in systems.questions],
                          "question": [csv_text(q.question) for q in systems.questions]})
    used = {"id", "question"}
    for system in systems.systems:
        column = csv_text(system.name)
        while column in used:  # a run named "id", or the same directory given twice
            column += "'"
        used.add(column)
        frame[column] = [outcome.value for outcome in system.outcomes]
    return frame

