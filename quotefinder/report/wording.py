"""The decision in words: the one cell to ship, what is guaranteed there and under which assumption, the
outcomes to expect, how it compares with the default, and how stable the choice is. The terminal, the
summary's "Decision" section and the page's header all start from `decision_lines`, so they name the same
cell in the same words; `decision_record` is the same decision for machines (`decision.json`).

Two names, used everywhere: the **wrong-answer rate** (the share of questions, with repeats of answers
served, that get a wrong quote: what the guarantee bounds) and **wrong among quotes** (the share of quotes
that are wrong).
"""

from __future__ import annotations

from typing import Any

from ..questions import OUTCOMES
from ..sweep.analysis import Rate, Sweep
from .numbers import at_least, at_most, confidence, plain_number, share

STABLE = 0.8  # a region of best score chosen by at least this share of resamples is called stable
SHAKY = 0.5  # ... by less than this share, unstable


def cell_words(result: Sweep, cell: tuple[int, int]) -> str:
    """'(0.3, 0.9)': HAS_ANSWER_CUTOFF, ANSWER_CUTOFF, as the axes write them."""
    return f"({result.h_axis.text(cell[0])}, {result.a_axis.text(cell[1])})"


def _axes(result: Sweep, cell: tuple[int, int]) -> str:
    first, second = result.system.axes
    return f"that is {first.title} {result.h_axis.text(cell[0])} and {second.title} {result.a_axis.text(cell[1])}"


def point_words(result: Sweep, point: tuple[float, float]) -> str:
    """'(0.3, 0.6)', '(5, instant)': a point of the plane, each value as its axis writes it."""
    first, second = result.system.axes
    return f"({first.shown(point[0])}, {second.shown(point[1])})"


def written(result: Sweep, point: tuple[float, float]) -> list[Any]:
    """A point as decision.json writes it: [0.3, 0.6], [5, "instant"]."""
    return [spec.written(value) for spec, value in zip(result.system.axes, point, strict=True)]


def sweep_title(result: Sweep) -> str:
    """The report's title word: a sweep of the quote finder's cutoffs, or of another system's settings."""
    return "Cutoff sweep" if result.system.settings == "cutoffs" else "Sweep of settings"


def rate_subject(result: Sweep) -> str:
    """What the wrong-answer rate is a share of, in this run."""
    served = "answers served" if result.repeats > 1 else "questions"
    mix = result.settings.answerable_share
    if mix is not None:
        served += f" in the production mix ({share(mix)} of them to answerable questions)" if result.repeats > 1 \
            else f" in the production mix ({share(mix)} of them answerable)"
    return served


def assumption_words(result: Sweep) -> str:
    """The assumption every bound rests on, as a clause ("these questions are ...")."""
    within = "within each class (answerable, unanswerable) " if result.settings.answerable_share is not None else ""
    return (f"these questions are {within}a random sample of the questions the pipeline will serve, and the "
            "pages and the model behave as they did when the run was recorded")


def interval_words(rate: Rate) -> str:
    """'6/6 = 100% [60.9%, 100%]': the 95% Wilson interval rounded outwards; a range when some quotes are
    unjudged."""
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


def _guarantee_line(result: Sweep) -> str:
    decision, g = result.decision, result.guarantee
    sure = confidence(g.delta)
    where = cell_words(result, decision.cell)
    if decision.bound is None:
        return (f"No bound on the wrong-answer rate at {where} can be claimed: {g.unavailable}.")
    if decision.bound_kind == "certified":
        return (f"Guaranteed: with probability at least {sure}, the wrong-answer rate at {where} is at most "
                f"{at_most(decision.bound)}: at most that share of {rate_subject(result)} get a wrong quote there "
                f"(wrong or unjudged), if {assumption_words(result)}. The same holds at every certified cell at once.")
    opening = "Not certified. With" if g.certificate is not None else "With"
    return (f"{opening} probability at least {sure}, the wrong-answer rate at {where} is at most "
            f"{at_most(decision.bound)} of {rate_subject(result)} (an upper bound that holds for whichever cell "
            f"the rule picks: Bonferroni over the grid's {g.cells} cells), if {assumption_words(result)}.")


