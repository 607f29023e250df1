"""The replay index: a repeated sweep reads each question's curves instead of replaying, with results
byte-identical to a sweep without it, and never trusts it over the cache: an entry changed, added or removed
after indexing is replayed (and a torn one reported by path), and a torn or foreign index is ignored."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import orjson
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT, copy_run, record
from quotefinder.core.plugin import MISSING, Curve, Piece, Quote
from quotefinder.standin import synthetic
from quotefinder.sweep import index as index_module
from quotefinder.sweep import replay
from quotefinder.sweep.index import SECTIONS, SUFFIX, Record, ReplayIndex, index_dir
from quotefinder.sweepcmd import main

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
    return main([str(run), "--out", str(out), "--jobs", "1", *options])


def assert_same_reports(first: Path, second: Path) -> None:
    for name in REPORT_FILES:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


@pytest.mark.slow
def test_the_demo_swept_with_and_without_the_index_is_byte_identical(ten: Path, tmp_path: Path, counted) -> None:
    assert sweep(ten, tmp_path / "plain", "--no-index") == 0
    assert not index_dir(ten).exists()  # --no-index writes none
    assert sweep(ten, tmp_path / "first") == 0
    assert sweep(ten, tmp_path / "again") == 0
    assert counted == [30, 30, 0]  # 10 questions x 3 repeats; the repeated sweep replays nothing
    assert_same_reports(tmp_path / "plain", tmp_path / "first")
    assert_same_reports(tmp_path / "plain", tmp_path / "again")
    assert oct(index_dir(ten).stat().st_mode & 0o777) == "0o700"


@pytest.mark.fuzz
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


@pytest.mark.slow
def test_an_entry_edited_after_indexing_is_replayed_and_reported_by_path(ten: Path, tmp_path: Path, capsys) -> None:
    assert sweep(ten, tmp_path / "first") == 0
    entry = some_entry(ten)
    entry.write_bytes(entry.read_bytes().replace(b'"status": 200', b'"status": 201'))
    capsys.readouterr()
    assert sweep(ten, tmp_path / "after") == 2
    assert str(entry) in capsys.readouterr().err


@pytest.mark.slow
def test_an_entry_removed_after_indexing_is_missed_as_without_the_index(ten: Path, tmp_path: Path, capsys) -> None:
    assert sweep(ten, tmp_path / "first") == 0
    some_entry(ten).unlink()
    capsys.readouterr()
    assert sweep(ten, tmp_path / "after") == 2
    with_index = capsys.readouterr().err
    assert sweep(ten, tmp_path / "plain", "--no-index") == 2
    assert capsys.readouterr().err == with_index and "cannot be replayed" in with_index


@pytest.mark.faults
def test_an_entry_touched_after_indexing_is_replayed_and_changes_nothing(ten: Path, tmp_path: Path, counted) -> None:
    assert sweep(ten, tmp_path / "first") == 0
    entry = some_entry(ten)
    os.utime(entry, ns=(entry.stat().st_atime_ns, entry.stat().st_mtime_ns + 1_000_000))
    assert sweep(ten, tmp_path / "after") == 0
    assert 0 < counted[-1] <= 3  # the one question whose entry changed (in each repeat that read it)
    assert_same_reports(tmp_path / "first", tmp_path / "after")


def _sealed(body: bytes) -> bytes:
    return hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def _resealed_header(raw: bytes, section: str, rows: int) -> bytes:
    """The index with its header saying `section` has `rows` more rows than it holds, under a fresh checksum."""
    _, _, body = raw.partition(b"\n")
    header, _, rest = body.partition(b"\n")
    head = json.loads(header)
    head["rows"][section] += rows
    return _sealed(json.dumps(head).encode() + b"\n" + rest)


def _located(raw: bytes, section: str) -> tuple[bytes, bytes, int, int, str, int, int]:
    """Where a section lies in an index: its header line and the bytes after it, the section's offset and size
    in those bytes, its dtype, width and row count."""
    _, _, body = raw.partition(b"\n")
    header, _, rest = body.partition(b"\n")
    counts = json.loads(header)["rows"]
    offset = 0
    for name, dtype, width in SECTIONS:
        size = np.dtype(dtype).itemsize * width * counts[name]
        if name == section:
            return header, rest, offset, size, dtype, width, counts[name]
        offset += size + (-size % 8)
    raise KeyError(section)


def _section(raw: bytes, section: str) -> np.ndarray:
    """One section of an index, as rows."""
    _, rest, offset, _, dtype, width, rows = _located(raw, section)
    return np.frombuffer(rest, dtype=dtype, count=width * rows, offset=offset).reshape(rows, width)


def _resealed_section(raw: bytes, section: str, row: int, column: int, value: int) -> bytes:
    """The index with one number of an integer section set to `value`, under a fresh checksum: a file whose
    sections still fit its header, but whose numbers do not fit each other."""
    header, rest, offset, size, _, _, _ = _located(raw, section)
    changed = _section(raw, section).copy()
    changed[row, column] = value
    return _sealed(header + b"\n" + rest[:offset] + changed.tobytes() + rest[offset + size :])


def _wrapped(raw: bytes, column: int) -> bytes:
    """The index with one count column of its records (evidence pairs, entries) set so that its 64-bit sum wraps
    round to the true total: the first two counts 2**63 - 1, the third the first three's total + 2."""
    records = _section(raw, "records")
    first_three = int(records[:3, column].sum())
    damaged = _resealed_section(raw, "records", 0, column, 2**63 - 1)
    damaged = _resealed_section(damaged, "records", 1, column, 2**63 - 1)
    return _resealed_section(damaged, "records", 2, column, first_three + 2)


