"""The cutoff grid: exact decimal axes, each question's curve judged, the vectorised fill, and the
recommended cell. (The tests hold the fill to each system's own slow `decide`, cell by cell.)

The fill reads curves only (`pipelines.Curve`): along the first axis a question's curve has a few
segments, each with a few pieces along the second axis. A `Table` places every question's segment at
each first-axis value of the grid (one searchsorted and a cumulative sum) and every piece's start and
end on the second axis (`Table.positions`); counts, scores and totals are then histograms of those
starts and ends and a cumulative sum, in O(questions x H x pieces + H x A) time, never a loop over cells.
The direction is the curve's: a value equal to an edge or a bound falls below it (`values_below`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

import numpy as np

from ..errors import InputError
from ..pipelines import Curve, Piece, Quote, cells_through, values_below
from ..questions import OUTCOMES, Outcome, Question

CODE = {outcome: code for code, outcome in enumerate(OUTCOMES)}
MAX_AXIS_VALUES = 1001


@dataclass(frozen=True)
class Axis:
    """Cutoff values in ascending order, each the float nearest an exact decimal on the grid."""

    spec: str
    decimals: tuple[Decimal, ...]

    @property
    def values(self) -> np.ndarray:
        return np.array([float(d) for d in self.decimals])

    def text(self, index: int) -> str:
        """The decimal as written, e.g. '0.35' (never '0.35000000000000003')."""
        return format(self.decimals[index].normalize(), "f")


def parse_axis(spec: str, option: str = "") -> Axis:
    """'START:STOP:STEP', both ends included, in exact decimal steps inside [0, 1].

    Raises `InputError` (naming `option` when given) for a step <= 0, a step that does not land on STOP,
    or values outside [0, 1].
    """
    where = f"{option} {spec!r}" if option else repr(spec)
    parts = [part.strip() for part in spec.split(":")]
    try:
        start, stop, step = (Decimal(part) for part in parts) if len(parts) == 3 else (None, None, None)
    except InvalidOperation:
        start = stop = step = None
    if start is None or stop is None or step is None or not all(d.is_finite() for d in (start, stop, step)):
        raise InputError(f"{where}: write START:STOP:STEP, e.g. 0:1:0.05 (or 0.3:0.3:0.1 for one value)")
    if step <= 0:
        raise InputError(f"{where}: STEP must be greater than 0")
    if not Decimal(0) <= start <= stop <= Decimal(1):
        raise InputError(f"{where}: need 0 <= START <= STOP <= 1")
    if (stop - start) / step >= MAX_AXIS_VALUES:
        raise InputError(f"{where}: more than {MAX_AXIS_VALUES} values; at most {MAX_AXIS_VALUES} per axis")
    count, remainder = divmod(stop - start, step)
    if remainder != 0:
        raise InputError(f"{where}: STEP {step} does not reach STOP {stop} exactly from START {start}")
    return Axis(spec, tuple(start + step * k for k in range(int(count) + 1)))


class MissingPiece(AssertionError):
    """A grid cell fell where the replay holds no response: the replay's coverage and the grid disagree (a bug)."""


@dataclass(frozen=True)
class JudgedCurve:
    """One question's curve (`pipelines.Curve`, what the system handed on) with the outcome code of every piece:
    `codes[k][j]` judges `curve.pieces[k][j]` (-1 for a piece the replay does not hold)."""

    question: Question
    curve: Curve
    codes: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, question: Question, curve: Curve) -> JudgedCurve:
        codes = tuple(tuple(-1 if piece.missing else CODE[question.judge(piece.text)] for piece in segment)
                      for segment in curve.pieces)
        return cls(question, curve, codes)

    def at(self, x: float, y: float) -> tuple[Piece, int]:
        """The piece at a point and its outcome code."""
        k = self.curve.segment(x)
        j = values_below(self.curve.bounds[k], y)
        return self.curve.pieces[k][j], self.codes[k][j]

    def along(self, x: float) -> tuple[tuple[float, ...], tuple[Piece, ...], tuple[int, ...]]:
        """The segment at first-axis value x: its bounds, pieces and codes along the second axis."""
        k = self.curve.segment(x)
        return self.curve.bounds[k], self.curve.pieces[k], self.codes[k]


