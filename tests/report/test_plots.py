"""The PNGs as a person meets them: every heatmap cell's pixels are its value's colour on its outcome's scale (good
and bad outcomes on different scales), marks told apart by shape, numbers in cells only where they can be read,
the risk-coverage figure drawn from the recommended row's numbers (held to a direct computation), each question's
flip drawn where it is, whole-number ticks where the counts are whole, and round ticks in general."""

from __future__ import annotations

import io
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from conftest import decided, items_of, random_repeats, replayed_of
from quotefinder.report import figures, plots
from quotefinder.report.figures import PALETTES, Cells, Figure, PlotAxis, colour
from quotefinder.report.raster import PAD, Canvas
from quotefinder.report.tables import grid_table
from quotefinder.sweep import guarantee
from quotefinder.sweep.analysis import LOSSY, Settings, Sweep, analyse
from quotefinder.sweep.grid import parse_axis

ROWS, COLUMNS = PlotAxis("FIRST", "first words"), PlotAxis("SECOND", "second words")


def _cells(size: int, values: np.ndarray) -> Cells:
    axis = np.round(np.linspace(0, 1, size), 4)
    return Cells(np.asarray(values, float).reshape(size, size), axis, axis)


@pytest.fixture
def drawn(monkeypatch) -> dict[str, Canvas]:
    """Each PNG's canvas by file name, as the plot handed it to be saved (and saved)."""
    canvases: dict[str, Canvas] = {}
    save = plots._save

    def keep(canvas: Canvas, path: Path) -> None:
        canvases[path.name] = canvas
        save(canvas, path)

    monkeypatch.setattr(plots, "_save", keep)
    return canvases


def _pixel(canvas: Canvas, path: Path, x: float, y: float) -> tuple[int, int, int]:
    """The colour of the written PNG where the canvas drew (x, y)."""
    image = Image.open(io.BytesIO(path.read_bytes())).convert("RGB")
    return image.getpixel((math.floor(x - canvas.box[0] + PAD), math.floor(y - canvas.box[1] + PAD)))


@pytest.mark.parametrize(("size", "values", "written"), [
    (6, np.arange(36) * 300, True),  # four-digit counts on a small grid: they fit
    (21, np.arange(441) * 25, False),  # the default grid: 441 cells are too small for any number
    (12, np.full(144, 1234.567), False),  # means too wide for their cells
])
def test_numbers_appear_in_cells_only_when_they_fit(tmp_path: Path, drawn, size, values, written) -> None:
    plots.heatmap(_cells(size, values), tmp_path / "h.png", {"default": (0.2, 0.6)}, "t", "wrong",
                  rows=ROWS, columns=COLUMNS)
    assert (tmp_path / "h.png").read_bytes().startswith(b"\x89PNG")
    canvas = drawn["h.png"]
    shown = canvas.texts("cell")
    if written:
        assert len(shown) == size * size and "10500" in shown
        # each number in the middle of its own cell (rows drawn upwards), black on light cells, white on dark
        (grid,) = [item for item in canvas.items if item.kind == "cells"]
        xs, ys = grid.how["x_edges"], grid.how["y_edges"][::-1]
        for item in (item for item in canvas.items if item.kind == "text" and item.label == "cell"):
            i, j = np.argwhere(values.reshape(size, size) == float(item.data))[0]
            x0, y0, x1, y1 = item.how["box"]
            assert (x0 + x1) / 2 == pytest.approx((xs[j] + xs[j + 1]) / 2)
            assert (y0 + y1) / 2 == pytest.approx((ys[i] + ys[i + 1]) / 2)
            ends = {values.min(): PALETTES["neither"][0], values.max(): PALETTES["neither"][-1]}  # dark to light
            if (end := ends.get(values.reshape(size, size)[i, j])) is not None:
                assert item.how["colour"] == ("black" if sum(end) > 3 * 128 else "white")
    else:
        assert shown == []


