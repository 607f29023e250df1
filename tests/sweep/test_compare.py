"""Comparing a run with a baseline: labels per question, the grid of differences, refusals, exit codes."""

from __future__ import annotations

import csv
import dataclasses
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, copy_run, decided, page, random_repeats, record, replayed_of, write_questions, write_scenario
from quotefinder.questions import Outcome
from quotefinder.recipe.config import RECIPE
from quotefinder.record.rundir import RunRecord
from quotefinder.standin import load_scenario, synthetic
from quotefinder.sweep.analysis import Settings, analyse
from quotefinder.sweep.compare import SIGNIFICANCE, change, comparability, compare, sign_test_of
from quotefinder.sweep.grid import parse_axis
from quotefinder.sweep.probability import sign_test
from quotefinder.sweepcmd import main

QUESTIONS = """\
questions:
  - {id: depth, question: How deep is the lake?, expect: answer, accept: ['\\b1,642\\b']}
  - {id: age, question: How old is the lake?, expect: answer, accept: ['\\b25 million\\b']}
  - {id: colour, question: What colour is the lake's ink?, expect: no-answer}
  - {id: width, question: How wide is the lake?, expect: answer, accept: ['\\b79 km\\b']}
"""


def lake(depth_text: str, depth_answers: float, age_answers: float, width_answers: float) -> dict:
    return {
        "How deep is the lake?": [page("Depth", "https://lake.example/depth", depth_text, answers=depth_answers)],
        "How old is the lake?": [page("Age", "https://lake.example/age",
                                      "The lake formed about 25 million years ago in a rift.", answers=age_answers)],
        "What colour is the lake's ink?": [page("Ink", "https://lake.example/ink",
                                                "Visitors write postcards with blue pens at the shore.",
                                                has_answer=0.2, answers=0.1)],
        "How wide is the lake?": [page("Width", "https://lake.example/width",
                                       "At its widest point the lake spans 79 km from shore to shore.",
                                       answers=width_answers)],
    }


@pytest.fixture
def two_runs(tmp_path: Path, standin_for) -> tuple[Path, Path]:
    """A baseline and a later run of the same questions whose evidence changed."""
    questions = write_questions(tmp_path / "lake.yaml", QUESTIONS)
    before = lake("Its deepest point lies 1,642 metres below the surface.", 0.9, 0.3, 0.9)
    after = lake("Its deepest point lies 1,700 metres below the surface.", 0.9, 0.9, 0.2)
    for name, scenario in (("before", before), ("after", after)):
        server = standin_for(write_scenario(tmp_path / f"{name}.json", scenario))
        assert record(tmp_path / name, questions, server) == 0
    return tmp_path / "after", tmp_path / "before"


C, W, M, N, U = Outcome.CORRECT, Outcome.WRONG, Outcome.MISSED, Outcome.NO_ANSWER, Outcome.UNJUDGED


def test_labels_of_a_change() -> None:
    assert change((C,), (C,)) == "UNCHANGED"
    assert change((C,), (W,)) == "NEW_WRONG"
    assert change((N,), (W,)) == "NEW_WRONG"
    assert change((C,), (M,)) == "NEW_MISSED"
    assert change((M,), (C,)) == "FIXED"
    assert change((W,), (M,)) == "FIXED"
    assert change((W,), (N,)) == "FIXED"
    assert change((U,), (C,)) == "REVIEW"


def test_labels_of_a_change_over_repeats_compare_shares_not_repeat_by_repeat() -> None:
    assert change((C, W, C), (C, C, W)) == "UNCHANGED"  # the same outcomes, in another order
    assert change((C,), (C, C, C)) == "UNCHANGED"  # the runs may hold different numbers of repeats
    assert change((C, C, C), (C, C, W)) == "NEW_WRONG"
    assert change((C, C, W), (C, W, W)) == "NEW_WRONG"
    assert change((C, C, C), (C, M, M)) == "NEW_MISSED"
    assert change((C, C, W), (C, M, M)) == "FIXED"  # score 0 then, 1/3 now: a wrong quote gone outweighs
    assert change((C, W, W), (C, C, W)) == "FIXED"
    assert change((M, M), (C, M, M)) == "FIXED"  # the first two repeats of each: (M, M) against (C, M)
    assert change((C,), (C, W, W)) == "UNCHANGED"  # one repeat against three: only the first of each counts
    assert change((W, C, M), (M,)) == "FIXED" and change((C, W), (W, C, C, C, C)) == "UNCHANGED"
    assert change((C, C, W), (M, M, M)) == "MIXED" == change((M, M, M), (C, C, W))  # the same score at C = 2
    assert change((C, C, W), (M, M, M), wrong_cost=1) == "NEW_MISSED"
    assert change((C, C), (C, U)) == "REVIEW"


