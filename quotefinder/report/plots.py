"""The figures of a sweep, drawn by matplotlib's object API: a `matplotlib.figure.Figure` on the Agg canvas, never
pyplot, so no global state (nothing to close, nothing shared between threads). Each drawing function takes plain
data (numbers, `figures.Cells`, columns) and returns the figure; `save` writes one to a path whose suffix names the
format (png, svg, pdf), and `draw` draws one planned figure (`figures.plan`) into each of its files. Nothing here
computes results. Only `directory.write_report` imports this module, when it draws: a sweep of tables alone never
loads matplotlib.

A user's matplotlib style applies (matplotlibrc, `matplotlib.style.use`, an `rc_context` around the sweep): fonts,
sizes, backgrounds, frames, the dpi. Only what the data needs to read right is set on the objects themselves: the
colour scales, the marks, the outcomes' colours, hatches and line styles, the layout that keeps legends and colour
bars clear of the data. Text is drawn literally: a run's name, a question id or an axis's name is never mathtext
or TeX (a `$` stays a `$`), is one line, and is cut when very long. The same data gives the same bytes: no dates,
no software version, a fixed SVG id salt.

Heatmaps are images (`imshow`; `pcolormesh` where an axis's values are unevenly spaced), so a 1,001 x 1,001 grid
draws about as fast as a small one. A map where more is better (correct, no-answer, score) runs through viridis,
one where more is worse (wrong, missed, unjudged) through OrRd, anything else through cividis
(`figures.COLOURMAPS`, which the pages sample too); a cell without a number is grey. The marks differ in shape,
each black on white so that it shows at both ends of every scale: the default a ring, the recommended cell a star,
the best certified cell a diamond, the certified region a dashed black line on a white one (the page, `page.js`,
draws the same). Outcomes are told apart by hatching and line style as well as colour, so the charts survive
greyscale printing.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
from matplotlib import patheffects
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.cm import ScalarMappable
from matplotlib.collections import LineCollection
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerTuple
from matplotlib.lines import Line2D
from matplotlib.text import Text
from matplotlib.ticker import MaxNLocator

from ..core.storage import SHARED_FILE, write_atomic
from ..core.textsafe import SHOWN_AT_MOST, one_line
from ..questions import Outcome, shorter
from .figures import COLOURMAPS, SCALE_WORDS, Cells, Plot, PlotAxis

STYLE = {  # outcome: (colour, hatch)
    "correct": ("#1b7837", ""),
    "wrong": ("#b2182b", "xx"),
    "missed": ("#e08214", ".."),
    "no_answer": ("#2166ac", "//"),
    "unjudged": ("#7f7f7f", "++"),
    "unlabelled": ("#b15928", "\\\\"),
}
HALO = [patheffects.withStroke(linewidth=4.5, foreground="white")]  # a white line under a black one
MARKS: dict[str, dict[str, Any]] = {  # drawn in this order: the smaller shapes on top of the larger
    "default": {"marker": "o", "markersize": 19, "markerfacecolor": "none", "markeredgecolor": "black",
                "markeredgewidth": 2.0, "path_effects": HALO},
    "best certified": {"marker": "D", "markersize": 12, "markerfacecolor": "white", "markeredgecolor": "black",
                       "markeredgewidth": 1.5},
    "recommended": {"marker": "*", "markersize": 14, "markerfacecolor": "black", "markeredgecolor": "white",
                    "markeredgewidth": 1.0},
}
CERTIFIED_LINE: dict[str, Any] = {"color": "black", "linewidth": 1.6, "linestyle": (0, (3, 2))}  # on white, 4.5 wide
RISK_STYLE = {  # curve: (colour, marker, line style); blue and orange tell apart for colour-blind readers too
    "observed": ("#2166ac", "o", "-"),
    "bound": ("#d6604d", "^", "--"),
}
NO_VALUE = "#dddddd"  # a cell without a number: grey, on no scale
CELL_TEXT = 6.0  # points: a number written in its cell (`_readable` says when it fits)
MAX_TICKS = 12  # names or numbers along an axis of a few values; past this, every k-th
MAX_ROWS = 40  # questions drawn one bar each in the flips chart; more are counted into histograms
# Characters of anyone's text in a figure of a fixed size: a name beside the data (a tick, a question id, a point in
# a legend), and a title or an axis's label (the harness's words around a name; wrapped to the figure's width)
NAME_AT_MOST, TITLE_AT_MOST = SHOWN_AT_MOST // 2, 2 * SHOWN_AT_MOST
# Fixed so the same figure gives the same bytes: no date, no software version, SVG ids salted alike
METADATA: dict[str, dict[str, Any]] = {"png": {"Software": None}, "svg": {"Date": None},
                                       "pdf": {"CreationDate": None, "ModDate": None}}
SVG_SALT = "quotefinder"


def _new(width: float, height: float) -> Figure:
    """A figure of that size in inches on the Agg canvas, laid out so that colour bars and legends outside the
    axes never cover the data, whatever the user's font size."""
    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def save(figure: Figure, path: Path) -> None:
    """Write `figure` to `path` in the format its suffix names (`figures.FORMATS`), rendered to memory first and
    then written atomically (a crash never leaves half a file); the same figure gives the same bytes."""
    kind = path.suffix.removeprefix(".")
    buffer = io.BytesIO()
    # svg.hashsalt is read while the SVG is written: only that key, only then (the user's style stays as it is)
    with matplotlib.rc_context({"svg.hashsalt": SVG_SALT}) if kind == "svg" else nullcontext():
        figure.savefig(buffer, format=kind, metadata=METADATA[kind])
    write_atomic(path, buffer.getvalue(), SHARED_FILE)