def _sweep(tmp_path: Path, alpha: float | None = 0.4, seed: int = 7) -> Sweep:
    runs = random_repeats(seed, questions=30, repeats=2)
    axis = parse_axis("0:1:0.1")
    return analyse(replayed_of(runs, tmp_path), axis, axis, Settings(folds=0, max_wrong_rate=alpha))


def _planned(result: Sweep, tmp_path: Path, name: str) -> Figure:
    jobs = figures.plan(result, grid_table(result), tmp_path, None)
    return next(job for job in jobs if job.name == name)


@pytest.mark.parametrize("alpha", [0.4, None])
def test_the_risk_coverage_figure_is_drawn_from_the_recommended_rows_numbers(tmp_path: Path, drawn, alpha) -> None:
    """Each ANSWER_CUTOFF's coverage, observed wrong-answer rate and bound, against the obvious computation: every
    question decided by the pipeline's own `decide` at that cell, the bound one cell's Clopper-Pearson bound at
    the level the certificate's test uses (delta shared among the rows)."""
    result = _sweep(tmp_path, alpha)
    runs = [items_of(result.replayed, r, result.h_axis.values) for r in range(result.repeats)]
    n, rows, i = len(result.questions), len(result.h_axis.values), result.decision.cell[0]
    h = float(result.h_axis.values[i])
    coverage, observed, bound = [], [], []
    for a in result.a_axis.values:
        each = [decided(run, h, float(a)) for run in runs]
        coverage.append(sum(d.quote is not None for d, _ in each[0]) / n)  # the first repeat, as the guarantee
        lossy = sum(d.quote is not None and o in LOSSY for d, o in each[0])  # the guarantee's data: the first repeat
        observed.append(lossy / n)
        bound.append(guarantee.upper_bound(lossy, n, 1, result.guarantee.delta / rows))
    job = _planned(result, tmp_path, "risk-coverage.png")
    assert job.kind == "risk_coverage"
    frame, path, title, mark, drawn_alpha, words = job.args
    assert frame["value"].tolist() == result.a_axis.values.tolist()
    assert frame["coverage"] == pytest.approx(coverage, abs=1e-12)
    assert frame["observed"] == pytest.approx(observed, abs=1e-12)
    assert frame["bound"] == pytest.approx(bound, abs=1e-9)
    assert frame["bound"] == pytest.approx(result.guarantee.bounds[i], abs=1e-9)  # the array, one row
    assert max(observed) > 0.05 and len(set(coverage)) > 2  # a row where something happens
    assert mark == result.decision.point[1] and drawn_alpha == alpha and path == tmp_path / "risk-coverage.png"
    assert f"HAS_ANSWER_CUTOFF {h:g}" in title
    assert "99% confidence per cell" in words  # 1 - 0.1 / 11 = 99.09%, rounded down

    plots.draw(job)
    canvas = drawn["risk-coverage.png"]
    lines = canvas.labelled("line")
    assert lines["observed wrong-answer rate"].data == (frame["coverage"].tolist(), frame["observed"].tolist())
    assert lines[words].data == (frame["coverage"].tolist(), frame["bound"].tolist())
    j = result.decision.cell[1]
    stars = [item for item in canvas.items if item.label == f"recommended, ANSWER_CUTOFF {mark:g}"]
    assert [item.how["shape"] for item in stars] == ["star", "star"]
    assert np.allclose([item.data for item in stars], [(coverage[j], observed[j]), (coverage[j], bound[j])])
    for column in ("observed", "bound"):  # drawn where its numbers are: x grows with coverage, y with the rate
        points = np.array(lines[words if column == "bound" else "observed wrong-answer rate"].how["points"])
        for drawn_on, numbers, sign in ((points[:, 0], frame["coverage"], 1), (points[:, 1], frame[column], -1)):
            if np.ptp(numbers) > 0:
                slope, _ = np.polyfit(numbers, drawn_on, 1)
                assert sign * slope > 0 and np.allclose(np.polyval(np.polyfit(numbers, drawn_on, 1), numbers),
                                                        drawn_on)
    alphas = [label for label in lines if label.startswith("ALPHA")]
    assert alphas == ([f"ALPHA {alpha:g} (--max-wrong-rate)"] if alpha is not None else [])
    assert canvas.texts("legend") == ["observed wrong-answer rate", words, *alphas, stars[0].label]
    first = path.read_bytes()
    plots.draw(job)
    assert path.read_bytes() == first and first.startswith(b"\x89PNG")  # the same data, the same file


