"""Watching the shipped cutoffs over time: an anytime-valid confidence sequence for the wrong-answer rate.

A team that re-checks every month and stops the first time a test at level delta looks bad has run many tests:
twenty refreshes each tested at 10% alarm, under no change at all, far more often than 10% of the time. A
confidence sequence is a bound that holds at every refresh at once, however often it is looked at and whenever
one stops: with probability at least 1 - delta, the lower bound never passes a rate that held all along.

**The method.** Betting confidence sequences (Waudby-Smith & Ramdas, "Estimating means of bounded random variables by
betting", JRSSB 2024), one-sided. Each refresh k gives one observation X_k in [0, 1]: its sample's estimate of the
wrong-answer rate at the shipped cell (each question's share of wrong answers over its repeats, each label, as the
refresh recorded it, weighted by its share of the original run's questions, so that X_k is unbiased for the rate r_k on
the original's question mix at the time of refresh k; a label the refresh did not sample counts as never wrong, which
biases X_k low, E X_k <= r_k, all the argument below needs). For a candidate rate m the capital

    K_t(m) = prod_{k <= t} (1 + lambda_k(m) (X_k - m)),  lambda_k(m) = min(lambda_k, c / m),  c = 1/2,

is a nonnegative supermartingale while every r_k is at most m, for any bet lambda_k >= 0 fixed before X_k is seen (each
factor then has conditional mean at most 1, and stays at or above 1 - c). By Ville's inequality it ever reaches 1/delta
with probability at most delta. The bet is the paper's aGRAPA (the growth-rate-adaptive bet) aimed at alpha, the rate
that must not be passed, from the last `WINDOW` refreshes before k (so that a long calm history well below alpha does
not blunt it): lambda_k = max(0, (mu - alpha) / (s2 + (mu - alpha)^2)), mu their mean and s2 their spread, each started
from one pseudo-observation (alpha, and alpha (1 - alpha) / n_k, the spread of a mean of n_k answers at rate alpha; n_k,
refresh k's sample size, is fixed before its answers are seen). It stakes nothing while the rate looks like alpha, and
more as it rises. The bet is the same for every m and K_t(m) falls as m rises (the truncation only lowers a stake as m
grows, and each factor falls with m), so the rates not rejected form an interval above L_t: L_t, found by bisection and
kept as a running maximum, is the lower bound. With probability at least 1 - delta, L_t never exceeds the highest rate
up to t, at every t at once: with M_t that rate, and M_k <= M_t for k <= t, each factor falls as m rises, so K_t(M_t) <=
W_t = prod_{k <= t} (1 + lambda_k(M_k) (X_k - M_k)), one nonnegative supermartingale (E X_k <= r_k <= M_k), which by
Ville's inequality ever reaches 1/delta with probability at most delta; and each running maximum L_t = max_{s <= t} l_s
then has l_s <= M_s <= M_t. The alarm is K(alpha) having reached 1/delta at some refresh so far, the lower bound
reaching alpha: the rate has provably risen above alpha at some refresh. (No upper bound is reported: the same
construction bounds only the lowest rate so far, which says nothing once the rate has risen.)

A refresh's questions are one observation (their mean) rather than one each, because they are drawn without
replacement from the original's questions: their mean is unbiased, one by one they are not independent. The
validity rests on each refresh being a fresh random sample (its own seed) with fresh API responses, on the
refreshes being watched in the order they were made, none left out after the fact; the refreshes may share
questions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Values = Sequence[float] | np.ndarray  # observations in [0, 1], time on the last axis
TRUNCATION = 0.5  # c: a bet never stakes more than c / m, so that a loss never takes more than half the capital
BISECTIONS = 50


WINDOW = 5  # the refreshes the bet looks back on


def aimed_bets(xs: Values, target: float, spreads: Values, window: int = WINDOW) -> np.ndarray:
    """aGRAPA bets aimed at `target`: max(0, (mu - target) / (s2 + (mu - target)^2)) from the last `window`
    observations before each one, mu and s2 each started from one pseudo-observation (`target`, and that step's
    `spreads`, fixed before its observation)."""
    values = np.asarray(xs, dtype=float)
    spread = np.broadcast_to(np.asarray(spreads, dtype=float), values.shape[-1:])
    found = np.zeros(values.shape)
    for k in range(values.shape[-1]):
        seen = values[..., max(0, k - window):k]
        mu = (target + seen.sum(axis=-1)) / (seen.shape[-1] + 1)
        s2 = (spread[k] + ((seen - mu[..., None]) ** 2).sum(axis=-1)) / (seen.shape[-1] + 1)
        gap = mu - target
        found[..., k] = np.where(gap > 0, gap / np.maximum(s2 + gap**2, 1e-300), 0.0)
    return found


def capital(xs: Values, m: float, bets: np.ndarray, c: float = TRUNCATION) -> np.ndarray:
    """K_t(m) after each observation (last axis: time), for the null 'every rate so far is at most m'."""
    values = np.asarray(xs, dtype=float)
    stake = np.minimum(bets, c / m) if m > 0 else bets
    return np.cumprod(1 + stake * (values - m), axis=-1)


def lower_bounds(xs: Values, bets: np.ndarray, delta: float, c: float = TRUNCATION) -> list[float]:
    """The running lower confidence bound after each observation: with probability at least 1 - delta, none of
    them is ever above the highest rate up to it."""
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


def spreads_of(alpha: float, questions: Values) -> np.ndarray:
    """Each refresh's starting spread for the bet: alpha (1 - alpha) / n_k, the variance of a mean of n_k answers at
    rate alpha (n_k its sample size, known before its answers)."""
    return alpha * (1 - alpha) / np.maximum(np.asarray(questions, dtype=float), 1.0)


def alarms(xs: Values, alpha: float, delta: float, spreads: Values, c: float = TRUNCATION) -> np.ndarray:
    """After each observation (last axis), whether the capital against 'every rate so far is at most alpha' has
    reached 1/delta by then (`aimed_bets`): the alarm, raised at most delta of the time when no rate exceeds alpha."""
    wealth = capital(xs, alpha, aimed_bets(xs, alpha, spreads), c)
    return np.maximum.accumulate(wealth, axis=-1) >= 1 / delta


def bounds(xs: Values, alpha: float, delta: float, spreads: Values) -> tuple[list[float], np.ndarray, np.ndarray]:
    """(running lower bounds, the highest capital against alpha so far, the alarm) after each observation."""
    values = np.asarray(xs, dtype=float)
    aimed = aimed_bets(values, alpha, spreads)
    wealth = np.maximum.accumulate(capital(values, alpha, aimed), axis=-1)
    return lower_bounds(values, aimed, delta), wealth, wealth >= 1 / delta


@dataclass(frozen=True)
class Watch:
    """One refresh in the monitored sequence: when it began, how many questions, its estimate, and after it the
    running lower bound and the highest capital so far."""

    run: str
    started_at: str
    questions: int
    estimate: float
    lower: float
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
    lows, wealth, raised = bounds(xs, alpha, delta, spreads_of(alpha, [n for _, _, n, _ in refreshes]))
    watches = tuple(Watch(run, started, n, float(x), lo, float(k), bool(flag))
                    for (run, started, n, x), lo, k, flag in zip(refreshes, lows, wealth, raised, strict=True))
    return Monitor(original, point, alpha, delta, watches, evidence, reordered, tuple(cautions))