def _stability_line(result: Sweep) -> str | None:
    stability = result.stability
    if stability is None:
        return None
    region, same = stability.in_region, stability.same_cell
    counted = f"{stability.resamples} bootstrap resamples of the questions"
    if region >= STABLE:
        return (f"Stable: {share(region)} of {counted} choose a cell of its region of best score "
                f"({share(same)} this very cell).")
    if region >= SHAKY:
        return (f"Somewhat unstable: {share(region)} of {counted} choose a cell of its region of best score "
                f"({share(same)} this very cell); more questions would settle it.")
    return (f"Unstable: only {share(same)} of {counted} choose this cell ({share(region)} a cell of its region of "
            "best score); collect more questions before relying on it.")


SIGNIFICANCE = 0.05  # the held-out gain's one-sided p-value below which the gain "holds"


def gain_verdict(result: Sweep) -> str:
    """What the run says of the recommendation against the default, one rule for every report that words it:
    "default" (it is the default), "untested" (no cross-validation), "none" (no gain on questions the choice
    never saw), "noise" (a gain the held-out test cannot tell from noise) or "holds"."""
    if result.choice.is_default:
        return "default"
    cv = result.cross_validation
    if cv is None:
        return "untested"
    if cv.mean <= 0 or cv.gain.mean <= 0:
        return "none"
    return "noise" if cv.gain.p_value >= SIGNIFICANCE else "holds"


def _against_default(result: Sweep) -> str:
    d = result.default
    default = point_words(result, (d.h, d.a))
    verdict = gain_verdict(result)
    if verdict == "default":
        return (f"It is the default {default}: no eligible cell beat it by more than one paired standard error, so "
                "this run is no evidence for changing it.")
    gained = result.score(result.recommended) - result.score(d)
    words = (f"Against the default {default}: score {plain_number(round(result.score(result.recommended), 4))} "
             f"against {plain_number(round(result.score(d), 4))} ({gained:+.4g}) on these questions")
    if verdict == "untested":
        return words + "; without cross-validation nothing says whether that gain would hold on new questions."
    if verdict == "none":
        return words + (f"; but cross-validated, choosing the {result.system.settings} this way gained nothing on "
                        "questions they were not chosen on, so the evidence for leaving the default is weak: check on "
                        "more questions.")
    p_value = result.cross_validation.gain.p_value  # type: ignore[union-attr]
    if verdict == "noise":
        return words + (f"; tested on held-out questions, the gain could be noise (p = {p_value:.2g}): treat "
                        "the move as a hypothesis to check on more questions.")
    return words + (f"; the gain holds on questions the {result.system.settings} were not chosen on (held-out half, "
                    f"p = {p_value:.2g}).")