def test_each_heatmap_cell_is_its_values_colour_on_its_outcomes_scale(tmp_path: Path, drawn) -> None:
    """Read back from the PNG: inside every cell that no mark covers, clear of its number and the certified region's
    border, the pixel is the palette's colour of the cell's value between the map's lowest and highest (within the
    rounding of drawing at three times the size); good outcomes on viridis, bad ones on OrRd, so the two never share
    a scale. The first row is drawn at the bottom."""
    result = _sweep(tmp_path, 0.4, seed=11)
    expected_scales = {"heatmap-correct.png": "more", "heatmap-no-answer.png": "more",
                       "heatmap-wrong.png": "less", "heatmap-missed.png": "less"}
    for name, scale in expected_scales.items():
        job = _planned(result, tmp_path, name)
        plots.draw(job)
        canvas, values = drawn[name], job.args[0].values
        marks = [item.how["at"] for item in canvas.items if item.kind == "mark"]
        (grid,) = [item for item in canvas.items if item.kind == "cells"]
        assert grid.data is values
        xs, ys = grid.how["x_edges"], grid.how["y_edges"][::-1]  # bottom up, as the rows
        checked = 0
        for i, j in np.ndindex(*values.shape):
            x, y = xs[j] + 0.2 * (xs[j + 1] - xs[j]), ys[i + 1] + 0.2 * (ys[i] - ys[i + 1])
            if any(abs(x - mx) < 20 and abs(y - my) < 20 for mx, my in marks):
                continue
            want = colour(PALETTES[scale], values[i, j], values.min(), values.max())
            assert max(abs(p - w) for p, w in zip(_pixel(canvas, tmp_path / name, x, y), want, strict=True)) <= 2
            checked += 1
        assert checked > 0.9 * values.size
        words = "more is better" if scale == "more" else "more is worse"
        assert canvas.texts("scale") == [f"{name[8:-4]} questions ({words})"]


def test_a_grid_of_a_million_cells_is_drawn_as_its_pixels(tmp_path: Path, drawn) -> None:
    """1001 x 1001 cells (the most the sweep accepts) are one item, drawn pixel by pixel: each pixel the colour of
    the cell its centre falls in."""
    values = np.add.outer(np.arange(1001), np.arange(1001)).astype(float)
    plots.heatmap(_cells(1001, values), tmp_path / "big.png", {}, "t", "wrong", "less", rows=ROWS, columns=COLUMNS)
    canvas = drawn["big.png"]
    assert [item.kind for item in canvas.items].count("cells") == 1 and canvas.texts("cell") == []
    xs, ys = canvas.items[0].how["x_edges"], canvas.items[0].how["y_edges"][::-1]
    for i, j in ((20, 20), (980, 980), (20, 980), (500, 250)):  # clear of the frame
        x, y = (xs[j] + xs[j + 1]) / 2, (ys[i] + ys[i + 1]) / 2
        want = colour(PALETTES["less"], values[i, j], 0, 2000)
        assert max(abs(p - w) for p, w in zip(_pixel(canvas, tmp_path / "big.png", x, y), want, strict=True)) <= 8


