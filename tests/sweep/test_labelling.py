"""Label only what matters: exactly the questions quoted on the grid that cannot be judged without a person
need a label, labelling the others cannot move the recommendation or the guarantee, and the review asks
for exactly the ones needed."""

from __future__ import annotations

import dataclasses
import io
import random
from pathlib import Path

import numpy as np
import pytest

from conftest import decided, page, random_item, record, replayed_of, write_questions, write_scenario
from quotefinder.questions import Outcome, Question
from quotefinder.sweep.analysis import Settings, analyse, loss_totals
from quotefinder.sweep.grid import parse_axis
from quotefinder.sweep.guarantee import certify
from quotefinder.sweep.verdicts import load_verdicts, verdicts_path
from quotefinder.sweepcmd import main

AXIS = parse_axis("0:1:0.1")


def random_runs(seed: int, questions: int = 14, repeats: int = 2) -> list[list]:
    """Random traces whose questions are sometimes unlabelled, sometimes answer questions without patterns."""
    rng = random.Random(seed)
    runs = []
    for repeat in range(repeats):
        run = [random_item(random.Random(seed * 1000 + repeat * 100 + n), n) for n in range(questions)]
        if runs:
            run = [(first[0], trace) for first, (_, trace) in zip(runs[0], run, strict=True)]
        else:
            run = [(dataclasses.replace(q, expect=None, accept=()) if rng.random() < 0.4 else
                    dataclasses.replace(q, accept=()) if q.expect == "answer" and rng.random() < 0.3 else q, t)
                   for q, t in run]
        runs.append(run)
    return runs


def slow_needs(runs, h, a) -> set[str]:
    """Straight from the definition: quoted at some cell in some repeat, and judging it needs a person."""
    needs = set()
    for n, (question, _) in enumerate(runs[0]):
        quotes = {d.quote.candidate.sentence for run in runs for hv in h for av in a
                  for d, _ in [decided([run[n]], hv, av)[0]] if d.quote is not None}
        if quotes and (question.expect is None or any(question.judge(s) is Outcome.UNJUDGED for s in quotes)):
            needs.add(question.id)
    return needs


@pytest.mark.parametrize("seed", range(8))
def test_exactly_the_questions_quoted_on_the_grid_that_a_person_must_judge_need_a_label(seed: int) -> None:
    runs = random_runs(seed)
    result = analyse(replayed_of(runs), AXIS, AXIS, Settings(folds=0))
    assert {item.question.id for item in result.labels_needed} == slow_needs(runs, AXIS.values, AXIS.values)
    for floor, count in result.label_floors:
        kept = AXIS.values[AXIS.values >= floor - 1e-12]
        assert count == len(slow_needs(runs, AXIS.values, kept))


@pytest.mark.parametrize("seed", range(12))
def test_labelling_the_questions_that_need_no_label_never_moves_the_choice_or_the_guarantee(seed: int) -> None:
    """Whatever labels, patterns and verdicts the unlabelled questions that need no label get (they are
    quoted nowhere on the grid), the recommended cell and the certified cells stay as they are."""
    runs = random_runs(seed, questions=30)
    settings = Settings(folds=0)
    narrow = parse_axis("0.6:1:0.1")  # the range a team would ship: fewer questions are quoted anywhere
    before = analyse(replayed_of(runs), AXIS, narrow, settings)
    needing = {item.question.id for item in before.labels_needed}
    rng = random.Random(seed)
    labelled = 0
    for _ in range(5):
        relabelled = {}
        for question, _ in runs[0]:
            unlabelled = question.expect is None or (question.expect == "answer" and not question.accept)
            if not unlabelled or question.id in needing or rng.random() < 0.3:
                continue  # only questions that lack a label but need none get one
            expect = rng.choice(["answer", "no-answer", None])
            accept = (rf"\bs{rng.randint(1, 3)}\b",) if expect == "answer" and rng.random() < 0.5 else ()
            relabelled[question.id] = dataclasses.replace(question, expect=expect, accept=accept, verdicts={
                f"q{question.id[1:]} sentence s{k}": rng.choice([Outcome.CORRECT, Outcome.WRONG])
                for k in (1, 2, 3)} if expect == "answer" else {})
        labelled += len(relabelled)
        changed = [[(relabelled.get(q.id, q), t) for q, t in run] for run in runs]
        after = analyse(replayed_of(changed), AXIS, narrow, settings)
        assert after.choice.cell == before.choice.cell and after.choice.is_default == before.choice.is_default
        for alpha in (0.2, 0.4):
            certified = [certify(loss_totals(r.tables, narrow.values), len(r.questions), r.repeats, alpha,
                                 0.1).certified for r in (before, after)]
            assert np.array_equal(*certified)
            swept = [analyse(replayed_of(r), AXIS, narrow, dataclasses.replace(settings, max_wrong_rate=alpha))
                     for r in (runs, changed)]  # the sweep's own certificate (each question's first repeat)
            assert np.array_equal(*(r.guarantee.certificate.certified for r in swept))
            assert swept[0].decision.cell == swept[1].decision.cell
    assert labelled  # the claim was put to the test