@dataclass
class Table:
    """Every question's pieces along the second axis at each first-axis value of the grid, as arrays: row q,
    column h, piece j.

    Piece j covers the second-axis values y with ``bounds[q, h, j-1] < y <= bounds[q, h, j]`` (-inf below the
    first, +inf above the last; padding pieces are empty: their bound is +inf), `codes[q, h, j]` is its
    outcome code and `quoted[q, h, j]` whether it quotes. `positions` turns the bounds into grid indices: the
    one place the comparison with an axis is made; every count, score and total below is a histogram of
    piece starts and ends over those positions, with a cumulative sum, never a loop over cells.
    """

    has_answer: np.ndarray
    bounds: np.ndarray  # (Q, H, S - 1) float
    codes: np.ndarray  # (Q, H, S) int
    quoted: np.ndarray  # (Q, H, S) bool
    _positions: dict[bytes, np.ndarray] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, curves: Sequence[JudgedCurve], has_answer: np.ndarray) -> Table:
        """Built without a loop over cells: the segment of (q, h) is how many of q's edges are below h, counted
        for all questions at once with one searchsorted and a cumulative sum."""
        n_q, n_h = len(curves), len(has_answer)
        width = max((len(b) for c in curves for b in c.curve.bounds), default=0) + 1
        sizes = np.array([len(c.curve.bounds) for c in curves], dtype=np.int64)
        starts = np.cumsum(sizes) - sizes  # q's segments, in order
        total = int(sizes.sum())
        seg_bounds = np.full((total, width - 1), np.inf)
        seg_codes = np.full((total, width), -1, dtype=np.int64)
        seg_quoted = np.zeros((total, width), dtype=bool)
        g = 0
        for judged in curves:
            for bounds, pieces, codes in zip(judged.curve.bounds, judged.curve.pieces, judged.codes, strict=True):
                n = len(bounds)
                seg_bounds[g, :n] = bounds
                seg_codes[g, : n + 1] = codes
                seg_quoted[g, : n + 1] = [piece.quoted is not None for piece in pieces]
                g += 1
        edges = np.array([e for c in curves for e in c.curve.edges], dtype=float)
        owner = np.repeat(np.arange(n_q), sizes - 1)
        below = np.zeros((n_q, n_h + 1), dtype=np.int64)
        np.add.at(below, (owner, cells_through(has_answer, edges)), 1)
        index = starts[:, None] + np.cumsum(below, axis=1)[:, :n_h]  # (Q, H): the segment of each cell's row
        return cls(has_answer, seg_bounds[index], seg_codes[index], seg_quoted[index])

    @property
    def shape(self) -> tuple[int, int]:
        return self.codes.shape[0], self.codes.shape[1]

    def positions(self, answer: np.ndarray) -> np.ndarray:
        """(Q, H, S + 1): piece j covers the `answer` indices [P_j, P_j+1). `answer` ascending; a value equal to
        a bound falls in the piece below it (the piece that holds ``probability >= cutoff``). Raises
        `MissingPiece` when a piece the replay does not hold covers a cell."""
        key = answer.tobytes()
        if key not in self._positions:
            n_q, n_h = self.shape
            found = np.empty((n_q, n_h, self.codes.shape[2] + 1), dtype=np.int64)
            found[..., 0] = 0
            found[..., 1:-1] = cells_through(answer, self.bounds)
            found[..., -1] = len(answer)
            if ((self.codes < 0) & (found[..., 1:] > found[..., :-1])).any():
                raise MissingPiece("a cell of the grid falls where the replay holds no response")
            self._positions[key] = found
        return self._positions[key]

    def bins(self, answer: np.ndarray, select: np.ndarray, bins: int = 1, code: np.ndarray | None = None
             ) -> PieceBins:
        """Where the selected pieces (`select`, (Q, H, S) bool) start and end on the grid, each in bin `code` of
        `bins` (its outcome code, say): made once, summed with any weights per question (`PieceBins.sums`)."""
        n_a = len(answer)
        found = self.positions(answer)
        lo, hi = found[..., :-1], found[..., 1:]
        chosen = select & (hi > lo)
        q, h, _ = np.nonzero(chosen)
        k = np.zeros(len(q), dtype=np.int64) if code is None else code[chosen]
        return PieceBins(q, (h * (n_a + 1) + lo[chosen]) * bins + k, (h * (n_a + 1) + hi[chosen]) * bins + k,
                         (self.shape[1], n_a + 1, bins))

    def piece_sums(self, answer: np.ndarray, select: np.ndarray, weights: np.ndarray | None = None,
                   bins: int = 1, code: np.ndarray | None = None) -> np.ndarray:
        """sum over the selected pieces covering each cell of their question's weight: (H, A), or (H, A, bins)
        with each piece counted in bin `code` (its outcome code, say). `select` is (Q, H, S) bool."""
        summed = self.bins(answer, select, bins, code).sums(weights)
        return summed if bins > 1 or code is not None else summed[..., 0]

    def counts(self, answer: np.ndarray) -> np.ndarray:
        """Outcome counts, shape (H, len(answer), len(OUTCOMES)), in `OUTCOMES` order (`answer` ascending)."""
        every = np.ones(self.codes.shape, dtype=bool)
        return np.rint(self.piece_sums(answer, every, bins=len(OUTCOMES), code=self.codes)).astype(np.int64)

    def quotes(self, answer: np.ndarray, codes: Sequence[int] = tuple(CODE.values())) -> np.ndarray:
        """How many questions are quoted, with an outcome code in `codes`, at each cell (H, A) (ints)."""
        select = self.quoted & np.isin(self.codes, list(codes))
        return np.rint(self.piece_sums(answer, select)).astype(np.int64)

    def outcomes(self, answer_cutoff: float) -> np.ndarray:
        """Outcome codes (Q, H) at one second-axis value."""
        piece = (self.bounds < answer_cutoff).sum(axis=2)  # bounds ascending: how many are below it
        return np.take_along_axis(self.codes, piece[..., None], axis=2)[..., 0]

    def quoted_along(self, h_index: int, answer: np.ndarray) -> np.ndarray:
        """(Q, A) bool: whether each question is quoted at each cell of one grid row."""
        found = self.positions(answer)[:, h_index]
        n_q, n_a = found.shape[0], len(answer)
        steps = np.zeros((n_q, n_a + 1), dtype=np.int64)
        rows = np.arange(n_q)[:, None]
        quoted = self.quoted[:, h_index]
        np.add.at(steps, (np.broadcast_to(rows, quoted.shape)[quoted], found[:, :-1][quoted]), 1)
        np.add.at(steps, (np.broadcast_to(rows, quoted.shape)[quoted], found[:, 1:][quoted]), -1)
        return np.cumsum(steps, axis=1)[:, :n_a] > 0


