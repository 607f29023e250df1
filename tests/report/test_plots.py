"""The figures as a person meets them, read through matplotlib's own objects: each heatmap cell shows its value (the
first axis rising upwards) on its outcome's colour scale (good and bad outcomes on different scales), the marks sit
on their cells and differ in shape, the certified region's border runs around exactly the certified cells, numbers
are written in cells only where they can be read, the risk-coverage figure is drawn from the recommended row's
numbers (held to a direct computation), each question's flip is drawn where it is, counts get whole ticks, any text
is drawn as written, the user's style reaches the figure, and the same data gives the same bytes."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from matplotlib.backend_bases import MouseEvent
from matplotlib.collections import QuadMesh
from matplotlib.figure import Figure
from matplotlib.text import Text

from conftest import decided, items_of, random_repeats, replayed_of
from quotefinder.report import figures, plots
from quotefinder.report.figures import Cells, Plot, PlotAxis
from quotefinder.report.tables import grid_table
from quotefinder.sweep import guarantee
from quotefinder.sweep.analysis import LOSSY, Settings, Sweep, analyse
from quotefinder.sweep.grid import parse_axis

ROWS, COLUMNS = PlotAxis("FIRST", "first words"), PlotAxis("SECOND", "second words")


def _cells(size: int, values: np.ndarray, certified: np.ndarray | None = None) -> Cells:
    axis = np.round(np.linspace(0, 1, size), 4)
    return Cells(np.asarray(values, float).reshape(size, size), axis, axis, certified)


def _drawn(figure: Figure) -> Figure:
    """`figure` laid out and rendered, as a person would see it (positions are final only then)."""
    figure.canvas.draw()
    return figure


def _image(figure: Figure) -> object:
    """The heatmap's cells: its one image (or mesh)."""
    ax = figure.axes[0]
    found = [*ax.images, *(c for c in ax.collections if isinstance(c, QuadMesh))]
    assert len(found) == 1, found
    return found[0]


def _read(figure: Figure, x: float, y: float) -> float:
    """The value a pointer over the data point (x, y) of the heatmap reads: what the cell under it shows."""
    image = _image(figure)
    px, py = figure.axes[0].transData.transform((x, y))
    return image.get_cursor_data(MouseEvent("motion_notify_event", figure.canvas, px, py))  # type: ignore[attr-defined]


def _pixel(figure: Figure, x: float, y: float) -> np.ndarray:
    """The rendered colour (0-255 RGB) at the data point (x, y) of the plot."""
    px, py = figure.axes[0].transData.transform((x, y))
    pixels = np.asarray(figure.canvas.buffer_rgba())  # type: ignore[attr-defined]
    return pixels[int(pixels.shape[0] - py), int(px), :3].astype(int)


def _legend(figure: Figure) -> list[str]:
    (legend,) = figure.legends
    return [text.get_text() for text in legend.get_texts()]


def _texts(figure: Figure) -> list[str]:
    return [text.get_text() for text in figure.findobj(Text) if text.get_text()]


@pytest.mark.parametrize(("size", "values", "written"), [
    (6, np.arange(36) * 300, True),  # four-digit counts on a small grid: they fit
    (21, np.arange(441) * 25, False),  # the default grid: 441 cells are too small for any number
    (12, np.full(144, 1234.567), False),  # means too wide for their cells
])
def test_numbers_appear_in_cells_only_when_they_fit(size, values, written) -> None:
    cells = _cells(size, values)
    figure = _drawn(plots.heatmap(cells, {"default": (0.2, 0.6)}, "t", "wrong", rows=ROWS, columns=COLUMNS))
    shown = list(figure.axes[0].texts)
    if not written:
        assert shown == []
        return
    assert len(shown) == size * size
    image = _image(figure)
    for text in shown:  # each number in the middle of its own cell, black on light cells and white on dark ones
        x, y = text.get_position()
        i, j = int(np.flatnonzero(cells.rows == y)[0]), int(np.flatnonzero(cells.columns == x)[0])
        assert text.get_text() == f"{cells.values[i, j]:.0f}"
        r, g, b, _ = image.to_rgba(cells.values[i, j])  # type: ignore[attr-defined]
        assert text.get_color() == ("black" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.45 else "white")
    assert {text.get_color() for text in shown} == {"black", "white"}  # cividis runs from dark to light


