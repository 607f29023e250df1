"""The quote-answer system swept: its curve against its own decision, the grid held cell by cell to a slow
replay of every cached response, its axes (whole numbers and names) on the command line and in every report,
the guarantee without an order, the first passage alone, and a comparison with the quote finder."""

from __future__ import annotations

import csv
import json
import random
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from scipy import stats

from conftest import ROOT, TEN_QUESTIONS, TEN_SCENARIO, record_quote_answer
from quotefinder.questions import Outcome, load_questions
from quotefinder.quoteanswer import contract
from quotefinder.quoteanswer.config import DEFAULT
from quotefinder.quoteanswer.contract import Answer, Source
from quotefinder.quoteanswer.system import QUOTE_ANSWER, Trace, quote_of
from quotefinder.record.cache import ResponseCache
from quotefinder.standin import StandIn, load_scenario
from quotefinder.sweep.guarantee import certify
from quotefinder.sweepcmd import main

RANGES = ["--range", "passages=1:4", "--range", "tier=instant,deep"]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    """The ten questions recorded with the quote-answer system at passages 1 to 4 (and the default 5) and two
    tiers, laid out as in the repository (the run names its question file relatively)."""
    root = tmp_path_factory.mktemp("qa")
    shutil.copytree(ROOT / "questions", root / "questions")
    scenario = load_scenario(TEN_SCENARIO)
    with StandIn(scenario) as server:
        assert record_quote_answer(root / "runs" / "qa", root / "questions" / "ten.yaml", server, *RANGES) == 0
    return root / "runs" / "qa"


def random_trace(rng: random.Random) -> Trace:
    trace = Trace("q", 0)
    for p in range(1, 13):
        for t in range(len(contract.TIERS)):
            if rng.random() < 0.4:
                continue  # not recorded: missing
            sources = (Source(1, "a", "https://a.example"), Source(2, "b", "https://b.example"))
            passages = tuple((rng.choice((1, 2)), f"passage {p} {t} {k}") for k in range(rng.randint(0, 3)))
            text = " ".join(f"{quoted} [{n}]" for n, quoted in passages)
            trace.answers[(p, t)] = Answer(text, sources if passages else (), passages, 9, 2, 1)
    return trace


@pytest.mark.parametrize("seed", range(20))
def test_the_curve_is_the_decision_at_every_point(seed: int) -> None:
    rng = random.Random(seed)
    trace = random_trace(rng)
    curve = QUOTE_ANSWER.curve(trace)
    points = [(p, t) for p in range(1, 13) for t in range(3)]
    points += [(rng.uniform(0, 14), rng.uniform(-1, 3)) for _ in range(200)] + [(2.5, 0.5), (3.5, 1.5), (12.5, 2.5)]
    for x, y in points:
        assert curve.at(x, y) == QUOTE_ANSWER.decide(trace, x, y), (x, y)


def slow_counts(run_dir: Path, passages: int, tier: str) -> dict[str, int]:
    """The counts at one configuration, the obvious way: each question's own cached response, its raw JSON judged
    by the rule in words (an empty answer or none of its passages: no answer; else correct when a pattern matches
    a passage), none of the product's judging."""
    store = ResponseCache(run_dir)
    counts = dict.fromkeys((o.value for o in Outcome), 0)
    for question in load_questions(TEN_QUESTIONS).questions:
        data = store.require(DEFAULT.request(question.question, passages, tier)).data
        texts = [passage["text"] for passage in data["passages"]]
        if not data["answer"].strip() or not texts:
            outcome = "missed" if question.expect == "answer" else "no_answer"
        elif question.expect == "no-answer":
            outcome = "wrong"
        else:
            matched = any(re.search(pattern, text, re.IGNORECASE) for pattern in question.accept for text in texts)
            outcome = "correct" if matched else "wrong"
        counts[outcome] += 1
    return counts


