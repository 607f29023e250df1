"""The report a sweep writes, read the way people meet it: deterministic files, page text made inert
in every one of them, plots that draw odd text literally, and a directory that shows one sweep."""

from __future__ import annotations

import csv
import hashlib
import json
import re
import shutil
import unicodedata
from pathlib import Path

import pandas as pd
import pytest

from conftest import HOSTILE, github_html, outside_code_spans, page, record, run_files, write_questions, write_scenario
from quotefinder.report import summary
from quotefinder.sweepcmd import main


@pytest.mark.slow
def test_reports_are_deterministic(ten: Path, tmp_path: Path) -> None:
    assert main([str(ten), "--out", str(tmp_path / "a")]) == 0
    assert main([str(ten), "--out", str(tmp_path / "b")]) == 0
    assert run_files(tmp_path / "a") == run_files(tmp_path / "b")


@pytest.mark.slow
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
    rendered = github_html(summary).split("The whole report")[0]  # after it: the report's own file links
    assert not re.search(r"<(a|img|b)\b", rendered) and "&lt;b&gt;x&lt;/b&gt;" in rendered
    header = next(line for line in summary.splitlines() if line.startswith("| Question | Status"))
    row = next(line for line in summary.splitlines() if line.startswith("| `what-is-the-answer` | unjudged"))
    assert len(re.findall(r"(?<!\\)\|", row)) == len(re.findall(r"(?<!\\)\|", header))
    with open(tmp_path / "r" / "questions.csv", newline="", encoding="utf-8") as handle:
        [row] = list(csv.DictReader(handle))
    assert row["default_quote"].startswith("'=cmd") and row["source_title"].startswith("[Title]")


def _starts_a_formula(cell: str) -> bool:
    first = next((c for c in cell if not (c.isspace() or unicodedata.category(c) in ("Cc", "Cf"))), "")
    return cell.startswith(("\t", "\r")) or first in ("=", "+", "-", "@") and first != ""


def test_line_breaks_in_page_text_stay_in_their_csv_cell_and_start_no_formula(tmp_path: Path, standin_for) -> None:
    titles = ["'\r=1+1", "Two\r\n=2+2 lines", " \u200b=HYPERLINK(\"http://evil.example\")", "\n@SUM(A1)"]
    scenario = {f"Question {n}?": [page(title, f"https://x.example/{n}", f"It is {n} units, the page says plainly.")]
                for n, title in enumerate(titles)}
    server = standin_for(write_scenario(tmp_path / "s.json", scenario))
    entries = "".join(f"  - {{id: q{n}, question: Question {n}?, expect: answer, accept: [units]}}\n"
                      for n in range(len(titles)))
    assert record(tmp_path / "run", write_questions(tmp_path / "q.yaml", "questions:\n" + entries), server) == 0
    assert main([str(tmp_path / "run"), "--out", str(tmp_path / "r"), "--no-plots"]) == 0
    path = tmp_path / "r" / "questions.csv"
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    expected = ["'\r=1+1", "Two\r\n=2+2 lines", "' \u200b=HYPERLINK(\"http://evil.example\")", "'\n@SUM(A1)"]
    assert [row["source_title"] for row in rows] == list(frame["source_title"]) == expected  # one row per question
    assert [row["id"] for row in rows] == list(frame["id"]) == [f"q{n}" for n in range(len(titles))]
    cells = [cell for row in rows for cell in row.values()] + [cell for column in frame for cell in frame[column]]
    assert not [cell for cell in cells if _starts_a_formula(cell)]


def _long_pages(tmp_path: Path, standin_for, n: int = 60, size: int = 25_000) -> Path:
    """`n` no-answer questions, each quoting a page whose title is `size` characters (a bidi override inside)."""
    scenario = {f"Question {k}?": [page(f"T{k} \u202e" + "t" * size, f"https://x.example/{k}?" + "u" * 2000,
                                        f"It is {k} units, the page says plainly.")] for k in range(n)}
    server = standin_for(write_scenario(tmp_path / "s.json", scenario))
    entries = "".join(f"  - {{id: q{k}, question: Question {k}?, expect: no-answer}}\n" for k in range(n))
    assert record(tmp_path / "run", write_questions(tmp_path / "q.yaml", "questions:\n" + entries), server) == 0
    return tmp_path / "run"


