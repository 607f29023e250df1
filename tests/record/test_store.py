"""`store.open_store`, the one place a store is made: the file store for the run's cache format, a clear refusal
of a format this version does not read; and the file store's `entry` and `keys`, which the replay index relies
on."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from quotefinder.errors import RunDirError
from quotefinder.recipe import contract
from quotefinder.record.cache import FORMAT, FileStore
from quotefinder.record.received import Received
from quotefinder.record.store import open_store


def received(data: dict) -> Received:
    return Received(data=data, status=200, request_id="r1", elapsed_s=0.1, received_at="2026-01-01T00:00:00Z",
                    evidence="synthetic")


def test_the_run_format_picks_the_store_and_another_is_refused(tmp_path: Path) -> None:
    assert isinstance(open_store(tmp_path, FORMAT), FileStore)
    assert isinstance(open_store(tmp_path), FileStore)  # a new run, or one from before the key
    with pytest.raises(RunDirError, match=r"stored as 'quotefinder-sqlite/9', which this version does not read "
                                          r"\(it reads quotefinder-cache/1\)"):
        open_store(tmp_path, "quotefinder-sqlite/9")


def test_an_entry_is_known_by_its_key_size_and_time_and_changes_with_it(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    request = contract.search_request("How deep is the lake?")
    assert store.entry(request.key) is None and list(store.keys()) == []
    store.put(request, received({"results": []}))
    key, size, mtime = store.entry(request.key) or ("", 0, 0)
    assert key == request.key and size == (tmp_path / "responses" / key[:2] / f"{key}.json").stat().st_size
    assert list(store.keys()) == [request.key]
    path = Path(store.where(request))
    os.utime(path, ns=(mtime, mtime + 1))
    assert store.entry(request.key) == (key, size, mtime + 1)
    store.close()
