"""Which figures a sweep's report holds, with their titles, their files and the plain data each is drawn from
(`plots` draws them), and the colour scales the figures and the pages share (matplotlib's colormaps)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import InputError
from ..core.textsafe import SHOWN_AT_MOST
from ..questions import OUTCOMES, UNKNOWN, shorter
from ..sweep.analysis import Sweep, label_masks
from ..sweep.compare import Comparison
from .numbers import confidence
from .tables import Columns, flip_frame

# Whether more of a heatmap's quantity is better ("more") or worse ("less"): it picks the colour scale
# (`COLOURMAPS`), so good and bad outcomes never share one.
BETTER = {"correct": "more", "no_answer": "more", "score": "more", "score_change": "more",
          "wrong": "less", "missed": "less", "unjudged": "less", "unlabelled": "less"}
# matplotlib's colormaps, low to high: viridis where more is better, OrRd where more is worse, cividis for anything
# else; colour-blind safe, each in order in greyscale. The figures draw with them and the pages sample them (`stops`).
COLOURMAPS = {"more": "viridis", "less": "OrRd", "neither": "cividis"}
SCALE_WORDS = {"more": "more is better", "less": "more is worse", "neither": ""}
STOPS = 9  # colours a page blends between, per scale
FORMATS = ("png", "svg", "pdf")  # the files a figure can be written as (`--figures`), by matplotlib's own names


def stops(scale: str, count: int = STOPS) -> list[list[int]]:
    """`count` colours evenly spaced along the colormap of `scale` (`COLOURMAPS`), low to high, as 0-255 RGB: what
    a page blends between, so that it colours as the figures do. Imports matplotlib's colormaps (a page is written
    only with the figures, which import it anyway)."""
    from matplotlib import colormaps  # here: a sweep that writes tables alone never imports matplotlib

    rgba = colormaps[COLOURMAPS[scale]](np.linspace(0.0, 1.0, count))
    return np.round(rgba[:, :3] * 255).astype(int).tolist()


def formats(names: Sequence[str]) -> tuple[str, ...]:
    """The figure formats `names` (`FORMATS`), each once, in the order given; `InputError` naming the ones that are
    not."""
    found = tuple(dict.fromkeys(name.strip().lower() for name in names))
    unknown = [name for name in found if name not in FORMATS]
    if unknown or not found:
        raise InputError(f"{', '.join(map(repr, unknown)) or 'no format'}: figures are written as "
                         f"{', '.join(FORMATS)}, one or more, e.g. png,svg")
    return found


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
class Plot:
    """One figure of the report: its title for the summary, its files (one per format, in the order asked; the
    summary links the first), and the drawing call that makes it: `plots.DRAWINGS[kind](*args, **options)`."""

    title: str
    files: tuple[Path, ...]
    kind: str  # a drawing function of `plots` (`plots.DRAWINGS`): heatmap, flips, risk_coverage
    args: tuple[Any, ...]
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def names(self) -> tuple[str, ...]:
        """Its files' names, as the report lists them."""
        return tuple(path.name for path in self.files)


def marks(result: Sweep) -> dict[str, tuple[float, float]]:
    """The marked points of every heatmap, by name (`plots.MARKS`), as (first axis, second axis): (HAS_ANSWER_CUTOFF,
    ANSWER_CUTOFF) for the quote finder."""
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
            "observed": np.asarray(g.observed[i], dtype=float), "bound": np.asarray(g.bounds[i], dtype=float)}


def bound_words(result: Sweep) -> str:
    """What the risk-coverage view's upper bound is."""
    g = result.guarantee
    return f"upper bound, {confidence(g.delta / g.rows)} confidence per cell"


def plan(result: Sweep, grid: Columns, out_dir: Path, comparison: Comparison | None,
         kinds: Sequence[str] = ("png",)) -> list[Plot]:
    """The report's figures, in the order the summary lists them, each to be written into `out_dir` once per format
    of `kinds` (`formats`); `grid` is grid.csv's columns (`tables.grid_table`)."""
    kinds = formats(kinds)
    synthetic = " (synthetic)" if result.replayed.record.synthetic else ""
    rec = result.recommended
    marked = marks(result)
    planned: list[Plot] = []
    rows, columns = plot_axes(result)
    on = {"rows": rows, "columns": columns}

    def files(stem: str) -> tuple[Path, ...]:
        return tuple(out_dir / f"{stem}.{kind}" for kind in kinds)

    mean = " (mean over repeats)" if result.repeats > 1 else ""
    for outcome in OUTCOMES:
        if outcome in UNKNOWN and not np.any(grid[outcome.value]):
            continue
        title = f"{outcome.label.capitalize()} questions per cell{mean}{synthetic}"
        planned.append(Plot(title, files(f"heatmap-{outcome.label}"), "heatmap",
                            (cells(result, grid, outcome.value), marked, title, f"{outcome.label} questions",
                             BETTER[outcome.value]), on))
    if comparison is not None:
        change = Cells(comparison.score_difference.reshape(len(result.h_axis.values), len(result.a_axis.values)),
                       np.asarray(result.h_axis.values, float), np.asarray(result.a_axis.values, float))
        baseline = shorter(comparison.baseline.run_dir.name, SHOWN_AT_MOST)  # a name of any length: cut
        title = f"Score change against {baseline} per cell{synthetic}"
        planned.append(Plot(title, files("heatmap-score-change"), "heatmap",
                            (change, marked, title, "score now minus baseline", BETTER["score_change"]), on))
    certificate = result.guarantee.certificate
    title = f"Wrong-answer rate against coverage along {columns.title} at {rows.title} {rows.text(rec.h)}{synthetic}"
    planned.append(Plot(title, files("risk-coverage"), "risk_coverage",
                        (risk_coverage_frame(result), title, rec.a,
                         certificate.alpha if certificate is not None else None, bound_words(result)),
                        {"axis": columns}))
    if result.system.axes[1].kind == "cutoff":  # a flip is a cutoff's value: the top's compare probability
        title = f"Where each question's outcome flips, at {rows.title} {rows.text(rec.h)}{synthetic}"
        planned.append(Plot(title, files("flips"), "flips", (flip_frame(result), title, rec.a), {"axis": columns}))
    return planned
