"""`sweep.systems`: the cross-validated scores are a direct loop over the folds, comparable runs only, and the
p-value holds its level.

The simulations: equally good systems are two independent recordings of random quote-finder traces
(`random_repeats`' two repeats, the same labels), swept and compared through the real rule and real folds;
a genuinely better one quotes an accepted sentence on the answer questions and nothing on the no-answer
ones. A sweep pair costs ~30 ms, so the tests run 200 draws (Monte-Carlo s.e. 1.5% at 5%, a bound is the level
plus three of them); the module's docstring gives the rates measured offline with more draws (1,500 at 40
questions). The direction argument (choose the best, then test one-sided: twice the level) is shown on 4,000
draws of i.i.d. per-question scores, where a t-test is exact.
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scipy_stats

from conftest import Item, random_repeats, replayed_of
from quotefinder.core.errors import InputError
from quotefinder.questions import Outcome, Question
from quotefinder.sweep import stats
from quotefinder.sweep.analysis import Settings, Sweep, analyse
from quotefinder.sweep.grid import parse_axis
from quotefinder.sweep.systems import check_same_questions, compare_systems, mcnemar, paired, pairs_of

AXIS = parse_axis("0:1:0.1")
QUICK = Settings(folds=0)


def mc_error(level: float, draws: int) -> float:
    return float(np.sqrt(level * (1 - level) / draws))


def sweep_of(run: list[Item], name: str, settings: Settings = QUICK, evidence: str = "synthetic") -> Sweep:
    return analyse(replayed_of([run], Path(name), evidence=evidence), AXIS, AXIS, settings)


def better(run: list[Item]) -> list[Item]:
    """The same questions answered by a better system: every candidate of an answer question is an accepted
    sentence, and a no-answer question finds no candidate."""
    improved = []
    for question, trace in run:
        if question.expect == "answer" and question.accept:
            digit = question.accept[0][3]  # r"\bsK\b"
            trace = dataclasses.replace(trace, candidates=[dataclasses.replace(c, sentence=f"{question.id} sentence "
                                                                                             f"s{digit}")
                                                           for c in trace.candidates])
        elif question.expect == "no-answer":
            trace = dataclasses.replace(trace, candidates=[], compares={})
        improved.append((question, trace))
    return improved


# ---- the cross-validated scores ---------------------------------------------------------------------------

def test_the_cv_scores_are_a_direct_loop_over_the_folds_calling_the_rule() -> None:
    runs = random_repeats(7, questions=30, repeats=2)
    a = sweep_of(runs[0], "a")
    shuffled = runs[1][:]
    random.Random(1).shuffle(shuffled)  # another file order: aligned by question text
    b = sweep_of(shuffled, "b")
    found = compare_systems([a, b], ["runs/a", "runs/b"], folds=5, seed=3)
    texts = [q.question for q in a.questions]
    assert [q.question for q in found.questions] == texts
    fold_of = np.array([stats.folds([q.expect for q in a.questions], 5, 3 * 10 + i) for i in range(10)])
    assert np.array_equal(found.fold_of, fold_of) and found.repetitions == 10 and found.k == 5
    assert len({tuple(row) for row in fold_of}) == 10  # each repetition its own folds
    for sweep, system in zip((a, b), found.systems, strict=True):
        where = {q.question: i for i, q in enumerate(sweep.questions)}
        expected = np.zeros((10, len(texts)))
        for repetition in range(10):
            for fold in range(5):
                counts = np.ones(len(texts))
                for k, text in enumerate(texts):
                    if fold_of[repetition, k] == fold:
                        counts[where[text]] = 0
                assert sweep.rule is not None
                cell = sweep.rule(counts).cell
                assert system.fold_cells[repetition][fold] == cell
                scores = sweep.model.per_question(*cell)
                for k, text in enumerate(texts):
                    if fold_of[repetition, k] == fold:
                        expected[repetition, k] = scores[where[text]]
        assert np.array_equal(system.cv_runs, expected)
        assert np.allclose(system.cv, expected.mean(axis=0))
        assert system.cv_score == pytest.approx(expected.mean())
        assert system.score == pytest.approx(sweep.score(sweep.recommended))  # what its decision ships
        assert system.cell == sweep.decision.marked
        assert system.outcomes == tuple(sweep.recommended.first[where[t]].outcome for t in texts)
        assert system.counts[Outcome.CORRECT] == sweep.recommended.mean(Outcome.CORRECT)
    assert found.top == int(np.argmax([s.cv_score for s in found.systems]))
    best = found.best
    other = 1 - best
    difference = found.differences[other]
    assert found.differences[best] is None and difference is not None
    d = found.systems[best].cv - found.systems[other].cv
    assert difference.mean == pytest.approx(d.mean())
    assert difference.standard_error == pytest.approx(scipy_stats.sem(d))


def test_the_test_is_the_corrected_resampled_t_test_over_the_fold_means() -> None:
    rng = np.random.default_rng(0)
    fold_of = stats.folds(["answer"] * 40, 5, 0)
    best, other = rng.normal(0.3, 1, 40), rng.normal(0, 1, 40)
    found = paired(best, other, fold_of, pairs=3)
    means = np.array([(best - other)[fold_of == f].mean() for f in range(5)])
    error = np.sqrt((1 / 5 + 1 / 4) * means.var(ddof=1))
    p_two = 2 * scipy_stats.t.sf(abs(means.mean()) / error, 4)
    assert found.test_standard_error == pytest.approx(error)
    assert found.p_two_sided == pytest.approx(p_two)
    assert found.p_value == pytest.approx(min(1, 3 * p_two))
    assert pairs_of(2) == 1 and pairs_of(3) == 3 and pairs_of(4) == 6


def test_the_same_pipeline_re_recorded_is_indistinguishable_with_p_1() -> None:
    run = random_repeats(11, questions=25, repeats=1)[0]
    found = compare_systems([sweep_of(run, "a"), sweep_of(run, "b")], ["runs/a", "runs/b"])
    assert found.best == 0  # ties: the first given
    difference = found.differences[1]
    assert difference is not None
    assert difference.identical and difference.p_value == 1 and difference.mean == 0
    assert difference.verdict == "identical" and not difference.better


def test_three_systems_get_the_bonferroni_factor_and_mcnemar_at_certified_points() -> None:
    runs = random_repeats(4, questions=40, repeats=3)
    settings = Settings(folds=0, max_wrong_rate=0.5)
    sweeps = [sweep_of(runs[0], "a", settings), sweep_of(better(runs[1]), "b", settings),
              sweep_of(runs[2], "c", settings)]
    found = compare_systems(sweeps, ["a", "b", "c"])
    assert found.pairs == 3 and found.certificate
    for system, difference in found.others():
        assert difference.p_value == pytest.approx(min(1, 3 * difference.p_two_sided))
        chosen = found.chosen
        if chosen.certified and system.certified:
            assert difference.mcnemar is not None
            b = sum(x is Outcome.CORRECT and y is not Outcome.CORRECT for x, y in zip(chosen.outcomes,
                                                                                  system.outcomes, strict=True))
            c = sum(y is Outcome.CORRECT and x is not Outcome.CORRECT for x, y in zip(chosen.outcomes,
                                                                                  system.outcomes, strict=True))
            assert (difference.mcnemar.best_only, difference.mcnemar.other_only) == (b, c)
        else:
            assert difference.mcnemar is None
    for system in found.systems:
        assert system.certified_correct == (sum(o is Outcome.CORRECT for o in system.outcomes)
                                            if system.certified else None)


def test_mcnemar_is_scipys_exact_binomial_test() -> None:
    best = np.array([True] * 7 + [False] * 2 + [True] * 5)
    other = np.array([False] * 7 + [True] * 2 + [True] * 5)
    found = mcnemar(best, other)
    assert (found.best_only, found.other_only) == (7, 2)
    assert found.p_value == pytest.approx(scipy_stats.binomtest(7, 9, 0.5).pvalue)
    assert mcnemar(best, best).p_value == 1


# ---- refusals ---------------------------------------------------------------------------------------------

def test_a_different_question_set_is_refused_naming_the_difference() -> None:
    runs = random_repeats(2, questions=12, repeats=2)
    a = sweep_of(runs[0], "a")
    fewer = sweep_of(runs[1][:10], "b")
    with pytest.raises(InputError, match=r"runs/b: 2 question\(s\) differ from runs/a's .*'question 1[01]'.*same "
                                         "question file"):
        check_same_questions([a, fewer], ["runs/a", "runs/b"])
    question, trace = runs[1][0]
    relabelled = [(dataclasses.replace(question, expect="no-answer", accept=()), trace), *runs[1][1:]]
    with pytest.raises(InputError, match=r"labelled differently.*'question 0'.*expect 'no-answer'"):
        compare_systems([a, sweep_of(relabelled, "b")], ["runs/a", "runs/b"])


def test_live_and_synthetic_evidence_are_never_compared() -> None:
    runs = random_repeats(2, questions=12, repeats=2)
    with pytest.raises(InputError, match="runs/b holds live evidence and runs/a synthetic evidence"):
        compare_systems([sweep_of(runs[0], "a"), sweep_of(runs[1], "b", evidence="live")], ["runs/a", "runs/b"])


def test_fewer_than_two_runs_or_another_objective_is_refused() -> None:
    runs = random_repeats(2, questions=12, repeats=2)
    with pytest.raises(InputError, match="at least two runs"):
        check_same_questions([sweep_of(runs[0], "a")], ["a"])
    priced = sweep_of(runs[1], "b", Settings(folds=0, wrong_cost=5))
    with pytest.raises(InputError, match="--wrong-cost"):
        check_same_questions([sweep_of(runs[0], "a"), priced], ["a", "b"])


# ---- the level and the power ------------------------------------------------------------------------------

@pytest.mark.slow
def test_choosing_the_best_then_testing_one_sided_rejects_twice_the_level() -> None:
    """4,000 draws of two equally good systems' i.i.d. per-question scores (40 questions; the t-test is exact
    here): the two-sided paired t-test after choosing the best rejects 5% (s.e. 0.34%), the one-sided test in
    the chosen direction 10%."""
    rng = np.random.default_rng(20)
    draws, n = 4000, 40
    two = one = 0
    for _ in range(draws):
        a, b = rng.normal(0, 1, n), rng.normal(0, 1, n)
        best, other = (a, b) if a.mean() >= b.mean() else (b, a)
        two += scipy_stats.ttest_rel(best, other).pvalue < 0.05
        one += scipy_stats.ttest_rel(best, other, alternative="greater").pvalue < 0.05
    error = mc_error(0.05, draws)
    assert abs(two / draws - 0.05) < 3 * error
    assert abs(one / draws - 0.10) < 3 * mc_error(0.10, draws)


@pytest.mark.slow
def test_equally_good_systems_are_called_better_at_most_at_the_level() -> None:
    """200 draws of two independent recordings of equally good systems (40 questions): p < 0.05 in at most
    5% + 3 s.e. (1.5%) of them; the per-question t-test's one-sided version in the chosen direction, which
    does not hold its level, rejects far more often."""
    draws, rejected, naive = 200, 0, 0
    for seed in range(draws):
        runs = random_repeats(10_000 + seed, questions=40, repeats=2)
        found = compare_systems([sweep_of(runs[0], "a"), sweep_of(runs[1], "b")], ["a", "b"], seed=seed)
        difference = found.differences[1 - found.best]
        assert difference is not None
        rejected += difference.p_value < 0.05
        best, other = found.chosen.cv, found.systems[1 - found.best].cv
        if np.any(best != other):
            naive += scipy_stats.ttest_rel(best, other, alternative="greater").pvalue < 0.05
    assert rejected / draws <= 0.05 + 3 * mc_error(0.05, draws)
    assert naive > 2 * rejected


@pytest.mark.slow
def test_a_genuinely_better_system_is_named_best_and_detected() -> None:
    """100 draws at 60 questions: the better system is named best in every draw and p < 0.05 in most."""
    draws, named, detected = 100, 0, 0
    for seed in range(draws):
        runs = random_repeats(20_000 + seed, questions=60, repeats=2)
        found = compare_systems([sweep_of(runs[0], "a"), sweep_of(better(runs[1]), "b")], ["a", "b"], seed=seed)
        named += found.best == 1
        difference = found.differences[0]
        detected += found.best == 1 and difference is not None and difference.better
    assert named == draws
    assert detected / draws > 0.5


def test_question_texts_align_whatever_the_file_order() -> None:
    runs = random_repeats(3, questions=15, repeats=1)
    reversed_run = list(reversed(runs[0]))
    found = compare_systems([sweep_of(runs[0], "a"), sweep_of(reversed_run, "b")], ["a", "b"])
    difference = found.differences[1]
    assert difference is not None and difference.identical
    assert isinstance(found.questions[0], Question)


def test_every_fold_differing_alike_falls_back_to_the_exact_sign_test() -> None:
    """Four questions, two folds, every difference 1: the fold means have no spread, so the t-test has nothing to
    stand on; the p-value is the exact sign test's (1/8), never 0."""
    found = paired(np.ones(4), np.zeros(4), np.array([0, 1, 0, 1]))
    assert found.p_value == pytest.approx(0.125) and not found.better


