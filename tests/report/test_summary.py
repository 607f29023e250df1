"""summary.md from a sweep of the demo run (`report.summary.summary_markdown`): its sections in order, the
synthetic evidence said at the top, the gate, the plots and the page listed only when they are written, the
comparison section with a baseline, and a summary over GitHub's limit cut at a line end, saying so."""

from __future__ import annotations

from pathlib import Path

import pytest

from quotefinder.report import summary
from quotefinder.report.summary import SUMMARY_AT_MOST, summary_markdown
from quotefinder.sweep.grid import parse_axis
from quotefinder.sweep.session import SweepOptions, run_sweep

GRID = parse_axis("0:1:0.25")


@pytest.fixture
def swept(ten: Path):
    return run_sweep(SweepOptions(ten, GRID, GRID, baseline=ten), say=lambda _: None)


def headings(markdown: str) -> list[str]:
    return [line for line in markdown.splitlines() if line.startswith("#")]


def test_the_sections_come_in_order_the_decision_first(swept) -> None:
    result, _ = swept
    text = summary_markdown(result)
    found = headings(text)
    assert found[0] == "# Cutoff sweep: `ten` (SYNTHETIC evidence)"
    order = [found.index(name) for name in ("## Decision", "## The run", "## The whole report")]
    assert order == sorted(order) and found[-1] == "## The whole report"
    assert "> **Synthetic evidence.**" in text.split("## Decision")[0]
    assert "(5 x 5 = 25 cells)" in text or "(25 cells)" in text
    assert "- Options given: none (every default)" in text
    assert text.endswith("every question in full.\n")


def test_the_page_the_plots_and_the_gate_are_named_only_when_given(swept) -> None:
    result, _ = swept
    plain = summary_markdown(result)
    assert "index.html" not in plain.split("## The whole report")[1].split("\n- `questions.csv`")[0]
    assert "- Gate:" not in plain
    full = summary_markdown(result, plots=[("The grid", "grid.png")], gate="held at (0.5, 0.5)", page=True)
    assert "- Gate: held at (0.5, 0.5)" in full
    assert "- [The grid](grid.png)" in full
    assert "the terminal and the header of `index.html`" in full and "- `index.html`: open it" in full


def test_a_baseline_adds_its_comparison_and_a_first_section_opens_the_summary(swept) -> None:
    result, comparison = swept
    without, with_baseline = summary_markdown(result), summary_markdown(result, comparison=comparison)
    assert len(headings(with_baseline)) > len(headings(without))
    added = [h for h in headings(with_baseline) if h not in headings(without)]
    assert added and all(h.startswith("## ") for h in added)
    opened = summary_markdown(result, first=["## Drift", "", "first words", ""])
    assert headings(opened)[1] == "## Drift"


def test_a_summary_over_githubs_limit_is_cut_at_a_line_and_says_so(swept, monkeypatch) -> None:
    result, _ = swept
    whole = summary_markdown(result)
    monkeypatch.setattr(summary, "SUMMARY_AT_MOST", len(whole.encode()) // 2)
    cut = summary_markdown(result)
    assert len(cut.encode()) <= len(whole.encode()) // 2
    assert cut.endswith("`questions.csv` has every question in full.\n")
    assert "**The summary is cut here**, at GitHub's limit" in cut
    kept = cut[: cut.index("\n**The summary is cut here**")]
    assert whole.startswith(kept) and kept.endswith("\n")
    assert SUMMARY_AT_MOST == 1_000_000