def decision_lines(result: Sweep) -> list[str]:
    """The decision in plain words (no Markdown), most important first: what to ship, what is guaranteed,
    the outcomes to expect there, how it compares with the default, how stable the choice is."""
    decision, g = result.decision, result.guarantee
    certificate = g.certificate
    lines = []
    where = cell_words(result, decision.cell)
    if certificate is not None and not certificate.any:
        if g.unavailable:
            lines.append(f"NOTHING IS CERTIFIED at a wrong-answer rate of at most {at_most(certificate.alpha)}: "
                         f"{g.unavailable}.")
        else:
            needed = f"; {at_most(certificate.alpha)} needs at least {g.needed} questions, none of them quoted " \
                     "wrong at the certified cell" if g.needed else ""
            lines.append(f"NOTHING IS CERTIFIED at a wrong-answer rate of at most {at_most(certificate.alpha)} with "
                         f"probability at least {confidence(g.delta)}: with {g.n} questions the smallest rate any cell "
                         f"could be certified at is {at_most(g.best_case)}{needed}.")
        lines.append(f"Recommended by score alone, NOT CERTIFIED: {where}, {_axes(result, decision.cell)}.")
    elif certificate is not None:
        lines.append(f"Ship {where}, {_axes(result, decision.cell)}: certified at a wrong-answer rate of at "
                     f"most {at_most(certificate.alpha)}, chosen among the {int(certificate.certified.sum())} "
                     "certified cells.")
    else:
        lines.append(f"Ship {where}, {_axes(result, decision.cell)}: chosen by score (no --max-wrong-rate was "
                     "given, so no cell is certified).")
    lines.append(_guarantee_line(result))
    others = []
    if decision.best_certified is not None and decision.best_certified != decision.cell:
        others.append(f"the best-scoring certified cell is {cell_words(result, decision.best_certified)}")
    if decision.best != decision.cell and decision.best != decision.best_certified:
        certified = ""
        if certificate is not None:
            certified = ", certified" if certificate.certified[decision.best] else ", not certified"
        others.append(f"the best-scoring cell is {cell_words(result, decision.best)}{certified}")
    if others:
        lines.append("For comparison, " + "; ".join(others) + ": the rule keeps a cell of the region of best score "
                     "that is deepest inside it, or the default when it lies in that region.")
    rates = "; ".join(f"{rate.name} {interval_words(rate)}" for rate in result.rates(result.recommended))
    lines.append(f"Expected there: {rates} (95% Wilson intervals).")
    lines.append(_against_default(result))
    stability = _stability_line(result)
    if stability:
        lines.append(stability)
    return lines


def decision_record(result: Sweep) -> dict[str, Any]:
    """`decision.json`: the same decision for CI to read (`jq .recommended decision.json`). Stable keys."""
    decision, g = result.decision, result.guarantee
    certificate = g.certificate
    r = result.recommended

    def cell(c: tuple[int, int] | None) -> list[Any] | None:
        return None if c is None else written(result, (float(result.h_axis.values[c[0]]),
                                                       float(result.a_axis.values[c[1]])))

    if decision.bound is None:
        means = f"no bound can be claimed: {g.unavailable}"
    elif decision.bound_kind == "certified":
        means = (f"with probability at least {confidence(g.delta)}, at most this share of {rate_subject(result)} get "
                 f"a wrong (or unjudged) quote at every certified cell, this one included, "
                 f"if {assumption_words(result)}")
    else:
        means = (f"with probability at least {confidence(g.delta)}, at most this share of {rate_subject(result)} get "
                 f"a wrong (or unjudged) quote at the recommended cell (Bonferroni over the grid's {g.cells} cells, "
                 f"valid for a cell chosen after looking), if {assumption_words(result)}")
    return {
        "axes": [spec.heading for spec in result.system.axes],  # what each point below lists, in order
        "recommended": cell(decision.cell),
        "default": written(result, (result.default.h, result.default.a)),
        "certified": decision.certified,
        "best_certified": cell(decision.best_certified),
        "best_score_cell": cell(decision.best),
        "is_default": decision.is_default,
        "max_wrong_rate": None if certificate is None else certificate.alpha,
        "delta": g.delta,
        "wrong_rate_bound": decision.bound,
        "wrong_rate_bound_means": means,
        "counts": {o.value: plain_number(r.mean(o)) for o in OUTCOMES},
        "score": plain_number(round(result.score(r), 9)),
        "questions": len(result.questions),
        "repeats": result.repeats,
        "evidence": result.replayed.record.evidence_word,
        "answerable_share": result.settings.answerable_share,
        "wrong_cost": result.wrong_cost,
    }


def pipeline_words(result: Sweep) -> str | None:
    """What the run sent, when it is not the recipe's pipeline (None for the recipe's, which every report of a run
    before pipelines existed also swept): the system, the pipeline's name, model and digest."""
    config = result.replayed.record.config
    pipeline = config.pipeline
    if pipeline.is_recipe:
        return None
    if not config.is_quote_finder:
        return f"system {config.system}, pipeline {pipeline.name} (digest {config.pipeline_digest[:12]}; every value " \
            "in run.json)"
    return (f"system {config.system}, pipeline {pipeline.name} (model {pipeline.model}, {pipeline.max_results} "
            f"search results; digest {config.pipeline_digest[:12]}; every value in run.json)")

