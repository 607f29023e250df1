"""The replay index: each question's curves, kept beside the cache so that a repeated sweep reads them instead of
replaying every response. Derived, never evidence: deleting it changes nothing but time.

    RUN/replay-index/<key>.index

One file per sweep coverage (`index_key`: the system, its pipeline's digest, the digest of the system's source
code, and the values of each recorded axis the sweep replays for), the most recent `KEEP` kept. Each record is one
(question, repeat): its curve, the evidence of the entries it was replayed from, and those entries (their keys,
sizes and modification times, as the store reports them: `ResponseStore.entry`). A record is used only when every
one of its entries still has that size and modification time (one `stat` each, for the file store); any entry
added, changed or removed makes its question replay again from the cache, where a torn or edited entry is
reported by path as it always is. The file's first line is the SHA-256 of the rest, so a torn or edited index is
never trusted; it, and a file that is not an index of this format, of this system and code, is ignored and
replaced. A run directory the sweep may not write simply gets no index.

After the digest line, a line of JSON (`format`, `key` and the byte lengths of the sections), then the sections:
the curves and evidence as JSON (numbers and a table of strings, never pickled objects: an index in a run
directory someone else made is read as data and cannot run anything), and the entries as columns (the keys, one
per line; the sizes and the modification times as little-endian 64-bit integers; where each record's entries
start, and their total at the end), so that they are read without building a Python object per entry, and
compared with the store's all at once (`entries_unchanged`).
"""

from __future__ import annotations

import contextlib
import hashlib
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from ..pipelines import MISSING, Curve, Piece, Quote, System
from ..record.store import Entry, ResponseStore
from ..storage import private_dir, remove_stale_temporaries, write_private

INDEX_FORMAT = "quotefinder-replay-index/2"
INDEX_DIR = "replay-index"
SUFFIX = ".index"
KEEP = 4  # index files (coverages) kept per run: a team sweeps a few grids, again and again
INTEGERS = np.dtype("<i8")
KEY_LENGTH = 64  # an entry's key: its request's SHA-256, in hexadecimal

Pair = tuple[str, int]  # a question's text and a repeat index


@dataclass(frozen=True)
class Record:
    """One (question, repeat) as replayed: its curve, the evidence of its entries (each kind, with the entry
    that holds it), and the entries it was replayed from: as the replay read them, or, read from an index file,
    the range of that file's entry columns that holds them."""

    curve: Curve
    evidence: Mapping[str, str]
    entries: tuple[Entry, ...] | range


@dataclass(frozen=True)
class Entries:
    """The entry columns of an index file: every record's entries, one after the other."""

    keys: list[str]
    sizes: np.ndarray
    mtimes: np.ndarray

    @classmethod
    def empty(cls) -> Entries:
        return cls([], np.zeros(0, dtype=INTEGERS), np.zeros(0, dtype=INTEGERS))


def entries_unchanged(entries: Entries, store: ResponseStore) -> np.ndarray:
    """(entries,) bool: each entry still there, and as the index recorded it (`store.entry`: one `stat` each, for
    files)."""
    found = [store.entry(key) for key in entries.keys]
    present = np.array([e is not None for e in found], dtype=bool)
    sizes = np.array([-1 if e is None else e[1] for e in found], dtype=INTEGERS)
    mtimes = np.array([-1 if e is None else e[2] for e in found], dtype=INTEGERS)
    return present & (sizes == entries.sizes) & (mtimes == entries.mtimes)


def source_digest(under_test: System) -> str:
    """SHA-256 over the source of the system's package, of the protocol and of this module: a curve made (or
    written) by other code is not this code's curve, whatever the version number says."""
    module = sys.modules[type(under_test).__module__]
    package = Path(module.__file__ or "").parent
    files = sorted(package.glob("*.py")) + [Path(__file__).parent.parent / "pipelines" / "__init__.py",
                                            Path(__file__)]  # and this module: how a curve is written and read
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def index_key(under_test: System, pipeline_digest: str, coverage: Mapping[str, Sequence[float]]) -> str:
    """The index file a sweep reads and writes: one per system, pipeline, code and coverage."""
    data = {"format": INDEX_FORMAT, "system": under_test.name, "pipeline": pipeline_digest,
            "code": source_digest(under_test),
            "coverage": {name: [float(v) for v in values] for name, values in sorted(coverage.items())}}
    return hashlib.sha256(orjson.dumps(data, option=orjson.OPT_SORT_KEYS)).hexdigest()[:32]


