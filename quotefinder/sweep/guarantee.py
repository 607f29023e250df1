"""Cutoffs certified to keep the wrong-quote rate under a bound, in the style of Learn-then-Test
(Angelopoulos, Bates et al., 2021).

The risk at a cell is the wrong-quote rate per question: the expected share of questions, drawn like
these, that get a wrong quote there. A question's loss at a cell is the mean over repeats of 1 when it
is quoted and the quote is not known to be correct (wrong, or unjudged: counted as wrong), else 0.

For each cell the null "risk > alpha" gets a p-value (`probability.risk_pvalue`: exact binomial for one
repeat, Hoeffding-Bentkus for several). At a fixed HAS_ANSWER_CUTOFF the qualified set, and with it
the candidate that would be quoted, is fixed, so raising ANSWER_CUTOFF can only remove quotes: the loss
never rises along a row. So each row is tested in a fixed sequence from its highest ANSWER_CUTOFF
down, each test at level delta / (number of rows), and the row stops at its first non-rejection. The
rejected cells are certified: with probability at least 1 - delta, every certified cell's risk is at
most alpha (Bonferroni over rows, fixed-sequence testing within a row). The one assumption: the
questions are a random sample of the questions the pipeline will serve.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .probability import binomial_cdf_table, risk_pvalue, smallest_passing

DELTA = 0.1


@dataclass(frozen=True)
class Certificate:
    """The cells certified at `alpha` with confidence 1 - `delta`, and their p-values."""

    alpha: float
    delta: float
    n: int  # questions
    repeats: int
    pvalues: np.ndarray  # (H, A)
    certified: np.ndarray  # (H, A) bool

    @property
    def level(self) -> float:
        """Each test's level: delta shared among the HAS_ANSWER_CUTOFF rows."""
        return self.delta / self.pvalues.shape[0]

    @property
    def any(self) -> bool:
        return bool(self.certified.any())

    @property
    def method(self) -> str:
        return "exact binomial" if self.repeats == 1 else "Hoeffding-Bentkus"


def pvalues(totals: np.ndarray, n: int, repeats: int, alpha: float) -> np.ndarray:
    """The p-value of "risk > alpha" at every cell (`probability.risk_pvalue`, all cells at once);
    `totals` are the integer loss totals (each question's loss times `repeats`, summed)."""
    table = binomial_cdf_table(n, alpha)
    if repeats == 1:
        return table[np.minimum(totals, n)]
    r = np.minimum(totals / (repeats * n), alpha)  # h1(min(r, alpha), alpha), with 0 ln 0 = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        first = np.where(r > 0, r * np.log(r / alpha), 0.0)
        second = np.where(r < 1, (1 - r) * np.log((1 - r) / (1 - alpha)), 0.0)
    hoeffding = np.exp(-n * (first + second))
    bentkus = math.e * table[np.minimum(-(-totals // repeats), n)]
    return np.minimum(hoeffding, bentkus)


def fixed_sequence(p: np.ndarray, level: float) -> np.ndarray:
    """Each row tested from its last column (highest ANSWER_CUTOFF) towards the first, at `level`,
    stopping at the first p-value above it: the cells rejected before the stop (a running product of
    "rejected" from the right)."""
    return np.cumprod((p <= level)[:, ::-1], axis=1)[:, ::-1].astype(bool)


def certify(totals: np.ndarray, n: int, repeats: int, alpha: float, delta: float = DELTA) -> Certificate:
    """Certify the grid's cells at `alpha` with confidence 1 - `delta` (see the module docstring).

    `totals[h, a]` is the sum over questions and repeats of the 0/1 loss (an integer: the question's loss
    times `repeats`), for n questions.
    """
    p = pvalues(totals, n, repeats, alpha)
    return Certificate(alpha, delta, n, repeats, p, fixed_sequence(p, delta / totals.shape[0]))


def upper_bound(total: int, n: int, repeats: int, delta: float = DELTA) -> float:
    """The 1 - delta upper confidence bound on one cell's risk, fixed before looking: the smallest alpha
    that cell alone would be certified at (for one repeat, the Clopper-Pearson bound)."""
    return smallest_passing(lambda alpha: risk_pvalue(total, repeats, n, alpha), delta)


def smallest_certifiable(totals: np.ndarray, n: int, repeats: int, delta: float = DELTA) -> tuple[float, int]:
    """The smallest alpha at which the grid procedure certifies some cell, and the row it does so in.

    A row certifies something exactly when its first test (the highest ANSWER_CUTOFF) rejects, and p-values
    fall as alpha grows, so this is the least over rows of the alpha at which that first cell rejects.
    """
    level = delta / totals.shape[0]
    per_row = [upper_bound(int(total), n, repeats, level) for total in totals[:, -1]]
    row = int(np.argmin(per_row))
    return per_row[row], row


def best_case_alpha(n: int, rows: int, delta: float = DELTA) -> float:
    """The smallest alpha n questions could certify at all: a cell with no wrong quote, tested at
    delta / rows, is certified exactly when (1 - alpha)^n <= delta / rows."""
    return 1.0 - (delta / rows) ** (1.0 / n)


def questions_needed(alpha: float, rows: int, delta: float = DELTA) -> int:
    """How many questions certifying `alpha` takes at the least: the smallest n with (1 - alpha)^n <= delta /
    rows, the test a cell with no wrong quote passes (computed as `certify` computes it, so the two agree
    even where floating point makes the two sides equal)."""
    level = delta / rows
    n = max(1, math.ceil(math.log(level) / math.log1p(-alpha)))
    while n > 1 and risk_pvalue(0, 1, n - 1, alpha) <= level:
        n -= 1
    while risk_pvalue(0, 1, n, alpha) > level:
        n += 1
    return n
