"""Plots of a sweep. Each drawing function takes a DataFrame and a path (plus plain labels) and writes
one PNG; `figures.plan` chooses the plots of one sweep and `draw` draws one of them.

Nothing here computes results. Agg backend; text is rendered literally (no mathtext, so a `$` in a
question id stays a `$`); outcomes are told apart by marker and line style as well as colour, so the
charts survive greyscale printing; PNG metadata is fixed so the same data gives the same file.

Heatmaps: a map where more is better (correct, no-answer, score) runs through viridis, one where more is
worse (wrong, missed, unjudged) through OrRd, anything else through cividis; all three are colour-blind
safe and keep their order in greyscale. The marks differ in shape, each black on white so that it shows
at both ends of every scale: the default a ring, the recommended cell a star, the best certified cell a
diamond, the certified region a dashed black line on a white one (the page, `page.js`, draws the same).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (the backend must be chosen first)
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib import patheffects  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.legend_handler import HandlerTuple  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from ..core.storage import SHARED_FILE, write_atomic  # noqa: E402
from ..questions import Outcome  # noqa: E402
from .figures import Figure, PlotAxis  # noqa: E402

STYLE = {  # outcome: (colour, marker, line style, hatch)
    "correct": ("#1b7837", "o", "-", ""),
    "wrong": ("#b2182b", "X", "--", "xx"),
    "missed": ("#e08214", "s", "-.", ".."),
    "no_answer": ("#2166ac", "^", ":", "//"),
    "unjudged": ("#7f7f7f", "D", (0, (1, 3)), "++"),
    "unlabelled": ("#b15928", "v", (0, (3, 1, 1, 1)), "\\\\"),
}
# Any: matplotlib's stubs accept only literal rc names as keys
RC: Any = {"text.parse_math": False, "font.size": 9, "figure.dpi": 100, "savefig.dpi": 100, "svg.hashsalt": "qf"}
COLOURMAPS = {"more": "viridis", "less": "OrRd", None: "cividis"}  # what `better` says: more of it is better
SCALE_WORDS = {"more": "more is better", "less": "more is worse", None: ""}
HALO = [patheffects.withStroke(linewidth=4.5, foreground="white")]  # a white line under a black one
MARKS: dict[str, dict[str, Any]] = {  # drawn in this order: the smaller shapes on top of the larger
    "default": {"marker": "o", "markersize": 19, "markerfacecolor": "none", "markeredgecolor": "black",
                "markeredgewidth": 2.0, "path_effects": HALO},
    "best certified": {"marker": "D", "markersize": 14, "markerfacecolor": "white", "markeredgecolor": "black",
                       "markeredgewidth": 1.5},
    "recommended": {"marker": "*", "markersize": 13, "markerfacecolor": "black", "markeredgecolor": "white",
                    "markeredgewidth": 1.2},
}
CERTIFIED_LINE: dict[str, Any] = {"color": "black", "linewidth": 1.6, "linestyle": (0, (3, 2))}  # on white, 4.5 wide
MAX_ROWS = 40


def _save(fig: plt.Figure, path: Path) -> None:
    """Render to memory, then write atomically: a crash never leaves half a PNG."""
    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, format="png", metadata={"Software": None}, bbox_inches="tight")
    finally:
        plt.close(fig)
    write_atomic(path, buffer.getvalue(), SHARED_FILE)


def _label(outcome: str) -> str:
    return Outcome(outcome).label


def _ticks(ax: Any, axis: PlotAxis, which: str) -> None:
    """An axis of whole numbers or names gets one tick per value, labelled as written."""
    if axis.ticks:
        getattr(ax, f"set_{which}ticks")([at for at, _ in axis.ticks], [label for _, label in axis.ticks])


def heatmap(grid: pd.DataFrame, column: str, path: Path, marks: Mapping[str, tuple[float, float]], title: str,
            legend: str, better: str | None = None, *, rows: PlotAxis, columns: PlotAxis) -> None:
    """`column` over the first axis (`rows`, e.g. HAS_ANSWER_CUTOFF) x the second (`columns`, ANSWER_CUTOFF),
    with marked points (`MARKS`: their names), and the certified region outlined when `grid` has a `certified`
    column. `better` is "more" when more of `column` is better, "less" when it is worse, None when neither
    (`COLOURMAPS`).

    On a small grid every cell also shows its value, when it fits.
    """
    table = grid.pivot(index=rows.column, columns=columns.column, values=column)
    h, a = table.index.to_numpy(), table.columns.to_numpy()
    values = table.to_numpy(dtype=float)
    whole = bool(np.all(values == np.round(values)))
    with plt.rc_context(RC):
        fig, ax = plt.subplots(figsize=(6.4, 5.4))
        image = ax.pcolormesh(_edges(a), _edges(h), values, cmap=COLOURMAPS[better], shading="flat")
        words = SCALE_WORDS[better]
        fig.colorbar(image, ax=ax, label=f"{legend} ({words})" if words else legend, ticks=MaxNLocator(integer=whole))
        if _readable(values, whole):
            for i, hv in enumerate(h):
                for j, av in enumerate(a):
                    value = values[i, j]
                    if not whole and value == 0:
                        continue  # shares: the few cells that matter stand out from a field of blanks
                    text = f"{value:.0f}" if whole else f"{value:.2f}".rstrip("0").rstrip(".")
                    ax.text(av, hv, text, ha="center", va="center", fontsize=6,
                            color="black" if _luminance(image.to_rgba(value)) > 0.45 else "white")
        handles: list[Any] = []
        labels: list[str] = []
        if "certified" in grid:
            certified = grid.pivot(index=rows.column, columns=columns.column, values="certified")
            if _outline(ax, certified.to_numpy() == "true", _edges(a), _edges(h)):
                handles.append((Line2D([], [], color="white", linewidth=4.5), Line2D([], [], **CERTIFIED_LINE)))
                labels.append("certified region")
        for name, style in MARKS.items():
            if name in marks:
                mh, ma = marks[name]
                handles.append(ax.plot([ma], [mh], linestyle="none", clip_on=False, **style)[0])
                labels.append(f"{name} ({rows.text(mh)}, {columns.text(ma)})")
        ax.set_xlabel(f"{columns.title} ({columns.words})")
        ax.set_ylabel(f"{rows.title} ({rows.words})")
        _ticks(ax, columns, "x")
        _ticks(ax, rows, "y")
        ax.set_title(title)
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(0, -0.12), ncol=2, frameon=False,
                  handler_map={tuple: HandlerTuple(ndivide=1)})
        _save(fig, path)


def _luminance(rgba: Any) -> float:
    """Relative luminance (Rec. 709 weights on the gamma-encoded channels: enough to pick black or white text)."""
    r, g, b = rgba[:3]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


ANNOTATE_AT_MOST = 144  # cells: past a 12 x 12 grid, numbers in cells crowd each other (the HTML report has them)


def _readable(values: np.ndarray, whole: bool) -> bool:
    """Whether every cell's number fits in its cell: a small grid, and labels no wider than its cells
    (the plot area is about 4.5 inches wide; a 6-point digit about 0.055 inch)."""
    if values.size > ANNOTATE_AT_MOST:
        return False
    widest = max(len(f"{v:.0f}" if whole else f"{v:.2f}".rstrip("0").rstrip(".")) for v in values.ravel())
    return widest * 0.055 <= 4.5 / values.shape[1]


def _outline(ax: Any, region: np.ndarray, x_edges: np.ndarray, y_edges: np.ndarray) -> bool:
    """Draw the border of a boolean region of cells (every cell side with the region on one side only) as a
    dashed black line on a white one; whether there was any."""
    padded = np.pad(region, 1)
    segments = []
    for i, j in zip(*np.nonzero(region), strict=True):
        x0, x1, y0, y1 = x_edges[j], x_edges[j + 1], y_edges[i], y_edges[i + 1]
        if not padded[i, j + 1]:  # the cell below (lower HAS_ANSWER_CUTOFF)
            segments.append([(x0, y0), (x1, y0)])
        if not padded[i + 2, j + 1]:
            segments.append([(x0, y1), (x1, y1)])
        if not padded[i + 1, j]:
            segments.append([(x0, y0), (x0, y1)])
        if not padded[i + 1, j + 2]:
            segments.append([(x1, y0), (x1, y1)])
    if segments:
        # unclipped: a region that runs to the grid's edge keeps its line there, over the axes' frame
        ax.add_collection(LineCollection(segments, colors="white", linewidths=4.5, capstyle="projecting",
                                         clip_on=False))
        ax.add_collection(LineCollection(segments, colors=CERTIFIED_LINE["color"], clip_on=False,
                                         linewidths=CERTIFIED_LINE["linewidth"],
                                         linestyles=[CERTIFIED_LINE["linestyle"]]))
    return bool(segments)


def _edges(centres: np.ndarray) -> np.ndarray:
    """Cell edges around sorted centres, so each cutoff sits in the middle of its cell."""
    if len(centres) == 1:
        return np.array([centres[0] - 0.025, centres[0] + 0.025])
    middle = (centres[1:] + centres[:-1]) / 2
    return np.concatenate([[centres[0] - (middle[0] - centres[0])], middle, [centres[-1] + (centres[-1] - middle[-1])]])


def flips(frame: pd.DataFrame, path: Path, title: str, mark: float, *, axis: PlotAxis) -> None:
    """Where each question's outcome flips along the second axis (`axis`, e.g. ANSWER_CUTOFF).

    `frame` has one row per question: `id`, `flip` (the top's compare probability: the outcome is
    `quoted` up to it and `unquoted` above; NaN when nothing qualifies), `quoted`, `unquoted`. Up to 40
    questions are drawn one bar each; more are aggregated into histograms of flip points per outcome.
    """
    with plt.rc_context(RC):
        if len(frame) <= MAX_ROWS:
            fig, ax = plt.subplots(figsize=(6.4, 1.2 + 0.28 * max(len(frame), 1)))
            seen: set[str] = set()
            for y, row in enumerate(frame.itertuples(index=False)):
                flip = 0.0 if pd.isna(row.flip) else float(row.flip)
                for start, width, outcome in ((0.0, flip, row.quoted), (flip, 1.0 - flip, row.unquoted)):
                    if width > 0 and outcome:
                        colour, _, _, hatch = STYLE[outcome]
                        ax.barh(y, width, left=start, color=colour, hatch=hatch, edgecolor="white", height=0.7,
                                label=None if outcome in seen else _label(outcome))
                        seen.add(outcome)
            ax.set_yticks(range(len(frame)), [str(i) for i in frame["id"]])
            ax.invert_yaxis()
        else:
            fig, ax = plt.subplots(figsize=(6.4, 4.0))
            bins = np.linspace(0, 1, 41).tolist()
            for outcome, group in frame.dropna(subset=["flip"]).groupby("quoted", sort=True):
                colour, _, _, hatch = STYLE[outcome]
                ax.hist(group["flip"], bins=bins, color=colour, hatch=hatch, edgecolor="white", alpha=0.8,
                        label=f"{_label(outcome)} if quoted ({len(group)})")
            ax.set_ylabel("questions whose quote flips here")
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts of questions: whole ticks only
        ax.axvline(mark, color="black", linewidth=1.0, linestyle=(0, (4, 2)), label=f"recommended {mark:g}")
        ax.set_xlim(0, 1)
        ax.set_xlabel(axis.title)
        ax.set_title(title)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
        _save(fig, path)


RISK_STYLE = {  # curve: (colour, marker, line style); blue and orange tell apart for colour-blind readers too
    "observed": ("#2166ac", "o", "-"),
    "bound": ("#d6604d", "^", "--"),
}


def risk_coverage(frame: pd.DataFrame, path: Path, title: str, mark: float, alpha: float | None,
                  bound_label: str, *, axis: PlotAxis) -> None:
    """The wrong-answer rate against the share of questions answered, one point per value of the second axis
    (`axis`, e.g. ANSWER_CUTOFF) along a row of the grid: `frame` has `value` (of that axis), `coverage` (quoted
    questions / questions), `observed` and `bound` (its upper confidence bound, described by `bound_label`).
    The point at `mark` is starred; `alpha`, when given, is drawn as a horizontal line."""
    with plt.rc_context(RC):
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        for column, words in (("observed", "observed wrong-answer rate"), ("bound", bound_label)):
            colour, marker, line = RISK_STYLE[column]
            ax.plot(frame["coverage"], frame[column], color=colour, marker=marker, linestyle=line, markersize=4,
                    label=words)
        if alpha is not None:
            ax.axhline(alpha, color="black", linewidth=1.0, linestyle=":", label=f"ALPHA {alpha:g} (--max-wrong-rate)")
        at = frame[frame["value"] == mark]
        if len(at):
            row = at.iloc[0]
            ax.plot([row["coverage"]] * 2, [row["observed"], row["bound"]], linestyle="none", clip_on=False,
                    **MARKS["recommended"], label=f"recommended, {axis.title} {axis.text(mark)}")
        groups = frame.groupby("coverage", sort=True)["value"]
        if groups.ngroups <= 12:  # which values give each coverage, when few enough to read
            for coverage, cutoffs in groups:
                low, high = cutoffs.min(), cutoffs.max()
                rate = float(frame.loc[cutoffs.index, "observed"].iloc[0])
                words = axis.text(low) if low == high else f"{axis.text(low)}-{axis.text(high)}"
                ax.annotate(words, (float(coverage), rate),
                            textcoords="offset points", xytext=(4, -10), fontsize=6, color="#444444")
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, min(1.02, max(float(frame["bound"].max()), alpha or 0.0) * 1.08 + 0.02))
        ax.set_xlabel("coverage: share of questions answered (quoted)")
        ax.set_ylabel("wrong-answer rate")
        ax.set_title(title)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
        ax.grid(alpha=0.3)
        _save(fig, path)


DRAWINGS: dict[str, Callable[..., None]] = {"heatmap": heatmap, "flips": flips,
                                            "risk_coverage": risk_coverage}


def draw(job: Figure) -> None:
    """Draw one planned figure (`figures.plan`)."""
    DRAWINGS[job.kind](*job.args, **job.options)