def test_heatmaps_mark_by_shape_with_the_certified_region_in_the_legend(tmp_path: Path, drawn) -> None:
    result = _sweep(tmp_path, 0.4, seed=11)
    assert result.guarantee.certificate is not None and result.guarantee.certificate.any
    plots.draw(_planned(result, tmp_path, "heatmap-wrong.png"))
    canvas = drawn["heatmap-wrong.png"]
    d, r = result.default, result.decision
    assert r.best_certified is not None
    best = (float(result.h_axis.values[r.best_certified[0]]), float(result.a_axis.values[r.best_certified[1]]))
    legend = [f"default ({d.h:g}, {d.a:g})", f"best certified ({best[0]:g}, {best[1]:g})",
              f"recommended ({r.point[0]:g}, {r.point[1]:g})"]
    assert canvas.texts("legend") == ["certified region", *legend]
    shapes = {label: item.how["shape"] for label, item in canvas.labelled("mark").items()}
    assert shapes == dict(zip(legend, ["circle", "diamond", "star"], strict=True))  # three shapes, not three colours
    assert {label: item.data for label, item in canvas.labelled("mark").items()} == dict(
        zip(legend, [(d.h, d.a), best, r.point], strict=True))
    (grid,) = [item for item in canvas.items if item.kind == "cells"]
    xs, ys = grid.how["x_edges"], grid.how["y_edges"][::-1]  # the rows' edges, bottom up
    h, a = result.h_axis.values, result.a_axis.values
    for item in canvas.labelled("mark").values():  # each mark in the middle of its own cell
        i, j = int(np.flatnonzero(h == item.data[0])[0]), int(np.flatnonzero(a == item.data[1])[0])
        assert item.how["at"] == pytest.approx(((xs[j] + xs[j + 1]) / 2, (ys[i] + ys[i + 1]) / 2))
    for item in (item for item in canvas.items if item.label == "certified region" and item.kind == "line"):
        direction, line, low, high = item.data  # each run drawn along its own cell sides
        expected = ([(xs[low], ys[line]), (xs[high], ys[line])] if direction == "across"
                    else [(xs[line], ys[low]), (xs[line], ys[high])])
        assert np.allclose(item.how["points"], expected)
    ticks = [item for item in canvas.items if item.kind == "text" and item.label == "scale tick"]
    values = [float(item.data) for item in ticks]  # the colour scale runs upwards: the larger, the higher
    assert values == sorted(values) and [item.how["box"][1] for item in ticks] == sorted(
        (item.how["box"][1] for item in ticks), reverse=True)
    runs = [item.data for item in canvas.items if item.label == "certified region" and item.kind == "line"]
    assert _sides(runs) == _sides_of(result.guarantee.certificate.certified)


def _sides(runs: list[tuple[str, int, int, int]]) -> list[tuple[str, int, int]]:
    """Straight runs of border as the unit cell sides they cover, each once."""
    found = [(direction, line, k) for direction, line, a, b in runs for k in range(a, b)]
    assert len(found) == len(set(found))
    return sorted(found)


def _sides_of(region: np.ndarray) -> list[tuple[str, int, int]]:
    """The slow reference: for every cell, each of its four sides with the other side outside the region."""
    inside = {(i, j) for i, j in zip(*np.nonzero(region), strict=True)}
    sides = set()
    for i, j in inside:
        for other, side in (((i - 1, j), ("across", i, j)), ((i + 1, j), ("across", i + 1, j)),
                            ((i, j - 1), ("up", j, i)), ((i, j + 1), ("up", j + 1, i))):
            if other not in inside:
                sides.add(side)
    return sorted(sides)


@given(st.lists(st.lists(st.booleans(), min_size=4, max_size=4), min_size=1, max_size=5))
def test_a_regions_border_is_every_side_it_shares_with_the_outside_in_runs_as_long_as_they_go(rows) -> None:
    region = np.array(rows)
    runs = plots.borders(region)
    assert _sides(runs) == _sides_of(region)
    ends = {(direction, line, end) for direction, line, a, b in runs for end in (a, b)}
    assert len(ends) == 2 * len(runs)  # no two runs of one line meet: each goes as far as it can


def test_without_a_certificate_no_region_and_no_best_certified_cell_are_drawn(tmp_path: Path, drawn) -> None:
    result = _sweep(tmp_path, None)
    plots.draw(_planned(result, tmp_path, "heatmap-wrong.png"))
    canvas = drawn["heatmap-wrong.png"]
    assert [words.split(" (")[0] for words in canvas.texts("legend")] == ["default", "recommended"]
    assert not any(item.label == "certified region" for item in canvas.items)


