"""The drawing processes: they end when the sweep ends, however it ends, and their errors come back."""

from __future__ import annotations

import sys

import pytest

import quotefinder.report
from quotefinder.core.errors import ReportError
from quotefinder.report.figures import Figure, PlotAxis
from quotefinder.report.painter import Painter


def test_children_end_on_their_own_when_the_sweep_fails_before_drawing() -> None:
    painter = Painter()
    processes = [child.process for child in painter.children]
    assert processes, "this machine can fork: drawing happens in child processes"
    painter.close()
    assert [process.exitcode for process in processes] == [0] * len(processes)  # ended, not killed


def test_a_child_that_cannot_start_drawing_reports_why(monkeypatch) -> None:
    monkeypatch.delattr(quotefinder.report, "plots", raising=False)  # imported or not by earlier tests,
    monkeypatch.setitem(sys.modules, "quotefinder.report.plots", None)  # the import fails in the children
    painter = Painter()
    painter.start([Figure("t", "x.png", "heatmap", ())])
    with pytest.raises(ReportError, match="could not be drawn: ModuleNotFoundError: import of quotefinder.report.plot"):
        painter.finish()
    assert painter.children == []


def test_a_drawing_error_names_the_file(tmp_path) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the report's directory should be")
    import pandas as pd

    frame = pd.DataFrame({"first": [0.0, 0.0], "second": [0.0, 1.0], "wrong": [1, 2]})
    axes = {"rows": PlotAxis("first", "FIRST"), "columns": PlotAxis("second", "SECOND")}
    with Painter() as painter:
        painter.start([Figure("t", "w.png", "heatmap", (frame, "wrong", blocked / "w.png", {}, "t", "wrong"), axes)])
        with pytest.raises(ReportError, match=r"could not be drawn: cannot write .*/blocked/w.png \(Not a directory\)"):
            painter.finish()
