"""The decision in words and in decision.json (`report.wording`), from a sweep of the demo run: a cell and a point
written as their axes write them, the five lines of the decision, and decision.json's record of the same decision
(its keys, the point to ship, counts that add up to the questions)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from quotefinder.questions import OUTCOMES
from quotefinder.report.wording import (
    cell_words,
    decision_lines,
    decision_record,
    interval_words,
    pipeline_words,
    point_words,
    rate_subject,
    sweep_title,
    written,
)
from quotefinder.sweep.grid import parse_axis
from quotefinder.sweep.session import SweepOptions, run_sweep

GRID = parse_axis("0:1:0.25")
KEYS = {"action", "axes", "recommended", "tuned", "gain", "unjudged_questions", "default", "certified",
        "best_certified", "best_score_cell", "is_default", "max_wrong_rate", "delta", "wrong_rate_bound",
        "wrong_rate_bound_means", "counts", "score", "questions", "repeats", "evidence", "answerable_share",
        "wrong_cost"}


@pytest.fixture
def result(ten: Path):
    return run_sweep(SweepOptions(ten, GRID, GRID), say=lambda _: None)[0]


def test_a_cell_and_a_point_are_written_as_their_axes_write_them(result) -> None:
    assert cell_words(result, (1, 3)) == "(0.25, 0.75)"
    assert point_words(result.system.axes, (0.25, 0.75)) == "(0.25, 0.75)"
    assert written(result, (0.25, 0.75)) == [0.25, 0.75]
    assert sweep_title(result) == "Cutoff sweep"
    assert pipeline_words(result) is None  # the recipe's pipeline goes without saying
    assert rate_subject(result) == ("answers served" if result.repeats > 1 else "questions")


def test_the_decision_is_five_lines_the_action_first(result) -> None:
    lines = decision_lines(result)
    assert len(lines) == 5 and all(lines)
    assert lines[2].startswith("Expected there: ") and lines[2].endswith(" (95% Wilson intervals).")
    for rate in result.rates(result.recommended):
        shown = interval_words(rate)
        assert shown in lines[2]
        assert shown == "n/a (none counted)" or re.fullmatch(
            r"[\d.]+(-[\d.]+)?/[\d.]+ = \d+%(-\d+%)? \[[\d.]+%, [\d.]+%(, effective n [\d.e+]+)?\]", shown), shown


def test_decision_json_records_the_same_decision(result) -> None:
    record = decision_record(result)
    assert set(record) == KEYS
    assert record["recommended"] == written(result, result.decision.point)
    assert record["default"] == written(result, (result.default.h, result.default.a))
    assert record["is_default"] == (record["recommended"] == record["default"])
    assert record["questions"] == len(result.questions) and record["evidence"] == "synthetic"
    assert set(record["counts"]) == {o.value for o in OUTCOMES}
    assert sum(record["counts"].values()) == pytest.approx(len(result.questions))  # each question one outcome
    assert record["axes"] == [spec.heading for spec in result.system.axes]
    assert record["action"] in {"keep", "move", "move_for_safety", "nothing_certified", "label_first"}
    assert record["action"] == result.decision.action.value
