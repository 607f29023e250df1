"""How sure a choice of cutoffs can be: the recommendation rule, Wilson intervals (for a proportion and for
a weighted ratio), and the rule's gain over the default, estimated and tested on questions it did not choose on
(repeated cross-validation).

All of it works on a `ScoreModel`: each question's contribution to the objective at every cell, so
that a held-out or reweighted set of questions is just a vector of counts. Over a band of grid
rows where no repeat of question q changes segment, q's score along the second axis is a step function, the
mean over repeats of the value of the piece of its curve each cell falls in: it changes only where some
repeat's piece starts. Any function g of s_q, summed over questions, is then one weighted histogram of the
corners of those rectangles and a cumulative sum along both axes (`ScoreModel.grid`), never a loop over
cells or rows. Randomness is seeded, so the same run gives the same numbers.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..core.errors import InputError
from ..questions import OUTCOMES, Outcome
from .grid import CODE, Rectangles, Table, band_ends, bands_at, cell_index, deepest_nearest, top_cell
from .probability import t_quantile, t_sf

Z95 = 1.959963984540054
TOLERANCE = 1e-9  # scores within this of each other are equal (sums of floats)


def wilson(successes: float, trials: float, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval for a proportion (95% by default); None when there are no trials.
    Fractional successes and trials are allowed (means over repeats, effective sample sizes)."""
    if trials <= 0:
        return None
    p = min(max(successes / trials, 0.0), 1.0)
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def weighted_wilson(successes: np.ndarray, trials: np.ndarray, weights: np.ndarray
                    ) -> tuple[float, float, tuple[float, float] | None]:
    """(proportion, effective trials, Wilson interval) of sum(w x) / sum(w t) over questions, where x_q and
    t_q are a question's successes and trials (means over repeats, in [0, 1]) and w_q its weight.

    The interval uses Kish's effective sample size (sum w t)^2 / sum (w t)^2, which is the number of
    trials when every weight and trial is 1.
    """
    total = float(weights @ trials)
    if total <= 0:
        return 0.0, 0.0, None
    proportion = float(weights @ successes) / total
    effective = total * total / float((weights * trials) @ (weights * trials))
    return proportion, effective, wilson(proportion * effective, effective)


def ratio_wilson(successes: np.ndarray, trials: np.ndarray, weights: np.ndarray
                 ) -> tuple[float, float, tuple[float, float] | None]:
    """(ratio, effective trials, 95% Wilson interval) of R = sum(w x) / sum(w t) over the n questions, where
    x_q <= t_q are a question's successes and trials (means over repeats, in [0, 1]) and w_q its weight: a
    ratio of two sums that both vary with the sample (how many questions are quoted is random too).

    Its variance is the linearised (delta-method) one, var(R) = sum w_q^2 (x_q - R t_q)^2 / (sum w_q t_q)^2,
    and the interval is Wilson's on the effective number of trials n_eff = R (1 - R) / var(R). With every
    weight 1 and every trial 0 or 1 that is R (1 - R) / m over the m quoted questions, so n_eff = m and the
    interval is `wilson` of the successes among the m, as `weighted_wilson` gives (so no n / (n - 1) factor:
    it would make that n_eff = m (n - 1) / n, and it moved no simulated coverage by a tenth of a point). When
    var(R) is 0 (R is 0 or 1, or every question sits at the ratio) n_eff falls back to Kish's
    (sum w t)^2 / sum (w t)^2, as in `weighted_wilson`.

    Under a production mix (`--answerable-share`) this is the interval to use: Kish's effective size
    ignores that the heavily weighted questions' quotes sit far from the ratio (an unanswerable question's
    quote is always wrong): `weighted_wilson` covered a true 13% "wrong among quotes" 88% of the time
    at a stated 95% where this covers it 96% (`tests/sweep/test_level_stats.py`).
    """
    total = float(weights @ trials)
    if total <= 0:
        return 0.0, 0.0, None
    ratio = float(weights @ successes) / total
    residuals = weights * (successes - ratio * trials)
    variance = float(residuals @ residuals) / (total * total)
    if variance <= 1e-15 * ratio * (1 - ratio) or ratio <= 0 or ratio >= 1:
        effective = total * total / float((weights * trials) @ (weights * trials))
    else:
        effective = ratio * (1 - ratio) / variance
    return ratio, effective, wilson(ratio * effective, effective)


