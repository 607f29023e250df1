"""The grid: exact decimal axes, the fast fill against the slow per-cell reference, the recommendation."""

from __future__ import annotations

import random

import numpy as np
import pytest

from conftest import GRID, judged_curve, random_item, slow_fill
from quotefinder.core.errors import InputError
from quotefinder.questions import OUTCOMES, Outcome, Question
from quotefinder.recipe.decision import Candidate
from quotefinder.recipe.pipeline import Trace
from quotefinder.sweep.grid import CODE, Rectangles, Table, depth, parse_axis, rectangle_sums, score, top_cell


def fill(curves, has_answer, answer) -> np.ndarray:
    """The fast fill: every question's curve along HAS_ANSWER_CUTOFF, counted along ANSWER_CUTOFF."""
    return Table.of(curves, has_answer).counts(answer)


def recommend(counts, has_answer, answer, wrong_cost, default) -> tuple[int, int]:
    """The best-scoring cell for a grid of counts."""
    return top_cell(score(counts, wrong_cost), has_answer, answer, default)


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
    fast = fill([judged_curve(q, t) for q, t in items], h, a)
    assert np.array_equal(fast, slow_fill(items, h, a))
    assert (fast.sum(axis=2) == len(items)).all()


def test_fill_on_odd_axes_equals_the_reference() -> None:
    rng = random.Random(99)
    items = [random_item(rng, n) for n in range(30)]
    for h, a in [([0.3], [0.6]), ([0.0, 1.0], [0.0, 1.0]), (GRID[::3], [0.6])]:
        fast = fill([judged_curve(q, t) for q, t in items], np.array(h), np.array(a))
        assert np.array_equal(fast, slow_fill(items, h, a))


def test_a_probability_on_the_cutoff_is_quoted() -> None:
    c = Candidate(1, "T", "u", None, 1, "It is 206.", 0.9, 0.9, 0.3)
    trace = Trace("q", 0, [1], [c], {(1,): [0.6]})
    question = Question("q", "q", "answer", ("206",))
    counts = fill([judged_curve(question, trace)], np.array([0.3, 0.35]), np.array([0.6, 0.65]))
    assert counts[0, 0, CODE[Outcome.CORRECT]] == 1  # 0.3 >= 0.3 and 0.6 >= 0.6
    assert counts[0, 1, CODE[Outcome.MISSED]] == 1
    assert counts[1, 0, CODE[Outcome.MISSED]] == 1


def counts_from_scores(scores: np.ndarray) -> np.ndarray:
    counts = np.zeros((*scores.shape, len(OUTCOMES)), dtype=np.int64)
    counts[..., CODE[Outcome.CORRECT]] = scores
    return counts


def test_depth_is_the_chebyshev_distance_to_a_cell_outside_or_the_edge() -> None:
    region = np.zeros((7, 7), dtype=bool)
    region[1:6, 1:6] = True
    d = depth(region)
    assert d[3, 3] == 3 and d[1, 1] == 1 and d[2, 3] == 2 and d[0, 0] == 0
    everything = depth(np.ones((5, 5), dtype=bool))  # the grid's edge counts as outside
    assert everything[2, 2] == 3 and everything[0, 2] == 1 and everything[1, 1] == 2
    edge = np.zeros((5, 5), dtype=bool)
    edge[:, :3] = True  # a region that runs to the end of an axis is not deeper for it
    assert depth(edge)[2, 0] == 1 and depth(edge)[2, 1] == 2


def test_depth_equals_a_direct_search_for_the_nearest_outside_cell() -> None:
    rng = np.random.default_rng(4)
    for _ in range(20):
        region = rng.random((6, 8)) < 0.7
        padded = np.pad(region, 1)  # the edge: outside
        outside = np.argwhere(~padded)
        expected = np.zeros(region.shape)
        for i, j in np.argwhere(region):
            expected[i, j] = np.abs(outside - (i + 1, j + 1)).max(axis=1).min()
        assert np.array_equal(depth(region), expected)


def test_the_top_cell_is_the_deepest_of_the_best_region() -> None:
    axis = np.linspace(0, 1, 11)
    scores = np.zeros((11, 11))
    scores[0, 10] = 9  # a single best cell on a knife edge ...
    scores[0, 9] = 5
    scores[2:9, 2:9] = 9  # ... and a broad plateau with the same score
    assert recommend(counts_from_scores(scores), axis, axis, 2.0, (0.3, 0.6)) == (5, 5)


