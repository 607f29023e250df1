"""The numbers of a drift report held to direct computations (scipy.stats) and a seeded simulation: the
wrong-answer rate's per-label Clopper-Pearson bounds for the original's mix, and the stage test over questions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from quotefinder.sweep.drift import StageDrift, WrongRate


def test_the_bounds_are_clopper_pearson_per_label_weighted_by_the_originals_mix() -> None:
    """Two labels sampled 12 of 60 and 8 of 40, 3 and 1 wrong: each label's one-sided bounds at delta / 2 from the
    beta quantiles, combined with weights 0.6 and 0.4."""
    rate = WrongRate.of([("answer", 3, 12, 60), ("no-answer", 1, 8, 40)], 0.1)
    level = 0.05
    upper = 0.6 * stats.beta.ppf(1 - level, 4, 9) + 0.4 * stats.beta.ppf(1 - level, 2, 7)
    lower = 0.6 * stats.beta.ppf(level, 3, 10) + 0.4 * stats.beta.ppf(level, 1, 8)
    assert rate.upper == pytest.approx(upper, abs=1e-9) and rate.lower == pytest.approx(lower, abs=1e-9)
    assert rate.estimate == pytest.approx(0.6 * 3 / 12 + 0.4 * 1 / 8)
    none = WrongRate.of([("answer", 0, 10, 10)], 0.1)
    assert none.lower == 0.0 and none.upper == pytest.approx(1 - 0.1 ** (1 / 10))


def test_the_bounds_hold_their_level_on_stratified_samples() -> None:
    """2,000 seeded stratified samples (answer 70 of 350, no-answer 30 of 150) of questions with uneven chances of
    a wrong answer: the upper bound falls below the true rate, and the lower bound rises above it, each in at most
    delta = 10% of them (plus three Monte-Carlo standard errors, 2%)."""
    rng = np.random.default_rng(5)
    chances = {"answer": rng.beta(0.4, 2.0, 350), "no-answer": rng.beta(0.2, 3.0, 150)}
    true = (350 * chances["answer"].mean() + 150 * chances["no-answer"].mean()) / 500
    draws, low_misses, high_misses = 2000, 0, 0
    for _ in range(draws):
        strata = []
        for label, n in (("answer", 70), ("no-answer", 30)):
            picked = rng.choice(len(chances[label]), n, replace=False)
            strata.append((label, int((rng.random(n) < chances[label][picked]).sum()), n, len(chances[label])))
        rate = WrongRate.of(strata, 0.1)
        low_misses += rate.lower > true
        high_misses += rate.upper < true
    slack = 3 * math.sqrt(0.1 * 0.9 / draws)
    assert low_misses / draws <= 0.1 + slack and high_misses / draws <= 0.1 + slack


def test_the_stage_test_is_wilcoxon_over_the_questions_mean_changes() -> None:
    moves = (0.01, -0.02, 0.0, 0.03, 0.015, -0.005, 0.02)
    stage = StageDrift("compare", 20, 18, 2, "answers", moves, 40)
    assert stage.fresh == 2 and stage.mean_change == pytest.approx(np.mean(moves))
    assert stage.p_value == pytest.approx(stats.wilcoxon([m for m in moves if m], alternative="two-sided").pvalue)
    still = StageDrift("compare", 5, 5, 0, "answers", (0.0, 0.0), 4)
    assert still.p_value == 1.0
    assert StageDrift("search results", 5, 5, 1, "", (), 0).p_value is None


def test_a_label_the_sample_left_out_counts_as_anything_from_0_to_1() -> None:
    """The no-answer questions (40 of 100) were not sampled: the lower bound counts them as never wrong, the upper
    as always, and the estimate is not given."""
    rate = WrongRate.of([("answer", 2, 10, 60), ("no-answer", 0, 0, 40)], 0.1)
    assert rate.partial == ["no-answer"] and math.isnan(rate.estimate)
    assert rate.upper == pytest.approx(0.6 * stats.beta.ppf(0.9, 3, 8) + 0.4)
    assert rate.lower == pytest.approx(0.6 * stats.beta.ppf(0.1, 2, 9))
