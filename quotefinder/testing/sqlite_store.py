"""A measured prototype, not shipped: the `store.ResponseStore` protocol over one SQLite file per run
(the choice of simonw/llm, lm-evaluation-harness and HELM), for `store_bench` to hold against `cache.FileStore`.

Layout: ``<run>/responses.sqlite3``, WAL journal, one table

    responses(key TEXT PRIMARY KEY, entry BLOB NOT NULL, version INTEGER NOT NULL)

whose `entry` is exactly the bytes `cache.encode_entry` writes to a file (the checksum line, then the indented
JSON), so every read is checked by `cache.decode_entry` as a file's is, and converting a run either way is a copy
of bytes. `version` is the row's own clock (nanoseconds when it was put, and always past the previous value):
a trigger moves it on any change to `entry`, a hand edit through `sqlite3` included, so `entry(key)` changes
whenever the row does. `put` commits one entry per transaction with `synchronous=FULL`: the response is on disk
when it returns, as a file store's is. The file and its `-wal`/`-shm` companions are 0600.

It lives in `testing/` because it is a prototype being measured (BENCHMARKS.md, "Response stores"); shipping it
would mean a format name in `store.STORES` and `eval.py --store sqlite`.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..core.errors import CorruptEntry, StorageError
from ..core.requests import ApiRequest
from ..core.storage import PRIVATE_FILE, private_dir
from ..record.cache import decode_entry, entry_bytes, read_entry, required
from ..record.received import Received
from ..record.secret import Secret

FORMAT = "quotefinder-sqlite/1"  # what run.json's cache_format would say, were it shipped
FILE_NAME = "responses.sqlite3"
BUSY_MS = 30_000  # a reader waits this long for a writer's lock (WAL readers rarely wait at all)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    entry BLOB NOT NULL,
    version INTEGER NOT NULL
);
CREATE TRIGGER IF NOT EXISTS responses_changed AFTER UPDATE OF entry ON responses
BEGIN
    UPDATE responses SET version = max(NEW.version, OLD.version + 1) WHERE key = NEW.key;
END;
"""
_PUT = ("INSERT INTO responses (key, entry, version) VALUES (?, ?, ?) "
        "ON CONFLICT (key) DO UPDATE SET entry = excluded.entry, version = max(excluded.version, version + 1)")


class SQLiteStore:
    """Saved responses of one run directory in one SQLite file (a `store.ResponseStore`). Lookups are by
    `ApiRequest.key`. The database is created by the first `put`; reading a run without one finds nothing."""

    def __init__(self, run_dir: Path, synchronous: str = "FULL") -> None:
        """`synchronous`: FULL (the default) makes each `put` durable across a power cut, as the file store's
        fsyncs do; NORMAL only across a crash of the process (WAL's usual setting), for comparison."""
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / FILE_NAME
        self.synchronous = synchronous
        self._db: sqlite3.Connection | None = None

    # ---- the connection ---------------------------------------------------------------------------

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        if self._db is not None:
            return self._db
        if not self.path.exists():
            if not create:
                return None
            private_dir(self.run_dir)
            # created 0600 here: SQLite gives the -wal and -shm files the database file's permissions
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE))
        try:
            db = sqlite3.connect(self.path, timeout=BUSY_MS / 1000, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode = WAL")
            db.execute(f"PRAGMA synchronous = {self.synchronous}")
            db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as error:
            raise CorruptEntry(self.path, f"not a usable response database ({error})") from None
        self._db = db
        return db

    def close(self) -> None:
        """Close the connection; the last one to close folds the WAL back into the database file."""
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- the protocol -----------------------------------------------------------------------------

    def where(self, request: ApiRequest) -> str:
        return self._where(request.key)

    def _where(self, key: str) -> str:
        return f"{self.path}#{key}"

    def entry(self, key: str) -> tuple[str, int, int] | None:
        """The entry of `key`: the key, its size in bytes and its version (one indexed lookup); None when the run
        holds none."""
        row = self._one("SELECT length(entry), version FROM responses WHERE key = ?", key)
        return None if row is None else (key, row[0], row[1])

    def keys(self) -> Iterator[str]:
        """Every key the store holds, in key order."""
        db = self._connect(create=False)
        if db is None:
            return
        for (key,) in db.execute("SELECT key FROM responses ORDER BY key").fetchall():
            yield key

    def raw(self, key: str) -> bytes | None:
        """The saved bytes of `key`, unchecked (None when there are none): for benchmarks and conversions."""
        row = self._one("SELECT entry FROM responses WHERE key = ?", key)
        return None if row is None else bytes(row[0])

    def get(self, request: ApiRequest) -> Received | None:
        """The saved response to `request`, None when there is none; `CorruptEntry` if it cannot be trusted."""
        raw = self.raw(request.key)
        if raw is None:
            return None
        return read_entry(raw, request, self.where(request))

    def require(self, request: ApiRequest) -> Received:
        """The saved response to `request`; `MissingResponse` naming the request when there is none."""
        return required(self.get(request), request)

    def read(self, request: ApiRequest) -> tuple[Received, tuple[str, int, int]]:
        """`require`, with the entry (`entry`) looked at before it is read."""
        entry = self.entry(request.key)
        received = self.require(request)
        return received, entry or (request.key, -1, -1)  # (none before, one after: changed, never matched)

    def put(self, request: ApiRequest, received: Received, secret: Secret | None = None) -> None:
        """Save a successful response, committed (durable) when this returns; refused like `FileStore.put`."""
        self._write([(request.key, entry_bytes(request, received, secret))])

    def load(self, entries: Iterable[tuple[str, bytes]]) -> int:
        """Save many (key, entry bytes) at once, each checked by `decode_entry` first, in one transaction (a
        conversion from another store); how many."""
        checked = []
        for key, raw in entries:
            decoded = decode_entry(raw, self._where(key))
            if decoded.get("key") != key:
                raise CorruptEntry(self._where(key), "the entry does not belong to this key")
            checked.append((key, raw))
        self._write(checked)
        return len(checked)

    # ---- inside -----------------------------------------------------------------------------------

    def _one(self, query: str, key: str) -> Any:
        db = self._connect(create=False)
        if db is None:
            return None
        try:
            return db.execute(query, (key,)).fetchone()
        except sqlite3.DatabaseError as error:
            raise CorruptEntry(self._where(key), f"cannot be read ({error})") from None

    def _write(self, rows: list[tuple[str, bytes]]) -> None:
        try:
            db = self._connect(create=True)
            assert db is not None  # created when missing
            now = time.time_ns()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany(_PUT, [(key, raw, now) for key, raw in rows])
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        except (OSError, sqlite3.OperationalError) as error:
            raise StorageError(
                f"cannot save a response in {self.path} ({error}); free some space or fix the permissions, then "
                "rerun: nothing already saved is lost"
            ) from None
