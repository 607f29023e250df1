"""The recommendation rule, intervals, the score model, and the repeated cross-validation with its test, each held to a
slow reference built from the pipeline's own `decide` or to a direct computation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from conftest import decided, judged_curve, random_repeats, staircase
from quotefinder.core.errors import InputError
from quotefinder.questions import OUTCOMES, Outcome, Question
from quotefinder.recipe.decision import Candidate
from quotefinder.recipe.pipeline import Trace
from quotefinder.sweep.grid import CODE, Table, deepest_nearest, parse_axis, rectangle_sums, top_cell
from quotefinder.sweep.stats import (
    GainTest,
    ScoreModel,
    choose,
    cross_validate,
    dealing_seed,
    folds,
    outcome_scores,
    ratio_wilson,
    weighted_wilson,
    wilson,
)

AXIS = parse_axis("0:1:0.1")
H = A = AXIS.values
DEFAULT = (0.3, 0.6)


@pytest.mark.parametrize(("k", "n", "low", "high"), [
    (6, 10, 0.3127, 0.8318),
    (0, 10, 0.0, 0.2775),
    (10, 10, 0.7225, 1.0),
    (1, 7, 0.0257, 0.5131),
    (50, 100, 0.4038, 0.5962),
])
def test_wilson_matches_published_values(k: int, n: int, low: float, high: float) -> None:
    interval = wilson(k, n)
    assert interval is not None
    assert interval[0] == pytest.approx(low, abs=5e-5) and interval[1] == pytest.approx(high, abs=5e-5)


def test_wilson_without_trials_is_none() -> None:
    assert wilson(0, 0) is None
    assert weighted_wilson(np.zeros(3), np.zeros(3), np.ones(3))[2] is None


def test_weighted_wilson_is_wilson_on_the_effective_number_of_questions() -> None:
    successes = np.array([1, 0, 1, 1, 0.0])
    trials = np.ones(5)
    assert weighted_wilson(successes, trials, np.ones(5)) == (0.6, 5.0, wilson(3, 5))
    weights = np.array([2.0, 2.0, 0.5, 0.5, 0.5])
    proportion, effective, interval = weighted_wilson(successes, trials, weights)
    assert proportion == pytest.approx((2 + 0.5 + 0.5) / 5.5)
    assert effective == pytest.approx(5.5**2 / (4 + 4 + 0.75))  # Kish: (sum w)^2 / sum w^2
    assert interval == pytest.approx(wilson(proportion * effective, effective))
    repeats = np.array([2 / 3, 1.0, 0.0])  # fractional successes: a question's mean over its repeats
    assert weighted_wilson(repeats, np.ones(3), np.ones(3))[:2] == pytest.approx((5 / 9, 3.0))


def cell_scores(runs, wrong_cost: float = 2.0, weights=None) -> np.ndarray:
    """x_q(c) for every question and cell (Q, H, A): weight x mean over repeats of the outcome's value,
    straight from `decide`."""
    values = outcome_scores(wrong_cost)
    q = len(runs[0])
    weights = np.ones(q) if weights is None else weights
    found = np.zeros((q, len(H), len(A)))
    for i, hv in enumerate(H):
        for j, av in enumerate(A):
            for run in runs:
                found[:, i, j] += [values[CODE[o]] for _, o in decided(run, hv, av)]
    return found / len(runs) * weights[:, None, None]


def model_of(runs, wrong_cost: float = 2.0, weights=None) -> ScoreModel:
    tables = [Table.of([judged_curve(q, t) for q, t in run], H) for run in runs]
    return ScoreModel(tables, A, outcome_scores(wrong_cost), weights)


@pytest.mark.parametrize("seed", range(6))
def test_the_model_equals_a_slow_replay_for_any_counts_powers_and_weights(seed: int) -> None:
    runs = random_repeats(seed)
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 4, len(runs[0])).astype(float)
    weights = rng.uniform(0.2, 3, len(runs[0]))
    factor = rng.normal(size=len(runs[0]))
    model = model_of(runs, 1.5, weights)
    x = cell_scores(runs, 1.5, weights)
    assert np.allclose(model.grid(counts), np.einsum("q,qha->ha", counts, x), atol=1e-9)
    assert np.allclose(model.grid(counts, power=2), np.einsum("q,qha->ha", counts, x**2), atol=1e-9)
    assert np.allclose(model.grid(counts, factor=factor), np.einsum("q,qha->ha", counts * factor, x), atol=1e-9)
    assert np.allclose(model.per_question(3, 7), x[:, 3, 7])


@pytest.mark.parametrize("seed", range(6))
def test_the_model_s_float_sums_are_its_rectangles_added_one_by_one(seed: int) -> None:
    """With float weights, counts and factors the sums are not exact, and reports are compared byte for byte: each
    is the same floats as placing every (breakpoint, band) rectangle of the totals with its weight (the step of
    the band's total to the power there, times its question's count, factor and weight to the power) and
    summing them (`rectangle_sums`), whichever model (a `like` one too) and in whatever order they are asked."""
    runs = random_repeats(seed)
    rng = np.random.default_rng(200 + seed)
    q = len(runs[0])
    weights = rng.uniform(0.2, 3, q)
    model = model_of(runs, 1.5, weights)
    priced = ScoreModel(model.tables, A, outcome_scores(7.25), weights, like=model)
    assert len(model.totals) > 2  # several breakpoints
    for m in (model, priced, model):
        steps = len(m.totals)
        left = np.concatenate([np.zeros(len(m.lo), dtype=np.int64), m.sorted_starts.ravel()])
        for power in (2, 1):
            totals = m.totals**power
            increments = np.concatenate([totals[:1], np.diff(totals, axis=0)])
            for counts, factor in ((np.ones(q), None), (rng.uniform(0, 3, q), rng.normal(size=q))):
                scale = counts * (1.0 if factor is None else factor) * weights**power
                by_hand = rectangle_sums(np.tile(m.lo, steps), np.tile(m.hi, steps), left, None, 0,
                                         (len(H), len(A), 1), (increments * scale[m.owner]).ravel())[..., 0]
                assert np.array_equal(m.sums(counts, power, factor), by_hand)


def cell_totals(runs, wrong_cost: int = 2) -> np.ndarray:
    """T_q(c) for every question and cell (Q, H, A) in integers: the total over repeats of the outcome's value
    (an integer wrong cost), straight from `decide`."""
    values = outcome_scores(wrong_cost).astype(np.int64)
    found = np.zeros((len(runs[0]), len(H), len(A)), dtype=np.int64)
    for i, hv in enumerate(H):
        for j, av in enumerate(A):
            for run in runs:
                found[:, i, j] += [values[CODE[o]] for _, o in decided(run, hv, av)]
    return found


@pytest.mark.parametrize("seed", range(6))
def test_with_integer_scores_the_grid_sums_are_exact_whatever_the_order_of_the_additions(seed: int) -> None:
    """Reports are compared byte for byte, and a tie between two cells must not turn on rounding: with an integer
    wrong cost, integer weights, counts and factors, every sum is the exact integer (int64 arithmetic on the
    slow replay's totals), and the mean over R repeats is that integer divided by R^power once."""
    runs = random_repeats(seed)
    rng = np.random.default_rng(100 + seed)
    q = len(runs[0])
    counts = rng.integers(0, 4, q)
    weights = rng.integers(1, 4, q)
    factor = rng.integers(-3, 4, q)
    model = model_of(runs, 2.0, weights.astype(float))
    assert len(model.totals) > 2  # several breakpoints: the order of the additions is what is tested
    totals = cell_totals(runs)
    repeats = len(runs)
    for power in (1, 2):
        for f in (None, factor):
            exact = np.einsum("q,qha->ha", counts * (1 if f is None else f) * weights**power, totals**power)
            assert np.array_equal(model.sums(counts.astype(float), power, None if f is None else f.astype(float)),
                                  exact.astype(float))
            assert np.array_equal(model.grid(counts.astype(float), power, None if f is None else f.astype(float)),
                                  exact / repeats**power)


def slow_choose(x: np.ndarray, counts: np.ndarray, default=DEFAULT) -> tuple[tuple[int, int], np.ndarray, bool]:
    """The recommendation rule written out: the best cell; the cells scoring like it (the same score, or short
    of it by strictly less than one paired standard error, computed question by question), none scoring below
    the default; the default if inside, else the deepest (edge outside)."""
    scores = np.einsum("q,qha->ha", counts, x)
    best = top_cell(scores, H, A, default)
    keep = np.repeat(np.arange(len(counts)), counts.astype(int))  # each counted question, as often as counted
    d_cell = (int(np.argmin(abs(H - default[0]))), int(np.argmin(abs(A - default[1]))))
    region = np.zeros(scores.shape, dtype=bool)
    for i in range(len(H)):
        for j in range(len(A)):
            d = x[keep, best[0], best[1]] - x[keep, i, j]
            error = math.sqrt(len(d) * d.var(ddof=1)) if len(d) > 1 else 0.0
            alike = abs(d.sum()) <= 1e-9 or d.sum() < error - 1e-9
            region[i, j] = alike and scores[i, j] >= scores[d_cell] - 1e-9
    if region[d_cell]:
        return d_cell, region, True
    i, j, _ = deepest_nearest(region, H, A, default)
    return (i, j), region, False


@pytest.mark.parametrize("seed", range(8))
def test_the_recommendation_equals_the_rule_written_out(seed: int) -> None:
    runs = random_repeats(seed, questions=10, repeats=2)
    counts = np.random.default_rng(seed).integers(0, 3, 10).astype(float)
    counts[:2] = 1  # at least two questions
    got = choose(model_of(runs), counts, H, A, DEFAULT)
    cell, region, kept = slow_choose(cell_scores(runs), counts)
    assert got.cell == cell and np.array_equal(got.region, region) and got.is_default == kept


def step_runs(step_at: float, questions: int = 12) -> list[list[tuple[Question, Trace]]]:
    """Answer questions whose only candidate (has_answer 0.9) is a wrong sentence with compare probability
    just below `step_at`: quoted, and wrong, below that ANSWER_CUTOFF, missed from it up. The score steps up
    at `step_at` and stays flat to the edge."""
    run = []
    for n in range(questions):
        wrong = Candidate(1, "T", "u", None, 1, f"It is 999, says page {n}.", 0.5, 0.5, 0.9)
        trace = Trace(f"q{n}?", 0, [1], [wrong], {(1,): [step_at - 0.01]})
        run.append((Question(f"q{n}", f"q{n}?", "answer", ("206",)), trace))
    return [run]


def test_a_flat_region_that_runs_to_the_edge_does_not_pull_the_choice_to_the_edge() -> None:
    """Every question is quoted wrongly below ANSWER_CUTOFF 0.6 and missed from 0.6 up: the score steps at
    0.6 and is flat to 1.0. The choice sits inside the flat region, not at its far edge."""
    choice = choose(model_of(step_runs(0.6)), np.ones(12), H, A, (0.3, 0.4))
    assert not choice.is_default and A[choice.a_index] < 1.0 and A[choice.a_index] >= 0.6
    assert choice.region[:, 6:].all() and not choice.region[:10, :6].any()  # at HAS_ANSWER_CUTOFF 1 (row 10)
    assert choice.region[10].all()  # nothing qualifies (has_answer 0.9), so every question is missed there too
    assert choice.depth == 3 and A[choice.a_index] == 0.8  # three steps from 0.5 and from the edge


def test_one_question_s_difference_never_puts_a_cell_in_the_region() -> None:
    """One question of twelve is quoted, wrongly, below ANSWER_CUTOFF 0.6 and missed from 0.6 up; the others
    are never quoted. At C = 10 the cells below 0.6 score 10 less than the rest, on that one question: the
    paired standard error is then 10 too, and the cells are out of the region (the old rule, `<=`, let them
    in); nor does one question's lead keep a default below 0.6."""
    runs = step_runs(0.6)
    one_question = [[runs[0][0], *[(q, Trace(t.question, 0, [1], [], {})) for q, t in runs[0][1:]]]]
    model = model_of(one_question, wrong_cost=10.0)
    scores = model.grid(np.ones(12))
    assert scores[3, 5] == scores[3, 6] - 10  # one question: -10 against 0
    kept = choose(model, np.ones(12), H, A, DEFAULT)
    assert kept.is_default and kept.region[:10, 6:].all() and not kept.region[:10, :6].any()
    moved = choose(model, np.ones(12), H, A, (0.3, 0.4))  # a default below 0.6 trails the best by one question
    assert not moved.is_default and not moved.region[:10, :6].any() and A[moved.a_index] >= 0.6
    assert not choose(model_of(runs), np.ones(12), H, A, (0.3, 0.4)).is_default  # twelve questions do too


def quoted_below(step_at: float, n: int, right: bool) -> tuple[Question, Trace]:
    """An answer question whose one candidate (has_answer 0.9), right or wrong, is quoted below ANSWER_CUTOFF
    `step_at` (compare probability just under it) and missed from it up."""
    sentence = f"It is {206 if right else 999}, says page {n}."
    candidate = Candidate(1, "T", "u", None, 1, sentence, 0.5, 0.5, 0.9)
    return Question(f"q{n}", f"q{n}?", "answer", ("206",)), Trace(f"q{n}?", 0, [1], [candidate],
                                                                 {(1,): [step_at - 0.01]})


def test_no_cell_scoring_below_the_default_is_in_the_region() -> None:
    """At C = 10, quoted below ANSWER_CUTOFF 0.3: 13 right and 1 wrong (+3); below 0.6: 8 right and 1 wrong
    (-2). So a < 0.3 scores 1 (the best), 0.3 <= a < 0.6 scores -2 and the default (0.3, 0.6) 0. The cells
    at -2 differ from the best both ways and are within one paired standard error of it (the old rule's
    region), yet score below the default: they are out. Restricted to allowed cells that exclude the
    default, the best allowed cell is in the region whatever it scores."""
    run = [quoted_below(0.3, n, n > 0) for n in range(14)] + [quoted_below(0.6, n, n > 14) for n in range(14, 23)]
    model = model_of([run], wrong_cost=10.0)
    scores = model.grid(np.ones(23))
    assert (scores[:6, :3] == 1).all() and (scores[:6, 3:6] == -2).all() and (scores[:, 6:] == 0).all()
    x = cell_scores([run], wrong_cost=10.0)
    d = x[:, 3, 0] - x[:, 3, 4]
    assert 0 < d.sum() < math.sqrt(23 * d.var(ddof=1))  # within one standard error, on many questions
    choice = choose(model, np.ones(23), H, A, DEFAULT)
    assert choice.is_default and choice.region[:6, :3].all() and not choice.region[:6, 3:6].any()
    assert (scores[choice.region] >= scores[3, 6]).all()
    allowed = np.zeros((len(H), len(A)), dtype=bool)
    allowed[:6, 3:6] = True  # only cells scoring -2: the default may not be chosen
    restricted = choose(model, np.ones(23), H, A, DEFAULT, allowed)
    assert restricted.region[restricted.best] and allowed[restricted.cell] and scores[restricted.cell] == -2


def test_the_choice_can_be_restricted_to_allowed_cells() -> None:
    allowed = np.zeros((len(H), len(A)), dtype=bool)
    allowed[:, 9:] = True
    choice = choose(model_of(step_runs(0.6)), np.ones(12), H, A, DEFAULT, allowed)
    assert allowed[choice.cell] and choice.region[~allowed].sum() == 0


def test_a_score_that_is_not_a_number_is_an_error() -> None:
    weights = np.ones(12)
    weights[3] = np.nan
    with pytest.raises(InputError, match="not a number"):
        choose(model_of(step_runs(0.6), weights=weights), np.ones(12), H, A, DEFAULT)


@pytest.mark.parametrize(("labels", "k"), [
    (["answer"] * 13 + ["no-answer"] * 7, 4),
    (["answer", "answer", "no-answer"], 3),  # dealt label by label, each from its own start, a fold was empty
    (["no-answer", "answer", "answer", "answer", "no-answer"], 5),
    (["answer"] * 4 + ["no-answer"] * 4, 3),
])
def test_folds_are_dealt_round_robin_with_one_running_position(labels: list[str], k: int) -> None:
    for seed in range(10):
        assigned = folds(labels, k, seed)
        assert np.array_equal(assigned, folds(labels, k, seed))
        sizes = np.bincount(assigned, minlength=k)
        assert sizes.max() - sizes.min() <= 1 and (sizes > 0).all()
        for label in set(labels):
            inside = np.bincount(assigned[np.array(labels) == label], minlength=k)
            assert inside.max() - inside.min() <= 1


def test_cross_validation_equals_choosing_and_scoring_by_hand() -> None:
    """Every dealing into folds (the first with the seed itself, then `dealing_seed`'s), every fold chosen without
    it and scored against the default; the first dealing's choices, counts and gains kept for the table."""
    runs = random_repeats(11, questions=15, repeats=2)
    model = model_of(runs)
    x = cell_scores(runs)
    tables = [Table.of([judged_curve(q, t) for q, t in run], H) for run in runs]
    expect = [q.expect for q, _ in runs[0]]
    at_default = x[:, 3, 6]
    got = cross_validate(model, tables, expect, 3, H, A, DEFAULT, at_default, seed=4, repetitions=4)
    counts, gains = np.zeros(len(OUTCOMES)), np.zeros(15)
    fold_gains = np.zeros((4, 3))
    for repetition in range(4):
        assigned = folds(expect, 3, seed=4 if repetition == 0 else dealing_seed(4, repetition))
        for fold in range(3):
            held = assigned == fold
            pick, _, _ = slow_choose(x, (~held).astype(float))
            fold_gains[repetition, fold] = (x[:, pick[0], pick[1]] - at_default)[held].mean()
            if repetition:
                continue
            assert got.choices[fold] == pick
            gains[held] = (x[:, pick[0], pick[1]] - at_default)[held]
            for run in runs:
                for (_, outcome), keep in zip(decided(run, H[pick[0]], A[pick[1]]), held, strict=True):
                    if keep:
                        counts[CODE[outcome]] += 1 / len(runs)
    assert np.allclose(got.counts, counts) and np.allclose(got.per_question, gains)
    assert np.allclose(got.fold_gains, fold_gains)
    assert got.mean == pytest.approx(fold_gains.mean()) and (got.k, got.repetitions) == (3, 4)
    assert len({tuple(folds(expect, 3, dealing_seed(4, r))) for r in range(4)}) > 1  # the dealings differ


def test_the_cross_validation_re_runs_the_rule_it_is_given() -> None:
    """A rule (here: choose among the cells of ANSWER_CUTOFF >= 0.8 only) is what it re-runs, once per fold of
    every dealing, each time without the fold."""
    runs = random_repeats(11, questions=15, repeats=2)
    model = model_of(runs)
    tables = [Table.of([judged_curve(q, t) for q, t in run], H) for run in runs]
    allowed = np.zeros((len(H), len(A)), dtype=bool)
    allowed[:, 8:] = True
    calls = []

    def rule(counts: np.ndarray):
        calls.append(counts.copy())
        return choose(model, counts, H, A, DEFAULT, allowed)

    expect = [q.expect for q, _ in runs[0]]
    got = cross_validate(model, tables, expect, 3, H, A, DEFAULT, model.per_question(3, 6), seed=4, rule=rule,
                         repetitions=2)
    assert len(calls) == 6 and all(allowed[cell] for cell in got.choices)
    assert all(sorted(np.unique(c)) == [0.0, 1.0] for c in calls)


def test_the_gain_test_is_the_corrected_repeated_cross_validation_t_test() -> None:
    """Held to the formula written out: t = mean / sqrt((1 / (k r) + 1 / (k - 1)) var), r k - 1 degrees of
    freedom, one-sided p and a two-sided 95% interval from scipy's t."""
    rng = np.random.default_rng(3)
    fold_gains = rng.normal(0.05, 0.2, (10, 5))
    got = GainTest.of(fold_gains, 5)
    values = fold_gains.ravel()
    error = np.sqrt((1 / 50 + 1 / 4) * values.var(ddof=1))
    assert got.mean == pytest.approx(values.mean()) and got.standard_error == pytest.approx(error)
    assert got.df == 49
    assert got.p_value == pytest.approx(scipy_stats.t.sf(values.mean() / error, 49))
    half = scipy_stats.t.ppf(0.975, 49) * error
    assert got.interval == pytest.approx((values.mean() - half, values.mean() + half))
    assert got.shown == (got.p_value < 0.05)
    # the corrected error is far larger than the naive one over r k values, which would not hold its level
    assert got.standard_error > 3 * values.std(ddof=1) / np.sqrt(50)


def test_the_gain_test_s_degenerate_cases() -> None:
    assert GainTest.of(np.zeros((10, 5)), 5).p_value == 1.0  # nothing differs: nothing shown
    same = GainTest.of(np.full((10, 5), 0.1), 5)
    assert same.p_value == 1.0 and not same.shown and same.interval is None  # no spread: a t-test cannot judge
    assert GainTest.of(np.full((10, 5), -0.1), 5).p_value == 1.0
    one = GainTest.of(np.array([[0.3]]), 1)
    assert one.p_value == 1.0 and not one.shown  # one fold cannot be tested


def test_the_ratio_interval_is_wilson_s_for_unit_weights_and_whole_trials() -> None:
    rng = np.random.default_rng(5)
    for _ in range(20):
        trials = (rng.random(40) < 0.6).astype(float)
        successes = trials * (rng.random(40) < 0.3)
        m, k = int(trials.sum()), int(successes.sum())
        ratio, effective, interval = ratio_wilson(successes, trials, np.ones(40))
        assert ratio == pytest.approx(k / m) and effective == pytest.approx(m)
        assert interval == pytest.approx(weighted_wilson(successes, trials, np.ones(40))[2], abs=1e-12)
        wilson_ci = scipy_stats.binomtest(k, m).proportion_ci(0.95, method="wilson")
        assert interval == pytest.approx((wilson_ci.low, wilson_ci.high), abs=1e-9)


def test_the_ratio_interval_uses_the_linearised_variance_of_the_weighted_ratio() -> None:
    successes = np.array([1, 0, 1 / 3, 0, 1, 0.0])
    trials = np.array([1, 1, 2 / 3, 0, 1, 1 / 3])
    weights = np.array([0.6, 0.6, 0.6, 1.4, 1.4, 1.4])
    ratio, effective, interval = ratio_wilson(successes, trials, weights)
    r = (weights @ successes) / (weights @ trials)
    variance = sum((w * (x - r * t)) ** 2 for w, x, t in zip(weights, successes, trials, strict=True)) / (
        weights @ trials) ** 2
    assert ratio == pytest.approx(r) and effective == pytest.approx(r * (1 - r) / variance)
    assert interval == pytest.approx(wilson(r * effective, effective))
    kish = weighted_wilson(successes, trials, weights)[1]
    for edge in (np.zeros(6), trials):  # no success (R = 0), or every trial a success (R = 1): Kish's n
        _, effective, interval = ratio_wilson(edge, trials, weights)
        assert effective == pytest.approx(kish)
        assert interval == pytest.approx(weighted_wilson(edge, trials, weights)[2])
    assert ratio_wilson(np.zeros(3), np.zeros(3), np.ones(3)) == (0.0, 0.0, None)


def test_exactly_one_standard_error_is_out_among_a_hundred_thousand_questions() -> None:
    """Every question but one is quoted at every ANSWER_CUTOFF (right or wrong, differently in each repeat,
    with uneven weights): only the one question differs between the default and the best cell, so the
    difference is exactly one standard error, and the default is left however many floats the sums add up
    (and the cell that is the same as the default, short of the best by that one question, is out)."""
    rng = np.random.default_rng(3)
    n, h, a = 100_000, np.array([0.3]), np.array([0.0, 0.5, 0.9])
    left = 0
    for _ in range(5):
        tables = []
        for _ in range(3):
            probability = np.full(n, 0.95)
            probability[0] = 0.6  # quoted at 0 and 0.5, not at the default's 0.9
            quoted = rng.choice([CODE[Outcome.CORRECT], CODE[Outcome.WRONG]], n, p=[0.8, 0.2])
            quoted[0] = CODE[Outcome.CORRECT]
            tables.append(staircase(h, probability[:, None], quoted[:, None], np.full(n, CODE[Outcome.MISSED])))
        model = ScoreModel(tables, a, outcome_scores(10.0), rng.uniform(0.3, 3, n))
        choice = choose(model, np.ones(n), h, a, (0.3, 0.9))
        left += not choice.is_default and choice.region.tolist() == [[True, True, False]]
    assert left == 5
