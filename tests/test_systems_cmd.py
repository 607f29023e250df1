"""`sweep.py` over systems other than the recipe's: a variant pipeline's sweep is exact cell for cell, and
`sweep.py RUN_A RUN_B` says which to ship (or that the two cannot be told apart)."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import (
    ROOT,
    TEN_QUESTIONS,
    TEN_SCENARIO,
    copy_run,
    items_of,
    record,
    slow_fill,
    write_questions,
    write_scenario,
)
from quotefinder.core.pipelinefile import load_pipeline_file
from quotefinder.sweep.grid import parse_axis
from quotefinder.sweep.replay import replay_run
from quotefinder.sweepcmd import main

VARIANT_FILE = ROOT / "pipelines" / "terse-criteria.yaml"
_, VARIANT = load_pipeline_file(VARIANT_FILE)
COUNTS = ["correct", "wrong", "missed", "no_answer", "unjudged", "unlabelled"]


def grid_counts(path: Path, shape: tuple[int, ...]) -> np.ndarray:
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return np.array([[float(r[c]) for c in COUNTS] for r in rows]).reshape(shape)


@pytest.fixture
def variant_run(tmp_path: Path, standin_for) -> Path:
    """The demo questions recorded with the committed variant pipeline (another model, other wording, three
    results), two repeats, against the stand-in following that pipeline."""
    server = standin_for(TEN_SCENARIO, pipeline=VARIANT)
    assert record(tmp_path / "variant", TEN_QUESTIONS, server, "--pipeline", str(VARIANT_FILE), "--repeats", "2") == 0
    return tmp_path / "variant"


def test_a_variant_pipelines_sweep_is_exact_cell_for_cell(variant_run: Path, tmp_path: Path) -> None:
    """Every cell of the variant's grid.csv (means over its two repeats) is the mean of what the quote finder's
    own `decide` gives, question by question, on the variant's recorded responses; and the variant is not the
    recipe (three results instead of five change what is quoted)."""
    assert main([str(variant_run), "--out", str(tmp_path / "r"), "--no-plots", "--grid", "has_answer=0:1:0.05",
                 "--grid", "answer=0:1:0.05"]) == 0
    h = parse_axis("0:1:0.05").values
    replayed = replay_run(variant_run, {"has_answer": tuple(h)})
    assert replayed.record.config.pipeline == VARIANT
    slow = np.mean([slow_fill(items_of(replayed, r, h), h, h) for r in range(2)], axis=0)
    assert np.allclose(grid_counts(tmp_path / "r" / "grid.csv", slow.shape), slow, atol=5e-5)
    assert main([str(ROOT / "runs" / "ten"), "--out", str(tmp_path / "recipe"), "--no-plots"]) == 0
    recipe = grid_counts(tmp_path / "recipe" / "grid.csv", slow.shape)
    assert not np.allclose(recipe, slow)
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert "terse-criteria" in summary  # the report names the pipeline it swept


def random_pages(rng: random.Random, n: int) -> dict[str, list[dict]]:
    pages = {}
    for q in range(n):
        text = f"Question number {q} about the lake?"
        pages[text] = [{"title": f"Page {q}-{r}", "url": f"https://lake-{q}-{r}.example",
                        "snippet": f"The answer to {q} is {r} in this sentence. Another sentence follows it here.",
                        "choice": 1, "has_answer": round(rng.random(), 2), "answers": round(rng.random(), 2)}
                       for r in range(4)]
    return pages


def questions_for(path: Path, pages: dict[str, list[dict]]) -> Path:
    lines = ["questions:"]
    for n, text in enumerate(pages):
        lines.append(f"  - question: {text!r}\n    expect: answer\n    accept: ['is {n % 4} in']")
    return write_questions(path, "\n".join(lines) + "\n")


@pytest.mark.slow
def test_the_same_pipeline_re_recorded_is_indistinguishable(tmp_path: Path, standin_for) -> None:
    """Two recordings of one pipeline on one question set: the same responses, so every question scores the same
    in both, and the report says they cannot be told apart (p = 1), in systems.csv, summary.md, decision.json."""
    pages = random_pages(random.Random(3), 30)
    scenario = write_scenario(tmp_path / "s.json", pages)
    questions = questions_for(tmp_path / "q.yaml", pages)
    for name in ("a", "b"):
        assert record(tmp_path / name, questions, standin_for(scenario)) == 0
    out = tmp_path / "which"
    assert main([str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(out), "--no-plots"]) == 0
    systems = pd.read_csv(out / "systems.csv")
    assert list(systems["run"]) == [str(tmp_path / "a"), str(tmp_path / "b")]
    assert systems["cv_score"].nunique() == 1 and float(systems["p_vs_best"].dropna().iloc[0]) == 1.0
    summary = (out / "summary.md").read_text()
    assert summary.startswith("# ") and "## Which to ship" in summary and "indistinguishable" in summary
    decision = json.loads((out / "decision.json").read_text())
    assert decision["system"]["run"] == str(tmp_path / "a")


@pytest.mark.slow
def test_the_better_system_is_named(tmp_path: Path, standin_for) -> None:
    """A system whose compare probabilities track the truth against one whose are noise, on 40 questions: the
    first is named, better beyond chance."""
    rng = random.Random(5)
    good = random_pages(rng, 40)
    for n, pages in enumerate(good.values()):
        for r, page in enumerate(pages):
            page["answers"] = 0.95 if r == n % 4 else 0.05  # the true sentence, and only it, is confident
            page["has_answer"] = 0.9
    bad = json.loads(json.dumps(good))
    for pages in bad.values():
        for page in pages:
            page["answers"] = round(rng.random(), 2)
    questions = questions_for(tmp_path / "q.yaml", good)
    assert record(tmp_path / "good", questions, standin_for(write_scenario(tmp_path / "g.json", good))) == 0
    assert record(tmp_path / "bad", questions, standin_for(write_scenario(tmp_path / "b.json", bad))) == 0
    out = tmp_path / "which"
    assert main([str(tmp_path / "bad"), str(tmp_path / "good"), "--out", str(out), "--no-plots"]) == 0
    systems = pd.read_csv(out / "systems.csv").set_index("run")
    assert systems.loc[str(tmp_path / "good"), "cv_score"] > systems.loc[str(tmp_path / "bad"), "cv_score"]
    assert float(systems.loc[str(tmp_path / "bad"), "p_vs_best"]) < 0.05
    assert json.loads((out / "decision.json").read_text())["system"]["run"] == str(tmp_path / "good")


def test_systems_on_different_questions_are_refused(tmp_path: Path, standin_for, capsys) -> None:
    pages = random_pages(random.Random(1), 6)
    scenario = write_scenario(tmp_path / "s.json", pages)
    assert record(tmp_path / "a", questions_for(tmp_path / "q.yaml", pages), standin_for(scenario)) == 0
    fewer = dict(list(pages.items())[:5])
    assert record(tmp_path / "b", questions_for(tmp_path / "q5.yaml", fewer), standin_for(scenario)) == 0
    assert main([str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "x"), "--no-plots"]) == 2
    assert "question" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_checks_of_one_run_are_refused_with_several(tmp_path: Path, capsys) -> None:
    ten = tmp_path / "ten"
    copy_run(ROOT / "runs" / "ten", ten)
    assert main([str(ten), str(ten), "--at", "0.3,0.6", "--max-wrong", "0"]) == 2
    assert "quotefinder compare: error: unrecognized arguments: --at" in capsys.readouterr().err
    assert main([str(ten), str(ten), "--out", str(tmp_path / "x")]) == 2
    assert "is given twice" in capsys.readouterr().err
