"""The SQLite prototype behaves as the file store does, through the `ResponseStore` protocol: each test runs on
both stores, so a difference between them is a failure here, not a surprise in a benchmark."""

from __future__ import annotations

import contextlib
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import KEY
from quotefinder.core.errors import CorruptEntry, KeyEchoed, MissingResponse
from quotefinder.recipe.config import RECIPE
from quotefinder.record.cache import FileStore, decode_entry
from quotefinder.record.received import Received
from quotefinder.record.secret import Secret
from quotefinder.record.store import ResponseStore
from quotefinder.testing.sqlite_store import FILE_NAME, SQLiteStore

REQUEST = RECIPE.search_request("How deep is the Mariana Trench?")
OTHER = RECIPE.search_request("How high is Everest?")
RECEIVED = Received({"results": [{"title": "Tranché", "url": "https://x.example", "snippet": "Deep — very."}]},
                    200, "req-1", 0.25, "2026-11-29T10:00:00.000000Z", "synthetic")
AGAIN = Received(RECEIVED.data, 200, "req-2", 0.5, "2026-11-29T10:00:01.000000Z", "synthetic")


def edit_file(run: Path, key: str, change: Callable[[bytes], bytes]) -> None:
    path = run / "responses" / key[:2] / f"{key}.json"  # FileStore's layout
    path.write_bytes(change(path.read_bytes()))


def edit_row(run: Path, key: str, change: Callable[[bytes], bytes]) -> None:
    with contextlib.closing(sqlite3.connect(run / FILE_NAME)) as db, db:  # as with the sqlite3 shell
        (raw,) = db.execute("SELECT entry FROM responses WHERE key = ?", (key,)).fetchone()
        db.execute("UPDATE responses SET entry = ? WHERE key = ?", (change(bytes(raw)), key))


STORES = {"files": (FileStore, edit_file), "sqlite": (SQLiteStore, edit_row)}


@pytest.fixture(params=sorted(STORES))
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def opened(kind: str, run: Path) -> ResponseStore:
    return STORES[kind][0](run)


def test_a_response_comes_back_exactly_and_a_missing_one_is_named(kind: str, tmp_path: Path) -> None:
    store = opened(kind, tmp_path / "run")
    assert store.get(REQUEST) is None and store.entry(REQUEST.key) is None and list(store.keys()) == []
    store.put(REQUEST, RECEIVED)
    assert store.get(REQUEST) == RECEIVED and store.require(REQUEST) == RECEIVED
    assert store.get(OTHER) is None
    with pytest.raises(MissingResponse, match=OTHER.label):
        store.require(OTHER)
    store.close()
    reopened = opened(kind, tmp_path / "run")  # durable: another store over the same run reads it
    assert reopened.require(REQUEST) == RECEIVED
    reopened.close()


def test_keys_list_every_entry_and_entry_changes_when_it_is_put_again(kind: str, tmp_path: Path) -> None:
    store = opened(kind, tmp_path)
    store.put(REQUEST, RECEIVED)
    store.put(OTHER, RECEIVED)
    assert sorted(store.keys()) == sorted([REQUEST.key, OTHER.key])
    first = store.entry(REQUEST.key)
    assert first is not None and first[0] == REQUEST.key and first[1] > 0
    store.put(REQUEST, AGAIN)
    assert store.entry(REQUEST.key) != first and store.require(REQUEST) == AGAIN
    assert store.entry(OTHER.key) is not None
    store.close()


def test_read_gives_the_response_with_the_entry_it_was_read_from(kind: str, tmp_path: Path) -> None:
    """`read` (what the replay records for the index): `require`'s response with the entry `entry` gives, that entry
    the one whose bytes were read, so that a later `put` shows as a change; a missing response named, a corrupt
    one refused, as `require` does."""
    store = opened(kind, tmp_path)
    with pytest.raises(MissingResponse, match=REQUEST.label):
        store.read(REQUEST)
    store.put(REQUEST, RECEIVED)
    received, entry = store.read(REQUEST)
    assert received == RECEIVED and entry == store.entry(REQUEST.key)
    store.put(REQUEST, AGAIN)
    again, newer = store.read(REQUEST)
    assert again == AGAIN and newer == store.entry(REQUEST.key) != entry
    STORES[kind][1](tmp_path, REQUEST.key, lambda raw: raw.replace(b"req-2", b"req-3"))
    with pytest.raises(CorruptEntry, match="checksum"):
        store.read(REQUEST)
    store.close()


