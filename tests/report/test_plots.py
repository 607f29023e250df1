"""The PNGs: heatmap numbers written in their cells only where a person can read them; marks told apart by
shape and good and bad outcomes on different colour scales; the risk-coverage figure drawn from the
recommended row's numbers, held to a direct computation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import decided, items_of, random_repeats, replayed_of
from quotefinder.report import figures, plots
from quotefinder.report.figures import Figure, PlotAxis
from quotefinder.report.tables import frame_of, grid_table
from quotefinder.sweep import guarantee
from quotefinder.sweep.analysis import LOSSY, Settings, Sweep, analyse
from quotefinder.sweep.grid import parse_axis


def _grid(size: int, values: np.ndarray) -> pd.DataFrame:
    axis = np.round(np.linspace(0, 1, size), 4)
    h, a = np.meshgrid(axis, axis, indexing="ij")
    return pd.DataFrame({"first": h.ravel(), "second": a.ravel(), "wrong": values.ravel()})


@pytest.mark.parametrize(("size", "values", "written"), [
    (6, np.arange(36) * 300, True),  # four-digit counts on a small grid: they fit
    (21, np.arange(441) * 25, False),  # the default grid: 441 cells are too small for any number
    (12, np.full(144, 1234.567), False),  # means too wide for their cells
])
def test_numbers_appear_in_cells_only_when_they_fit(tmp_path: Path, monkeypatch, size, values, written) -> None:
    shown: list[str] = []
    save = plots._save

    def keep_texts(fig, path):
        shown.extend(text.get_text() for text in fig.axes[0].texts)
        save(fig, path)

    monkeypatch.setattr(plots, "_save", keep_texts)
    plots.heatmap(_grid(size, values), "wrong", tmp_path / "h.png", {"default": (0.2, 0.6)}, "t", "wrong",
                  rows=PlotAxis("first", "FIRST"), columns=PlotAxis("second", "SECOND"))
    assert (tmp_path / "h.png").stat().st_size > 1000
    if written:
        assert len(shown) == size * size and "10500" in shown
    else:
        assert shown == []


def _sweep(tmp_path: Path, alpha: float | None = 0.4, seed: int = 7) -> Sweep:
    runs = random_repeats(seed, questions=30, repeats=2)
    axis = parse_axis("0:1:0.1")
    return analyse(replayed_of(runs, tmp_path), axis, axis, Settings(folds=0, max_wrong_rate=alpha))


def _planned(result: Sweep, tmp_path: Path, name: str) -> Figure:
    jobs = figures.plan(result, frame_of(grid_table(result)), tmp_path, None)
    return next(job for job in jobs if job.name == name)


@pytest.mark.parametrize("alpha", [0.4, None])
def test_the_risk_coverage_figure_is_drawn_from_the_recommended_rows_numbers(tmp_path: Path, monkeypatch,
                                                                             alpha) -> None:
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
    assert frame["coverage"].to_numpy() == pytest.approx(coverage, abs=1e-12)
    assert frame["observed"].to_numpy() == pytest.approx(observed, abs=1e-12)
    assert frame["bound"].to_numpy() == pytest.approx(bound, abs=1e-9)
    assert frame["bound"].to_numpy() == pytest.approx(result.guarantee.bounds[i], abs=1e-9)  # the array, one row
    assert max(observed) > 0.05 and len(set(coverage)) > 2  # a row where something happens
    assert mark == result.decision.point[1] and drawn_alpha == alpha and path == tmp_path / "risk-coverage.png"
    assert f"HAS_ANSWER_CUTOFF {h:g}" in title
    assert "99% confidence per cell" in words  # 1 - 0.1 / 11 = 99.09%, rounded down

    lines: dict[str, tuple[list[float], list[float]]] = {}
    save = plots._save

    def keep_lines(fig, path):
        for line in fig.axes[0].get_lines():
            lines[line.get_label()] = (list(line.get_xdata()), list(line.get_ydata()))
        save(fig, path)

    monkeypatch.setattr(plots, "_save", keep_lines)
    plots.draw(job)
    assert lines["observed wrong-answer rate"] == (frame["coverage"].tolist(), frame["observed"].tolist())
    assert lines[words] == (frame["coverage"].tolist(), frame["bound"].tolist())
    j = result.decision.cell[1]
    starred = lines[f"recommended, ANSWER_CUTOFF {mark:g}"]
    assert starred[0] == pytest.approx([coverage[j]] * 2) and starred[1] == pytest.approx([observed[j], bound[j]])
    alphas = [label for label in lines if label.startswith("ALPHA")]
    assert alphas == ([f"ALPHA {alpha:g} (--max-wrong-rate)"] if alpha is not None else [])
    first = path.read_bytes()
    monkeypatch.setattr(plots, "_save", save)
    plots.draw(job)
    assert path.read_bytes() == first and first.startswith(b"\x89PNG")  # the same data, the same file


def test_heatmaps_mark_by_shape_and_colour_good_and_bad_outcomes_on_different_scales(tmp_path: Path,
                                                                                       monkeypatch) -> None:
    result = _sweep(tmp_path, 0.4, seed=11)
    assert result.guarantee.certificate is not None and result.guarantee.certificate.any
    seen: dict[str, dict[str, object]] = {}
    save = plots._save

    def keep(fig, path):
        ax = fig.axes[0]
        seen[path.name] = {"cmap": ax.collections[0].get_cmap().name,
                           "legend": [text.get_text() for text in ax.get_legend().get_texts()],
                           "markers": {line.get_label(): line.get_marker() for line in ax.get_lines()},
                           "colorbar": fig.axes[1].get_ylabel()}
        save(fig, path)

    monkeypatch.setattr(plots, "_save", keep)
    for name in ("heatmap-correct.png", "heatmap-wrong.png", "heatmap-missed.png", "heatmap-no-answer.png"):
        plots.draw(_planned(result, tmp_path, name))
    assert {name: seen[name]["cmap"] for name in seen} == {
        "heatmap-correct.png": "viridis", "heatmap-no-answer.png": "viridis",  # more is better
        "heatmap-wrong.png": "OrRd", "heatmap-missed.png": "OrRd"}  # more is worse
    assert seen["heatmap-wrong.png"]["colorbar"] == "wrong questions (more is worse)"
    d, r = result.default, result.decision
    assert r.best_certified is not None
    best = (float(result.h_axis.values[r.best_certified[0]]), float(result.a_axis.values[r.best_certified[1]]))
    legend = seen["heatmap-wrong.png"]["legend"]
    assert legend == ["certified region", f"default ({d.h:g}, {d.a:g})", f"best certified ({best[0]:g}, {best[1]:g})",
                      f"recommended ({r.point[0]:g}, {r.point[1]:g})"]
    markers = seen["heatmap-wrong.png"]["markers"]
    assert sorted(markers.values()) == sorted(["o", "D", "*"])  # three shapes, not three colours


def test_without_a_certificate_no_region_and_no_best_certified_cell_are_drawn(tmp_path: Path, monkeypatch) -> None:
    result = _sweep(tmp_path, None)
    legends: list[list[str]] = []
    save = plots._save

    def keep(fig, path):
        legends.append([text.get_text() for text in fig.axes[0].get_legend().get_texts()])
        save(fig, path)

    monkeypatch.setattr(plots, "_save", keep)
    plots.draw(_planned(result, tmp_path, "heatmap-wrong.png"))
    assert [words.split(" (")[0] for words in legends[0]] == ["default", "recommended"]


def test_the_flips_histogram_of_many_questions_has_whole_counts_on_its_axis(tmp_path: Path, monkeypatch) -> None:
    ticks: list[float] = []
    save = plots._save

    def keep_ticks(fig, path):
        fig.canvas.draw()
        low, high = fig.axes[0].get_ylim()
        ticks.extend(t for t in fig.axes[0].get_yticks() if low <= t <= high)
        save(fig, path)

    monkeypatch.setattr(plots, "_save", keep_ticks)
    # 41 questions (one more than get a bar each), one per bin but two in one: counts 1 and 2, where matplotlib
    # left to itself ticks 1.0, 1.2, ... 2.0
    flip = [0.0125] + [0.025 * k + 0.0125 for k in range(40)]
    frame = pd.DataFrame({"id": [f"q{k}" for k in range(41)], "flip": flip, "quoted": ["correct"] * 41,
                          "unquoted": ["missed"] * 41})
    plots.flips(frame, tmp_path / "flips.png", "t", 0.5, axis=PlotAxis("second", "SECOND"))
    assert len(ticks) >= 2 and all(float(t).is_integer() for t in ticks), ticks