def test_questions_needed_is_the_noncentral_t_power_on_the_tests_degrees_of_freedom() -> None:
    """The n at which the test's t (growing as sqrt(n) on its fixed K - 1 = 4 degrees of freedom) reaches 80%
    power, computed directly with scipy's noncentral t: at `needed` questions the power is at least 80%, one
    question fewer it is below."""
    rng = np.random.default_rng(3)
    fold_of = stats.folds(["answer"] * 40, 5, 0)
    found = paired(rng.normal(0.25, 1, 40), rng.normal(0, 1, 40), fold_of)
    assert found.needed is not None and found.needed > 40
    t_now = found.mean_of_folds / found.test_standard_error
    critical = scipy_stats.t.ppf(1 - 0.05 / 2, 4)

    def power(n: int) -> float:
        return float(scipy_stats.nct.sf(critical, 4, t_now * np.sqrt(n / 40)))

    assert power(found.needed) >= 0.8 > power(found.needed - 1)


def test_a_certified_system_is_shipped_before_a_higher_scoring_one_that_is_not() -> None:
    """With --max-wrong-rate, as within one run: when one system's recommended cell is certified and another's
    is not, the certified one is named, even if the other scores higher, and the other's line says why."""
    run = random_repeats(8, questions=40, repeats=1)[0]
    settings = Settings(folds=0, max_wrong_rate=0.5)
    a, b = sweep_of(run, "a", settings), sweep_of(better(run), "b", settings)
    def certifying(sweep: Sweep, every: bool) -> Sweep:  # as if the certificate said so of every cell
        certificate = sweep.guarantee.certificate
        assert certificate is not None
        shaped = np.full(certificate.certified.shape, every)
        return dataclasses.replace(sweep, guarantee=dataclasses.replace(
            sweep.guarantee, certificate=dataclasses.replace(certificate, certified=shaped)))

    a, b = certifying(a, True), certifying(b, False)
    found = compare_systems([a, b], ["a", "b"])
    assert found.systems[1].cv_score > found.systems[0].cv_score  # b scores higher...
    assert found.chosen.name == "a"  # ...but a is the one with a certified cell
    difference = found.differences[1]
    assert difference is not None and difference.mean < 0
    from quotefinder.report.systems import ship_lines

    lines = ship_lines(found, code=str)
    assert lines[0].startswith("Ship a (pipeline") and "(certified)" in lines[0]
    assert "b score(s) higher cross-validated but have no certified cell" in lines[0]
    assert any("is not certified, so it is not the one to ship" in line for line in lines)