def outcome_scores(wrong_cost: float) -> np.ndarray:
    """The objective's value of each outcome, in `OUTCOMES` order (missed, unjudged and unlabelled score 0)."""
    values = np.zeros(len(OUTCOMES))
    values[CODE[Outcome.CORRECT]] = values[CODE[Outcome.NO_ANSWER]] = 1.0
    values[CODE[Outcome.WRONG]] = -wrong_cost
    return values


class ScoreModel:
    """Every question's contribution to the objective over the grid, for sums over questions.

    `tables` holds one `Table` per repeat, over the same questions in the same order; `values` is the
    objective's value of each outcome (`outcome_scores`); `weights` are importance weights per question
    (a production mix; 1 for the questions as sampled), so question q contributes x_q = w_q s_q.

    The repeats' bands are overlaid (`overlay`): a band here is a run of one question's rows over which no
    repeat changes segment. Along the second axis a band's score is a step function: it starts at the total
    over repeats of its first pieces' values, and at each piece's start (`Table.positions`) in repeat r it
    steps by that piece's value minus the previous piece's. The breakpoints of all repeats are sorted once
    (they do not depend on the objective: `like` lends another model's); `totals[n]` is each band's total over
    the repeats after the first n of them, R times its score s. Sums are taken over totals and divided by R
    (or R^2) once at the end, so with integer values, weights and counts (the default objective, no production
    mix) every sum is one of integers: exact, whatever the order of the additions.
    """

    def __init__(self, tables: Sequence[Table], answer: np.ndarray, values: np.ndarray,
                 weights: np.ndarray | None = None, *, like: ScoreModel | None = None) -> None:
        first = tables[0]
        self.n_questions, self.n_h = first.shape
        self.n_a = len(answer)
        self.repeats = len(tables)
        self.tables, self.answer = list(tables), answer
        self.weights = np.ones(self.n_questions) if weights is None else np.asarray(weights, dtype=float)
        if like is None:
            self.owner, self.lo, self.hi, self.band_of = overlay(tables)
            # (N, B): every piece's start after the first, of every repeat; sorted, with where each came from
            starts = np.concatenate([t.positions(answer)[band][:, 1:-1].T for t, band in zip(tables, self.band_of,
                                                                                              strict=True)])
            self.order = np.argsort(starts, axis=0, kind="stable")
            self.sorted_starts = np.take_along_axis(starts, self.order, axis=0)
        else:
            self.owner, self.lo, self.hi, self.band_of = like.owner, like.lo, like.hi, like.band_of
            self.order, self.sorted_starts = like.order, like.sorted_starts
        piece_values = [values[np.maximum(t.codes, 0)][band] for t, band in zip(tables, self.band_of, strict=True)]
        first_total = np.sum([v[:, 0] for v in piece_values], axis=0)  # (B,); -1 (a padding piece) covers no cell
        steps = np.take_along_axis(np.concatenate([np.diff(v, axis=1).T for v in piece_values]), self.order, axis=0)
        self.totals = first_total[None] + np.concatenate([np.zeros((1, len(first_total))), np.cumsum(steps, axis=0)])
        n_steps = len(self.totals)
        # every total is a rectangle of cells: its band's rows x the columns from its breakpoint on, placed once for
        # every weighting (`Rectangles`; a model `like` another shares its rectangles), with the question of each
        # rectangle that covers a cell (`_owners`)
        self._rectangles: Rectangles
        self._owners: np.ndarray
        if like is not None:
            self._rectangles, self._owners = like._rectangles, like._owners
        else:
            self._rectangles = Rectangles.of(
                np.tile(self.lo, n_steps), np.tile(self.hi, n_steps),
                np.concatenate([np.zeros(len(self.lo), dtype=np.int64), self.sorted_starts.ravel()]),
                (self.n_h, self.n_a))
            self._owners = np.tile(self.owner, n_steps)[self._rectangles.kept]
        self._increments: dict[int, np.ndarray] = {}  # power -> each kept rectangle's step of totals**power

    def grid(self, counts: np.ndarray, power: int = 1, factor: np.ndarray | None = None) -> np.ndarray:
        """sum_q counts_q * factor_q * x_q(c)^power at every cell c, shape (H, A).

        `counts` says how often each question counts (1, or 0 to leave it out).
        """
        return self.sums(counts, power, factor) / self.repeats**power

    def sums(self, counts: np.ndarray, power: int = 1, factor: np.ndarray | None = None) -> np.ndarray:
        """`grid` times R^power: sum_q counts_q * factor_q * (w_q T_q(c))^power over the totals T = R s, the
        form that stays in integers when the values, weights, counts and factors are integers."""
        scale = counts * (factor if factor is not None else 1.0) * self.weights**power  # (Q,)
        return self._rectangles.sums(self.increments(power) * scale[self._owners])

    def increments(self, power: int) -> np.ndarray:
        """Each kept rectangle's step of the totals to the power (`_rectangles.kept`, in their order): the first
        total of its band, or the change at its breakpoint. Computed once per power, for every weighting."""
        if power not in self._increments:
            totals = self.totals if power == 1 else self.totals**power
            steps = np.concatenate([totals[:1], np.diff(totals, axis=0)])  # (N + 1, B)
            kept = steps.ravel()[self._rectangles.kept]
            kept.flags.writeable = False  # shared by every later sum: nobody may write into it
            self._increments[power] = kept
        return self._increments[power]

    @functools.cached_property
    def largest(self) -> float:
        """The largest score of any question at any cell, in absolute value, before weighting: the scale of a sum's
        rounding (`region_of_best`), found once."""
        return float(np.abs(self.totals).max()) / self.repeats

    def totals_at(self, h_index: int, a_index: int) -> np.ndarray:
        """Each question's total over repeats T_q = R s_q at one cell (Q,), before weighting."""
        band = bands_at(self.lo, self.hi, h_index)
        passed = (self.sorted_starts[:, band] <= a_index).sum(axis=0)  # breakpoints at or before the cell
        return np.take_along_axis(self.totals[:, band], passed[None], axis=0)[0]

    def scores_at(self, h_index: int, a_index: int) -> np.ndarray:
        """Each question's score s_q at one cell (Q,), averaged over repeats, before weighting."""
        return self.totals_at(h_index, a_index) / self.repeats

    def per_question(self, h_index: int, a_index: int) -> np.ndarray:
        """Each question's contribution x_q = w_q s_q at one cell (Q,)."""
        return self.weights * self.scores_at(h_index, a_index)


