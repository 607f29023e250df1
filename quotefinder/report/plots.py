"""Plots of a sweep. Each drawing function takes plain data (numbers, `figures.Cells`, columns) and a path, and
writes one PNG; `figures.plan` chooses the plots of one sweep and `draw` draws one of them.

Nothing here computes results. The figures are drawn on a `raster.Canvas` (Pillow), in the sweep's own process:
about 0.02 s a figure where matplotlib's start-up alone took 0.3 s (BENCHMARKS.md, "Every file against tables
only"). Text is drawn literally; outcomes are told apart by hatching and line style as well as colour, so the
charts survive greyscale printing; the same data gives the same file.

Heatmaps: a map where more is better (correct, no-answer, score) runs through viridis, one where more is
worse (wrong, missed, unjudged) through OrRd, anything else through cividis (`figures.PALETTES`, which the
page uses too); all three are colour-blind safe and keep their order in greyscale. The marks differ in shape,
each black on white so that it shows at both ends of every scale: the default a ring, the recommended cell a
star, the best certified cell a diamond, the certified region a dashed black line on a white one (the page,
`page.js`, draws the same).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..core.storage import SHARED_FILE, write_atomic
from ..core.textsafe import SHOWN_AT_MOST
from ..questions import Outcome
from .figures import PALETTES, SCALE_WORDS, Cells, Figure, PlotAxis, colour, colours
from .raster import Canvas, Colour, measure

TEXT, SMALL, TITLE = 12.0, 8.5, 13.0  # font sizes in pixels
TICK = 4.0  # a tick's length in pixels
STYLE = {  # outcome: (colour, hatch)
    "correct": ("#1b7837", ""),
    "wrong": ("#b2182b", "xx"),
    "missed": ("#e08214", ".."),
    "no_answer": ("#2166ac", "//"),
    "unjudged": ("#7f7f7f", "++"),
    "unlabelled": ("#b15928", "\\\\"),
}
# A mark: (shape, size, face, edge, edge width), all in pixels, drawn in this order (the smaller on top), the
# default's black ring on a wider white one.
MARKS: dict[str, tuple[str, float, Colour | None, Colour, float]] = {
    "default": ("circle", 26.0, None, "black", 3.0),
    "best certified": ("diamond", 19.0, "white", "black", 2.0),
    "recommended": ("star", 19.0, "black", "white", 1.2),
}
NO_VALUE = (221, 221, 221)  # a cell without a number (grey: on no scale)
HALO = 7.0  # the white under the default's ring and the certified region's line, in pixels
CERTIFIED_DASH = (6.0, 4.0)
MAX_ROWS = 40


@dataclass(frozen=True)
class Frame:
    """A plot's area in pixels (top left at `left`, `top`) and the data ranges it shows."""

    left: float
    top: float
    width: float
    height: float
    x: tuple[float, float]
    y: tuple[float, float]

    def px(self, x: float, y: float) -> tuple[float, float]:
        """Where the data point (x, y) is drawn: y grows upwards."""
        (x0, x1), (y0, y1) = self.x, self.y
        return (self.left + (x - x0) / (x1 - x0) * self.width,
                self.top + self.height - (y - y0) / (y1 - y0) * self.height)

    @property
    def right(self) -> float:
        return self.left + self.width

    @property
    def bottom(self) -> float:
        return self.top + self.height


def one_value(low: float, high: float) -> bool:
    """Whether a scale from `low` to `high` is one value: equal, or apart by float noise only."""
    return not high - low > 1e-9 * max(1.0, abs(low), abs(high))


def nice_ticks(low: float, high: float, *, whole: bool = False, most: int = 8) -> list[float]:
    """The multiples of the smallest round step (1, 2, 2.5 or 5 times a power of ten; a whole number when `whole`)
    of which at most `most` lie between `low` and `high` inclusive: those multiples, rounded to the step's digits.
    A scale of one value (`one_value`) has that value alone."""
    if one_value(low, high):
        return [low]
    power = math.floor(math.log10((high - low) / most)) - 1
    while True:
        for m in (1, 2, 2.5, 5):
            step = m * 10.0**power
            if whole and not (step >= 1 and float(step).is_integer()):
                continue
            first, last = math.ceil(low / step - 1e-6), math.floor(high / step + 1e-6)  # (float noise)
            if last - first + 1 <= most:
                digits = max(0, 1 - power)  # 2.5 x 10^power has one digit more than the power's
                return [round(k * step, digits) for k in range(first, last + 1)]
        power += 1


