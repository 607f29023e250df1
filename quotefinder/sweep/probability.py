"""The probability the statistics need, computed here and tested against direct computations: the
binomial distribution, the Hoeffding-Bentkus bound, the sign test, and inverting a monotone p-value.

Everything works in log space where tails get small, so a p-value of 1e-200 is a number, not 0 by
accident of rounding; a p-value that underflows past 1e-308 is 0, which only ever means "reject".
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np


def _log_pmf(n: int, p: float, upto: int) -> np.ndarray:
    """log P(Binomial(n, p) = j) for j = 0..upto, with 0 < p < 1."""
    j = np.arange(upto + 1, dtype=float)
    # log C(n, j) = sum over i <= j of log((n - i + 1) / i): one cumulative sum, accurate to ~1e-12
    log_choose = np.concatenate([[0.0], np.cumsum(np.log(n - j[1:] + 1) - np.log(j[1:]))])
    return log_choose + j * math.log(p) + (n - j) * math.log1p(-p)


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(Binomial(n, p) <= k), exactly up to floating point (the terms summed in log space)."""
    if k < 0:
        return 0.0
    if k >= n or p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    logs = _log_pmf(n, p, k)
    top = float(logs.max())
    return min(1.0, math.exp(top) * float(np.exp(logs - top).sum()))


def binomial_cdf_table(n: int, p: float) -> np.ndarray:
    """P(Binomial(n, p) <= k) for every k = 0..n, in one pass (for a grid of p-values at one p)."""
    if p <= 0.0:
        return np.ones(n + 1)
    if p >= 1.0:
        table = np.zeros(n + 1)
        table[n] = 1.0
        return table
    return np.minimum(np.cumsum(np.exp(_log_pmf(n, p, n))), 1.0)


def binomial_sf(k: int, n: int, p: float) -> float:
    """P(Binomial(n, p) >= k)."""
    return 1.0 - binomial_cdf(k - 1, n, p) if k > 0 else 1.0


def kl_bernoulli(a: float, b: float) -> float:
    """h1(a, b) = a ln(a/b) + (1-a) ln((1-a)/(1-b)), the Bernoulli relative entropy (0 ln 0 = 0)."""
    first = a * math.log(a / b) if a > 0 else 0.0
    second = (1 - a) * math.log((1 - a) / (1 - b)) if a < 1 else 0.0
    return first + second


def hoeffding_bentkus(total: int, repeats: int, n: int, alpha: float) -> float:
    """The Hoeffding-Bentkus p-value of "risk > alpha" for losses in [0, 1] with mean r over n questions:

        min(exp(-n h1(min(r, alpha), alpha)), e P(Binomial(n, alpha) <= ceil(n r)))

    `total / repeats` is n r exactly (each question's loss is a mean over `repeats` 0/1 losses), so
    ceil(n r) is computed in integers, never from a rounded float.
    """
    r = total / (repeats * n)
    hoeffding = math.exp(-n * kl_bernoulli(min(r, alpha), alpha))
    bentkus = math.e * binomial_cdf(-(-total // repeats), n, alpha)
    return min(hoeffding, bentkus)


def risk_pvalue(total: int, repeats: int, n: int, alpha: float) -> float:
    """The p-value of the null "the expected loss exceeds alpha", from `total` = the sum over n questions
    of each question's loss times `repeats`: exact binomial for one repeat (0/1 losses), Hoeffding-Bentkus
    for several (fractional losses)."""
    if repeats == 1:
        return binomial_cdf(total, n, alpha)
    return hoeffding_bentkus(total, repeats, n, alpha)


def smallest_passing(pvalue: Callable[[float], float], level: float, iterations: int = 60) -> float:
    """The smallest x in (0, 1] with pvalue(x) <= level, for a p-value that falls as x grows (bisection
    to 2**-iterations); 1.0 when even x = 1 does not pass."""
    if pvalue(1.0 - 1e-12) > level:
        return 1.0
    low, high = 0.0, 1.0 - 1e-12
    for _ in range(iterations):
        middle = (low + high) / 2
        if pvalue(middle) <= level:
            high = middle
        else:
            low = middle
    return high


def sign_test(worse: int, better: int) -> float:
    """One-sided exact sign test: P(at least `worse` of `worse + better` go the worse way), each way
    equally likely under the null of no change (by symmetry, P(X <= better): a lower tail summed directly,
    so a tiny p-value keeps its digits). 1.0 when nothing changed."""
    return binomial_cdf(better, worse + better, 0.5) if worse + better else 1.0
