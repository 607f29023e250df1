"""The distributions behind every p-value and bound, each scipy's (`scipy.special`: the binomial's `bdtr`, the
beta quantile `betaincinv`, Student's `stdtr` and `stdtrit`, the relative entropy `rel_entr`), named here for
what the statistics ask of them. `scipy.special` is imported where it is used, once per process (about 0.1 s);
`scipy.stats` (0.5 s more) only by the comparisons of systems and the drift, which need its tests.

scipy's binomial tails are accurate in relative terms far into the tail, so a p-value of 1e-200 is a number, not
0 by accident of rounding; one that underflows past 1e-308 is 0, which only ever means "reject".
"""

from __future__ import annotations

import math

import numpy as np


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(Binomial(n, p) <= k) (`scipy.special.bdtr`), with the edges a sum gives: 0 for k < 0, 1 for k >= n."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    from scipy.special import bdtr

    return float(bdtr(k, n, p))


def binomial_cdf_table(n: int, p: float) -> np.ndarray:
    """P(Binomial(n, p) <= k) for every k = 0..n (for a grid of p-values at one p)."""
    from scipy.special import bdtr

    table = np.ones(n + 1)
    table[:n] = bdtr(np.arange(n), n, p)
    return table


def kl_bernoulli(a: float, b: float) -> float:
    """h1(a, b) = a ln(a/b) + (1-a) ln((1-a)/(1-b)), the Bernoulli relative entropy (0 ln 0 = 0:
    `scipy.special.rel_entr`)."""
    from scipy.special import rel_entr

    return float(rel_entr(a, b) + rel_entr(1 - a, 1 - b))


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


def upper_bounds(totals: np.ndarray, n: int, repeats: int, level: float) -> np.ndarray:
    """The one-sided 1 - `level` upper confidence bound on the risk for each of `totals` (the integer loss totals
    over n questions, each question's loss times `repeats`), every element at once: the smallest alpha at which
    `risk_pvalue` reaches `level`, the alpha that total alone would be certified at. For one repeat, the
    Clopper-Pearson bound, the beta quantile (`scipy.special.betaincinv`; 1 when k = n, and 1 for no questions);
    for several, the Hoeffding-Bentkus p-value inverted by bisection (`scipy.optimize.bisect`, once per distinct
    total: bisection follows the p-value's side of the level alone, so two totals whose p-values cross it alike get
    the same bound to the last bit). Either way the bound is then moved up by the last few units in the last place
    that rounding left it short, so that a cell's test rejects at alpha exactly when its bound is at most alpha."""
    k = np.asarray(totals)
    if n <= 0:
        return np.ones(k.shape)
    distinct, where = np.unique(k, return_inverse=True)  # a bound depends on its total alone
    if repeats == 1:
        from scipy.special import betaincinv

        safe = np.minimum(distinct, n - 1).astype(float)  # the quantile is defined for k < n; k = n is bounded by 1
        found = np.where(distinct >= n, 1.0, np.minimum(betaincinv(safe + 1, n - safe, 1 - level), 1.0))
    else:
        found = np.array([_inverted(int(total), repeats, n, level) for total in distinct])
    return _passing(found, distinct, n, repeats, level)[where].reshape(k.shape)


def _inverted(total: int, repeats: int, n: int, level: float) -> float:
    """The smallest alpha in (0, 1) with `risk_pvalue` <= `level` (which falls as alpha grows), to 2^-60; 1 when
    none."""
    from scipy.optimize import bisect

    top = 1.0 - 1e-12
    if risk_pvalue(total, repeats, n, top) > level:
        return 1.0
    return float(bisect(lambda alpha: risk_pvalue(total, repeats, n, alpha) - level, 0.0, top, xtol=2.0**-60,
                        rtol=4 * np.finfo(float).eps))


def _passing(bounds: np.ndarray, totals: np.ndarray, n: int, repeats: int, level: float) -> np.ndarray:
    """`bounds`, each moved up by the fewest units in the last place that make its own p-value at most `level`
    (a quantile or a root is exact only to rounding)."""
    bounds = np.array(bounds, dtype=float)
    for at, total in enumerate(totals.tolist()):
        while bounds[at] < 1.0 and risk_pvalue(int(total), repeats, n, float(bounds[at])) > level:
            bounds[at] = np.nextafter(bounds[at], 2.0)
    return bounds


def t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with `df` degrees of freedom (`scipy.special.stdtr`)."""
    from scipy.special import stdtr

    return float(stdtr(df, -t))


def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t with `df` degrees of freedom, 0 < p < 1 (`scipy.special.stdtrit`)."""
    if not 0 < p < 1:
        raise ValueError(f"a quantile needs 0 < p < 1, not {p}")
    from scipy.special import stdtrit

    return float(stdtrit(df, p))


def sign_test(worse: int, better: int) -> float:
    """One-sided exact sign test: P(at least `worse` of `worse + better` go the worse way), each way
    equally likely under the null of no change (by symmetry, P(X <= better): a lower tail, so a tiny p-value
    keeps its digits). 1.0 when nothing changed."""
    return binomial_cdf(better, worse + better, 0.5) if worse + better else 1.0
