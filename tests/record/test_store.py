"""`store.open_store`, the one place a store is made: the file store for the run's cache format, a clear refusal
of a format this version does not read; and the file store's `entry` and `keys`, which the replay index relies
on."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from quotefinder.core.errors import CorruptEntry, MissingResponse, RunDirError
from quotefinder.recipe.config import RECIPE
from quotefinder.record import cache
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


def test_an_entry_is_known_by_its_stamp_which_any_change_moves(tmp_path: Path) -> None:
    """The stamp is what git's index trusts of a file: size, modification and change times, inode and device; new
    bytes of the same length with the old times put back (`touch -r`) still move the change time, and another file
    put at the path is another inode."""
    store = open_store(tmp_path)
    request = RECIPE.search_request("How deep is the lake?")
    assert store.entry(request.key) is None and list(store.keys()) == []
    store.put(request, received({"results": []}))
    path = Path(store.where(request))
    found = path.stat()
    first = store.entry(request.key)
    assert first == (found.st_size, found.st_mtime_ns, found.st_ctime_ns, found.st_ino, found.st_dev)
    assert list(store.keys()) == [request.key]
    time.sleep(0.02)
    raw = path.read_bytes()
    path.write_bytes(raw.replace(b'"r1"', b'"r2"'))  # the same length, in place
    os.utime(path, ns=(found.st_atime_ns, found.st_mtime_ns))  # the old times put back
    second = store.entry(request.key)
    assert second is not None and second[:2] == first[:2] and second[2] != first[2]
    path.with_suffix(".new").write_bytes(raw)
    os.replace(path.with_suffix(".new"), path)  # another file at the path
    assert store.entry(request.key) not in (first, second)
    store.close()


def test_checksum_reads_the_entry_whole_and_gives_its_digest_or_none(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    request = RECIPE.search_request("How deep is the lake?")
    assert store.checksum(request.key) is None
    store.put(request, received({"results": []}))
    path = Path(store.where(request))
    raw = path.read_bytes()
    digest = store.checksum(request.key)
    assert digest is not None and raw.startswith(b'{"sha256": "' + digest.encode())
    path.write_bytes(raw.replace(b'"r1"', b'"r2"'))  # edited to the same length: the checksum line is wrong now
    assert store.checksum(request.key) is None
    store.close()


def test_read_takes_the_entry_of_the_file_it_reads_before_its_bytes(tmp_path: Path, monkeypatch) -> None:
    """The entry `read` gives is the file's as it was opened: an entry replaced while its bytes are read (another
    process saving the response again) gives the old bytes with the old entry, so the replay index sees the new
    one as a change next time."""
    store = open_store(tmp_path)
    request = RECIPE.search_request("How deep is the lake?")
    store.put(request, received({"results": []}))
    before = store.entry(request.key)
    path = Path(store.where(request))
    old_digest = cache.checksum_of(path.read_bytes())
    real_open = os.open
    replaced = []

    def open_then_replace(name, flags, *args, **kwargs) -> int:
        fd = real_open(name, flags, *args, **kwargs)
        if os.fspath(name) == str(path) and not replaced:
            replaced.append(True)
            path.with_suffix(".new").write_bytes(cache.encode_entry({"other": "x" * 100}))
            os.replace(path.with_suffix(".new"), path)  # the open file still reads the old bytes
        return fd
    monkeypatch.setattr(os, "open", open_then_replace)
    got, entry = store.read(request)
    # the old file's: its bytes, its inode (its change time moved as the new file took its name)
    assert replaced and got.data == {"results": []} and entry[:2] == (request.key, old_digest)
    assert before is not None and entry[2][:2] == before[:2] and entry[2][3:] == before[3:]
    assert store.entry(request.key) != entry[2]  # the new file: a change the index sees


def test_read_refuses_as_entry_then_require_would(tmp_path: Path) -> None:
    """No response: named; an entry that is a loop of links: the `OSError` of `entry`'s look (a problem of the run's
    directory, exit 2 in a sweep); one that can be looked at but not read (a folder in its place): corrupt, named
    by path."""
    store = open_store(tmp_path)
    request, other = RECIPE.search_request("How deep is the lake?"), RECIPE.search_request("How wide?")
    with pytest.raises(MissingResponse, match="the search"):
        store.read(request)
    for wanted in (request, other):
        Path(store.where(wanted)).parent.mkdir(parents=True, exist_ok=True)
    looped = Path(store.where(request))
    looped.symlink_to(looped.name)
    with pytest.raises(OSError) as caught:
        store.entry(request.key)
    with pytest.raises(type(caught.value)):
        store.read(request)
    Path(store.where(other)).mkdir()
    with pytest.raises(CorruptEntry, match=f"{store.where(other)}: cannot be read"):
        store.read(other)
