"""The decision in words: what to do (keep the default, move, move for safety, nothing certified, label first),
what is guaranteed there and under which assumption, the outcomes to expect, and the tuning's gain over the
default on questions it did not choose on. The terminal, the
summary's "Decision" section and the page's header all start from `decision_lines`, so they name the same
cell in the same words; `decision_record` is the same decision for machines (`decision.json`).

Two names, used everywhere: the **wrong-answer rate** (the share of questions, with repeats of answers
served, that get a wrong quote: what the guarantee bounds) and **wrong among quotes** (the share of quotes
that are wrong).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.textsafe import markdown_code
from ..questions import OUTCOMES
from ..sweep.analysis import Action, Bound, Check, Gate, Rate, Sweep
from ..sweep.compare import Comparison
from .numbers import at_least, at_most, confidence, p_words, plain_number, point_words, share

UNKNOWN_LISTED = 10  # question ids a "label first" decision names in its line (the summary lists them all)

FIELD_AT_MOST = 300  # characters of one piece of page text or a name (a title, a URL, an option) in a summary


def cell_words(result: Sweep, cell: tuple[int, int]) -> str:
    """'(0.3, 0.9)': HAS_ANSWER_CUTOFF, ANSWER_CUTOFF, as the axes write them."""
    return f"({result.h_axis.text(cell[0])}, {result.a_axis.text(cell[1])})"


def _check_words(check: Check) -> str:
    if check.bound is Bound.MAX_WRONG:
        text = f"wrong {check.found} <= {check.limit}"
    elif check.bound is Bound.MIN_CORRECT:
        text = f"correct {check.found} >= {check.limit}"
    else:
        text = f"wrong-answer rate <= {check.limit:g} certified with probability >= {1 - (check.delta or 0):g}"
    return f"{text} {'holds' if check.holds else 'BROKEN'}"


def gate_words(result: Sweep, gate: Gate) -> str:
    """'PASS at (0.3, 0.9): wrong 0 <= 0 holds': the verdict, the point, and each check (counts are the worst
    repeat's, said so when there are several)."""
    counted = any(check.bound is not Bound.CERTIFIED for check in gate.checks)
    worst = " (the worst of the repeats)" if gate.worst_of > 1 and counted else ""
    checks = ", ".join(_check_words(check) for check in gate.checks)
    return f"{'PASS' if gate.holds else 'FAIL'} at {point_words(result.system.axes, gate.point)}{worst}: {checks}"


def tally_words(comparison: Comparison) -> str:
    """'NEW_WRONG 1, NEW_MISSED 0, FIXED 2, REVIEW 0, UNCHANGED 7'."""
    return ", ".join(f"{kind.value} {count}" for kind, count in comparison.tally().items())


def comparison_verdict_words(comparison: Comparison) -> str:
    """The sign test against the baseline and what the exit status follows, in words."""
    test = (f"{comparison.worse_questions} worse against {comparison.better_questions} fixed, one-sided exact sign "
            f"test {p_words(comparison.p_value)}")
    if comparison.strict:
        return f"{test}; --strict: {'FAIL' if comparison.worse else 'PASS'} (any question that got worse fails)"
    if comparison.worse:
        return f"{test} < {comparison.significance:g}: WORSE, more than pipeline noise would explain"
    return f"{test} >= {comparison.significance:g}: not worse beyond what pipeline noise explains"


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


def shipped_words(result: Sweep) -> str:
    """'(0.3, 0.9)': the shipped point, as the axes write it."""
    decision = result.decision
    if decision.cell is not None:
        return cell_words(result, decision.cell)
    return point_words(result.system.axes, decision.point)


def _shipped_axes(result: Sweep) -> str:
    first, second = result.system.axes
    x, y = result.decision.point
    return f"that is {first.title} {first.shown(x)} and {second.title} {second.shown(y)}"


def _guarantee_line(result: Sweep) -> str:
    decision, g = result.decision, result.guarantee
    sure = confidence(g.delta)
    where = shipped_words(result)
    if decision.bound is None:
        return f"No bound on the wrong-answer rate at {where} can be claimed: {g.unavailable}."
    if decision.bound_kind == "certified":
        return (f"Guaranteed: with probability at least {sure}, the wrong-answer rate at {where} is at most "
                f"{at_most(decision.bound)} of {rate_subject(result)} (wrong or unjudged quotes), if "
                f"{assumption_words(result)}; the same holds at every certified cell at once.")
    opening = "Not certified. With" if g.certificate is not None else "With"
    if decision.bound_kind == "default":
        return (f"{opening} probability at least {sure}, the wrong-answer rate at the default {where} is at most "
                f"{at_most(decision.bound)} of {rate_subject(result)} (its own bound, the point being fixed before "
                f"looking), if {assumption_words(result)}.")
    return (f"{opening} probability at least {sure}, the wrong-answer rate at {where} is at most "
            f"{at_most(decision.bound)} of {rate_subject(result)} (Bonferroni over the grid's {g.cells} cells, as the "
            f"cell was chosen after looking), if {assumption_words(result)}.")


def gain_words(result: Sweep) -> str:
    """The tuning's gain over the default on questions it did not choose on, in one sentence."""
    cv = result.cross_validation
    settings = result.system.settings
    if cv is None:
        return (f"Out of sample: not tested (`--folds 0`), so no gain from tuning the {settings} can be shown and "
                "the decision does not move on it.")
    test = cv.test
    if test.interval is None:
        gained = "0" if test.mean == 0 else f"{test.mean:+.3g}"
        return (f"Out of sample: tuning the {settings} gains exactly {gained} over the default in each of "
                f"the {cv.repetitions} x {cv.k} folds (the rule's choices score alike on the questions they left "
                "out), which leaves a t-test nothing to judge by: no gain is shown.")
    low, high = test.interval
    shown = "shown" if test.shown else "not shown"
    return (f"Out of sample: choosing the {settings} by the rule gains {test.mean:+.3f} score per question over the "
            f"default on questions it did not choose on (95% interval [{low:+.3f}, {high:+.3f}]); {shown} at "
            f"{share(test.level)}, one-sided {p_words(test.p_value)} (corrected repeated cross-validation t-test, "
            f"{cv.repetitions} x {cv.k} folds).")


def _in_sample(result: Sweep) -> str:
    """The rule's pick on all the questions against the default, in sample (never a reason to move on its own)."""
    d = result.default
    default = point_words(result.system.axes, (d.h, d.a))
    if result.choice.is_default:
        return (f"In sample, the rule keeps the default {default}: no cell beats it by more than one paired "
                "standard error.")
    tuned, base = result.score(result.tuned), result.score(d)
    return (f"In sample, the rule picks {cell_words(result, result.choice.cell)}: score "
            f"{plain_number(round(tuned, 4))} against {plain_number(round(base, 4))} at the default {default} "
            f"({tuned - base:+.4g}) on the very questions it was picked on.")


def _action_line(result: Sweep) -> str:
    decision, g = result.decision, result.guarantee
    certificate = g.certificate
    where, axes = shipped_words(result), _shipped_axes(result)
    d = result.default
    default = point_words(result.system.axes, (d.h, d.a))
    action = decision.action
    if action is Action.LABEL_FIRST:
        ids = [result.questions[n].id for n in decision.unknown]
        named = ", ".join(ids[:UNKNOWN_LISTED]) + (f" and {len(ids) - UNKNOWN_LISTED} more" if len(ids) >
                                                    UNKNOWN_LISTED else "")
        why = ("under --answerable-share every question's label sets the weights" if result.settings.answerable_share
               is not None else "counted all right, or all wrong, their quotes change the decision")
        return (f"LABEL FIRST: {len(ids)} question(s) have quotes nobody has judged, and {why}: {named}. Label them "
                f"(`sweep.py RUN --review`) and sweep again; until then keep the default {default}.")
    if action is Action.NOTHING_CERTIFIED:
        assert certificate is not None
        rate = at_most(certificate.alpha)
        if g.unavailable:
            return f"NOTHING CERTIFIED at a wrong-answer rate of at most {rate}: {g.unavailable}. Keep the default."
        if g.needed is not None and g.n < g.needed:
            why = (f"with {g.n} questions no cell could be certified below {at_most(g.best_case)} even with no wrong "
                   f"quote at all; {rate} needs at least {g.needed} questions, none of them quoted wrong at the "
                   "certified cell")
        else:
            why = (f"the smallest rate any cell is certified at with these {g.n} questions is "
                   f"{at_most(g.smallest)}: the wrong quotes at every cell are too many for {rate}")
        return (f"NOTHING CERTIFIED at a wrong-answer rate of at most {rate} with probability at least "
                f"{confidence(g.delta)}: {why}. Keep the default {default}.")
    if action is Action.MOVE_FOR_SAFETY:
        assert certificate is not None
        return (f"MOVE FOR SAFETY to {where}, {axes}: the default {default} is not certified at a wrong-answer rate "
                f"of at most {at_most(certificate.alpha)}, and {where} is (chosen among the "
                f"{int(certificate.certified.sum())} certified cells).")
    if action is Action.MOVE:
        among = (f", chosen among the {int(certificate.certified.sum())} cells certified at a wrong-answer rate of "
                 f"at most {at_most(certificate.alpha)}" if certificate is not None else "")
        return (f"MOVE to {where}, {axes}: tuning's gain over the default {default} is shown on questions the rule "
                f"did not choose on{among}.")
    certified = (f", certified at a wrong-answer rate of at most {at_most(certificate.alpha)}"
                 if certificate is not None and decision.certified else "")
    if decision.choice.is_default:
        return (f"KEEP the default {where}, {axes}{certified}: the rule itself keeps it (no cell beats it by more "
                "than one paired standard error on these questions).")
    return f"KEEP the default {where}, {axes}{certified}: no gain from tuning is shown on questions the rule did " \
        "not choose on."


def decision_lines(result: Sweep) -> list[str]:
    """The decision in plain words (no Markdown), most important first: the action and the point, what is
    guaranteed there, the outcomes to expect, the gain over the default out of sample, the rule's pick in sample."""
    rates = "; ".join(f"{rate.name} {interval_words(rate)}" for rate in result.rates(result.recommended))
    return [_action_line(result), _guarantee_line(result),
            f"Expected there: {rates} (95% Wilson intervals).", gain_words(result), _in_sample(result)]


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
    elif decision.bound_kind == "default":
        means = (f"with probability at least {confidence(g.delta)}, at most this share of {rate_subject(result)} get "
                 f"a wrong (or unjudged) quote at the default (its own bound, fixed before looking), "
                 f"if {assumption_words(result)}")
    else:
        means = (f"with probability at least {confidence(g.delta)}, at most this share of {rate_subject(result)} get "
                 f"a wrong (or unjudged) quote at the recommended cell (Bonferroni over the grid's {g.cells} cells, "
                 f"valid for a cell chosen after looking), if {assumption_words(result)}")
    cv = result.cross_validation
    gain = None if cv is None else {
        "estimate": cv.test.mean,  # score per question over the default, on questions the rule did not choose on
        "interval": None if cv.test.interval is None else list(cv.test.interval),  # two-sided 95%
        "p_value": cv.test.p_value,  # one-sided, of no gain
        "level": cv.test.level,
        "shown": cv.test.shown,
        "test": f"corrected repeated cross-validation t-test, {cv.repetitions} x {cv.k} folds",
    }
    return {
        "action": decision.action.value,  # keep, move, move_for_safety, nothing_certified, label_first
        "axes": [spec.heading for spec in result.system.axes],  # what each point below lists, in order
        "recommended": written(result, decision.point),  # what to ship: the default unless the action moves
        "tuned": cell(decision.tuned),  # the rule's pick on all the questions (shipped only by a move)
        "gain": gain,
        "unjudged_questions": [result.questions[n].id for n in decision.unknown],  # with label_first
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
    described = result.system.described(pipeline)
    return (f"system {config.system}, pipeline {pipeline.name} ({described + '; ' if described else ''}digest "
            f"{config.pipeline_digest[:12]}; every value in run.json)")


def options_words(given: Sequence[str]) -> str:
    """The options a command was given that change what it says (a project configuration's among them, as `from
    FILE: ...`), each in a code span, or that there were none: every summary's "Options given"."""
    if not given:
        return "none (every default)"
    return ", ".join(markdown_code(option, at_most=FIELD_AT_MOST) for option in given)