def test_the_top_cell_breaks_depth_ties_by_distance_to_the_default() -> None:
    axis = np.linspace(0, 1, 11)
    scores = np.zeros((11, 11))
    scores[:, 8:] = 3  # a step at 0.8 that runs to the edge: the middle column is deepest, not the edge
    assert recommend(counts_from_scores(scores), axis, axis, 2.0, (0.3, 0.6)) == (3, 9)


def test_wrong_cost_changes_the_objective() -> None:
    axis = np.array([0.0, 1.0])
    counts = np.zeros((2, 2, len(OUTCOMES)), dtype=np.int64)
    counts[0, 0, CODE[Outcome.CORRECT]], counts[0, 0, CODE[Outcome.WRONG]] = 5, 1  # 5 - c
    counts[1, 1, CODE[Outcome.NO_ANSWER]] = 4  # 4
    assert recommend(counts, axis, axis, 2.0, (0, 0))[0] == 1
    assert recommend(counts, axis, axis, 0.5, (0, 0))[0] == 0


def test_equidistant_cells_go_to_the_lower_has_answer_cutoff_despite_float_rounding() -> None:
    axis = parse_axis("0:1:0.1", "--x").values
    scores = np.zeros((11, 11))
    scores[1, 5] = scores[2, 4] = 5  # (0.1, 0.5) and (0.2, 0.4): both sqrt(0.08) from (0.3, 0.6) in decimals
    assert recommend(counts_from_scores(scores), axis, axis, 2.0, (0.3, 0.6)) == (1, 5)
    scores[1, 5], scores[1, 7] = 0, 5  # (0.1, 0.7) is as far as (0.2, 0.4) too, and lower still
    assert recommend(counts_from_scores(scores), axis, axis, 2.0, (0.3, 0.6))[0] == 1


@pytest.mark.parametrize("seed", range(20))
def test_rectangles_placed_once_sum_every_weighting_to_the_same_floats_as_rectangle_sums(seed: int) -> None:
    """Random rectangles on grids of 1 to 12 x 1 to 12 cells, many starting past the last column (which cover
    nothing: `Rectangles` leaves them out), under float weights of every size, a NaN or an infinity among those
    past the last column: the sums are `rectangle_sums`' bit for bit, and a direct loop over cells agrees; with a
    NaN or an infinity on a rectangle that covers cells, the same cells are NaN or infinite in both."""
    rng = np.random.default_rng(seed)
    n_h, n_a = (int(v) for v in rng.integers(1, 13, 2))
    count = int(rng.integers(0, 300))
    lo = rng.integers(0, n_h, count)
    hi = lo + 1 + rng.integers(0, n_h - lo)
    left = np.where(rng.random(count) < 0.4, n_a, rng.integers(0, n_a + 1, count))
    rectangles = Rectangles.of(lo, hi, left, (n_h, n_a))
    for _ in range(5):
        weights = rng.normal(size=count) * 10.0 ** rng.integers(-8, 9, count)
        past = np.flatnonzero(left == n_a)
        if len(past):
            weights[rng.choice(past)] = rng.choice([np.nan, np.inf])
        summed = rectangles.sums(weights[rectangles.kept])
        with np.errstate(invalid="ignore"):  # the reference sums the NaN or infinity into the column past the last
            reference = rectangle_sums(lo, hi, left, None, 0, (n_h, n_a, 1), weights)[..., 0]
        assert np.isfinite(summed).all() and np.array_equal(summed, reference)
        slow = np.zeros((n_h, n_a))
        for r in range(count):
            slow[lo[r]:hi[r], left[r]:] += weights[r]
        assert np.allclose(summed, slow, rtol=1e-9, atol=1e-9 * max(1.0, float(np.abs(weights[left < n_a]).sum())))
        covering = np.flatnonzero(left < n_a)
        if len(covering):
            weights[rng.choice(covering)] = rng.choice([np.nan, np.inf, -np.inf])
            with np.errstate(invalid="ignore"):
                reference = rectangle_sums(lo, hi, left, None, 0, (n_h, n_a, 1), weights)[..., 0]
                summed = rectangles.sums(weights[rectangles.kept])
            assert not np.isfinite(summed).all() and np.array_equal(summed, reference, equal_nan=True)
