"""The distributions behind every p-value and bound (scipy's, named for what the statistics ask of them), held to
direct computations: exact binomial sums in rational arithmetic, the Hoeffding-Bentkus formula written out, each
bound inverted by brute force, Student's t by numerical integration."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from quotefinder.sweep.probability import (
    binomial_cdf,
    binomial_cdf_table,
    hoeffding_bentkus,
    kl_bernoulli,
    risk_pvalue,
    sign_test,
    t_quantile,
    t_sf,
    upper_bounds,
)


def exact_cdf(k: int, n: int, p: float) -> float:
    """P(Binomial(n, p) <= k) as an exact rational sum (p taken exactly as the float it is)."""
    q = Fraction(p)
    return float(sum(math.comb(n, i) * q**i * (1 - q) ** (n - i) for i in range(k + 1)))


@pytest.mark.parametrize(("k", "n", "p"), [
    (0, 10, 0.05), (3, 10, 0.3), (1, 1, 0.5), (0, 200, 0.01), (5, 200, 0.1), (50, 1000, 0.1),
    (499, 1000, 0.5), (12, 60, 0.05), (0, 400, 0.05), (7, 31, 0.4173),
])
def test_the_binomial_cdf_equals_the_exact_sum(k: int, n: int, p: float) -> None:
    expected = exact_cdf(k, n, p)
    assert binomial_cdf(k, n, p) == pytest.approx(expected, rel=1e-10, abs=1e-300)
    assert binomial_cdf_table(n, p)[k] == pytest.approx(expected, rel=1e-10, abs=1e-300)


def test_the_binomial_cdf_at_its_edges() -> None:
    assert binomial_cdf(-1, 10, 0.3) == 0.0 and binomial_cdf(10, 10, 0.3) == 1.0
    assert binomial_cdf(3, 10, 0.0) == 1.0 and binomial_cdf(3, 10, 1.0) == 0.0
    assert binomial_cdf(0, 20_000, 0.05) == pytest.approx(math.exp(20_000 * math.log(0.95)), rel=1e-9)


@pytest.mark.parametrize(("total", "repeats", "n", "alpha"), [
    (0, 3, 10, 0.2), (4, 3, 10, 0.2), (7, 3, 40, 0.1), (30, 5, 100, 0.05), (300, 3, 100, 0.5), (2, 2, 50, 0.02),
])
def test_hoeffding_bentkus_is_the_formula_written_out(total: int, repeats: int, n: int, alpha: float) -> None:
    r = Fraction(total, repeats * n)
    a = min(float(r), alpha)
    h1 = (a * math.log(a / alpha) if a > 0 else 0.0) + (1 - a) * math.log((1 - a) / (1 - alpha))
    ceiling = math.ceil(Fraction(n) * r)  # exactly, never from a rounded float
    expected = min(math.exp(-n * h1), math.e * exact_cdf(ceiling, n, alpha))
    assert hoeffding_bentkus(total, repeats, n, alpha) == pytest.approx(expected, rel=1e-10)
    assert risk_pvalue(total, repeats, n, alpha) == hoeffding_bentkus(total, repeats, n, alpha)


def test_n_times_r_is_rounded_up_in_integers() -> None:
    """10 questions, 3 repeats, 10 lossy quotes: n r = 10/3, ceil 4 (a float could have said 3.3333333333333335
    or 4.000000000000001 for other totals: 30 / 3 must give exactly 10, not 11)."""
    assert hoeffding_bentkus(30, 3, 10, 0.5) == pytest.approx(
        min(1.0, math.e * exact_cdf(10, 10, 0.5)), rel=1e-12)


def test_one_repeat_uses_the_exact_binomial() -> None:
    assert risk_pvalue(2, 1, 60, 0.05) == pytest.approx(exact_cdf(2, 60, 0.05), rel=1e-10)


def test_kl_bernoulli_with_zero_and_one() -> None:
    assert kl_bernoulli(0, 0.1) == pytest.approx(-math.log(0.9))
    assert kl_bernoulli(0.1, 0.1) == 0.0
    assert kl_bernoulli(1, 0.5) == pytest.approx(math.log(2))


def t_tail_by_integration(t: float, df: int) -> float:
    """P(T > t) by integrating Student's density from t outwards (Simpson's rule, then the far tail)."""
    c = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
    x = np.linspace(t, t + 400, 800_001)
    y = c * (1 + x * x / df) ** (-(df + 1) / 2)
    h = x[1] - x[0]
    return float(h / 3 * (y[0] + y[-1] + 4 * y[1:-1:2].sum() + 2 * y[2:-1:2].sum()))


@pytest.mark.parametrize(("t", "df", "published"), [
    (2.262157, 9, 0.025), (6.313752, 1, 0.05), (2.457262, 30, 0.01), (1.833113, 9, 0.05), (0.0, 4, 0.5),
])
def test_t_tails_match_published_quantiles_and_integration(t: float, df: int, published: float) -> None:
    assert t_sf(t, df) == pytest.approx(published, abs=2e-7)
    if df > 2:
        assert t_sf(t, df) == pytest.approx(t_tail_by_integration(t, df), abs=1e-7)
    assert t_sf(-t, df) == pytest.approx(1 - t_sf(t, df))


def test_the_sign_test_is_the_exact_binomial_tail() -> None:
    assert sign_test(2, 1) == pytest.approx(0.5)  # P(X >= 2), X ~ Binomial(3, 1/2) = 4/8
    assert sign_test(8, 1) == pytest.approx(10 / 512)
    assert sign_test(0, 5) == 1.0 and sign_test(0, 0) == 1.0
    assert sign_test(5, 0) == pytest.approx(1 / 32)


@pytest.mark.parametrize(("k", "n"), [(0, 10), (1, 10), (3, 40), (0, 100), (10, 10), (99, 1000)])
def test_the_bound_of_one_repeat_is_clopper_pearson_s(k: int, n: int) -> None:
    """The smallest alpha whose exact binomial p-value reaches the level: P(Bin(n, bound) <= k) = level, just
    above it a little below; for no loss 1 - level^(1/n); for k = n, 1."""
    bound = float(upper_bounds(np.array([k]), n, 1, 0.1)[0])
    if k == n:
        assert bound == 1.0
        return
    assert exact_cdf(k, n, bound) == pytest.approx(0.1, rel=1e-9) and exact_cdf(k, n, bound - 1e-9) > 0.1
    if k == 0:
        assert bound == pytest.approx(1 - 0.1 ** (1 / n), abs=1e-12)


@pytest.mark.parametrize(("totals", "repeats", "n", "level"), [
    ([0, 4, 7, 30], 3, 10, 0.1), ([0, 2, 9], 2, 50, 0.01), ([300], 3, 100, 0.05), ([30, 30, 5], 5, 100, 0.2),
])
def test_the_bound_of_several_repeats_inverts_hoeffding_bentkus(totals: list[int], repeats: int, n: int,
                                                                 level: float) -> None:
    """Brute force, on a fine grid of alpha: the bound is where the Hoeffding-Bentkus p-value first reaches the
    level (the p-value falls as alpha grows)."""
    bounds = upper_bounds(np.array(totals), n, repeats, level)
    alphas = np.linspace(1e-6, 1 - 1e-6, 20_001)
    for total, bound in zip(totals, bounds, strict=True):
        passing = [a for a in alphas if hoeffding_bentkus(total, repeats, n, a) <= level]
        assert bound <= (passing[0] if passing else 1.0) + 1e-9
        assert bound >= (passing[0] - (alphas[1] - alphas[0]) if passing else 1.0) - 1e-9
        if bound < 1:
            assert hoeffding_bentkus(total, repeats, n, bound) == pytest.approx(level, rel=1e-6)


def test_no_questions_bound_nothing() -> None:
    assert upper_bounds(np.array([0, 3]), 0, 1, 0.1).tolist() == [1.0, 1.0]


@pytest.mark.parametrize(("p", "df"), [(0.975, 1), (0.975, 9), (0.975, 49), (0.95, 49), (0.5, 3), (0.025, 12),
                                       (0.9999, 2.5)])
def test_the_t_quantile_and_tail_agree_with_scipy_stats(p: float, df: float) -> None:
    from scipy import stats

    assert t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-9, abs=1e-9)
    assert t_sf(t_quantile(p, df), df) == pytest.approx(1 - p, rel=1e-9, abs=1e-12)
    for t in (-3.0, -0.5, 0.0, 0.7, 2.0, 8.0):
        assert t_sf(t, df) == pytest.approx(stats.t.sf(t, df), rel=1e-9, abs=1e-13)
