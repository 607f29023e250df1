"""Cutoffs certified to keep the wrong-answer rate under a bound, in the style of Learn-then-Test
(Angelopoulos, Bates et al., 2021).

The risk at a cell is the **wrong-answer rate**: the chance that one answer the pipeline serves, to a
question drawn like these, is a wrong quote (with one repeat, the expected share of questions that get a
wrong quote; with repeats, of answers served). A quote not known to be correct (wrong, or unjudged)
counts as wrong. The test uses each question's FIRST repeat, fixed before looking: one served answer per
question, 0/1 losses, so an exact binomial test, and R repeats certify exactly what the first alone
would (the other repeats feed the score and the rates, not the guarantee).

For each cell the null "risk > alpha" gets an exact binomial p-value. At a fixed HAS_ANSWER_CUTOFF the
qualified set, and with it the candidate that would be quoted, is fixed, so raising ANSWER_CUTOFF can
only remove quotes: the loss never rises along a row. So each row is tested in a fixed sequence from its
highest ANSWER_CUTOFF down, each test at level delta / (number of rows), and the row stops at its first
non-rejection. The rejected cells are certified: with probability at least 1 - delta, every certified
cell's risk is at most alpha (Bonferroni over rows, fixed-sequence testing within a row).

With a production mix (a share S of answerable questions), the risk is S r_answer + (1 - S) r_none, the
two classes' wrong-answer rates; a cell's test rejects when S U_answer + (1 - S) U_none <= alpha, each U a
Clopper-Pearson upper bound at half the test's level, so the test keeps its level whatever the sample's
own mix (any valid tests may be chained in a fixed sequence).

A fixed sequence keeps its level in any order fixed in advance, but it certifies well only where the loss
cannot rise along it (a failure stops the row). A system that does not say of its second axis that raising
it can only remove quotes (the quote-answer API's configurations, say) has no such order: then every cell is
a family of its own, tested once at level delta / (number of cells) (Bonferroni over the cells, which needs
no order; `ordered` False). One configuration is one test at level delta.

The one assumption: the questions (within each class, with a mix) are a random sample of the questions
the pipeline will serve.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import probability
from .probability import binomial_cdf_table, risk_pvalue

DELTA = 0.1


@dataclass(frozen=True)
class Certificate:
    """The cells certified at `alpha` with confidence 1 - `delta`, and their p-values."""

    alpha: float
    delta: float
    n: int  # questions
    repeats: int
    pvalues: np.ndarray | None  # (H, A); None with a production mix (tested on bounds instead)
    certified: np.ndarray  # (H, A) bool
    share: float | None = None  # the production mix's answerable share, when the test is for that mix
    ordered: bool = True  # each row in a fixed sequence (False: every cell tested on its own)

    @property
    def families(self) -> int:
        """How many families delta is shared among: the rows, or, without an order, the cells."""
        return self.certified.shape[0] if self.ordered else self.certified.size

    @property
    def level(self) -> float:
        """Each test's level: delta shared among the families (`families`)."""
        return self.delta / self.families

    @property
    def any(self) -> bool:
        return bool(self.certified.any())

    @property
    def method(self) -> str:
        if self.share is not None:
            return "Clopper-Pearson per class, combined for the mix"
        return "exact binomial"


