"""Intervals, the weighted score model, the bootstrap and cross-validation, each against a slow reference."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import decided, random_repeats
from quotefinder.questions import Question
from quotefinder.recipe.decision import Candidate
from quotefinder.recipe.pipeline import Trace
from quotefinder.sweep.grid import CODE, Curve, Table, parse_axis, recommend_scores
from quotefinder.sweep.stats import ScoreModel, bootstrap, cross_validate, folds, outcome_scores, wilson

AXIS = parse_axis("0:1:0.1", "--x")


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


def slow_scores(runs, weights, h, a, wrong_cost) -> np.ndarray:
    """Per cell, the weighted objective averaged over repeats, from the pipeline's own `decide`."""
    values = outcome_scores(wrong_cost)
    grid = np.zeros((len(h), len(a)))
    for i, hv in enumerate(h):
        for j, av in enumerate(a):
            for run in runs:
                grid[i, j] += sum(w * values[CODE[o]] for w, (_, o) in zip(weights, decided(run, hv, av), strict=True))
    return grid / len(runs)


def model_of(runs, wrong_cost=2.0) -> ScoreModel:
    tables = [Table.of([Curve.of(q, t) for q, t in run], AXIS.values) for run in runs]
    return ScoreModel(tables, AXIS.values, wrong_cost)


@pytest.mark.parametrize("seed", range(6))
def test_the_weighted_model_equals_a_slow_weighted_replay(seed: int) -> None:
    runs = random_repeats(seed)
    weights = np.random.default_rng(seed).integers(0, 4, len(runs[0])).astype(float)
    model = model_of(runs, wrong_cost=1.5)
    assert np.allclose(model.grid(weights), slow_scores(runs, weights, AXIS.values, AXIS.values, 1.5), atol=1e-9)


def test_bootstrap_equals_resampling_by_hand() -> None:
    runs = random_repeats(7, questions=9, repeats=2)
    model = model_of(runs)
    h = a = AXIS.values
    default = (0.3, 0.6)
    full = model.grid(np.ones(9))
    choice = recommend_scores(full, h, a, default)
    region = np.round(full, 9) == np.round(full, 9).max()
    values = outcome_scores(2.0)
    at_default = np.mean([[values[CODE[o]] for _, o in decided(run, *default)] for run in runs], axis=0)
    got = bootstrap(model, h, a, default, (choice.h_index, choice.a_index), region, at_default, 40, seed=3)

    rng = np.random.default_rng(3)
    expected, gains = np.zeros((len(h), len(a))), []
    for _ in range(40):
        weights = np.bincount(rng.integers(0, 9, 9), minlength=9).astype(float)
        pick = recommend_scores(slow_scores(runs, weights, h, a, 2.0), h, a, default)
        expected[pick.h_index, pick.a_index] += 1
        at_pick = np.mean([[values[CODE[o]] for _, o in decided(run, h[pick.h_index], a[pick.a_index])]
                           for run in runs], axis=0)
        left_out = weights == 0
        if left_out.any():
            gains.append((at_pick - at_default)[left_out].mean() * 9)
    assert np.array_equal(got.frequency * 40, expected)
    assert got.same_cell == expected[choice.h_index, choice.a_index] / 40
    assert got.in_region == expected[region].sum() / 40
    assert got.difference == pytest.approx(tuple(np.percentile(gains, [2.5, 97.5])))


def test_bootstrap_is_seeded() -> None:
    model = model_of(random_repeats(1))
    args = (AXIS.values, AXIS.values, (0.3, 0.6), (0, 0), np.ones((11, 11), dtype=bool), np.ones(12), 30)
    assert np.array_equal(bootstrap(model, *args, seed=5).frequency, bootstrap(model, *args, seed=5).frequency)


def test_folds_are_stratified_and_seeded() -> None:
    labels = ["answer"] * 13 + ["no-answer"] * 7
    assigned = folds(labels, 4, seed=2)
    assert np.array_equal(assigned, folds(labels, 4, seed=2))
    for label in ("answer", "no-answer"):
        sizes = np.bincount(assigned[np.array(labels) == label], minlength=4)
        assert sizes.max() - sizes.min() <= 1


def test_cross_validation_equals_choosing_and_scoring_by_hand() -> None:
    runs = random_repeats(11, questions=15, repeats=2)
    model = model_of(runs)
    tables = [Table.of([Curve.of(q, t) for q, t in run], AXIS.values) for run in runs]
    expect = [q.expect for q, _ in runs[0]]
    h = a = AXIS.values
    got = cross_validate(model, tables, expect, 3, h, a, (0.3, 0.6), seed=4)

    counts = np.zeros(5)
    for fold, assigned in enumerate([folds(expect, 3, seed=4)] * 3):
        held = assigned == fold
        training = [[item for item, keep in zip(run, ~held, strict=True) if keep] for run in runs]
        pick = recommend_scores(slow_scores(training, np.ones(int((~held).sum())), h, a, 2.0), h, a, (0.3, 0.6))
        assert got.choices[fold] == (pick.h_index, pick.a_index)
        for run in runs:
            for (_, outcome), keep in zip(decided(run, h[pick.h_index], a[pick.a_index]), held, strict=True):
                if keep:
                    counts[CODE[outcome]] += 1 / len(runs)
    assert np.allclose(got.counts, counts)


def test_bootstrap_known_values_for_questions_that_all_agree() -> None:
    """Six answer questions, each quoted correctly wherever has_answer 0.9 and compare 0.8 pass: every
    resample sees the same best region, and each left-out question gains one point over a default
    that scores zero, so the out-of-bag gain, scaled to six questions, is exactly 6."""
    runs = [[]]
    for n in range(6):
        candidate = Candidate(1, "T", "u", None, 1, f"It is 206, says page {n}.", 0.9, 0.9, 0.9)
        runs[0].append((Question(f"q{n}", f"q{n}?", "answer", ("206",)), Trace(f"q{n}?", 0, [1], [candidate],
                                                                            {(1,): [0.8]})))
    model = model_of(runs)
    h = a = AXIS.values
    full = model.grid(np.ones(6))
    choice = recommend_scores(full, h, a, (0.3, 0.6))
    assert full[choice.h_index, choice.a_index] == 6
    region = np.round(full, 9) == np.round(full, 9).max()
    got = bootstrap(model, h, a, (0.3, 0.6), (choice.h_index, choice.a_index), region, np.zeros(6), 100, seed=1)
    assert got.same_cell == 1.0 and got.in_region == 1.0 and got.frequency.sum() == pytest.approx(1.0)
    assert got.difference == (6.0, 6.0)