def _tick_text(value: float) -> str:
    return f"{value:.12g}"


def _axes(canvas: Canvas, frame: Frame, xticks: Sequence[tuple[float, str]], yticks: Sequence[tuple[float, str]],
          xlabel: str, ylabel: str, title: str) -> None:
    """The frame, ticks and labels around a plot's area, and its title above."""
    canvas.rect(frame.left, frame.top, frame.right, frame.bottom, None, outline="black", width=1.0)
    for value, words in xticks:
        x, _ = frame.px(value, frame.y[0])
        canvas.line([(x, frame.bottom), (x, frame.bottom + TICK)], "black")
        canvas.text(x, frame.bottom + TICK + 2, words, TEXT, anchor="ma", role="tick")
    widest = 0.0
    for value, words in yticks:
        _, y = frame.px(frame.x[0], value)
        canvas.line([(frame.left - TICK, y), (frame.left, y)], "black")
        canvas.text(frame.left - TICK - 3, y, words, TEXT, anchor="rm", role="tick")
        widest = max(widest, measure(words, TEXT)[0])
    if xlabel:
        canvas.text(frame.left + frame.width / 2, frame.bottom + TICK + 4 + TEXT * 1.2, xlabel, TEXT, anchor="ma",
                    role="xlabel")
    if ylabel:
        canvas.text(frame.left - TICK - 8 - widest, frame.top + frame.height / 2, ylabel, TEXT, anchor="rm",
                    upright=True, role="ylabel")
    canvas.text(frame.left + frame.width / 2, frame.top - 8, title, TITLE, anchor="md", role="title")


def _grid_lines(canvas: Canvas, frame: Frame, xs: Sequence[float], ys: Sequence[float]) -> None:
    for x in xs:
        canvas.line([frame.px(x, frame.y[0]), frame.px(x, frame.y[1])], "#e3e3e3")
    for y in ys:
        canvas.line([frame.px(frame.x[0], y), frame.px(frame.x[1], y)], "#e3e3e3")


Handle = Callable[[Canvas, float, float], None]  # draws a legend entry's sample centred on (x, y)


