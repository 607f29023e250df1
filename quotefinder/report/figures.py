"""Which PNGs a sweep's report holds, with their titles and the plain data each is drawn from (`plots` draws
them), and the colour scales the PNGs and the page share."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..questions import OUTCOMES, UNKNOWN
from ..sweep.analysis import Sweep, label_masks
from ..sweep.compare import Comparison
from .numbers import confidence
from .tables import Columns, flip_frame

# Whether more of a heatmap's quantity is better ("more") or worse ("less"): it picks the colour scale (the
# PNGs and the page: `PALETTES`), so good and bad outcomes never share one.
BETTER = {"correct": "more", "no_answer": "more", "score": "more", "score_change": "more",
          "wrong": "less", "missed": "less", "unjudged": "less", "unlabelled": "less"}
# The colour scales, low to high, blended between stops: viridis (more is better), OrRd (more is worse) and
# cividis (neither) at a few stops each; the PNGs and the page (`html.page_data`) colour by the same ones.
PALETTES: dict[str, tuple[tuple[int, int, int], ...]] = {
    "more": ((68, 1, 84), (71, 45, 123), (59, 82, 139), (44, 114, 142), (33, 145, 140), (40, 174, 128),
             (94, 201, 98), (173, 220, 48), (253, 231, 37)),
    "less": ((255, 247, 236), (254, 232, 200), (253, 212, 158), (253, 186, 131), (252, 140, 89), (239, 100, 71),
             (214, 47, 30), (178, 0, 0), (127, 0, 0)),
    "neither": ((0, 32, 77), (65, 77, 107), (124, 123, 120), (188, 175, 111), (255, 234, 70)),
}
SCALE_WORDS = {"more": "more is better", "less": "more is worse", "neither": ""}


def colour(palette: tuple[tuple[int, int, int], ...], value: float, low: float, high: float) -> tuple[int, int, int]:
    """The colour of `value` on the scale [low, high] of `palette` (the middle when the scale is one value), as the
    page computes it (`page.js` `colour`: halves rounded up)."""
    x = (value - low) / (high - low) if high > low else 0.5
    position = min(max(x, 0.0), 1.0) * (len(palette) - 1)
    k = min(int(position), len(palette) - 2)
    f = position - k
    r, g, b = (math.floor(c + f * (d - c) + 0.5) for c, d in zip(palette[k], palette[k + 1], strict=True))
    return r, g, b


def colours(palette: tuple[tuple[int, int, int], ...], values: np.ndarray, low: float, high: float) -> np.ndarray:
    """`colour` of every value at once: an array of RGB bytes, one more axis than `values`."""
    stops = np.asarray(palette, dtype=float)
    x = (np.asarray(values, dtype=float) - low) / (high - low) if high > low else np.full(np.shape(values), 0.5)
    position = np.clip(x, 0.0, 1.0) * (len(palette) - 1)
    k = np.minimum(position.astype(int), len(palette) - 2)
    f = (position - k)[..., None]
    return np.floor(stops[k] + f * (stops[k + 1] - stops[k]) + 0.5).astype(np.uint8)


@dataclass(frozen=True)
class PlotAxis:
    """One axis of the plane as a plot draws it: its title, the words that say what it does, and, for an axis of
    whole numbers or names, its ticks (position, as written)."""

    title: str
    words: str = ""
    ticks: tuple[tuple[float, str], ...] = ()

    def text(self, value: float) -> str:
        """A value as written: its tick's label, or the number."""
        return next((label for at, label in self.ticks if at == value), f"{value:g}")


def plot_axes(result: Sweep) -> tuple[PlotAxis, PlotAxis]:
    """The sweep's two axes as the plots draw them (ticks only where the axis is not a cutoff)."""
    found = []
    for spec, axis in zip(result.system.axes, (result.h_axis, result.a_axis), strict=True):
        ticks = () if spec.kind == "cutoff" else tuple((float(v), axis.text(i)) for i, v in enumerate(axis.values))
        found.append(PlotAxis(spec.title, spec.words, ticks))
    return found[0], found[1]


@dataclass(frozen=True)
class Cells:
    """A quantity over the plane: `values[i, j]` at `rows[i]` (the first axis' values, numbers: a categorical
    axis's positions) and `columns[j]` (the second's), and the certified region where there is one."""

    values: np.ndarray
    rows: np.ndarray
    columns: np.ndarray
    certified: np.ndarray | None = None


def cells(result: Sweep, grid: Columns, column: str) -> Cells:
    """`column` of `grid` (grid.csv's columns, a row per cell, the first axis outermost) over the plane, with the
    certificate's region when there is one."""
    h, a = result.h_axis.values, result.a_axis.values
    certificate = result.guarantee.certificate
    return Cells(np.asarray(grid[column], dtype=float).reshape(len(h), len(a)), np.asarray(h, float),
                 np.asarray(a, float), certificate.certified if certificate is not None else None)


