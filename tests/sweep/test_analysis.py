"""The sweep's analysis: repeats averaged cell by cell, flaky questions, and the CI gate at a point."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from conftest import decided, judged_curve, random_repeats, replayed_of
from quotefinder.questions import Outcome
from quotefinder.report.wording import gate_words
from quotefinder.sweep.analysis import EXAMPLE_RATE, Action, Bound, Settings, analyse
from quotefinder.sweep.grid import Table, parse_axis
from quotefinder.sweep.guarantee import best_case_alpha, upper_bound


def test_analyse_averages_repeats_and_finds_flaky_questions(tmp_path: Path) -> None:
    runs = random_repeats(3, questions=10, repeats=3)
    replayed = replayed_of(runs, tmp_path)
    axis = parse_axis("0:1:0.1")
    result = analyse(replayed, axis, axis, Settings(folds=0))
    per_repeat = [Table.of([judged_curve(q, t) for q, t in run], axis.values).counts(axis.values) for run in runs]
    assert np.allclose(result.counts, np.mean(per_repeat, axis=0))
    h, a = result.recommended.h, result.recommended.a
    quotes = [[d.quote.candidate.sentence if d.quote else None for d, _ in decided(run, h, a)] for run in runs]
    flaky = {f.question.id for f in result.flaky()}
    assert flaky == {runs[0][n][0].id for n in range(10) if len({found[n] for found in quotes}) > 1}
    assert flaky  # these random repeats do disagree somewhere


def test_the_gate_holds_only_if_every_repeat_holds(tmp_path: Path) -> None:
    runs = random_repeats(5, questions=12, repeats=3)
    axis = parse_axis("0:1:0.1")
    result = analyse(replayed_of(runs, tmp_path), axis, axis, Settings(folds=0))
    wrong = [sum(1 for _, o in decided(run, 0.3, 0.6) if o is Outcome.WRONG) for run in runs]
    assert len(set(wrong)) > 1  # the repeats disagree, so the worst one must decide
    assert result.gate((0.3, 0.6), max(wrong), None).holds
    assert not result.gate((0.3, 0.6), max(wrong) - 1, None).holds
    gate = result.gate((0.3, 0.6), max(wrong), None)
    assert gate.worst_of == len(wrong) and [(c.bound, c.found, c.holds) for c in gate.checks] == [
        (Bound.MAX_WRONG, max(wrong), True)]
    assert "the worst of the repeats" in gate_words(result, gate)


def test_with_a_certificate_the_recommended_cell_is_certified_and_the_rules_choice_among_them(tmp_path: Path) -> None:
    axis = parse_axis("0:1:0.1")
    seen_certified = seen_moved = 0
    for seed in range(12):
        replayed = replayed_of(random_repeats(seed, questions=40, repeats=1), tmp_path)
        free = analyse(replayed, axis, axis, Settings(folds=0))
        for alpha in (0.15, 0.3, 0.5):
            result = analyse(replayed, axis, axis, Settings(folds=0, max_wrong_rate=alpha))
            certified = result.guarantee.certificate.certified
            decision = result.decision
            assert decision.score_only.cell == free.choice.cell  # the score-only rule is unchanged
            assert (result.recommended.h, result.recommended.a) == decision.point
            default = (3, 6)  # (0.3, 0.6)
            if decision.unknown:  # a quote at the default or the rule's cell has no verdict: nothing else decides
                assert decision.action is Action.LABEL_FIRST and decision.cell == default
                continue
            if certified.any():
                seen_certified += 1
                assert certified[decision.tuned]  # the rule chooses among the certified cells
                # without --folds nothing moves on a gain: a certified default is kept, one that is not is left
                expected = Action.KEEP if certified[default] else Action.MOVE_FOR_SAFETY
                assert decision.action is expected
                assert decision.cell == (default if expected is Action.KEEP else decision.tuned)
                assert decision.certified and certified[decision.cell]
                assert decision.bound == alpha and decision.bound_kind == "certified"
                best = np.where(certified, result.scores, -np.inf)
                assert result.scores[decision.best_certified] == pytest.approx(best.max())
                assert result.gate(decision.point, None, None).holds  # `--at` the cell passes the certificate
                seen_moved += decision.cell != free.choice.cell
            else:
                assert decision.action is Action.NOTHING_CERTIFIED and decision.cell == default
                assert decision.certified is False and decision.tuned == free.choice.cell
                assert decision.best_certified is None and decision.bound_kind == "default"
    assert seen_certified > 5 and seen_moved > 0  # the cases the test is about do occur


@pytest.mark.slow
def test_repeats_certify_exactly_what_the_first_repeat_alone_does(tmp_path: Path) -> None:
    """The guarantee uses each question's first repeat (a served answer fixed in advance): three repeats
    certify the same cells as the first alone, never fewer (Hoeffding-Bentkus on per-question means, used
    before, certified fewer), and when the repeats agree, exactly what one repeat does."""
    axis = parse_axis("0:1:0.1")
    fewer_before = 0
    for seed in range(8):
        runs = random_repeats(seed, questions=60, repeats=3)
        settings = Settings(folds=0, max_wrong_rate=0.4)
        three = analyse(replayed_of(runs, tmp_path), axis, axis, settings).guarantee.certificate.certified
        one = analyse(replayed_of(runs[:1], tmp_path), axis, axis, settings).guarantee.certificate.certified
        agreeing = analyse(replayed_of([runs[0]] * 3, tmp_path), axis, axis, settings).guarantee.certificate.certified
        assert np.array_equal(three, one) and np.array_equal(agreeing, one)
        from quotefinder.sweep.analysis import loss_totals
        from quotefinder.sweep.guarantee import certify

        tables = [Table.of([judged_curve(q, t) for q, t in run], axis.values) for run in runs]
        averaged = certify(loss_totals(tables, axis.values), 60, 3, 0.4).certified  # the former method
        fewer_before += int(averaged.sum() < one.sum())
    assert fewer_before > 0


def test_a_production_mix_guarantee_is_refused_while_questions_are_unlabelled(tmp_path: Path) -> None:
    runs = random_repeats(2, questions=30, repeats=1)
    runs = [[(dataclasses.replace(q, expect=None) if n == 0 else q, t) for n, (q, t) in enumerate(run)] for run in runs]
    axis = parse_axis("0:1:0.1")
    result = analyse(replayed_of(runs, tmp_path), axis, axis,
                     Settings(folds=0, max_wrong_rate=0.9, answerable_share=0.5))
    assert not result.guarantee.certificate.any
    assert "1 question(s) have no `expect` label" in result.guarantee.unavailable
    assert result.decision.certified is False
    assert result.decision.bound is None and result.decision.bound_kind == "none"  # nothing is claimed
    # ... and with a mix, every unlabelled question needs its label, quoted on the grid or not
    assert runs[0][0][0].id in {item.question.id for item in result.labels_needed}


def test_the_costs_table_follows_the_decisions_rule(tmp_path: Path) -> None:
    """With a certificate, the recommendation at each cost of a wrong quote is chosen among the certified cells
    too (certification does not depend on the cost), so the row of the sweep's own cost is the decision."""
    axis = parse_axis("0:1:0.1")
    checked = 0
    for seed in range(8):
        replayed = replayed_of(random_repeats(seed, questions=40, repeats=1), tmp_path)
        result = analyse(replayed, axis, axis, Settings(folds=0, max_wrong_rate=0.3))
        own = next(c for c in result.costs if c.cost == result.wrong_cost)
        assert own.choice.cell == result.decision.tuned
        if result.guarantee.certificate.any:
            checked += 1
            assert all(result.guarantee.certificate.certified[c.choice.cell] for c in result.costs)
    assert checked


