"""Watching the shipped cutoffs over time: an anytime-valid confidence sequence for the wrong-answer rate.

A team that re-checks every month and stops the first time a test at level delta looks bad has run many tests:
twenty refreshes each tested at 10% alarm, under no change at all, far more often than 10% of the time. A
confidence sequence is a bound that holds at every refresh at once, however often it is looked at and whenever
one stops: with probability at least 1 - delta, the lower bound never passes a rate that held all along.

**The method.** Betting confidence sequences (Waudby-Smith & Ramdas, "Estimating means of bounded random
variables by betting", JRSSB 2024), one-sided. Each refresh k gives one observation X_k in [0, 1]: its sample's
estimate of the wrong-answer rate at the shipped cell (each question's share of wrong answers over its repeats,
each label weighted by its share of the original run's questions, so that X_k is unbiased for the rate on the
original's question mix at the time of refresh k, whatever the stratified sample's rounding). For a candidate
rate m the capital

    K_t(m) = prod_{k <= t} (1 + lambda_k(m) (X_k - m)),  lambda_k(m) = min(lambda_k, c / m),  c = 1/2,

is a nonnegative supermartingale whenever every refresh's expected X is at most m, for any bet lambda_k >= 0
fixed before X_k is seen (each factor then has conditional mean at most 1, and stays above 1 - c). By Ville's
inequality it ever reaches 1/delta with probability at most delta. The bet is the paper's aGRAPA (the
growth-rate-adaptive bet) aimed at alpha, the rate that must not be passed:
lambda_k = max(0, (mu - alpha) / (s2 + (mu - alpha)^2)) from the refreshes before k, mu their mean and s2 their
spread, each started from one pseudo-observation (alpha, and alpha (1 - alpha) / n, the spread of a mean of n
answers at rate alpha, n the refreshes' mean sample size, fixed by design): it stakes nothing while the rate looks
like alpha, and more as it rises. Because lambda_k does not depend on m, K_t(m) falls as m rises, so the values
m not yet rejected form an interval [L_t, 1]: L_t (found by bisection, kept as a running maximum) is the lower
bound, and the alarm, K_t(alpha) >= 1/delta at some t so far, is the lower bound passing alpha: the rate has
provably risen. The upper bound is the same construction for 1 - X, with the paper's predictable plug-in bet
(lambda_k = sqrt(2 log(1/delta) / (s2 k log(1 + k))), from 1/2 and 1/4).

A refresh's questions are one observation (their mean) rather than one each, because they are drawn without
replacement from the original's questions: their mean is unbiased, one by one they are not independent. The
validity rests on each refresh being a fresh random sample (its own seed) with fresh API responses; the
refreshes may share questions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Values = Sequence[float] | np.ndarray  # observations in [0, 1], time on the last axis
TRUNCATION = 0.5  # c: a bet never stakes more than c / m, so that a loss never takes more than half the capital
BISECTIONS = 50


def _before(values: np.ndarray, first: float) -> np.ndarray:
    """`values` shifted one step along time: what was known before each observation (`first` before the first)."""
    return np.concatenate([np.full(values.shape[:-1] + (1,), first), values[..., :-1]], axis=-1)


def aimed_bets(xs: Values, target: float, spread: float) -> np.ndarray:
    """aGRAPA bets aimed at `target`: max(0, (mu - target) / (s2 + (mu - target)^2)) from the observations before
    each one, mu and s2 each started from one pseudo-observation (`target`, and `spread`)."""
    values = np.asarray(xs, dtype=float)
    k = np.arange(1, values.shape[-1] + 1)
    mu = _before((target + np.cumsum(values, axis=-1)) / (k + 1), target)
    s2 = _before((spread + np.cumsum((values - mu) ** 2, axis=-1)) / (k + 1), spread)
    gap = mu - target
    with np.errstate(divide="ignore", invalid="ignore"):
        found = np.where(gap > 0, gap / (s2 + gap**2), 0.0)
    return np.nan_to_num(found, nan=0.0, posinf=0.0)


def plug_in_bets(xs: Values, delta: float) -> np.ndarray:
    """The predictable plug-in bets sqrt(2 log(1/delta) / (s2 k log(1 + k))), s2 from the observations before each
    one (mu from 1/2, s2 from 1/4)."""
    values = np.asarray(xs, dtype=float)
    k = np.arange(1, values.shape[-1] + 1)
    mu = _before((0.5 + np.cumsum(values, axis=-1)) / (k + 1), 0.5)
    s2 = _before((0.25 + np.cumsum((values - mu) ** 2, axis=-1)) / (k + 1), 0.25)
    return np.sqrt(2 * math.log(1 / delta) / (s2 * k * np.log1p(k)))


def capital(xs: Values, m: float, bets: np.ndarray, c: float = TRUNCATION) -> np.ndarray:
    """K_t(m) after each observation (last axis: time), for the null 'every expected X is at most m'."""
    values = np.asarray(xs, dtype=float)
    stake = np.minimum(bets, c / m) if m > 0 else bets
    return np.cumprod(1 + stake * (values - m), axis=-1)


def lower_bounds(xs: Values, bets: np.ndarray, delta: float, c: float = TRUNCATION) -> list[float]:
    """The running lower confidence bound after each observation: with probability at least 1 - delta, none of
    them is ever above the rate (a rate that changes: every rate so far)."""
    values = np.asarray(xs, dtype=float)
    threshold = 1 / delta
    found: list[float] = []
    best = 0.0
    for t in range(1, len(values) + 1):
        seen, stakes = values[:t], bets[:t]
        lo, hi = 0.0, 1.0  # K_t(1) <= 1 < 1/delta: 1 is never rejected; K_t(lo) >= 1/delta holds or lo = 0
        if capital(seen, 1e-12, stakes, c)[-1] < threshold:
            hi = 0.0
        for _ in range(BISECTIONS):
            mid = (lo + hi) / 2
            if capital(seen, mid, stakes, c)[-1] >= threshold:
                lo = mid
            else:
                hi = mid
        best = max(best, lo)
        found.append(best)
    return found


def bounds(xs: Values, alpha: float, delta: float, spread: float) -> tuple[list[float], list[float], np.ndarray,
                                                                           np.ndarray]:
    """(running lower bounds, running upper bounds, the capital against alpha, the alarm) after each observation:
    each bound one-sided at confidence 1 - delta."""
    values = np.asarray(xs, dtype=float)
    aimed = aimed_bets(values, alpha, spread)
    lows = lower_bounds(values, aimed, delta)
    highs = [1 - b for b in lower_bounds(1 - values, plug_in_bets(1 - values, delta), delta)]
    wealth = capital(values, alpha, aimed)
    return lows, highs, wealth, alarms(values, alpha, delta, spread)


def alarms(xs: Values, alpha: float, delta: float, spread: float, c: float = TRUNCATION) -> np.ndarray:
    """After each observation (last axis), whether the capital against 'the rate is at most alpha' has reached
    1/delta by then (`aimed_bets`): the alarm, raised at most delta of the time when the rate never exceeds alpha."""
    wealth = capital(xs, alpha, aimed_bets(xs, alpha, spread), c)
    return np.maximum.accumulate(wealth, axis=-1) >= 1 / delta


def spread_of(alpha: float, questions: Sequence[int]) -> float:
    """The bets' starting spread: alpha (1 - alpha) / n, the variance of a mean of n answers at rate alpha, n the
    refreshes' mean sample size."""
    return alpha * (1 - alpha) / max(float(np.mean(questions)), 1.0)