def _sweep(tmp_path: Path, alpha: float | None = 0.4, seed: int = 7) -> Sweep:
    runs = random_repeats(seed, questions=30, repeats=2)
    axis = parse_axis("0:1:0.1")
    return analyse(replayed_of(runs, tmp_path), axis, axis, Settings(folds=0, max_wrong_rate=alpha))


def _planned(result: Sweep, tmp_path: Path, name: str, kinds: tuple[str, ...] = ("png",)) -> Plot:
    jobs = figures.plan(result, grid_table(result), tmp_path, None, kinds)
    return next(job for job in jobs if job.names[0] == name)


@pytest.mark.parametrize("alpha", [0.4, None])
def test_the_risk_coverage_figure_is_drawn_from_the_recommended_rows_numbers(tmp_path: Path, alpha) -> None:
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
    assert job.kind == "risk_coverage" and job.files == (tmp_path / "risk-coverage.png",)
    frame, title, mark, drawn_alpha, words = job.args
    assert frame["value"].tolist() == result.a_axis.values.tolist()
    assert frame["coverage"] == pytest.approx(coverage, abs=1e-12)
    assert frame["observed"] == pytest.approx(observed, abs=1e-12)
    assert frame["bound"] == pytest.approx(bound, abs=1e-9)
    assert frame["bound"] == pytest.approx(result.guarantee.bounds[i], abs=1e-9)  # the array, one row
    assert max(observed) > 0.05 and len(set(coverage)) > 2  # a row where something happens
    assert mark == result.decision.point[1] and drawn_alpha == alpha
    assert f"HAS_ANSWER_CUTOFF {h:g}" in title
    assert "99% confidence per cell" in words  # 1 - 0.1 / 11 = 99.09%, rounded down

    figure = _drawn(plots.draw(job))
    ax = figure.axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    for label, column in (("observed wrong-answer rate", "observed"), (words, "bound")):
        assert lines[label].get_xdata().tolist() == frame["coverage"].tolist()
        assert lines[label].get_ydata().tolist() == frame[column].tolist()
    x0, x1 = ax.get_xlim()
    y0, y1 = ax.get_ylim()
    assert x0 < 0 and x1 > 1 and y0 < 0 and y1 > max(bound)  # every point inside the axes
    j = result.decision.cell[1]
    star = lines[f"recommended, ANSWER_CUTOFF {mark:g}"]
    assert star.get_marker() == "*" and star.get_linestyle() == "None"
    assert np.allclose(np.column_stack([star.get_xdata(), star.get_ydata()]),
                       [(coverage[j], observed[j]), (coverage[j], bound[j])])
    alphas = [label for label in lines if label.startswith("ALPHA")]
    assert alphas == ([f"ALPHA {alpha:g} (--max-wrong-rate)"] if alpha is not None else [])
    if alpha is not None:
        assert list(lines[alphas[0]].get_ydata()) == [alpha, alpha]
    assert _legend(figure) == ["observed wrong-answer rate", words, *alphas, star.get_label()]
    assert lines[words].get_linestyle() != lines["observed wrong-answer rate"].get_linestyle()  # told apart in grey
    first = job.files[0].read_bytes()
    plots.draw(job)
    assert job.files[0].read_bytes() == first and first.startswith(b"\x89PNG")  # the same data, the same file