def overlay(tables: Sequence[Table]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """The bands common to every repeat's table: (owner, lo, hi, and for each table the index of its band
    that holds each common band). A common band starts wherever some table's band starts."""
    n_h = tables[0].shape[1]
    keys = [t.owner * (n_h + 1) + t.lo for t in tables]  # ascending: bands come in question, then row, order
    common = keys[0] if len(tables) == 1 else np.unique(np.concatenate(keys))
    owner, lo = np.divmod(common, n_h + 1)
    return owner, lo, band_ends(owner, lo, n_h), [np.searchsorted(k, common, side="right") - 1 for k in keys]


@dataclass(frozen=True)
class Choice:
    """The recommended cell and why.

    `best` is the best-scoring cell (among equal best, the deepest in their region, then nearest the
    default); `region` (`region_of_best`) the cells that score like it: equal to its score (to rounding), or
    short of it by strictly less than one paired standard error, and, when the default is on the grid and
    may be chosen, never scoring below the default. A cell that differs from the best on one question only
    is short by exactly one standard error, so one question's difference never puts a cell in the region
    (nor keeps the default). The recommendation is the default when the default lies in that region, else
    `deepest_nearest` of it, so it never scores below the default (when the default may be chosen).
    """

    h_index: int
    a_index: int
    best: tuple[int, int]
    best_score: float
    region: np.ndarray  # (H, A) bool
    depth: float  # grid steps to the nearest cell outside the region (0 when the default was kept)
    is_default: bool  # the default was kept: it scores like the best cell (it lies in the region)

    @property
    def cell(self) -> tuple[int, int]:
        return self.h_index, self.a_index


def region_of_best(model: ScoreModel, counts: np.ndarray, best: tuple[int, int], scores: np.ndarray,
                   floor: float | None = None) -> np.ndarray:
    """The cells that score like the best cell: equal to its score (to rounding), or short of it by
    strictly less than one paired standard error; with `floor` (the default's score), none scoring below it.

    With d_q = x_q(best) - x_q(c) over the N counted questions, the standard error of the difference of
    the sums is sqrt(N var(d)), var with N - 1 in the denominator; every sum comes from the model (`ScoreModel.sums`,
    over totals: exact for integer scores). When a single question differs, by D, the difference is D and so is the
    standard error, however large D: the comparison is strict, with a rounding slack on the side of leaving the cell
    out, so such a cell is out.
    """
    n = float(counts.sum())
    best_total = scores[best]
    sum_d = best_total - scores
    # Sums of n floats carry rounding of about n x eps x their terms: the equalities "the same score" and
    # "exactly one standard error" (one question differs) must not turn on it.
    slack = TOLERANCE + 1e-12 * max(n, 1.0) * model.largest * float(model.weights.max())
    region = np.abs(sum_d) <= slack
    if n >= 2:
        # sum_q d_q^2 over totals (R x_q): integers when the scores are, so exact before the one division
        at_best = model.weights * model.totals_at(*best)  # R x_q(best)
        squares_best = float(counts @ (at_best**2))
        cross = model.sums(counts, factor=at_best)  # R^2 sum counts x_b x_c
        sum_d2 = (squares_best - 2 * cross + model.sums(counts, power=2)) / model.repeats**2
        variance = np.maximum(sum_d2 - sum_d * sum_d / n, 0.0) / (n - 1)
        region |= sum_d < np.sqrt(n * variance) - slack
    if floor is not None:
        region &= scores >= floor - slack
    return region


def choose(model: ScoreModel, counts: np.ndarray, h: np.ndarray, a: np.ndarray,
           default: tuple[float, float], allowed: np.ndarray | None = None) -> Choice:
    """The recommendation for the questions counted by `counts` (see `Choice`). `allowed` restricts the
    choice to some cells (the certified ones); the region is then the allowed cells that score like the best
    allowed cell, and none below the default only when the default is itself allowed (otherwise the best
    allowed cell may score below the default, and it is always in the region)."""
    scores = model.grid(counts)
    if not np.isfinite(scores).all():
        raise InputError("a score on the grid is not a number (NaN or infinite): check --wrong-cost and the "
                         "question weights")
    masked = scores if allowed is None else np.where(allowed, scores, -np.inf)
    best = top_cell(masked, h, a, default)
    d_h, d_a = cell_index(h, default[0]), cell_index(a, default[1])
    choosable = d_h is not None and d_a is not None and (allowed is None or bool(allowed[d_h, d_a]))
    floor = float(scores[d_h, d_a]) if choosable else None
    region = region_of_best(model, counts, best, scores, floor)
    if allowed is not None:
        region &= allowed
    if d_h is not None and d_a is not None and region[d_h, d_a]:
        return Choice(d_h, d_a, best, float(scores[best]), region, 0.0, True)
    i, j, deepest = deepest_nearest(region, h, a, default)
    return Choice(i, j, best, float(scores[best]), region, deepest, False)


Rule = Callable[[np.ndarray], Choice]  # the recommendation for the questions counted by `counts`


def folds(expect: Sequence[str | None], k: int, seed: int = 0) -> np.ndarray:
    """A fold number per question, stratified by label: each label's questions, shuffled, are dealt round
    the folds in turn, one label after the other with one running position (from a seeded start), so
    fold sizes differ by at most one, overall and within each label."""
    rng = np.random.default_rng(seed)
    labels = [str(label) for label in expect]  # None (unlabelled) is a stratum of its own
    assigned = np.zeros(len(labels), dtype=int)
    position = int(rng.integers(k))
    for label in sorted(set(labels)):
        members = np.flatnonzero(np.array(labels) == label)
        rng.shuffle(members)
        assigned[members] = (position + np.arange(len(members))) % k
        position = (position + len(members)) % k
    return assigned




LEVEL = 0.05  # the one-sided level at which a gain shown on held-out questions moves the decision
CONFIDENCE = 0.95  # the gain's interval: two-sided 95%
REPETITIONS = 10  # repeated K-fold: how many times the questions are dealt into folds afresh


@dataclass(frozen=True)
class GainTest:
    """The corrected repeated K-fold t-test of the tuning's gain over the default (Nadeau & Bengio 2003, for
    repeated K-fold Bouckaert & Frank 2004).

    Each of the r x k folds contributes D, the mean per held-out question of (score at the cell the rule chose
    without that fold) minus (score at the default). `mean` is the mean of the D; the folds' training sets overlap
    and each D shares its chosen cell's luck, so the plain variance of a mean of r k values would be far too small:
    the corrected one is (1 / (k r) + n_test / n_train) var(D), n_test / n_train = 1 / (k - 1), var with r k - 1 in
    the denominator, and t = mean / `standard_error` is referred to Student's t on r k - 1 degrees of freedom
    (`probability.t_sf`: scipy's).
    `p_value` is one-sided, of "tuning this way gains nothing over the default" (a true mean gain <= 0);
    `interval` the two-sided 95% t-interval of the gain per question. What it tests is the *procedure* (choose by
    the rule, then ship), not one cell: the cell shipped is the one the rule picks on all the questions. Its level
    and power are held by `tests/sweep/test_decision_simulation.py`. When every fold mean is the same (often all
    0: the rule's choices score like the default on the questions they left out) the t-test has no spread to judge
    by: p is 1 (nothing shown, however the folds agree) and there is no interval.
    """

    mean: float
    standard_error: float
    df: int
    p_value: float
    interval: tuple[float, float] | None
    level: float = LEVEL

    @property
    def shown(self) -> bool:
        """The gain is shown at `level` (one-sided)."""
        return self.p_value < self.level

    @classmethod
    def of(cls, fold_gains: np.ndarray, k: int, level: float = LEVEL) -> GainTest:
        values = np.asarray(fold_gains, dtype=float).ravel()
        m = len(values)
        mean = float(values.mean()) if m else 0.0
        if m < 2 or k < 2:
            return cls(mean, math.inf, max(m - 1, 0), 1.0, None, level)
        variance = float(values.var(ddof=1))
        error = math.sqrt((1 / m + 1 / (k - 1)) * variance)
        df = m - 1
        if error <= 1e-12 * max(1.0, abs(mean)):  # every fold gained exactly the same: no spread to test by
            return cls(mean, 0.0, df, 1.0, None, level)
        p_value = t_sf(mean / error, df)
        half = t_quantile(1 - (1 - CONFIDENCE) / 2, df) * error
        return cls(mean, error, df, p_value, (mean - half, mean + half), level)


@dataclass(frozen=True)
class CrossValidation:
    """How the rule does on questions it did not choose on: `repetitions` times, the questions are dealt into `k`
    folds stratified by label (`folds`, the first time with the sweep's seed), and for each fold the rule chooses
    on the other folds and the fold's questions are scored there against the default.

    `choices`, `counts` and `per_question` are the first dealing's (per fold the cell chosen; the held-out
    outcomes summed over its folds, mean over repeats; each question's gain over the default at its fold's
    cell); `fold_gains` (repetitions, k) every fold's mean gain per question; `test` the corrected t-test over
    them (`GainTest`), which decides whether the decision moves."""

    k: int
    repetitions: int
    choices: list[tuple[int, int]]
    counts: np.ndarray  # (outcomes,)
    per_question: np.ndarray  # (Q,)
    fold_gains: np.ndarray  # (repetitions, k)
    test: GainTest

    @property
    def mean(self) -> float:
        """The estimate of the gain per question, over every dealing's folds."""
        return self.test.mean


def dealing_seed(seed: int, repetition: int) -> int:
    """The seed of the `repetition`-th dealing into folds: the sweep's seed for the first, derived ones after."""
    if repetition == 0:
        return seed
    return int(np.random.SeedSequence([seed, repetition]).generate_state(1)[0])


def cross_validate(model: ScoreModel, tables: Sequence[Table], expect: Sequence[str | None], k: int,
                   h: np.ndarray, a: np.ndarray, default: tuple[float, float], at_default: np.ndarray,
                   seed: int = 0, rule: Rule | None = None, repetitions: int = REPETITIONS,
                   level: float = LEVEL) -> CrossValidation:
    """Repeated stratified K-fold cross-validation of the rule against the default (see `CrossValidation`).
    `at_default` is each question's contribution x_q at the default point; `rule` the recommendation rule to
    re-run on the training questions (`choose` on the score alone without it)."""

    def chosen_on(counts: np.ndarray) -> Choice:
        return rule(counts) if rule is not None else choose(model, counts, h, a, default)

    fold_gains = np.zeros((repetitions, k))
    counts = np.zeros(len(OUTCOMES))
    first_gains = np.zeros(model.n_questions)
    choices: list[tuple[int, int]] = []
    for repetition in range(repetitions):
        fold_of = folds(expect, k, dealing_seed(seed, repetition))
        for fold in range(k):
            held_out = fold_of == fold
            pick = chosen_on((~held_out).astype(float))
            gains = (model.per_question(*pick.cell) - at_default)[held_out]
            fold_gains[repetition, fold] = float(gains.mean()) if len(gains) else 0.0
            if repetition == 0:
                choices.append(pick.cell)
                first_gains[held_out] = gains
                for table in tables:
                    codes = table.outcomes(a[pick.a_index], pick.h_index)[held_out]
                    counts += np.bincount(codes, minlength=len(OUTCOMES)) / len(tables)
    return CrossValidation(k, repetitions, choices, counts, first_gains, fold_gains, GainTest.of(fold_gains, k, level))
