"""Which PNGs a sweep's report holds, with their titles and the data each is drawn from: plain data,
so that the drawing (`plots`, matplotlib) can happen in another process (`painter`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..questions import OUTCOMES, UNKNOWN
from ..sweep.analysis import Sweep, label_masks
from ..sweep.compare import Comparison
from .numbers import confidence
from .tables import flip_frame

if TYPE_CHECKING:
    import pandas as pd

# Whether more of a heatmap's quantity is better ("more") or worse ("less"): it picks the colour scale (the
# PNGs' `plots.COLOURMAPS`, the page's palettes), so good and bad outcomes never share one.
BETTER = {"correct": "more", "no_answer": "more", "score": "more", "score_change": "more",
          "wrong": "less", "missed": "less", "unjudged": "less", "unlabelled": "less"}


@dataclass(frozen=True)
class PlotAxis:
    """One axis of the plane as a plot draws it: the frame's column holding its values (numbers: a categorical
    axis's positions), its title, the words that say what it does, and, for an axis of whole numbers or names,
    its ticks (position, as written)."""

    column: str
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
        found.append(PlotAxis(spec.heading, spec.title, spec.words, ticks))
    return found[0], found[1]


def plane(result: Sweep, grid: pd.DataFrame) -> pd.DataFrame:
    """`grid` (grid.csv's frame) with both axes' columns as numbers, ordered as the axes are (a categorical
    axis's names become their positions), for drawing."""
    h, a = result.h_axis.values, result.a_axis.values
    return grid.assign(**{result.system.axes[0].heading: np.repeat(h, len(a)),
                          result.system.axes[1].heading: np.tile(a, len(h))})


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


def risk_coverage_frame(result: Sweep) -> pd.DataFrame:
    """Along ANSWER_CUTOFF at the recommended HAS_ANSWER_CUTOFF, one row per cell: `value` (of the second axis),
    `coverage` (quoted questions / questions, weighted to the production mix when there is one), `observed`
    (the wrong-answer rate) and `bound` (its upper bound at the level the certificate's test uses there), all
    three from each question's first repeat, the data the guarantee uses."""
    import pandas as pd  # here: a sweep that writes tables alone never imports pandas

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
    return pd.DataFrame({"value": result.a_axis.values, "coverage": coverage,
                         "observed": np.asarray(g.observed[i], dtype=float), "bound": g.bounds[i]})


def bound_words(result: Sweep) -> str:
    """What the risk-coverage view's upper bound is."""
    g = result.guarantee
    return f"upper bound, {confidence(g.delta / g.rows)} confidence per cell"


def plan(result: Sweep, grid: pd.DataFrame, out_dir: Path, comparison: Comparison | None) -> list[Figure]:
    """The report's PNGs, in the order the summary lists them."""
    synthetic = " (synthetic)" if result.replayed.record.synthetic else ""
    rec = result.recommended
    marked = marks(result)
    planned: list[Figure] = []
    rows, columns = plot_axes(result)
    grid = plane(result, grid)
    on = {"rows": rows, "columns": columns}
    first, second = rows.column, columns.column

    mean = " (mean over repeats)" if result.repeats > 1 else ""
    for outcome in OUTCOMES:
        if outcome in UNKNOWN and not grid[outcome.value].any():
            continue
        title = f"{outcome.label.capitalize()} questions per cell{mean}{synthetic}"
        name = f"heatmap-{outcome.label}.png"
        planned.append(Figure(title, name, "heatmap", (grid, outcome.value, out_dir / name, marked, title,
                                                       f"{outcome.label} questions", BETTER[outcome.value]), on))
    if comparison is not None:
        frame = grid[[first, second]].assign(score_change=comparison.score_difference.ravel())
        title = f"Score change against {comparison.baseline.run_dir.name} per cell{synthetic}"
        planned.append(Figure(title, "heatmap-score-change.png", "heatmap",
                              (frame, "score_change", out_dir / "heatmap-score-change.png", marked, title,
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