def test_a_response_saved_between_the_sqlite_stores_two_looks_is_recorded_as_changed(tmp_path: Path,
                                                                                    monkeypatch) -> None:
    """The SQLite store looks at the entry, then reads it: a response saved in between (none at the first look) is
    given with an entry no look will ever match (size -1), so the replay index replays it next time."""
    store = SQLiteStore(tmp_path)
    store.put(REQUEST, RECEIVED)
    monkeypatch.setattr(store, "entry", lambda key: None)  # the first look saw nothing yet
    received, entry = store.read(REQUEST)
    monkeypatch.undo()
    assert received == RECEIVED and entry == (REQUEST.key, -1, -1) and store.entry(REQUEST.key) != entry
    store.close()


def test_an_entry_edited_on_disk_is_corrupt_and_named(kind: str, tmp_path: Path) -> None:
    store = opened(kind, tmp_path)
    store.put(REQUEST, RECEIVED)
    before = store.entry(REQUEST.key)
    store.close()
    STORES[kind][1](tmp_path, REQUEST.key, lambda raw: raw.replace(b"Deep", b"Shallow"))
    store = opened(kind, tmp_path)
    assert store.entry(REQUEST.key) != before  # what the replay index checks sees the edit
    with pytest.raises(CorruptEntry, match="checksum mismatch") as caught:
        store.get(REQUEST)
    assert REQUEST.key in str(caught.value)  # named, as a file's path names it
    store.close()


def test_a_torn_entry_is_corrupt(kind: str, tmp_path: Path) -> None:
    store = opened(kind, tmp_path)
    store.put(REQUEST, RECEIVED)
    store.close()
    STORES[kind][1](tmp_path, REQUEST.key, lambda raw: raw[: len(raw) // 2])
    with pytest.raises(CorruptEntry):
        opened(kind, tmp_path).get(REQUEST)


def test_a_body_holding_the_key_is_refused_and_nothing_is_saved(kind: str, tmp_path: Path) -> None:
    store = opened(kind, tmp_path)
    echoing = Received({"results": [{"title": f"Bearer {KEY}", "url": "https://x.example", "snippet": "."}]},
                       200, "req-3", 0.1, RECEIVED.received_at, "synthetic")
    with pytest.raises(KeyEchoed) as caught:
        store.put(REQUEST, echoing, Secret(KEY))
    assert KEY not in str(caught.value)
    assert store.get(REQUEST) is None and list(store.keys()) == []
    store.close()


def test_the_same_entry_bytes_in_both_stores(tmp_path: Path) -> None:
    files, rows = FileStore(tmp_path / "files"), SQLiteStore(tmp_path / "sqlite")
    files.put(REQUEST, RECEIVED)
    rows.put(REQUEST, RECEIVED)
    raw = rows.raw(REQUEST.key)
    assert raw == files.path(REQUEST).read_bytes()  # a conversion is a copy of bytes, either way
    assert decode_entry(raw, "row")["key"] == REQUEST.key
    converted = SQLiteStore(tmp_path / "converted")
    assert converted.load([(REQUEST.key, files.path(REQUEST).read_bytes())]) == 1
    assert converted.require(REQUEST) == RECEIVED
    with pytest.raises(CorruptEntry, match="does not belong"):
        converted.load([(OTHER.key, raw)])
    rows.close()
    converted.close()


def test_the_database_is_private_and_reading_creates_nothing(tmp_path: Path) -> None:
    run = tmp_path / "run"
    store = SQLiteStore(run)
    assert store.get(REQUEST) is None and not run.exists()
    store.put(REQUEST, RECEIVED)
    assert stat.S_IMODE(run.stat().st_mode) == 0o700
    for path in run.iterdir():  # the database, and its -wal and -shm while open
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name
    store.close()
    assert [p.name for p in run.iterdir()] == [FILE_NAME]  # the WAL is folded back in on close