# ---- curves as data -----------------------------------------------------------------------------------------


class _Strings:
    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __call__(self, text: str | None) -> int:
        return -1 if text is None else self.index.setdefault(text, len(self.index))

    def table(self) -> list[str]:
        return list(self.index)


def _quote(quote: Quote | None, strings: _Strings) -> list[Any] | None:
    if quote is None:
        return None
    data: list[Any] = [strings(quote.text), strings(quote.title), strings(quote.url), strings(quote.date),
                       quote.score, strings(quote.score_name)]
    if quote.passages or quote.broken:  # (the quote finder's quotes have neither: their index stays as it was)
        data += [[strings(text) for text in quote.passages], strings(quote.broken)]
    return data


def _curve_data(curve: Curve, strings: _Strings) -> list[Any]:
    pieces = [[None if p.missing else [_quote(p.quoted, strings), _quote(p.shown, strings)] for p in segment]
              for segment in curve.pieces]
    return [list(curve.edges), [list(b) for b in curve.bounds], pieces]


def _quote_of(data: list[Any] | None, strings: list[str]) -> Quote | None:
    if data is None:
        return None
    text, title, url, date, score, name, *more = data
    passages, broken = more if more else ([], -1)
    return Quote(strings[text], strings[title], strings[url], strings[date] if date >= 0 else None, score,
                 strings[name], tuple(strings[n] for n in passages), strings[broken] if broken >= 0 else "")


def _curve_of(data: list[Any], strings: list[str]) -> Curve:
    edges, bounds, pieces = data
    return Curve(tuple(float(e) for e in edges), tuple(tuple(float(b) for b in bs) for bs in bounds),
                 tuple(tuple(MISSING if p is None else Piece(_quote_of(p[0], strings), _quote_of(p[1], strings))
                             for p in segment) for segment in pieces))


# ---- the index file -----------------------------------------------------------------------------------------


def index_path(run_dir: Path, key: str) -> Path:
    return Path(run_dir) / INDEX_DIR / f"{key}{SUFFIX}"


@dataclass(frozen=True)
class _Sections:
    """An index file taken apart: the curves' JSON and the entry columns."""

    curves: bytes
    entries: Entries
    starts: np.ndarray  # (records + 1,): record i's entries are [starts[i], starts[i + 1])


def _sections(raw: bytes, key: str) -> _Sections | None:
    """The sections of an index file of `key`, or None when it is torn, edited, or not one this version wrote."""
    digest, _, body = raw.partition(b"\n")
    if hashlib.sha256(body).hexdigest().encode() != digest:
        return None  # torn or edited: never trusted, rebuilt
    header, _, rest = body.partition(b"\n")
    head = orjson.loads(header)
    if not isinstance(head, dict) or head.get("format") != INDEX_FORMAT or head.get("key") != key:
        return None
    lengths = [int(head[name]) for name in ("curves", "keys")]
    count, records = int(head["entries"]), int(head["records"])
    if sum(lengths) + 8 * (2 * count + records + 1) != len(rest):
        return None
    curves, keys = rest[: lengths[0]], rest[lengths[0] : sum(lengths)]
    columns = np.frombuffer(rest, dtype=INTEGERS, offset=sum(lengths))
    starts = columns[2 * count :]
    if starts[0] != 0 or starts[-1] != count or (np.diff(starts) < 0).any():
        return None  # every record's entries in order, together all of them
    if count and len(keys) != (KEY_LENGTH + 1) * count - 1:
        return None
    if keys.translate(None, b"0123456789abcdef\n"):
        return None  # lower-case hexadecimal request keys, one per line: nothing else reaches a path
    names = keys.decode("ascii").split("\n") if count else []
    if len(names) != count or any(len(name) != KEY_LENGTH for name in names):
        return None
    return _Sections(curves, Entries(names, columns[:count], columns[count : 2 * count]), starts)


