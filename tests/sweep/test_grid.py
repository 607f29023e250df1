"""The grid: exact decimal axes, the fast fill against the slow per-cell reference, the recommendation."""

from __future__ import annotations

import random

import numpy as np
import pytest

from conftest import GRID, random_item, slow_fill
from quotefinder.errors import InputError
from quotefinder.questions import OUTCOMES, Outcome, Question
from quotefinder.recipe.decision import Candidate
from quotefinder.recipe.pipeline import Trace
from quotefinder.sweep.grid import CODE, Curve, Table, depth, parse_axis, recommend_scores, score


def fill(curves, has_answer, answer) -> np.ndarray:
    """The fast fill: every question's curve along HAS_ANSWER_CUTOFF, counted along ANSWER_CUTOFF."""
    return Table.of(curves, has_answer).counts(answer)


def recommend(counts, has_answer, answer, wrong_cost, default):
    """The recommendation for a grid of counts."""
    return recommend_scores(score(counts, wrong_cost), has_answer, answer, default)


def test_axis_values_are_the_floats_nearest_the_decimals() -> None:
    axis = parse_axis("0:1:0.05", "--x")
    assert len(axis.values) == 21 and axis.values[6] == 0.3 and axis.values[12] == 0.6
    tenths = parse_axis("0:1:0.1", "--x").values
    assert tenths[3] == 0.3 and sum([0.1] * 3) != 0.3  # not the float sum 0.30000000000000004
    assert all(v == float(f"0.{k}") for k, v in enumerate(tenths[:10]))
    assert [axis.text(i) for i in (0, 7, 20)] == ["0", "0.35", "1"]
    assert parse_axis("0.3:0.3:0.1", "--x").values.tolist() == [0.3]
    assert parse_axis("0.25:0.3:0.001", "--x").values[-1] == 0.3


@pytest.mark.parametrize(("spec", "message"), [
    ("0:1:0.3", "does not reach STOP"),
    ("0:1:0", "STEP must be greater than 0"),
    ("0:1:-0.1", "STEP must be greater than 0"),
    ("-0.1:1:0.1", "0 <= START <= STOP <= 1"),
    ("0:1.5:0.5", "0 <= START <= STOP <= 1"),
    ("0.6:0.3:0.1", "0 <= START <= STOP <= 1"),
    ("0:1", "START:STOP:STEP"),
    ("a:b:c", "START:STOP:STEP"),
    ("0:1:nan", "START:STOP:STEP"),
    ("0:1:0.0001", "at most 1001"),
    ("0:1:1e-30", "at most 1001"),
])
def test_bad_axes_are_refused(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_axis(spec, "--has-answer")


@pytest.mark.parametrize("seed", range(25))
def test_fast_fill_equals_the_slow_per_cell_replay(seed: int) -> None:
    rng = random.Random(seed)
    items = [random_item(rng, n) for n in range(rng.randint(1, 12))]
    h = np.array(sorted({*GRID, *rng.sample(GRID, 3)}))
    a = np.array(GRID)
    fast = fill([Curve.of(q, t) for q, t in items], h, a)
    assert np.array_equal(fast, slow_fill(items, h, a))
    assert (fast.sum(axis=2) == len(items)).all()


def test_fill_on_odd_axes_equals_the_reference() -> None:
    rng = random.Random(99)
    items = [random_item(rng, n) for n in range(30)]
    for h, a in [([0.3], [0.6]), ([0.0, 1.0], [0.0, 1.0]), (GRID[::3], [0.6])]:
        fast = fill([Curve.of(q, t) for q, t in items], np.array(h), np.array(a))
        assert np.array_equal(fast, slow_fill(items, h, a))


def test_a_probability_on_the_cutoff_is_quoted() -> None:
    c = Candidate(1, "T", "u", None, 1, "It is 206.", 0.9, 0.9, 0.3)
    trace = Trace("q", 0, [1], [c], {(1,): [0.6]})
    question = Question("q", "q", "answer", ("206",))
    counts = fill([Curve.of(question, trace)], np.array([0.3, 0.35]), np.array([0.6, 0.65]))
    assert counts[0, 0, CODE[Outcome.CORRECT]] == 1  # 0.3 >= 0.3 and 0.6 >= 0.6
    assert counts[0, 1, CODE[Outcome.MISSED]] == 1
    assert counts[1, 0, CODE[Outcome.MISSED]] == 1


def counts_from_scores(scores: np.ndarray) -> np.ndarray:
    counts = np.zeros((*scores.shape, len(OUTCOMES)), dtype=np.int64)
    counts[..., CODE[Outcome.CORRECT]] = scores
    return counts


def test_depth_is_the_chebyshev_distance_to_a_lower_cell() -> None:
    region = np.zeros((7, 7), dtype=bool)
    region[1:6, 1:6] = True
    d = depth(region)
    assert d[3, 3] == 3 and d[1, 1] == 1 and d[2, 3] == 2 and d[0, 0] == 0
    assert np.isinf(depth(np.ones((3, 3), dtype=bool))).all()
    edge = np.zeros((5, 5), dtype=bool)
    edge[:, :3] = True  # touching the grid's edge does not make a knife edge
    assert depth(edge)[2, 0] == 3


def test_recommend_prefers_the_deepest_cell_of_the_best_region() -> None:
    axis = np.linspace(0, 1, 11)
    scores = np.zeros((11, 11))
    scores[0, 10] = 9  # a single best cell on a knife edge ...
    scores[0, 9] = 5
    scores[2:9, 2:9] = 9  # ... and a broad plateau with the same score
    choice = recommend(counts_from_scores(scores), axis, axis, 2.0, (0.3, 0.6))
    assert (choice.h_index, choice.a_index) == (5, 5) and choice.depth == 4 and choice.tied == 50


def test_recommend_breaks_depth_ties_by_distance_to_the_default() -> None:
    axis = np.linspace(0, 1, 11)
    scores = np.zeros((11, 11))
    scores[:, 8:] = 3
    choice = recommend(counts_from_scores(scores), axis, axis, 2.0, (0.3, 0.6))
    assert (choice.h_index, choice.a_index) == (3, 10)  # depth 3 at the far column; the default's row


def test_wrong_cost_changes_the_objective() -> None:
    axis = np.array([0.0, 1.0])
    counts = np.zeros((2, 2, len(OUTCOMES)), dtype=np.int64)
    counts[0, 0, CODE[Outcome.CORRECT]], counts[0, 0, CODE[Outcome.WRONG]] = 5, 1  # 5 - c
    counts[1, 1, CODE[Outcome.NO_ANSWER]] = 4  # 4
    assert recommend(counts, axis, axis, 2.0, (0, 0)).h_index == 1
    assert recommend(counts, axis, axis, 0.5, (0, 0)).h_index == 0


def test_equidistant_cells_go_to_the_lower_has_answer_cutoff_despite_float_rounding() -> None:
    axis = parse_axis("0:1:0.1", "--x").values
    scores = np.zeros((11, 11))
    scores[1, 5] = scores[2, 4] = 5  # (0.1, 0.5) and (0.2, 0.4): both sqrt(0.08) from (0.3, 0.6) in decimals
    choice = recommend(counts_from_scores(scores), axis, axis, 2.0, (0.3, 0.6))
    assert (choice.h_index, choice.a_index) == (1, 5)
    scores[1, 5], scores[1, 7] = 0, 5  # (0.1, 0.7) is as far as (0.2, 0.4) too, and lower still
    assert (recommend(counts_from_scores(scores), axis, axis, 2.0, (0.3, 0.6)).h_index) == 1