def _flipped(raw: bytes) -> bytes:
    """The index with one bit of its body changed (three quarters in: a curve's number), its checksum line left."""
    at = len(raw) * 3 // 4
    return raw[:at] + bytes([raw[at] ^ 1]) + raw[at + 1 :]


DAMAGES = {
    "edited": _flipped,
    "torn": lambda raw: raw[: len(raw) // 2],
    "garbage": lambda raw: b"not an index",
    "a section longer than the file": lambda raw: _resealed_header(raw, "bounds", 1),
    "a section shorter than the file": lambda raw: _resealed_header(raw, "edges", -1),
    "a piece out of range": lambda raw: _resealed_section(raw, "segment_pieces", 0, 0, 10**6),
    "a string out of range": lambda raw: _resealed_section(raw, "quotes", 0, 0, -1),
    "entries that do not add up": lambda raw: _resealed_section(raw, "records", 0, 4, 10**6),
    "a negative count": lambda raw: _resealed_section(raw, "records", 1, 3, -1),
    "segments that do not add up": lambda raw: _resealed_section(raw, "records", 0, 2, 2),
    "evidence counts whose 64-bit sum wraps round": lambda raw: _wrapped(raw, 3),
    "entry counts whose 64-bit sum wraps round": lambda raw: _wrapped(raw, 4),
    "a piece with no response that shows a quote": lambda raw: _resealed_section(
        raw, "pieces", int(np.flatnonzero(_section(raw, "pieces")[:, 1] >= 0)[0]), 0, -2),
}


@pytest.mark.slow
@pytest.mark.parametrize("damage", [pytest.param(d, marks=() if d == "torn" else pytest.mark.faults) for d in DAMAGES])
def test_a_damaged_index_is_never_trusted(ten: Path, tmp_path: Path, counted, damage: str) -> None:
    """An index edited by hand (a bit of a curve changed, its checksum line left), cut short, not an index at
    all, or, under a fresh checksum, with sections that do not fit its header or numbers that do not fit each
    other: ignored, every pair replayed from the cache, the same results, and a good index written in its place."""
    assert sweep(ten, tmp_path / "first") == 0
    [index] = index_dir(ten).glob(f"*{SUFFIX}")
    raw = index.read_bytes()
    damaged = DAMAGES[damage](raw)
    assert damaged != raw
    index.write_bytes(damaged)
    assert sweep(ten, tmp_path / "after") == 0
    assert counted == [30, 30]
    assert_same_reports(tmp_path / "first", tmp_path / "after")
    assert sweep(ten, tmp_path / "again") == 0 and counted[-1] == 0


@pytest.mark.faults
def test_an_index_resealed_unchanged_is_trusted(ten: Path, tmp_path: Path, counted) -> None:
    """The damage helpers above change only what they say: the same file resealed is read as before."""
    assert sweep(ten, tmp_path / "first") == 0
    [index] = index_dir(ten).glob(f"*{SUFFIX}")
    raw = index.read_bytes()
    index.write_bytes(_resealed_header(_resealed_header(raw, "bounds", 1), "bounds", -1))
    assert sweep(ten, tmp_path / "after") == 0
    assert counted == [30, 0]


@pytest.mark.faults
def test_a_cache_the_sweep_may_not_write_gets_no_index_and_the_same_report(ten: Path, tmp_path: Path) -> None:
    folder = index_dir(ten)
    assert folder is not None
    folder.parent.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        folder.write_text("a file where the index directory would be")  # root ignores permissions
    else:
        folder.parent.chmod(0o500)
    try:
        assert sweep(ten, tmp_path / "r") == 0
        assert sweep(ten, tmp_path / "plain", "--no-index") == 0
    finally:
        folder.parent.chmod(0o700)
    assert_same_reports(tmp_path / "r", tmp_path / "plain")


@pytest.mark.faults
def test_derived_files_in_the_run_directory_are_never_read_written_or_tidied(ten: Path, tmp_path: Path) -> None:
    """The run's own `replay-index/` (a commit could add one, or a link to someone's folder) is not the index: a
    forged index there, a rewritten kept parse and the files of a linked folder are left exactly as they are, and
    the sweep reports what the evidence says."""
    assert sweep(ten, tmp_path / "honest") == 0
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    for name in ("notes.json", "a.index", "b.questions"):
        (theirs / name).write_text(f"someone's {name}")
    (ten / "replay-index").symlink_to(theirs, target_is_directory=True)
    before = {p.name: p.read_bytes() for p in theirs.iterdir()}
    assert sweep(ten, tmp_path / "linked") == 0
    assert {p.name: p.read_bytes() for p in theirs.iterdir()} == before
    assert_same_reports(tmp_path / "honest", tmp_path / "linked")


@pytest.mark.faults
def test_a_symlinked_cache_folder_is_refused_and_nothing_is_written_through_it(ten: Path, tmp_path: Path) -> None:
    """The run's folder of derived files, or the folder of the runs, made a link (to share a cache, or on purpose):
    nothing is read, written or tidied through it, and the sweep replays everything to the same report."""
    folder = index_dir(ten)
    assert folder is not None
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "keep.json").write_text("someone's file")
    (theirs / "old.index").write_text("someone's index")
    folder.parent.parent.mkdir(parents=True, exist_ok=True)
    folder.parent.symlink_to(theirs, target_is_directory=True)
    assert index_dir(ten) is None
    assert sweep(ten, tmp_path / "linked") == 0
    assert sorted(p.name for p in theirs.iterdir()) == ["keep.json", "old.index"]
    assert sweep(ten, tmp_path / "plain", "--no-index") == 0
    assert_same_reports(tmp_path / "linked", tmp_path / "plain")