@dataclass(frozen=True)
class Figure:
    """One PNG: its title and file name for the summary, and the drawing call that makes it."""

    title: str
    name: str
    kind: str  # a drawing function of `plots` (`plots.DRAWINGS`): heatmap, flips, risk_coverage
    args: tuple[Any, ...]
    options: dict[str, Any] = field(default_factory=dict)


def marks(result: Sweep) -> dict[str, tuple[float, float]]:
    """The marked points of every heatmap, by name (`plots.MARKS`), as (HAS_ANSWER_CUTOFF, ANSWER_CUTOFF)."""
    h, a = result.h_axis.values, result.a_axis.values
    found = {"default": (result.default.h, result.default.a), "recommended": result.decision.point}
    if result.decision.best_certified is not None:
        i, j = result.decision.best_certified
        found["best certified"] = (float(h[i]), float(a[j]))
    return found


def risk_coverage_frame(result: Sweep) -> dict[str, np.ndarray]:
    """Along ANSWER_CUTOFF at the recommended HAS_ANSWER_CUTOFF, a column each, a row per cell: `value` (of the
    second axis), `coverage` (quoted questions / questions, weighted to the production mix when there is one),
    `observed` (the wrong-answer rate) and `bound` (its upper bound at the level the certificate's test uses there), all
    three from each question's first repeat, the data the guarantee uses."""
    i = result.decision.marked[0]
    g = result.guarantee
    a = result.a_axis.values
    quoted = result.tables[0].quoted_along(i, a)  # (Q, A)
    mix = g.mix
    if mix is None:
        coverage = quoted.mean(axis=0)
    else:  # the share answered in the production mix, as the wrong-answer rate beside it
        answerable, unanswerable = label_masks(result.questions)
        coverage = (mix.share * quoted[answerable].mean(axis=0)
                    + (1 - mix.share) * quoted[unanswerable].mean(axis=0))
    return {"value": np.asarray(a, dtype=float), "coverage": np.asarray(coverage, dtype=float),
            "observed": np.asarray(g.observed[i], dtype=float), "bound": g.bounds_along(i)}


def bound_words(result: Sweep) -> str:
    """What the risk-coverage view's upper bound is."""
    g = result.guarantee
    return f"upper bound, {confidence(g.delta / g.rows)} confidence per cell"


def plan(result: Sweep, grid: Columns, out_dir: Path, comparison: Comparison | None) -> list[Figure]:
    """The report's PNGs, in the order the summary lists them; `grid` is grid.csv's columns (`tables.grid_table`)."""
    synthetic = " (synthetic)" if result.replayed.record.synthetic else ""
    rec = result.recommended
    marked = marks(result)
    planned: list[Figure] = []
    rows, columns = plot_axes(result)
    on = {"rows": rows, "columns": columns}

    mean = " (mean over repeats)" if result.repeats > 1 else ""
    for outcome in OUTCOMES:
        if outcome in UNKNOWN and not np.any(grid[outcome.value]):
            continue
        title = f"{outcome.label.capitalize()} questions per cell{mean}{synthetic}"
        name = f"heatmap-{outcome.label}.png"
        planned.append(Figure(title, name, "heatmap", (cells(result, grid, outcome.value), out_dir / name, marked,
                                                       title, f"{outcome.label} questions", BETTER[outcome.value]), on))
    if comparison is not None:
        change = Cells(comparison.score_difference.reshape(len(result.h_axis.values), len(result.a_axis.values)),
                       np.asarray(result.h_axis.values, float), np.asarray(result.a_axis.values, float))
        title = f"Score change against {comparison.baseline.run_dir.name} per cell{synthetic}"
        planned.append(Figure(title, "heatmap-score-change.png", "heatmap",
                              (change, out_dir / "heatmap-score-change.png", marked, title,
                               "score now minus baseline", BETTER["score_change"]), on))
    certificate = result.guarantee.certificate
    title = f"Wrong-answer rate against coverage along {columns.title} at {rows.title} {rows.text(rec.h)}{synthetic}"
    planned.append(Figure(title, "risk-coverage.png", "risk_coverage",
                          (risk_coverage_frame(result), out_dir / "risk-coverage.png", title, rec.a,
                           certificate.alpha if certificate is not None else None, bound_words(result)),
                          {"axis": columns}))
    if result.system.axes[1].kind == "cutoff":  # a flip is a cutoff's value: the top's compare probability
        title = f"Where each question's outcome flips, at {rows.title} {rows.text(rec.h)}{synthetic}"
        planned.append(Figure(title, "flips.png", "flips", (flip_frame(result), out_dir / "flips.png", title,
                                                            rec.a), {"axis": columns}))
    return planned
