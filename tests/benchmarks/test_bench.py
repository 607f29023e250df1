"""The benchmark command runs end to end on a tiny set (its timings are not asserted: they are evidence
for BENCHMARKS.md, not a test)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import bench

pytestmark = pytest.mark.slow  # it records a set and drives the page: about a minute


def test_the_benchmark_runs_and_reports_every_measure(tmp_path: Path, capsys) -> None:
    report = tmp_path / "report.md"
    assert bench.main(["--questions", "20", "--repeats", "1", "--skip-rate", "--work", str(tmp_path / "work"),
                       "--report", str(report)]) == 0
    table = report.read_text()
    for measure in ("load + sweep 101 x 101", "101 x 101 / 1 x 1", "peak memory", "recording all of them",
                    "demo sweep (`runs/ten`, 21 x 21), every file", "every file / `--no-plots`",
                    "20 questions x 5 repeats, every file", "open it / click a cell / filter by outcome / search",
                    "repeated sweep 101 x 101 (the replay index there)"):
        assert measure in table
    assert "Machine:" in table and "cores" in table
    capsys.readouterr()
    assert bench.main(["--questions", "20", "--repeats", "1", "--skip-rate", "--work", str(tmp_path / "work")]) == 0
    out = capsys.readouterr().out
    assert "recording them" not in out  # both recordings were reused ...
    assert "recording all of them" in out.split("| Measure")[-1]  # ... and what the first one cost is still shown