@pytest.mark.slow
def test_each_heatmap_cell_shows_its_value_on_its_outcomes_scale_rising_upwards(tmp_path: Path) -> None:
    """A pointer over each cell's centre reads that cell's value (the first axis rising upwards, the second to the
    right); the rendered pixel there, clear of the marks, is the value's colour on the colormap between the map's
    lowest and highest values; good outcomes on viridis, bad ones on OrRd, so the two never share a scale."""
    result = _sweep(tmp_path, 0.4, seed=11)
    expected_scales = {"heatmap-correct.png": "viridis", "heatmap-no-answer.png": "viridis",
                       "heatmap-wrong.png": "OrRd", "heatmap-missed.png": "OrRd"}
    for name, colormap in expected_scales.items():
        job = _planned(result, tmp_path, name)
        cells = job.args[0]
        figure = _drawn(plots.draw(job))
        image = _image(figure)
        assert image.cmap.name == colormap  # type: ignore[attr-defined]
        assert (image.norm.vmin, image.norm.vmax) == (cells.values.min(), cells.values.max())  # type: ignore[attr-defined]
        marks = [(line.get_xdata()[0], line.get_ydata()[0]) for line in figure.axes[0].get_lines()]
        checked = 0
        for i, j in np.ndindex(*cells.values.shape):
            x, y = cells.columns[j], cells.rows[i]
            assert _read(figure, x, y) == cells.values[i, j]
            if (x, y) in marks:
                continue  # the mark on it covers it
            off = 0.3 * (cells.columns[1] - cells.columns[0])  # clear of the certified region's border
            want = np.round(np.array(matplotlib.colormaps[colormap](image.norm(cells.values[i, j]))[:3]) * 255)
            assert np.abs(_pixel(figure, x + off, y + off) - want).max() <= 2, (name, i, j)
            checked += 1
        assert checked > 0.9 * cells.values.size
        words = "more is better" if colormap == "viridis" else "more is worse"
        assert figure.axes[1].get_ylabel() == f"{name[8:-4]} questions ({words})"  # the colour bar says what it is


def test_a_grid_of_a_million_cells_is_one_image_of_its_values(tmp_path: Path) -> None:
    """1001 x 1001 cells (the most the sweep accepts) are one image holding the values as they are, the first row at
    the bottom, over the cells' extent; drawn, each place is its cell's colour (a cell is less than a pixel here, so
    neighbours differ by a hair), and no number is written in any cell."""
    values = np.add.outer(np.arange(1001), 2 * np.arange(1001)).astype(float)
    figure = plots.heatmap(_cells(1001, values), {}, "t", "wrong", "less", rows=ROWS, columns=COLUMNS)
    plots.save(figure, tmp_path / "big.png")
    image = _image(figure)
    assert np.array_equal(image.get_array(), values) and image.origin == "lower"  # type: ignore[attr-defined]
    assert image.get_extent() == [-0.0005, 1.0005, -0.0005, 1.0005]  # type: ignore[attr-defined]
    assert not figure.axes[0].texts
    for i, j in ((20, 20), (980, 980), (20, 980), (500, 250)):
        want = np.round(np.array(matplotlib.colormaps["OrRd"](values[i, j] / values.max())[:3]) * 255)
        assert np.abs(_pixel(figure, j / 1000, i / 1000) - want).max() <= 3


def test_unevenly_spaced_values_are_cells_around_each_value() -> None:
    """An axis of whole numbers listed by hand (1, 2, 5, 12) is not one image's even cells: a mesh whose cells are
    centred on the values, each showing its own, labelled by the values themselves."""
    counts = PlotAxis("passages", "quotes", ticks=((1.0, "1"), (2.0, "2"), (5.0, "5"), (12.0, "12")))
    cells = Cells(np.arange(12.0).reshape(3, 4), np.array([0.1, 0.2, 0.3]), np.array([1.0, 2.0, 5.0, 12.0]))
    figure = _drawn(plots.heatmap(cells, {}, "t", "correct", "more", rows=ROWS, columns=counts))
    assert isinstance(_image(figure), QuadMesh)
    for i, j in np.ndindex(3, 4):
        assert _read(figure, cells.columns[j], cells.rows[i]) == cells.values[i, j]
    assert [t.get_text() for t in figure.axes[0].get_xticklabels()] == ["1", "2", "5", "12"]