def _line(text: str, at_most: int = NAME_AT_MOST) -> str:
    """Anyone's text for one label: on one line (invisible characters shown as `<U+XXXX>`), cut past `at_most`."""
    return shorter(one_line(text), at_most)


def _literal(figure: Figure) -> Figure:
    """`figure` with every text in it drawn as written: never mathtext (`$...$`) nor TeX, whatever the user's
    style says, so that no name can turn into a formula or fail to parse as one."""
    for text in figure.findobj(Text):
        text.set_usetex(False)
        text.set_parse_math(False)
    return figure


def _label(outcome: str) -> str:
    return Outcome(outcome).label


def _ticks(axis: Any, plot_axis: PlotAxis) -> None:
    """An axis of whole numbers or names gets its values' ticks, labelled as written (every k-th of many);
    a cutoff's axis keeps matplotlib's own round ticks."""
    if plot_axis.ticks:
        shown = plot_axis.ticks[::math.ceil(len(plot_axis.ticks) / MAX_TICKS)]
        axis.set_ticks([at for at, _ in shown], [_line(label) for _, label in shown])


def one_value(low: float, high: float) -> bool:
    """Whether a scale from `low` to `high` is one value: equal, or apart by float noise only."""
    return not high - low > 1e-9 * max(1.0, abs(low), abs(high))


def _edges(centres: np.ndarray) -> np.ndarray:
    """Cell edges around sorted centres, so each value sits in the middle of its cell."""
    if len(centres) == 1:
        return np.array([centres[0] - 0.025, centres[0] + 0.025])
    middle = (centres[1:] + centres[:-1]) / 2
    return np.concatenate([[centres[0] - (middle[0] - centres[0])], middle, [centres[-1] + (centres[-1] - middle[-1])]])


def _even(edges: np.ndarray) -> bool:
    """Whether cell edges are evenly spaced (a cutoff's grid), so the cells can be drawn as one image."""
    steps = np.diff(edges)
    return bool(np.allclose(steps, steps[0], rtol=1e-6, atol=0))


def _image(ax: Any, values: np.ndarray, x_edges: np.ndarray, y_edges: np.ndarray, scale: str,
           norm: Normalize) -> ScalarMappable:
    """The cells of `values` (row i between y_edges[i] and [i + 1], the first row at the bottom) coloured on the
    colormap of `scale` through `norm`, a cell without a number (NaN) grey: one image when the cells are evenly
    spaced, a mesh of quads otherwise."""
    cmap = matplotlib.colormaps[COLOURMAPS[scale]].with_extremes(bad=NO_VALUE)
    shown = np.ma.masked_invalid(values)
    if _even(x_edges) and _even(y_edges):
        return ax.imshow(shown, cmap=cmap, norm=norm, origin="lower", aspect="auto", interpolation="nearest",
                         extent=(x_edges[0], x_edges[-1], y_edges[0], y_edges[-1]))
    return ax.pcolormesh(x_edges, y_edges, shown, cmap=cmap, norm=norm, shading="flat")