def pvalues(totals: np.ndarray, n: int, repeats: int, alpha: float) -> np.ndarray:
    """The p-value of "risk > alpha" at every cell (`probability.risk_pvalue`, all cells at once);
    `totals` are the integer loss totals (each question's loss times `repeats`, summed)."""
    table = binomial_cdf_table(n, alpha)
    if repeats == 1:
        return table[np.minimum(totals, n)]
    from scipy.special import rel_entr

    r = np.minimum(totals / (repeats * n), alpha)  # h1(min(r, alpha), alpha), the Bernoulli relative entropy
    hoeffding = np.exp(-n * (rel_entr(r, alpha) + rel_entr(1 - r, 1 - alpha)))
    bentkus = math.e * table[np.minimum(-(-totals // repeats), n)]
    return np.minimum(hoeffding, bentkus)


def families(values: np.ndarray, ordered: bool = True) -> np.ndarray:
    """A grid's cells (H, A) as the procedure's families: its rows, each tested from its last column down
    (`ordered`), or, without an order, every cell a family of one (H x A, 1)."""
    return values if ordered else values.reshape(-1, 1)


def fixed_sequence(p: np.ndarray, level: float) -> np.ndarray:
    """Each row tested from its last column (highest ANSWER_CUTOFF) towards the first, at `level`,
    stopping at the first p-value above it: the cells rejected before the stop (a running product of
    "rejected" from the right)."""
    return np.cumprod((p <= level)[:, ::-1], axis=1)[:, ::-1].astype(bool)


def certify(totals: np.ndarray, n: int, repeats: int, alpha: float, delta: float = DELTA, ordered: bool = True
            ) -> Certificate:
    """Certify the grid's cells at `alpha` with confidence 1 - `delta` (see the module docstring).

    `totals[h, a]` is the sum over questions and repeats of the 0/1 loss (an integer: the question's loss
    times `repeats`), for n questions.
    """
    p = families(pvalues(totals, n, repeats, alpha), ordered)
    certified = fixed_sequence(p, delta / p.shape[0]).reshape(totals.shape)
    return Certificate(alpha, delta, n, repeats, p.reshape(totals.shape), certified, ordered=ordered)


def upper_bound(total: int, n: int, repeats: int, delta: float = DELTA) -> float:
    """The 1 - delta upper confidence bound on one cell's risk, fixed before looking: the smallest alpha
    that cell alone would be certified at (for one repeat, the Clopper-Pearson bound): `upper_bounds` of one."""
    return float(upper_bounds(np.array([total]), n, delta, repeats)[0])


def smallest_certifiable(totals: np.ndarray, n: int, repeats: int, delta: float = DELTA, ordered: bool = True
                         ) -> tuple[float, int]:
    """The smallest alpha at which the grid procedure certifies some cell, and the row it does so in.

    A family certifies something exactly when its first test (a row's highest second-axis value; a cell alone
    without an order) rejects, and p-values fall as alpha grows, so this is the least over families of the
    alpha at which that first cell rejects.
    """
    first = families(totals, ordered)[:, -1]
    level = delta / len(first)
    # A family's bound never falls as its first cell's loss total grows (its p-value does not, at any alpha), so the
    # least bound is the least total's. It can stay level over a few larger totals (with several repeats the Bentkus
    # term counts ceil(total / repeats); and whenever every bound is 1), so those are bounded too, in rising order
    # until one is above it, and the row is the first family holding any of them: the alpha and the row that
    # bounding every family gives, in one or two bisections instead of one a family.
    distinct = np.unique(first)
    least = upper_bound(int(distinct[0]), n, repeats, level)
    tied = [int(distinct[0])]
    for total in distinct[1:]:
        if upper_bound(int(total), n, repeats, level) != least:
            break
        tied.append(int(total))
    found = int(np.flatnonzero(np.isin(first, tied))[0])
    return least, found if ordered else found // totals.shape[1]


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


def upper_bounds(totals: np.ndarray, n: int, level: float, repeats: int = 1) -> np.ndarray:
    """One-sided upper bounds at confidence 1 - `level` on the risk, for every element of `totals` (integer loss
    totals among `n` questions, each question's loss times `repeats`) at once: the one function that bounds a risk
    (`probability.upper_bounds`: for one repeat, Clopper-Pearson's, 1 when k = n, and 1 for no questions)."""
    return probability.upper_bounds(totals, n, repeats, level)


@dataclass(frozen=True)
class Mix:
    """The production mix a guarantee is for: answerable share `share`, each class's size and loss totals
    (first repeat) at every cell."""

    share: float
    n_answer: int
    n_none: int
    answer_totals: np.ndarray  # (H, A)
    none_totals: np.ndarray  # (H, A)

    def bounds(self, level: float) -> np.ndarray:
        """The mix's upper bound at every cell, each class bounded at level / 2."""
        return (self.share * upper_bounds(self.answer_totals, self.n_answer, level / 2)
                + (1 - self.share) * upper_bounds(self.none_totals, self.n_none, level / 2))

    def bound_at(self, cell: tuple[int, int], level: float) -> float:
        """One cell's bound, without an array of quantiles."""
        return (self.share * upper_bound(int(self.answer_totals[cell]), self.n_answer, 1, level / 2)
                + (1 - self.share) * upper_bound(int(self.none_totals[cell]), self.n_none, 1, level / 2))

    def observed(self) -> np.ndarray:
        """The mix's observed wrong-answer rate at every cell."""
        return (self.share * self.answer_totals / self.n_answer
                + (1 - self.share) * self.none_totals / self.n_none)

    def best_case(self, level: float) -> float:
        """The smallest rate the mix could certify: no wrong quote in either class."""
        zero = np.zeros(1)
        return float(self.share * upper_bounds(zero, self.n_answer, level / 2)[0]
                     + (1 - self.share) * upper_bounds(zero, self.n_none, level / 2)[0])


def certify_mix(mix: Mix, alpha: float, delta: float = DELTA, ordered: bool = True) -> Certificate:
    """Certify the grid's cells at `alpha` for a production mix (see the module docstring)."""
    shape = mix.answer_totals.shape
    tests = shape[0] if ordered else mix.answer_totals.size
    bounds = families(mix.bounds(delta / tests), ordered)  # a cell's test rejects when its bound <= alpha
    certified = fixed_sequence(bounds, alpha).reshape(shape)
    return Certificate(alpha, delta, mix.n_answer + mix.n_none, 1, None, certified, mix.share, ordered)


def mix_questions_needed(alpha: float, rows: int, delta: float, answer_share_of_sample: float, share: float,
                         limit: int = 10_000_000) -> int | None:
    """The fewest questions, sampled with the same share of answerable ones as these, that could certify
    `alpha` for the mix (no wrong quote in either class); None when even `limit` could not."""
    level = delta / rows

    def bound(n: int) -> float:
        n_answer = max(1, round(n * answer_share_of_sample))
        n_none = max(1, n - n_answer)
        return share * (1 - (level / 2) ** (1 / n_answer)) + (1 - share) * (1 - (level / 2) ** (1 / n_none))

    if bound(limit) > alpha:
        return None
    low, high = 2, limit
    while low < high:
        middle = (low + high) // 2
        if bound(middle) <= alpha:
            high = middle
        else:
            low = middle + 1
    return low