@dataclass(frozen=True)
class Watch:
    """One refresh in the monitored sequence: when, how many questions, its estimate, and the running bounds and
    capital after it."""

    run: str
    started_at: str
    questions: int
    estimate: float
    lower: float
    upper: float
    capital: float
    alarm: bool


@dataclass(frozen=True)
class Monitor:
    """The refreshes of one run at one cell, in time order, watched against `alpha` at confidence 1 - `delta`."""

    original: str
    point: tuple[float, float]
    alpha: float
    delta: float
    watches: tuple[Watch, ...]
    evidence: str
    reordered: bool = False  # the refreshes were given out of time order (they are watched in time order)
    cautions: tuple[str, ...] = ()

    @property
    def first_alarm(self) -> int | None:
        """The index of the first refresh after which the alarm holds, or None."""
        return next((n for n, w in enumerate(self.watches) if w.alarm), None)

    @property
    def alarmed(self) -> bool:
        return self.first_alarm is not None


def watch(original: str, point: tuple[float, float], alpha: float, delta: float,
          refreshes: Sequence[tuple[str, str, int, float]], evidence: str, reordered: bool = False,
          cautions: Sequence[str] = ()) -> Monitor:
    """The monitor over `refreshes` (run, started_at, questions, estimate), already in time order."""
    xs = np.array([estimate for *_, estimate in refreshes], dtype=float)
    lows, highs, wealth, raised = bounds(xs, alpha, delta, spread_of(alpha, [n for _, _, n, _ in refreshes]))
    watches = tuple(Watch(run, started, n, float(x), lo, hi, float(k), bool(flag))
                    for (run, started, n, x), lo, hi, k, flag in zip(refreshes, lows, highs, wealth, raised,
                                                                      strict=True))
    return Monitor(original, point, alpha, delta, watches, evidence, reordered, tuple(cautions))
