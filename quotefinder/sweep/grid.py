"""The cutoff grid: exact decimal axes, each question's curve judged, the vectorised fill, and the
recommended cell. (The tests hold the fill to each system's own slow `decide`, cell by cell.)

The fill reads curves only (`pipelines.Curve`): along the first axis a question's curve has a few
segments, each with a few pieces along the second axis. A `Table` finds the grid rows each segment covers
(one searchsorted over every edge: a band of rows) and every piece's start and end on the second axis
(`Table.positions`); each piece is then a rectangle of cells, and counts, scores and totals are histograms
of those rectangles' corners with a cumulative sum along both axes, in O(questions x segments x pieces +
H x A) time, never a loop over rows or cells.
The direction is the curve's: a value equal to an edge or a bound falls below it (`values_below`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

import numpy as np

from ..core.errors import InputError
from ..core.plugin import AxisSpec, Curve, Piece, Quote, cells_through, values_below
from ..core.textsafe import shown
from ..questions import OUTCOMES, Outcome, Question

CODE = {outcome: code for code, outcome in enumerate(OUTCOMES)}
MAX_AXIS_VALUES = 1001
MAX_AXIS_TEXT = 200  # characters of an axis as written: no grid needs more, and each number is read exactly
MIN_STEP = Decimal("1e-9")  # a finer step cannot be told from the float nearest it, nor swept in a lifetime


@dataclass(frozen=True)
class Axis:
    """An axis's grid values in ascending order, each the float nearest an exact decimal: cutoffs, whole numbers,
    or a categorical axis's positions 0, 1, ... (`labels` then holds their names)."""

    spec: str
    decimals: tuple[Decimal, ...]
    labels: tuple[str, ...] = ()

    @property
    def values(self) -> np.ndarray:
        return np.array([float(d) for d in self.decimals])

    def text(self, index: int) -> str:
        """The value as written: a decimal such as '0.35' (never '0.35000000000000003'), a whole number, or the
        name of a choice."""
        if self.labels:
            return self.labels[index]
        return format(self.decimals[index].normalize(), "f")


def parse_axis(spec: str, option: str = "", kind: AxisSpec | None = None) -> Axis:
    """A grid axis: for a cutoff (the default), 'START:STOP:STEP', both ends included, in exact decimal steps
    inside [0, 1]; for an axis of whole numbers (`kind.whole`), 'START:STOP' or 'START:STOP:STEP' (step 1 by
    default) or a list 'A,B,C'; for a categorical one (`kind.choices`), a list of its choices, 'instant,deep'.

    Raises `InputError` (naming `option` when given) for a step <= 0 or finer than `MIN_STEP`, a step that does not
    land on STOP, values outside the axis, or text longer than `MAX_AXIS_TEXT`.
    """
    where = f"{option} {shown(spec)}" if option else shown(spec)
    if len(spec) > MAX_AXIS_TEXT:
        raise InputError(f"{where}: longer than an axis can be written ({MAX_AXIS_TEXT} characters at most)")
    if kind is not None and kind.kind != "cutoff":
        return _listed_axis(spec, where, kind)
    parts = [part.strip() for part in spec.split(":")]
    try:
        start, stop, step = (Decimal(part) for part in parts) if len(parts) == 3 else (None, None, None)
    except InvalidOperation:
        start = stop = step = None
    if start is None or stop is None or step is None or not all(d.is_finite() for d in (start, stop, step)):
        raise InputError(f"{where}: write START:STOP:STEP, e.g. 0:1:0.05 (or 0.3:0.3:0.1 for one value)")
    if step <= 0:
        raise InputError(f"{where}: STEP must be greater than 0")
    if step < MIN_STEP and stop > start:
        raise InputError(f"{where}: STEP must be at least {MIN_STEP:f} (the grid has at most {MAX_AXIS_VALUES} values)")
    if not Decimal(0) <= start <= stop <= Decimal(1):
        raise InputError(f"{where}: need 0 <= START <= STOP <= 1")
    if (stop - start) / step >= MAX_AXIS_VALUES:
        raise InputError(f"{where}: more than {MAX_AXIS_VALUES} values; at most {MAX_AXIS_VALUES} per axis")
    count, remainder = divmod(stop - start, step)
    if remainder != 0:
        raise InputError(f"{where}: STEP {step} does not reach STOP {stop} exactly from START {start}")
    return Axis(spec, tuple(start + step * k for k in range(int(count) + 1)))


