"""Watching the shipped cutoffs over time: an anytime-valid test, and lower confidence bound, for the wrong-answer rate.

A team that re-checks every month and stops the first time a test at level delta looks bad has run many tests:
twenty refreshes each tested at 10% alarm, under no change at all, far more often than 10% of the time. The monitor's
alarm holds its level however often it is looked at and whenever one stops: while no refresh's rate exceeds alpha,
the chance that it EVER alarms is at most delta.

**The evidence: every refreshed question.** Refresh k samples n_{k,l} of the original's N_l questions of each label l
(without replacement, N questions in all) and records them afresh; question i's loss y_i in [0, 1] is its share of
wrong answers at the shipped cell over its repeats. Weighted by its label's share of the original's questions, z_i =
w_l y_i with w_l = (N_l / N) n_k / n_{k,l}, their mean X_k is the stratified estimate of r_k, the rate on the
original's question mix at the time of refresh k (`drift.weighted_estimate`; a label the refresh did not sample counts
as never wrong, which only lowers X_k). Every z_i lies in [0, b_k], b_k = max_l w_l, and n_k / b_k = min_l n_{k,l} /
(N_l / N) =: e_k, the refresh's effective questions (about n_k under proportional allocation), fixed by its design
before any answer is seen.

**The bet.** Against "r_k <= m", each question of refresh k, in any fixed order, multiplies the bettor's capital by
exp((z_i log rho - m (rho - 1)) / b_k), one stake for the whole refresh; over the refresh that is

    F_k(rho, m) = exp(e_k (X_k log rho - m (rho - 1))),

the log-optimal bet when the rate is rho times m. E[F_k | the past] <= 1 whenever r_k <= m: (1) a loss y in [0, 1]
with mean p has E exp(t y) <= 1 + p (e^t - 1) (convexity), given its question; (2) within a label, for questions drawn
without replacement, the mean of a convex function (exp) of a sum is at most its mean with replacement (Hoeffding
1963, Theorem 4), which is (1 + r_l (e^t - 1))^{n_{k,l}} <= exp(n_{k,l} r_l (e^t - 1)) with r_l the label's rate and
t = w_l log(rho) / b_k; (3) as (e^{w lambda} - 1) / w rises with w, the labels' exponents sum to at most n_k m
(rho - 1) / b_k when sum_l (N_l / N) r_l <= m. The fresh answers must be independent across questions given the
questions, and each refresh a fresh sample (its own seed).

**The mixture.** The alarm's statistic mixes bets over ratios rho in `RATIOS` (equal weights) and over start times s,
weight 1/(s (s + 1)) (summing to 1):

    E_t(m) = sum_{s <= t} 1/(s (s + 1)) mean_rho prod_{s <= k <= t} F_k(rho, m),

computed by the recursion A_t = F_t (A_{t-1} + w_t) per rho. Each product started at s is a test supermartingale from s
on (1 before s) while every rate is at most m, so their mixture is one with initial value 1, and E_t never exceeds it;
by Ville's inequality, P(E_t(m) ever reaches 1/delta) <= delta. The alarm is E_t(alpha) >= 1/delta at some refresh so
far. The start times keep a long calm from blunting the alarm: a calm just under alpha costs every product running
through it, but one started after it pays only log(s (s + 1)) for its late start. This is the Shiryaev-Roberts
e-detector of Shin, Ramdas & Rinaldo (2023, "E-detectors"), A_t = F_t (A_{t-1} + 1), with start weights summing to 1
instead of 1 each: theirs bounds the average run length to a false alarm, these bound the chance of ever alarming.

**The lower bound.** F_k falls as m rises, so E_t does, and the rates rejected after refresh t form an interval below
l_t = sup {m : E_t(m) >= 1/delta} (bisection); L_t, the running maximum of l_t, is reported. With probability at least
1 - delta, L_t never exceeds the highest rate up to t, at every t at once: with M_k the highest rate up to k (the rates
a fixed sequence), E_t(M_t) is at most the same mixture with each F_k taken at M_k, one test supermartingale since r_k
<= M_k. The alarm holds exactly when L_t reaches alpha.

The validity rests on each refresh being a fresh random sample (its own seed) with fresh API responses, the
refreshes watched in the order they were made, none left out after the fact; the refreshes may share questions.
Looked at within a refresh, question by question, it claims nothing: only after each whole refresh.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

RATIOS = np.array([1.25, 1.5, 2.0, 3.0, 5.0, 10.0])  # rho: each bet is log-optimal at a rate rho times the one tested
BISECTIONS = 50


@dataclass(frozen=True)
class Weighted:
    """One refresh at the shipped cell: its stratified estimate X_k of the wrong-answer rate (NaN without a question)
    and its effective questions e_k = min over the labels sampled of (sampled / the label's share of the original's
    questions), the n of the bet."""

    estimate: float
    effective: float


def start_weights(refreshes: int) -> np.ndarray:
    """1 / (s (s + 1)) for s = 1 .. refreshes: the prior on when the rate rose, summing to 1 over all s."""
    s = np.arange(1, refreshes + 1, dtype=float)
    return 1 / (s * (s + 1))


def log_evalues(estimates: np.ndarray, effective: np.ndarray, m: float | np.ndarray) -> np.ndarray:
    """log E_t(m) after each refresh (last axis: time); `estimates` and `effective` (..., T), `m` a rate, or one
    per leading index (broadcast against estimates.shape[:-1]). A refresh without an estimate stakes nothing."""
    x = np.asarray(estimates, dtype=float)
    known = np.isfinite(x)
    rate = np.asarray(m, dtype=float)[..., None, None]
    factors = np.where(known, effective, 0.0)[..., None] * (np.where(known, x, 0.0)[..., None] * np.log(RATIOS)
                                                            - rate * (RATIOS - 1))
    weights = np.log(start_weights(x.shape[-1]))
    running = np.full(factors.shape[:-2] + (len(RATIOS),), -np.inf)
    found = np.empty(factors.shape[:-1])
    for t in range(x.shape[-1]):
        running = factors[..., t, :] + np.logaddexp(running, weights[t])
        found[..., t] = np.logaddexp.reduce(running, axis=-1) - math.log(len(RATIOS))
    return found


def alarms(estimates: np.ndarray, effective: np.ndarray, alpha: float, delta: float) -> np.ndarray:
    """After each refresh (last axis), whether E(alpha) has reached 1/delta by then: at most delta of the time ever,
    while no rate exceeds alpha."""
    return np.maximum.accumulate(log_evalues(estimates, effective, alpha) >= math.log(1 / delta), axis=-1)


def lower_bounds(estimates: np.ndarray, effective: np.ndarray, delta: float) -> np.ndarray:
    """The running lower confidence bound L_t after each refresh (last axis): with probability at least 1 - delta,
    none of them is ever above the highest rate up to it. Each l_t is a rate E_t rejects (or 0), to 2^-50."""
    x = np.asarray(estimates, dtype=float)[..., None, :]
    n = np.asarray(effective, dtype=float)[..., None, :]
    threshold = math.log(1 / delta)
    lo, hi = np.zeros(x.shape[:-2] + x.shape[-1:]), np.ones(x.shape[:-2] + x.shape[-1:])  # E_t(1) < 1: never
    for _ in range(BISECTIONS):
        mid = (lo + hi) / 2
        passed = np.diagonal(log_evalues(x, n, mid), axis1=-2, axis2=-1) >= threshold
        lo, hi = np.where(passed, mid, lo), np.where(passed, hi, mid)
    return np.maximum.accumulate(lo, axis=-1)


@dataclass(frozen=True)
class Watch:
    """One refresh in the monitored sequence: when it began, how many questions, its estimate, and after it the
    running lower bound and the highest e-value E(alpha) so far."""

    run: str
    started_at: str
    questions: int
    estimate: float
    lower: float
    e_value: float
    alarm: bool


class CautionKind(StrEnum):
    """Why a monitor's refreshes may mislead (`MonitorCaution`)."""

    ORIGINAL_CHANGED = "original_changed"  # the original's run.json is not what every refresh sampled from
    QUESTIONS_GONE = "questions_gone"  # questions a refresh sampled are no longer in the judging file
    LABEL_UNSAMPLED = "label_unsampled"  # a refresh sampled no question of some label


