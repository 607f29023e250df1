"""The path docs/recording.md walks from a fresh clone: the shared SQuAD sample turned into a question set, its
price seen before paying, a stand-in scenario built from the same paragraphs, recorded, swept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROOT, env_for
from quotefinder.commands.importing import main as import_main
from quotefinder.evalcmd import main as eval_main
from quotefinder.questions import load_questions
from quotefinder.recipe import sentences
from quotefinder.standin import load_scenario, squad
from quotefinder.standin.squad import build
from quotefinder.standin.squad import main as squad_main
from quotefinder.sweepcmd import main as sweep_main

SQUAD = ROOT / "data" / "squad2-dev-sample.json"


def test_the_scenario_serves_the_real_paragraphs_and_picks_the_answer_sentence(tmp_path: Path) -> None:
    scenario = build(SQUAD)
    data = json.loads(SQUAD.read_text())
    contexts = {p["context"] for a in data["data"] for p in a["paragraphs"]}
    first = data["data"][0]["paragraphs"][0]
    qa = first["qas"][0]  # answerable: "Viking"
    served = next(q for q in scenario["questions"] if q["question"] == qa["question"])
    assert all(r["snippet"] in contexts for r in served["results"]) and len(served["results"]) == 5
    own = next(r for r in served["results"] if r["snippet"] == first["context"])
    chosen = sentences.split(first["context"])[own["choice"] - 1]
    assert qa["answers"][0]["text"] in chosen and own["url"].startswith("https://en.wikipedia.example/")
    assert build(SQUAD) == scenario  # seeded: the same file every time
    assert squad_main([str(SQUAD), "--out", str(tmp_path / "s.json")]) == 0
    assert len(load_scenario(tmp_path / "s.json").questions) == 429


@pytest.mark.slow
def test_from_the_shared_squad_file_to_a_sweep(tmp_path: Path, standin_for, capsys) -> None:
    questions = tmp_path / "questions" / "squad.yaml"
    assert import_main([str(SQUAD), "--out", str(questions), "--sample", "40", "--seed", "1"]) == 0
    run = tmp_path / "runs" / "squad"
    assert eval_main([str(questions), "--run", str(run), "--estimate"], env={}) == 0
    assert "at most 440 requests" in capsys.readouterr().out
    assert squad_main([str(SQUAD), "--out", str(tmp_path / "squad.json")]) == 0
    server = standin_for(tmp_path / "squad.json")
    assert eval_main([str(questions), "--run", str(run), "--rate", "0"], env=env_for(server)) == 0
    asked = {q.question for q in load_questions(questions).questions}
    searched = [body["query"] for path, body in server.requests if path == "/search"]
    assert sorted(searched) == sorted(asked)  # every imported question reached the pipeline as it was written
    ranked = [body for path, body in server.requests if "best" in body.get("questions", {})]
    contexts = {p["context"] for a in json.loads(SQUAD.read_text())["data"] for p in a["paragraphs"]}
    assert all(any(s in c for c in contexts) for body in ranked for s in body["state"]["sentences"].values())
    out = tmp_path / "report"
    assert sweep_main([str(run), "--out", str(out), "--no-plots", "--answer", "0.5:1:0.05"]) == 0
    summary = (out / "summary.md").read_text()
    assert "40 question(s) swept" in summary and "SYNTHETIC evidence" in summary


def test_an_untitled_article_titles_its_pages_by_their_first_words() -> None:
    """The shared sample's largest article is titled "Untitled": its pages are told apart by their first words."""
    assert squad.page_title("Rhine", "The Rhine is a river.") == "Rhine"
    assert squad.page_title("Untitled", "Pattern recognition receptors are proteins used by nearly all organisms.") == (
        "Pattern recognition receptors are proteins used by nearly ...")
    assert squad.page_title("", "Short one.") == "Short one."
    scenario = squad.build(ROOT / "data" / "squad2-dev-sample.json")
    titles = [result["title"] for question in scenario["questions"] for result in question["results"]]
    assert titles and "Untitled" not in titles