def test_a_categorical_axis_is_labelled_by_name() -> None:
    tier = PlotAxis("tier", "search depth", ticks=((0.0, "instant"), (1.0, "deep"), (2.0, "deep_reasoning")))
    cells = Cells(np.arange(6.0).reshape(2, 3), np.array([1.0, 2.0]), np.array([0.0, 1.0, 2.0]))
    passages = PlotAxis("passages", "quotes", ticks=((1.0, "1"), (2.0, "2")))
    figure = _drawn(plots.heatmap(cells, {"recommended": (2.0, 1.0)}, "t", "correct", "more", rows=passages,
                                  columns=tier))
    ax = figure.axes[0]
    assert [(t.get_position()[0], t.get_text()) for t in ax.get_xticklabels()] == [
        (0.0, "instant"), (1.0, "deep"), (2.0, "deep_reasoning")]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["1", "2"]
    assert _legend(figure) == ["recommended (2, deep)"]
    assert figure.axes[0].get_xlabel() == "tier (search depth)"


def test_many_values_along_a_categorical_axis_are_labelled_every_few() -> None:
    names = tuple((float(k), f"n{k}") for k in range(30))
    figure = plots.heatmap(Cells(np.zeros((2, 30)), np.array([0.0, 1.0]), np.arange(30.0)), {}, "t", "x",
                           rows=ROWS, columns=PlotAxis("names", "", ticks=names))
    labels = [t.get_text() for t in figure.axes[0].get_xticklabels()]
    assert labels == [f"n{k}" for k in range(0, 30, 3)]


def _unit_sides(segments: list[np.ndarray], x_edges: np.ndarray, y_edges: np.ndarray) -> list[tuple[str, int, int]]:
    """Straight lines drawn along cell edges as the unit cell sides they cover (as `_sides_of` names them), each
    once."""
    def at(edges: np.ndarray, value: float) -> int:
        (k,) = np.flatnonzero(np.isclose(edges, value))
        return int(k)

    found = []
    for (x0, y0), (x1, y1) in segments:
        if y0 == y1:
            a, b = sorted((at(x_edges, x0), at(x_edges, x1)))
            found += [("across", at(y_edges, y0), k) for k in range(a, b)]
        else:
            assert x0 == x1
            a, b = sorted((at(y_edges, y0), at(y_edges, y1)))
            found += [("up", at(x_edges, x0), k) for k in range(a, b)]
    assert len(found) == len(set(found))
    return sorted(found)


def _region_sides(figure: Figure) -> list[tuple[str, int, int]]:
    """The unit cell sides the dashed line of the certified region runs along, on the image's own cell edges."""
    image = _image(figure)
    x0, x1, y0, y1 = image.get_extent()  # type: ignore[attr-defined]
    rows, columns = image.get_array().shape  # type: ignore[attr-defined]
    (line,) = [c for c in figure.axes[0].collections if c.get_label() == "certified region"]
    assert tuple(line.get_linestyle()[0][1]) != ()  # dashed  # type: ignore[attr-defined]
    return _unit_sides(line.get_segments(), np.linspace(x0, x1, columns + 1),  # type: ignore[attr-defined]
                       np.linspace(y0, y1, rows + 1))


def test_heatmaps_mark_by_shape_with_the_certified_region_in_the_legend(tmp_path: Path) -> None:
    result = _sweep(tmp_path, 0.4, seed=11)
    certificate = result.guarantee.certificate
    assert certificate is not None and certificate.any
    figure = _drawn(plots.draw(_planned(result, tmp_path, "heatmap-wrong.png")))
    d, r = result.default, result.decision
    assert r.best_certified is not None
    best = (float(result.h_axis.values[r.best_certified[0]]), float(result.a_axis.values[r.best_certified[1]]))
    legend = [f"default ({d.h:g}, {d.a:g})", f"best certified ({best[0]:g}, {best[1]:g})",
              f"recommended ({r.point[0]:g}, {r.point[1]:g})"]
    assert _legend(figure) == ["certified region", *legend]
    marks = {line.get_label(): line for line in figure.axes[0].get_lines()}
    assert {label: line.get_marker() for label, line in marks.items()} == dict(
        zip(legend, ["o", "D", "*"], strict=True))  # three shapes, not three colours
    # each at its point, (first axis, second axis) drawn as (y, x): in the middle of its own cell
    assert {label: (line.get_ydata()[0], line.get_xdata()[0]) for label, line in marks.items()} == dict(
        zip(legend, [(d.h, d.a), best, r.point], strict=True))
    assert _region_sides(figure) == _sides_of(certificate.certified)


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
    sides = [(direction, line, k) for direction, line, a, b in runs for k in range(a, b)]
    assert sorted(sides) == _sides_of(region) and len(sides) == len(set(sides))
    ends = {(direction, line, end) for direction, line, a, b in runs for end in (a, b)}
    assert len(ends) == 2 * len(runs)  # no two runs of one line meet: each goes as far as it can