def test_an_index_written_apart_is_there_when_the_sweep_ends_and_serves_the_next(ten: Path, tmp_path: Path,
                                                                               monkeypatch, counted) -> None:
    """With two jobs on a run large enough (here every run: the threshold lowered), the index is written by a child
    while the analysis and the report go on; sweep.py waits for it (here the child writes only once the report is
    there, so after the rest of the sweep), so it is whole when the command returns, and the next sweep reads every
    pair from it, with the same report."""
    monkeypatch.setattr(replay, "PARALLEL_FROM", 1)
    writers = tmp_path / "writers"
    report = tmp_path / "first" / "summary.md"
    save = replay.ReplayIndex.save

    def saving(self) -> None:
        with writers.open("a") as out:
            out.write(f"{os.getpid()}\n")
        deadline = time.monotonic() + 60
        while not report.exists():  # the rest of the sweep done: without the wait, no index when it returns
            if time.monotonic() > deadline:
                return  # the report never came: no index, which the test below names
            time.sleep(0.01)
        save(self)

    monkeypatch.setattr(replay.ReplayIndex, "save", saving)
    assert main([str(ten), "--out", str(tmp_path / "first"), "--jobs", "2", "--no-plots"]) == 0
    assert writers.read_text().split() != [str(os.getpid())] and len(writers.read_text().split()) == 1
    assert len(list(index_dir(ten).glob(f"*{SUFFIX}"))) == 1, "the index written apart was not there at the end"
    assert not replay._SAVING
    assert sweep(ten, tmp_path / "again", "--no-plots") == 0
    assert counted[-1] == 0  # every pair from the index the child wrote
    for name in ("decision.json", "grid.csv", "questions.csv", "summary.md"):
        assert (tmp_path / "first" / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name


@pytest.mark.faults
def test_an_index_write_stopped_part_way_leaves_no_file_behind(ten: Path, tmp_path: Path, monkeypatch) -> None:
    """A Ctrl+C while the index is written apart stops the child: no index is half-written and its temporary file
    is removed (a later save also tidies one a killed writer left)."""
    assert sweep(ten, tmp_path / "first") == 0
    [path] = index_dir(ten).glob(f"*{SUFFIX}")
    index = replay.ReplayIndex.open(ten, path.stem)  # its records, to be written again
    assert index.records
    path.unlink()
    index.changed = True
    monkeypatch.setattr(os, "fsync", lambda fd: time.sleep(30))  # the child's write stalls, its temporary file there
    replay.save_index(index, apart=True)
    deadline = time.monotonic() + 20
    while not list(index_dir(ten).glob(".*.tmp")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(index_dir(ten).glob(".*.tmp"))
    replay.index_written(stop=True)
    assert not [p for p in index_dir(ten).iterdir() if p.suffix != ".questions"]  # (the questions kept stay)
    stale = index_dir(ten) / f".{path.name}.{2**22 + 7}.tmp"  # a writer killed with -9, long gone
    stale.write_bytes(b"part")
    monkeypatch.undo()
    index.changed = True
    index.save()
    assert sorted(p.name for p in index_dir(ten).iterdir() if p.suffix != ".questions") == [path.name]


def _random_records(rng: np.random.Generator, count: int) -> dict[tuple[str, int], Record]:
    """Records of every kind a system hands on: quotes with and without a date or a score, of several passages,
    broken ones, the closest candidate shown beside the no-answer line, pieces the replay holds no response for,
    shared quotes, text outside ASCII; entries as the store reports them."""
    texts = ["Zwölf Äpfel", "", "a\nb", "naïve café 🍎", "plain", "x" * 300]
    quotes = [Quote(str(rng.choice(texts)) + str(n), str(rng.choice(texts)), f"https://e.example/{n}",
                    None if n % 3 == 0 else "2024-01-0" + str(n % 9 + 1), None if n % 4 == 0 else float(rng.random()),
                    ["answers", "has_answer", ""][n % 3], tuple(str(rng.choice(texts)) for _ in range(n % 3)),
                    "cites a source it was not given" if n % 5 == 0 else "")
              for n in range(12)]

    def piece() -> Piece:
        kind = int(rng.integers(4))
        if kind == 0:
            return MISSING
        return Piece(quotes[int(rng.integers(len(quotes)))] if kind == 1 else None,
                     quotes[int(rng.integers(len(quotes)))] if kind == 2 else None)

    records = {}
    for n in range(count):
        segments = int(rng.integers(1, 5))
        edges = tuple(sorted(float(e) for e in rng.random(segments - 1)))
        bounds = tuple(tuple(sorted(float(b) for b in rng.random(int(rng.integers(0, 4))))) for _ in range(segments))
        pieces = tuple(tuple(piece() for _ in range(len(b) + 1)) for b in bounds)
        entries = tuple((hashlib.sha256(f"{n}.{k}".encode()).hexdigest(), hashlib.sha256(f"{k}".encode()).hexdigest(),
                         (int(rng.integers(1, 10**9)), int(rng.integers(0, 2**62)), int(rng.integers(0, 2**62)),
                          int(rng.integers(0, 2**64, dtype=np.uint64)), int(rng.integers(0, 2**32))))
                        for k in range(int(rng.integers(0, 4))))
        evidence = {"synthetic": entries[0][0]} if entries and n % 2 else {}
        records[(f"question {n} {rng.choice(texts)}", n % 3)] = Record(Curve(edges, bounds, pieces), evidence,
                                                                        entries)
    return records


@pytest.mark.parametrize("seed", range(5))
def test_an_index_reads_back_every_record_it_wrote(tmp_path: Path, seed: int) -> None:
    """Written and read again, every curve, evidence and entry is as it was, whatever the quotes and pieces hold;
    written again from what was read (the entries then columns of the file), the file is the same bytes."""
    records = _random_records(np.random.default_rng(seed), 60)
    index = ReplayIndex(tmp_path, "k" * 32, dict(records))
    index.changed = True
    index.save()
    again = ReplayIndex.open(tmp_path, "k" * 32)
    assert again.records.keys() == records.keys()
    for pair, written in records.items():
        read = again.records[pair]
        assert read.curve == written.curve and dict(read.evidence) == dict(written.evidence)
        assert isinstance(read.entries, range)
        entries = again.entries
        assert [(entries.keys[i], entries.digests[i].decode(), tuple(entries.stamps[i].tolist()))
                for i in read.entries] == list(written.entries)
    raw = index.path.read_bytes()
    again.changed = True
    again.save()
    assert index.path.read_bytes() == raw
    sections = index_module._sections(raw, "k" * 32)
    start = np.frombuffer(raw, dtype=np.uint8).ctypes.data
    assert sections is not None and all(column.flags.aligned and start <= column.ctypes.data < start + len(raw)
                                        for column in sections.values() if column.size)  # read in place, aligned
    assert (raw.index(b"\n", 65) + 1) % 8 == 0  # spaces after the header bring the sections to a multiple of 8
    header, _, rest = raw.partition(b"\n")[2].partition(b"\n")
    header = header.rstrip()  # as part six wrote it, the JSON alone; one space more where that left them aligned
    header += b" " * (not (65 + len(header) + 1) % 8)
    index.path.write_bytes(_sealed(header + b"\n" + rest))
    assert ReplayIndex.open(tmp_path, "k" * 32).records == again.records  # unaligned sections are read too


@pytest.fixture
def checked_apart(monkeypatch, tmp_path: Path) -> Path:
    """Every index's entries checked apart (whatever their number); the file gets the pid of each process that
    checked them."""
    pids = tmp_path / "checked-by"
    unchanged = index_module._unchanged_in

    def noted(*args: object) -> object:
        with pids.open("a") as out:
            out.write(f"{os.getpid()}\n")
        return unchanged(*args)

    monkeypatch.setattr(index_module, "CHECK_APART_FROM", 1)
    monkeypatch.setattr(index_module, "_unchanged_in", noted)
    return pids


@pytest.mark.faults
def test_entries_checked_apart_find_an_edit_and_a_touch_as_here(ten: Path, tmp_path: Path, counted, capsys,
                                                                 checked_apart: Path) -> None:
    """With two jobs the entries are checked in a child while the records are built; what it finds is what a
    check here finds: a touched entry replays its question, an edited one is reported by its path."""
    assert sweep(ten, tmp_path / "first", "--jobs", "2") == 0
    assert sweep(ten, tmp_path / "again", "--jobs", "2") == 0
    assert counted == [30, 0]
    [checker] = checked_apart.read_text().split()  # the second sweep's check, by a child
    assert int(checker) != os.getpid()
    entry = some_entry(ten)
    os.utime(entry, ns=(entry.stat().st_atime_ns, entry.stat().st_mtime_ns + 1_000_000))
    assert sweep(ten, tmp_path / "touched", "--jobs", "2") == 0
    assert 0 < counted[-1] <= 3
    assert_same_reports(tmp_path / "first", tmp_path / "touched")
    entry.write_bytes(entry.read_bytes().replace(b'"status": 200', b'"status": 201'))
    capsys.readouterr()
    assert sweep(ten, tmp_path / "edited", "--jobs", "2") == 2
    assert str(entry) in capsys.readouterr().err


def _killed(parent: int, sender: object, *rest: object) -> None:
    os.kill(os.getpid(), signal.SIGKILL)  # the child checking the entries killed (kill -9, out of memory)


@pytest.mark.faults
def test_entries_whose_check_apart_dies_are_checked_here(ten: Path, tmp_path: Path, counted, monkeypatch,
                                                         checked_apart: Path) -> None:
    assert sweep(ten, tmp_path / "first", "--jobs", "2") == 0
    monkeypatch.setattr(index_module, "_check_apart", _killed)
    assert sweep(ten, tmp_path / "again", "--jobs", "2") == 0
    assert checked_apart.read_text().split() == [str(os.getpid())]  # checked here instead
    assert counted == [30, 0]
    assert_same_reports(tmp_path / "first", tmp_path / "again")


def _git(where: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(where), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True)


def test_a_forged_index_committed_beside_the_run_cannot_flip_the_gate(tmp_path: Path, monkeypatch) -> None:
    """The attack as a pull request would make it: a rewritten `runs/ten/replay-index/` added with `git add -f` and
    committed, the question file and every cache entry untouched, whose records list no entries, claim live
    evidence, and give the question quoted wrong at the default the curve of one that says "no answer" there. On
    a fresh clone of that commit the gate at the default still fails (exit 1) on synthetic evidence; and the same
    records put where the sweep keeps its own index (the user's cache) are not used either: a record that lists no
    entry is never "unchanged"."""
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "runs" / "ten", repo / "runs" / "ten", ignore=shutil.ignore_patterns("replay-index"))
    shutil.copytree(ROOT / "questions", repo / "questions")
    _git(tmp_path, "init", "-q", str(repo))
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "the demo")
    run = repo / "runs" / "ten"
    gate = ["--at", "0.3,0.6", "--max-wrong", "0", "--no-plots"]
    assert sweep(run, tmp_path / "honest", *gate) == 1
    [path] = index_dir(run).glob(f"*{SUFFIX}")
    honest = ReplayIndex.open(run, path.stem).records
    rows = pd.read_csv(tmp_path / "honest" / "questions.csv")
    victim = rows[rows.default_outcome == "wrong"].question.iloc[0]
    donor = rows[(rows.expect == "no-answer") & (rows.default_outcome == "no_answer")].question.iloc[0]
    forged = {(text, repeat): Record(honest[(donor if text == victim else text, repeat)].curve, {"live": "forged"}, ())
              for text, repeat in honest}
    written = ReplayIndex(run, path.stem, forged)
    written.changed = True
    with monkeypatch.context() as patched:  # the forger writes it into the run directory, as the old code kept it
        patched.setattr(index_module, "index_dir", lambda run_dir: Path(run_dir) / "replay-index")
        written.save()
    assert (run / "replay-index" / path.name).exists()
    _git(repo, "add", "-f", "runs/ten/replay-index")
    _git(repo, "commit", "-q", "-m", "speed up CI")
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(repo), str(clone))
    cloned = clone / "runs" / "ten"
    assert (cloned / "replay-index" / path.name).exists()
    assert sweep(cloned, tmp_path / "after", *gate) == 1
    summary = (tmp_path / "after" / "summary.md").read_text()
    assert "FAIL at (0.3, 0.6)" in summary and "evidence **synthetic**" in summary
    placed = ReplayIndex(cloned, path.stem, forged)  # where the sweep keeps its own: still never used
    placed.changed = True
    placed.save()
    assert sweep(cloned, tmp_path / "again", *gate) == 1
    assert "evidence **synthetic**" in (tmp_path / "again" / "summary.md").read_text()