class ReplayIndex:
    """The records of one index file (`index_key`), read when the sweep starts and written when it changed."""

    def __init__(self, run_dir: Path, key: str, records: dict[Pair, Record] | None = None) -> None:
        self.run_dir, self.key = Path(run_dir), key
        self.records: dict[Pair, Record] = records or {}
        self.entries = Entries.empty()  # the columns that records read from the file point into
        self.changed = False

    @property
    def path(self) -> Path:
        return index_path(self.run_dir, self.key)

    @classmethod
    def open(cls, run_dir: Path, key: str) -> ReplayIndex:
        """The index file of `key` in `run_dir`, or an empty index when there is none, or it is not one this
        version wrote (it is then replaced when the sweep saves)."""
        found = cls(run_dir, key)
        try:
            sections = _sections(found.path.read_bytes(), key)
            if sections is None:
                return found
            data = orjson.loads(sections.curves)
            strings, starts = data["strings"], sections.starts.tolist()
            if len(starts) != len(data["records"]) + 1 or starts[-1] != len(sections.entries.keys):
                return found
            for n, (text, repeat, curve, evidence) in enumerate(data["records"]):
                found.records[(strings[text], repeat)] = Record(_curve_of(curve, strings), dict(evidence),
                                                                range(starts[n], starts[n + 1]))
            found.entries = sections.entries
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            found.records = {}  # no index, or not one of ours: replay everything
        return found

    def usable(self, pairs: Iterable[Pair], store: ResponseStore) -> dict[Pair, Record]:
        """The records of `pairs` whose entries are all as they were when they were indexed (`store.entry`)."""
        changed = ~entries_unchanged(self.entries, store)
        changed_before = np.concatenate([[0], np.cumsum(changed)])  # how many changed entries precede each one
        found = {}
        for pair in pairs:
            record = self.records.get(pair)
            if record is None:
                continue
            span = record.entries
            if isinstance(span, range):
                if changed_before[span.stop] == changed_before[span.start]:
                    found[pair] = record
            elif all(store.entry(entry[0]) == entry for entry in span):
                found[pair] = record
        return found

    def update(self, fresh: Mapping[Pair, Record], keep: Iterable[Pair]) -> None:
        """Add what was replayed now, and keep only the pairs the run records."""
        wanted = set(keep)
        kept = {pair: record for pair, record in self.records.items() if pair in wanted}
        for pair, record in fresh.items():
            if kept.get(pair) != record:
                kept[pair] = record
                self.changed = True
        if len(kept) != len(self.records):
            self.changed = True
        self.records = kept

    def save(self) -> None:
        """Write the index when it changed (atomically, private: it holds page text), keeping the `KEEP` most
        recent index files; a directory the sweep may not write gets none, and nothing is said."""
        if not self.changed:
            return
        strings = _Strings()
        records: list[list[Any]] = []
        keys: list[str] = []
        sizes: list[int] = []
        mtimes: list[int] = []
        starts = [0]
        old = self.entries
        for (text, repeat), r in sorted(self.records.items()):
            records.append([strings(text), repeat, _curve_data(r.curve, strings), sorted(r.evidence.items())])
            if isinstance(r.entries, range):  # read from the file: its columns, as they were
                keys += old.keys[r.entries.start : r.entries.stop]
                sizes += old.sizes[r.entries.start : r.entries.stop].tolist()
                mtimes += old.mtimes[r.entries.start : r.entries.stop].tolist()
            else:
                for key, size, mtime in r.entries:
                    keys.append(key)
                    sizes.append(size)
                    mtimes.append(mtime)
            starts.append(len(keys))
        curves = orjson.dumps({"strings": strings.table(), "records": records})
        names = "\n".join(keys).encode("utf-8")
        header = orjson.dumps({"format": INDEX_FORMAT, "key": self.key, "curves": len(curves), "keys": len(names),
                               "entries": len(keys), "records": len(records)})
        columns = np.array(sizes + mtimes + starts, dtype=INTEGERS)
        body = b"".join([header, b"\n", curves, names, columns.tobytes()])
        with contextlib.suppress(OSError):
            private_dir(self.path.parent)
            write_private(self.path, hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
            older = sorted(self.path.parent.glob(f"*{SUFFIX}"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
            for stale in older[KEEP:]:
                stale.unlink()
            for earlier in self.path.parent.glob("*.json"):  # files of the first format, never read again
                earlier.unlink()
            remove_stale_temporaries(self.path.parent)  # of a writer killed part-way (`replay.save_index`)
