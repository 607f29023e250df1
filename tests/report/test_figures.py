"""Which PNGs a report holds (`report.figures`): plain data planned for `plots`, one file per drawing that
`plots` knows, titles that say the evidence, a score-change map only with a baseline, the marked points, and
the risk-coverage view's bounds equal to the guarantee's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from quotefinder.report import figures, plots
from quotefinder.report.figures import PALETTES, SCALE_WORDS, PlotAxis, colour, colours, marks, plan
from quotefinder.report.html import page_data
from quotefinder.report.tables import grid_table
from quotefinder.sweep.grid import parse_axis
from quotefinder.sweep.session import SweepOptions, run_sweep

GRID = parse_axis("0:1:0.25")


@pytest.fixture
def swept(ten: Path):
    return run_sweep(SweepOptions(ten, GRID, GRID, baseline=ten), say=lambda _: None)


def test_the_plan_is_one_file_per_drawing_each_titled_with_its_evidence(swept, tmp_path: Path) -> None:
    result, comparison = swept
    planned = plan(result, grid_table(result), tmp_path, None)
    names = [figure.name for figure in planned]
    assert len(set(names)) == len(names) and all(name.endswith(".png") for name in names)
    assert {"heatmap-correct.png", "heatmap-wrong.png", "risk-coverage.png", "flips.png"} <= set(names)
    assert all(figure.kind in plots.DRAWINGS for figure in planned)
    assert all(figure.title.endswith("(synthetic)") for figure in planned)
    with_baseline = plan(result, grid_table(result), tmp_path, comparison)
    assert [f.name for f in with_baseline] == [*names[:-2], "heatmap-score-change.png", *names[-2:]]
    # no curves along one row and one column: the heatmaps hold their counts (BENCHMARKS.md, "Every file
    # against tables only")
    assert not any(name.startswith("along-") for name in names)


def test_the_marks_are_the_default_and_the_recommended_point(swept) -> None:
    result, _ = swept
    found = marks(result)
    assert found["default"] == (result.default.h, result.default.a)
    assert found["recommended"] == result.decision.point
    assert ("best certified" in found) == (result.decision.best_certified is not None)


def test_the_risk_coverage_view_is_the_guarantees_row(swept) -> None:
    result, _ = swept
    i = result.decision.marked[0]
    frame = figures.risk_coverage_frame(result)
    assert frame["value"].tolist() == result.a_axis.values.tolist()
    assert ((frame["coverage"] >= 0) & (frame["coverage"] <= 1)).all() and set(frame) == {
        "value", "coverage", "observed", "bound"}
    assert np.allclose(frame["bound"], result.guarantee.bounds[i])


def test_an_axis_writes_a_value_as_its_tick_or_the_number() -> None:
    axis = PlotAxis("tier", "Tier", ticks=((0.0, "instant"), (1.0, "deep")))
    assert axis.text(1.0) == "deep" and axis.text(0.5) == "0.5"
    assert PlotAxis("h", "H").text(0.25) == "0.25"


@given(st.lists(st.floats(-10, 10, allow_nan=False), min_size=1, max_size=40), st.floats(-5, 5), st.floats(0, 5),
       st.sampled_from(sorted(PALETTES)))
def test_every_cells_colour_at_once_is_each_cells_colour(values, low, span, name) -> None:
    """`colours` (the heatmaps' many cells at once) against `colour` (one value, as the page computes it), value by
    value, on every palette, with values beyond the scale and a scale of one value."""
    palette, high = PALETTES[name], low + span
    at_once = colours(palette, np.array(values), low, high)
    assert [tuple(int(c) for c in rgb) for rgb in at_once] == [colour(palette, v, low, high) for v in values]


def test_the_page_colours_by_the_palettes_the_pngs_use(swept) -> None:
    result, _ = swept
    data = page_data(result)
    assert data["palettes"] == {name: [list(stop) for stop in stops] for name, stops in PALETTES.items()}
    assert data["scaleWords"] == SCALE_WORDS and set(data["better"].values()) <= {*PALETTES, None}