# ---- an index trusted no more than git trusts its own ----------------------------------------------------------

GATE = ("--at", "0.3,0.6", "--max-wrong", "0", "--no-plots")


def _outcome(run: Path, out: Path, cache: Path | None, monkeypatch, capsys) -> tuple[int, dict[str, bytes] | str]:
    """A gated sweep of `run` (with the user's cache, or with `cache`, a new empty one): its exit status and its
    report's files, or its error when it made none."""
    with monkeypatch.context() as patched:
        if cache is not None:
            patched.setenv("QUOTEFINDER_CACHE_DIR", str(cache))
        code = sweep(run, out, *GATE)
    err = capsys.readouterr().err
    if code == 2:
        return code, err.replace(str(out), "OUT")
    files = {name: (out / name).read_bytes().replace(str(out).encode(), b"OUT")
             for name in ("decision.json", "grid.csv", "questions.csv", "summary.md")}
    return code, files


def _probabilities(raw: bytes) -> list[tuple[int, int]]:
    """Where each probability the pipeline reads (`noul`: has_answer, or a compared candidate's) lies in an entry."""
    return [found.span() for found in re.finditer(rb'(?<="noul": )0\.\d+', raw)]


def _edit(path: Path, rng: np.random.Generator, torn: bool) -> bool:
    """Move one probability of the entry at `path` across the middle (0.8 becomes 0.0, 0.274 becomes 0.974: the
    same length), with its old times put back (`touch -r`): under a fresh checksum (different valid bytes), or `torn`
    (the checksum left as it was). False when the entry holds no probability."""
    from quotefinder.record.cache import decode_entry, encode_entry

    raw = path.read_bytes()
    spans = _probabilities(raw)
    if not spans:
        return False
    start = spans[int(rng.integers(len(spans)))][0] + 2  # the first digit after "0."
    edited = raw[:start] + (b"0" if raw[start : start + 1] >= b"5" else b"9") + raw[start + 1 :]
    if not torn:
        edited = encode_entry(orjson.loads(b"{\n" + edited.split(b",\n", 1)[1]))
        if len(edited) != len(raw):  # (a number orjson writes otherwise: 0.90 as 0.9)
            return False
        decode_entry(edited, path)
    found = path.stat()
    with path.open("r+b") as handle:  # in place: the same inode, as an editor that writes back does
        handle.write(edited)
    os.utime(path, ns=(found.st_atime_ns, found.st_mtime_ns))
    return True