@dataclass(frozen=True)
class MonitorCaution:
    """One caution of a monitor: its kind, the run it is about (ORIGINAL_CHANGED: the original), and the kind's
    facts: `count` questions gone from `where` (QUESTIONS_GONE), the `labels` not sampled (LABEL_UNSAMPLED, keys
    of `drift.LABELS`)."""

    kind: CautionKind
    run: str
    count: int = 0
    where: str = ""
    labels: tuple[str, ...] = ()


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
    cautions: tuple[MonitorCaution, ...] = ()
    options: tuple[str, ...] = ()  # the options it was given, as typed, a project configuration's included

    @property
    def first_alarm(self) -> int | None:
        """The index of the first refresh after which the alarm holds, or None."""
        return next((n for n, w in enumerate(self.watches) if w.alarm), None)

    @property
    def alarmed(self) -> bool:
        return self.first_alarm is not None


def watch(original: str, point: tuple[float, float], alpha: float, delta: float,
          refreshes: Sequence[tuple[str, str, int, Weighted]], evidence: str, reordered: bool = False,
          cautions: Sequence[MonitorCaution] = (), options: Sequence[str] = ()) -> Monitor:
    """The monitor over `refreshes` (run, started_at, questions, its weighted estimate), already in time order."""
    xs = np.array([weighted.estimate for *_, weighted in refreshes], dtype=float)
    effective = np.array([weighted.effective for *_, weighted in refreshes], dtype=float)
    lows = lower_bounds(xs, effective, delta)
    highest = np.exp(np.maximum.accumulate(log_evalues(xs, effective, alpha)))
    raised = alarms(xs, effective, alpha, delta)
    watches = tuple(Watch(run, started, n, weighted.estimate, float(lo), float(e), bool(flag))
                    for (run, started, n, weighted), lo, e, flag in zip(refreshes, lows, highest, raised, strict=True))
    return Monitor(original, point, alpha, delta, watches, evidence, reordered, tuple(cautions), tuple(options))