@pytest.mark.slow
def test_two_recordings_of_the_same_noisy_pipeline_fail_the_sign_test_no_more_than_its_level() -> None:
    """A seeded simulation: each question's outcome in each repeat drawn afresh from the same
    distribution for both runs (so the runs are exchangeable), three repeats, 100 questions."""
    rng = np.random.default_rng(7)
    draws, failures = 2000, 0
    for _ in range(draws):
        outcomes = rng.choice([C, W, M], p=[0.4, 0.2, 0.4], size=(2, 100, 3))
        kinds = [change(tuple(a), tuple(b)) for a, b in zip(outcomes[0], outcomes[1], strict=True)]
        worse = sum(1 for k in kinds if k.worse)
        better = sum(1 for k in kinds if k == "FIXED")
        failures += sign_test(worse, better) < 0.05
    assert failures / draws <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / draws)


def noise(rng: np.random.Generator, questions: int, repeats: int) -> list[tuple[Outcome, ...]]:
    """Each question's outcome in each repeat, drawn afresh from one distribution (correct 0.4, wrong 0.2,
    missed 0.4): a recording of a pipeline whose outcomes are pure noise."""
    drawn = rng.choice(3, p=[0.4, 0.2, 0.4], size=(questions, repeats))
    return [tuple((C, W, M)[code] for code in row) for row in drawn]


@pytest.mark.slow
@pytest.mark.parametrize(("base_repeats", "new_repeats"), [(1, 3), (3, 1), (2, 5)])
def test_runs_with_unequal_repeats_fail_the_sign_test_no_more_than_its_level(base_repeats, new_repeats) -> None:
    """Pure noise: the baseline and the run drawn from the same distribution, with different numbers of
    repeats, 100 questions. Labelling each question from all its repeats (a share over three against one
    draw) raised the alarm in 44.3% of these very draws at 1 vs 3 and 12.8% at 2 vs 5 (0.1% at 3 vs 1, the
    asymmetry pointing the other way; measured in development); the first m repeats of each: 3.3% at 1 vs 3,
    4.0% at 2 vs 5, 4.2% at 3 vs 1. 2,000 draws: MC s.e. 0.49% at 5%, the bound is 5% + 3 s.e. = 6.5%."""
    rng = np.random.default_rng(base_repeats * 10 + new_repeats)
    draws, alarms = 2000, 0
    for _ in range(draws):
        before, after = noise(rng, 100, base_repeats), noise(rng, 100, new_repeats)
        alarms += sign_test_of(change(b, a) for b, a in zip(before, after, strict=True))[2] < SIGNIFICANCE
    assert alarms / draws <= SIGNIFICANCE + 3 * np.sqrt(SIGNIFICANCE * (1 - SIGNIFICANCE) / draws), alarms / draws