def _swapped(run: Path, rng: np.random.Generator) -> None:
    """Another run put at `run`'s path (the same run.json, some entries with other valid bytes of the same length,
    every file's times those of the run it replaces): the run moved away, the other moved in."""
    other = run.with_name(f"{run.name}-other")
    shutil.copytree(run, other)
    for path in rng.choice(sorted(other.glob("responses/*/*.json")), 5, replace=False):
        _edit(path, rng, torn=False)
    for path in other.rglob("*"):
        found = (run / path.relative_to(other)).stat()
        os.utime(path, ns=(found.st_atime_ns, found.st_mtime_ns))
    run.rename(run.with_name(f"{run.name}-moved-away"))
    other.rename(run)


def _attack(run: Path, rng: np.random.Generator, kind: str) -> None:
    entries = sorted(run.glob("responses/*/*.json"))
    if kind == "swap":
        _swapped(run, rng)
        return
    while not _edit(entries[int(rng.integers(len(entries)))], rng, torn=kind == "torn"):
        pass


@pytest.mark.parametrize("kind", ["valid", "torn", "swap"])
@pytest.mark.parametrize("racy", [True, False], ids=["racy", "stamped"])
def test_an_edited_entry_never_hides_behind_the_index(ten: Path, tmp_path: Path, monkeypatch, capsys, kind: str,
                                                      racy: bool) -> None:
    """Different valid bytes of the same length with the old times put back, an entry torn to the same length, or
    another run swapped in at the same path: after the index was written, a sweep says what a sweep with an empty
    cache says (the torn entry reported by path), whether the entry changed within the racy window (checked by its
    content) or after it (its stamp: the change time moved, or the inode is another)."""
    if not racy:
        monkeypatch.setattr(index_module, "RACY", 0)
    rng = np.random.default_rng(7)
    assert sweep(ten, tmp_path / "indexed", *GATE) in (0, 1)
    time.sleep(0.05)  # (past the file system's clock tick: a stamp can show the change)
    for n in range(3):
        _attack(ten, rng, kind)
        assert _outcome(ten, tmp_path / f"after-{n}", None, monkeypatch, capsys) == _outcome(
            ten, tmp_path / f"fresh-{n}", tmp_path / f"empty-{n}", monkeypatch, capsys)
        if kind == "swap":
            shutil.rmtree(ten.with_name(f"{ten.name}-moved-away"))


