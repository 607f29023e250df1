"""The replay index: each question's curves, kept so that a repeated sweep reads them instead of replaying every
response. Derived, never evidence: deleting it changes nothing but time.

    <the user's cache>/runs/<run>/replay-index/<key>.index   (`storage.derived_dir`)

It lives in the user's cache directory, never in the run directory: a commit could put an index there (or a link
to someone's folder), and a sweep must trust only the evidence and the question file, so an index, a kept parse or
a link found in a run directory is never read, written or tidied.

One file per sweep coverage (`index_key`: the system, its pipeline's digest, the digest of the system's source
code, and the values of each recorded axis the sweep replays for), the most recent `KEEP` kept. Each record is one
(question, repeat): its curve, the evidence of the entries it was replayed from, and those entries (their keys,
checksums and stamps, as the store saw them when the replay read them: `ResponseStore.read`). An entry is trusted as
strictly as git trusts its index: unchanged only when its stamp (size, modification and change times, inode and
device: one `lstat` each, for the file store, `ResponseStore.entry`) is the one recorded, so that an edit to the same
length with the old times put back (`touch -r` cannot put back the change time), or another run moved to the same
path (other inodes), is a change. An entry that changed less than `RACY` before the replay read it could change
again within the same tick of the file system's clock without its stamp showing it (git's "racy" entries): such an
entry is recorded as racy and checked by its content (`ResponseStore.checksum`: read whole, its checksum verified
and compared with the one recorded) until a replay that starts `RACY` after its last change stamps it again. A
record is used only when every one of its entries is unchanged; any entry added, changed or removed makes its
question replay again from the cache, where a torn or edited entry is reported by path as it always is. The
file's first line is the SHA-256 of the rest, so a torn or edited index is never trusted; it, and a file that is not
an index of this format, of this system and code, is ignored and replaced. A run directory the sweep may not write
simply gets no index.

After the digest line, a line of JSON (`format`, `key` and the row count of each section; spaces after it bring the
sections to a multiple of 8 bytes from the file's start, so that they are read where they lie), then the sections
(`SECTIONS`), each a column of numbers (little-endian) or of UTF-8 bytes, padded to 8 bytes: never pickled objects,
so that an index in a run directory someone else made is read as data and cannot run anything. Every distinct
string, quote and piece is stored once and named by number, the curves' edges and bounds as 64-bit floats
(exactly), and the entries as columns, so that reading them builds each distinct object once and compares the
entries with the store's all at once (`entries_unchanged`); every count and number is checked against the others
before anything is built (`_consistent`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from ..core.plugin import MISSING, Curve, Piece, Quote, System
from ..core.storage import (
    derived_dir,
    private_dir,
    read_private,
    remove_stale_temporaries,
    write_private,
)
from ..record.store import Entry, ResponseStore, Stamp, open_store
from .apart import Apart, answer

INDEX_FORMAT = "quotefinder-replay-index/4"
SUFFIX = ".index"
KEEP = 4  # index files (coverages) kept per run: a team sweeps a few grids, again and again
INTEGERS = np.dtype("<i8")
KEY_LENGTH = 64  # an entry's key: its request's SHA-256, in hexadecimal
RACY = 3_000_000_000  # ns: more than any file system's clock tick (FAT's 2 s) between a change and the replay
CHECK_APART_FROM = 20_000  # entries (about 2,000 questions); fewer are checked here, quicker than a child starts

Pair = tuple[str, int]  # a question's text and a repeat index


@dataclass(frozen=True)
class Record:
    """One (question, repeat) as replayed: its curve, the evidence of its entries (each kind, with the entry
    that holds it), and the entries it was replayed from: as the replay read them, or, read from an index file,
    the range of that file's entry columns that holds them."""

    curve: Curve
    evidence: Mapping[str, str]
    entries: tuple[Entry, ...] | range


WORDS = np.dtype("<u8")  # a stamp's numbers, each as 64 bits (an inode number can use all of them)
WORD = (1 << 64) - 1


