"""Which PNGs a sweep's report holds, with their titles and the data each is drawn from: plain data,
so that the drawing (`plots`, matplotlib) can happen in another process (`painter`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..questions import OUTCOMES, UNKNOWN
from ..sweep.analysis import Sweep
from ..sweep.compare import Comparison
from .tables import flip_frame


@dataclass(frozen=True)
class Figure:
    """One PNG: its title and file name for the summary, and the drawing call that makes it."""

    title: str
    name: str
    kind: str  # a drawing function of `plots`: heatmap, counts_along, flips
    args: tuple[Any, ...]
    options: dict[str, Any] = field(default_factory=dict)


def plan(result: Sweep, grid: pd.DataFrame, out_dir: Path, comparison: Comparison | None) -> list[Figure]:
    """The report's PNGs, in the order the summary lists them."""
    synthetic = " (synthetic)" if result.replayed.record.synthetic else ""
    rec, default = result.recommended, result.default
    marks = {"default": (default.h, default.a), "recommended": (rec.h, rec.a)}
    planned: list[Figure] = []

    mean = " (mean over repeats)" if result.repeats > 1 else ""
    for outcome in OUTCOMES:
        if outcome in UNKNOWN and not grid[outcome.value].any():
            continue
        title = f"{outcome.label.capitalize()} questions per cell{mean}{synthetic}"
        name = f"heatmap-{outcome.label}.png"
        planned.append(Figure(title, name, "heatmap", (grid, outcome.value, out_dir / name, marks, title,
                                                       f"{outcome.label} questions")))
    if result.stability is not None:
        title = f"Share of {result.stability.resamples} bootstrap resamples recommending each cell{synthetic}"
        planned.append(Figure(title, "heatmap-bootstrap.png", "heatmap",
                              (grid, "bootstrap_share", out_dir / "heatmap-bootstrap.png", marks, title,
                               "share of resamples")))
    if comparison is not None:
        frame = grid[["has_answer_cutoff", "answer_cutoff"]].assign(score_change=comparison.score_difference.ravel())
        title = f"Score change against {comparison.baseline.run_dir.name} per cell{synthetic}"
        planned.append(Figure(title, "heatmap-score-change.png", "heatmap",
                              (frame, "score_change", out_dir / "heatmap-score-change.png", marks, title,
                               "score now minus baseline")))
    title = f"Outcomes vs ANSWER_CUTOFF at HAS_ANSWER_CUTOFF {rec.h:g}{synthetic}"
    planned.append(Figure(title, "along-answer-cutoff.png", "counts_along",
                          (grid[grid["has_answer_cutoff"] == rec.h], "answer_cutoff",
                           out_dir / "along-answer-cutoff.png", title, rec.a)))
    title = f"Outcomes vs HAS_ANSWER_CUTOFF at ANSWER_CUTOFF {rec.a:g}{synthetic}"
    planned.append(Figure(title, "along-has-answer-cutoff.png", "counts_along",
                          (grid[grid["answer_cutoff"] == rec.a], "has_answer_cutoff",
                           out_dir / "along-has-answer-cutoff.png", title, rec.h)))
    title = f"Where each question's outcome flips, at HAS_ANSWER_CUTOFF {rec.h:g}{synthetic}"
    planned.append(Figure(title, "flips.png", "flips", (flip_frame(result), out_dir / "flips.png", title, rec.a)))
    return planned