def test_each_questions_bar_flips_where_its_quote_stops(tmp_path: Path, drawn) -> None:
    frame = {"id": ["a", "b", "c"], "flip": [0.25, float("nan"), 0.9], "quoted": ["correct", "", "wrong"],
             "unquoted": ["missed", "no_answer", "no_answer"]}
    plots.flips(frame, tmp_path / "flips.png", "t", 0.5, axis=COLUMNS)
    canvas = drawn["flips.png"]
    bars = [(item.data, item.label) for item in canvas.items if item.kind == "rect" and item.label in plots.STYLE]
    assert bars == [(("a", 0.0, 0.25), "correct"), (("a", 0.25, 1.0), "missed"), (("b", 0.0, 1.0), "no_answer"),
                    (("c", 0.0, 0.9), "wrong"), (("c", 0.9, 1.0), "no_answer")]
    assert canvas.texts("legend") == ["recommended 0.5", "correct", "missed", "no-answer", "wrong"]
    assert canvas.texts("tick")[-3:] == ["a", "b", "c"]  # the questions, top down
    names = {item.data: (item.how["box"][1] + item.how["box"][3]) / 2 for item in canvas.items
             if item.kind == "text" and item.data in frame["id"]}
    assert names["a"] < names["b"] < names["c"]  # the first question at the top
    for item in (item for item in canvas.items if item.kind == "rect" and item.label in plots.STYLE):
        x0, y0, x1, y1 = item.how["box"]
        assert (y0 + y1) / 2 == pytest.approx(names[item.data[0]])  # beside its name
        ends = {item.data: item.how["box"] for item in canvas.items if item.kind == "text" and item.data in "01"}
        width = (ends["1"][0] + ends["1"][2]) / 2 - (ends["0"][0] + ends["0"][2]) / 2  # the x axis from 0 to 1
        assert (x0 - (ends["0"][0] + ends["0"][2]) / 2, x1 - x0) == pytest.approx(
            (item.data[1] * width, (item.data[2] - item.data[1]) * width))
    hatches = {item.label: item.how["hatch"] for item in canvas.items if item.kind == "rect" and item.label}
    assert len(set(hatches.values())) == len(hatches)  # told apart without colour too


def test_the_flips_histogram_of_many_questions_has_whole_counts_on_its_axis(tmp_path: Path, drawn) -> None:
    # 41 questions (one more than get a bar each), one per bin but two in one: counts 1 and 2
    flip = [0.0125] + [0.025 * k + 0.0125 for k in range(40)]
    frame = {"id": [f"q{k}" for k in range(41)], "flip": flip, "quoted": ["correct"] * 41, "unquoted": ["missed"] * 41}
    plots.flips(frame, tmp_path / "flips.png", "t", 0.5, axis=COLUMNS)
    canvas = drawn["flips.png"]
    ticks = canvas.texts("tick")[6:]  # after the x axis' six
    assert ticks == ["0", "1", "2"]
    counts = [item.data for item in canvas.items if item.kind == "rect" and item.label == "correct"]
    assert sum(count for _, count in counts) == 41 and max(count for _, count in counts) == 2
    assert canvas.texts("legend") == ["recommended 0.5", "correct if quoted (41)"]


@given(st.floats(-1e4, 1e4) | st.sampled_from([1 / 3, 0.1234567890123, 1e-12]),
       st.floats(1e-3, 1e5) | st.floats(0, 1e-6) | st.sampled_from([1e-15, 4e-12]), st.booleans(), st.integers(3, 12))