@pytest.mark.slow
def test_the_job_summary_stays_under_githubs_limit_whatever_the_pages_say(tmp_path: Path, standin_for,
                                                                           monkeypatch) -> None:
    run = _long_pages(tmp_path, standin_for)
    assert main([str(run), "--out", str(tmp_path / "r")]) == 0  # no --at, no --baseline: nothing to fail
    text = (tmp_path / "r" / "summary.md").read_text(encoding="utf-8")
    assert len(text.encode()) <= summary.SUMMARY_AT_MOST < 1024 * 1024
    assert "`questions.csv` and `index.html` have every question in full" in text
    rendered = github_html(text)
    review = rendered[rendered.index("Quotes that need review"):]
    review = review[:review.index("</table>")]
    assert review.count("<tr>") == 1 + summary.LIST_AT_MOST  # the header and 50 rows, the table intact
    assert "&lt;U+202E&gt;" in review and "\u202e" not in rendered  # the override shown, not obeyed
    assert "<a " not in rendered.split("The whole report")[0]  # page text never links
    with open(tmp_path / "r" / "questions.csv", newline="", encoding="utf-8") as handle:
        titles = [row["source_title"] for row in csv.DictReader(handle)]
    assert titles == [f"T{k} \u202e" + "t" * 25_000 for k in range(60)]  # in full there

    monkeypatch.setattr(summary, "SUMMARY_AT_MOST", 6_000)  # a summary that must be cut: it says so, and renders
    assert main([str(run), "--out", str(tmp_path / "cut"), "--no-plots"]) == 0
    cut = (tmp_path / "cut" / "summary.md").read_text(encoding="utf-8")
    assert len(cut.encode()) <= 6_000 and cut.rstrip().endswith("`questions.csv` has every question in full.")
    assert "**The summary is cut here**" in cut and github_html(cut).count("<h1>") == 1


@pytest.mark.slow
def test_plots_draw_odd_text_literally(tmp_path: Path, standin_for, monkeypatch) -> None:
    """An id like `odd-$\\frac$-id` is drawn as written: nothing in a label is read as markup (to matplotlib, which
    reads `$...$` as math, it is invalid mathtext, and no PNG would be made)."""
    text = "The price was $5 and then $7_{2} in the sale, said the page."
    scenario = {"What did it cost?": [page("Price $ list", "https://p.example", text, has_answer=0.9, answers=0.9)]}
    server = standin_for(write_scenario(tmp_path / "s.json", scenario))
    entry = "{id: 'odd-$\\frac$-id', question: What did it cost?, expect: answer, accept: ['\\$5']}"
    questions = write_questions(tmp_path / "q.yaml", f"questions:\n  - {entry}\n")
    assert record(tmp_path / "run", questions, server) == 0
    from quotefinder.report import plots

    drawn: dict[str, list[str]] = {}
    save = plots.save
    monkeypatch.setattr(plots, "save", lambda figure, path: (
        drawn.setdefault(path.name, [t.get_text() for t in figure.axes[0].get_yticklabels()]), save(figure, path)))
    assert main([str(tmp_path / "run"), "--out", str(tmp_path / "r")]) == 0
    assert (tmp_path / "r" / "flips.png").stat().st_size > 1000
    assert "odd-$\\frac$-id" in drawn["flips.png"]  # the id as written, beside its bar


