"""index.html in a real browser: Debian's Chromium, headless, driven by Playwright, the network blocked.

The page opens from disk with no request leaving it and no console error; its header names the cell of
`result.decision` (and of decision.json) in `wording.decision_lines`'s words; the marks are drawn where
the decision puts them and the legend names each; good and bad outcomes have different colour bars; the
risk-coverage view's points equal a direct computation; hovering a cell shows its counts, clicking it lists
its questions; every cell's counts equal grid.csv; hostile page text renders as text and runs nothing. A
screenshot goes to out/screenshots/ (or $QF_SCREENSHOTS) to be looked at.
"""

from __future__ import annotations

import csv
import html
import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from conftest import (
    ROOT,
    TEN_SCENARIO,
    copy_run,
    decided,
    env_for,
    github_html,
    items_of,
    page,
    record,
    record_quote_answer,
    write_questions,
    write_scenario,
)
from quotefinder.evalcmd import main as eval_main
from quotefinder.report import wording
from quotefinder.standin import Later, later, load_scenario, synthetic
from quotefinder.sweep import guarantee
from quotefinder.sweep.analysis import LOSSY, Settings, Sweep
from quotefinder.sweep.grid import parse_axis
from quotefinder.sweep.session import SweepOptions, run_sweep
from quotefinder.sweepcmd import main

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SCREENSHOTS = Path(os.environ.get("QF_SCREENSHOTS", ROOT / "out" / "screenshots"))
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.fail("the HTML report is tested in Debian's chromium: apt-get install chromium (bash .ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        launched.close()


class Opened:
    """A page opened from disk, recording console messages, errors, dialogs and any request it makes."""

    def __init__(self, browser: Any, path: Path) -> None:
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000})
        self.requests: list[str] = []
        self.console: list[str] = []
        self.dialogs: list[str] = []

        def route(request_route: Any) -> None:
            url = request_route.request.url
            if url == path.as_uri():
                request_route.continue_()
            else:
                self.requests.append(url)
                request_route.abort()

        self.context.route("**/*", route)
        self.page = self.context.new_page()
        self.page.on("console", lambda message: self.console.append(f"{message.type}: {message.text}"))
        self.page.on("pageerror", lambda error: self.console.append(f"pageerror: {error}"))
        self.page.on("dialog", lambda dialog: (self.dialogs.append(dialog.message), dialog.dismiss()))
        self.page.goto(path.as_uri())
        self.page.wait_for_selector("#questions-body tr")

    def cell_centre(self, grid: str, i: int, j: int) -> tuple[float, float]:
        """Where cell (i, j) of a heatmap is on the screen (row 0 at the bottom)."""
        canvas = self.page.locator(f"canvas[data-grid='{grid}']")
        canvas.scroll_into_view_if_needed()
        box = canvas.bounding_box()
        geometry = self.page.evaluate("window.quotefinderReport.geometry")
        x = box["x"] + geometry["left"] + (j + 0.5) * geometry["cell"]
        y = box["y"] + geometry["top"] + (geometry["rows"] - 1 - i + 0.5) * geometry["cell"]
        return x, y

    def close(self) -> None:
        self.context.close()


def beside_the_browser(function: Callable[..., Any], *args: Any) -> Any:
    """`function(*args)` in another thread: Playwright's event loop runs in this one while the browser is
    open, and eval.py starts its own."""
    with ThreadPoolExecutor(1) as other:
        return other.submit(function, *args).result()


NAMES = ["correct", "wrong", "missed", "no_answer", "unjudged", "unlabelled"]


def assert_the_page_counts_as_grid_csv(opened: Opened, grid_csv: Path, questions: int) -> None:
    """Every cell's counts, list length and certification, as the page computes them from its per-question
    data, against grid.csv (both row-major: HAS_ANSWER_CUTOFF, then ANSWER_CUTOFF)."""
    rows = read_grid(grid_csv)
    cells = opened.page.evaluate("""() => {
        const report = window.quotefinderReport, found = [];
        for (let i = 0; i < report.geometry.rows; i += 1) for (let j = 0; j < report.geometry.columns; j += 1)
            found.push({counts: report.cellCounts(i, j), rows: report.cellRows(i, j),
                        certified: report.certified(i * report.geometry.columns + j)});
        return found;
    }""")
    assert len(cells) == len(rows)
    for cell, row in zip(cells, rows, strict=True):
        assert cell["rows"] == questions
        assert cell["counts"] == pytest.approx([float(row[name]) for name in NAMES], abs=5e-5), row
        assert cell["certified"] == (row.get("certified") == "true"), row


