"""The replay index: a repeated sweep reads each question's curves instead of replaying, with results
byte-identical to a sweep without it, and never trusts it over the cache: an entry changed, added or removed
after indexing is replayed (and a torn one reported by path), and a torn or foreign index is ignored."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import record
from quotefinder.sweep import replay
from quotefinder.sweep.index import INDEX_DIR, SUFFIX
from quotefinder.sweepcmd import main
from quotefinder.testing import synthetic

REPORT_FILES = ("decision.json", "grid.csv", "questions.csv", "summary.md", "index.html")


@pytest.fixture
def counted(monkeypatch) -> list[int]:
    """How many (question, repeat) pairs each sweep replays from the cache."""
    replayed: list[int] = []
    original = replay.replay_pairs

    def counting(run_dir, pairs, coverage, chosen):
        replayed.append(len(pairs))
        return original(run_dir, pairs, coverage, chosen)

    monkeypatch.setattr(replay, "replay_pairs", counting)
    return replayed


def sweep(run: Path, out: Path, *options: str) -> int:
    return main([str(run), "--out", str(out), "--jobs", "1", "--bootstrap", "50", *options])


def assert_same_reports(first: Path, second: Path) -> None:
    for name in REPORT_FILES:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_the_demo_swept_with_and_without_the_index_is_byte_identical(ten: Path, tmp_path: Path, counted) -> None:
    assert sweep(ten, tmp_path / "plain", "--no-index") == 0
    assert not (ten / INDEX_DIR).exists()  # --no-index writes none
    assert sweep(ten, tmp_path / "first") == 0
    assert sweep(ten, tmp_path / "again") == 0
    assert counted == [30, 30, 0]  # 10 questions x 3 repeats; the repeated sweep replays nothing
    assert_same_reports(tmp_path / "plain", tmp_path / "first")
    assert_same_reports(tmp_path / "plain", tmp_path / "again")
    assert oct((ten / INDEX_DIR).stat().st_mode & 0o777) == "0o700"


def test_a_generated_run_with_repeats_is_byte_identical_and_another_grid_gets_its_own_index(
        tmp_path: Path, standin_for, counted) -> None:
    questions, scenario = synthetic.write(tmp_path / "data", 30, seed=2)
    run = tmp_path / "run"
    assert record(run, questions, standin_for(scenario), "--repeats", "2") == 0
    assert sweep(run, tmp_path / "plain", "--no-index", "--has-answer", "0:1:0.1") == 0
    assert sweep(run, tmp_path / "first", "--has-answer", "0:1:0.1") == 0
    assert sweep(run, tmp_path / "again", "--has-answer", "0:1:0.1") == 0
    assert sweep(run, tmp_path / "other", "--has-answer", "0.2:0.5:0.05") == 0  # another coverage: replayed
    assert sweep(run, tmp_path / "other-again", "--has-answer", "0.2:0.5:0.05") == 0
    assert sweep(run, tmp_path / "back", "--has-answer", "0:1:0.1") == 0  # the first grid's index is still there
    assert counted == [60, 60, 0, 60, 0, 0]
    assert_same_reports(tmp_path / "plain", tmp_path / "again")
    assert_same_reports(tmp_path / "plain", tmp_path / "back")
    assert_same_reports(tmp_path / "other", tmp_path / "other-again")


def some_entry(run: Path) -> Path:
    return sorted((run / "responses").rglob("*.json"))[7]


def test_an_entry_edited_after_indexing_is_replayed_and_reported_by_path(ten: Path, tmp_path: Path, capsys) -> None:
    assert sweep(ten, tmp_path / "first") == 0
    entry = some_entry(ten)
    entry.write_bytes(entry.read_bytes().replace(b'"status": 200', b'"status": 201'))
    capsys.readouterr()
    assert sweep(ten, tmp_path / "after") == 2
    assert str(entry) in capsys.readouterr().err


def test_an_entry_removed_after_indexing_is_missed_as_without_the_index(ten: Path, tmp_path: Path, capsys) -> None:
    assert sweep(ten, tmp_path / "first") == 0
    some_entry(ten).unlink()
    capsys.readouterr()
    assert sweep(ten, tmp_path / "after") == 2
    with_index = capsys.readouterr().err
    assert sweep(ten, tmp_path / "plain", "--no-index") == 2
    assert capsys.readouterr().err == with_index and "cannot be replayed" in with_index


def test_an_entry_touched_after_indexing_is_replayed_and_changes_nothing(ten: Path, tmp_path: Path, counted) -> None:
    assert sweep(ten, tmp_path / "first") == 0
    entry = some_entry(ten)
    os.utime(entry, ns=(entry.stat().st_atime_ns, entry.stat().st_mtime_ns + 1_000_000))
    assert sweep(ten, tmp_path / "after") == 0
    assert 0 < counted[-1] <= 3  # the one question whose entry changed (in each repeat that read it)
    assert_same_reports(tmp_path / "first", tmp_path / "after")


def _resealed(raw: bytes, change: bytes) -> bytes:
    """The index with `change` made to its header line (the entry count), under a checksum made afresh."""
    _, _, body = raw.partition(b"\n")
    header, _, rest = body.partition(b"\n")
    body = header.replace(b'"entries":', change, 1) + b"\n" + rest
    return hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def _resealed_starts(raw: bytes, first: int, second: int) -> bytes:
    """The index with its first two records' starting entries set to `first` and `second` (where each record's
    entries begin in the entry columns), under a checksum made afresh: sizes that still fit the header."""
    _, _, body = raw.partition(b"\n")
    records = json.loads(body.partition(b"\n")[0])["records"]
    starts = np.frombuffer(body[len(body) - 8 * (records + 1) :], dtype="<i8").copy()
    starts[:2] = first, second
    body = body[: len(body) - 8 * (records + 1)] + starts.tobytes()
    return hashlib.sha256(body).hexdigest().encode() + b"\n" + body


@pytest.mark.parametrize("damage", ["edited", "torn", "garbage", "resealed", "out of range", "not from the first",
                                    "backwards"])
def test_a_damaged_index_is_never_trusted(ten: Path, tmp_path: Path, counted, damage: str) -> None:
    """An index edited by hand (a probability changed, its checksum line left), cut short, not an index at
    all, or with sections that do not fit its header under a fresh checksum: ignored, every pair replayed from the
    cache, the same results, and a good index written in its place."""
    assert sweep(ten, tmp_path / "first") == 0
    [index] = (ten / INDEX_DIR).glob(f"*{SUFFIX}")
    raw = index.read_bytes()
    index.write_bytes({"edited": raw.replace(b"0.9", b"0.1", 1), "torn": raw[: len(raw) // 2],
                       "garbage": b"not an index", "resealed": _resealed(raw, b'"entries":1'),
                       "out of range": _resealed_starts(raw, 0, 10**6),
                       "not from the first": _resealed_starts(raw, 9, 9), "backwards": _resealed_starts(raw, 0, -1),
                       }[damage])
    assert sweep(ten, tmp_path / "after") == 0
    assert counted == [30, 30]
    assert_same_reports(tmp_path / "first", tmp_path / "after")
    assert sweep(ten, tmp_path / "again") == 0 and counted[-1] == 0


def test_a_run_the_sweep_may_not_write_gets_no_index_and_the_same_report(ten: Path, tmp_path: Path) -> None:
    if os.geteuid() == 0:
        (ten / INDEX_DIR).write_text("a file where the index directory would be")  # root ignores permissions
    else:
        ten.chmod(0o500)
    try:
        assert sweep(ten, tmp_path / "r") == 0
        assert sweep(ten, tmp_path / "plain", "--no-index") == 0
    finally:
        ten.chmod(0o700)
    assert_same_reports(tmp_path / "r", tmp_path / "plain")



def test_an_index_written_apart_is_there_when_the_sweep_ends_and_serves_the_next(ten: Path, tmp_path: Path,
                                                                               monkeypatch, counted) -> None:
    """With two jobs on a run large enough (here every run: the threshold lowered), the index is written by a child
    while the analysis and the report go on; sweep.py waits for it (a slow write here), so it is whole when the
    command returns, and the next sweep reads every pair from it, with the same report."""
    monkeypatch.setattr(replay, "PARALLEL_FROM", 1)
    writers = tmp_path / "writers"
    save = replay.ReplayIndex.save

    def saving(self) -> None:
        with writers.open("a") as out:
            out.write(f"{os.getpid()}\n")
        time.sleep(1.5)  # longer than the rest of this sweep: without the wait, no index yet
        save(self)

    monkeypatch.setattr(replay.ReplayIndex, "save", saving)
    assert main([str(ten), "--out", str(tmp_path / "first"), "--jobs", "2", "--bootstrap", "50", "--no-plots"]) == 0
    assert writers.read_text().split() != [str(os.getpid())] and len(writers.read_text().split()) == 1
    assert len(list((ten / INDEX_DIR).glob(f"*{SUFFIX}"))) == 1
    assert not replay._SAVING
    assert sweep(ten, tmp_path / "again", "--no-plots") == 0
    assert counted[-1] == 0  # every pair from the index the child wrote
    for name in ("decision.json", "grid.csv", "questions.csv", "summary.md"):
        assert (tmp_path / "first" / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name


def test_an_index_write_stopped_part_way_leaves_no_file_behind(ten: Path, tmp_path: Path, monkeypatch) -> None:
    """A Ctrl+C while the index is written apart stops the child: no index is half-written and its temporary file
    is removed (a later save also tidies one a killed writer left)."""
    assert sweep(ten, tmp_path / "first") == 0
    [path] = (ten / INDEX_DIR).glob(f"*{SUFFIX}")
    index = replay.ReplayIndex.open(ten, path.stem)  # its records, to be written again
    assert index.records
    path.unlink()
    index.changed = True
    monkeypatch.setattr(os, "fsync", lambda fd: time.sleep(30))  # the child's write stalls, its temporary file there
    replay.save_index(index, apart=True)
    deadline = time.monotonic() + 20
    while not list((ten / INDEX_DIR).glob(".*.tmp")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list((ten / INDEX_DIR).glob(".*.tmp"))
    replay.index_written(stop=True)
    assert not list((ten / INDEX_DIR).iterdir())
    stale = ten / INDEX_DIR / f".{path.name}.{2**22 + 7}.tmp"  # a writer killed with -9, long gone
    stale.write_bytes(b"part")
    monkeypatch.undo()
    index.changed = True
    index.save()
    assert sorted(p.name for p in (ten / INDEX_DIR).iterdir()) == [path.name]