@pytest.mark.slow
@given(st.lists(st.lists(st.booleans(), min_size=5, max_size=5), min_size=5, max_size=5))
def test_the_drawn_border_encloses_exactly_the_certified_cells(rows) -> None:
    """Whatever the region (holes, corners, cells touching the grid's edge), the dashed line runs along exactly the
    sides between a certified cell and the rest, on the cells as the image draws them."""
    region = np.array(rows)
    figure = plots.heatmap(_cells(5, np.arange(25.0), region), {}, "t", "wrong", "less", rows=ROWS, columns=COLUMNS)
    if not region.any():
        assert not any(c.get_label() == "certified region" for c in figure.axes[0].collections)
        assert figure.legends == []
        return
    assert _region_sides(figure) == _sides_of(region)
    figure.clear()


def test_without_a_certificate_no_region_and_no_best_certified_cell_are_drawn(tmp_path: Path) -> None:
    result = _sweep(tmp_path, None)
    figure = plots.draw(_planned(result, tmp_path, "heatmap-wrong.png"))
    assert [words.split(" (")[0] for words in _legend(figure)] == ["default", "recommended"]
    assert not any(c.get_label() == "certified region" for c in figure.axes[0].collections)


def test_each_questions_bar_flips_where_its_quote_stops() -> None:
    frame = {"id": ["a", "b", "c"], "flip": [0.25, float("nan"), 0.9], "quoted": ["correct", "", "wrong"],
             "unquoted": ["missed", "no_answer", "no_answer"]}
    figure = _drawn(plots.flips(frame, "t", 0.5, axis=COLUMNS))
    ax = figure.axes[0]
    names = {t.get_text(): t.get_position()[1] for t in ax.get_yticklabels()}
    assert list(names) == ["a", "b", "c"]
    bars = sorted((names_at(names, bar.get_y() + bar.get_height() / 2), bar.get_x(), bar.get_x() + bar.get_width(),
                   container.get_label()) for container in ax.containers for bar in container)
    assert bars == [("a", 0.0, 0.25, "correct"), ("a", 0.25, 1.0, "missed"), ("b", 0.0, 1.0, "no-answer"),
                    ("c", 0.0, 0.9, "wrong"), ("c", 0.9, 1.0, "no-answer")]
    assert _legend(figure) == ["recommended 0.5", "correct", "missed", "no-answer", "wrong"]  # as they come
    top, bottom = (ax.transData.transform((0, names[name]))[1] for name in ("a", "c"))
    assert top > bottom  # the first question at the top
    (line,) = ax.get_lines()
    assert list(line.get_xdata()) == [0.5, 0.5] and line.get_linestyle() == "--"
    hatches = {container.get_label(): container[0].get_hatch() for container in ax.containers}
    assert len(set(hatches.values())) == len(hatches)  # told apart without colour too


def names_at(names: dict[str, float], y: float) -> str:
    (name,) = [name for name, at in names.items() if at == pytest.approx(y)]
    return name


def test_the_flips_histogram_of_many_questions_has_whole_counts_on_its_axis() -> None:
    # 41 questions (one more than get a bar each), one per bin but two in one: counts 1 and 2
    flip = [0.0125] + [0.025 * k + 0.0125 for k in range(40)]
    frame = {"id": [f"q{k}" for k in range(41)], "flip": flip, "quoted": ["correct"] * 41, "unquoted": ["missed"] * 41}
    figure = _drawn(plots.flips(frame, "t", 0.5, axis=COLUMNS))
    ax = figure.axes[0]
    ticks = [t for t in ax.get_yticks() if ax.get_ylim()[0] <= t <= ax.get_ylim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)
    (container,) = ax.containers
    counts = [bar.get_height() for bar in container]
    assert sum(counts) == 41 and max(counts) == 2
    assert _legend(figure) == ["recommended 0.5", "correct if quoted (41)"]


