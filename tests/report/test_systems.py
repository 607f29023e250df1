"""`report.systems`: systems.csv holds the Systems object's numbers, the "Which to ship" section renders and says
which test, decision.json's additions, and a question's outcome in every system."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from pathlib import Path

import pandas as pd
import pytest

from conftest import github_html, random_repeats, replayed_of
from quotefinder.questions import OUTCOMES
from quotefinder.report.systems import outcomes_frame, systems_decision, systems_frame, which_to_ship_lines
from quotefinder.report.tables import csv_bytes
from quotefinder.sweep.analysis import Settings, analyse
from quotefinder.sweep.grid import parse_axis
from quotefinder.sweep.systems import Systems, compare_systems

AXIS = parse_axis("0:1:0.1")


def systems_of(seed: int = 5, settings: Settings | None = None, names: tuple[str, ...] = ("runs/a", "runs/b"),
               same: bool = False) -> Systems:
    runs = random_repeats(seed, questions=30, repeats=len(names))
    settings = settings or Settings(folds=0)
    sweeps = [analyse(replayed_of([runs[0] if same else runs[r]], Path(name)), AXIS, AXIS, settings)
              for r, name in enumerate(names)]
    return compare_systems(sweeps, list(names), pipelines=[f"pipe-{r}" for r in range(len(names))])


def test_systems_csv_reads_back_with_the_numbers_of_the_systems_object() -> None:
    found = systems_of()
    data = csv_bytes(systems_frame(found))
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    frame = pd.read_csv(io.BytesIO(data), keep_default_na=False)
    required = ["run", "pipeline", "has_answer_cutoff", "answer_cutoff", "certified", "correct", "wrong", "missed",
                "no_answer", "score", "cv_score", "p_vs_best", "difference_vs_best", "standard_error"]
    assert set(required) <= set(frame.columns)
    assert "mcnemar_p" not in frame.columns  # no certificate
    for row, system, difference in zip(rows, found.systems, found.differences, strict=True):
        assert row["run"] == system.name and row["pipeline"] == system.pipeline
        assert float(row["has_answer_cutoff"]) == pytest.approx(system.point[0])
        assert float(row["answer_cutoff"]) == pytest.approx(system.point[1])
        assert row["certified"] == ""
        for outcome in OUTCOMES:
            assert float(row[outcome.value]) == pytest.approx(system.counts[outcome])
        assert float(row["score"]) == pytest.approx(system.score)
        assert float(row["cv_score"]) == pytest.approx(system.cv_score)
        if difference is None:
            assert row["p_vs_best"] == row["difference_vs_best"] == row["standard_error"] == ""
        else:
            assert float(row["p_vs_best"]) == pytest.approx(difference.p_value)
            assert float(row["difference_vs_best"]) == pytest.approx(difference.mean)
            assert float(row["standard_error"]) == pytest.approx(difference.standard_error)
    assert list(frame["run"]) == ["runs/a", "runs/b"]


def test_with_a_certificate_the_csv_says_certified_and_the_mcnemar_p_value() -> None:
    found = systems_of(settings=Settings(folds=0, max_wrong_rate=0.6))
    frame = pd.read_csv(io.BytesIO(csv_bytes(systems_frame(found))), keep_default_na=False, dtype=str)
    assert set(frame["certified"]) <= {"true", "false"}
    assert "mcnemar_p" in frame.columns
    for value, system, difference in zip(frame["mcnemar_p"], found.systems, found.differences, strict=True):
        test = difference.mcnemar if difference is not None else None
        assert (value == "") == (test is None)
        if test is not None:
            assert float(value) == pytest.approx(test.p_value)
        assert (frame["certified"][found.systems.index(system)] == "true") == bool(system.certified)
    lines = "\n".join(which_to_ship_lines(found))
    assert "Certified points" in lines


def test_the_which_to_ship_section_renders_and_names_the_test() -> None:
    found = systems_of()
    lines = which_to_ship_lines(found)
    assert lines[0] == "## Which to ship"
    best = found.chosen
    assert lines[2].startswith(f"Ship `{best.name}` (pipeline `{best.pipeline}`) at HAS_ANSWER_CUTOFF "
                               f"{best.point_text[0]}, ANSWER_CUTOFF {best.point_text[1]}")
    text = "\n".join(lines)
    assert "two-sided" in text
    assert "repeated cross-validation t-test over 10 x 5 fold means (Bouckaert-Frank)" in text
    assert "In-sample (tuned on these questions" in text
    html = github_html(text)
    assert "<h2>Which to ship</h2>" in html
    assert html.count("<li>") == 4  # cross-validated scores, the cost per question, the other system, in-sample
    assert "<code>runs/a</code>" in html


def test_three_systems_say_bonferroni_and_hostile_names_stay_code() -> None:
    names = ("runs/a", "[x](http://evil.example)", "<img src=x>")
    found = systems_of(names=names)
    text = "\n".join(which_to_ship_lines(found))
    assert "times 3 (Bonferroni over the pairs of systems)" in text
    html = github_html(text)
    assert "<a href" not in html and "<img" not in html


def test_the_same_pipeline_re_recorded_reads_indistinguishable() -> None:
    found = systems_of(same=True)
    text = "\n".join(which_to_ship_lines(found))
    assert "every question scores the same" in text and "indistinguishable (p = 1)" in text
    assert "either would do" not in text
    assert ("It is not shown better than `runs/b`, p = 1 (every question scores the same in `runs/b`): at equal "
            "cost, `runs/a` is kept as the incumbent (the first run given)") in text


def test_the_cost_per_question_is_in_the_csv_the_summary_and_decision_json() -> None:
    runs = random_repeats(5, questions=30, repeats=2)
    sweeps = [analyse(replayed_of([run], Path(name)), AXIS, AXIS, Settings(folds=0))
              for run, name in zip(runs, ("runs/a", "runs/b"), strict=True)]
    sweeps[0].replayed.record = dataclasses.replace(sweeps[0].replayed.record, responses=348, input_tokens=4_500)
    sweeps[1].replayed.record = dataclasses.replace(sweeps[1].replayed.record, responses=534)
    found = compare_systems(sweeps, ["runs/a", "runs/b"])
    frame = pd.read_csv(io.BytesIO(csv_bytes(systems_frame(found))), keep_default_na=False, dtype=str)
    assert [float(v) for v in frame["requests_per_question"]] == [pytest.approx(348 / 30), pytest.approx(534 / 30)]
    assert list(frame["input_tokens_per_question"]) == ["150", ""]  # the second records no input tokens
    text = "\n".join(which_to_ship_lines(found))
    assert "`runs/a` 11.6 requests, 150 input tokens; `runs/b` 17.8 requests, input tokens not recorded" in text
    record = systems_decision(found)
    assert [s["requests_per_question"] for s in record["systems"]] == [pytest.approx(11.6), pytest.approx(17.8)]
    if not any(d is not None and d.better for d in found.differences):
        assert found.chosen.name == "runs/a" and record["system"]["kept_as"] == "cheaper"
        assert "is not shown better, p = " in text and "`runs/a` is kept as the cheaper per question" in text


def test_decision_json_names_the_system_and_its_cell() -> None:
    found = systems_of()
    record = json.loads(json.dumps(systems_decision(found)))
    best = found.chosen
    assert record["system"] == {"run": best.name, "pipeline": best.pipeline,
                                "point": [pytest.approx(best.point[0]), pytest.approx(best.point[1])],
                                "cell": list(best.cell), "kept_as": found.kept_as}
    assert [s["run"] for s in record["systems"]] == [s.name for s in found.systems]
    for listed, system, difference in zip(record["systems"], found.systems, found.differences, strict=True):
        assert listed["cv_score"] == pytest.approx(system.cv_score)
        assert listed["p_vs_best"] == (None if difference is None else pytest.approx(difference.p_value))


def test_outcomes_frame_has_a_column_per_run() -> None:
    found = systems_of(names=("runs/a", "id"))
    frame = outcomes_frame(found)
    assert list(frame.columns) == ["id", "question", "runs/a", "id'"]
    assert list(frame["question"]) == [q.question for q in found.questions]
    assert list(frame["runs/a"]) == [o.value for o in found.systems[0].outcomes]
    changed = dataclasses.replace(found, systems=found.systems)  # frozen, unchanged by the frame
    assert changed == found
