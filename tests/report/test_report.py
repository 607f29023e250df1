"""The report a sweep writes, read the way people meet it: deterministic files, page text made inert
in every one of them, plots that draw odd text literally, and a directory that shows one sweep."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from conftest import HOSTILE, outside_code_spans, page, record, run_files, write_questions, write_scenario
from quotefinder.sweepcmd import main


def test_reports_are_deterministic(ten: Path, tmp_path: Path) -> None:
    assert main([str(ten), "--out", str(tmp_path / "a")]) == 0
    assert main([str(ten), "--out", str(tmp_path / "b")]) == 0
    assert run_files(tmp_path / "a") == run_files(tmp_path / "b")


def test_hostile_page_text_is_inert_in_every_report(tmp_path: Path, standin_for) -> None:
    snippet = f"=cmd|' /C calc'!A0 is the answer to everything here. {HOSTILE}"
    scenario = {"What is the answer?": [page("[Title](http://evil.example) <b>x</b> | y", "https://x.example/a_(b)",
                                             snippet, choice=1, has_answer=0.9, answers=0.9)]}
    server = standin_for(write_scenario(tmp_path / "s.json", scenario))
    questions = write_questions(tmp_path / "q.yaml", "questions:\n  - {question: What is the answer?, expect: answer}")
    assert record(tmp_path / "run", questions, server) == 0
    assert main([str(tmp_path / "run"), "--out", str(tmp_path / "r")]) == 0
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert "calc" in summary  # shown, for review ...
    assert "evil" not in outside_code_spans(summary) and "<b>" not in outside_code_spans(summary)  # ... but inert
    header = next(line for line in summary.splitlines() if line.startswith("| Question | Status"))
    row = next(line for line in summary.splitlines() if line.startswith("| `what-is-the-answer` | unjudged"))
    assert len(re.findall(r"(?<!\\)\|", row)) == len(re.findall(r"(?<!\\)\|", header))
    with open(tmp_path / "r" / "questions.csv", newline="", encoding="utf-8") as handle:
        [row] = list(csv.DictReader(handle))
    assert row["default_quote"].startswith("'=cmd") and row["source_title"].startswith("[Title]")


def test_plots_draw_odd_text_literally(tmp_path: Path, standin_for) -> None:
    """An id like `odd-$\\frac$-id` is invalid mathtext: drawn as math, matplotlib raises and no PNG is made."""
    text = "The price was $5 and then $7_{2} in the sale, said the page."
    scenario = {"What did it cost?": [page("Price $ list", "https://p.example", text, has_answer=0.9, answers=0.9)]}
    server = standin_for(write_scenario(tmp_path / "s.json", scenario))
    entry = "{id: 'odd-$\\frac$-id', question: What did it cost?, expect: answer, accept: ['\\$5']}"
    questions = write_questions(tmp_path / "q.yaml", f"questions:\n  - {entry}\n")
    assert record(tmp_path / "run", questions, server) == 0
    assert main([str(tmp_path / "run"), "--out", str(tmp_path / "r")]) == 0
    assert (tmp_path / "r" / "flips.png").stat().st_size > 1000


def test_a_rerun_leaves_only_this_sweeps_files(ten: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert main([str(ten), "--baseline", str(ten), "--out", str(out)]) == 0
    assert (out / "comparison.csv").exists() and (out / "heatmap-score-change.png").exists()
    (out / "notes.txt").write_text("mine")
    assert main([str(ten), "--no-plots", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["grid.csv", "notes.txt", "questions.csv", "summary.md"]
