"""The replay-cost benchmark (BENCHMARKS.md, "What a first sweep is up against"): its replay from memory is
the replay itself, its coverage the one a 101 x 101 sweep replays for, and the command runs end to end on the demo
run, leaving nothing behind (its timings are evidence, not asserted)."""

from __future__ import annotations

import gc
import re
from pathlib import Path

import pytest

from benchmarks import replaycost
from benchmarks.bench import BIG_GRID
from quotefinder.record.rundir import RunRecord
from quotefinder.record.store import open_store
from quotefinder.sweep import replay
from quotefinder.sweep.index import index_dir, index_key, index_path
from quotefinder.sweepcmd import main as sweep


def test_its_coverage_is_the_one_a_101_by_101_sweep_replays_for(ten: Path, tmp_path: Path) -> None:
    record = RunRecord.require(ten)
    assert sweep([str(ten), *BIG_GRID, "--no-plots", "--out", str(tmp_path / "report")]) == 0
    under_test, _ = replay.run_system(record)
    key = index_key(under_test, record.config.pipeline_digest, replaycost.coverage_of(ten, record))
    assert [p.name for p in index_dir(ten).glob("*.index")] == [index_path(ten, key).name]


def test_the_replay_from_memory_gives_what_the_replay_gives_and_reads_no_file_again(ten: Path) -> None:
    record = RunRecord.require(ten)
    pairs = [(text, r) for text in record.texts for r in range(record.repeats)]
    coverage = replaycost.coverage_of(ten, record)
    chosen = (record.config.system, record.config.pipeline, record.cache_format)
    expected = replay.replay_pairs(ten, pairs, coverage, chosen)
    store = open_store(ten, record.cache_format)
    try:
        served = replaycost.Served(store)
        assert replaycost.served_replays(record, pairs, coverage, served) == expected
        read = len(served.kept)
        assert read == sum(len(found.entries) for found in expected.values() if isinstance(found, replay.Record))

        def refused(request: object) -> object:
            raise AssertionError("a response read again")

        store.read = refused  # type: ignore[method-assign]
        assert replaycost.served_replays(record, pairs, coverage, served) == expected
        assert len(served.kept) == read
    finally:
        store.close()


@pytest.mark.slow
def test_the_command_times_each_round_with_a_first_sweep_that_finds_no_index(ten: Path, tmp_path: Path, capsys,
                                                                            monkeypatch) -> None:
    timed, cpu = replaycost.timed, replaycost.cpu
    found: list[int] = []
    worked: list[str] = []

    def checked(command: list[str]) -> tuple[float, float]:
        if "quotefinder.sweepcmd" in command:
            found.append(len(list(index_dir(ten).glob("*.index"))))
        return timed(command)

    def counted(work, *args) -> float:  # type: ignore[no-untyped-def]
        worked.append(work.__name__)
        return cpu(work, *args)

    monkeypatch.setattr(replaycost, "timed", checked)
    monkeypatch.setattr(replaycost, "cpu", counted)
    monkeypatch.chdir(tmp_path)  # where a sweep without --out would write its report (reports/ten)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(replaycost.tempfile, "tempdir", None)  # (TMPDIR is read once, then kept)
    assert gc.isenabled()
    assert replaycost.main(["--run", str(ten), "--rounds", "2"]) == 0
    out = capsys.readouterr().out
    rounds = [line for line in out.splitlines() if line.startswith("round ")]
    assert len(rounds) == 2 and out.splitlines()[-1].startswith("medians: floor ")
    for line in rounds:  # floor, replay, pipeline alone, reading (a difference: may be below 0), first sweep
        seconds = [float(x) for x in re.findall(r"(\d+\.\d+) s", line)]
        assert len(seconds) == 5 and all(s >= 0 for s in seconds[:3] + seconds[4:]), line  # printed to 0.01 s
    assert worked == ["replay_pairs", "served_replays"] * 2
    assert found == [0, 0]  # the second round's too: the first round's sweep wrote one
    assert len(list(index_dir(ten).glob("*.index"))) == 1
    assert {p.name for p in ten.iterdir()} == {"run.json", "responses"}  # nothing derived in the run
    assert not (tmp_path / "reports").exists() and not list(scratch.iterdir())  # the report went, then was removed
    assert gc.isenabled()  # as it was


def test_the_command_removes_its_report_when_a_sweep_fails(ten: Path, tmp_path: Path, monkeypatch) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(replaycost.tempfile, "tempdir", None)
    timed = replaycost.timed

    def failing(command: list[str]) -> tuple[float, float]:
        if "quotefinder.sweepcmd" in command:
            raise RuntimeError("the sweep failed")
        return timed(command)

    monkeypatch.setattr(replaycost, "timed", failing)
    with pytest.raises(RuntimeError, match="the sweep failed"):
        replaycost.main(["--run", str(ten), "--rounds", "1"])
    assert not list(scratch.iterdir())


@pytest.mark.parametrize("argv", [[], ["--run"]])
def test_the_command_says_what_it_needs(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        replaycost.main(argv)
    assert stopped.value.code == 2 and "--run" in capsys.readouterr().err
