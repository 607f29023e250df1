"""How sure a choice of cutoffs can be: Wilson intervals, a bootstrap over questions, cross-validation.

All of it works on a `ScoreModel`: each question's contribution to the objective at every cell, so
that a resampled or held-out set of questions is just a vector of weights. The grid for weights w is

    S(h, a) = sum_q w_q * [score_q(nothing quoted) + (score_q(top quoted at h) - score_q(nothing)) * 1{a < T_qh}]

(averaged over repeats), where T_qh is how many ANSWER_CUTOFF values the top candidate's compare
probability passes (`p >= a`): one weighted histogram and a cumulative sum per resample, never a
loop over cells. Randomness is seeded, so the same run gives the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..questions import OUTCOMES, Outcome
from ..recipe.decision import cutoffs_passed
from .grid import CODE, Table, quoted_sums, recommend_scores

Z95 = 1.959963984540054


def wilson(successes: float, trials: float, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval for a proportion (95% by default); None when there are no trials."""
    if trials <= 0:
        return None
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def outcome_scores(wrong_cost: float) -> np.ndarray:
    """The objective's value of each outcome, in `OUTCOMES` order (unjudged and missed score 0)."""
    values = np.zeros(len(OUTCOMES))
    values[CODE[Outcome.CORRECT]] = values[CODE[Outcome.NO_ANSWER]] = 1.0
    values[CODE[Outcome.WRONG]] = -wrong_cost
    return values


class ScoreModel:
    """Every question's contribution to the objective over the grid, for weighted sums of questions.

    `tables` holds one `Table` per repeat, over the same questions in the same order.
    """

    def __init__(self, tables: Sequence[Table], answer: np.ndarray, wrong_cost: float) -> None:
        values = outcome_scores(wrong_cost)
        first = tables[0]
        self.n_questions, self.n_h = first.probability.shape
        self.n_a = len(answer)
        self.passed = np.stack([cutoffs_passed(answer, t.probability) for t in tables])  # (R, Q, H)
        quoted = np.stack([values[np.maximum(t.quoted, 0)] for t in tables])  # unused where nothing is quoted
        self.unquoted = values[first.unquoted]  # (Q,)
        self.delta = (quoted - self.unquoted[None, :, None]) / len(tables)
        h_index = np.arange(self.n_h)[None, None, :]
        self.bins = (h_index * (self.n_a + 1) + self.passed).reshape(len(tables), -1)  # (R, Q*H)

    def grid(self, weights: np.ndarray) -> np.ndarray:
        """The objective at every cell, shape (H, A), for questions weighted by `weights` (Q,)."""
        size = self.n_h * (self.n_a + 1)
        weighted = (self.delta * weights[None, :, None]).reshape(self.bins.shape)
        histogram = np.zeros(size)
        for bins, values in zip(self.bins, weighted, strict=True):
            histogram += np.bincount(bins, weights=values, minlength=size)
        histogram = histogram.reshape(self.n_h, self.n_a + 1)
        return float(weights @ self.unquoted) + quoted_sums(histogram)

    def per_question(self, h_index: int, a_index: int) -> np.ndarray:
        """Each question's contribution at one cell (Q,), averaged over repeats."""
        quoted = a_index < self.passed[:, :, h_index]  # (R, Q)
        return self.unquoted + (self.delta[:, :, h_index] * quoted).sum(axis=0)


@dataclass(frozen=True)
class Stability:
    """How often resampled question sets recommend the same cell, or one in its region of best score."""

    resamples: int
    same_cell: float  # share of resamples whose recommended cell is the full set's
    in_region: float  # share whose recommended cell lies in the full set's region of best score
    frequency: np.ndarray  # (H, A): share of resamples recommending each cell
    # 95% interval of the score a resample's own choice gains over the default on the questions that
    # resample left out (out of bag), scaled to the whole set: what choosing on this much data gains
    difference: tuple[float, float] | None


def bootstrap(model: ScoreModel, h: np.ndarray, a: np.ndarray, default: tuple[float, float],
              chosen: tuple[int, int], region: np.ndarray, default_scores: np.ndarray,
              resamples: int, seed: int = 0) -> Stability:
    """Resample the questions with replacement `resamples` times (seeded) and re-run the choice.

    `default_scores` are each question's contributions at the default point. Each resample's own
    choice is scored against them on the questions it left out, so the gain is not the optimism of
    choosing and scoring on the same questions.
    """
    rng = np.random.default_rng(seed)
    counts = np.zeros((len(h), len(a)))
    same = inside = 0
    gains = []
    n = model.n_questions
    for _ in range(resamples):
        weights = np.bincount(rng.integers(0, n, n), minlength=n).astype(float)
        pick = recommend_scores(model.grid(weights), h, a, default)
        counts[pick.h_index, pick.a_index] += 1
        same += (pick.h_index, pick.a_index) == chosen
        inside += bool(region[pick.h_index, pick.a_index])
        left_out = weights == 0
        if left_out.any():
            gain = model.per_question(pick.h_index, pick.a_index) - default_scores
            gains.append(float(gain[left_out].mean() * n))
    interval = tuple(np.percentile(gains, [2.5, 97.5]).tolist()) if gains else None
    share = max(resamples, 1)
    return Stability(resamples, same / share, inside / share, counts / share, interval)


def folds(expect: Sequence[str], k: int, seed: int = 0) -> np.ndarray:
    """A fold number per question, stratified by label: each label's questions, shuffled, dealt in turn."""
    rng = np.random.default_rng(seed)
    assigned = np.zeros(len(expect), dtype=int)
    for label in sorted(set(expect)):
        members = np.flatnonzero(np.array(expect) == label)
        rng.shuffle(members)
        assigned[members] = (np.arange(len(members)) + int(rng.integers(k))) % k
    return assigned


@dataclass(frozen=True)
class CrossValidation:
    """Cutoffs chosen on K-1 folds, scored on the held-out fold; counts summed over the folds."""

    k: int
    choices: list[tuple[int, int]]  # per fold: (h index, a index) chosen on the other folds
    counts: np.ndarray  # (outcomes,): held-out outcomes at each fold's chosen cell, summed (mean over repeats)


def cross_validate(model: ScoreModel, tables: Sequence[Table], expect: Sequence[str], k: int, h: np.ndarray,
                   a: np.ndarray, default: tuple[float, float], seed: int = 0) -> CrossValidation:
    """K-fold cross-validation of the recommendation (stratified by label, seeded)."""
    fold_of = folds(expect, k, seed)
    counts = np.zeros(len(OUTCOMES))
    choices = []
    for fold in range(k):
        held_out = fold_of == fold
        pick = recommend_scores(model.grid((~held_out).astype(float)), h, a, default)
        choices.append((pick.h_index, pick.a_index))
        for table in tables:
            codes = table.outcomes(a[pick.a_index])[held_out, pick.h_index]
            counts += np.bincount(codes, minlength=len(OUTCOMES)) / len(tables)
    return CrossValidation(k, choices, counts)