def test_compare_labels_each_question_from_the_first_repeats_of_each_run(tmp_path: Path) -> None:
    """A baseline of two repeats against a run of three: every row holds each run's first two outcomes, its
    label is `change` of those, and the sign test counts those labels."""
    runs = random_repeats(4, questions=30, repeats=5)
    axis = parse_axis("0:1:0.1")
    settings = Settings(folds=0)
    new = analyse(replayed_of(runs[:3], tmp_path / "new"), axis, axis, settings)
    base = analyse(replayed_of(runs[3:], tmp_path / "base"), axis, axis, settings)
    point = (0.3, 0.6)
    comparison = compare(new, base, point)
    assert comparison.repeats_compared == 2 and len(comparison.rows) == 30
    then = [[o for _, o in decided(run, *point)] for run in runs[3:]]
    now = [[o for _, o in decided(run, *point)] for run in runs[:3]]
    relabelled = 0
    for q, row in enumerate(comparison.rows):
        assert row.before == (then[0][q], then[1][q]) and row.after == (now[0][q], now[1][q])
        assert row.kind == change(row.before, row.after, new.wrong_cost)
        every_before, every_after = tuple(r[q] for r in then), tuple(r[q] for r in now)
        # the shares over all repeats, as equally long sequences (each repeated as often as the other is long)
        relabelled += row.kind != change(every_before * 3, every_after * 2, new.wrong_cost)
    assert relabelled  # the run's third repeat would have changed some labels
    counted = sign_test_of(row.kind for row in comparison.rows)
    assert (comparison.worse_questions, comparison.better_questions) == counted[:2]
    assert comparison.p_value == sign_test(comparison.worse_questions, comparison.better_questions)


@pytest.mark.slow
def test_what_got_worse_and_what_got_fixed(two_runs, tmp_path, capsys) -> None:
    after, before = two_runs
    out = tmp_path / "report"
    assert main([str(after), "--baseline", str(before), "--at", "0.3,0.6", "--out", str(out), "--strict"]) == 1
    with open(out / "questions.csv", newline="") as handle:
        changes = {row["id"]: (row["baseline_outcome"], row["change"]) for row in csv.DictReader(handle)}
    assert changes == {"depth": ("correct", "NEW_WRONG"), "age": ("missed", "FIXED"),
                       "colour": ("no_answer", "UNCHANGED"), "width": ("correct", "NEW_MISSED")}
    summary = (out / "summary.md").read_text()
    assert "NEW_WRONG 1, NEW_MISSED 1, FIXED 1, MIXED 0, REVIEW 0, UNCHANGED 1" in summary
    assert "2 worse against 1 fixed, one-sided exact sign test p = 0.5; --strict: FAIL" in summary
    assert (out / "heatmap-score-change.png").exists()
    with open(out / "comparison.csv", newline="") as handle:
        cell = next(r for r in csv.DictReader(handle) if float(r["has_answer_cutoff"]) == 0.3
                    and float(r["answer_cutoff"]) == 0.6)
    assert (cell["correct_change"], cell["wrong_change"], cell["missed_change"], cell["score_change"]) == (
        "-1", "1", "0", "-3")
    # Two worse and one fixed is what noise does half the time: without --strict that is no failure.
    assert main([str(after), "--baseline", str(before), "--at", "0.3,0.6", "--out", str(out), "--no-plots"]) == 0
    assert "p = 0.5 >= 0.05: not worse beyond what pipeline noise explains" in (out / "summary.md").read_text()


def test_a_run_against_itself_is_all_unchanged(two_runs, tmp_path) -> None:
    after, _ = two_runs
    again = shutil.copytree(after, after.with_name(after.name + "-again"))  # itself, recorded again
    assert main([str(after), "--baseline", str(again), "--no-plots", "--out", str(tmp_path / "r")]) == 0
    assert "UNCHANGED 4" in (tmp_path / "r" / "summary.md").read_text()


def variant_config(config: dict) -> dict:
    """run.json's config recorded with another model: its pipeline, its flat copy and its digest all say so."""
    variant = dataclasses.replace(RECIPE, model="another-model")
    return {**config, "model": variant.model, "pipeline": variant.as_json(), "pipeline_digest": variant.digest}