@dataclass(frozen=True)
class PieceBins:
    """Pieces placed on a grid (`Table.bins`): each one's question, and the flat histogram bins where it starts
    and ends, in a histogram of `shape` (H, A + 1, bins)."""

    owner: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    shape: tuple[int, int, int]

    def sums(self, weights: np.ndarray | None = None) -> np.ndarray:
        """(H, A, bins): at each cell, the sum of the weights of the questions whose pieces cover it (1 each when
        `weights` is None): +w where a piece starts, -w where it ends, then a cumulative sum along the axis."""
        size = int(np.prod(self.shape))
        w = None if weights is None else np.asarray(weights, dtype=float)[self.owner]
        histogram = (np.bincount(self.starts, weights=w, minlength=size)
                     - np.bincount(self.ends, weights=w, minlength=size))
        return np.cumsum(histogram.reshape(self.shape), axis=1)[:, : self.shape[1] - 1]


@dataclass(frozen=True)
class Judged:
    """One question's decision at one pair of cutoffs (the piece of its curve there), and its outcome."""

    piece: Piece
    outcome: Outcome

    @property
    def quote(self) -> Quote | None:
        return self.piece.quoted

    @property
    def sentence(self) -> str | None:
        """The quoted text, or None for the no-answer line: what judging looks at."""
        return self.piece.text


