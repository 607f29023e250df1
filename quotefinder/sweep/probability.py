"""The probability the statistics need, computed here and tested against direct computations: the
binomial distribution, the Hoeffding-Bentkus bound, Student's t, and inverting a monotone p-value.

Everything works in log space where tails get small, so a p-value of 1e-200 is a number, not 0 by
accident of rounding; a p-value that underflows past 1e-308 is 0, which only ever means "reject".
"""

from __future__ import annotations

import functools
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


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), for a, b > 0 and 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1.0 - x) / b


def t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with `df` degrees of freedom. Written here, not taken from `scipy.stats`, because
    importing that costs every sweep 0.5-0.65 s (a repeated 101 x 101 sweep of 10,000 questions takes about 1.6 s);
    the tests hold it and `t_quantile` to scipy's."""
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return tail if t > 0 else 1.0 - tail


@functools.lru_cache(maxsize=64)  # the same few (p, df) again and again
def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t with `df` degrees of freedom (0 < p < 1), by bisection on `t_sf` to 1e-12
    (relative)."""
    if not 0 < p < 1:
        raise ValueError(f"a quantile needs 0 < p < 1, not {p}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1 - p, df)
    low, high = 0.0, 1.0
    while t_sf(high, df) > 1 - p:
        low, high = high, 2 * high
    while high - low > 1e-12 * max(1.0, high):
        middle = (low + high) / 2
        low, high = (middle, high) if t_sf(middle, df) > 1 - p else (low, middle)
    return (low + high) / 2


def sign_test(worse: int, better: int) -> float:
    """One-sided exact sign test: P(at least `worse` of `worse + better` go the worse way), each way
    equally likely under the null of no change (by symmetry, P(X <= better): a lower tail summed directly,
    so a tiny p-value keeps its digits). 1.0 when nothing changed."""
    return binomial_cdf(better, worse + better, 0.5) if worse + better else 1.0