@pytest.mark.parametrize(("edit", "reason"), [
    (lambda r: r.update(evidence="live"), "live evidence against synthetic evidence"),
    (lambda r: r.update(config=variant_config(r["config"])), "different pipelines (model 'another-model' then, "
     "'pplx-decider-v1.1-27b' now"),
    (lambda r: r.update(pipeline_version=99), "different pipeline version"),
    (lambda r: r["questions"].pop(), "different question sets"),
])
def test_runs_that_are_not_comparable_are_refused(two_runs, tmp_path, capsys, edit, reason) -> None:
    after, before = two_runs
    data = json.loads((before / "run.json").read_text())
    edit(data)
    (before / "run.json").write_text(json.dumps(data))
    assert main([str(after), "--baseline", str(before), "--no-plots", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "are not comparable" in err and reason in err


def test_only_a_different_code_version_is_allowed_and_said(two_runs, tmp_path) -> None:
    after, before = two_runs
    data = json.loads((before / "run.json").read_text())
    data["code_version"] = "0.0.1"
    (before / "run.json").write_text(json.dumps(data))
    # allowed, so it compares: the change between the two runs is not beyond noise (exit 0, not 2)
    assert main([str(after), "--baseline", str(before), "--no-plots", "--out", str(tmp_path / "r")]) == 0
    assert "> Caution: recorded by different code versions (0.0.1 then" in (tmp_path / "r" / "summary.md").read_text()


def test_the_demo_run_compares_with_a_copy_of_itself_from_a_clean_checkout(tmp_path: Path) -> None:
    run = ROOT / "runs" / "ten"
    again = copy_run(run, tmp_path / "runs" / "ten")
    assert main([str(run), "--baseline", str(again), "--at", "0.3,0.9", "--no-plots", "--out",
                 str(tmp_path / "r")]) == 0


def test_comparability_of_identical_records_is_clean() -> None:
    record = RunRecord.require(ROOT / "runs" / "ten")
    assert comparability(record, record) == ([], [])


@pytest.mark.slow
def test_a_second_recording_of_the_same_pages_is_noise_not_a_regression(tmp_path, standin_for, capsys) -> None:
    """Record the same synthetic set twice from one stand-in whose answers move when asked again: questions
    flip both ways at the point, which --strict fails on and the sign test does not."""
    questions, scenario_path = synthetic.write(tmp_path / "data", 80, seed=3)
    scenario = load_scenario(scenario_path)
    scenario.repeat_jitter = 0.15
    server = standin_for(scenario)
    for name in ("first", "second"):
        assert record(tmp_path / name, questions, server) == 0
    out = ["--no-plots", "--out", str(tmp_path / "r"), "--at", "0.3,0.6"]
    assert main([str(tmp_path / "second"), "--baseline", str(tmp_path / "first"), *out]) == 0
    summary = (tmp_path / "r" / "summary.md").read_text()
    worse, fixed = (int(x) for x in re.search(r"(\d+) worse against (\d+) fixed", summary).groups())
    assert worse > 0 and fixed > 0  # noise moved questions both ways ...
    assert sign_test(worse, fixed) >= 0.05 and f"p = {sign_test(worse, fixed):.2g}" in summary
    assert main([str(tmp_path / "second"), "--baseline", str(tmp_path / "first"), *out, "--strict"]) == 1


def test_many_questions_getting_worse_fail_the_sign_test(tmp_path, standin_for, capsys) -> None:
    lines, before, after = ["questions:"], {}, {}
    for n in range(10):
        text = f"How tall is tower {n}?"
        lines.append(f"  - {{id: t{n}, question: '{text}', expect: answer, accept: ['\\b{100 + n} m\\b']}}")
        right = f"Tower {n} stands {100 + n} m tall above the square."
        wrong = f"Tower {n} stands {200 + n} m tall above the square."
        before[text] = [page("T", f"https://t{n}.example", right if n < 9 else wrong)]
        after[text] = [page("T", f"https://t{n}.example", wrong if n < 8 else right)]  # 8 worse, 1 fixed
    questions = write_questions(tmp_path / "towers.yaml", "\n".join(lines) + "\n")
    for name, scenario in (("before", before), ("after", after)):
        assert record(tmp_path / name, questions, standin_for(write_scenario(tmp_path / f"{name}.json", scenario))) == 0
    assert main([str(tmp_path / "after"), "--baseline", str(tmp_path / "before"), "--no-plots",
                 "--out", str(tmp_path / "r")]) == 1
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert f"8 worse against 1 fixed, one-sided exact sign test p = {10 / 512:.2g} < 0.05: WORSE" in summary
    assert main([str(tmp_path / "after"), "--baseline", str(tmp_path / "before"), "--no-plots",
                 "--out", str(tmp_path / "r"), "--significance", "0.01"]) == 0
