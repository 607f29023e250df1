"""`sweep.py` end to end: offline replay of recorded runs, the reports, the CI gate, and its refusals."""

from __future__ import annotations

import csv
import gc
import json
import math
import os
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import (
    ROOT,
    TEN_QUESTIONS,
    TEN_SCENARIO,
    decided,
    items_of,
    page,
    record,
    run_files,
    slow_fill,
    write_questions,
    write_scenario,
)
from quotefinder.questions import Outcome
from quotefinder.sweep.analysis import Settings, analyse
from quotefinder.sweep.grid import parse_axis
from quotefinder.sweep.guarantee import best_case_alpha, certify, questions_needed, upper_bound
from quotefinder.sweep.index import index_dir
from quotefinder.sweep.replay import replay_run
from quotefinder.sweep.stats import ScoreModel, choose, outcome_scores
from quotefinder.sweepcmd import main

COUNTS = ["correct", "wrong", "missed", "no_answer", "unjudged", "unlabelled"]


def read_grid(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_the_demo_run_sweeps_offline_with_no_key(ten: Path, tmp_path: Path, no_network, capsys) -> None:
    out = tmp_path / "report"
    assert main([str(ten), "--out", str(out)]) == 0
    rows = read_grid(out / "grid.csv")
    assert len(rows) == 21 * 21 and list(rows[0])[:8] == ["has_answer_cutoff", "answer_cutoff", *COUNTS]
    default = next(r for r in rows if float(r["has_answer_cutoff"]) == 0.3 and float(r["answer_cutoff"]) == 0.6)
    assert [int(default[c]) for c in COUNTS] == [6, 1, 0, 3, 0, 0]  # the recipe's published outcome at its defaults
    assert all(r["evidence"] == "synthetic" for r in rows)
    summary = (out / "summary.md").read_text()
    assert summary.startswith("# Cutoff sweep: `ten` (SYNTHETIC evidence)")
    assert "score = correct + no-answer - 2 x wrong" in summary
    for name in ("heatmap-correct.png", "heatmap-wrong.png", "flips.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"]({name})" in summary
    assert "synthetic evidence" in capsys.readouterr().out


def random_scenario(rng: random.Random, n: int) -> dict[str, list[dict]]:
    grid = [k / 20 for k in range(21)]

    def p() -> float:
        return rng.choice([rng.choice(grid), rng.random(), 0.3, 0.6])

    questions = {}
    for q in range(n):
        pages = []
        for r in range(rng.randint(0, 5)):
            snippet = rng.choice([
                f"Short. ... Tiny. Question {q} page {r}",
                f"Page {r} of question {q} says the answer is {r}. It also says more about the topic {q}.",
            ])
            pages.append(page(f"Q{q} page {r}", f"https://q{q}-{r}.example", snippet, choice=rng.randint(1, 2),
                              has_answer=p(), answers=p()))
        questions[f"Randomized question number {q}?"] = pages
    return questions


@pytest.mark.parametrize("seed", range(4))
def test_randomized_runs_through_the_stand_in_match_the_slow_reference(seed, tmp_path, standin_for) -> None:
    rng = random.Random(seed)
    scenario = random_scenario(rng, 12)
    server = standin_for(write_scenario(tmp_path / "s.json", scenario, jitter=0.03))
    lines = ["questions:"]
    for n, text in enumerate(scenario):
        expect = "answer" if n % 3 else "no-answer"
        accept = f"\n    accept: ['answer is {n % 4}']" if expect == "answer" and n % 5 else ""
        lines.append(f"  - question: {text!r}\n    expect: {expect}{accept}")
    questions = write_questions(tmp_path / "q.yaml", "\n".join(lines) + "\n")
    assert record(tmp_path / "run", questions, server) == 0
    assert main([str(tmp_path / "run"), "--out", str(tmp_path / "r"), "--no-plots", "--has-answer", "0:1:0.1"]) == 0
    h, a = parse_axis("0:1:0.1", "--x").values, parse_axis("0:1:0.05", "--x").values
    slow = slow_fill(items_of(replay_run(tmp_path / "run", {"has_answer": tuple(h)}), points=h), h, a)
    rows = read_grid(tmp_path / "r" / "grid.csv")
    assert np.array_equal(np.array([[int(r[c]) for c in COUNTS] for r in rows]).reshape(slow.shape), slow)


def test_judgement_uses_the_question_file_as_it_is_now(ten: Path, tmp_path: Path, no_network) -> None:
    path = ten.parent.parent / "questions" / "ten.yaml"
    path.write_text(path.read_text().replace("accept: ['\\b206\\b']", "accept: ['\\b207\\b']"))
    assert main([str(ten), "--out", str(tmp_path / "r"), "--no-plots", "--at", "0.3,0.6", "--max-wrong", "1"]) == 1
    assert "wrong 2 <= 1 BROKEN" in (tmp_path / "r" / "summary.md").read_text()
    other = write_questions(tmp_path / "other.yaml", path.read_text().replace("'\\b207\\b'", "'\\b206\\b'"))
    assert main([str(ten), "--questions", str(other), "--out", str(tmp_path / "s"), "--no-plots",
                 "--at", "0.3,0.6", "--max-wrong", "1", "--min-correct", "6"]) == 0


def test_the_gate_exit_codes(ten: Path, tmp_path: Path, capsys) -> None:
    out = ["--out", str(tmp_path / "r"), "--no-plots"]
    assert main([str(ten), *out, "--at", "0.3,0.6", "--max-wrong", "1", "--min-correct", "6"]) == 0
    assert main([str(ten), *out, "--at", "0.3,0.6", "--max-wrong", "0"]) == 1
    assert "FAIL at (0.3, 0.6) (the worst of the repeats): wrong 1 <= 0 BROKEN" in capsys.readouterr().out
    assert main([str(ten), *out, "--at", "0.3,0.9", "--max-wrong", "0", "--min-correct", "6"]) == 0
    assert main([str(ten), *out, "--at", "0.3,1.0", "--min-correct", "1"]) == 1
    assert main([str(ten), *out, "--at", "1.5,0.6", "--max-wrong", "0"]) == 2
    assert main([str(ten), *out, "--max-wrong", "0"]) == 2
    assert main([str(ten), *out, "--wrong-cost", "inf"]) == 2
    assert main([str(ten), *out, "--seed", "-1"]) == 2
    assert main([str(tmp_path / "nowhere"), *out]) == 2
    assert "not a run" in capsys.readouterr().err


@pytest.mark.parametrize("spec", ["0:1:0.3", "0:1:0", "0:2:0.5", "x"])
def test_bad_grids_exit_2(ten: Path, tmp_path: Path, spec: str, capsys) -> None:
    assert main([str(ten), "--has-answer", spec, "--out", str(tmp_path / "r")]) == 2
    assert "--grid has_answer" in capsys.readouterr().err and not (tmp_path / "r").exists()


@pytest.mark.slow
def test_a_missing_compare_set_is_an_error_never_a_guess(tmp_path: Path, standin_for, capsys) -> None:
    text = "The answer sits in this sentence right here. And another sentence for the page."
    scenario = {"Where is the answer?": [page("A", "https://a.example", text, has_answer=0.9, answers=0.9),
                                         page("B", "https://b.example", text + " More.", has_answer=0.5, answers=0.8)]}
    server = standin_for(write_scenario(tmp_path / "s.json", scenario))
    questions = write_questions(tmp_path / "q.yaml", "questions:\n  - {id: where, question: Where is the answer?, "
                                                      "expect: answer, accept: [answer]}\n")
    assert record(tmp_path / "run", questions, server, "--has-answer-range", "0.6:1") == 0  # sets (1) and (1, 2)
    assert main([str(tmp_path / "run"), "--out", str(tmp_path / "r"), "--has-answer", "0.6:1:0.1"]) == 0
    assert main([str(tmp_path / "run"), "--out", str(tmp_path / "r"), "--has-answer", "0:0.5:0.1"]) == 0
    run = tmp_path / "run"
    for entry in (run / "responses").rglob("*.json"):
        body = json.loads(entry.read_text())
        if "candidates" in body["request"].get("state", {}) and len(body["request"]["state"]["candidates"]) == 2:
            entry.unlink()  # as if the range had never covered HAS_ANSWER_CUTOFF <= 0.5
    assert main([str(run), "--out", str(tmp_path / "r2"), "--has-answer", "0:0.5:0.1"]) == 2
    err = capsys.readouterr().err
    assert "where: the run does not hold the compare request for results 1, 2" in err
    assert "--has-answer-range 0:0.5" in err and not (tmp_path / "r2").exists()


def test_an_incomplete_run_is_refused_unless_allowed(ten: Path, tmp_path: Path, capsys) -> None:
    record_file = ten / "run.json"
    data = json.loads(record_file.read_text())
    data["complete"] = False
    record_file.write_text(json.dumps(data))
    victim = next(p for p in (ten / "responses").rglob("*.json") if '"/search"' in p.read_text()
                  and "Eiffel" in p.read_text())
    victim.unlink()
    assert main([str(ten), "--out", str(tmp_path / "r")]) == 2
    assert "marked incomplete" in capsys.readouterr().err
    assert main([str(ten), "--out", str(tmp_path / "r"), "--allow-incomplete", "--no-plots"]) == 0
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert summary.splitlines()[0].startswith("**Incomplete: 1 question(s) could not be replayed")
    assert "`eiffel-rivets`" in summary.split("## Left out")[1]
    assert sum(int(r["correct"]) + int(r["wrong"]) + int(r["missed"]) + int(r["no_answer"])
               for r in read_grid(tmp_path / "r" / "grid.csv")[:1]) == 9


def test_questions_missing_from_the_run_are_named(ten: Path, tmp_path: Path, capsys) -> None:
    extra = write_questions(tmp_path / "q.yaml", TEN_QUESTIONS.read_text()
                            + "  - {id: brand-new, question: Not recorded yet?, expect: no-answer}\n")
    assert main([str(ten), "--questions", str(extra), "--out", str(tmp_path / "r")]) == 2
    assert "'brand-new' (line" in capsys.readouterr().err


def test_the_demo_runs_repeats_are_averaged_cell_by_cell(ten: Path, tmp_path: Path) -> None:
    axis = parse_axis("0:1:0.05", "--x")
    replayed = replay_run(ten, {"has_answer": tuple(axis.values)})
    assert replayed.repeats == 3
    assert main([str(ten), "--out", str(tmp_path / "r"), "--no-plots"]) == 0
    rows = read_grid(tmp_path / "r" / "grid.csv")
    slow = np.stack([slow_fill(items_of(replayed, r, axis.values), axis.values, axis.values) for r in range(3)])
    mean = np.array([[float(r[c]) for c in COUNTS] for r in rows]).reshape(slow.shape[1:])
    assert np.allclose(mean, slow.mean(axis=0), atol=5e-5)
    low = np.array([[int(r[f"{c}_min"]) for c in COUNTS] for r in rows]).reshape(slow.shape[1:])
    assert np.array_equal(low, slow.min(axis=0))
    assert not list((tmp_path / "r").glob("*.png"))


def test_the_demo_keeps_the_default_its_in_sample_gain_notwithstanding(ten: Path, tmp_path: Path) -> None:
    """The rule picks (0.3, 0.9) in sample (the default differs from it on one question only: the treaty question's
    wrong quote, withheld at ANSWER_CUTOFF 0.9), but no held-out question scores differently, so the decision keeps
    the default; the options given are echoed."""
    assert main([str(ten), "--folds", "5", "--seed", "7", "--no-plots", "--out", str(tmp_path / "r")]) == 0
    summary = (tmp_path / "r" / "summary.md").read_text()
    decision = json.loads((tmp_path / "r" / "decision.json").read_text())
    assert decision["action"] == "keep" and decision["recommended"] == decision["default"] == [0.3, 0.6]
    assert decision["tuned"] == [0.3, 0.9] and decision["gain"]["shown"] is False
    assert "Cross-validated (5 folds)" in summary and "- KEEP the default (0.3, 0.6)" in summary
    assert "In sample, the rule picks (0.3, 0.9)" in summary
    assert "- Options given: `--folds 5`, `--seed 7`" in summary
    assert main([str(ten), "--folds", "1", "--out", str(tmp_path / "r")]) == 2
    assert main([str(ten), "--folds", "11", "--out", str(tmp_path / "r")]) == 2
    assert main([str(ten), "--folds", "0", "--no-plots", "--out", str(tmp_path / "s")]) == 0
    untested = json.loads((tmp_path / "s" / "decision.json").read_text())
    assert untested["action"] == "keep" and untested["gain"] is None
    assert "not tested (`--folds 0`)" in (tmp_path / "s" / "summary.md").read_text()


def test_a_gate_that_checks_nothing_is_refused(ten: Path, tmp_path: Path, capsys) -> None:
    """`--at` alone, on or off the grid, names a point but no bound: exit 2 and nothing written, never a PASS."""
    for point in ("0.3,0.6", "0.52,0.65"):
        assert main([str(ten), "--at", point, "--no-plots", "--out", str(tmp_path / "r")]) == 2
        assert "nothing is checked there" in capsys.readouterr().err and not (tmp_path / "r").exists()


def test_a_symlinked_run_directory_still_finds_its_question_file(ten: Path, tmp_path: Path) -> None:
    link = tmp_path / "deep" / "er" / "link"
    link.parent.mkdir(parents=True)
    link.symlink_to(ten)
    assert main([str(link), "--no-plots", "--out", str(tmp_path / "r")]) == 0


def test_help_is_the_sweep_verb_s_and_names_the_run_s_axes(capsys) -> None:
    """`python sweep.py --help` is `quotefinder sweep --help`: the axes of the system (with a run, its own), each
    with its default and what it does."""
    assert main(["--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "usage: quotefinder sweep RUN" in text
    assert "has_answer: HAS_ANSWER_CUTOFF, default 0.3; compare results whose has_answer >= it" in text
    assert "answer: ANSWER_CUTOFF, default 0.6; quote when the top compare probability >= it" in text
    assert main([str(ROOT / "runs" / "ten-quote-answer"), "--help"]) == 0
    assert "the axes of the quote-answer system" in capsys.readouterr().out


@pytest.mark.parametrize("args", [["--jobs", "0"], ["--jobs", "-3"], ["--level", "0"], ["--folds", "1"],
                                  ["--at", "0.3"], ["--max-wrong", "-1", "--at", "0.3,0.6"]])
def test_bad_options_are_refused_not_silently_changed(ten: Path, tmp_path: Path, capsys, args) -> None:
    assert main([str(ten), *args, "--out", str(tmp_path / "r")]) == 2
    assert "error: argument" in capsys.readouterr().err and not (tmp_path / "r").exists()


def test_an_out_that_is_a_file_is_a_clear_error(ten: Path, tmp_path: Path, capsys) -> None:
    blocker = tmp_path / "report.txt"
    blocker.write_text("mine")
    assert main([str(ten), "--no-plots", "--out", str(blocker)]) == 2
    err = capsys.readouterr().err
    assert "is a file, not a report directory" in err and "File exists" not in err
    assert blocker.read_text() == "mine"


def test_a_question_file_given_as_the_run_says_what_to_give_instead(ten: Path, capsys) -> None:
    questions = ten.parent.parent / "questions"
    assert main([str(questions / "ten.yaml")]) == 2
    assert main([str(questions)]) == 2
    err = capsys.readouterr().err
    assert err.count("give the run directory `quotefinder record` recorded into") == 2 and "--run" not in err


def demo_items(ten: Path) -> tuple[list, np.ndarray]:
    """The demo run's questions and traces in every repeat, and the grid axis the default sweep uses."""
    axis = parse_axis("0:1:0.05").values
    replayed = replay_run(ten, {"has_answer": tuple(axis)})
    return [items_of(replayed, r, axis) for r in range(replayed.repeats)], axis


def test_the_demo_summary_says_how_often_the_default_would_quote_something_wrong(ten: Path, tmp_path: Path) -> None:
    assert main([str(ten), "--no-plots", "--out", str(tmp_path / "r")]) == 0
    summary = (tmp_path / "r" / "summary.md").read_text()
    runs, axis = demo_items(ten)
    lossy = sum(1 for d, o in decided(runs[0], 0.3, 0.6) if d.quote and o is not Outcome.CORRECT)
    bound = upper_bound(lossy, 10, 1, 0.1)  # the treaty question's wrong quote, in the first repeat
    shown = math.ceil(bound * 1000) / 10  # a bound is shown rounded up, to three figures: 33.68% reads 33.7%
    assert lossy == 1 and f"the wrong-answer rate there is at most {shown:.1f}%" in summary
    assert "It uses each question's first repeat" in summary
    rows = len(axis)
    assert f"cannot certify any cell below {math.ceil(best_case_alpha(10, rows, 0.1) * 1000) / 10:.1f}%" in summary
    assert f"certifying 5% would take at least {questions_needed(0.05, rows, 0.1)} questions" in summary
    assert "these questions are a random sample of the questions the pipeline will serve" in summary
    assert "the grid, the rate and 0.1 were chosen before looking at these results" in summary


@pytest.mark.slow
def test_certified_cells_are_the_direct_certification_read_back_from_the_files(ten: Path, tmp_path: Path) -> None:
    assert main([str(ten), "--out", str(tmp_path / "r"), "--max-wrong-rate", "0.45", "--delta", "0.2"]) == 0
    runs, axis = demo_items(ten)
    totals = np.zeros((len(axis), len(axis)), dtype=int)
    for i, h in enumerate(axis):
        for j, a in enumerate(axis):
            totals[i, j] = sum(1 for d, o in decided(runs[0], h, a) if d.quote and o is not Outcome.CORRECT)
    expected = certify(totals, 10, 1, 0.45, 0.2).certified  # each question's first repeat
    with open(tmp_path / "r" / "grid.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert np.array_equal(np.array([r["certified"] == "true" for r in rows]).reshape(expected.shape), expected)
    frame = pd.read_csv(tmp_path / "r" / "grid.csv")
    assert frame["certified"].dtype == bool and frame["certified"].sum() == expected.sum() > 0
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert f"{expected.sum()} of 441 cells are certified" in summary
    assert "**With probability at least 80%, every certified cell's wrong-answer rate is at most 45%.**" in summary
    assert "- MOVE FOR SAFETY to (0.3, 0.9)" in summary
    assert "not certified at a wrong-answer rate of at most 45%" in summary


def test_the_gate_on_a_certified_cell(ten: Path, tmp_path: Path, capsys) -> None:
    out = ["--no-plots", "--out", str(tmp_path / "r"), "--max-wrong-rate", "0.45"]
    assert main([str(ten), *out, "--at", "0.3,0.9"]) == 0
    assert main([str(ten), *out, "--at", "0.3,0.6"]) == 1  # one wrong quote in each repeat: not certified at 45%
    assert "certified with probability >= 0.9 BROKEN" in capsys.readouterr().out
    assert main([str(ten), *out, "--at", "0.33,0.6"]) == 2
    assert "is not a cell of the grid" in capsys.readouterr().err


@pytest.mark.parametrize("args", [["--max-wrong-rate", "0"], ["--max-wrong-rate", "1"], ["--max-wrong-rate", "x"],
                                  ["--max-wrong-rate", "nan"], ["--delta", "1.5"], ["--delta", "0"],
                                  ["--answerable-share", "1"], ["--significance", "-0.1"]])
def test_rates_and_probabilities_outside_zero_to_one_are_refused(ten: Path, tmp_path: Path, capsys, args) -> None:
    assert main([str(ten), *args, "--out", str(tmp_path / "r")]) == 2
    assert "strictly between 0 and 1" in capsys.readouterr().err


def test_a_production_mix_weights_the_score_and_the_rates(ten: Path, tmp_path: Path) -> None:
    assert main([str(ten), "--no-plots", "--out", str(tmp_path / "r"), "--answerable-share", "0.9"]) == 0
    runs, _ = demo_items(ten)
    values = {Outcome.CORRECT: 1.0, Outcome.NO_ANSWER: 1.0, Outcome.WRONG: -2.0}
    weight = {"answer": 0.9 * 10 / 6, "no-answer": 0.1 * 10 / 4}
    score = sum(weight[q.expect] * values.get(o, 0.0) for run in runs for (q, _), (_, o)
                in zip(run, decided(run, 0.3, 0.6), strict=True)) / len(runs)
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert f"| **score** | {round(score, 4):g} |" in summary
    assert "weighted so that answerable questions make up 90% of the total" in summary
    assert "in the production mix (90% of them to answerable questions)" in summary  # the guarantee is for the mix
    assert "Clopper-Pearson bounds per class" in summary
    grid = pd.read_csv(tmp_path / "r" / "grid.csv")
    cell = grid[(grid.has_answer_cutoff == 0.3) & (grid.answer_cutoff == 0.6)].iloc[0]
    assert cell["score"] == pytest.approx(score, abs=1e-4) and cell["correct"] == 6  # counts stay counts


def test_the_recommendation_for_each_wrong_quote_cost(ten: Path, tmp_path: Path) -> None:
    assert main([str(ten), "--no-plots", "--out", str(tmp_path / "r")]) == 0
    result = analyse(replay_run(ten, {"has_answer": tuple(parse_axis("0:1:0.05").values)}), parse_axis("0:1:0.05"),
                     parse_axis("0:1:0.05"), Settings(folds=0))
    summary = (tmp_path / "r" / "summary.md").read_text()
    for cost in (1, 2, 5, 10):
        model = ScoreModel(result.tables, result.a_axis.values, outcome_scores(cost))
        pick = choose(model, np.ones(10), result.h_axis.values, result.a_axis.values, (0.3, 0.6))
        h, a = result.h_axis.values[pick.h_index], result.a_axis.values[pick.a_index]
        assert f"| {cost} | ({h:g}, {a:g}) |" in summary


def with_stdout_closed(args: list[str], cwd: Path, buffered: bool) -> subprocess.CompletedProcess[str]:
    """`python sweep.py ARGS | head -1` at its most abrupt: the reader of stdout is gone before the first line
    is written (a reader that goes after one line fails only the writes after it, and only when the output
    outgrows the pipe's buffer: a race, not a test). `buffered` as on a pipe, or not (PYTHONUNBUFFERED)."""
    read, write = os.pipe()
    os.close(read)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    try:
        return subprocess.run([sys.executable, str(ROOT / "sweep.py"), *args], stdout=write, stderr=subprocess.PIPE,
                              text=True, cwd=cwd, env=env, timeout=300)
    finally:
        os.close(write)


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
def test_a_sweep_piped_into_a_reader_that_stops_early_ends_quietly_with_its_report_whole(
        ten: Path, tmp_path: Path, buffered: bool, monkeypatch) -> None:
    """The report is written before anything is printed, so a closed stdout loses none of it: the files are
    the ones a sweep with stdout open writes. No message blames a file, and the exit status is 128 + SIGPIPE
    (not 1, which would read as a failed gate)."""
    args = ["--no-plots", "--folds", "2", "--at", "0.3,0.6", "--max-wrong", "0"]
    done = with_stdout_closed([str(ten), "--out", str(tmp_path / "piped"), *args], tmp_path, buffered)
    assert (done.returncode, done.stderr) == (141, "")
    monkeypatch.chdir(tmp_path)  # where the piped sweep ran: the summary shows paths relative to it
    assert main([str(ten), "--out", str(tmp_path / "open"), *args]) == 1  # the gate fails: 1 means that alone
    piped, opened = run_files(tmp_path / "piped"), run_files(tmp_path / "open")
    assert {"grid.csv", "questions.csv", "summary.md"} <= set(piped) and piped == opened


def test_the_checks_refuse_a_point_off_the_grid_and_the_comparison_does_not(ten: Path, tmp_path: Path,
                                                                             capsys) -> None:
    """--max-wrong, --min-correct and --max-wrong-rate check a cell of the grid: an --at between cells is
    refused before anything is replayed. A comparison with --baseline alone may be made at any point."""
    out = ["--no-plots", "--out", str(tmp_path / "r")]
    assert main([str(ten), *out, "--at", "0.33,0.9", "--max-wrong", "0", "--min-correct", "6"]) == 2
    err = capsys.readouterr().err
    assert ("--at 0.33,0.9 is not a cell of the grid, so --max-wrong and --min-correct cannot check it; choose a "
            "point on the grid's axes (--grid NAME=...)") in err
    assert not (tmp_path / "r").exists()
    assert main([str(ten), *out, "--at", "0.3,0.95", "--answer", "0:1:0.1", "--max-wrong-rate", "0.45"]) == 2
    assert "--at 0.3,0.95 is not a cell of the grid, so --max-wrong-rate cannot check it" in capsys.readouterr().err
    again = shutil.copytree(ten, ten.with_name("ten-again"))  # the same run recorded again
    assert main([str(ten), *out, "--at", "0.33,0.9", "--baseline", str(again), "--max-wrong", "0"]) == 2
    assert "not a cell of the grid" in capsys.readouterr().err and not (tmp_path / "r").exists()
    assert main([str(ten), *out, "--at", "0.33,0.9", "--baseline", str(again)]) == 0  # nothing got worse
    assert (tmp_path / "r" / "comparison.csv").exists()
    assert main([str(ten), *out, "--at", "0.35,0.9", "--max-wrong", "0", "--min-correct", "6"]) == 0  # on the grid


def test_strict_without_a_baseline_is_refused(ten: Path, tmp_path: Path, capsys) -> None:
    assert main([str(ten), "--strict", "--no-plots", "--out", str(tmp_path / "r")]) == 2
    assert "--strict makes the comparison with a baseline stricter: give the earlier run with --baseline RUN" in \
        capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_a_report_inside_a_run_directory_is_refused(ten: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    """A report written into a run would mix with its evidence: refused, naming the run, however the path is
    spelled (relative, through '..', the run itself, inside the baseline)."""
    before = run_files(ten)
    other = tmp_path / "other"
    other.mkdir()
    for out in (ten / "report", ten, ten / ".." / "ten" / "deep" / "report"):
        assert main([str(ten), "--no-plots", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert f"--out {out} is inside the run directory {ten}: a report written there would mix with the run's " \
               "evidence; choose a directory outside it with --out DIR" in err
    monkeypatch.chdir(ten)
    assert main([".", "--no-plots", "--out", "report"]) == 2
    assert "--out report is inside the run directory ." in capsys.readouterr().err
    assert main([".", "--no-plots"]) == 2  # the default, reports/ten, would land inside the run from here
    assert "the default report directory reports/ten is inside the run directory ." in capsys.readouterr().err
    assert main([str(ten), "--baseline", str(ten), "--no-plots", "--out", str(ten / "compared")]) == 2
    assert run_files(ten) == before


def test_max_requests_leaves_questions_the_sweep_calls_not_recorded_yet(tmp_path: Path, standin_for,
                                                                       capsys) -> None:
    """After eval.py --max-requests, the questions it never reached did not fail: the sweep says they are not
    recorded yet and why, when it refuses the run and when it leaves them out."""
    server = standin_for(TEN_SCENARIO)
    run = tmp_path / "run"
    assert record(run, TEN_QUESTIONS, server, "--concurrency", "1", "--max-requests", "23") == 2
    capsys.readouterr()
    assert main([str(run), "--no-plots", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert f"{run}: the run is marked incomplete: 8 question(s) not recorded yet (stopped by --max-requests); " \
           "finish it: `python eval.py " in err and f" --run {run} --estimate` first says what finishing" in err
    assert "failed" not in err
    assert main([str(run), "--no-plots", "--out", str(tmp_path / "r"), "--allow-incomplete"]) == 0
    out = capsys.readouterr().out
    assert "INCOMPLETE: 8 question(s) left out:" in out and "failed" not in out
    assert out.count(": not recorded yet (stopped by --max-requests)\n") == 7
    assert "  bones: partly recorded (stopped by --max-requests): missing the rank request" in out
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert "| `treaty-of-rome-ink` | `not recorded yet (stopped by --max-requests)` |" in summary
    assert "does not hold the search" not in summary


# ---- sweep.py as a process: its children end with it, and Ctrl+C is one line ------------------------------------

POOLED = "import quotefinder.sweep.replay as replay\nreplay.PARALLEL_FROM = 1  # loaded by a pool, as a big run is"
# The analysis says it has started (the file named by the first argument after the code), then takes its time.
SLOW_ANALYSIS = """
import pathlib, sys, time
import quotefinder.sweep.session as session
_analyse, started = session.analyse, pathlib.Path(sys.argv.pop(1))
def analyse(*args, **kwargs):
    started.touch()
    time.sleep(60)
    return _analyse(*args, **kwargs)
session.analyse = analyse
"""


def sweep_process(ten: Path, out: Path, *args: str, pooled: bool = True, before: str = "",
                  first: str | None = None) -> subprocess.Popen[bytes]:
    """`python sweep.py RUN --out OUT ARGS` in its own process group, stdout and stderr to pipes (as in
    `$(python sweep.py ...)` or `| tee`); `pooled`: the run is loaded by a pool of worker processes. `before` is
    code run first, which may take `first`, an argument of its own."""
    code = f"{POOLED if pooled else ''}\n{before}\nimport sys\nfrom quotefinder.sweepcmd import main\n" \
           "sys.exit(main())"  # as sweep.py ends
    own = [first] if first is not None else []
    return subprocess.Popen([sys.executable, "-c", code, *own, str(ten), "--out", str(out), "--jobs", "2", *args],
                            cwd=ten.parent.parent, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)


def live_group(pgid: int) -> list[int]:
    """The live (not zombie) processes of a process group, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except (OSError, ValueError):
            continue
        state, _, _, group = stat.rsplit(")", 1)[1].split()[:4]
        if entry.isdigit() and int(group) == pgid and state != "Z":
            found.append(int(entry))
    return found


def wait_for_children(sweep: subprocess.Popen[bytes], count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while len(live_group(sweep.pid)) < 1 + count:
        assert sweep.poll() is None, f"the sweep ended before it had {count} children"
        assert time.monotonic() < deadline, f"the sweep never had {count} children"
        time.sleep(0.005)


def reaches_eof(stream, within: float) -> bool:
    """Whether `stream` (a pipe) is closed by every writer within `within` seconds."""
    fd = stream.fileno()
    os.set_blocking(fd, False)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if ready:
            try:
                if os.read(fd, 65536) == b"":
                    return True
            except BlockingIOError:
                pass
    return False


@pytest.mark.faults
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_the_sweeps_children_end_with_it_and_release_its_output(ten: Path, tmp_path: Path, signum) -> None:
    """Killed while its two loading processes are alive, the sweep takes them with it: its stdout reaches
    end-of-file at once (a `$(...)` or `| tee` in CI returns), and no process of its group is left."""
    sweep = sweep_process(ten, tmp_path / "r", "--has-answer", "0:1:0.002")
    try:
        wait_for_children(sweep, 2)
        sweep.send_signal(signum)
        assert reaches_eof(sweep.stdout, within=5), "a child of the sweep still holds its stdout"
        _, err = sweep.communicate(timeout=5)
        if signum == signal.SIGTERM:  # stopped as Ctrl+C stops it
            assert (sweep.returncode, err.decode()) == (
                2, f"quotefinder sweep: interrupted; the report in {tmp_path / 'r'} is unchanged\n")
        deadline = time.monotonic() + 5
        while live_group(sweep.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert live_group(sweep.pid) == []
    finally:
        for pid in live_group(sweep.pid):  # only this test's own processes, by id
            os.kill(pid, signal.SIGKILL)
        sweep.wait(timeout=5)


@pytest.mark.faults
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
@pytest.mark.parametrize("pooled", [False, True], ids=["serial", "pooled"])
def test_ctrl_c_stops_the_sweep_with_one_line_and_the_report_unchanged(ten: Path, tmp_path: Path,
                                                                       pooled: bool) -> None:
    """Ctrl+C in a terminal interrupts the whole foreground process group, the sweep's children included: one
    line, exit 2, and the report from before untouched."""
    out = tmp_path / "r"
    assert main([str(ten), "--out", str(out), "--no-plots"]) == 0
    before = run_files(out)
    started = tmp_path / "started"
    sweep = sweep_process(ten, out, "--has-answer", "0:1:0.002", pooled=pooled,
                          before="" if pooled else SLOW_ANALYSIS, first=None if pooled else str(started))
    try:
        if pooled:  # while the pool's two workers load the run
            wait_for_children(sweep, 2)
        deadline = time.monotonic() + 60
        while not (pooled or started.exists()):  # while the sweep analyses
            assert sweep.poll() is None and time.monotonic() < deadline, "the sweep never started its analysis"
            time.sleep(0.005)
        os.killpg(sweep.pid, signal.SIGINT)
        _, err = sweep.communicate(timeout=30)
    finally:
        for pid in live_group(sweep.pid):
            os.kill(pid, signal.SIGKILL)
    assert (sweep.returncode, err.decode()) == (
        2, f"quotefinder sweep: interrupted; the report in {out} is unchanged\n")
    assert run_files(out) == before


def test_a_sweep_pauses_the_collector_while_it_works_and_leaves_it_as_it_found_it(ten: Path, tmp_path: Path,
                                                                                 monkeypatch) -> None:
    from quotefinder.sweep import session

    seen: list[bool] = []

    def watched(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return analyse(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(session, "analyse", watched)
    assert gc.isenabled()
    assert main([str(ten), "--no-plots", "--out", str(tmp_path / "a")]) == 0
    assert seen == [False] and gc.isenabled()

    def failing(*args: object, **kwargs: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(session, "analyse", failing)
    assert main([str(ten), "--no-plots", "--out", str(tmp_path / "b")]) == 2  # interrupted: exit 2, one line
    assert gc.isenabled()
    gc.disable()
    try:  # a caller that had paused it finds it paused still
        monkeypatch.setattr(session, "analyse", watched)
        assert main([str(ten), "--no-plots", "--out", str(tmp_path / "c")]) == 0
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.slow
def test_a_profiled_sweep_ends_ordinarily_and_writes_its_profile(ten: Path, tmp_path: Path) -> None:
    """Under a profiler (`python -m cProfile -o FILE sweep.py ...`, as BENCHMARKS.md profiles a sweep), the sweep
    ends with the ordinary exit, so that the profiler writes what it measured."""
    profile = tmp_path / "sweep.prof"
    done = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(profile), str(ROOT / "sweep.py"), str(ten),
                           "--out", str(tmp_path / "r"), "--no-plots"], capture_output=True, text=True,
                          cwd=ten.parent.parent, timeout=300)
    assert done.returncode == 0, done.stderr
    import pstats

    assert any(name == "main" for _, _, name in pstats.Stats(str(profile)).stats)  # type: ignore[attr-defined]


@pytest.mark.slow
def test_a_sweep_of_tables_alone_loads_no_http_client_plots_or_pandas(ten: Path, tmp_path: Path) -> None:
    """Reading a run and replaying it needs neither the network's libraries (httpx, asyncio) nor pandas nor the
    figures' matplotlib (nor its Pillow): a `--no-plots` sweep, first and repeated, writes its report without loading
    any of them (each costs a sweep's start tens of milliseconds, pandas 0.15 s, matplotlib 0.3 s)."""
    heavy = ("httpx", "asyncio", "pandas", "matplotlib", "PIL")
    script = ("import sys\nfrom quotefinder.sweepcmd import main\n"
              f"code = main([{str(ten)!r}, '--no-plots', '--out', {str(tmp_path / 'report')!r}, '--force'])\n"
              f"print(code, [name for name in {heavy!r} if name in sys.modules])\n")
    written = []
    for _ in ("first", "repeated"):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ten.parent.parent)
        assert done.stdout.splitlines()[-1] == "0 []", done.stdout + done.stderr
        written.append({path.name: path.stat().st_mtime_ns for path in index_dir(ten).glob("*.index")})
    assert (tmp_path / "report" / "summary.md").exists()
    assert len(written[0]) == 1 and written[1] == written[0]  # the repeated sweep read the index the first wrote


@pytest.mark.slow
def test_a_sweep_of_every_file_draws_in_its_own_process_without_pyplot_or_pandas(ten: Path, tmp_path: Path) -> None:
    """The demo's every-file report (PNGs and the page) is drawn by matplotlib's object API in the sweep itself: no
    pyplot (no global figures), no pandas (0.2 s of its start), and no child process; scipy's distributions
    (`scipy.special`) compute its bounds."""
    script = ("import os, sys\nforks = []\nfork = os.fork\n"
              "os.fork = lambda: forks.append(1) or fork()  # every child a sweep could make, counted\n"
              "from quotefinder.sweepcmd import main\n"
              f"code = main([{str(ten)!r}, '--jobs', '1', '--out', {str(tmp_path / 'report')!r}])\n"
              "print(code, [m for m in ('matplotlib.figure', 'matplotlib.pyplot', 'pandas', 'scipy.special') "
              "if m in sys.modules], len(forks))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ten.parent.parent)
    assert done.stdout.splitlines()[-1] == "0 ['matplotlib.figure', 'scipy.special'] 0", done.stdout + done.stderr
    assert {"index.html", "heatmap-wrong.png", "risk-coverage.png", "flips.png"} <= {
        path.name for path in (tmp_path / "report").iterdir()}


def test_labels_come_first_only_when_they_could_change_the_decision(ten: Path, tmp_path: Path) -> None:
    """Without any accept patterns, every answer question's quotes are unjudged: counted all right the decision is
    not what it is counted all wrong, so it is to label those six first (named in summary.md and decision.json),
    and the default stays what ships. Without `bones`' patterns alone its quote is the same sentence wherever it is
    quoted, and counted either way it changes nothing: the decision stands (keep), and the summary still lists it
    to label."""
    questions = tmp_path / "questions" / "ten.yaml"
    text = questions.read_text()
    questions.write_text(re.sub(r"    accept: .*\n", "", text))
    assert main([str(ten), "--no-plots", "--out", str(tmp_path / "r")]) == 0
    decision = json.loads((tmp_path / "r" / "decision.json").read_text())
    answerable = ["mariana-depth", "sunlight-travel", "bones", "voyager-heliopause", "rosetta-stone", "hubble-launch"]
    assert decision["action"] == "label_first" and decision["unjudged_questions"] == answerable
    assert decision["recommended"] == decision["default"]
    first = (tmp_path / "r" / "summary.md").read_text().split("## Decision", 1)[1].strip().splitlines()[0]
    assert first.startswith("- LABEL FIRST: 6 question(s)") and "bones" in first and "--review" in first
    questions.write_text(text.replace("    accept: ['\\b206\\b']\n", ""))
    assert main([str(ten), "--no-plots", "--out", str(tmp_path / "r"), "--force"]) == 0
    alone = json.loads((tmp_path / "r" / "decision.json").read_text())
    assert alone["action"] == "keep" and alone["unjudged_questions"] == []
    assert "## Label these" in (tmp_path / "r" / "summary.md").read_text()