def test_values_equal_but_for_float_noise_are_one_colour_and_one_tick() -> None:
    """A score change the same in every cell but for rounding (2/3 - 1/3 against 1 - 2/3) is one value: one colour,
    mid-scale, and one tick on the colour bar."""
    values = np.array([2 / 3 - 1 / 3, 1 - 2 / 3] * 8)
    assert values[0] != values[1]
    figure = _drawn(plots.heatmap(_cells(4, values), {}, "t", "change", "more", rows=ROWS, columns=COLUMNS))
    image = _image(figure)
    colours = image.to_rgba(values)  # type: ignore[attr-defined]
    assert len({tuple(rgba) for rgba in colours}) == 1
    assert tuple(colours[0]) == matplotlib.colormaps["viridis"](0.5)
    assert figure.axes[1].get_yticks().tolist() == [values[0]]


def test_a_mark_off_the_grid_is_said_not_drawn() -> None:
    """As on the page: a default outside the swept grid is named in the legend, off the grid, and the figure keeps
    its size and its axes instead of stretching to reach it."""
    on = _drawn(plots.heatmap(_cells(3, np.arange(9)), {"default": (0.5, 0.5)}, "t", "wrong", "less", rows=ROWS,
                              columns=COLUMNS))
    off = _drawn(plots.heatmap(_cells(3, np.arange(9)), {"default": (40.0, 0.5), "recommended": (0.5, 1.0)}, "t",
                               "wrong", "less", rows=ROWS, columns=COLUMNS))
    assert _legend(off) == ["default (40, 0.5), off the grid", "recommended (0.5, 1)"]
    assert [line.get_label() for line in off.axes[0].get_lines()] == ["recommended (0.5, 1)"]
    assert off.get_size_inches().tolist() == on.get_size_inches().tolist()
    assert off.axes[0].get_ylim() == on.axes[0].get_ylim() == (-0.25, 1.25)


HOSTILE = "$\\frac{1}{0}$ \x1b[31mred\x07 $x_{2}$"


@pytest.mark.slow
def test_any_text_is_drawn_as_written_on_one_line_and_cut_when_long(tmp_path: Path) -> None:
    """Question ids, run names and axis names are anyone's text: a `$...$` is drawn as written (to a plotting library
    that reads mathtext it is a formula, here an invalid one), control characters show as `<U+XXXX>` on one line,
    and a 10,000-character name is cut; the figures still draw, in every format."""
    long = "n" * 10_000
    axis = PlotAxis(HOSTILE, long, ticks=((0.0, HOSTILE), (1.0, "a\nb")))
    drawn = [
        plots.heatmap(Cells(np.arange(4.0).reshape(2, 2), np.array([0.0, 1.0]), np.array([0.0, 1.0])),
                      {"recommended": (0.0, 0.0)}, f"Score change against {HOSTILE} {long}", HOSTILE, "more",
                      rows=axis, columns=axis),
        plots.flips({"id": [HOSTILE, long, "café", "a\nb"], "flip": [0.5] * 4, "quoted": ["correct"] * 4,
                     "unquoted": ["missed"] * 4}, HOSTILE, 0.5, axis=axis),
        plots.risk_coverage({"value": [0.0, 1.0], "coverage": [1.0, 0.0], "observed": [0.2, 0.0],
                             "bound": [0.4, 0.1]}, HOSTILE, 0.0, 0.3, HOSTILE, axis=axis)]
    shown = "<U+001B>[31mred<U+0007>"
    for n, figure in enumerate(drawn):
        for kind in figures.FORMATS:
            plots.save(figure, tmp_path / f"{n}.{kind}")
        texts = [text for text in figure.findobj(Text) if text.get_text()]
        assert all(not text.get_usetex() and not text.get_parse_math() for text in texts)
        words = [text.get_text() for text in texts]
        assert any(f"$\\frac{{1}}{{0}}$ {shown} $x_{{2}}$" in w for w in words), words
        assert all("\n" not in w and "\x1b" not in w and len(w) <= plots.TITLE_AT_MOST + 3 for w in words)
    assert "n" * plots.NAME_AT_MOST + "..." in _texts(drawn[1])  # the long id, cut
    assert {"café", "a b"} <= set(_texts(drawn[1]))  # letters as letters; a newline does not spill into a row


