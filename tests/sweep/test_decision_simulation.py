"""Seeded simulations of the decision (`analysis.action_for` over `stats.choose` and `stats.cross_validate`, the
functions a sweep runs): it moves off the default only on a gain shown out of sample.

The generated world: 20,000 questions, 60% answerable. Each has two candidates with a HAS_ANSWER probability
(Beta(6, 2) on answerable questions, Beta(1.5, 5) on the others) and a compare probability (Beta(6, 2) and
Beta(2, 5)); an answerable question's quote is right with its compare probability, an unanswerable one's is always
wrong. The score is correct + no-answer - 2 x wrong, and each cell's true score per question is its mean over the
20,000, on an 11 x 11 grid (0 to 1 in steps of 0.1). The best cell, (0.6, 0.7), scores 0.598; the default
(0.3, 0.6) scores 0.574: nearly best. A default at (0.3, 0.3) scores 0.302: clearly poor. Each draw samples n
questions with replacement, runs the rule and the repeated 10 x 5-fold test, and ships what `action_for` says.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import mc_error, tables_of
from quotefinder.questions import Outcome
from quotefinder.sweep.analysis import Action, action_for
from quotefinder.sweep.grid import CODE, cell_index, parse_axis
from quotefinder.sweep.stats import ScoreModel, choose, cross_validate, outcome_scores

AXIS = parse_axis("0:1:0.1").values
NEARLY_BEST, CLEARLY_POOR = (0.3, 0.6), (0.3, 0.3)
DRAWS = 400


def population(rng: np.random.Generator, n: int = 20_000) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """The world's questions as `tables_of` arguments (thresholds, compare probabilities, codes, unquoted), and
    which are answerable."""
    answer = rng.random(n) < 0.6
    has_answer = np.where(answer[:, None], rng.beta(6, 2, (n, 2)), rng.beta(1.5, 5, (n, 2)))
    compare = np.where(answer[:, None], rng.beta(6, 2, (n, 2)), rng.beta(2, 5, (n, 2)))
    right = answer[:, None] & (rng.random((n, 2)) < compare)
    codes = np.where(right, CODE[Outcome.CORRECT], CODE[Outcome.WRONG])
    unquoted = np.where(answer, CODE[Outcome.MISSED], CODE[Outcome.NO_ANSWER])
    return (np.sort(has_answer, axis=1), compare, codes, unquoted), answer


WORLD, ANSWERABLE = population(np.random.default_rng(1))
_EVERYONE = ScoreModel([tables_of(AXIS, *WORLD)], AXIS, outcome_scores(2.0))
TRUE = _EVERYONE.grid(np.ones(_EVERYONE.n_questions)) / _EVERYONE.n_questions  # (H, A): true score per question


def cell(point: tuple[float, float]) -> tuple[int, int]:
    h, a = cell_index(AXIS, point[0]), cell_index(AXIS, point[1])
    assert h is not None and a is not None
    return h, a


def decisions(default: tuple[float, float], n: int, draws: int, seed: int) -> dict[str, np.ndarray]:
    """Per draw: whether the decision moved, the true gain per question of what it shipped over the default, and
    the true gain of the rule's in-sample pick (what shipping on the in-sample score alone would have given)."""
    rng = np.random.default_rng(seed)
    d = cell(default)
    moved, shipped_gain, tuned_gain = np.zeros(draws, bool), np.zeros(draws), np.zeros(draws)
    for k in range(draws):
        sample = rng.integers(0, len(ANSWERABLE), n)
        table = tables_of(AXIS, *(column[sample] for column in WORLD))
        model = ScoreModel([table], AXIS, outcome_scores(2.0))
        choice = choose(model, np.ones(n), AXIS, AXIS, default)
        expect = ["answer" if answerable else "no-answer" for answerable in ANSWERABLE[sample]]
        tested = cross_validate(model, [table], expect, 5, AXIS, AXIS, default, model.per_question(*d),
                                seed=int(rng.integers(2**31)))
        action = action_for(choice, None, d, tested, unknown=False)
        assert action in (Action.KEEP, Action.MOVE)
        moved[k] = action is Action.MOVE
        shipped_gain[k] = TRUE[choice.cell if moved[k] else d] - TRUE[d]
        tuned_gain[k] = TRUE[choice.cell] - TRUE[d]
    return {"moved": moved, "shipped": shipped_gain, "tuned": tuned_gain}


def test_the_world_is_as_described() -> None:
    best = np.unravel_index(np.argmax(TRUE), TRUE.shape)
    assert (AXIS[best[0]], AXIS[best[1]]) == pytest.approx((0.6, 0.7))
    assert TRUE[best] - TRUE[cell(NEARLY_BEST)] == pytest.approx(0.024, abs=0.005)
    assert TRUE[best] - TRUE[cell(CLEARLY_POOR)] == pytest.approx(0.296, abs=0.005)


@pytest.mark.slow
@pytest.mark.parametrize("n", [40, 100, 300])
def test_a_nearly_best_default_is_rarely_traded_for_a_worse_cell(n: int) -> None:
    """Where the default is nearly best, the shipped cell is truly worse than the default in at most 5% of draws.
    Measured (400 draws each): 1.25% at 40 questions, 0.75% at 100, 0.25% at 300 (it moves in 2.75%, 3.75% and 6%);
    the rule's in-sample pick, which the decision shipped before it was gated, is truly worse in 31.5%, 19% and
    9.25%. Monte-Carlo s.e. at 5% is 1.1%; asserted: the share plus three s.e. stays under 5%, and the in-sample
    pick is worse in at least 5% (so the world does tempt the rule)."""
    found = decisions(NEARLY_BEST, n, DRAWS, seed=n)
    worse = float((found["shipped"] < -1e-12).mean())
    assert worse + 3 * mc_error(0.05, DRAWS) <= 0.05, worse
    assert float((found["tuned"] < -1e-12).mean()) >= 0.05


@pytest.mark.slow
@pytest.mark.parametrize("n", [100, 300])
def test_a_clearly_poor_default_is_left_and_most_of_the_gain_kept(n: int) -> None:
    """Where the default is clearly poor (0.296 score per question below the best), the decision moves in most
    draws and keeps most of the true gain: measured (400 draws each), it moves in 81% at 100 questions and 100% at
    300, keeping 71% and 91% of the best cell's gain on average, and never ships a cell worse than the default.
    At 40 questions it moves in 31.5% (27% of the gain): the corrected test is conservative, and pays for the 5%
    above with power. Asserted: the share moved less three Monte-Carlo s.e. (2.5% at 50%) is over 50%, and the
    mean share of the gain kept is over half."""
    found = decisions(CLEARLY_POOR, n, DRAWS, seed=1000 + n)
    moved = float(found["moved"].mean())
    assert moved - 3 * mc_error(0.5, DRAWS) > 0.5, moved
    assert float(found["shipped"].mean()) / float(TRUE.max() - TRUE[cell(CLEARLY_POOR)]) > 0.5
    assert (found["shipped"] >= -1e-12).all()
