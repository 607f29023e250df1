"""`python -m benchmarks.store_bench --run RUN --work DIR`: one file per response (`cache.FileStore`)
against the SQLite prototype (`testing.sqlite_store.SQLiteStore`), side by side on one machine, for issue 19.

RUN is a run `python -m benchmarks.bench` recorded (its questions.yaml and scenario.json beside it).
Measured, each store in turn:

1. recording: the first `--record` questions through the stand-in (no latency, no limit, 32 at once) into a
   fresh run, via `Recorder` with the store injected; responses/s (alternating stores, `--rounds` times);
2. replay: `sweep.replay.replay_pairs` over every (question, repeat) of RUN on a 101 x 101 grid's coverage, in
   one process, after dropping the page cache (when permitted) and again warm; and `store.entry` for every
   entry (what a repeated sweep's replay-index check costs);
3. disk: bytes (apparent and allocated) and files of RUN's responses against the same entries in SQLite
   (converted byte for byte: `FileStore.keys()` -> the file's bytes -> `SQLiteStore.load`);
4. crash safety: `--kills` recordings into each store killed with SIGKILL at random moments, each store then
   read whole (corrupt entries, keys that cannot be read), and a last rerun that must resume and complete;
5. git: the recorded runs committed to scratch repositories, 50 questions added and 50 re-recorded; the
   diffs and the repository's growth.

With `--parts replay`, only 2 and 3 (the 100,000-question run). Prints a Markdown table and writes it, with
the raw numbers (results.json), under `--work`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from statistics import median
from typing import Any
from unittest import mock

from quotefinder.core.errors import CorruptEntry
from quotefinder.core.requests import ApiRequest
from quotefinder.questions import load_questions
from quotefinder.record.cache import FileStore, decode_entry
from quotefinder.record.client import ApiClient, RateLimiter, RetryPolicy
from quotefinder.record.received import Received
from quotefinder.record.recorder import QuestionRun, Recorder
from quotefinder.record.rundir import RunRecord
from quotefinder.record.secret import Secret
from quotefinder.record.store import ResponseStore
from quotefinder.sweep import replay as replay_module
from quotefinder.sweep.grid import parse_axis
from quotefinder.sweep.replay import run_system
from quotefinder.testing.sqlite_store import FILE_NAME, SQLiteStore

from .bench import StandInProcess, machine, subset

KINDS = ("files", "sqlite")
PARTS = ("replay", "floor", "record", "crash", "git")
CONCURRENCY = 32  # bench.AS_FAST_AS_IT_GOES


def make_store(kind: str, run: Path) -> ResponseStore:
    if kind == "files":
        return FileStore(run)
    if kind == "sqlite-normal":
        return SQLiteStore(run, synchronous="NORMAL")
    return SQLiteStore(run)


def raw_entry(store: ResponseStore, key: str) -> bytes | None:
    """The saved bytes of `key`, unchecked."""
    if isinstance(store, SQLiteStore):
        return store.raw(key)
    assert isinstance(store, FileStore)
    try:
        return Path(store.root / key[:2] / f"{key}.json").read_bytes()
    except FileNotFoundError:
        return None


# ---- 1. recording --------------------------------------------------------------------------------------------

async def record(store: ResponseStore, questions: Path, base_url: str,
                 on_start: Callable[[], None] = lambda: None) -> tuple[Recorder, list[QuestionRun], float]:
    """Record `questions` into `store` as eval.py does (pass 1 from the store alone, pass 2 the missing ones
    through the stand-in); the recorder, the items and the wall seconds."""
    recorder = Recorder(store, {"has_answer": [(0.0, 1.0), 0.3]})
    started = time.perf_counter()
    items = [recorder.replay(QuestionRun(q)) for q in load_questions(questions).questions]
    pending = [item for item in items if item.missing is not None]
    on_start()
    async with ApiClient(base_url, "bench-key", retry=RetryPolicy(retries=8), limiter=RateLimiter(0)) as client:
        await recorder.record(pending, client, CONCURRENCY, secret=Secret("bench-key"))
    return recorder, items, time.perf_counter() - started


def recording(kinds: Sequence[str], questions: Path, work: Path, base_url: str, rounds: int
              ) -> dict[str, list[float]]:
    """Responses/s of each store, alternating, `rounds` times each; the last round's run stays, for the git
    measurement (work/record-KIND)."""
    rates: dict[str, list[float]] = {kind: [] for kind in kinds}
    for n in range(rounds):
        for kind in kinds:
            run = work / f"record-{kind}"
            shutil.rmtree(run, ignore_errors=True)
            store = make_store(kind, run)
            recorder, items, seconds = asyncio.run(record(store, questions, base_url))
            store.close()
            assert all(item.summary is not None for item in items), f"{kind}: a question was not recorded"
            rates[kind].append(recorder.tally.sent / seconds)
            print(f"  recording, {kind}, round {n + 1}: {recorder.tally.sent} responses in {seconds:.1f} s "
                  f"({rates[kind][-1]:.0f}/s)", flush=True)
    return rates


# ---- 2. replay -----------------------------------------------------------------------------------------------

def drop_caches() -> bool:
    """Drop the page cache (root only); whether it was dropped."""
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return True
    except OSError:
        return False


def replay_timings(run: Path, sqlite_run: Path) -> dict[str, Any]:
    """Seconds to replay every (question, repeat) of `run` with each store, cold and warm, and to look at
    every entry with `store.entry` (a repeated sweep's index check); the same curves from both."""
    record = RunRecord.require(run)
    under_test, config = run_system(record)
    axis = parse_axis("0:1:0.01")
    coverage = {"has_answer": tuple(sorted({*axis.values.tolist(), record.config.has_answer_cutoff}))}
    chosen = (under_test.name, config, record.cache_format)
    pairs = [(text, r) for text in record.texts for r in range(record.repeats)]
    dirs = {"files": run, "sqlite": sqlite_run}
    results: dict[str, Any] = {"pairs": len(pairs)}
    curves: dict[str, list[Any]] = {}
    for kind in KINDS:
        with mock.patch.object(replay_module, "open_store", lambda where, _format=None, k=kind: make_store(k, where)):
            cold = drop_caches()
            started = time.perf_counter()
            replays = replay_module.replay_pairs(dirs[kind], pairs, coverage, chosen)
            first = time.perf_counter() - started
            started = time.perf_counter()
            replay_module.replay_pairs(dirs[kind], pairs, coverage, chosen)
            again = time.perf_counter() - started
        failed = sum(1 for found in replays.values() if isinstance(found, replay_module.Unreplayable))
        keys = [entry[0] for found in replays.values() if isinstance(found, replay_module.Record)
                for entry in found.entries if isinstance(entry, tuple)]
        store = make_store(kind, dirs[kind])
        started = time.perf_counter()
        looked = [store.entry(key) for key in keys]
        check = time.perf_counter() - started
        store.close()
        assert all(found is not None for found in looked)
        curves[kind] = [getattr(found, "curve", None) for found in replays.values()]
        results[kind] = {"first_s": first, "first_cold": cold, "again_s": again, "failed": failed,
                         "entries_read": len(keys), "entry_check_s": check}
        print(f"  replay, {kind}: first {first:.2f} s ({'cold' if cold else 'warm'}), again {again:.2f} s, "
              f"{len(keys)} entries checked in {check:.2f} s, {failed} pairs not replayable", flush=True)
    results["same_curves"] = curves["files"] == curves["sqlite"]
    return results


def read_floor(run: Path, sqlite_run: Path) -> dict[str, float]:
    """Seconds to read and check every entry once, with each store, warm (the second of two passes): the floor
    under any replay."""
    floors = {}
    for kind, where in (("files", run), ("sqlite", sqlite_run)):
        store = make_store(kind, where)
        keys = list(store.keys())
        for _ in range(2):
            started = time.perf_counter()
            for key in keys:
                raw = raw_entry(store, key)
                assert raw is not None
                decode_entry(raw, key)
            floors[kind] = time.perf_counter() - started
        store.close()
    return floors


# ---- 3. disk -------------------------------------------------------------------------------------------------

def convert(run: Path, target: Path, batch: int = 5000) -> tuple[int, float]:
    """RUN's file entries into a fresh SQLite store at `target`, byte for byte; (entries, seconds)."""
    shutil.rmtree(target, ignore_errors=True)
    files, rows = FileStore(run), SQLiteStore(target)
    started = time.perf_counter()
    count = 0
    chunk: list[tuple[str, bytes]] = []
    stored = files.keys()  # a store, not a dict
    for key in stored:
        raw = raw_entry(files, key)
        assert raw is not None
        chunk.append((key, raw))
        if len(chunk) >= batch:
            count += rows.load(chunk)
            chunk = []
    count += rows.load(chunk)
    rows.close()
    return count, time.perf_counter() - started


def disk(path: Path) -> dict[str, int]:
    """Apparent bytes (`du -sb`), allocated bytes (`du -sB1`) and files under `path`."""
    def du(flag: str) -> int:
        found = subprocess.run(["du", flag, str(path)], capture_output=True, text=True, check=True)
        return int(found.stdout.split()[0])

    apparent, allocated = du("-sb"), du("-sB1")
    files = sum(1 for p in path.rglob("*") if p.is_file()) if path.is_dir() else 1
    return {"apparent": apparent, "allocated": allocated, "files": files}


# ---- 4. crash safety -----------------------------------------------------------------------------------------

def child(kind: str, run: Path, questions: Path, base_url: str) -> int:
    """A recording to be killed: says `recording` on stdout when pass 2 starts, and its counts at the end."""
    store = make_store(kind, run)
    recorder, items, _ = asyncio.run(record(store, questions, base_url, lambda: print("recording", flush=True)))
    store.close()
    done = sum(1 for item in items if item.summary is not None)
    print(json.dumps({"sent": recorder.tally.sent, "from_cache": recorder.tally.from_cache,
                      "replaced": recorder.tally.replaced, "done": done, "items": len(items)}), flush=True)
    return 0


def audit(kind: str, run: Path) -> dict[str, int]:
    """Read every entry the store lists: how many, how many are corrupt or cannot be read though listed, and
    the leftovers of killed writers (temporary files; a WAL awaiting recovery)."""
    # before the store is opened (opening a WAL database keeps a -wal file while it is open)
    leftovers = len(list(run.rglob(".*.tmp"))) if kind == "files" else int((run / f"{FILE_NAME}-wal").exists())
    store = make_store(kind, run)
    listed = corrupt = unreadable = 0
    stored = store.keys()  # a store, not a dict
    for key in stored:
        listed += 1
        try:
            raw = raw_entry(store, key)
        except (OSError, CorruptEntry):
            unreadable += 1
            continue
        if raw is None:
            unreadable += 1
            continue
        try:
            entry = decode_entry(raw, key)
            corrupt += entry.get("key") != key
        except CorruptEntry:
            corrupt += 1
    if kind != "files" and (run / FILE_NAME).exists():
        with contextlib.closing(sqlite3.connect(run / FILE_NAME)) as db:  # closed now: a connection left open
            corrupt += db.execute("PRAGMA integrity_check").fetchone()[0] != "ok"  # would keep the next WAL
    store.close()
    return {"listed": listed, "corrupt": corrupt, "unreadable": unreadable, "leftovers": leftovers}


def crash_safety(kinds: Sequence[str], questions: Path, work: Path, base_url: str, kills: int, seed: int
                 ) -> dict[str, Any]:
    """Per store: `kills` recordings killed (SIGKILL) a random 0.1-1.5 s into pass 2, each followed by a full
    audit; then a rerun to the end, which must send only what is missing and finish every question."""
    results: dict[str, Any] = {}
    chance = random.Random(seed)
    for kind in kinds:
        run = work / f"crash-{kind}"
        shutil.rmtree(run, ignore_errors=True)
        command = [sys.executable, "-m", "benchmarks.store_bench", "--child", kind, "--run", str(run),
                   "--questions", str(questions), "--base-url", base_url]
        audits, finished_early = [], 0
        for _ in range(kills):
            process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
            assert process.stdout is not None
            line = process.stdout.readline()
            if line.strip() != "recording":  # nothing left to record
                process.wait()
                finished_early += 1
                continue
            time.sleep(chance.uniform(0.1, 1.5))
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
            else:
                finished_early += 1
            process.wait()
            audits.append(audit(kind, run))
        rerun = subprocess.run(command, capture_output=True, text=True, check=True)
        last = json.loads(rerun.stdout.strip().splitlines()[-1])
        final = audit(kind, run)
        results[kind] = {"killed": len(audits), "finished_before_kill": finished_early,
                         "listed_after_kills": [a["listed"] for a in audits],
                         "corrupt": sum(a["corrupt"] for a in audits),
                         "unreadable": sum(a["unreadable"] for a in audits),
                         "leftovers": max((a["leftovers"] for a in audits), default=0), "rerun": last, "final": final}
        print(f"  crash, {kind}: {results[kind]}", flush=True)
    return results


# ---- 5. git --------------------------------------------------------------------------------------------------

def git(repo: Path, *args: str) -> str:
    command = ["git", "-C", str(repo), "-c", "user.name=bench", "-c", "user.email=bench@example.invalid",
               "-c", "commit.gpgsign=false", "-c", "gc.auto=0", *args]  # no background gc racing ours
    return subprocess.run(command, capture_output=True, text=True, check=True,
                          env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"}).stdout


class Watching:
    """A store that remembers every key it was asked for (to find a question's entries)."""

    def __init__(self, store: ResponseStore) -> None:
        self.store = store
        self.seen: set[str] = set()

    def require(self, request: ApiRequest) -> Received:
        self.seen.add(request.key)
        return self.store.require(request)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def question_keys(store: ResponseStore, questions: Path, first: int, count: int) -> set[str]:
    watching = Watching(store)
    recorder = Recorder(watching, {"has_answer": [(0.0, 1.0), 0.3]})
    for question in load_questions(questions).questions[first : first + count]:
        recorder.replay(QuestionRun(question))
    return watching.seen


def forget(kind: str, run: Path, keys: set[str]) -> None:
    if kind == "files":
        for key in keys:
            (run / "responses" / key[:2] / f"{key}.json").unlink()
        return
    with contextlib.closing(sqlite3.connect(run / FILE_NAME)) as db, db:
        db.executemany("DELETE FROM responses WHERE key = ?", [(key,) for key in keys])


def repo_size(repo: Path) -> dict[str, int]:
    """Bytes of .git as it is (loose objects), and after `git gc` (packed)."""
    loose = disk(repo / ".git")["apparent"]
    git(repo, "gc", "--quiet")
    return {"loose": loose, "packed": disk(repo / ".git")["apparent"]}


def diff_summary(repo: Path) -> dict[str, Any]:
    stat = git(repo, "diff", "--stat", "HEAD~1", "HEAD").strip().splitlines()
    patch = git(repo, "diff", "HEAD~1", "HEAD")
    return {"stat_last_line": stat[-1].strip() if stat else "", "stat_lines": len(stat), "patch_bytes": len(patch),
            "binary": "Binary files" in patch, "sample": next((line for line in stat if "|" in line), "")}


def git_growth(kinds: Sequence[str], questions: Path, work: Path, base_url: str, recorded: int) -> dict[str, Any]:
    """Commit each store's recorded run; add the next 50 questions (new entries) and commit; re-record 50 of the
    recorded ones (their entries rewritten with new request ids and times) and commit."""
    results: dict[str, Any] = {}
    more = subset(questions, recorded + 50, work / f"first-{recorded + 50}.yaml")
    for kind in kinds:
        repo = work / f"git-{kind}"
        shutil.rmtree(repo, ignore_errors=True)
        repo.mkdir(parents=True)
        git(repo, "init", "--quiet")
        shutil.copytree(work / f"record-{kind}", repo / "run")
        git(repo, "add", "-A")
        git(repo, "commit", "--quiet", "-m", "the recorded run")
        sizes = {"initial": repo_size(repo)}
        added, extend = _record_and_commit(kind, repo, more, base_url, "50 more questions")
        sizes["after_adding"] = repo_size(repo)
        store = make_store(kind, repo / "run")
        keys = question_keys(store, more, 0, 50)
        store.close()
        forget(kind, repo / "run", keys)
        rerecorded, again = _record_and_commit(kind, repo, more, base_url, "50 questions recorded again")
        sizes["after_rerecording"] = repo_size(repo)
        results[kind] = {"added_responses": added, "rerecorded_responses": rerecorded, "extend": extend,
                         "rerecord": again, "sizes": sizes}
        print(f"  git, {kind}: {results[kind]}", flush=True)
    return results


def _record_and_commit(kind: str, repo: Path, questions: Path, base_url: str, message: str) -> tuple[int, Any]:
    """Record `questions` into the repository's run (what its store lacks), commit, and say what the commit
    changed: the responses sent, and `diff_summary`."""
    store = make_store(kind, repo / "run")
    recorder, _, _ = asyncio.run(record(store, questions, base_url))
    store.close()
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", message)
    return recorder.tally.sent, diff_summary(repo)


# ---- the report ----------------------------------------------------------------------------------------------

def _mb(size: float) -> str:
    return f"{size / 1e6:.1f} MB"


def table(results: dict[str, Any]) -> Iterator[str]:
    """Markdown rows: | measure | files | SQLite |."""
    yield "| Measure | One file per response | SQLite (WAL, one commit per response) |"
    yield "|---|---:|---:|"
    if "recording" in results:
        rates = results["recording"]
        rounds = len(rates["files"])
        yield (f"| recording {results['recorded']:,} questions through the stand-in (no latency, no limit, "
               f"{CONCURRENCY} at once), responses/s, median of {rounds} (each round) | {median(rates['files']):.0f} "
               f"({', '.join(f'{r:.0f}' for r in rates['files'])}) | {median(rates['sqlite']):.0f} "
               f"({', '.join(f'{r:.0f}' for r in rates['sqlite'])}) |")
        if "sqlite-normal" in rates:
            yield (f"| ... SQLite with `synchronous=NORMAL` (durable across a crash, not a power cut) | | "
                   f"{median(rates['sqlite-normal']):.0f} |")
    for name, found in results.get("scales", {}).items():
        replay, sizes = found["replay"], found["disk"]
        files, rows = replay["files"], replay["sqlite"]
        cold = "cold (page cache dropped)" if files["first_cold"] else "warm (could not drop the page cache)"
        yield (f"| {name}: replay every (question, repeat), 101 x 101 coverage, one process, first pass, {cold} "
               f"| {files['first_s']:.2f} s | {rows['first_s']:.2f} s |")
        yield f"| {name}: ... repeated pass (warm) | {files['again_s']:.2f} s | {rows['again_s']:.2f} s |"
        yield (f"| {name}: `store.entry` for each of the {files['entries_read']:,} entries replayed (a repeated "
               f"sweep's replay-index check) | {files['entry_check_s']:.2f} s | {rows['entry_check_s']:.2f} s |")
        if "floor" in found:
            yield (f"| {name}: read and checksum every entry once (warm) | {found['floor']['files']:.2f} s | "
                   f"{found['floor']['sqlite']:.2f} s |")
        yield (f"| {name}: same curves from both stores / pairs not replayable | {replay['same_curves']} / "
               f"{files['failed']} | {replay['same_curves']} / {rows['failed']} |")
        f, s = sizes["files"], sizes["sqlite"]
        yield (f"| {name}: disk, {found['entries']:,} entries: apparent (`du -sb`) / allocated / files | "
               f"{_mb(f['apparent'])} / {_mb(f['allocated'])} / {f['files']:,} | {_mb(s['apparent'])} / "
               f"{_mb(s['allocated'])} / {s['files']} |")
        yield (f"| {name}: converting the file entries to SQLite (read, check, insert in batches) | | "
               f"{found['convert_s']:.0f} s |")
    if "crash" in results:
        crash = results["crash"]
        for kind in KINDS:
            c = crash[kind]
            rerun = c["rerun"]
            c["summary"] = (f"{c['killed']} kills: {c['corrupt']} corrupt, {c['unreadable']} listed but unreadable; "
                            f"leftovers {c['leftovers']}; rerun sent {rerun['sent']:,}, served {rerun['from_cache']:,} "
                            f"from the store, {rerun['done']}/{rerun['items']} questions done")
        yield (f"| crash safety: {results['crash_questions']:,} questions, SIGKILL at random moments, then every "
               f"entry read | {crash['files']['summary']} | {crash['sqlite']['summary']} |")
    if "git" in results:
        g = results["git"]
        for step, words in (("extend", "50 more questions committed"), ("rerecord", "50 questions re-recorded")):
            cells = []
            for kind in KINDS:
                d = g[kind][step]
                cells.append(f"{d['stat_last_line']}; patch {d['patch_bytes'] / 1e3:.0f} kB"
                             + (" (binary: no content shown)" if d["binary"] else " (readable JSON)"))
            yield f"| git: {words}, `git diff --stat` / patch | {cells[0]} | {cells[1]} |"
        cells = []
        for kind in KINDS:
            sizes = g[kind]["sizes"]
            cells.append(" -> ".join(f"{_mb(sizes[s]['packed'])}" for s in ("initial", "after_adding",
                                                                              "after_rerecording")))
        yield f"| git: .git after `git gc`: initial -> +50 questions -> 50 re-recorded | {cells[0]} | {cells[1]} |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.store_bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run", type=Path, required=True, help="a run bench.py recorded (files)")
    parser.add_argument("--work", type=Path, default=Path("bench-data/stores"))
    parser.add_argument("--record", type=int, default=2000, help="questions recorded per store (default 2000)")
    parser.add_argument("--rounds", type=int, default=2, help="recordings per store, alternating (default 2)")
    parser.add_argument("--crash-questions", type=int, default=1000)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--label", default="", help="what to call RUN in the table (default: its question count)")
    parser.add_argument("--parts", default=",".join(PARTS),
                        help=f"which measurements, of {','.join(PARTS)} (default all; `replay` alone for a large run; "
                             "`git` needs the runs `record` left)")
    parser.add_argument("--child", choices=("files", "sqlite"), help=argparse.SUPPRESS)
    parser.add_argument("--questions", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--base-url", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child, args.run, args.questions, args.base_url)
    work: Path = args.work
    work.mkdir(parents=True, exist_ok=True)
    record_ = RunRecord.require(args.run)
    label = args.label or f"{len(record_.questions):,} questions"
    results: dict[str, Any] = {"machine": machine(), "run": str(args.run), "label": label}
    out = work / "results.json"
    if out.exists():
        results = {**json.loads(out.read_text()), **results}
    parts = set(args.parts.split(","))
    if "replay" in parts:
        print(f"{label}: converting {args.run} to SQLite ...", flush=True)
        sqlite_run = work / f"sqlite-{len(record_.questions)}"
        entries, seconds = convert(args.run, sqlite_run)
        scale = {"entries": entries, "convert_s": seconds,
                 "disk": {"files": disk(args.run / "responses"), "sqlite": disk(sqlite_run / FILE_NAME)}}
        scale["replay"] = replay_timings(args.run, sqlite_run)
        if "floor" in parts:
            scale["floor"] = read_floor(args.run, sqlite_run)
        results.setdefault("scales", {})[label] = scale
        out.write_text(json.dumps(results, indent=1))
    if parts & {"record", "crash", "git"}:
        questions = args.run.parent / "questions.yaml"
        with StandInProcess(args.run.parent / "scenario.json") as standin:
            if "record" in parts:
                print("recording ...", flush=True)
                first = subset(questions, args.record, work / f"first-{args.record}.yaml")
                results["recorded"] = args.record
                results["recording"] = recording((*KINDS, "sqlite-normal"), first, work, standin.base_url,
                                                 args.rounds)
                out.write_text(json.dumps(results, indent=1))
            if "crash" in parts:
                print("crash safety ...", flush=True)
                crash = subset(questions, args.crash_questions, work / f"first-{args.crash_questions}.yaml")
                results["crash_questions"] = args.crash_questions
                results["crash"] = crash_safety(KINDS, crash, work, standin.base_url, args.kills, args.seed)
                out.write_text(json.dumps(results, indent=1))
            if "git" in parts:
                print("git ...", flush=True)
                results["git"] = git_growth(KINDS, questions, work, standin.base_url, results["recorded"])
    rows = "\n".join(table(results))
    out.write_text(json.dumps(results, indent=1))
    (work / "table.md").write_text(rows + "\n")
    print(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