def read_grid(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


DEMO_ALPHA = 0.45


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    """The demo's report, made from the committed run (a copy, laid out as in the repository)."""
    root = tmp_path_factory.mktemp("demo")
    copy_run(ROOT / "runs" / "ten", root / "runs" / "ten")
    shutil.copytree(ROOT / "questions", root / "questions")
    assert main([str(root / "runs" / "ten"), "--out", str(root / "report"), "--max-wrong-rate", str(DEMO_ALPHA)]) == 0
    return root / "report"


@pytest.fixture(scope="module")
def demo_result(demo: Path) -> Sweep:
    """The demo's sweep, analysed again as the report was (the library, not the page)."""
    grid = parse_axis("0:1:0.05")
    options = SweepOptions(run=demo.parent / "runs" / "ten", first=grid, second=grid,
                           settings=Settings(max_wrong_rate=DEMO_ALPHA))
    return run_sweep(options, say=lambda _: None)[0]


def test_the_demo_page_opens_from_disk_with_no_network_and_no_error(browser, demo: Path) -> None:
    opened = Opened(browser, demo / "index.html")
    try:
        assert opened.requests == [] and opened.console == [] and opened.dialogs == []
        assert opened.page.title() == "Cutoff sweep: ten (SYNTHETIC evidence)"
        assert "Synthetic evidence." in opened.page.inner_text(".banner")
        assert opened.page.locator("canvas[data-grid]").count() == 5  # correct, wrong, missed, no-answer, score
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        opened.page.screenshot(path=str(SCREENSHOTS / "index.png"), full_page=True)
    finally:
        opened.close()


def test_every_cell_shows_the_counts_of_grid_csv(browser, demo: Path) -> None:
    assert len(read_grid(demo / "grid.csv")) == 441 and "true" in (demo / "grid.csv").read_text()  # some certified
    opened = Opened(browser, demo / "index.html")
    try:
        assert_the_page_counts_as_grid_csv(opened, demo / "grid.csv", 10)
    finally:
        opened.close()


def test_counts_match_on_probabilities_exactly_on_cutoffs_with_ties_and_repeats(browser, tmp_path: Path,
                                                                                 standin_for) -> None:
    """A synthetic set (on-grid probabilities, ties, pages without a usable sentence), recorded twice with
    answers that move a little on the repeat, swept on a grid whose cutoffs fall on its probabilities."""
    questions, scenario = synthetic.write(tmp_path / "set", 60, seed=5)
    moving = tmp_path / "moving.json"
    moving.write_text(json.dumps({**json.loads(scenario.read_text()), "repeat_jitter": 0.02}))
    server = standin_for(moving)
    assert beside_the_browser(record, tmp_path / "run", questions, server, "--repeats", "2") == 0
    assert main([str(tmp_path / "run"), "--out", str(tmp_path / "r"), "--has-answer", "0:1:0.1",
                 "--answer", "0:1:0.02", "--no-plots"]) == 0  # no --at, no --baseline: nothing to fail
    assert not (tmp_path / "r" / "index.html").exists()  # --no-plots: the tables and the summary only
    assert main([str(tmp_path / "run"), "--out", str(tmp_path / "r"), "--has-answer", "0:1:0.1",
                 "--answer", "0:1:0.02"]) == 0
    assert len(read_grid(tmp_path / "r" / "grid.csv")) == 11 * 51
    opened = Opened(browser, tmp_path / "r" / "index.html")
    try:
        assert_the_page_counts_as_grid_csv(opened, tmp_path / "r" / "grid.csv", 60)
        assert opened.console == [] and opened.requests == []
    finally:
        opened.close()


def test_hover_shows_a_cells_counts_and_a_click_lists_its_questions(browser, demo: Path) -> None:
    rows = read_grid(demo / "grid.csv")
    opened = Opened(browser, demo / "index.html")
    try:
        page_ = opened.page
        i, j = 3, 2  # HAS_ANSWER_CUTOFF 0.15, ANSWER_CUTOFF 0.1: wrong quotes there
        row = rows[i * 21 + j]
        page_.mouse.move(*opened.cell_centre("wrong", i, j))
        tooltip = page_.locator("#tooltip")
        assert tooltip.is_visible()
        text = tooltip.inner_text()
        assert "HAS_ANSWER_CUTOFF 0.15, ANSWER_CUTOFF 0.1" in text and f"wrong: {row['wrong']}" in text
        page_.mouse.click(*opened.cell_centre("wrong", i, j))
        assert page_.inner_text("#cell-title") == "HAS_ANSWER_CUTOFF 0.15, ANSWER_CUTOFF 0.1"
        assert page_.locator("#questions-body tr").count() == 10
        assert f"wrong {row['wrong']}" in page_.inner_text("#cell-counts")  # means, as grid.csv writes them
        wrong = page_.locator("#filters button[data-filter='1']")
        wrong.click()
        listed = page_.locator("#questions-body tr")
        assert listed.count() >= float(row["wrong"]) > 0  # a question wrong in any repeat is listed
        assert wrong.inner_text() == f"wrong ({listed.count()})"  # the button says how many it lists
        assert all("wrong" in listed.nth(k).inner_text() for k in range(listed.count()))
        page_.fill("#search", "rivets")
        assert page_.locator("#questions-body tr").count() == 1
        assert "eiffel-rivets" in page_.inner_text("#questions-body")
        steps = page_.inner_text("#steps")
        assert "One step right (ANSWER_CUTOFF 0.15)" in steps and "One step up (HAS_ANSWER_CUTOFF 0.2)" in steps
        page_.fill("#search", "")
        page_.mouse.click(*opened.cell_centre("wrong", i, j))
        page_.keyboard.press("ArrowRight")  # a map has focus: the arrow keys move the selection
        assert page_.inner_text("#cell-title") == "HAS_ANSWER_CUTOFF 0.15, ANSWER_CUTOFF 0.15"
        page_.mouse.click(*opened.cell_centre("wrong", 20, 20))  # the top right: no wrong quotes there
        assert page_.locator("#filters button[aria-pressed='true']").inner_text() == "all (10)"  # filter reset
        assert page_.locator("#questions-body tr").count() == 10
        page_.locator("body").click(position={"x": 5, "y": 5})
        page_.keyboard.press("ArrowLeft")  # elsewhere they scroll the page as usual
        assert page_.inner_text("#cell-title") == "HAS_ANSWER_CUTOFF 1, ANSWER_CUTOFF 1"
        assert opened.console == [] and opened.requests == []
    finally:
        opened.close()


def test_hostile_page_text_renders_as_text_and_runs_nothing(browser, tmp_path: Path, standin_for) -> None:
    title = "<script>alert('title')</script><b>bold</b> \u202eevil"
    sentence = "The answer is here <img src=x onerror=alert('img')> and it is 42 units in all."
    scenario = {"What is the answer?": [
        page(title, "javascript:alert('url')", sentence, has_answer=0.9, answers=0.9),
        page("Second <svg onload=alert('svg')>", "https://ok.example/a?b=<i>", "A second page says it is 42 "
             "units, and that is all it says.", has_answer=0.8, answers=0.8),
    ]}
    server = standin_for(write_scenario(tmp_path / "s.json", scenario))
    questions = write_questions(tmp_path / "q.yaml", "questions:\n  - {id: '<i>x</i>', question: What is the "
                                                      "answer?, expect: answer, accept: ['42']}\n")
    assert beside_the_browser(record, tmp_path / "run", questions, server) == 0
    assert main([str(tmp_path / "run"), "--out", str(tmp_path / "r")]) == 0
    raw = (tmp_path / "r" / "index.html").read_text()
    assert "<script>alert" not in raw and "<img src=x" not in raw  # escaped inside the data, not markup
    opened = Opened(browser, tmp_path / "r" / "index.html")
    try:
        page_ = opened.page
        page_.wait_for_timeout(300)
        body = page_.inner_text("#questions-body")
        assert "<img src=x onerror=alert('img')>" in body and "<i>x</i>" in body
        assert "<U+202E>evil" in body and "\u202e" not in body  # a bidi override is shown, not obeyed
        assert page_.locator("#questions-body img, #questions-body script, #questions-body svg, "
                             "#questions-body b, #questions-body i").count() == 0
        assert page_.locator("a[href^='javascript']").count() == 0
        assert "not an http(s) link: javascript:alert('url')" in body
        assert opened.dialogs == [] and opened.requests == [] and opened.console == []
        links = [page_.locator("a").nth(k).get_attribute("href") for k in range(page_.locator("a").count())]
        assert all(link.startswith(("http://", "https://")) for link in links)
    finally:
        opened.close()


def test_the_header_names_the_decisions_cell_in_the_decisions_words(browser, demo: Path, demo_result: Sweep) -> None:
    decision = demo_result.decision
    assert decision.certified
    opened = Opened(browser, demo / "index.html")
    try:
        header = opened.page.locator("#decision")
        assert header.get_attribute("data-cell") == f"{decision.cell[0]},{decision.cell[1]}"
        assert header.get_attribute("data-certified") == str(decision.certified).lower()
        point = [float(v) for v in header.get_attribute("data-point").split(",")]
        assert point == list(decision.point) == json.loads((demo / "decision.json").read_text())["recommended"]
        best = decision.best_certified
        assert best is not None and header.get_attribute("data-best-certified") == f"{best[0]},{best[1]}"
        lines = wording.decision_lines(demo_result)
        assert opened.page.locator("#decision .ship").all_inner_texts() == lines[:1]  # the terminal's words
        assert opened.page.locator("#decision li").all_inner_texts() == lines[1:]
        assert wording.cell_words(demo_result, decision.cell) in lines[0] and "certified" in lines[0]
        assert f"at most {DEMO_ALPHA:.0%}" in lines[0]  # the guarantee, in words
    finally:
        opened.close()


def test_marks_are_drawn_at_the_decisions_cells_and_the_legend_names_them(browser, demo: Path,
                                                                          demo_result: Sweep) -> None:
    decision, default = demo_result.decision, demo_result.default
    h, a = demo_result.h_axis.values.tolist(), demo_result.a_axis.values.tolist()
    opened = Opened(browser, demo / "index.html")
    try:
        page_ = opened.page
        legend = {item.get_attribute("data-mark"): item.inner_text() for item in page_.locator("#marks li").all()}
        assert list(legend) == ["region", "default", "bestCertified", "recommended", "selected"]
        assert legend["region"].startswith("dashed line: the certified region, the "
                                           f"{int(demo_result.guarantee.certificate.certified.sum())} cell(s)")
        assert legend["default"] == f"ring: the default ({default.h:g}, {default.a:g})"
        assert legend["bestCertified"].startswith("diamond:") and legend["recommended"].startswith("star:")
        assert wording.cell_words(demo_result, decision.cell) in legend["recommended"]
        assert page_.locator("#marks canvas.mark").count() == 5  # each with its shape drawn
        page_.mouse.click(*opened.cell_centre("wrong", 3, 2))  # the selection moves; the marks stay
        for grid in ("wrong", "score"):
            drawn = {mark["mark"]: (mark["i"], mark["j"]) for mark in page_.evaluate(
                f"window.quotefinderReport.drawn('{grid}')")}
            assert drawn == {"default": (h.index(default.h), a.index(default.a)), "recommended": decision.cell,
                             "bestCertified": decision.best_certified, "selected": (3, 2)}
        # the star is black where the page says it is: its centre pixel, in the canvas itself
        pixel = page_.evaluate("""() => {
            const star = window.quotefinderReport.drawn('wrong').find((m) => m.mark === 'recommended');
            const canvas = document.querySelector("canvas[data-grid='wrong']");
            return Array.from(canvas.getContext('2d').getImageData(Math.round(star.x), Math.round(star.y), 1, 1).data);
        }""")
        assert pixel == [0, 0, 0, 255]
    finally:
        opened.close()


def test_good_and_bad_outcomes_have_their_own_colour_bars(browser, demo: Path) -> None:
    rows = read_grid(demo / "grid.csv")
    opened = Opened(browser, demo / "index.html")
    try:
        for grid, scale in [("correct", "more"), ("no_answer", "more"), ("score", "more"), ("wrong", "less"),
                            ("missed", "less")]:
            caption = opened.page.locator(f"figure:has(canvas[data-grid='{grid}']) .scale")
            values = [float(row[grid]) for row in rows]
            assert caption.get_attribute("data-scale") == scale
            assert float(caption.get_attribute("data-low")) == pytest.approx(min(values), abs=5e-5)
            assert float(caption.get_attribute("data-high")) == pytest.approx(max(values), abs=5e-5)
            assert caption.inner_text().endswith("more is better" if scale == "more" else "more is worse")
            gradient = caption.locator(".bar").evaluate("bar => getComputedStyle(bar).backgroundImage")
            start = "rgb(68, 1, 84)" if scale == "more" else "rgb(255, 247, 236)"  # viridis; OrRd
            assert gradient.startswith(f"linear-gradient(to right, {start}")
    finally:
        opened.close()


def test_the_risk_coverage_view_shows_the_recommended_rows_numbers(browser, demo: Path, demo_result: Sweep) -> None:
    """Coverage, observed wrong-answer rate and bound (each question's first repeat, the data the guarantee
    uses) at every ANSWER_CUTOFF of the recommended row, against
    every question decided by the pipeline's own `decide` (the bound: one cell's, at delta / rows)."""
    result = demo_result
    i, n, rows = result.decision.cell[0], len(result.questions), len(result.h_axis.values)
    runs = [items_of(result.replayed, r, result.h_axis.values) for r in range(result.repeats)]
    expected = []
    for a in result.a_axis.values:
        each = [decided(run, float(result.h_axis.values[i]), float(a)) for run in runs]
        lossy = sum(d.quote is not None and o in LOSSY for d, o in each[0])
        expected.append((sum(d.quote is not None for d, _ in each[0]) / n, lossy / n,  # first repeat, as the guarantee
                         guarantee.upper_bound(lossy, n, 1, result.guarantee.delta / rows)))
    assert len({e[0] for e in expected}) > 2 and max(e[1] for e in expected) > 0  # a row where something happens
    opened = Opened(browser, demo / "index.html")
    try:
        page_ = opened.page
        assert page_.locator("#risk-coverage svg").get_attribute("data-row") == str(i)
        for k, series in ((1, "observed"), (2, "bound")):
            points = page_.locator(f"#risk-coverage .point.{series}[data-j]")
            assert points.count() == len(expected)
            for j in range(len(expected)):
                point = points.nth(j)
                assert point.get_attribute("data-j") == str(j)
                assert float(point.get_attribute("data-coverage")) == pytest.approx(expected[j][0], abs=1e-6)
                rate = float(point.get_attribute("data-rate"))
                assert rate == pytest.approx(expected[j][k], abs=1.1e-6)
                if series == "bound":
                    assert rate >= expected[j][k]  # rounded up, never shown lower than it is
        assert float(page_.locator("#risk-coverage line.alpha[data-alpha]").get_attribute("data-alpha")) == DEMO_ALPHA
        stars = page_.locator("#risk-coverage path.recommended[data-j]")
        assert stars.count() == 2 and stars.first.get_attribute("data-j") == str(result.decision.cell[1])
        page_.locator("#risk-coverage .point.observed").nth(4).dispatch_event("click")  # a point selects its cell
        assert page_.inner_text("#cell-title") == (f"HAS_ANSWER_CUTOFF {result.h_axis.text(i)}, "
                                                   f"ANSWER_CUTOFF {result.a_axis.text(4)}")
        assert opened.console == []
    finally:
        opened.close()
    assert (demo / "risk-coverage.png").stat().st_size > 1000
    assert "(risk-coverage.png)" in (demo / "summary.md").read_text()


@pytest.mark.parametrize("options", [[], ["--max-wrong-rate", "0.05"]])
def test_without_a_certified_cell_the_page_says_so_and_draws_no_region(browser, ten: Path, tmp_path: Path,
                                                                       options: list[str]) -> None:
    """No --max-wrong-rate, or one nothing meets: no region, no best certified cell, the legend says why, and
    the header sets apart the lines up to the one naming the cell (after "nothing is certified", two)."""
    assert main([str(ten), "--out", str(tmp_path / "r"), *options]) == 0
    decision = json.loads((tmp_path / "r" / "decision.json").read_text())
    opened = Opened(browser, tmp_path / "r" / "index.html")
    try:
        page_ = opened.page
        header = page_.locator("#decision")
        assert header.get_attribute("data-certified") == ("none" if not options else "false")
        assert header.get_attribute("data-best-certified") == ""
        point = [float(v) for v in header.get_attribute("data-point").split(",")]
        assert point == decision["recommended"]
        ship = page_.locator("#decision .ship").all_inner_texts()
        assert len(ship) == 1 and f"({point[0]:g}, {point[1]:g})" in ship[0]
        assert ship[0].startswith("NOTHING CERTIFIED" if options else decision["action"].upper())
        marks = {mark["mark"] for mark in page_.evaluate("window.quotefinderReport.drawn('wrong')")}
        assert marks == {"default", "recommended", "selected"}
        legend = page_.inner_text("#marks li[data-mark='bestCertified']")
        why = "this sweep certified no cell" if not options else "no cell is certified"
        assert legend.endswith(f"(none: {why})")
        assert page_.locator("#risk-coverage line.alpha[data-alpha]").count() == (0 if not options else 1)
        assert opened.console == [] and opened.requests == []
    finally:
        opened.close()


def test_a_quote_answer_page_counts_its_configurations_as_grid_csv(browser, tmp_path: Path, standin_for) -> None:
    """Another system's page: whole-number and named axes, every configuration's counts from its curves as in
    grid.csv, the axes named in the legend, and nothing fetched or thrown."""
    shutil.copytree(ROOT / "questions", tmp_path / "questions")
    server = standin_for(TEN_SCENARIO)
    run = tmp_path / "runs" / "qa"
    assert beside_the_browser(record_quote_answer, run, tmp_path / "questions" / "ten.yaml", server,
                              "--range", "passages=1:3", "--range", "tier=instant,deep,deep_reasoning") == 0
    assert beside_the_browser(main, [str(run), "--out", str(tmp_path / "report")]) == 0
    opened = Opened(browser, tmp_path / "report" / "index.html")
    try:
        assert opened.requests == [] and opened.console == [] and opened.dialogs == []
        assert_the_page_counts_as_grid_csv(opened, tmp_path / "report" / "grid.csv", 10)
        assert opened.page.evaluate("window.quotefinderReport.geometry.columns") == 3
        legend = opened.page.inner_text("body")
        assert "Rows: passages, rising upwards; columns: tier, rising to the right." in legend
        assert "the default (5, instant)" in legend
        x, y = opened.cell_centre("correct", 0, 2)
        opened.page.mouse.click(x, y)
        assert opened.page.inner_text("#cell-title") == "passages 1, tier deep_reasoning"
    finally:
        opened.close()


def test_a_refreshs_page_opens_with_its_drift_in_the_summarys_words(browser, ten: Path, tmp_path: Path,
                                                                    standin_for) -> None:
    """A refresh after the answer pages were rewritten: its page, opened in Chromium, says first that the API
    changed and that the drift gate fails, in the words of the summary's Drift section."""
    server = standin_for(later(load_scenario(TEN_SCENARIO), Later(unsupported=1.0, seed=3)))
    new = ten.parent / "later"
    assert beside_the_browser(eval_main, ["--refresh", str(ten), "--sample", "10", "--run", str(new), "--rate", "0",
                                          "--retries", "0"], env_for(server)) == 0
    out = tmp_path / "later-report"
    assert beside_the_browser(main, [str(new), "--drift", "--out", str(out), "--folds", "0",
                                     "--at", "0.3,0.6", "--max-wrong-rate", "0.05"]) == 1
    opened = Opened(browser, out / "index.html")
    try:
        shown = opened.page.locator("#drift").inner_text()
        summary = (out / "summary.md").read_text()
        assert "The API has changed since" in shown and "FAIL (exit 1)" in shown
        verdict = shown.splitlines()[1]
        rendered = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", github_html(summary))))
        assert verdict in rendered  # the summary's Drift section, as GitHub shows it
        assert opened.requests == [] and not [m for m in opened.console if m.startswith("pageerror")]
    finally:
        opened.close()