@pytest.mark.parametrize("seed", range(4))
def test_the_guarantee_counts_the_default_point_s_wrong_and_unjudged_quotes_in_the_first_repeat(tmp_path: Path,
                                                                                                 seed: int) -> None:
    """The guarantee's count at the default point (`default_total`, which the summary prints as "N wrong or
    unjudged quote(s) in the first repeat"), and with a production mix each class's count in the default bound:
    the first repeat's decisions there, counted one by one (a quote judged wrong, unjudged or unlabelled; never the
    no-answer line, nor a later repeat)."""
    runs = random_repeats(seed, questions=40, repeats=2)
    axis = parse_axis("0:1:0.1")
    lossy = {Outcome.WRONG, Outcome.UNJUDGED, Outcome.UNLABELLED}

    def lost(run: list, expect: set) -> int:
        return sum(1 for (q, _), (d, o) in zip(run, decided(run, 0.3, 0.6), strict=True)
                   if d.quote is not None and o in lossy and q.expect in expect)

    unlabelled = [[(dataclasses.replace(q, expect=None) if n % 4 == 0 else q, t) for n, (q, t) in enumerate(run)]
                  for run in runs]  # an unquoted one is unlabelled too, and no loss
    assert any(o is Outcome.UNLABELLED and d.quote is None for d, o in decided(unlabelled[0], 0.3, 0.6))
    result = analyse(replayed_of(unlabelled, tmp_path), axis, axis, Settings(folds=0))
    assert result.guarantee.default_total == lost(unlabelled[0], {"answer", "no-answer", None}) > 0
    mixed = analyse(replayed_of(runs, tmp_path), axis, axis, Settings(folds=0, answerable_share=0.5))
    answerable, unanswerable = lost(runs[0], {"answer"}), lost(runs[0], {"no-answer"})
    n_answer = sum(q.expect == "answer" for q, _ in runs[0])
    n_none = sum(q.expect == "no-answer" for q, _ in runs[0])
    assert mixed.guarantee.default_total == lost(runs[0], {"answer", "no-answer", None})
    delta = mixed.guarantee.delta
    assert mixed.guarantee.default_bound == pytest.approx(0.5 * upper_bound(answerable, n_answer, 1, delta / 2)
                                                          + 0.5 * upper_bound(unanswerable, n_none, 1, delta / 2))


