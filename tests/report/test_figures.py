"""Which figures a report holds (`report.figures`): plain data planned for `plots`, one file per drawing that
`plots` knows and format asked for, titles that say the evidence, a score-change map only with a baseline, the
marked points, the risk-coverage view's bounds equal to the guarantee's, and the page's colours sampled from the
figures' own colormaps."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import matplotlib
import numpy as np
import pytest

from quotefinder.core.errors import InputError
from quotefinder.report import figures, plots
from quotefinder.report.figures import COLOURMAPS, SCALE_WORDS, PlotAxis, formats, marks, plan, stops
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
    names = [name for figure in planned for name in figure.names]
    assert len(set(names)) == len(names) and all(name.endswith(".png") for name in names)
    assert all(figure.files == (tmp_path / figure.names[0],) for figure in planned)
    assert {"heatmap-correct.png", "heatmap-wrong.png", "risk-coverage.png", "flips.png"} <= set(names)
    assert all(figure.kind in plots.DRAWINGS for figure in planned)
    assert all(figure.title.endswith("(synthetic)") for figure in planned)
    with_baseline = plan(result, grid_table(result), tmp_path, comparison)
    assert [f.names[0] for f in with_baseline] == [*names[:-2], "heatmap-score-change.png", *names[-2:]]
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


def test_each_figure_is_planned_once_per_format_asked_for(swept, tmp_path: Path) -> None:
    result, _ = swept
    png = plan(result, grid_table(result), tmp_path, None)
    both = plan(result, grid_table(result), tmp_path, None, ["SVG", "png", "svg"])
    assert [f.names for f in both] == [(f"{name[:-4]}.svg", name) for f in png for name in f.names]
    assert [f.args[1:] for f in both] == [f.args[1:] for f in png]  # one drawing, written twice
    with pytest.raises(InputError, match="'gif': figures are written as png, svg, pdf"):
        plan(result, grid_table(result), tmp_path, None, ["png", "gif"])
    assert formats([" pdf", "png"]) == ("pdf", "png")
    with pytest.raises(InputError):
        formats([])


def test_a_long_baseline_name_is_cut_in_its_title(swept, tmp_path: Path) -> None:
    result, comparison = swept
    baseline = replace(comparison.baseline, run_dir=tmp_path / ("b" * 10_000))  # (no such directory: only its name)
    planned = plan(result, grid_table(result), tmp_path, replace(comparison, baseline=baseline))
    (change,) = [f for f in planned if "score-change" in f.names[0]]
    assert change.title.startswith("Score change against " + "b" * 80 + "... per cell")


@pytest.mark.parametrize("scale", sorted(COLOURMAPS))
def test_the_pages_colours_are_sampled_from_the_figures_colormaps(scale) -> None:
    """Evenly spaced along the colormap, ends included, in 0-255 RGB: the page blends between what the figures
    draw with."""
    found = stops(scale)
    assert len(found) == figures.STOPS and all(len(rgb) == 3 for rgb in found)
    colormap = matplotlib.colormaps[COLOURMAPS[scale]]
    for k, rgb in enumerate(found):
        want = np.array(colormap(k / (len(found) - 1))[:3]) * 255
        assert np.abs(np.array(rgb) - want).max() <= 0.5
    assert stops("more")[0] == [68, 1, 84] and stops("more")[-1] == [253, 231, 37]  # viridis, as people know it


def test_the_page_colours_by_the_colormaps_the_figures_use(swept) -> None:
    result, _ = swept
    data = page_data(result)
    assert data["stops"] == {scale: stops(scale) for scale in COLOURMAPS}
    assert data["scaleWords"] == SCALE_WORDS and set(data["better"].values()) <= {*COLOURMAPS, None}
