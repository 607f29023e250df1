"""Plots of a sweep. Each drawing function takes a DataFrame and a path (plus plain labels) and writes
one PNG; `figures.plan` chooses the plots of one sweep and `draw` draws one of them.

Nothing here computes results. Agg backend; text is rendered literally (no mathtext, so a `$` in a
question id stays a `$`); outcomes are told apart by marker and line style as well as colour, so the
charts survive greyscale printing; PNG metadata is fixed so the same data gives the same file.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (the backend must be chosen first)
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from ..questions import Outcome  # noqa: E402
from ..recipe.decision import ANSWER_WORDS, HAS_ANSWER_WORDS  # noqa: E402
from ..storage import SHARED_FILE, write_atomic  # noqa: E402
from .figures import Figure  # noqa: E402

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
MARKS = {"default": ("o", "white"), "recommended": ("*", "black")}
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


def heatmap(grid: pd.DataFrame, column: str, path: Path, marks: Mapping[str, tuple[float, float]], title: str,
            legend: str) -> None:
    """`column` over HAS_ANSWER_CUTOFF (rows) x ANSWER_CUTOFF (columns), with marked points, and the
    certified region outlined when `grid` has a `certified` column.

    Cividis keeps its order in greyscale; on a small grid every cell also shows its value, when it fits.
    """
    table = grid.pivot(index="has_answer_cutoff", columns="answer_cutoff", values=column)
    h, a = table.index.to_numpy(), table.columns.to_numpy()
    values = table.to_numpy(dtype=float)
    whole = bool(np.all(values == np.round(values)))
    with plt.rc_context(RC):
        fig, ax = plt.subplots(figsize=(6.4, 5.2))
        image = ax.pcolormesh(_edges(a), _edges(h), values, cmap="cividis", shading="flat")
        fig.colorbar(image, ax=ax, label=legend, ticks=MaxNLocator(integer=whole))
        if _readable(values, whole):
            middle = (values.max() + values.min()) / 2
            for i, hv in enumerate(h):
                for j, av in enumerate(a):
                    value = values[i, j]
                    if not whole and value == 0:
                        continue  # shares: the few cells that matter stand out from a field of blanks
                    text = f"{value:.0f}" if whole else f"{value:.2f}".rstrip("0").rstrip(".")
                    ax.text(av, hv, text, ha="center", va="center", fontsize=6,
                            color="black" if value > middle else "white")
        if "certified" in grid:
            certified = grid.pivot(index="has_answer_cutoff", columns="answer_cutoff", values="certified")
            _outline(ax, certified.to_numpy() == "true", _edges(a), _edges(h))
        for name, (mh, ma) in marks.items():
            marker, face = MARKS.get(name, ("P", "white"))
            ax.plot([ma], [mh], marker=marker, markersize=13, markerfacecolor=face, markeredgecolor="red",
                    markeredgewidth=1.5, linestyle="none", label=f"{name} ({mh:g}, {ma:g})")
        ax.set_xlabel(f"ANSWER_CUTOFF ({ANSWER_WORDS})")
        ax.set_ylabel(f"HAS_ANSWER_CUTOFF ({HAS_ANSWER_WORDS})")
        ax.set_title(title)
        ax.legend(loc="upper left", bbox_to_anchor=(0, -0.12), ncol=2, frameon=False)
        _save(fig, path)


ANNOTATE_AT_MOST = 144  # cells: past a 12 x 12 grid, numbers in cells crowd each other (the HTML report has them)


def _readable(values: np.ndarray, whole: bool) -> bool:
    """Whether every cell's number fits in its cell: a small grid, and labels no wider than its cells
    (the plot area is about 4.5 inches wide; a 6-point digit about 0.055 inch)."""
    if values.size > ANNOTATE_AT_MOST:
        return False
    widest = max(len(f"{v:.0f}" if whole else f"{v:.2f}".rstrip("0").rstrip(".")) for v in values.ravel())
    return widest * 0.055 <= 4.5 / values.shape[1]


def _outline(ax: Any, region: np.ndarray, x_edges: np.ndarray, y_edges: np.ndarray) -> None:
    """Draw the border of a boolean region of cells: every cell side with the region on one side only."""
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
        ax.add_collection(LineCollection(segments, colors="#ff2d2d", linewidths=2.0, label="certified cells"))


def _edges(centres: np.ndarray) -> np.ndarray:
    """Cell edges around sorted centres, so each cutoff sits in the middle of its cell."""
    if len(centres) == 1:
        return np.array([centres[0] - 0.025, centres[0] + 0.025])
    middle = (centres[1:] + centres[:-1]) / 2
    return np.concatenate([[centres[0] - (middle[0] - centres[0])], middle, [centres[-1] + (centres[-1] - middle[-1])]])


def counts_along(frame: pd.DataFrame, cutoff: str, path: Path, title: str, mark: float | None = None) -> None:
    """The outcome counts against one cutoff (`cutoff` names the column), the other held fixed."""
    with plt.rc_context(RC):
        fig, ax = plt.subplots(figsize=(6.4, 4.0))
        for outcome, (colour, marker, line, _) in STYLE.items():
            if outcome in frame and (outcome not in ("unjudged", "unlabelled") or frame[outcome].any()):
                ax.plot(frame[cutoff], frame[outcome], color=colour, marker=marker, linestyle=line, markersize=4,
                        label=_label(outcome))
        if mark is not None:
            ax.axvline(mark, color="black", linewidth=0.8, linestyle=(0, (4, 2)), label=f"recommended {mark:g}")
        ax.set_xlabel(cutoff.upper())
        ax.set_ylabel("questions")
        ax.set_title(title)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
        ax.grid(alpha=0.3)
        _save(fig, path)


def flips(frame: pd.DataFrame, path: Path, title: str, mark: float) -> None:
    """Where each question's outcome flips along ANSWER_CUTOFF.

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
        ax.axvline(mark, color="black", linewidth=1.0, linestyle=(0, (4, 2)), label=f"recommended {mark:g}")
        ax.set_xlim(0, 1)
        ax.set_xlabel("ANSWER_CUTOFF")
        ax.set_title(title)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
        _save(fig, path)


def draw(job: Figure) -> None:
    """Draw one planned figure (`figures.plan`)."""
    if job.kind == "heatmap":
        heatmap(*job.args, **job.options)
    elif job.kind == "counts_along":
        counts_along(*job.args, **job.options)
    else:
        flips(*job.args, **job.options)
