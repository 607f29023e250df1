"""One decision, everywhere: the terminal, summary.md's "Decision" section, the header of index.html and
decision.json name the same cell; with --max-wrong-rate it is certified in grid.csv whenever any cell is,
and `--at` that cell with the same --max-wrong-rate passes. On the demo and on a SQuAD stand-in run."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT, env_for
from quotefinder.commands.importing import main as import_main
from quotefinder.evalcmd import main as eval_main
from quotefinder.standin.squad import main as squad_main
from quotefinder.sweepcmd import main as sweep_main

SQUAD = ROOT / "data" / "squad2-dev-sample.json"
CELL = re.compile(r"\((\d(?:\.\d+)?), (\d(?:\.\d+)?)\)")


@pytest.fixture(scope="module")
def squad_run(tmp_path_factory) -> Path:
    """200 SQuAD questions recorded through the stand-in (real paragraphs, synthetic probabilities)."""
    from conftest import StandIn, load_scenario

    work = tmp_path_factory.mktemp("squad")
    questions = work / "questions" / "squad.yaml"
    assert import_main([str(SQUAD), "--out", str(questions), "--sample", "200", "--seed", "1"]) == 0
    assert squad_main([str(SQUAD), "--out", str(work / "squad.json")]) == 0
    server = StandIn(load_scenario(work / "squad.json"))
    server.start()
    try:
        run = work / "runs" / "squad"
        assert eval_main([str(questions), "--run", str(run), "--rate", "0"], env=env_for(server)) == 0
    finally:
        server.stop()
    return run


def first_cell(text: str) -> tuple[float, float]:
    found = CELL.search(text)
    assert found, text
    return float(found.group(1)), float(found.group(2))


def check_one_decision(run: Path, out: Path, options: list[str], capsys) -> dict:
    assert sweep_main([str(run), "--out", str(out), *options]) == 0
    terminal = capsys.readouterr().out
    decision = json.loads((out / "decision.json").read_text())
    cell = tuple(decision["recommended"])
    # the terminal: the first line under "Decision:", the action, names the point to ship first
    shipped = terminal.split("Decision:\n", 1)[1].splitlines()[0]
    assert shipped.strip().startswith(decision["action"].replace("_", " ").upper())
    assert first_cell(shipped) == cell
    # the summary: the first section is "Decision", and it names the same cell
    summary = (out / "summary.md").read_text()
    sections = re.findall(r"^## (.+)$", summary, flags=re.M)
    assert sections[0] == "Decision"
    section = summary.split("## Decision", 1)[1].split("\n## ", 1)[0]
    assert shipped.strip() in section
    # the page's header says the same words (when a page is written)
    if "--no-plots" in options:
        assert not (out / "index.html").exists() and "header of `index.html`" not in section
    else:
        page = html.unescape((out / "index.html").read_text())
        header = page.split("<h2", 1)[0]
        assert shipped.strip() in header
    # grid.csv: certified whenever any cell is
    grid = pd.read_csv(out / "grid.csv")
    at = grid[(grid.has_answer_cutoff.round(9) == cell[0]) & (grid.answer_cutoff.round(9) == cell[1])]
    assert len(at) == 1
    if "--max-wrong-rate" in options:
        any_certified = bool(grid["certified"].any())
        assert decision["certified"] is bool(at["certified"].iloc[0])
        if decision["action"] != "label_first":  # a certified default is kept, else left for a certified cell
            assert decision["certified"] is any_certified
        if any_certified:
            best = grid[grid.certified].score.max()
            assert decision["best_certified"] is not None
            b = grid[(grid.has_answer_cutoff.round(9) == decision["best_certified"][0])
                     & (grid.answer_cutoff.round(9) == decision["best_certified"][1])]
            assert b.score.iloc[0] == pytest.approx(best)
            alpha = options[options.index("--max-wrong-rate") + 1]
            assert decision["wrong_rate_bound"] == float(alpha)
            at_options = [o for o in options if o != "--no-plots"]
            assert sweep_main([str(run), "--out", str(out.parent / "gate"), "--no-plots", *at_options, "--at",
                               f"{cell[0]:g},{cell[1]:g}"]) == 0
            assert "PASS" in capsys.readouterr().out
    else:
        assert decision["certified"] is None and decision["best_certified"] is None
    counts = {k: at[k].iloc[0] for k in ("correct", "wrong", "missed", "no_answer")}
    assert {k: decision["counts"][k] for k in counts} == pytest.approx(counts)
    assert decision["questions"] == len(pd.read_csv(out / "questions.csv"))
    assert decision["evidence"] == "synthetic"
    return decision


@pytest.mark.parametrize("options", [[], ["--max-wrong-rate", "0.45", "--delta", "0.2"], ["--max-wrong-rate", "0.05"],
                                     ["--no-plots", "--max-wrong-rate", "0.45", "--delta", "0.2"],
                                     ["--answerable-share", "0.5", "--max-wrong-rate", "0.75"]])
@pytest.mark.slow
def test_the_demo_names_one_cell_everywhere(options: list[str], ten: Path, tmp_path: Path, capsys) -> None:
    decision = check_one_decision(ten, tmp_path / "r", options, capsys)
    assert decision["repeats"] == 3
    costs = (tmp_path / "r" / "summary.md").read_text().split("## If a wrong quote cost more", 1)[1]
    own = next(line for line in costs.splitlines() if "this sweep's C" in line)
    assert first_cell(own) == tuple(decision["tuned"])  # the costs table names the rule's cell too
    if options[1:2] == ["0.05"]:
        summary = (tmp_path / "r" / "summary.md").read_text()
        first = summary.split("## Decision", 1)[1].strip().splitlines()[0]
        assert first.startswith("- NOTHING CERTIFIED") and decision["action"] == "nothing_certified"
        assert decision["recommended"] == decision["default"]  # nothing certified: the default is kept


@pytest.mark.slow
def test_a_squad_stand_in_run_names_one_certified_cell_everywhere(squad_run: Path, tmp_path: Path, capsys) -> None:
    """The run the issue was found on: 200 SQuAD questions, `--answer 0.5:1:0.05 --max-wrong-rate 0.1`."""
    decision = check_one_decision(squad_run, tmp_path / "r", ["--answer", "0.5:1:0.05", "--max-wrong-rate", "0.1"],
                                  capsys)
    assert decision["certified"] is True and decision["questions"] == 200
