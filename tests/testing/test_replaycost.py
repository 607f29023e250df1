"""The replay-cost benchmark (BENCHMARKS.md, issue 19 part eleven): its replay from memory is the replay itself, and
the command runs end to end on the demo run (its timings are evidence, not asserted)."""

from __future__ import annotations

from pathlib import Path

import pytest

from quotefinder.record.rundir import RunRecord
from quotefinder.record.store import open_store
from quotefinder.sweep import replay
from quotefinder.sweep.index import INDEX_DIR
from quotefinder.testing import replaycost


def test_the_replay_from_memory_gives_what_the_replay_gives_and_reads_no_file_again(ten: Path) -> None:
    record = RunRecord.require(ten)
    pairs = [(text, r) for text in record.texts for r in range(record.repeats)]
    coverage = replaycost.coverage_of(record)
    assert len(coverage["has_answer"]) == 101  # the default point's 0.3 is on the grid
    chosen = (record.config.system, record.config.pipeline, record.cache_format)
    expected = replay.replay_pairs(ten, pairs, coverage, chosen)
    store = open_store(ten, record.cache_format)
    try:
        served = replaycost.Served(store)
        assert replaycost.served_replays(record, pairs, coverage, served) == expected
        read = len(served.kept)
        assert read == sum(len(entries) for _, entries, _ in expected if entries)

        def refused(request: object) -> object:
            raise AssertionError("a response read again")

        store.read = refused  # type: ignore[method-assign]
        assert replaycost.served_replays(record, pairs, coverage, served) == expected
        assert len(served.kept) == read
    finally:
        store.close()


def test_the_command_times_each_round_with_a_first_sweep_that_finds_no_index(ten: Path, capsys, monkeypatch) -> None:
    timed = replaycost.timed
    found: list[int] = []

    def checked(command: list[str]) -> tuple[float, float]:
        if "quotefinder.sweepcmd" in command:
            found.append(len(list((ten / INDEX_DIR).glob("*.index"))))
        return timed(command)

    monkeypatch.setattr(replaycost, "timed", checked)
    assert replaycost.main(["--run", str(ten), "--rounds", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("round ") == 2 and "x the floor" in out and out.splitlines()[-1].startswith("medians: floor ")
    assert found == [0, 0]  # the second round's too: the first round's sweep wrote one
    assert len(list((ten / INDEX_DIR).glob("*.index"))) == 1
    assert {p.name for p in ten.iterdir()} == {"run.json", "responses", INDEX_DIR}  # the report went elsewhere


@pytest.mark.parametrize("argv", [[], ["--run"]])
def test_the_command_says_what_it_needs(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        replaycost.main(argv)
    assert stopped.value.code == 2 and "--run" in capsys.readouterr().err