@pytest.mark.slow
def test_the_same_data_gives_the_same_bytes_in_every_format(tmp_path: Path) -> None:
    result = _sweep(tmp_path, 0.4, seed=11)
    job = _planned(result, tmp_path / "first", "heatmap-wrong.png", figures.FORMATS)
    again = _planned(result, tmp_path / "again", "heatmap-wrong.png", figures.FORMATS)
    for directory in ("first", "again"):
        (tmp_path / directory).mkdir()
    plots.draw(job)
    plots.draw(again)
    assert job.names == again.names == ("heatmap-wrong.png", "heatmap-wrong.svg", "heatmap-wrong.pdf")
    for first, second in zip(job.files, again.files, strict=True):
        assert first.read_bytes() == second.read_bytes(), first.name
    assert job.files[1].read_bytes().startswith(b"<?xml") and job.files[2].read_bytes().startswith(b"%PDF")


def test_the_users_style_reaches_the_figure_but_not_the_datas_colours() -> None:
    """A user's matplotlib style (here an `rc_context`: a font size, a background, a default colormap) shapes the
    figure; the colour scale stays the outcome's own, which is what the data means."""
    style = {"font.size": 17.0, "axes.facecolor": "#123456", "image.cmap": "gray", "axes.labelsize": "medium"}
    with matplotlib.rc_context(style):
        figure = plots.heatmap(_cells(3, np.arange(9)), {"default": (0.5, 0.5)}, "t", "wrong", "less", rows=ROWS,
                               columns=COLUMNS)
    ax = figure.axes[0]
    assert matplotlib.colors.to_hex(ax.get_facecolor()) == "#123456"
    assert ax.xaxis.label.get_fontsize() == 17.0
    assert _image(figure).cmap.name == "OrRd"  # type: ignore[attr-defined]
    assert matplotlib.rcParams["axes.facecolor"] != "#123456"  # nothing of it stays behind


def test_drawing_leaves_the_users_settings_as_they_were(tmp_path: Path) -> None:
    """Writing an SVG fixes its id salt for that one write: the user's settings are the same after."""
    before = dict(matplotlib.rcParams)
    figure = plots.heatmap(_cells(3, np.arange(9)), {}, "t", "wrong", "less", rows=ROWS, columns=COLUMNS)
    for kind in figures.FORMATS:
        plots.save(figure, tmp_path / f"h.{kind}")
    assert dict(matplotlib.rcParams) == before


def test_a_cell_without_a_number_is_grey_on_no_scale() -> None:
    """A cell whose value is NaN (a score change where the baseline has no such cell) is grey, set apart from every
    colour of the scale, which runs over the other cells' values alone."""
    cells = Cells(np.array([[np.nan, 1.0], [2.0, 3.0]]), np.array([0.3, 0.4]), np.array([0.6, 0.7]))
    figure = _drawn(plots.heatmap(cells, {}, "t", "score change", "more", rows=ROWS, columns=COLUMNS))
    image = _image(figure)
    assert (image.norm.vmin, image.norm.vmax) == (1.0, 3.0)  # type: ignore[attr-defined]
    grey = np.round(np.array(matplotlib.colors.to_rgb(plots.NO_VALUE)) * 255)
    assert np.abs(_pixel(figure, 0.62, 0.32) - grey).max() <= 1
    assert not any(np.abs(_pixel(figure, x, y) - grey).max() <= 30 for x, y in ((0.72, 0.32), (0.62, 0.42)))