def test_the_result_is_frozen_and_prices_the_example_rate_in_questions(tmp_path: Path) -> None:
    """Nothing changes a sweep after `analyse` builds it; the guarantee's priced example is the fewest questions
    whose flawless grid certifies EXAMPLE_RATE (checked against the best case of one fewer)."""
    runs = random_repeats(4, questions=12, repeats=2)
    axis = parse_axis("0:1:0.1")
    result = analyse(replayed_of(runs, tmp_path), axis, axis, Settings(folds=0))
    for target, name in ((result, "rule"), (result.default, "h"), (result.guarantee, "needed"),
                         (result.decision, "bound_kind")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(target, name, None)
    g = result.guarantee
    assert g.example_needed is not None and g.example_needed > g.n
    assert best_case_alpha(g.example_needed, g.rows, g.delta) <= EXAMPLE_RATE
    assert best_case_alpha(g.example_needed - 1, g.rows, g.delta) > EXAMPLE_RATE


@pytest.mark.parametrize("share", [None, 0.5])
def test_every_cell_s_bound_is_its_own_total_s_bound(tmp_path: Path, share) -> None:
    """`bounds` (every cell at once) against each cell bounded on its own (`bound_at`), at the certificate's level."""
    runs = random_repeats(9, questions=30, repeats=1)
    axis = parse_axis("0:1:0.1")
    g = analyse(replayed_of(runs, tmp_path), axis, axis, Settings(folds=0, answerable_share=share)).guarantee
    level = g.delta / g.rows
    expected = [[g.bound_at((i, j), level) for j in range(g.totals.shape[1])] for i in range(g.totals.shape[0])]
    assert np.array_equal(g.bounds, expected) and len(np.unique(g.bounds)) > 3