def test_ticks_are_round_evenly_spaced_within_the_range_and_as_many_as_fit(low, span, whole, most) -> None:
    """At most `most` ticks, all inside [low, high], a round step apart (1, 2, 2.5 or 5 times a power of ten; a
    whole number when `whole`), and the next rounder step down would give more than `most`; a scale of one value,
    float noise apart at most, has that one tick."""
    if whole:  # the counts a whole scale is drawn for
        low, span = round(low), max(1, round(span))
    high = low + span
    ticks = plots.nice_ticks(low, high, whole=whole, most=most)
    if plots.one_value(low, high):
        assert ticks == [low]
        return
    assert 1 <= len(ticks) <= most
    assert all(low - 1e-6 * span <= t <= high + 1e-6 * span for t in ticks)
    if len(ticks) < 2:
        return
    step = ticks[1] - ticks[0]
    assert np.allclose(np.diff(ticks), step, rtol=1e-6, atol=1e-9)
    magnitude = 10.0 ** math.floor(math.log10(step) + 1e-9)
    nice = [m * magnitude for m in (1, 2, 2.5, 5, 10) if math.isclose(step, m * magnitude, rel_tol=1e-6)]
    assert nice, step
    if whole:
        assert float(nice[0]).is_integer()
    rounder = [m * magnitude for m in (0.5, 1, 2, 2.5, 5) if m * magnitude < nice[0] * (1 - 1e-9)]
    for smaller in rounder:
        if whole and not float(smaller).is_integer():
            continue
        count = math.floor(high / smaller + 1e-6) - math.ceil(low / smaller - 1e-6) + 1
        assert count > most


def test_values_equal_but_for_float_noise_are_one_colour_and_one_tick(tmp_path: Path, drawn) -> None:
    """A score change the same in every cell but for rounding (2/3 - 1/3 against 1 - 2/3) is one value: one colour,
    one tick, a figure of the usual size."""
    values = np.array([2 / 3 - 1 / 3, 1 - 2 / 3] * 8)
    assert values[0] != values[1]
    plots.heatmap(_cells(4, values), tmp_path / "h.png", {}, "t", "change", "more", rows=ROWS, columns=COLUMNS)
    canvas = drawn["h.png"]
    assert len(canvas.texts("scale tick")) == 1
    assert len({tuple(rgb) for rgb in canvas.items[0].how["colours"].reshape(-1, 3)}) == 1
    assert Image.open(tmp_path / "h.png").size[1] < 700


def test_a_mark_off_the_grid_is_said_not_drawn(tmp_path: Path, drawn) -> None:
    """As on the page: a default outside the swept grid is named in the legend, off the grid, and the figure keeps
    its size instead of stretching to reach it."""
    plots.heatmap(_cells(3, np.arange(9)), tmp_path / "on.png", {"default": (0.5, 0.5)}, "t", "wrong", "less",
                  rows=ROWS, columns=COLUMNS)
    plots.heatmap(_cells(3, np.arange(9)), tmp_path / "off.png", {"default": (40.0, 0.5), "recommended": (0.5, 1.0)},
                  "t", "wrong", "less", rows=ROWS, columns=COLUMNS)
    assert drawn["off.png"].texts("legend") == ["default (40, 0.5), off the grid", "recommended (0.5, 1)"]
    assert list(drawn["off.png"].labelled("mark")) == ["recommended (0.5, 1)"]
    assert Image.open(tmp_path / "off.png").size == Image.open(tmp_path / "on.png").size


def test_any_text_is_drawn_on_one_line_in_a_font_that_has_its_letters(tmp_path: Path, drawn) -> None:
    """Question ids are anyone's text: accented, Greek or Cyrillic letters are drawn as letters (not the empty box
    of a missing glyph), and a newline in one does not spill into the next row."""
    from quotefinder.report.raster import _font

    def drawn_as(letter: str) -> bytes:
        image = Image.new("L", (80, 80))
        ImageDraw.Draw(image).text((10, 10), letter, font=_font(12), fill=255)
        return image.tobytes()

    missing = drawn_as("\U000F0000")  # a private-use character: no font has it
    for letter in "éüßαЖ≥–":
        assert drawn_as(letter) != missing, letter
    frame = {"id": ["café", "a\nb"], "flip": [0.5, 0.5], "quoted": ["correct"] * 2, "unquoted": ["missed"] * 2}
    plots.flips(frame, tmp_path / "flips.png", "t", 0.5, axis=COLUMNS)
    assert drawn["flips.png"].texts("tick")[-2:] == ["café", "a b"]
