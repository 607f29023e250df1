"""How sure a choice of cutoffs can be: the recommendation rule, Wilson intervals (for a proportion and for
a weighted ratio), a bootstrap over questions, cross-validation, and the gain over the default tested on
questions the choice never saw.

All of it works on a `ScoreModel`: each question's contribution to the objective at every cell, so
that a resampled, held-out or reweighted set of questions is just a vector of counts. Over a band of grid
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

from ..errors import InputError
from ..questions import OUTCOMES, Outcome
from .grid import CODE, Rectangles, Table, band_ends, bands_at, cell_index, deepest_nearest, top_cell
from .probability import Z_ONE_SIDED_95, Z_POWER_80, t_sf

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

        `counts` says how often each question counts (1; a bootstrap multiplicity; 0 to leave it out).
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


@dataclass(frozen=True)
class Stability:
    """How often resampled question sets recommend the same cell, or one in its region of best score."""

    resamples: int
    same_cell: float  # share of resamples whose recommended cell is the full set's
    in_region: float  # share whose recommended cell lies in the full set's region of best score
    frequency: np.ndarray  # (H, A): share of resamples recommending each cell


Rule = Callable[[np.ndarray], Choice]  # the recommendation for the questions counted by `counts`


def bootstrap(model: ScoreModel, h: np.ndarray, a: np.ndarray, default: tuple[float, float], chosen: Choice,
              resamples: int, seed: int = 0, rule: Rule | None = None) -> Stability:
    """Resample the questions with replacement `resamples` times (seeded) and re-run the choice: `rule`
    (e.g. choosing among the cells certified on the resample), `choose` on the score alone without it."""
    rng = np.random.default_rng(seed)
    frequency = np.zeros((len(h), len(a)))
    same = inside = 0
    n = model.n_questions
    for _ in range(resamples):
        counts = np.bincount(rng.integers(0, n, n), minlength=n).astype(float)
        pick = rule(counts) if rule is not None else choose(model, counts, h, a, default)
        frequency[pick.cell] += 1
        same += pick.cell == chosen.cell
        inside += bool(chosen.region[pick.cell])
    share = max(resamples, 1)
    return Stability(resamples, same / share, inside / share, frequency / share)


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


@functools.lru_cache(maxsize=256)  # the same few (p, df) again and again: every resample, every fold
def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t with `df` degrees of freedom (0 < p < 1): the t with P(T > t) = 1 - p,
    by bisection on `t_sf` to 1e-12 (relative)."""
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


CONFIDENCE = 0.95  # the gain's interval: two-sided 95%


@dataclass(frozen=True)
class Gain:
    """Per-question gains over the default at cutoffs chosen WITHOUT these questions, and what they show.

    `mean` and `standard_error` (sd / sqrt(n)) are per question; `p_value` is the one-sided paired t-test
    of "no gain" (mean gain <= 0); `interval` the two-sided 95% t-interval of the mean gain (n - 1 degrees
    of freedom). The test and the interval hold because the cutoffs were fixed before these questions were
    looked at: their gains are independent, with mean the chosen cutoffs' true gain; but only as well as a
    t-test does on skewed data, and when few questions differ between the cells a gain is mostly 0 with a
    long tail (with 50 test questions, quotes right 2/3 of the time at C = 2, it rejected 5.5% at 5%).
    `share` is the share of all the run's questions these are (the test half of a split); "questions
    needed" counts all of them, at that share: `needed` is how many questions a gain equal to `mean` would
    need for the test to detect it at one-sided 5% with 80% power (normal approximation, the same
    per-question sd; None when the mean is not positive), `needed_range` the same for a gain at the
    interval's upper end .. at its lower end (the upper end of the range None, open, when the interval's
    lower end is <= 0; the whole range None when its upper end is <= 0 too).
    """

    per_question: np.ndarray
    mean: float
    standard_error: float
    p_value: float
    needed: int | None
    interval: tuple[float, float] | None = None  # None with fewer than two questions
    needed_range: tuple[int, int | None] | None = None
    share: float = 1.0

    @classmethod
    def of(cls, gains: np.ndarray, share: float = 1.0) -> Gain:
        n = len(gains)
        mean = float(gains.mean()) if n else 0.0
        sd = float(gains.std(ddof=1)) if n > 1 else 0.0
        error = sd / math.sqrt(n) if n else 0.0
        if n < 2:
            p_value = 1.0  # one question cannot be tested
        elif error == 0:
            p_value = 0.0 if mean > 0 else 1.0  # every question gained the same
        else:
            p_value = t_sf(mean / error, n - 1)
        interval = None
        if n > 1:
            half = t_quantile(1 - (1 - CONFIDENCE) / 2, n - 1) * error
            interval = (mean - half, mean + half)

        def needed_for(gain: float) -> int:  # a positive gain
            return math.ceil(max(2, math.ceil(((Z_ONE_SIDED_95 + Z_POWER_80) * sd / gain) ** 2)) / share)

        needed_range = None
        if interval is not None and interval[1] > 0:
            needed_range = (needed_for(interval[1]), needed_for(interval[0]) if interval[0] > 0 else None)
        needed = needed_for(mean) if mean > 0 else None
        return cls(gains, mean, error, p_value, needed, interval, needed_range, share)