def _listed_axis(spec: str, where: str, kind: AxisSpec) -> Axis:
    """A whole-number or categorical axis (see `parse_axis`, `AxisSpec.listed`)."""
    try:
        values = kind.listed(spec)
    except ValueError as error:
        raise InputError(f"{where}: {error}") from None
    return Axis(spec, tuple(Decimal(int(v)) for v in values), tuple(kind.shown(v) for v in values) if kind.choices
                else ())


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
        """Each piece judged (`Question.judge_quote`): by the label alone where it decides (`Question.settled`),
        else each distinct quote once (a curve's pieces share their quote objects)."""
        settled = question.settled()
        if settled is not None:
            unquoted, quoted = CODE[settled[0]], CODE[settled[1]]
            codes = tuple(tuple(-1 if piece.missing else unquoted if piece.quoted is None else quoted
                                for piece in segment) for segment in curve.pieces)
            return cls(question, curve, codes)
        judged: dict[int, int] = {}
        for segment in curve.pieces:
            for piece in segment:
                if id(piece.quoted) not in judged:
                    judged[id(piece.quoted)] = CODE[question.judge_quote(piece.quoted)]
        return cls(question, curve, tuple(tuple(-1 if piece.missing else judged[id(piece.quoted)] for piece in segment)
                                          for segment in curve.pieces))

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
    """Every question's pieces along the second axis at every first-axis value of the grid, as arrays over
    bands: a band is a run of consecutive grid rows `lo <= h < hi` of one question (`owner`) over which its
    curve has the same segment, so the same pieces. Bands come in question order, then row order, and cover
    each question's rows exactly once; a question has a few (its curve's segments), not one per row.

    Piece j of band b covers the second-axis values y with ``bounds[b, j-1] < y <= bounds[b, j]`` (-inf below
    the first, +inf above the last; padding pieces are empty: their bound is +inf), `codes[b, j]` is its
    outcome code and `quoted[b, j]` whether it quotes. `positions` turns the bounds into grid indices: the one
    place the comparison with an axis is made. Every count, score and total below is a histogram of the
    corners of the rectangles (rows of a band x columns of a piece) with a cumulative sum along both axes,
    never a loop over cells or rows.
    """

    first: np.ndarray  # (H,) the grid's values of the first axis, ascending
    owner: np.ndarray  # (B,) the question of each band, ascending
    lo: np.ndarray  # (B,) its first grid row
    hi: np.ndarray  # (B,) one past its last
    bounds: np.ndarray  # (B, S - 1) float
    codes: np.ndarray  # (B, S) int
    quoted: np.ndarray  # (B, S) bool
    n_questions: int
    _positions: dict[bytes, np.ndarray] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, curves: Sequence[JudgedCurve], first: np.ndarray) -> Table:
        """Segment k of a question covers the grid rows from `cells_through` its edge k - 1 up to its edge k:
        one searchsorted for every edge of every question; segments that cover no grid row are dropped."""
        n_q, n_h = len(curves), len(first)
        segments = [segment for c in curves for segment in c.curve.bounds]
        sizes = np.array([len(c.curve.bounds) for c in curves], dtype=np.int64)
        total = len(segments)
        lengths = np.array([len(b) for b in segments], dtype=np.int64)  # bounds per segment; one piece more
        width = int(lengths.max(initial=0)) + 1
        # every segment's bounds, codes and quoted flags, flat in segment order, then set in their rows at once
        row, column = _places(lengths)
        seg_bounds = np.full((total, width - 1), np.inf)
        seg_bounds[row, column] = np.fromiter(itertools.chain.from_iterable(segments), float, len(row))
        row, column = _places(lengths + 1)
        seg_codes = np.full((total, width), -1, dtype=np.int64)
        seg_codes[row, column] = np.fromiter(itertools.chain.from_iterable(
            codes for c in curves for codes in c.codes), np.int64, len(row))
        seg_quoted = np.zeros((total, width), dtype=bool)
        seg_quoted[row, column] = np.fromiter((piece.quoted is not None for c in curves for segment in c.curve.pieces
                                               for piece in segment), bool, len(row))
        edges = np.array([e for c in curves for e in c.curve.edges], dtype=float)
        opening = np.cumsum(sizes) - sizes  # each question's first segment
        last = np.zeros(total, dtype=bool)
        last[opening + sizes - 1] = True
        hi = np.full(total, n_h, dtype=np.int64)
        hi[~last] = cells_through(first, edges)  # a segment ends where its edge's row begins
        lo = np.zeros(total, dtype=np.int64)
        lo[1:] = hi[:-1]
        lo[opening] = 0
        keep = hi > lo
        owner = np.repeat(np.arange(n_q), sizes)
        return cls(first, owner[keep], lo[keep], hi[keep], seg_bounds[keep], seg_codes[keep], seg_quoted[keep],
                   n_q)

    @classmethod
    def of_rows(cls, first: np.ndarray, bounds: np.ndarray, codes: np.ndarray, quoted: np.ndarray) -> Table:
        """From every question's pieces at every grid row ((Q, H, S - 1), (Q, H, S), (Q, H, S)), consecutive
        rows with the same pieces merged into one band."""
        n_q, n_h = codes.shape[:2]
        flat = (bounds.reshape(n_q * n_h, -1), codes.reshape(n_q * n_h, -1), quoted.reshape(n_q * n_h, -1))
        new = np.ones((n_q, n_h), dtype=bool)  # where a band starts: the first row, or pieces unlike the row before
        for array in (bounds, codes, quoted):
            if array.shape[2]:
                new[:, 1:] |= (array[:, 1:] != array[:, :-1]).any(axis=2)
        starts = np.flatnonzero(new)
        owner, lo = np.divmod(starts, n_h)
        return cls(first, owner, lo, band_ends(owner, lo, n_h), flat[0][starts], flat[1][starts],
                   flat[2][starts].astype(bool), n_q)

    @property
    def shape(self) -> tuple[int, int]:
        return self.n_questions, len(self.first)

    def per_row(self, values: np.ndarray) -> np.ndarray:
        """Band values (B, ...) at every question's every row (Q, H, ...)."""
        return np.repeat(values, self.hi - self.lo, axis=0).reshape(*self.shape, *values.shape[1:])

    def bands_at(self, h_index: int) -> np.ndarray:
        """(Q,): the band of each question at one grid row."""
        return bands_at(self.lo, self.hi, h_index)

    def bands_of(self, question: int) -> slice:
        """The bands of one question."""
        left, right = np.searchsorted(self.owner, [question, question + 1])
        return slice(int(left), int(right))

    def positions(self, answer: np.ndarray) -> np.ndarray:
        """(B, S + 1): piece j covers the `answer` indices [P_j, P_j+1). `answer` ascending; a value equal to a
        bound falls in the piece below it (the piece that holds ``probability >= cutoff``). Raises
        `MissingPiece` when a piece the replay does not hold covers a cell."""
        key = answer.tobytes()
        if key not in self._positions:
            found = np.empty((len(self.owner), self.codes.shape[1] + 1), dtype=np.int64)
            found[:, 0] = 0
            found[:, 1:-1] = cells_through(answer, self.bounds)
            found[:, -1] = len(answer)
            if ((self.codes < 0) & (found[:, 1:] > found[:, :-1])).any():
                raise MissingPiece("a cell of the grid falls where the replay holds no response")
            self._positions[key] = found
        return self._positions[key]

    def bins(self, answer: np.ndarray, select: np.ndarray, bins: int = 1, code: np.ndarray | None = None,
             bands: slice = slice(None)) -> PieceBins:
        """Where the selected pieces (`select`, (B, S) bool, of the `bands` only when given) sit on the grid, each
        in bin `code` of `bins` (its outcome code, say): made once, summed with any weights per question
        (`PieceBins.sums`)."""
        found = self.positions(answer)[bands]
        left, right = found[:, :-1], found[:, 1:]
        chosen = select & (right > left)
        band, _ = np.nonzero(chosen)
        k = np.zeros(len(band), dtype=np.int64) if code is None else code[chosen]
        return PieceBins(self.owner[bands][band], self.lo[bands][band], self.hi[bands][band], left[chosen],
                         right[chosen], k, (len(self.first), len(answer), bins))

    def piece_sums(self, answer: np.ndarray, select: np.ndarray, weights: np.ndarray | None = None,
                   bins: int = 1, code: np.ndarray | None = None) -> np.ndarray:
        """sum over the selected pieces covering each cell of their question's weight: (H, A), or (H, A, bins)
        with each piece counted in bin `code` (its outcome code, say). `select` is (B, S) bool."""
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

    def outcomes(self, second: float, h_index: int | None = None) -> np.ndarray:
        """Outcome codes (Q, H) at one second-axis value; (Q,) at one grid row too, given `h_index`. As int8 (they
        run from -1 to 5): a table of every question's rows is an eighth the size of one of int64s."""
        piece = (self.bounds < second).sum(axis=1)  # bounds ascending: how many are below it
        code = np.take_along_axis(self.codes, piece[:, None], axis=1)[:, 0].astype(np.int8)  # (B,)
        return self.per_row(code) if h_index is None else code[self.bands_at(h_index)]

    def quoted_along(self, h_index: int, answer: np.ndarray) -> np.ndarray:
        """(Q, A) bool: whether each question is quoted at each cell of one grid row."""
        band = self.bands_at(h_index)  # one per question, in order: question q's quoted pieces are row q's rectangles
        found = self.positions(answer)[band]
        quoted = self.quoted[band]
        question, _ = np.nonzero(quoted)
        return rectangle_sums(question, question + 1, found[:, :-1][quoted], found[:, 1:][quoted], 0,
                              (len(band), len(answer), 1), None)[..., 0] > 0


