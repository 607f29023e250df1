"""A refresh's drift in words and records (`report.drift`), from the demo run refreshed against the API it was
recorded from: the verdict says the evidence still describes the API, and the console lines, the summary's
section, decision.json's `drift` and the tables all say the same drift."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import ROOT, TEN_SCENARIO, copy_run, env_for
from quotefinder.evalcmd import main as eval_main
from quotefinder.report.drift import (
    drift_console,
    drift_frame,
    drift_markdown,
    drift_record,
    exit_words,
    stages_frame,
    verdict,
)
from quotefinder.standin import StandIn, load_scenario
from quotefinder.sweep.grid import parse_axis
from quotefinder.sweep.session import SweepOptions, run_drift

GRID = parse_axis("0:1:0.25")


@pytest.fixture(scope="module")
def drifted(tmp_path_factory: pytest.TempPathFactory):
    """A refresh of the demo recorded from the API as it was recorded (its repeat jitter kept), and its drift: made
    once for the module's tests, which only read it."""
    ten = copy_run(ROOT / "runs" / "ten", tmp_path_factory.mktemp("drifted") / "runs" / "ten")
    shutil.copytree(ROOT / "questions", ten.parent.parent / "questions")
    server = StandIn(load_scenario(TEN_SCENARIO))
    server.start()
    try:
        new = ten.parent / "refresh"
        assert eval_main(["--refresh", str(ten), "--run", str(new), "--rate", "0", "--retries", "0", "--concurrency",
                          "1", "--sample", "6", "--seed", "2"], env=env_for(server)) == 0
    finally:
        server.stop()
    return ten, run_drift(SweepOptions(new, GRID, GRID))


def test_an_unchanged_api_is_said_to_hold_everywhere(drifted) -> None:
    ten, (result, drift) = drifted
    said = verdict(drift)
    assert said.startswith("The evidence still describes the API: ") and "decisions at the shipped cell" in said
    record = drift_record(drift, result)
    assert record["holds"] and not record["failed"] and record["stages_changed"] == []
    assert Path(record["original"]).resolve() == ten.resolve()
    assert record["shipped"] == [spec.written(v) for spec, v in zip(result.system.axes, drift.point, strict=True)]
    assert 0 <= record["wrong_rate"]["lower"] <= record["wrong_rate"]["upper"] <= 1


def test_the_console_and_the_summary_say_the_same_drift(drifted) -> None:
    _, (result, drift) = drifted
    lines = drift_console(drift, result)
    assert lines[0].startswith(f"Drift against {drift.original} at (") and lines[1] == f"  {verdict(drift)}"
    assert lines[-1] == f"  {exit_words(drift)}"
    assert sum(line.startswith(f"  {s.stage}: {s.asked} requests") for s in drift.stages for line in lines) == len(
        drift.stages)
    markdown = "\n".join(drift_markdown(drift, result))
    assert markdown.startswith("## Drift\n")
    assert all(s.stage in markdown for s in drift.stages)


def test_the_tables_have_a_row_per_stage_and_per_question(drifted) -> None:
    _, (_, drift) = drifted
    assert len(stages_frame(drift)) == len(drift.stages)
    assert len(drift_frame(drift)) == len(drift.questions)


def test_the_monitors_evidence_is_explained_in_plain_words(tmp_path: Path) -> None:
    """Its e-value is named as evidence against the claim the monitor watches, with what 1 and the alarm mean,
    in the summary and in the terminal alike."""
    import io

    from quotefinder.core.registry import system
    from quotefinder.report.console import show_monitor
    from quotefinder.report.drift import monitor_markdown
    from quotefinder.sweep.monitor import Weighted, watch

    monitor = watch("runs/ten", (0.3, 0.6), 0.1, 0.05,
                    [("runs/r1", "2026-12-01", 40, Weighted(0.3, 40.0))], "live")
    axes = tuple(system("quote-finder").axes)
    summary = monitor_markdown(monitor, axes)  # type: ignore[arg-type]
    assert "capital" not in summary and "mixed bets' wealth" not in summary
    assert "| Evidence so far (e-value) |" in summary
    assert "'the wrong-answer rate has stayed at most 0.1': 1 is no evidence either way" in summary
    assert "the alarm sounds when it reaches 1/delta = 20, which, while the rate stays at most 0.1, happens with " \
           "probability at most 0.05" in summary
    out = io.StringIO()
    show_monitor(monitor, axes, tmp_path, out)  # type: ignore[arg-type]
    assert "evidence so far " in out.getvalue() and "(1: none; alarm at 20)" in out.getvalue()