@pytest.mark.slow
def test_the_grid_is_every_configurations_own_responses_judged(recorded: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    assert main([str(recorded), "--out", str(out), "--no-plots"]) == 0
    grid = pd.read_csv(out / "grid.csv")
    assert list(grid.columns[:2]) == ["passages", "tier"]
    assert grid["passages"].tolist() == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5] and str(grid["passages"].dtype) == "int64"
    assert grid["tier"].tolist() == ["instant", "deep"] * 5
    with open(out / "grid.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        expected = slow_counts(recorded, int(row["passages"]), row["tier"])
        assert {name: int(row[name]) for name in expected} == expected, row
    decision = json.loads((out / "decision.json").read_text())
    assert decision["axes"] == ["passages", "tier"] and decision["default"] == [5, "instant"]
    assert isinstance(decision["recommended"][0], int) and decision["recommended"][1] in ("instant", "deep")
    summary = (out / "summary.md").read_text()
    assert "- Grid: passages 1 to 5 in steps of 1 x tier instant and deep (10 cells)" in summary
    assert "a probability equal to a cutoff" not in summary


def test_a_grid_of_its_own_values_and_a_gate_at_a_named_point(recorded: Path, tmp_path: Path, capsys) -> None:
    out = ["--out", str(tmp_path / "r"), "--no-plots"]
    assert main([str(recorded), *out, "--grid", "passages=2,4", "--grid", "tier=deep", "--at", "4,deep",
                 "--max-wrong", "10"]) == 0
    grid = pd.read_csv(tmp_path / "r" / "grid.csv")
    assert grid[["passages", "tier"]].values.tolist() == [[2, "deep"], [4, "deep"]]
    assert "Gate: PASS at (4, deep)" in capsys.readouterr().out
    assert main([str(recorded), *out, "--at", "4,fast", "--max-wrong", "0"]) == 2
    assert "tier 'fast' is not a value of that axis" in capsys.readouterr().err
    assert main([str(recorded), *out, "--grid", "passages=0:13"]) == 2
    assert "passages goes from 1 to 12" in capsys.readouterr().err
    assert main([str(recorded), *out, "--has-answer", "0:1:0.5"]) == 2
    assert "quote-answer has no axis 'has_answer'; its axes are: passages, tier" in capsys.readouterr().err
    assert main([str(recorded), *out, "--grid", "passages=7"]) == 2  # never recorded: said, with the way out
    err = capsys.readouterr().err
    assert "cannot be replayed on this grid" in err and "--range passages=5:7" in err


def test_a_guarantee_without_an_order_tests_each_cell_on_its_own(recorded: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert main([str(recorded), "--out", str(out), "--no-plots", "--max-wrong-rate", "0.7"]) == 0
    summary = (out / "summary.md").read_text()
    assert "each of the 10 cells is tested on its own (Bonferroni)" in summary
    assert "each test at level 0.1/10 = 0.01" in summary
    grid = pd.read_csv(out / "grid.csv")
    losses = (grid["wrong"] + grid["unjudged"]).to_numpy().reshape(5, 2)  # one repeat: the first repeat's losses
    direct = certify(losses, 10, 1, 0.7, 0.1, ordered=False).certified.ravel()
    assert grid["certified"].tolist() == direct.tolist() and direct.any()
    assert (stats.binom.cdf(losses.ravel(), 10, 0.7) <= 0.01).tolist() == direct.tolist()


def test_the_summary_says_how_often_the_first_passage_alone_is_correct(recorded: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert main([str(recorded), "--out", str(out), "--no-plots", "--grid", "passages=4",
                 "--grid", "tier=deep"]) == 0
    store = ResponseCache(recorded)
    alone = correct = 0
    for question in load_questions(TEN_QUESTIONS).questions:
        quote = quote_of(contract.read_answer(store.require(DEFAULT.request(question.question, 4, "deep")).data))
        if question.judge_quote(quote) is Outcome.CORRECT:
            correct += 1
            alone += question.judge(quote.passages[0]) is Outcome.CORRECT
    assert correct and (f"First passage alone: {alone} of the {correct} correct answers at the recommended cell"
                        in (out / "summary.md").read_text())


def test_every_file_of_the_report_names_its_axes(recorded: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert main([str(recorded), "--out", str(out)]) == 0
    assert {"heatmap-correct.png", "risk-coverage.png"} <= {p.name for p in out.iterdir()}
    assert not (out / "flips.png").exists()  # a flip is a cutoff's value: none on these axes
    page = (out / "index.html").read_text()
    assert "Rows: passages, rising upwards; columns: tier, rising to the right." in page
    questions = pd.read_csv(out / "questions.csv")
    assert {"along_tier", "along_passages"} <= set(questions.columns)


def test_the_quote_answer_system_is_compared_with_the_quote_finder(recorded: Path, tmp_path: Path, capsys) -> None:
    finder = recorded.parent / "ten"
    if not finder.exists():
        shutil.copytree(ROOT / "runs" / "ten", finder, ignore=shutil.ignore_patterns("replay-index"))
    out = tmp_path / "which"
    assert main([str(finder), str(recorded), "--out", str(out), "--no-plots"]) == 0
    said = capsys.readouterr().out
    assert "Compared 2 systems on 10 question(s)" in said and "Which to ship: Ship " in said
    systems = pd.read_csv(out / "systems.csv", keep_default_na=False)
    assert list(systems.columns[2:6]) == ["has_answer_cutoff", "answer_cutoff", "passages", "tier"]
    qa = systems[systems["pipeline"] == "quote-answer"].iloc[0]
    assert qa["has_answer_cutoff"] == "" and qa["tier"] in ("instant", "deep")
    decision = json.loads((out / "decision.json").read_text())
    assert [entry["point"] for entry in decision["systems"]][1][1] in ("instant", "deep")


@pytest.mark.slow
def test_on_a_squad_sample_the_estimate_counts_configurations_and_the_systems_are_compared(
        tmp_path: Path, standin_for, capsys) -> None:
    """Real paragraphs (SQuAD 2.0) as the pages: the quote-answer recording is priced first (one request per
    question and configuration, nothing sent), recorded, and compared with the quote finder on the same
    questions; the report names the one to ship."""
    from conftest import record, squad_sample
    from quotefinder.evalcmd import main as eval_main

    questions, scenario = squad_sample(tmp_path, 30, 2)
    server = standin_for(scenario)
    pipeline = tmp_path / "qa.yaml"
    pipeline.write_text("system: quote-answer\n", encoding="utf-8")
    qa = tmp_path / "runs" / "squad-quote-answer"
    estimate = [str(questions), "--run", str(qa), "--pipeline", str(pipeline), "--range", "passages=1,3",
                "--estimate", "--price-per-1k-requests", "5"]
    assert eval_main(estimate, env={}) == 0
    said = capsys.readouterr().out
    assert "at most 90 requests (30 question repeat(s) not fully recorded; one request per configuration" in said
    assert "requests at 5 per 1,000: about 0.45, at most 0.45" in said and server.requests == []
    assert record_quote_answer(qa, questions, server, "--range", "passages=1,3") == 0
    assert len(server.requests) == 90
    finder = tmp_path / "runs" / "squad"
    assert record(finder, questions, server) == 0
    out = tmp_path / "which"
    assert main([str(finder), str(qa), "--out", str(out), "--no-plots", "--answer", "0.5:1:0.1"]) == 0
    said = capsys.readouterr().out
    assert "Compared 2 systems on 30 question(s) (synthetic evidence)." in said
    decision = json.loads((out / "decision.json").read_text())
    assert decision["system"]["run"] in (str(finder), str(qa))
    assert f"Which to ship: Ship {decision['system']['run']} " in said


def test_two_runs_of_the_system_are_each_swept_over_what_each_recorded(recorded: Path, tmp_path: Path) -> None:
    other = recorded.parent / "qa-deep"
    if not other.exists():
        with StandIn(load_scenario(TEN_SCENARIO)) as server:
            assert record_quote_answer(other, recorded.parent.parent / "questions" / "ten.yaml", server,
                                       "--range", "passages=2", "--range", "tier=deep_reasoning") == 0
    out = tmp_path / "which"
    assert main([str(recorded), str(other), "--out", str(out), "--no-plots"]) == 0
    points = [entry["point"] for entry in json.loads((out / "decision.json").read_text())["systems"]]
    assert points[1][1] in ("instant", "deep_reasoning") and points[1][0] in (2, 5)


def test_an_answer_of_several_passages_is_judged_on_them_a_verdict_on_the_whole_first() -> None:
    from quotefinder.core.plugin import Quote
    from quotefinder.questions import Question

    def ask(accept=(), verdicts=None) -> Question:
        question = Question("q", "How deep?", "answer", tuple(accept))
        object.__setattr__(question, "verdicts", verdicts or {})
        return question

    quote = Quote("deep [1]\n\nvery deep [2]", "t", "u", None, passages=("deep", "very deep"))
    assert ask(["very"]).judge_quote(quote) is Outcome.CORRECT  # the second passage matches
    assert ask(["shallow"]).judge_quote(quote) is Outcome.WRONG  # none does
    assert ask().judge_quote(quote) is Outcome.UNJUDGED  # no patterns, no verdict
    assert ask(verdicts={"deep": Outcome.WRONG}).judge_quote(quote) is Outcome.UNJUDGED  # one passage left
    assert ask(verdicts={"deep": Outcome.WRONG, "very deep": Outcome.WRONG}).judge_quote(quote) is Outcome.WRONG
    assert ask(verdicts={"very deep": Outcome.CORRECT}).judge_quote(quote) is Outcome.CORRECT
    assert ask(["very"], {quote.text: Outcome.WRONG}).judge_quote(quote) is Outcome.WRONG  # the whole's verdict first
    no_answer = Question("q", "How deep?", "no-answer")
    assert no_answer.judge_quote(quote) is Outcome.WRONG and no_answer.judge_quote(None) is Outcome.NO_ANSWER


def test_a_review_asks_about_each_passage_and_judges_the_answer_with_the_verdicts(tmp_path: Path, standin_for) -> None:
    from conftest import write_questions

    (tmp_path / "questions").mkdir()
    questions = write_questions(tmp_path / "questions" / "two.yaml", """\
        questions:
          - id: trench
            question: How deep is the Mariana Trench?
            expect: answer
          - id: bones
            question: How many bones are in the adult human body?
            expect: answer
            accept: ["206"]
        """)
    server = standin_for(TEN_SCENARIO)
    run = tmp_path / "runs" / "qa"
    assert record_quote_answer(run, questions, server) == 0
    data = ResponseCache(run).require(DEFAULT.request("How deep is the Mariana Trench?", 5, "instant")).data
    passages = [passage["text"] for passage in data["passages"]]
    assert len(passages) >= 2
    asked: list[str] = []

    def answer(prompt: str) -> str:
        asked.append(prompt)
        return "w" if len(asked) == 1 else "c"  # the first passage is wrong, the second correct

    assert main([str(run), "--out", str(tmp_path / "r"), "--no-plots", "--review"], ask=answer) == 0
    assert len(asked) == len(passages) and all("Does this sentence answer" in prompt for prompt in asked)
    saved = (questions.parent / "two.verdicts.yaml").read_text()
    assert all(passage.split()[0] in saved for passage in passages[:2])
    grid = pd.read_csv(tmp_path / "r" / "grid.csv")
    assert grid["correct"].tolist() == [2] and grid["unjudged"].tolist() == [0]
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert "First passage alone: 1 of the 2 correct answers at the recommended cell" in summary