def band_ends(owner: np.ndarray, lo: np.ndarray, n_h: int) -> np.ndarray:
    """Where each band ends, for bands given by their question and first row (in question, then row, order,
    each question's from row 0): at the next band's first row, or at the last row (`n_h`) for a question's last."""
    hi = np.full(len(lo), n_h, dtype=np.int64)
    same = owner[1:] == owner[:-1]
    hi[:-1][same] = lo[1:][same]
    return hi


def bands_at(lo: np.ndarray, hi: np.ndarray, h_index: int) -> np.ndarray:
    """The bands that hold grid row `h_index`: one per question, in question order."""
    return np.flatnonzero((lo <= h_index) & (hi > h_index))


def _places(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of every item of rows holding `lengths` items each, row after row."""
    row = np.repeat(np.arange(len(lengths)), lengths)
    return row, np.arange(len(row)) - np.repeat(np.cumsum(lengths) - lengths, lengths)


@dataclass(frozen=True)
class PieceBins:
    """Pieces placed on a grid (`Table.bins`), each a rectangle of cells: its question (`owner`), its rows
    [`lo`, `hi`), its columns [`left`, `right`) and its bin, in a grid of `shape` (H, A, bins)."""

    owner: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    left: np.ndarray
    right: np.ndarray
    layer: np.ndarray
    shape: tuple[int, int, int]

    def sums(self, weights: np.ndarray | None = None) -> np.ndarray:
        """(H, A, bins): at each cell, the sum of the weights of the questions whose pieces cover it (1 each when
        `weights` is None): each rectangle adds +w at two opposite corners and -w at the other two, and a
        cumulative sum along both axes adds up the rectangles over each cell. Integer weights sum exactly."""
        return rectangle_sums(self.lo, self.hi, self.left, self.right, self.layer, self.shape,
                              None if weights is None else np.asarray(weights, dtype=float)[self.owner])


def rectangle_sums(lo: np.ndarray, hi: np.ndarray, left: np.ndarray, right: np.ndarray | None,
                   layer: np.ndarray | int, shape: tuple[int, int, int], weights: np.ndarray | None) -> np.ndarray:
    """(H, A, layers): the sum, at each cell, of the weights of the rectangles rows [lo, hi) x columns
    [left, right) that cover it, in their layer (1 each when `weights` is None); `right` None: every rectangle
    runs to the last column."""
    n_h, n_a, layers = shape
    size = (n_h + 1) * (n_a + 1) * layers

    def corner(rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        return (rows * (n_a + 1) + columns) * layers + layer

    w = np.ones(len(lo)) if weights is None else weights
    histogram = (np.bincount(corner(lo, left), weights=w, minlength=size)
                 - np.bincount(corner(hi, left), weights=w, minlength=size))
    if right is not None:  # (open on the right, the other two corners fall past the last column)
        histogram += (np.bincount(corner(hi, right), weights=w, minlength=size)
                      - np.bincount(corner(lo, right), weights=w, minlength=size))
    summed = np.cumsum(np.cumsum(histogram.reshape(n_h + 1, n_a + 1, layers), axis=0), axis=1)
    return summed[:n_h, :n_a]


@dataclass(frozen=True)
class Rectangles:
    """Rectangles of cells, rows [lo, hi) x columns [left, A), placed once on a grid of (H, A) for the sums of
    many weightings of them (`sums`: what `rectangle_sums` gives with `right` None and one layer). A rectangle
    that starts past the last column covers no cell and is left out once here (in a `ScoreModel`, those of the
    padding pieces' breakpoints: about a tenth of them at 100,000 questions and 101 x 101 cells)."""

    shape: tuple[int, int]
    kept: np.ndarray  # (rectangles,) bool: those that cover a cell
    starts: np.ndarray  # the histogram bin of each kept one's corner (lo, left), and of (hi, left)
    ends: np.ndarray

    @classmethod
    def of(cls, lo: np.ndarray, hi: np.ndarray, left: np.ndarray, shape: tuple[int, int]) -> Rectangles:
        n_a = shape[1]
        kept = left < n_a
        lo, hi, left = lo[kept], hi[kept], left[kept]
        return cls(shape, kept, lo * (n_a + 1) + left, hi * (n_a + 1) + left)

    def sums(self, weights: np.ndarray) -> np.ndarray:
        """(H, A): at each cell, the sum of the weights of the rectangles that cover it, given the weights of the
        kept ones (`kept`, in their order), added in the order `rectangle_sums` adds them (so the same floats: the
        rectangles left out only ever reach the column past the last, which no cell reads)."""
        n_h, n_a = self.shape
        size = (n_h + 1) * (n_a + 1)
        histogram = np.bincount(self.starts, weights=weights, minlength=size) - np.bincount(
            self.ends, weights=weights, minlength=size)
        return np.cumsum(np.cumsum(histogram.reshape(n_h + 1, n_a + 1), axis=0), axis=1)[:n_h, :n_a]


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
        piece, code = curve.at(h, a)
        if piece.missing:
            raise MissingPiece(f"{curve.question.id}: the replay holds no response at {h:g}, {a:g}")
        judged.append(Judged(piece, OUTCOMES[code]))  # (the piece's code: its quote judged, `JudgedCurve.of`)
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


def deepest_nearest(region: np.ndarray, first: np.ndarray, second: np.ndarray,
                    default: tuple[float, float]) -> tuple[int, int, float]:
    """The cell of a non-empty region deepest inside it (`depth`), then nearest the default point, then
    with the lowest value of the first axis, then of the second; with its depth."""
    depths = depth(region)
    h_grid, a_grid = np.meshgrid(first, second, indexing="ij")
    # squared distance rounded to 12 decimals: (0.1, 0.5) and (0.2, 0.4) are equally far from (0.3, 0.6)
    # in decimals, and must stay equal in floats so that the lower first-axis value wins the tie
    distance = np.round((h_grid - default[0]) ** 2 + (a_grid - default[1]) ** 2, 12)
    deepest = depths == depths[region].max()
    candidates = np.flatnonzero((region & deepest).ravel())  # row-major: lower h first, then lower a
    i, j = np.unravel_index(candidates[np.argmin(distance.ravel()[candidates])], region.shape)
    return int(i), int(j), float(depths[i, j])


def top_cell(scores: np.ndarray, first: np.ndarray, second: np.ndarray,
             default: tuple[float, float]) -> tuple[int, int]:
    """The best-scoring cell: among cells sharing the top score, `deepest_nearest`.

    Scores are compared to 9 decimals: means over repeats and weighted sums are floats, and two cells
    with the same true score must not differ by a rounding error. -inf marks cells that may not be chosen.
    """
    rounded = np.round(scores, 9)
    i, j, _ = deepest_nearest(rounded == rounded.max(), first, second, default)
    return i, j


def cell_index(axis_values: np.ndarray, value: float) -> int | None:
    """The index of `value` on an axis (to 9 decimals), None when it is not a grid value."""
    found = np.flatnonzero(np.isclose(axis_values, value, rtol=0, atol=1e-9))
    return int(found[0]) if len(found) else None