@dataclass(frozen=True)
class Entries:
    """The entry columns of an index file: every record's entries, one after the other."""

    joined: str  # their keys, `KEY_LENGTH` characters each, one after the other
    digests: np.ndarray  # (entries,) S64: the SHA-256 each entry's checksum line held
    stamps: np.ndarray  # (entries, 5) <u8: each stamp (`store.Stamp`), every number as 64 bits
    racy: np.ndarray  # (entries,) bool: changed too close to its stamping for the stamp to vouch for it

    @classmethod
    def empty(cls) -> Entries:
        return cls("", np.zeros(0, dtype="S64"), np.zeros((0, 5), dtype=WORDS), np.zeros(0, dtype=bool))

    def __len__(self) -> int:
        return len(self.digests)

    @functools.cached_property
    def keys(self) -> list[str]:
        """Each entry's key, cut from `joined` when first asked for (by the check of the entries, apart when it
        runs in a child, or by a save): a repeated sweep of a large run never needs them here."""
        return [self.joined[i : i + KEY_LENGTH] for i in range(0, len(self.joined), KEY_LENGTH)]


def as_words(stamp: Stamp) -> list[int]:
    """A stamp's numbers as unsigned 64-bit words, as the index stores them."""
    return [number & WORD for number in stamp]


def racy(stamp: Stamp, since: int) -> bool:
    """Whether an entry of `stamp`, stamped by a replay that started at `since` (ns), changed too close to it for
    the stamp to vouch for its content (see the module docstring)."""
    return max(stamp[1], stamp[2]) >= since - RACY


def entries_unchanged(entries: Entries, store: ResponseStore) -> np.ndarray:
    """(entries,) bool: each entry still there, with the stamp the index recorded (`store.entry`: one `lstat` each,
    for files), and, where it was racy, with the checksum recorded too (`store.checksum`: read whole and checked)."""
    found = [store.entry(key) for key in entries.keys]
    present = np.array([e is not None for e in found], dtype=bool)
    stamps = np.array([[0] * 5 if e is None else as_words(e) for e in found], dtype=WORDS).reshape(-1, 5)
    unchanged = present & (stamps == entries.stamps).all(axis=1)
    for n in np.flatnonzero(unchanged & entries.racy).tolist():
        unchanged[n] = store.checksum(entries.keys[n]) == entries.digests[n].decode("ascii")
    return unchanged


def entry_unchanged(entry: Entry, store: ResponseStore, since: int) -> bool:
    """`entries_unchanged` for one entry as a replay read it (stamped by a replay that started at `since`)."""
    key, digest, stamp = entry
    if store.entry(key) != stamp:
        return False
    return not racy(stamp, since) or store.checksum(key) == digest


