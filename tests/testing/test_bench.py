"""The benchmark command runs end to end on a tiny set (its timings are not asserted: they are evidence
for BENCHMARKS.md, not a test)."""

from __future__ import annotations

from pathlib import Path

from quotefinder.testing import bench


def test_the_benchmark_runs_and_reports_every_measure(tmp_path: Path, capsys) -> None:
    report = tmp_path / "report.md"
    assert bench.main(["--questions", "20", "--repeats", "1", "--skip-rate", "--work", str(tmp_path / "work"),
                       "--report", str(report)]) == 0
    table = report.read_text()
    for measure in ("load + sweep 101 x 101", "101 x 101 / 1 x 1", "peak memory", "recording all of them"):
        assert measure in table
    assert "Machine:" in table and "cores" in table
    assert bench.main(["--questions", "20", "--repeats", "1", "--skip-rate", "--work", str(tmp_path / "work")]) == 0
    assert "recording all of them" not in capsys.readouterr().out.split("| Measure")[-1]  # the run was reused