@pytest.mark.slow
def test_a_rerun_leaves_only_this_sweeps_files(ten: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    again = shutil.copytree(ten, ten.with_name("ten-again"))  # the same run recorded again
    assert main([str(ten), "--baseline", str(again), "--out", str(out)]) == 0
    assert (out / "comparison.csv").exists() and (out / "heatmap-score-change.png").exists()
    (out / "notes.txt").write_text("mine")
    assert main([str(ten), "--no-plots", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["decision.json", "grid.csv", "notes.txt", "questions.csv",
                                                     "report.json", "summary.md"]


@pytest.mark.slow
def test_figures_as_vector_files_are_written_listed_and_linked_instead_of_pngs(ten: Path, tmp_path: Path) -> None:
    """`--figures svg,pdf`: each figure as an SVG and a PDF, no PNG; the manifest lists them, the summary links the
    SVG and names the PDF beside it, the tables are those of the PNGs' report; a rerun with the default swaps them
    for PNGs again."""
    out = tmp_path / "r"
    assert main([str(ten), "--out", str(tmp_path / "png")]) == 0
    assert main([str(ten), "--out", str(out), "--figures", "svg,pdf"]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert {"heatmap-wrong.svg", "heatmap-wrong.pdf", "risk-coverage.svg", "flips.pdf"} <= set(names)
    assert not any(name.endswith(".png") for name in names)
    assert sorted([*json.loads((out / "report.json").read_text())["files"], "report.json"]) == names
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert "](heatmap-wrong.svg) (also [PDF](heatmap-wrong.pdf))" in summary and ".png" not in summary
    assert (out / "heatmap-wrong.svg").read_bytes().startswith(b"<?xml")
    for name in ("decision.json", "grid.csv", "questions.csv", "index.html"):
        assert (out / name).read_bytes() == (tmp_path / "png" / name).read_bytes(), name
    assert main([str(ten), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in (tmp_path / "png").iterdir())


@pytest.mark.slow
def test_files_the_user_owns_are_never_deleted_even_with_a_report_name(ten: Path, tmp_path: Path) -> None:
    """A rerun removes only what the previous sweep's manifest lists: files the user put in the report directory
    stay, even when their names look like a report's (an own heatmap, a comparison of their own)."""
    out = tmp_path / "r"
    assert main([str(ten), "--out", str(out)]) == 0
    mine = {"heatmap-mine.png": b"my own heatmap", "along-the-river.png": b"a holiday photo",
            "comparison.csv": b"my,own\n", "notes.txt": b"mine"}
    for name, data in mine.items():
        (out / name).write_bytes(data)
    assert main([str(ten), "--no-plots", "--out", str(out)]) == 0
    assert {name: (out / name).read_bytes() for name in mine} == mine
    assert not (out / "flips.png").exists() and not (out / "index.html").exists()  # the sweep's own, gone
    manifest = json.loads((out / "report.json").read_text())
    assert manifest["complete"] is True
    assert manifest["files"]["grid.csv"] == hashlib.sha256((out / "grid.csv").read_bytes()).hexdigest()
    assert sorted(json.loads((out / "report.json").read_text())["files"]) == ["decision.json", "grid.csv",
                                                                            "questions.csv", "summary.md"]


@pytest.mark.slow
def test_a_directory_of_files_without_a_manifest_is_refused_unless_forced(ten: Path, tmp_path: Path,
                                                                         capsys) -> None:
    """Without a manifest the sweep cannot tell its files from the user's: it refuses, naming the directory and
    --force, before replaying anything. With --force it writes its files and touches nothing else."""
    out = tmp_path / "site"
    out.mkdir()
    mine = {"index.html": b"<h1>my site</h1>", "flips.png": b"mine", "notes.txt": b"mine"}
    for name, data in mine.items():
        (out / name).write_bytes(data)
    assert main([str(ten), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"quotefinder sweep: {out} holds files but no report manifest (report.json)" in err and "--force" in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == mine
    assert main([str(ten), "--out", str(out), "--no-plots", "--force"]) == 0
    assert (out / "index.html").read_bytes() == mine["index.html"] and (out / "notes.txt").read_bytes() == b"mine"
    assert "index.html" not in json.loads((out / "report.json").read_text())["files"]
    # with a manifest now, a report file of the user's name that the manifest does not list is still theirs
    assert main([str(ten), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{out}/flips.png" in err and "--force" in err
    assert (out / "flips.png").read_bytes() == b"mine" and (out / "index.html").read_bytes() == mine["index.html"]
    assert main([str(ten), "--out", str(tmp_path / "empty-is-fine")]) == 0