def costed(sweep: Sweep, responses: int, input_tokens: int = 0) -> Sweep:
    """`sweep` as if its run.json recorded `responses` requests and `input_tokens` over its questions."""
    sweep.replayed.record = dataclasses.replace(sweep.replayed.record, responses=responses, input_tokens=input_tokens)
    return sweep


def test_when_nothing_is_shown_the_cheaper_is_shipped_whatever_the_order() -> None:
    """Two equally good systems, nothing shown between them: the one whose recording cost fewer requests per
    question is shipped, given first or second; at equal cost, the incumbent (the first run given)."""
    runs = random_repeats(12, questions=30, repeats=2)
    a, b = costed(sweep_of(runs[0], "a"), 348 * 3, 9_000), costed(sweep_of(runs[1], "b"), 534 * 3, 6_000)
    for sweeps, names in (([a, b], ["a", "b"]), ([b, a], ["b", "a"])):
        found = compare_systems(sweeps, names)
        other = found.differences[1 - found.best]
        assert other is not None and not other.better and not other.identical
        assert found.chosen.name == "a" and found.kept_as == "cheaper"
        assert found.chosen.cost.requests == pytest.approx(348 * 3 / 30)
        assert found.chosen.cost.input_tokens == pytest.approx(300)
    assert {s.name for s in found.systems if s.cv_score > found.chosen.cv_score} == {"b"}  # not for its score
    costed(b, 348 * 3, 9_000)
    for sweeps, names in (([a, b], ["a", "b"]), ([b, a], ["b", "a"])):
        found = compare_systems(sweeps, names)
        assert found.chosen.name == names[0] and found.kept_as == "incumbent"
    costed(b, 348 * 3, 8_999)  # as many requests, fewer input tokens
    assert compare_systems([a, b], ["a", "b"]).chosen.name == "b"


def test_a_system_shown_better_is_shipped_however_dear() -> None:
    runs = random_repeats(21, questions=60, repeats=2)
    a, b = costed(sweep_of(runs[0], "a"), 60), costed(sweep_of(better(runs[1]), "b"), 600)
    found = compare_systems([a, b], ["a", "b"])
    difference = found.differences[0]
    assert difference is not None and difference.better
    assert found.chosen.name == "b" and found.kept_as == "better"

