"""The guarantee on the wrong-answer rate: the loss never rises along a row (which the fixed-sequence test needs), the
p-values are the direct ones, and a seeded simulation shows the certified cells hold their bound."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from conftest import decided, judged_curve, random_repeats
from quotefinder.questions import Outcome
from quotefinder.sweep.analysis import loss_totals
from quotefinder.sweep.grid import Table, parse_axis
from quotefinder.sweep.guarantee import (
    Mix,
    best_case_alpha,
    certify,
    certify_mix,
    fixed_sequence,
    mix_questions_needed,
    pvalues,
    questions_needed,
    smallest_certifiable,
    upper_bound,
    upper_bounds,
)
from quotefinder.sweep.probability import binomial_cdf, risk_pvalue

AXIS = parse_axis("0:1:0.05")


def slow_totals(runs, h, a) -> np.ndarray:
    """Quotes not known to be correct, per cell, summed over questions and repeats, from `decide`."""
    totals = np.zeros((len(h), len(a)), dtype=int)
    for i, hv in enumerate(h):
        for j, av in enumerate(a):
            for run in runs:
                totals[i, j] += sum(1 for d, o in decided(run, hv, av)
                                    if d.quote is not None and o in (Outcome.WRONG, Outcome.UNJUDGED))
    return totals


@pytest.mark.parametrize("seed", range(10))
def test_the_loss_never_rises_as_answer_cutoff_rises(seed: int) -> None:
    """At a fixed HAS_ANSWER_CUTOFF the qualified set, so the candidate that would be quoted, is fixed, and
    a higher ANSWER_CUTOFF can only withhold its quote: question by question, repeat by repeat."""
    runs = random_repeats(seed, questions=15, repeats=3)
    h, a = AXIS.values, AXIS.values
    for run in runs:
        for hv in h:
            losses = np.array([[d.quote is not None and o is not Outcome.CORRECT for d, o in decided(run, hv, av)]
                               for av in a])  # (A, Q)
            assert (np.diff(losses.astype(int), axis=0) <= 0).all()
    tables = [Table.of([judged_curve(q, t) for q, t in run], h) for run in runs]
    totals = loss_totals(tables, a)
    assert np.array_equal(totals, slow_totals(runs, h, a))
    assert (np.diff(totals, axis=1) <= 0).all()


@pytest.mark.parametrize("repeats", [1, 3])
def test_every_p_value_is_the_direct_one(repeats: int) -> None:
    rng = np.random.default_rng(repeats)
    totals = np.sort(rng.integers(0, 40 * repeats, (5, 7)), axis=1)[:, ::-1]
    got = pvalues(totals, 40, repeats, 0.1)
    direct = np.array([[risk_pvalue(int(t), repeats, 40, 0.1) for t in row] for row in totals])
    assert np.allclose(got, direct, rtol=1e-12, atol=0)


def test_fixed_sequence_stops_each_row_at_its_first_failure() -> None:
    rng = np.random.default_rng(0)
    for _ in range(50):
        p = rng.random((6, 9)) * rng.choice([0.01, 0.1, 1.0])
        expected = np.zeros(p.shape, dtype=bool)
        for row in range(6):
            for column in reversed(range(9)):
                if p[row, column] > 0.02:
                    break
                expected[row, column] = True
        assert np.array_equal(fixed_sequence(p, 0.02), expected)


def population(rows: int = 16, columns: int = 20):
    """Questions quoted when their compare probability u ~ U(0, 1) passes ANSWER_CUTOFF a, each quote wrong
    with probability rho_h in row h: the true risk at (h, a) is exactly (1 - a) rho_h. Many cells lie just
    above 5%, so a procedure that tests too loosely certifies some of them."""
    a = np.linspace(0, 0.95, columns)
    rho = np.linspace(0.052, 0.2, rows)
    return a, rho, (1 - a)[None, :] * rho[:, None]


def draw_totals(rng: np.random.Generator, a: np.ndarray, rho: np.ndarray, n: int, repeats: int) -> np.ndarray:
    u = rng.random(n)
    quoted = (u[:, None] >= a[None, :]).astype(int)
    wrong = (rng.random((repeats, n, len(rho))) < rho[None, None, :]).astype(int)  # each repeat's own verdict
    return np.einsum("rnh,na->ha", wrong, quoted)


@pytest.mark.slow
@pytest.mark.parametrize("repeats", [1, 3])
def test_a_seeded_simulation_keeps_the_family_wise_error_under_delta(repeats: int) -> None:
    alpha, delta, n, draws = 0.05, 0.1, 400, 2000
    a, rho, risk = population()
    rng = np.random.default_rng(2026 + repeats)
    failures = loose = certified = 0
    for _ in range(draws):
        totals = draw_totals(rng, a, rho, n, repeats)
        certificate = certify(totals, n, repeats, alpha, delta)
        failures += bool((certificate.certified & (risk > alpha)).any())
        certified += int(certificate.certified.sum())
        loose += bool((fixed_sequence(certificate.pvalues, delta) & (risk > alpha)).any())
    slack = 3 * np.sqrt(delta * (1 - delta) / draws)
    assert failures / draws <= delta + slack  # the guarantee
    assert certified / draws > 20  # ... while certifying a good part of the safe cells (140 of 320)
    if repeats == 1:
        # The same simulation catches a procedure that forgets to share delta among the rows.
        assert loose / draws > delta + slack


def test_the_smallest_alpha_and_the_questions_it_needs_are_exact() -> None:
    rows, delta = 21, 0.1
    for n in (10, 60, 300):
        best = best_case_alpha(n, rows, delta)
        clean = np.zeros((rows, 5), dtype=int)
        assert certify(clean, n, 1, best * (1 + 1e-9), delta).any
        assert not certify(clean, n, 1, best * (1 - 1e-6), delta).any
    needed = questions_needed(0.05, rows, delta)
    clean = np.zeros((rows, 5), dtype=int)
    assert certify(clean, needed, 1, 0.05, delta).any and not certify(clean, needed - 1, 1, 0.05, delta).any
    assert questions_needed(0.05, 1, 0.05) == 59  # (0.95)^59 <= 0.05 < (0.95)^58


def test_the_smallest_certifiable_alpha_is_where_the_grid_starts_certifying() -> None:
    rng = np.random.default_rng(5)
    totals = np.sort(rng.integers(0, 30, (6, 8)), axis=1)[:, ::-1]
    for repeats in (1, 2):
        alpha, row = smallest_certifiable(totals, 100, repeats, 0.1)
        assert certify(totals, 100, repeats, alpha + 1e-9, 0.1).certified[row].any()
        assert not certify(totals, 100, repeats, alpha - 1e-6, 0.1).any


def test_the_smallest_certifiable_alpha_is_the_least_of_every_familys_own_bound_bit_for_bit() -> None:
    """The slow, obvious reference: every family's first cell bounded on its own, the least taken (the first such
    family on a tie). The fast form bounds the least total's cell and the next totals while their bound is level
    with it; on random grids, ordered and not, one repeat and three, it gives the same alpha to the last bit and
    the same row. Bounds are level across different totals with three repeats (the Bentkus term counts
    ceil(total / 3): 17 and 18 of 50 questions) and when every bound rounds to 1 (a tiny delta): there the first family
    holding the least bound is not the one holding the least total."""
    def reference(totals: np.ndarray, n: int, repeats: int, delta: float, ordered: bool) -> tuple[float, int]:
        first = totals[:, -1] if ordered else totals.reshape(-1)
        bounds = [upper_bound(int(total), n, repeats, delta / len(first)) for total in first]
        found = int(np.argmin(bounds))
        return bounds[found], found if ordered else found // totals.shape[1]

    cases = [(np.array([[18], [17]]), 50, 3, 0.1), (np.array([[10], [9]]), 10, 1, 1e-16)]  # (both bounds 1)
    assert reference(*cases[0], True)[1] == 0 and reference(*cases[1], True)[1] == 0  # not the least total's row
    for seed in range(6):
        rng = np.random.default_rng(seed)
        for trial in range(12):
            rows, columns, n = int(rng.integers(1, 7)), int(rng.integers(1, 5)), int(rng.integers(5, 200))
            repeats = (1, 3)[trial % 2]
            cases.append((rng.integers(0, max(1, n * repeats // 4), size=(rows, columns)), n, repeats, 0.1))
    for totals, n, repeats, delta in cases:
        for ordered in (True, False):
            assert smallest_certifiable(totals, n, repeats, delta, ordered) == reference(totals, n, repeats, delta,
                                                                                         ordered), (totals, n, repeats)


@pytest.mark.parametrize(("k", "n"), [(0, 10), (1, 10), (4, 60), (30, 300)])
def test_the_bound_at_one_point_is_the_clopper_pearson_bound(k: int, n: int) -> None:
    bound = upper_bound(k, n, 1, 0.1)
    assert binomial_cdf(k, n, bound) <= 0.1 < binomial_cdf(k, n, bound - 1e-9)


def test_the_family_wise_error_matches_its_exact_value_where_that_can_be_computed() -> None:
    """Rows whose loss does not depend on ANSWER_CUTOFF (every question quoted everywhere, each quote wrong
    with probability rho just above ALPHA): a row is certified, all or nothing, exactly when its loss
    count k passes the first test, P(Binomial(n, ALPHA) <= k) <= DELTA / rows. That makes the family-wise
    error exact: 1 - prod over rows of (1 - P(Binomial(n, rho) <= k*)). The simulation must agree with it
    and the exact value must stay under DELTA, while the same computation puts two wrong procedures over it:
    one that does not share DELTA among the rows, one that tests with P(Binomial < k)."""
    from quotefinder.sweep.probability import binomial_cdf_table

    alpha, delta, n, rows = 0.1, 0.1, 200, 2
    rho = alpha + 1e-6  # just above: every certification is a false one

    def largest_passing(level: float, strict: bool = False) -> int:
        table = binomial_cdf_table(n, alpha)
        p = np.concatenate([[0.0], table[:-1]]) if strict else table  # strict: P(X < k) = P(X <= k - 1)
        return int(np.flatnonzero(p <= level).max())

    def exact(k: int) -> float:
        return 1 - (1 - binomial_cdf(k, n, rho)) ** rows

    assert exact(largest_passing(delta / rows)) <= delta
    assert exact(largest_passing(delta)) > delta  # the level not shared among the rows
    assert exact(largest_passing(delta / rows, strict=True)) > delta  # P(X < k) instead of P(X <= k)
    rng = np.random.default_rng(11)
    draws = 4000
    failures = 0
    for _ in range(draws):
        counts = rng.binomial(n, rho, size=rows)
        totals = np.repeat(counts[:, None], 5, axis=1)
        failures += bool(certify(totals, n, 1, alpha, delta).any)
    expected = exact(largest_passing(delta / rows))
    assert abs(failures / draws - expected) <= 4 * np.sqrt(expected * (1 - expected) / draws)


def test_the_questions_needed_agree_with_certification_where_floats_tie() -> None:
    """rows 2, DELTA 0.25, ALPHA 0.5: (1/2)^3 = 0.125 = DELTA / rows, but the p-value computed in floats is
    0.12500000000000003, so three clean questions do not certify; the count says four."""
    needed = questions_needed(0.5, 2, 0.25)
    clean = np.zeros((2, 3), dtype=int)
    assert certify(clean, needed, 1, 0.5, 0.25).any and not certify(clean, needed - 1, 1, 0.5, 0.25).any


def test_the_vectorised_bounds_are_the_bisected_clopper_pearson_bounds_and_scipys() -> None:
    from scipy import stats

    for n in (1, 7, 60, 1000):
        k = np.unique(np.linspace(0, n, 9).round().astype(int))
        bounds = upper_bounds(k, n, 0.1 / 21)
        assert np.allclose(bounds, [upper_bound(int(x), n, 1, 0.1 / 21) for x in k], atol=1e-9)
        # the one-sided Clopper-Pearson bound is the beta quantile (1 at k = n)
        reference = np.where(k < n, stats.beta.ppf(1 - 0.1 / 21, k + 1, np.maximum(n - k, 1)), 1.0)
        assert np.allclose(bounds, reference, atol=1e-9)


def two_classes(rows: int = 8, columns: int = 12):
    """Answerable questions are quoted wrong rarely, unanswerable ones often (every quote on a question that
    expects no answer is wrong): the true wrong-answer rate of each class at (h, a) is (1 - a) rho_h."""
    a = np.linspace(0, 0.9, columns)
    rho_answer = np.linspace(0.01, 0.04, rows)
    rho_none = np.linspace(0.10, 0.30, rows)
    return a, rho_answer, rho_none


def draw_class(rng: np.random.Generator, a: np.ndarray, rho: np.ndarray, n: int) -> np.ndarray:
    u = rng.random(n)
    quoted = (u[:, None] >= a[None, :]).astype(int)
    wrong = (rng.random((n, len(rho))) < rho[None, :]).astype(int)
    return np.einsum("nh,na->ha", wrong, quoted)


@pytest.mark.slow
def test_with_a_production_mix_the_guarantee_holds_for_that_mix() -> None:
    """A 50/50 sample, served in production as 30% answerable: the rate that matters is 0.3 r_answer + 0.7
    r_none. Certifying the pooled sample (what the sweep did before) bounds the sampled mix instead, and a
    'certified' cell then exceeds ALPHA in truth in most samples; the per-class bounds combined for the mix
    keep the family-wise error under DELTA. 2,000 draws: Monte-Carlo s.e. 0.67% at DELTA = 10%."""
    alpha, delta, share, n_each, draws = 0.1, 0.1, 0.3, 200, 2000
    a, rho_answer, rho_none = two_classes()
    risk = (1 - a)[None, :] * (share * rho_answer + (1 - share) * rho_none)[:, None]
    rng = np.random.default_rng(16)
    mix_failures = pooled_failures = certified = 0
    for _ in range(draws):
        answer, none = draw_class(rng, a, rho_answer, n_each), draw_class(rng, a, rho_none, n_each)
        mix = Mix(share, n_each, n_each, answer, none)
        by_mix = certify_mix(mix, alpha, delta).certified
        pooled = certify(answer + none, 2 * n_each, 1, alpha, delta).certified
        mix_failures += bool((by_mix & (risk > alpha)).any())
        pooled_failures += bool((pooled & (risk > alpha)).any())
        certified += int(by_mix.sum())
    slack = 3 * np.sqrt(delta * (1 - delta) / draws)
    assert mix_failures / draws <= delta + slack
    assert pooled_failures / draws > 0.5  # the sampled mix's guarantee, read for the production mix
    assert certified / draws > 5  # ... while still certifying safe cells


def test_the_mix_bound_at_one_cell_is_the_array_bound() -> None:
    rng = np.random.default_rng(3)
    answer, none = rng.integers(0, 40, (4, 6)), rng.integers(0, 60, (4, 6))
    mix = Mix(0.7, 40, 60, answer, none)
    bounds = mix.bounds(0.025)
    for cell in [(0, 0), (3, 5), (2, 1)]:
        assert mix.bound_at(cell, 0.025) == pytest.approx(bounds[cell], abs=1e-9)
    assert mix.observed()[1, 2] == pytest.approx(0.7 * answer[1, 2] / 40 + 0.3 * none[1, 2] / 60)


def test_the_questions_a_mix_needs_certify_and_one_fewer_does_not() -> None:
    rows, delta, alpha, share = 21, 0.1, 0.1, 0.3
    needed = mix_questions_needed(alpha, rows, delta, 0.5, share)
    assert needed is not None

    def clean(n: int) -> bool:
        n_answer = max(1, round(n * 0.5))
        zeros = np.zeros((rows, 3), dtype=int)
        return certify_mix(Mix(share, n_answer, max(1, n - n_answer), zeros, zeros), alpha, delta).any

    assert clean(needed) and not clean(needed - 1)


def test_without_an_order_every_cell_is_tested_on_its_own_at_delta_over_the_cells() -> None:
    """A system whose axes cannot only remove quotes (the quote-answer API's configurations): each cell's exact
    binomial test at delta / cells (Bonferroni), held to scipy.stats.binom directly."""
    rng = np.random.default_rng(11)
    n, alpha, delta = 120, 0.1, 0.1
    totals = rng.integers(0, 25, size=(4, 3))
    certificate = certify(totals, n, 1, alpha, delta, ordered=False)
    direct = stats.binom.cdf(totals, n, alpha) <= delta / totals.size
    assert certificate.families == 12 and certificate.level == pytest.approx(delta / 12)
    assert np.array_equal(certificate.certified, direct) and direct.any() and not direct.all()
    smallest, row = smallest_certifiable(totals, n, 1, delta, ordered=False)
    bounds = [[upper_bound(int(t), n, 1, delta / totals.size) for t in line] for line in totals]
    assert smallest == pytest.approx(np.min(bounds)) and row == int(np.argmin(np.min(bounds, axis=1)))


def test_a_seeded_simulation_keeps_the_unordered_family_wise_error_under_delta() -> None:
    """Risks that rise and fall along the rows, most cells just above alpha: the unordered procedure keeps the
    family-wise error under delta; one that forgot to share delta among the cells would not. 2,000 draws:
    Monte-Carlo s.e. 0.67% at delta = 10%."""
    alpha, delta, n, draws = 0.1, 0.1, 300, 2000
    rng = np.random.default_rng(7)
    risk = np.array([[0.11, 0.02, 0.12], [0.03, 0.115, 0.11], [0.12, 0.11, 0.01], [0.105, 0.04, 0.11]])
    failures = loose = certified = 0
    for _ in range(draws):
        totals = rng.binomial(n, risk)
        found = certify(totals, n, 1, alpha, delta, ordered=False)
        failures += bool((found.certified & (risk > alpha)).any())
        certified += int(found.certified.sum())
        loose += bool(((found.pvalues <= delta) & (risk > alpha)).any())
    slack = 3 * np.sqrt(delta * (1 - delta) / draws)
    assert failures / draws <= delta + slack
    assert certified / draws > 2  # ... while certifying most of the four safe cells
    assert loose / draws > delta + slack


def test_a_system_without_an_order_is_certified_cell_by_cell(monkeypatch) -> None:
    """`analyse` asks the system: where its second axis does not promise to only remove quotes, the certificate
    is the unordered one, named so in the guarantee."""
    import dataclasses as dc

    from conftest import random_repeats, replayed_of
    from quotefinder.recipe.system import QUOTE_FINDER
    from quotefinder.sweep import analysis
    from quotefinder.sweep.analysis import Settings, analyse

    class Unordered:
        name = "unordered"
        axes = (QUOTE_FINDER.axes[0], dc.replace(QUOTE_FINDER.axes[1], removes_quotes=False))

    monkeypatch.setattr(analysis, "system", lambda name: Unordered())
    axis = parse_axis("0:1:0.25")
    replayed = replayed_of(random_repeats(3, questions=40, repeats=1))
    found = analyse(replayed, axis, axis, Settings(max_wrong_rate=0.3, folds=0)).guarantee
    assert not found.ordered and found.rows == 25 and not found.certificate.ordered
    direct = certify(found.totals, 40, 1, 0.3, found.delta, ordered=False)
    assert np.array_equal(found.certificate.certified, direct.certified) and direct.certified.any()
