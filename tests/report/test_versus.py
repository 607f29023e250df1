"""The page of a comparison of systems, as a person meets it: in a real headless browser, the decision first,
one grid per system on one colour scale with its recommended cell marked, and every question in every
system; no script, no request, page text shown as text."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT, copy_run, github_html
from quotefinder.report.versus import hex_colours
from quotefinder.sweepcmd import main
from test_html import SCREENSHOTS, Opened, browser, demo  # noqa: F401 (the fixtures)


def two_systems(tmp_path: Path) -> Path:
    """The demo run and a copy of it (one pipeline re-recorded), compared: the report directory."""
    shutil.copytree(ROOT / "questions", tmp_path / "questions")
    for name in ("ten", "ten-again"):
        copy_run(ROOT / "runs" / "ten", tmp_path / "runs" / name)
    out = tmp_path / "which"
    assert main([str(tmp_path / "runs" / "ten"), str(tmp_path / "runs" / "ten-again"), "--out", str(out)]) == 0
    return out


class StaticPage(Opened):
    def __init__(self, browser, path: Path, height: int = 1000) -> None:  # noqa: F811 (the fixture's name)
        self.context = browser.new_context(viewport={"width": 1400, "height": height})
        self.requests: list[str] = []
        self.console: list[str] = []
        self.context.route("**/*", lambda r: r.continue_() if r.request.url == path.as_uri()
                           else (self.requests.append(r.request.url), r.abort()))
        self.page = self.context.new_page()
        self.page.on("console", lambda message: self.console.append(f"{message.type}: {message.text}"))
        self.page.on("pageerror", lambda error: self.console.append(f"pageerror: {error}"))
        self.page.goto(path.as_uri())


@pytest.mark.browser
def test_the_systems_page_shows_which_to_ship_and_each_grid(browser, tmp_path: Path) -> None:  # noqa: F811
    out = two_systems(tmp_path)
    opened = StaticPage(browser, out / "index.html")
    try:
        page = opened.page
        ship = page.locator("#decision .ship").inner_text()
        # each system at the point its own decision ships: for the demo, the default
        assert ship.startswith("Ship ") and "HAS_ANSWER_CUTOFF 0.3, ANSWER_CUTOFF 0.6" in ship
        assert "indistinguishable" in page.locator("#decision").inner_text()
        sections = page.locator("section.system")
        assert sections.count() == 2
        for k in range(2):
            grid = sections.nth(k).locator("table.grid")
            assert grid.locator("tbody tr").count() == 21 and grid.locator("tbody tr").first.locator("td").count() == 21
            chosen = grid.locator("td[data-chosen]")
            assert chosen.count() == 1 and "(recommended)" in chosen.get_attribute("title")
        systems = pd.read_csv(out / "systems.csv")
        # on its side: a column per system, a row per other column of systems.csv
        assert page.locator("table[aria-label=systems] thead th").all_inner_texts()[1:] == list(systems["run"])
        assert page.locator("table[aria-label=systems] tbody tr").count() == len(systems.columns) - 1
        rows = page.locator("table[aria-label=outcomes] tbody tr")
        assert rows.count() == 10
        head = page.locator("table[aria-label=outcomes] thead th").all_inner_texts()
        assert head[:2] == ["id", "question"] and len(head) == 4
        # one colour scale: the same score is the same colour in both grids
        first = sections.nth(0).locator("td").nth(5).evaluate("td => getComputedStyle(td).backgroundColor")
        second = sections.nth(1).locator("td").nth(5).evaluate("td => getComputedStyle(td).backgroundColor")
        assert first == second
        assert page.locator("script").count() == 0 and not opened.requests and not opened.console
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "systems.png"), full_page=True)
    finally:
        opened.close()
    summary = (out / "summary.md").read_text()
    rendered = github_html(summary)
    assert "<h2>Which to ship</h2>" in rendered and "<script" not in rendered
    assert summary.index("## Which to ship") < summary.index("## Each system")


def test_the_colour_scale_runs_from_the_lowest_score_to_the_highest() -> None:
    """viridis's own ends (matplotlib's), the middle for a scale of one value, and every cell of a grid at once."""
    assert hex_colours(np.array([0, 10]), 0, 10).tolist() == ["#440154", "#fde725"]
    assert hex_colours(np.array([5]), 5, 5)[0] == hex_colours(np.array([0.5]), 0, 1)[0]  # one value: the middle
    grid = np.array([[-3.0, 0.0], [5.0, 99.0]])
    assert hex_colours(grid, 0, 5).tolist() == [["#440154", "#440154"], ["#fde725", "#fde725"]]  # clipped to the scale


def _row_label_y(page, system: int, row: int) -> float:
    box = page.locator("section.system").nth(system).locator(f"tr[data-row='{row}'] th").bounding_box()
    return box["y"]


@pytest.mark.browser
def test_both_pages_fit_a_1400_px_window_and_draw_the_first_axis_upwards(browser, demo: Path,  # noqa: F811
                                                                          tmp_path: Path) -> None:
    single = Opened(browser, demo / "index.html")
    try:
        single.page.set_viewport_size({"width": 1400, "height": 900})
        assert single.page.evaluate("document.documentElement.scrollWidth") <= 1400
        canvas = single.page.locator("canvas[data-grid='wrong']")
        canvas.scroll_into_view_if_needed()
        box, geometry = canvas.bounding_box(), single.page.evaluate("window.quotefinderReport.geometry")
        x = box["x"] + geometry["left"] + 0.5 * geometry["cell"]
        said = {}
        for k in (0, geometry["rows"] - 1):  # k-th row of cells from the top of the canvas
            single.page.mouse.move(x, box["y"] + geometry["top"] + (k + 0.5) * geometry["cell"])
            said[k] = single.page.locator("#tooltip").inner_text()
        assert "HAS_ANSWER_CUTOFF 1," in said[0] and "HAS_ANSWER_CUTOFF 0," in said[geometry["rows"] - 1]
    finally:
        single.close()
    opened = StaticPage(browser, two_systems(tmp_path) / "index.html", height=900)
    try:
        page = opened.page
        assert page.evaluate("document.documentElement.scrollWidth") <= 1400
        for system in range(2):  # the same way up: HAS_ANSWER_CUTOFF 1 at the top, 0 at the bottom
            top, bottom = _row_label_y(page, system, 20), _row_label_y(page, system, 0)
            assert top < bottom
            rows = page.locator("section.system").nth(system).locator("tbody tr")
            assert rows.first.locator("th").inner_text() == "1" and rows.last.locator("th").inner_text() == "0"
    finally:
        opened.close()
