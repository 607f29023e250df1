"""Names a user passes (the run, the baseline, the question file, the output directory) and names written in
the question file (ids) are shown in summary.md as inert text: GitHub renders no image, link or HTML from
them, wherever they appear."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from conftest import github_html
from quotefinder.sweepcmd import main

HOSTILE_NAME = "![x](http://evil.example/p.png) <img src=x onerror=alert(1)> [click](javascript:alert(1))"


def live_markup(html: str) -> list[str]:
    """Images, links and raw tags a name could have brought into the rendered page."""
    return re.findall(r"<img\b[^>]*>|<a\s[^>]*>|<b>|<script\b", html)


def test_hostile_directory_and_file_names_are_inert_in_the_summary(ten: Path, tmp_path: Path) -> None:
    run = tmp_path / "runs" / HOSTILE_NAME  # a directory inside `![x](http:` and `evil.example`: slashes nest
    baseline = tmp_path / "old" / f"{HOSTILE_NAME} <b>base</b>"
    for copy in (run, baseline):
        shutil.copytree(ten, copy)
    # run.json names its question file relative to the run: keep it where a run that deep expects it
    questions = tmp_path / "q" / f"{HOSTILE_NAME} <b>q</b>.yaml"
    questions.parent.mkdir(parents=True)
    shutil.copy(ten.parent.parent / "questions" / "ten.yaml", questions)
    out = tmp_path / "out" / f"{HOSTILE_NAME} <b>out</b>"
    status = main([str(run), "--baseline", str(baseline), "--questions", str(questions), "--no-plots",
                   "--out", str(out)])
    assert status == 0
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert "evil.example" in summary and "base</b>" in summary and "q</b>.yaml" in summary  # shown, for the reader
    html = github_html(summary)
    assert live_markup(html) == [], live_markup(html)
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "javascript:alert(1)" in html  # as text


def test_question_ids_in_a_comparison_caution_are_inert(ten: Path, tmp_path: Path) -> None:
    """A question replayed in only one of the runs is named in a caution; its id is the question file's."""
    questions = ten.parent.parent / "questions" / "ten.yaml"
    document = yaml.safe_load(questions.read_text(encoding="utf-8"))
    for n, entry in enumerate(document["questions"]):
        entry["id"] = f"<b>q{n}</b> ![x](http://evil.example/{n}.png) [c{n}](javascript:alert({n}))"
    questions.write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False), encoding="utf-8")
    baseline = ten.parent / "base"
    shutil.copytree(ten, baseline)
    shutil.rmtree(sorted((baseline / "responses").iterdir())[0])  # some question cannot be replayed there
    status = main([str(ten), "--baseline", str(baseline), "--allow-incomplete", "--no-plots", "--out",
                   str(tmp_path / "r")])
    assert status in (0, 1)
    summary = (tmp_path / "r" / "summary.md").read_text(encoding="utf-8")
    caution = next(line for line in summary.splitlines() if line.startswith("> Caution: ") and "only one" in line)
    assert "evil.example" in caution  # the ids are named ...
    html = github_html(summary)
    assert live_markup(html) == [], live_markup(html)  # ... and nothing of them is live
    assert "&lt;b&gt;q" in html


@pytest.mark.slow
def test_a_hostile_baseline_name_is_inert_in_the_plot_links(ten: Path, tmp_path: Path) -> None:
    """The score-change figure's link, "Score change against NAME", names the baseline directory."""
    name = "![x](https:evil.example?p.png) <img src=x onerror=alert(1)> [click](javascript:alert(1)) <b>base"
    baseline = tmp_path / "old" / name  # no slash: all of it is the directory's name
    shutil.copytree(ten, baseline)
    out = tmp_path / "out"
    assert main([str(ten), "--baseline", str(baseline), "--out", str(out)]) == 0
    summary = (out / "summary.md").read_text(encoding="utf-8")
    [line] = [line for line in summary.splitlines() if "Score change against" in line]
    assert line.endswith("(heatmap-score-change.png)") and "evil.example" in line
    html = github_html(summary)
    links = re.findall(r"<a\s[^>]*>", html)
    assert links and all(re.fullmatch(r'<a href="[a-z-]+\.png">', link) for link in links), links  # the plots' own
    assert [tag for tag in live_markup(html) if tag not in links] == [], live_markup(html)
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "javascript:alert(1)" in html  # as text