def _legend(canvas: Canvas, x: float, y: float, entries: Sequence[tuple[Handle, str]], columns: int = 1) -> None:
    """Entries (a sample and its words) from (x, y) down, in `columns` columns filled row by row."""
    if not entries:
        return
    width = max(measure(words, TEXT)[0] for _, words in entries) + 48
    for n, (handle, words) in enumerate(entries):
        left, middle = x + (n % columns) * width, y + (n // columns) * 22 + 11
        handle(canvas, left + 14, middle)
        canvas.text(left + 34, middle, words, TEXT, anchor="lm", role="legend")


def _mark_handle(name: str) -> Handle:
    return lambda canvas, x, y: _mark(canvas, name, x, y)


def _mark(canvas: Canvas, name: str, x: float, y: float, *, label: str = "", data: Any = None) -> None:
    shape, size, face, edge, width = MARKS[name]
    if name == "default":
        canvas.mark(x, y, shape, size, None, "white", HALO)
    canvas.mark(x, y, shape, size, face, edge, width, label=label, data=data)


def _save(canvas: Canvas, path: Path) -> None:
    """Render, then write atomically: a crash never leaves half a PNG."""
    write_atomic(path, canvas.png(), SHARED_FILE)


def _label(outcome: str) -> str:
    return Outcome(outcome).label


def _axis_ticks(axis: PlotAxis, low: float, high: float) -> list[tuple[float, str]]:
    """An axis of whole numbers or names gets one tick per value, labelled as written; a cutoff round values."""
    if axis.ticks:
        return list(axis.ticks)
    return [(t, _tick_text(t)) for t in nice_ticks(low, high)]


def heatmap(cells: Cells, path: Path, marks: Mapping[str, tuple[float, float]], title: str, legend: str,
            better: str | None = None, *, rows: PlotAxis, columns: PlotAxis) -> None:
    """`cells.values` over the first axis (`rows`, e.g. HAS_ANSWER_CUTOFF, drawn upwards) x the second (`columns`,
    ANSWER_CUTOFF), with marked points (`MARKS`: their names), and the certified region outlined when `cells`
    has one. `better` is "more" when more of the quantity is better, "less" when it is worse, None when neither
    (`figures.PALETTES`). On a small grid every cell also shows its value, when it fits."""
    values = np.asarray(cells.values, dtype=float)
    x_edges, y_edges = _edges(np.asarray(cells.columns, float)), _edges(np.asarray(cells.rows, float))
    frame = Frame(0, 0, 400, 400, (float(x_edges[0]), float(x_edges[-1])), (float(y_edges[0]), float(y_edges[-1])))
    palette = PALETTES[better or "neither"]
    finite = values[np.isfinite(values)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
    if one_value(low, high):  # equal but for float noise (a score change the same everywhere): one colour
        high = low
    whole = bool(np.all(finite == np.round(finite)))
    canvas = Canvas()
    fills = colours(palette, np.where(np.isfinite(values), values, low), low, high)
    fills[~np.isfinite(values)] = NO_VALUE
    xs = [frame.px(x, 0)[0] for x in x_edges]
    ys = [frame.px(0, y)[1] for y in y_edges[::-1]]  # top down
    canvas.cells(xs, ys, fills[::-1], label="cells", data=values)
    if _readable(values, whole):
        for i, j in np.ndindex(*values.shape):
            value = values[i, j]
            if not math.isfinite(value) or (not whole and value == 0):
                continue  # shares: the few cells that matter stand out from a field of blanks
            text = f"{value:.0f}" if whole else f"{value:.2f}".rstrip("0").rstrip(".")
            canvas.text((xs[j] + xs[j + 1]) / 2, (ys[-i - 2] + ys[-i - 1]) / 2, text, SMALL, anchor="mm", role="cell",
                        colour="black" if _luminance(fills[i, j].tolist()) > 0.45 else "white")
    entries: list[tuple[Handle, str]] = []
    if cells.certified is not None and _outline(canvas, frame, np.asarray(cells.certified, bool), x_edges, y_edges):
        entries.append((lambda c, x, y: _certified_line(c, [(x - 12, y), (x + 12, y)]), "certified region"))
    for name in MARKS:
        if name in marks:
            mh, ma = marks[name]
            words = f"{name} ({rows.text(mh)}, {columns.text(ma)})"
            if frame.x[0] <= ma <= frame.x[1] and frame.y[0] <= mh <= frame.y[1]:
                _mark(canvas, name, *frame.px(ma, mh), label=words, data=(mh, ma))
            else:  # as the page does: not drawn, said (a default outside the swept grid)
                words += ", off the grid"
            entries.append((_mark_handle(name), words))
    yticks = _axis_ticks(rows, *frame.y)
    _axes(canvas, frame, _axis_ticks(columns, *frame.x), yticks, f"{columns.title} ({columns.words})",
          f"{rows.title} ({rows.words})", title)
    _scale(canvas, frame, palette, low, high, whole, f"{legend} ({SCALE_WORDS[better]})" if better else legend)
    _legend(canvas, frame.left - 40, frame.bottom + TICK + 12 + TEXT * 2.4, entries, columns=2)
    _save(canvas, path)


def _scale(canvas: Canvas, frame: Frame, palette: tuple[tuple[int, int, int], ...], low: float, high: float,
           whole: bool, words: str) -> None:
    """The colour scale beside a heatmap: low at the bottom, its ticks, and what it counts."""
    left, width = frame.right + 24, 18.0
    steps = 64
    canvas.band(left, frame.top, left + width, frame.bottom,
                [colour(palette, low + (high - low) * k / (steps - 1), low, high) for k in range(steps)])
    canvas.rect(left, frame.top, left + width, frame.bottom, None, outline="black", width=1.0)
    widest = 0.0
    for value in nice_ticks(low, high, whole=whole):
        y = frame.bottom - (0.5 if one_value(low, high) else (value - low) / (high - low)) * frame.height
        canvas.line([(left + width, y), (left + width + TICK, y)], "black")
        text = _tick_text(value)
        canvas.text(left + width + TICK + 3, y, text, TEXT, anchor="lm", role="scale tick")
        widest = max(widest, measure(text, TEXT)[0])
    canvas.text(left + width + TICK + 10 + widest, frame.top + frame.height / 2, words, TEXT, anchor="lm",
                upright=True, role="scale")


def _luminance(rgb: Sequence[int]) -> float:
    """Relative luminance (Rec. 709 weights on the gamma-encoded channels: enough to pick black or white text)."""
    r, g, b = (int(c) for c in rgb)
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


ANNOTATE_AT_MOST = 144  # cells: past a 12 x 12 grid, numbers in cells crowd each other (the HTML report has them)


def _readable(values: np.ndarray, whole: bool) -> bool:
    """Whether every cell's number fits in its cell: a small grid, its rows at least a line of small text high,
    and labels no wider than its cells (the plot area is 400 pixels square; a small digit about 5.5 pixels)."""
    if values.size > ANNOTATE_AT_MOST:
        return False
    finite = values[np.isfinite(values)]
    if not finite.size:
        return False
    widest = max(len(f"{v:.0f}" if whole else f"{v:.2f}".rstrip("0").rstrip(".")) for v in finite.ravel())
    return widest * 5.5 <= 400 / values.shape[1] and values.shape[0] * SMALL * 1.2 <= 400


def _certified_line(canvas: Canvas, points: Sequence[tuple[float, float]], label: str = "") -> None:
    canvas.line(points, "white", HALO)
    canvas.line(points, "black", 2.0, dash=CERTIFIED_DASH, label=label)


def borders(region: np.ndarray) -> list[tuple[str, int, int, int]]:
    """The border of a boolean region of cells (rows i, columns j) as straight runs: ("across", i, j0, j1) along the
    line below row i from column j0 up to j1 (exclusive; i from 0 to rows, the last line above the top row), and
    ("up", j, i0, i1) along the line left of column j from row i0 up to i1. Every cell side with the region on one
    side only is in exactly one run, each run as long as it goes."""
    padded = np.pad(np.asarray(region, dtype=bool), 1)
    found: list[tuple[str, int, int, int]] = []
    for direction, changes in (("across", padded[1:, 1:-1] != padded[:-1, 1:-1]),  # (rows + 1, columns)
                               ("up", (padded[1:-1, 1:] != padded[1:-1, :-1]).T)):  # (columns + 1, rows)
        for line, along in enumerate(changes):
            steps = np.diff(np.concatenate([[0], along.astype(np.int8), [0]]))
            found += [(direction, line, int(a), int(b))
                      for a, b in zip(np.flatnonzero(steps == 1), np.flatnonzero(steps == -1), strict=True)]
    return found


def _outline(canvas: Canvas, frame: Frame, region: np.ndarray, x_edges: np.ndarray, y_edges: np.ndarray) -> bool:
    """Draw the border of a boolean region of cells (`borders`) as a dashed black line on a white one; whether
    there was any."""
    runs = borders(region)
    lines = [[frame.px(x_edges[a], y_edges[line]), frame.px(x_edges[b], y_edges[line])] if direction == "across"
             else [frame.px(x_edges[line], y_edges[a]), frame.px(x_edges[line], y_edges[b])]
             for direction, line, a, b in runs]
    for points in lines:  # white first, all of it, so that no white line covers a black one
        canvas.line(points, "white", HALO)
    for points, run in zip(lines, runs, strict=True):
        canvas.line(points, "black", 2.0, dash=CERTIFIED_DASH, label="certified region", data=run)
    return bool(runs)


def _edges(centres: np.ndarray) -> np.ndarray:
    """Cell edges around sorted centres, so each cutoff sits in the middle of its cell."""
    if len(centres) == 1:
        return np.array([centres[0] - 0.025, centres[0] + 0.025])
    middle = (centres[1:] + centres[:-1]) / 2
    return np.concatenate([[centres[0] - (middle[0] - centres[0])], middle, [centres[-1] + (centres[-1] - middle[-1])]])


def _patch(outcome: str) -> Handle:
    fill, hatch = STYLE[outcome]
    return lambda canvas, x, y: canvas.rect(x - 12, y - 7, x + 12, y + 7, fill, hatch=hatch)


def _dashed(dash: Sequence[float], colour_: Colour = "black", width: float = 1.0) -> Handle:
    return lambda canvas, x, y: canvas.line([(x - 12, y), (x + 12, y)], colour_, width, dash=dash)


def flips(frame_: Mapping[str, Sequence[Any]], path: Path, title: str, mark: float, *, axis: PlotAxis) -> None:
    """Where each question's outcome flips along the second axis (`axis`, e.g. ANSWER_CUTOFF).

    `frame_` has a column per field, one row per question: `id`, `flip` (the top's compare probability: the
    outcome is `quoted` up to it and `unquoted` above; NaN when nothing qualifies), `quoted`, `unquoted`. Up to
    40 questions are drawn one bar each; more are counted into stacked histograms of flip points per outcome.
    """
    ids, flip, quoted, unquoted = (list(frame_[c]) for c in ("id", "flip", "quoted", "unquoted"))
    canvas = Canvas()
    entries: list[tuple[Handle, str]] = []
    if len(ids) <= MAX_ROWS:
        row = 20.0
        frame = Frame(0, 0, 460, row * max(len(ids), 1) + 10, (0.0, 1.0), (0.0, 1.0))
        seen: list[str] = []
        yticks = []
        for n, question in enumerate(ids):
            centre = frame.top + 5 + row * (n + 0.5)
            at = 0.0 if _missing(flip[n]) else float(flip[n])
            for start, width, outcome in ((0.0, at, quoted[n]), (at, 1.0 - at, unquoted[n])):
                if width > 0 and outcome:
                    fill, hatch = STYLE[outcome]
                    x0, x1 = frame.px(start, 0)[0], frame.px(start + width, 0)[0]
                    canvas.rect(x0, centre - 7, x1, centre + 7, fill, outline="white", hatch=hatch, label=outcome,
                                data=(question, start, start + width))
                    if outcome not in seen:
                        seen.append(outcome)
            name = str(question)
            yticks.append((frame.y[1] - (centre - frame.top) / frame.height,
                           name if len(name) <= SHOWN_AT_MOST else name[:SHOWN_AT_MOST] + "..."))
        entries += [(_patch(outcome), _label(outcome)) for outcome in seen]
        ylabel = ""
    else:
        bins = np.linspace(0, 1, 41)
        counted = []
        for outcome in sorted({q for q, f in zip(quoted, flip, strict=True) if q and not _missing(f)}):
            points = [float(f) for q, f in zip(quoted, flip, strict=True) if q == outcome and not _missing(f)]
            counted.append((outcome, np.histogram(points, bins=bins)[0], len(points)))
        tallest = float(np.sum([c for _, c, _ in counted], axis=0).max()) if counted else 1.0
        frame = Frame(0, 0, 460, 300, (0.0, 1.0), (0.0, tallest * 1.05))
        below = np.zeros(len(bins) - 1)
        for outcome, counts, total in counted:
            fill, hatch = STYLE[outcome]
            for k, count in enumerate(counts):
                if count:
                    (x0, y0), (x1, y1) = frame.px(bins[k], below[k] + count), frame.px(bins[k + 1], below[k])
                    canvas.rect(x0, y0, x1, y1, fill, outline="white", hatch=hatch, label=outcome,
                                data=(float(bins[k]), int(count)))
            below += counts
            entries.append((_patch(outcome), f"{_label(outcome)} if quoted ({total})"))
        # counts of questions: whole ticks only
        yticks = [(t, _tick_text(t)) for t in nice_ticks(0.0, frame.y[1], whole=True)]
        ylabel = "questions whose quote flips here"
    x = frame.px(mark, 0)[0]
    canvas.line([(x, frame.top), (x, frame.bottom)], "black", 1.2, dash=(5, 3), label=f"recommended {mark:g}",
                data=mark)
    entries.insert(0, (_dashed((5, 3), width=1.2), f"recommended {mark:g}"))
    _axes(canvas, frame, _axis_ticks(PlotAxis("", ""), 0.0, 1.0), yticks, axis.title, ylabel, title)
    _legend(canvas, frame.right + 14, frame.top, entries)
    _save(canvas, path)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


RISK_STYLE = {  # curve: (colour, mark, dash); blue and orange tell apart for colour-blind readers too
    "observed": ("#2166ac", "circle", ()),
    "bound": ("#d6604d", "triangle", (6.0, 3.0)),
}


def risk_coverage(frame_: Mapping[str, Any], path: Path, title: str, mark: float, alpha: float | None,
                  bound_label: str, *, axis: PlotAxis) -> None:
    """The wrong-answer rate against the share of questions answered, one point per value of the second axis
    (`axis`, e.g. ANSWER_CUTOFF) along a row of the grid: `frame_` has the columns `value` (of that axis),
    `coverage` (quoted questions / questions), `observed` and `bound` (its upper confidence bound, described by
    `bound_label`). The point at `mark` is starred; `alpha`, when given, is drawn as a horizontal line."""
    values, coverage = np.asarray(frame_["value"], float), np.asarray(frame_["coverage"], float)
    curves = {"observed": np.asarray(frame_["observed"], float), "bound": np.asarray(frame_["bound"], float)}
    top = min(1.02, max(float(curves["bound"].max()), alpha or 0.0) * 1.08 + 0.02)
    frame = Frame(0, 0, 460, 300, (-0.02, 1.02), (-0.02, top))
    xs, ys = nice_ticks(0.0, 1.0), nice_ticks(0.0, top)
    _grid_lines(canvas := Canvas(), frame, xs, ys)
    entries: list[tuple[Handle, str]] = []
    for column, words in (("observed", "observed wrong-answer rate"), ("bound", bound_label)):
        fill, shape, dash = RISK_STYLE[column]
        points = [frame.px(x, y) for x, y in zip(coverage, curves[column], strict=True)]
        canvas.line(points, fill, 1.5, dash=dash, label=words, data=(coverage.tolist(), curves[column].tolist()))
        for x, y in points:
            canvas.mark(x, y, shape, 6.5, fill)
        entries.append((_series_handle(fill, shape, dash), words))
    if alpha is not None:
        words = f"ALPHA {alpha:g} (--max-wrong-rate)"
        canvas.line([frame.px(frame.x[0], alpha), frame.px(frame.x[1], alpha)], "black", 1.2, dash=(1.5, 2.5),
                    label=words, data=alpha)
        entries.append((_dashed((1.5, 2.5), width=1.2), words))
    at = np.flatnonzero(values == mark)
    if at.size:
        k = int(at[0])
        words = f"recommended, {axis.title} {axis.text(mark)}"
        for column in ("observed", "bound"):
            _mark(canvas, "recommended", *frame.px(coverage[k], curves[column][k]), label=words,
                  data=(float(coverage[k]), float(curves[column][k])))
        entries.append((_mark_handle("recommended"), words))
    if len(set(coverage.tolist())) <= 12:  # which values give each coverage, when few enough to read
        for share in sorted(set(coverage.tolist())):
            where = np.flatnonzero(coverage == share)
            low, high = values[where].min(), values[where].max()
            words = axis.text(low) if low == high else f"{axis.text(low)}-{axis.text(high)}"
            x, y = frame.px(share, curves["observed"][where[0]])
            canvas.text(x + 5, y + 5, words, SMALL, colour="#444444", role="note")
    _axes(canvas, frame, [(t, _tick_text(t)) for t in xs], [(t, _tick_text(t)) for t in ys],
          "coverage: share of questions answered (quoted)", "wrong-answer rate", title)
    _legend(canvas, frame.right + 14, frame.top, entries)
    _save(canvas, path)


def _series_handle(fill: Colour, shape: str, dash: Sequence[float]) -> Handle:
    def handle(canvas: Canvas, x: float, y: float) -> None:
        canvas.line([(x - 12, y), (x + 12, y)], fill, 1.5, dash=dash)
        canvas.mark(x, y, shape, 6.5, fill)
    return handle


DRAWINGS: dict[str, Callable[..., None]] = {"heatmap": heatmap, "flips": flips,
                                            "risk_coverage": risk_coverage}


def draw(job: Figure) -> None:
    """Draw one planned figure (`figures.plan`)."""
    DRAWINGS[job.kind](*job.args, **job.options)
