"""The replay index: each question's curves, kept beside the cache so that a repeated sweep reads them instead of
replaying every response. Derived, never evidence: deleting it changes nothing but time.

    RUN/replay-index/<key>.json

One file per sweep coverage (`index_key`: the system, its pipeline's digest, the digest of the system's source
code, and the values of each recorded axis the sweep replays for), the most recent `KEEP` kept. Each record is one
(question, repeat): its curve, the evidence of the entries it was replayed from, and those entries (their keys,
sizes and modification times, as the store reports them: `ResponseStore.entry`). A record is used only when every
one of its entries still has that size and modification time (one `stat` each, for the file store); any entry
added, changed or removed makes its question replay again from the cache, where a torn or edited entry is
reported by path as it always is. The file's first line is the SHA-256 of the rest, so a torn or edited index is
never trusted; it, and a file that is not an index of this format, of this system and code, is ignored and
replaced. A run directory the sweep may not write simply gets no index.

The record's curve is stored as data (numbers and a table of strings), never as pickled objects: an index in a
run directory someone else made is read as JSON, and cannot run anything.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ..pipelines import MISSING, Curve, Piece, Quote, System
from ..record.store import Entry, ResponseStore
from ..storage import private_dir, write_private

INDEX_FORMAT = "quotefinder-replay-index/1"
INDEX_DIR = "replay-index"
KEEP = 4  # index files (coverages) kept per run: a team sweeps a few grids, again and again

Pair = tuple[str, int]  # a question's text and a repeat index


@dataclass(frozen=True)
class Record:
    """One (question, repeat) as replayed: its curve, the evidence of its entries (each kind, with the entry
    that holds it), and the entries it was replayed from."""

    curve: Curve
    evidence: Mapping[str, str]
    entries: tuple[Entry, ...]


def source_digest(under_test: System) -> str:
    """SHA-256 over the source of the system's package, of the protocol and of this module: a curve made (or
    written) by other code is not this code's curve, whatever the version number says."""
    import sys

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
    return [strings(quote.text), strings(quote.title), strings(quote.url), strings(quote.date), quote.score,
            strings(quote.score_name)]


def _curve_data(curve: Curve, strings: _Strings) -> list[Any]:
    pieces = [[None if p.missing else [_quote(p.quoted, strings), _quote(p.shown, strings)] for p in segment]
              for segment in curve.pieces]
    return [list(curve.edges), [list(b) for b in curve.bounds], pieces]


def _quote_of(data: list[Any] | None, strings: list[str]) -> Quote | None:
    if data is None:
        return None
    text, title, url, date, score, name = data
    return Quote(strings[text], strings[title], strings[url], strings[date] if date >= 0 else None, score,
                 strings[name])


def _curve_of(data: list[Any], strings: list[str]) -> Curve:
    edges, bounds, pieces = data
    return Curve(tuple(float(e) for e in edges), tuple(tuple(float(b) for b in bs) for bs in bounds),
                 tuple(tuple(MISSING if p is None else Piece(_quote_of(p[0], strings), _quote_of(p[1], strings))
                             for p in segment) for segment in pieces))


# ---- the index file -----------------------------------------------------------------------------------------


class ReplayIndex:
    """The records of one index file (`index_key`), read when the sweep starts and written when it changed."""

    def __init__(self, run_dir: Path, key: str, records: dict[Pair, Record] | None = None) -> None:
        self.run_dir, self.key = Path(run_dir), key
        self.records: dict[Pair, Record] = records or {}
        self.changed = False

    @property
    def path(self) -> Path:
        return self.run_dir / INDEX_DIR / f"{self.key}.json"

    @classmethod
    def open(cls, run_dir: Path, key: str) -> ReplayIndex:
        """The index file of `key` in `run_dir`, or an empty index when there is none, or it is not one this
        version wrote (it is then replaced when the sweep saves)."""
        found = cls(run_dir, key)
        try:
            raw = found.path.read_bytes()
            digest, _, body = raw.partition(b"\n")
            if hashlib.sha256(body).hexdigest().encode() != digest:
                return found  # torn or edited: never trusted, rebuilt
            data = orjson.loads(body)
            if not isinstance(data, dict) or data.get("format") != INDEX_FORMAT or data.get("key") != key:
                return found
            strings = data["strings"]
            for text, repeat, curve, evidence, entries in data["records"]:
                found.records[(strings[text], repeat)] = Record(
                    _curve_of(curve, strings), dict(evidence), tuple((strings[p], s, m) for p, s, m in entries))
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            found.records = {}  # no index, or not one of ours: replay everything
        return found

    def usable(self, pairs: Iterable[Pair], store: ResponseStore) -> dict[Pair, Record]:
        """The records of `pairs` whose entries are all as they were when they were indexed (`store.entry`)."""
        found = {}
        for pair in pairs:
            record = self.records.get(pair)
            if record is not None and all(store.entry(entry[0]) == entry for entry in record.entries):
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
        records = [[strings(text), repeat, _curve_data(r.curve, strings), sorted(r.evidence.items()),
                    [[strings(p), s, m] for p, s, m in r.entries]]
                   for (text, repeat), r in sorted(self.records.items())]
        data = {"format": INDEX_FORMAT, "key": self.key, "strings": strings.table(), "records": records}
        with contextlib.suppress(OSError):
            private_dir(self.path.parent)
            body = orjson.dumps(data)
            write_private(self.path, hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
            older = sorted(self.path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
            for stale in older[KEEP:]:
                stale.unlink()