def source_digest(under_test: System) -> str:
    """SHA-256 over the source of the system's package, of the protocol and of this module: a curve made (or
    written) by other code is not this code's curve, whatever the version number says."""
    module = sys.modules[type(under_test).__module__]
    package = Path(module.__file__ or "").parent
    files = sorted(package.glob("*.py")) + [Path(__file__).parent.parent / "core" / "plugin.py",
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


# ---- the index file -----------------------------------------------------------------------------------------

# Its sections, in file order: each a column of one type (`width` items per row), its row count in the header.
# Strings (question texts, quotes, titles, URLs, evidence) are stored once each and named by number; so are quotes
# and pieces, which a run's curves share (a sentence quoted in many pieces, the no-answer line beside it).
SECTIONS: tuple[tuple[str, str, int], ...] = (
    ("text", "u1", 1),  # every distinct string in UTF-8, one after the other
    ("text_ends", "<i8", 1),  # where each ends, in characters of that text decoded
    ("quotes", "<i8", 7),  # text, title, url, date (-1: none), score name, passages, broken (-1: none): string ids
    ("quote_scores", "<f8", 1),  # each quote's score (NaN where it has none: `quote_scored` says which)
    ("quote_scored", "u1", 1),
    ("passages", "<i8", 1),  # the string ids of every quote's passages, quote after quote
    ("pieces", "<i8", 2),  # quoted, shown: quote ids (-1: none); quoted -2: the replay holds no response there
    ("records", "<i8", 5),  # question text (string id), repeat, segments, evidence pairs, entries
    ("evidence", "<i8", 2),  # kind, entry: string ids, record after record
    ("edges", "<f8", 1),  # each record's segments - 1 edges, record after record
    ("segment_bounds", "<i8", 1),  # how many bounds each segment has (it has one piece more)
    ("bounds", "<f8", 1),
    ("segment_pieces", "<i8", 1),  # the piece id of every piece of every segment
    ("entry_keys", "S64", 1),  # the entries: their keys, checksums, stamps and whether each is racy
    ("entry_digests", "S64", 1),
    ("entry_stamps", "<u8", 5),
    ("entry_racy", "u1", 1),
)
ALIGN = 8
DIGEST_LINE = 65  # the file's first line: a SHA-256 in hexadecimal, and its newline


def index_dir(run_dir: Path) -> Path | None:
    """The folder of a run's index files (and of the kept parses of its question files, `parsed`): in the user's
    cache (`storage.derived_dir`); None when it, or a folder on the way, is a symbolic link (never followed), someone
    else's, or writable by others (`storage.unsafe_folder`)."""
    return derived_dir(run_dir)


def index_path(run_dir: Path, key: str) -> Path | None:
    folder = index_dir(run_dir)
    return None if folder is None else folder / f"{key}{SUFFIX}"


def _padded(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % ALIGN)


class _Numbered:
    """Distinct values numbered in the order they are first met."""

    def __init__(self) -> None:
        self.index: dict[Any, int] = {}

    def __call__(self, value: Any) -> int:
        return self.index.setdefault(value, len(self.index))

    def text(self, value: str | None) -> int:
        return -1 if value is None else self(value)


def _encoded(records: Sequence[tuple[Pair, Record]], entries: Entries, since: int) -> dict[str, np.ndarray]:
    """The sections of `records` (their entries, as the store reported them to a replay that started at `since`, or
    as columns of `entries`, racy still only if they are racy since `since` too)."""
    strings, quotes, pieces = _Numbered(), _Numbered(), _Numbered()
    rows: list[list[int]] = []
    evidence: list[int] = []
    edges: list[float] = []
    segment_bounds: list[int] = []
    bounds: list[float] = []
    segment_pieces: list[int] = []
    keys: list[str] = []
    digests: list[str] = []
    stamps: list[list[int]] = []
    racy_now: list[bool] = []

    def quote_id(quote: Quote | None) -> int:  # (numbered with its score's repr: -0.0 is not 0.0's quote)
        return -1 if quote is None else quotes((quote, repr(quote.score)))

    for (text, repeat), record in records:
        curve = record.curve
        edges += curve.edges
        for segment_b, segment_p in zip(curve.bounds, curve.pieces, strict=True):
            segment_bounds.append(len(segment_b))
            bounds += segment_b
            segment_pieces += [pieces((-2, -1) if p.missing else (quote_id(p.quoted), quote_id(p.shown)))
                               for p in segment_p]
        for kind, entry in sorted(record.evidence.items()):
            evidence += (strings(kind), strings(entry))
        span = record.entries
        if isinstance(span, range):  # read from the file: its columns, as they were (checked by this replay)
            keys += entries.keys[span.start : span.stop]
            digests += [d.decode("ascii") for d in entries.digests[span.start : span.stop].tolist()]
            found = entries.stamps[span.start : span.stop]
            stamps += found.tolist()
            racy_now += (entries.racy[span.start : span.stop]
                         & (np.maximum(found[:, 1], found[:, 2]).astype(np.int64) >= since - RACY)).tolist()
        else:
            for key, digest, stamp in span:
                keys.append(key)
                digests.append(digest)
                stamps.append(as_words(stamp))
                racy_now.append(racy(stamp, since))
        rows.append([strings(text), repeat, len(curve.bounds), len(record.evidence), len(span)])
    quote_rows, passages = [], []
    numbered = [quote for quote, _ in quotes.index]
    for q in numbered:
        quote_rows.append([strings(q.text), strings(q.title), strings(q.url), strings.text(q.date),
                           strings(q.score_name), len(q.passages), strings(q.broken) if q.broken else -1])
        passages += [strings(p) for p in q.passages]
    texts = list(strings.index)
    return {
        "text": np.frombuffer("".join(texts).encode("utf-8"), dtype=np.uint8),
        "text_ends": np.cumsum([len(t) for t in texts], dtype=np.int64),
        "quotes": np.array(quote_rows, dtype=np.int64).reshape(-1, 7),
        "quote_scores": np.array([np.nan if q.score is None else q.score for q in numbered], dtype=float),
        "quote_scored": np.array([q.score is not None for q in numbered], dtype=np.uint8),
        "passages": np.array(passages, dtype=np.int64),
        "pieces": np.array(list(pieces.index), dtype=np.int64).reshape(-1, 2),
        "records": np.array(rows, dtype=np.int64).reshape(-1, 5),
        "evidence": np.array(evidence, dtype=np.int64).reshape(-1, 2),
        "edges": np.array(edges, dtype=float),
        "segment_bounds": np.array(segment_bounds, dtype=np.int64),
        "bounds": np.array(bounds, dtype=float),
        "segment_pieces": np.array(segment_pieces, dtype=np.int64),
        "entry_keys": np.array(keys, dtype="S64"),
        "entry_digests": np.array(digests, dtype="S64"),
        "entry_stamps": np.array(stamps, dtype=WORDS).reshape(-1, 5),
        "entry_racy": np.array(racy_now, dtype=np.uint8),
    }


def _sections(raw: bytes, key: str) -> dict[str, np.ndarray] | None:
    """The sections of an index file of `key`, or None when it is torn, edited, or not one this version wrote."""
    view = memoryview(raw)  # the sections are read where they lie in `raw`, never copied out of it
    start = raw.find(b"\n") + 1
    if not start or hashlib.sha256(view[start:]).hexdigest().encode() != raw[: start - 1]:
        return None  # torn or edited: never trusted, rebuilt
    begin = raw.find(b"\n", start) + 1
    if not begin:
        return None
    head = orjson.loads(view[start : begin - 1])
    if not isinstance(head, dict) or head.get("format") != INDEX_FORMAT or head.get("key") != key:
        return None
    counts = head.get("rows")
    if not isinstance(counts, dict) or set(counts) != {name for name, _, _ in SECTIONS}:
        return None
    found, offset = {}, begin
    for name, dtype, width in SECTIONS:
        rows = counts[name]
        if type(rows) is not int or rows < 0:
            return None
        size = np.dtype(dtype).itemsize * width * rows
        if offset + size > len(raw):
            return None
        column = np.frombuffer(raw, dtype=dtype, count=width * rows, offset=offset)
        found[name] = column.reshape(rows, width) if width > 1 else column
        offset += size + (-size % ALIGN)
    return found if offset == len(raw) else None


def _within(ids: np.ndarray, low: int, count: int) -> bool:
    return not len(ids) or (int(ids.min()) >= low and int(ids.max()) < count)


def _adds_up(counts: np.ndarray, total: int, least: int = 0) -> bool:
    """Counts each from `least` to `total` whose sum is `total`, summed exactly (as Python integers: a sum of
    64-bit integers could wrap round to the right total)."""
    return _within(counts, least, total + 1) and sum(counts.tolist()) == total


def _consistent(s: Mapping[str, np.ndarray]) -> bool:
    """Every count and every id in the sections fits the others: each count of items at most their number and
    together exactly it, each id one of the items it names (-1 or -2 only where they mean none, or a piece with no
    response), so that no slice or index built from them runs past an end or counts from it."""
    strings, quotes, pieces, records = len(s["text_ends"]), len(s["quotes"]), s["pieces"], s["records"]
    ends = s["text_ends"]
    segments = len(s["segment_bounds"])
    return bool(
        len(s["quote_scores"]) == len(s["quote_scored"]) == quotes
        and (np.diff(ends) >= 0).all() and (not strings or ends[0] >= 0)
        and _within(s["quotes"][:, [0, 1, 2, 4]], 0, strings) and _within(s["quotes"][:, [3, 6]], -1, strings)
        and _adds_up(s["quotes"][:, 5], len(s["passages"])) and _within(s["passages"], 0, strings)
        and _within(pieces[:, 0], -2, quotes) and _within(pieces[:, 1], -1, quotes)
        and bool((pieces[pieces[:, 0] == -2, 1] == -1).all())
        and _within(records[:, 0], 0, strings) and _within(records[:, 1], 0, 1 << 62)
        and _adds_up(records[:, 2], segments, least=1) and len(s["edges"]) == segments - len(records)
        and _adds_up(records[:, 3], len(s["evidence"])) and _within(s["evidence"], 0, strings)
        and _adds_up(s["segment_bounds"], len(s["bounds"]))
        and len(s["segment_pieces"]) == len(s["bounds"]) + segments and _within(s["segment_pieces"], 0, len(pieces))
        and _adds_up(records[:, 4], len(s["entry_keys"]))
        and len(s["entry_keys"]) == len(s["entry_digests"]) == len(s["entry_stamps"]) == len(s["entry_racy"])
    )


def _starts(counts: np.ndarray) -> list[int]:
    """Where each of consecutive runs of `counts` items starts, and their total at the end."""
    return [0, *np.cumsum(counts).tolist()]


def _records(s: Mapping[str, np.ndarray]) -> dict[Pair, Record] | None:
    """The records of the sections (checked by `_consistent`); None when their text does not fit its ends."""
    text = s["text"].tobytes().decode("utf-8")
    ends = s["text_ends"].tolist()
    if ends and ends[-1] != len(text):
        return None
    strings = [text[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]
    passage_ids = s["passages"].tolist()
    passage_at = _starts(s["quotes"][:, 5])
    quotes = [Quote(strings[t], strings[title], strings[url], strings[date] if date >= 0 else None,
                    score if scored else None, strings[name],
                    tuple(strings[p] for p in passage_ids[passage_at[n] : passage_at[n + 1]]) if passages else (),
                    strings[broken] if broken >= 0 else "")
              for n, ((t, title, url, date, name, passages, broken), score, scored)
              in enumerate(zip(s["quotes"].tolist(), s["quote_scores"].tolist(), s["quote_scored"].tolist(),
                               strict=True))]
    pieces = [MISSING if quoted == -2 else Piece(quotes[quoted] if quoted >= 0 else None,
                                                 quotes[shown] if shown >= 0 else None)
              for quoted, shown in s["pieces"].tolist()]
    bounds, edges = s["bounds"].tolist(), s["edges"].tolist()
    every_piece = [pieces[p] for p in s["segment_pieces"].tolist()]
    bound_at = _starts(s["segment_bounds"])
    piece_at = _starts(s["segment_bounds"] + 1)
    segment_bounds = [tuple(bounds[a:b]) for a, b in zip(bound_at[:-1], bound_at[1:], strict=True)]
    segment_pieces = [tuple(every_piece[a:b]) for a, b in zip(piece_at[:-1], piece_at[1:], strict=True)]
    records = s["records"]
    segment_at, evidence_at, entry_at = (_starts(records[:, column]) for column in (2, 3, 4))
    evidence = s["evidence"].tolist()
    found = {}
    for n, (text_id, repeat) in enumerate(records[:, :2].tolist()):
        first, last = segment_at[n], segment_at[n + 1]
        curve = Curve(tuple(edges[first - n : last - n - 1]), tuple(segment_bounds[first:last]),
                      tuple(segment_pieces[first:last]))
        pairs = evidence[evidence_at[n] : evidence_at[n + 1]]
        found[(strings[text_id], repeat)] = Record(curve, {strings[k]: strings[v] for k, v in pairs},
                                                   range(entry_at[n], entry_at[n + 1]))
    return found


def _entries(s: Mapping[str, np.ndarray]) -> Entries | None:
    """The entry columns of the sections; None unless every key is a request key (64 lower-case hexadecimal
    characters: nothing else reaches a path)."""
    keys, digests = s["entry_keys"], s["entry_digests"]
    joined = keys.tobytes()
    for column in (joined, digests.tobytes()):
        if column.translate(None, b"0123456789abcdef") or len(column) != KEY_LENGTH * len(keys):
            return None
    return Entries(joined.decode("ascii"), digests, s["entry_stamps"], s["entry_racy"].astype(bool))


def _unchanged_in(run_dir: Path, cache_format: str | None, entries: Entries) -> np.ndarray:
    """`entries_unchanged` against the run's own store, opened (and closed) here: what a check apart does."""
    store = open_store(run_dir, cache_format)
    try:
        return entries_unchanged(entries, store)
    finally:
        store.close()


def _check_apart(parent: int, sender: Connection, run_dir: Path, cache_format: str | None, entries: Entries) -> None:
    answer(parent, sender, lambda: _unchanged_in(run_dir, cache_format, entries))


class ReplayIndex:
    """The records of one index file (`index_key`), read when the sweep starts and written when it changed."""

    def __init__(self, run_dir: Path, key: str, records: dict[Pair, Record] | None = None) -> None:
        self.run_dir, self.key = Path(run_dir), key
        self.records: dict[Pair, Record] = records or {}
        self.entries = Entries.empty()  # the columns that records read from the file point into
        self.changed = False
        self.since = time.time_ns()  # before this sweep's replay reads an entry: what makes an entry racy (`racy`)
        self._checked: Apart[np.ndarray] | None = None  # the entries' check, when `open` started one apart

    @property
    def path(self) -> Path | None:
        return index_path(self.run_dir, self.key)

    @classmethod
    def open(cls, run_dir: Path, key: str, cache_format: str | None = None, apart: bool = False) -> ReplayIndex:
        """The index file of `key` in `run_dir`, or an empty index when there is none, or it is not one this
        version wrote (it is then replaced when the sweep saves). With `apart`, and entries enough to pay for a
        child (`CHECK_APART_FROM`), the entries are checked against the run's store (of `cache_format`) in a
        forked child while the records are built here (`usable` collects the answer; `close` stops it)."""
        found = cls(run_dir, key)
        if found.path is None:
            return found  # no folder of its own to read from (a link where it would be): replay everything
        try:
            sections = _sections(read_private(found.path), key)
            entries = _entries(sections) if sections is not None and _consistent(sections) else None
            if entries is not None and sections is not None:
                if apart and len(entries) >= CHECK_APART_FROM:
                    found._checked = Apart(
                        "quotefinder-entries",
                        lambda parent, sender: _check_apart(parent, sender, found.run_dir, cache_format, entries),
                        lambda: _unchanged_in(found.run_dir, cache_format, entries), True)
                records = _records(sections)
                if records is not None:
                    found.records, found.entries = records, entries
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            found.records = {}  # no index, or not one of ours: replay everything
        except BaseException:
            found.close()
            raise
        if not found.records:
            found.close()
        return found

    def close(self) -> None:
        """Stop a check of the entries still running apart (`open`); nothing of it is kept."""
        if self._checked is not None:
            self._checked.close()
            self._checked = None

    def usable(self, pairs: Iterable[Pair], store: ResponseStore) -> dict[Pair, Record]:
        """The records of `pairs` whose entries are all as they were when they were indexed (`store.entry`; or the
        answer of the check `open` started apart, against a store of the same run and format, opened there). A
        record that lists no entry is never usable: nothing could show it unchanged."""
        checked, self._checked = self._checked, None
        changed = ~(checked.result() if checked is not None else entries_unchanged(self.entries, store))
        changed_before = np.concatenate([[0], np.cumsum(changed)])  # how many changed entries precede each one
        found = {}
        for pair in pairs:
            record = self.records.get(pair)
            if record is None:
                continue
            span = record.entries
            if not len(span):
                continue
            if isinstance(span, range):
                if changed_before[span.stop] == changed_before[span.start]:
                    found[pair] = record
            elif all(entry_unchanged(entry, store, self.since) for entry in span):
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
        recent index files; a folder the sweep may not write, or a link, gets none, and nothing is said."""
        path = self.path
        if not self.changed or path is None:
            return
        sections = _encoded(sorted(self.records.items()), self.entries, self.since)
        header = orjson.dumps({"format": INDEX_FORMAT, "key": self.key,
                               "rows": {name: len(sections[name]) for name, _, _ in SECTIONS}})
        header += b" " * (-(DIGEST_LINE + len(header) + 1) % ALIGN)  # spaces: the sections start aligned in the file
        body = b"".join([header, b"\n", *(_padded(sections[name].astype(dtype, copy=False).tobytes())
                                          for name, dtype, _ in SECTIONS)])
        with contextlib.suppress(OSError):
            private_dir(path.parent)
            write_private(path, hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
            older = sorted(path.parent.glob(f"*{SUFFIX}"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
            for stale in older[KEEP:]:
                stale.unlink()
            remove_stale_temporaries(path.parent)  # of a writer killed part-way (`replay.save_index`)