def at_point(curves: Sequence[JudgedCurve], h: float, a: float) -> list[Judged]:
    """Each question's decision and outcome at one pair of cutoffs, from its curve."""
    judged = []
    for curve in curves:
        piece, _ = curve.at(h, a)
        if piece.missing:
            raise MissingPiece(f"{curve.question.id}: the replay holds no response at {h:g}, {a:g}")
        judged.append(Judged(piece, curve.question.judge(piece.text)))
    return judged


def score(counts: np.ndarray, wrong_cost: float) -> np.ndarray:
    """The objective: correct + no-answer - wrong_cost x wrong (missed, unjudged and unlabelled score 0).

    `counts` has outcomes on its last axis: one point's counts, or a whole grid's.
    """
    return (counts[..., CODE[Outcome.CORRECT]] + counts[..., CODE[Outcome.NO_ANSWER]]
            - wrong_cost * counts[..., CODE[Outcome.WRONG]])


def depth(region: np.ndarray) -> np.ndarray:
    """For each cell of a boolean region: its Chebyshev distance, in grid steps, to the nearest cell
    outside the region, the grid's edge counting as outside (0 outside; a region's edge cells are 1
    deep, so a region that runs to the end of an axis is not deeper for it)."""
    result = np.zeros(region.shape, dtype=float)
    inside = region.copy()
    level = 0
    while inside.any():
        level += 1
        result[inside] = level
        padded = np.pad(inside, 1, mode="constant", constant_values=False)
        shrunk = np.ones_like(inside)
        for di in (0, 1, 2):
            for dj in (0, 1, 2):
                shrunk &= padded[di : di + inside.shape[0], dj : dj + inside.shape[1]]
        inside = shrunk
    return result


def deepest_nearest(region: np.ndarray, has_answer: np.ndarray, answer: np.ndarray,
                    default: tuple[float, float]) -> tuple[int, int, float]:
    """The cell of a non-empty region deepest inside it (`depth`), then nearest the default point, then
    with the lowest HAS_ANSWER_CUTOFF, then the lowest ANSWER_CUTOFF; with its depth."""
    depths = depth(region)
    h_grid, a_grid = np.meshgrid(has_answer, answer, indexing="ij")
    # squared distance rounded to 12 decimals: (0.1, 0.5) and (0.2, 0.4) are equally far from (0.3, 0.6)
    # in decimals, and must stay equal in floats so that the lower HAS_ANSWER_CUTOFF wins the tie
    distance = np.round((h_grid - default[0]) ** 2 + (a_grid - default[1]) ** 2, 12)
    deepest = depths == depths[region].max()
    candidates = np.flatnonzero((region & deepest).ravel())  # row-major: lower h first, then lower a
    i, j = np.unravel_index(candidates[np.argmin(distance.ravel()[candidates])], region.shape)
    return int(i), int(j), float(depths[i, j])


def top_cell(scores: np.ndarray, has_answer: np.ndarray, answer: np.ndarray,
             default: tuple[float, float]) -> tuple[int, int]:
    """The best-scoring cell: among cells sharing the top score, `deepest_nearest`.

    Scores are compared to 9 decimals: means over repeats and weighted sums are floats, and two cells
    with the same true score must not differ by a rounding error. -inf marks cells that may not be chosen.
    """
    rounded = np.round(scores, 9)
    i, j, _ = deepest_nearest(rounded == rounded.max(), has_answer, answer, default)
    return i, j


def cell_index(axis_values: np.ndarray, value: float) -> int | None:
    """The index of `value` on an axis (to 9 decimals), None when it is not a grid value."""
    found = np.flatnonzero(np.isclose(axis_values, value, rtol=0, atol=1e-9))
    return int(found[0]) if len(found) else None