@pytest.mark.fuzz
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(attacks=st.lists(st.tuples(st.sampled_from(["valid", "torn", "swap"]), st.integers(0, 2**32 - 1)),
                        min_size=1, max_size=4),
       racy=st.booleans())
def test_random_edits_leave_every_sweep_equal_to_one_with_an_empty_cache(monkeypatch, capsys, attacks, racy) -> None:
    """The property: whatever edits follow one another (same length, restored times, swapped runs at one path), with
    a sweep between them, every sweep that reads the index reports what one with an empty cache reports."""
    with tempfile.TemporaryDirectory() as scratch, monkeypatch.context() as patched:
        if not racy:
            patched.setattr(index_module, "RACY", 0)
        root = Path(scratch)
        run = copy_run(ROOT / "runs" / "ten", root / "runs" / "ten")
        shutil.copytree(ROOT / "questions", root / "questions")
        patched.setenv("QUOTEFINDER_CACHE_DIR", str(root / "cache"))
        assert sweep(run, root / "indexed", *GATE) in (0, 1)
        for n, (kind, seed) in enumerate(attacks):
            time.sleep(0.02)
            _attack(run, np.random.default_rng(seed), kind)
            assert _outcome(run, root / f"after-{n}", None, patched, capsys) == _outcome(
                run, root / f"fresh-{n}", root / f"empty-{n}", patched, capsys)
            shutil.rmtree(run.with_name(f"{run.name}-moved-away"), ignore_errors=True)