@dataclass(frozen=True)
class CrossValidation:
    """How the recommendation does on questions it was not chosen on.

    The estimate (K-fold): cutoffs chosen on K-1 folds, each question scored at its fold's choice;
    `counts` and `per_question` (each question's gain over the default there) are summed or listed over all
    questions. The test (a split): the cutoffs chosen on one half of the questions (`folds(expect, 2, seed)`
    fold 0, stratified by label), `gain` the other half's gains at that one cell. The K-fold gains cannot
    be t-tested: the questions of a fold share one chosen cell, so their gains are correlated, and such a
    test rejected a true "no gain" 6-9% of the time at 5% (`tests/sweep/test_level_stats.py`); the test
    half's can, as its questions played no part in choosing the cell they are scored at. The price is power:
    half the questions choose and half test (at 100 questions and a real gain, it rejected 73% where the
    K-fold test rejected 95%, size aside).
    """

    k: int
    choices: list[tuple[int, int]]  # per fold: (h index, a index) chosen on the other folds
    counts: np.ndarray  # (outcomes,): held-out outcomes at each fold's chosen cell, summed (mean over repeats)
    gain: Gain  # the test half's gains at `split_choice`, against the default, per question
    per_question: np.ndarray  # (Q,): K-fold, each question's gain at its fold's choice over the default
    split_choice: tuple[int, int]  # (h index, a index) chosen on the choosing half
    tested: np.ndarray  # (Q,) bool: the test half

    @property
    def mean(self) -> float:
        """The K-fold estimate of the gain per question."""
        return float(self.per_question.mean()) if len(self.per_question) else 0.0


def cross_validate(model: ScoreModel, tables: Sequence[Table], expect: Sequence[str | None], k: int,
                   h: np.ndarray,
                   a: np.ndarray, default: tuple[float, float], at_default: np.ndarray,
                   seed: int = 0, rule: Rule | None = None) -> CrossValidation:
    """K-fold cross-validation of the recommendation (stratified by label, seeded), and the test of its gain
    on a seeded, stratified half split (see `CrossValidation`). `at_default` is each question's contribution
    x_q at the default point; `rule` the recommendation rule to re-run on the training questions (`choose`
    on the score alone without it)."""

    def chosen_on(counts: np.ndarray) -> Choice:
        return rule(counts) if rule is not None else choose(model, counts, h, a, default)

    fold_of = folds(expect, k, seed)
    counts = np.zeros(len(OUTCOMES))
    gains = np.zeros(model.n_questions)
    choices = []
    for fold in range(k):
        held_out = fold_of == fold
        pick = chosen_on((~held_out).astype(float))
        choices.append(pick.cell)
        gains[held_out] = (model.per_question(*pick.cell) - at_default)[held_out]
        for table in tables:
            codes = table.outcomes(a[pick.a_index], pick.h_index)[held_out]
            counts += np.bincount(codes, minlength=len(OUTCOMES)) / len(tables)
    tested = folds(expect, 2, seed) == 1
    split = chosen_on((~tested).astype(float))
    held = (model.per_question(*split.cell) - at_default)[tested]
    gain = Gain.of(held, share=float(tested.mean()) if len(tested) else 1.0)
    return CrossValidation(k, choices, counts, gain, gains, split.cell, tested)