@pytest.mark.slow
def test_under_a_production_mix_every_unlabelled_question_needs_its_label() -> None:
    """With --answerable-share the labels set every question's weight and class (and the mix's guarantee needs
    them all), so a question quoted nowhere can still move the decision: every unlabelled question is listed,
    quoted or not."""
    narrow = parse_axis("0.6:1:0.1")
    moved = 0
    for seed in range(12):
        runs = random_runs(seed, questions=30)
        settings = Settings(folds=0, answerable_share=0.3, max_wrong_rate=0.5)
        plain = analyse(replayed_of(runs), AXIS, narrow, Settings(folds=0))
        mixed = analyse(replayed_of(runs), AXIS, narrow, settings)
        unlabelled = {q.id for q, _ in runs[0] if q.expect is None}
        listed = {item.question.id for item in mixed.labels_needed if item.missing_expect}
        assert listed == unlabelled
        quiet = unlabelled - {item.question.id for item in plain.labels_needed}  # needing no label without a mix
        if not quiet:
            continue
        # label every unlabelled question that is quoted somewhere, then see what the quiet ones do
        loud = {q.id: rng_label(q.id) for q, _ in runs[0] if q.id in unlabelled - quiet}
        base = [[(dataclasses.replace(q, expect=loud[q.id]) if q.id in loud else q, t) for q, t in run]
                for run in runs]
        before = analyse(replayed_of(base), AXIS, narrow, settings).decision
        done = [[(dataclasses.replace(q, expect="no-answer") if q.id in quiet else q, t) for q, t in run]
                for run in base]
        after = analyse(replayed_of(done), AXIS, narrow, settings).decision
        moved += (after.tuned, after.best_certified) != (before.tuned, before.best_certified)
        assert before.action.value == "label_first"  # unlabelled questions under a mix: label them first
    assert moved  # a never-quoted question's label moved the rule's pick: the mix needs them all


def rng_label(question_id: str) -> str:
    return "answer" if sum(map(ord, question_id)) % 2 else "no-answer"


UNLABELLED = """\
questions:
  - {id: opened, question: When did the bridge open?}
  - {id: colour, question: What colour is the bridge?, expect: answer}
  - {id: ghost, question: Who haunts the bridge?}
"""


@pytest.fixture
def unlabelled_run(tmp_path: Path, standin_for) -> tuple[Path, Path]:
    scenario = {
        "When did the bridge open?": [page("Bridge", "https://bridge.example", "The bridge was opened to traffic "
                                           "in the spring of 1937.", has_answer=0.9, answers=0.8)],
        "What colour is the bridge?": [page("Paint", "https://paint.example", "It is painted a colour called "
                                            "International Orange.", has_answer=0.9, answers=0.7)],
        "Who haunts the bridge?": [page("Myths", "https://myth.example", "Stories about the bridge are told on "
                                        "foggy nights.", has_answer=0.1, answers=0.1)],
    }
    questions = write_questions(tmp_path / "q.yaml", UNLABELLED)
    assert record(tmp_path / "run", questions, standin_for(write_scenario(tmp_path / "s.json", scenario))) == 0
    return tmp_path / "run", questions


def test_the_summary_and_questions_csv_say_which_questions_to_label(unlabelled_run, tmp_path: Path) -> None:
    run, _ = unlabelled_run
    assert main([str(run), "--no-plots", "--out", str(tmp_path / "r"), "--answer", "0.2:1:0.1"]) == 0
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert "**Label these 2 of 3**" in summary and "1 have no `expect`, 1 have quotes" in summary
    assert "3 question(s) swept: 1 answer, 0 no-answer, 2 unlabelled" in summary
    import pandas as pd

    table = pd.read_csv(tmp_path / "r" / "questions.csv").set_index("id")
    assert table.loc["opened", "needs_label"] and table.loc["colour", "needs_label"]
    assert not table.loc["ghost", "needs_label"]  # quoted nowhere from 0.2 up: its label changes nothing
    grid = pd.read_csv(tmp_path / "r" / "grid.csv")
    assert (grid["unlabelled"] == 2).all()


def test_the_review_asks_for_the_label_then_the_verdicts_and_saves_each(unlabelled_run, tmp_path: Path,
                                                                          monkeypatch, capsys) -> None:
    run, questions = unlabelled_run
    monkeypatch.setattr("sys.stdin", io.StringIO("a\nc\nw\n"))  # opened: answer, its quote correct; colour: wrong
    assert main([str(run), "--review", "--no-plots", "--out", str(tmp_path / "r"), "--answer", "0.2:1:0.1"]) == 0
    out = capsys.readouterr().out
    assert "2 question(s) on the grid need a label or a verdict" in out and "[a]nswer / [n]o-answer" in out
    saved = load_verdicts(verdicts_path(questions))
    assert saved.labels == {"When did the bridge open?": "answer"}
    assert saved.verdicts == {
        ("When did the bridge open?", "The bridge was opened to traffic in the spring of 1937."): Outcome.CORRECT,
        ("What colour is the bridge?", "It is painted a colour called International Orange."): Outcome.WRONG,
    }
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert "Label these" not in summary or "quoted nowhere on the grid" in summary
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main([str(run), "--review", "--no-plots", "--out", str(tmp_path / "r"), "--answer", "0.2:1:0.1"]) == 0
    assert "0 question(s) on the grid need a label or a verdict" in capsys.readouterr().out


def test_an_unlabelled_quote_counts_as_wrong_for_the_guarantee(unlabelled_run, tmp_path: Path) -> None:
    run, _ = unlabelled_run
    assert main([str(run), "--no-plots", "--out", str(tmp_path / "r"), "--max-wrong-rate", "0.5"]) == 0
    import pandas as pd

    grid = pd.read_csv(tmp_path / "r" / "grid.csv")
    cell = grid[(grid.has_answer_cutoff == 0.5) & (grid.answer_cutoff == 0.5)].iloc[0]
    assert cell["quoted"] == 2 and cell["unlabelled"] == 2  # the opened quote, unlabelled; colour, unjudged
    assert not cell["certified"]  # two of three questions quoted without a known-right answer
    assert Question("x", "x?", None).judge("Any quote.") is Outcome.UNLABELLED