def heatmap(cells: Cells, marks: Mapping[str, tuple[float, float]], title: str, legend: str,
            better: str | None = None, *, rows: PlotAxis, columns: PlotAxis) -> Figure:
    """`cells.values` over the first axis (`rows`, e.g. HAS_ANSWER_CUTOFF, rising upwards) x the second (`columns`,
    ANSWER_CUTOFF, rising to the right), with a colour bar saying what it counts (`legend`), the marked points
    (`MARKS`: their names; a point off the grid is named in the legend, not drawn), and the certified region
    outlined when `cells` has one. `better` is "more" when more of the quantity is better, "less" when it is worse,
    None when neither (`figures.COLOURMAPS`). On a small grid every cell also shows its value, when it fits."""
    values = np.asarray(cells.values, dtype=float)
    x_edges, y_edges = _edges(np.asarray(cells.columns, float)), _edges(np.asarray(cells.rows, float))
    scale = better or "neither"
    finite = values[np.isfinite(values)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
    one = one_value(low, high)  # one colour, mid-scale, and one tick
    whole = bool(np.all(finite == np.round(finite)))
    figure = _new(6.4, 6.4)
    ax = figure.add_subplot()
    norm = Normalize(low - 0.5, low + 0.5) if one else Normalize(low, high)
    image = _image(ax, values, x_edges, y_edges, scale, norm)
    if _readable(values, whole):
        _numbers(ax, image, values, np.asarray(cells.rows, float), np.asarray(cells.columns, float), whole)
    handles: list[Any] = []
    if cells.certified is not None and _outline(ax, np.asarray(cells.certified, bool), x_edges, y_edges):
        handles.append((Line2D([], [], color="white", linewidth=4.5), Line2D([], [], **CERTIFIED_LINE)))
    labels = ["certified region"] * len(handles)
    inside = (x_edges[0], x_edges[-1], y_edges[0], y_edges[-1])
    for name in MARKS:
        if name in marks:
            handle, words = _mark(ax, name, marks[name], inside, rows, columns)
            handles.append(handle)
            labels.append(words)
    ax.set_xlim(x_edges[0], x_edges[-1])
    ax.set_ylim(y_edges[0], y_edges[-1])
    ax.set_xlabel(_line(f"{columns.title} ({columns.words})", TITLE_AT_MOST), wrap=True)
    ax.set_ylabel(_line(f"{rows.title} ({rows.words})", TITLE_AT_MOST), wrap=True)
    _ticks(ax.xaxis, columns)
    _ticks(ax.yaxis, rows)
    figure.suptitle(_line(title, TITLE_AT_MOST), wrap=True)  # above the legends too, wrapped within the figure
    words = SCALE_WORDS[scale]
    bar = figure.colorbar(image, ax=ax, ticks=[low] if one else MaxNLocator(integer=True) if whole else None)
    bar.set_label(_line(f"{legend} ({words})" if words else legend, TITLE_AT_MOST), wrap=True)  # counts: whole ticks
    if handles:
        figure.legend(handles, labels, loc="outside lower center", ncols=2,
                      handler_map={tuple: HandlerTuple(ndivide=1)})
    return _literal(figure)


def _mark(ax: Any, name: str, at: tuple[float, float], inside: tuple[float, float, float, float],
          rows: PlotAxis, columns: PlotAxis) -> tuple[Line2D, str]:
    """Draw the mark `name` at `at` (first axis, second axis) when it is on the grid (`inside`: x0, x1, y0, y1);
    its legend handle and words, which say where it is (and that it is off the grid when it is)."""
    h, a = at
    words = f"{name} ({_line(rows.text(h))}, {_line(columns.text(a))})"
    x0, x1, y0, y1 = inside
    if x0 <= a <= x1 and y0 <= h <= y1:
        # unclipped: a mark on an edge cell is drawn whole, over the frame
        (line,) = ax.plot([a], [h], linestyle="none", clip_on=False, label=words, **MARKS[name])
        return line, words
    return Line2D([], [], linestyle="none", **MARKS[name]), f"{words}, off the grid"  # as the page: said, not drawn


def _numbers(ax: Any, image: ScalarMappable, values: np.ndarray, rows: np.ndarray, columns: np.ndarray,
             whole: bool) -> None:
    """Each cell's number in its middle, black on a light cell and white on a dark one."""
    light = _luminance(image.to_rgba(values)) > 0.45
    for i, j in np.ndindex(*values.shape):
        value = float(values[i, j])
        if not math.isfinite(value) or (not whole and value == 0):
            continue  # shares: the few cells that matter stand out from a field of blanks
        ax.text(columns[j], rows[i], _number(value, whole), ha="center", va="center", fontsize=CELL_TEXT,
                color="black" if light[i, j] else "white")


def _number(value: float, whole: bool) -> str:
    return f"{value:.0f}" if whole else f"{value:.2f}".rstrip("0").rstrip(".")


def _luminance(rgba: np.ndarray) -> np.ndarray:
    """Relative luminance of RGBA colours (the last axis; Rec. 709 weights on the gamma-encoded channels: enough
    to pick black or white text)."""
    return np.asarray(rgba)[..., :3] @ np.array([0.2126, 0.7152, 0.0722])


ANNOTATE_AT_MOST = 144  # cells: past a 12 x 12 grid, numbers in cells crowd each other (the HTML report has them)


def _readable(values: np.ndarray, whole: bool) -> bool:
    """Whether every cell's number fits in its cell: a small grid, its rows at least a line of `CELL_TEXT` high,
    and labels no wider than its cells (the plot area is about 4.5 inches square; a digit about 0.055 inch)."""
    finite = values[np.isfinite(values)]
    if values.size > ANNOTATE_AT_MOST or not finite.size:
        return False
    widest = max(len(_number(v, whole)) for v in finite.ravel())
    return widest * 0.055 <= 4.5 / values.shape[1] and values.shape[0] * CELL_TEXT * 1.2 / 72 <= 4.5


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


def _outline(ax: Any, region: np.ndarray, x_edges: np.ndarray, y_edges: np.ndarray) -> bool:
    """Draw the border of a boolean region of cells (`borders`) as a dashed black line on a white one; whether
    there was any."""
    segments = [[(x_edges[a], y_edges[line]), (x_edges[b], y_edges[line])] if direction == "across"
                else [(x_edges[line], y_edges[a]), (x_edges[line], y_edges[b])]
                for direction, line, a, b in borders(region)]
    if segments:
        # unclipped: a region that runs to the grid's edge keeps its line there, over the axes' frame; the white
        # first, all of it, so that no white line covers a black one
        ax.add_collection(LineCollection(segments, colors="white", linewidths=4.5, capstyle="projecting",
                                         clip_on=False, label="certified region halo"))
        ax.add_collection(LineCollection(segments, colors=CERTIFIED_LINE["color"], clip_on=False,
                                         linewidths=CERTIFIED_LINE["linewidth"],
                                         linestyles=[CERTIFIED_LINE["linestyle"]], label="certified region"))
    return bool(segments)


def flips(frame_: Mapping[str, Sequence[Any]], title: str, mark: float, *, axis: PlotAxis) -> Figure:
    """Where each question's outcome flips along the second axis (`axis`, e.g. ANSWER_CUTOFF).

    `frame_` has a column per field, one row per question: `id`, `flip` (the top's compare probability: the
    outcome is `quoted` up to it and `unquoted` above; NaN when nothing qualifies), `quoted`, `unquoted`. Up to
    `MAX_ROWS` questions are drawn one bar each, the first at the top; more are counted into stacked histograms of
    flip points per outcome, with whole counts on their axis.
    """
    ids, flip, quoted, unquoted = (list(frame_[c]) for c in ("id", "flip", "quoted", "unquoted"))
    few = len(ids) <= MAX_ROWS
    figure = _new(7.5, 1.4 + 0.28 * max(len(ids), 1) if few else 4.2)
    ax = figure.add_subplot()
    handles = _bars(ax, ids, flip, quoted, unquoted) if few else _histograms(ax, flip, quoted)
    words = f"recommended {mark:g}"
    line = ax.axvline(mark, color="black", linewidth=1.2, linestyle=(0, (5, 3)), label=words)
    ax.set_xlim(0, 1)
    ax.set_xlabel(_line(axis.title, TITLE_AT_MOST), wrap=True)
    figure.suptitle(_line(title, TITLE_AT_MOST), wrap=True)  # above the legends too, wrapped within the figure
    figure.legend([line, *handles], [words, *(str(bars.get_label()) for bars in handles)], loc="outside lower center",
                  ncols=3)
    return _literal(figure)


def _bars(ax: Any, ids: list[Any], flip: list[Any], quoted: list[str], unquoted: list[str]) -> list[Any]:
    """A bar per question (row n from the top): `quoted` up to its flip, `unquoted` above; one bar container per
    outcome, in the order they first appear."""
    parts: dict[str, list[tuple[int, float, float]]] = {}  # outcome: (row, start, width)
    for n in range(len(ids)):
        at = 0.0 if _missing(flip[n]) else float(flip[n])
        for start, width, outcome in ((0.0, at, quoted[n]), (at, 1.0 - at, unquoted[n])):
            if width > 0 and outcome:
                parts.setdefault(outcome, []).append((n, start, width))
    bars = []
    for outcome, found in parts.items():
        colour, hatch = STYLE[outcome]
        rows, starts, widths = zip(*found, strict=True)
        bars.append(ax.barh(rows, widths, left=starts, height=0.7, color=colour, hatch=hatch, edgecolor="white",
                            label=_label(outcome)))
    ax.set_yticks(range(len(ids)), [_line(str(question)) for question in ids])
    ax.set_ylim(len(ids) - 0.5, -0.5)  # the first question at the top
    return bars


def _histograms(ax: Any, flip: list[Any], quoted: list[str]) -> list[Any]:
    """Questions counted by where their quote flips (40 bins over [0, 1]), stacked by the outcome they have while
    quoted; one bar container per outcome, in name order."""
    bins = np.linspace(0, 1, 41)
    below = np.zeros(len(bins) - 1)
    bars = []
    for outcome in sorted({q for q, f in zip(quoted, flip, strict=True) if q and not _missing(f)}):
        points = [float(f) for q, f in zip(quoted, flip, strict=True) if q == outcome and not _missing(f)]
        counts = np.histogram(points, bins=bins)[0]
        colour, hatch = STYLE[outcome]
        bars.append(ax.bar(bins[:-1], counts, width=np.diff(bins), bottom=below, align="edge", color=colour,
                           hatch=hatch, edgecolor="white", label=f"{_label(outcome)} if quoted ({len(points)})"))
        below = below + counts
    ax.set_ylabel("questions whose quote flips here")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts of questions: whole ticks only
    return bars


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def risk_coverage(frame_: Mapping[str, Any], title: str, mark: float, alpha: float | None, bound_label: str, *,
                  axis: PlotAxis) -> Figure:
    """The wrong-answer rate against the share of questions answered, one point per value of the second axis
    (`axis`, e.g. ANSWER_CUTOFF) along a row of the grid: `frame_` has the columns `value` (of that axis),
    `coverage` (quoted questions / questions), `observed` and `bound` (its upper confidence bound, described by
    `bound_label`). The points at `mark` are starred; `alpha`, when given, is drawn as a horizontal line."""
    values, coverage = np.asarray(frame_["value"], float), np.asarray(frame_["coverage"], float)
    curves = {"observed": np.asarray(frame_["observed"], float), "bound": np.asarray(frame_["bound"], float)}
    figure = _new(7.5, 4.2)
    ax = figure.add_subplot()
    for column, words in (("observed", "observed wrong-answer rate"), ("bound", _line(bound_label, TITLE_AT_MOST))):
        colour, marker, line = RISK_STYLE[column]
        ax.plot(coverage, curves[column], color=colour, marker=marker, linestyle=line, markersize=4, label=words)
    if alpha is not None:
        ax.axhline(alpha, color="black", linewidth=1.0, linestyle=":", label=f"ALPHA {alpha:g} (--max-wrong-rate)")
    at = np.flatnonzero(values == mark)
    if at.size:
        k = int(at[0])
        ax.plot([coverage[k]] * 2, [curves["observed"][k], curves["bound"][k]], linestyle="none", clip_on=False,
                label=f"recommended, {_line(axis.title)} {_line(axis.text(mark))}", **MARKS["recommended"])
    if len(set(coverage.tolist())) <= 12:  # which values give each coverage, when few enough to read
        for share in sorted(set(coverage.tolist())):
            where = np.flatnonzero(coverage == share)
            low, high = values[where].min(), values[where].max()
            words = axis.text(low) if low == high else f"{axis.text(low)}-{axis.text(high)}"
            ax.annotate(_line(words), (share, curves["observed"][where[0]]), textcoords="offset points",
                        xytext=(4, -10), fontsize="x-small", color="#444444")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, min(1.02, max(float(curves["bound"].max()), alpha or 0.0) * 1.08 + 0.02))
    ax.set_xlabel("coverage: share of questions answered (quoted)")
    ax.set_ylabel("wrong-answer rate")
    figure.suptitle(_line(title, TITLE_AT_MOST), wrap=True)  # above the legends too, wrapped within the figure
    ax.grid(True, alpha=0.3)  # to read a rate off the curve
    handles, labels = ax.get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncols=2)
    return _literal(figure)


DRAWINGS: dict[str, Callable[..., Figure]] = {"heatmap": heatmap, "flips": flips, "risk_coverage": risk_coverage}


def draw(plot: Plot) -> Figure:
    """Draw one planned figure (`figures.plan`) and write it to each of its files; the figure, for a caller that
    wants to look at it."""
    figure = DRAWINGS[plot.kind](*plot.args, **plot.options)
    for path in plot.files:
        save(figure, path)
    return figure
