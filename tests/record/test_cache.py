"""The response cache: exact-request keys, whole entries on disk, private files, integrity checks."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import stat
from pathlib import Path

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import KEY, ROOT, TEN_SCENARIO
from hostile import FUZZ_EXAMPLES, damaged_bytes, damaged_structure
from quotefinder.core.errors import ContractError, CorruptEntry
from quotefinder.core.requests import ApiRequest
from quotefinder.core.storage import read_whole
from quotefinder.recipe.config import RECIPE
from quotefinder.record.cache import CachingClient, ResponseCache, admit_all, decode_entry, encode_entry
from quotefinder.record.client import ApiClient
from quotefinder.record.received import Received
from quotefinder.record.store import open_store
from quotefinder.standin import FakeApi, load_scenario

REQUEST = RECIPE.search_request("How deep is the Mariana Trench?")
RECEIVED = Received({"results": [{"title": "Tranché", "url": "https://x.example", "snippet": "Deep — very."}]},
                    200, "req-1", 0.25, "2026-11-29T10:00:00.000000Z", "synthetic")


def test_an_entry_keeps_the_request_response_and_exchange(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    cache.put(REQUEST, RECEIVED)
    assert cache.get(REQUEST) == RECEIVED  # the exchange comes back exactly as the client returned it
    entry = decode_entry(cache.path(REQUEST).read_bytes(), cache.path(REQUEST))
    assert entry["request"] == REQUEST.body and entry["response"] == RECEIVED.data
    assert (entry["endpoint"], entry["repeat"], entry["status"], entry["request_id"]) == ("/search", 0, 200, "req-1")
    assert (entry["elapsed_s"], entry["received_at"], entry["evidence"]) == (0.25, RECEIVED.received_at, "synthetic")
    assert cache.get(RECIPE.search_request("another question")) is None


def test_entries_are_readable_json_with_text_as_written(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    cache.put(REQUEST, RECEIVED)
    text = cache.path(REQUEST).read_text(encoding="utf-8")
    assert "Tranché" in text and "Deep — very." in text  # not \\u-escaped: a person can read it
    assert json.loads(text)["key"] == REQUEST.key


def test_files_are_private(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "run")
    cache.put(REQUEST, RECEIVED)
    path = cache.path(REQUEST)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    for directory in (path.parent, path.parent.parent, tmp_path / "run"):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left behind


@pytest.mark.parametrize("damage", [
    lambda raw: raw[: len(raw) // 2],                             # torn
    lambda raw: raw.replace(b"very", b"VERY"),                    # edited text
    lambda raw: raw.replace(b'"status": 200', b'"status": 201'),  # edited metadata
    lambda raw: raw[:20] + raw[21:],                              # a digit of the checksum lost
    lambda raw: b"",                                              # emptied
    lambda raw: json.dumps(json.loads(raw)).encode(),             # re-saved by an editor, checksum line gone
])
def test_a_torn_or_edited_entry_is_detected(tmp_path: Path, damage) -> None:
    cache = ResponseCache(tmp_path)
    cache.put(REQUEST, RECEIVED)
    path = cache.path(REQUEST)
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(CorruptEntry) as caught:
        cache.get(REQUEST)
    assert str(path) in str(caught.value)


def test_an_entry_under_the_wrong_name_or_of_another_format_is_refused(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    cache.put(REQUEST, RECEIVED)
    other = RECIPE.search_request("something else")
    cache.path(other).parent.mkdir(parents=True, exist_ok=True)
    cache.path(other).write_bytes(cache.path(REQUEST).read_bytes())
    with pytest.raises(CorruptEntry, match="does not belong"):
        cache.get(other)
    entry = decode_entry(cache.path(REQUEST).read_bytes(), "x")
    old = encode_entry({**entry, "format": "quotefinder-cache/0"})
    with pytest.raises(CorruptEntry, match="cache format 'quotefinder-cache/0'"):
        decode_entry(old, "x")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_the_reader_refuses_garbage_with_its_own_error(raw: bytes) -> None:
    with contextlib.suppress(CorruptEntry):
        decode_entry(raw, "fuzz")


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_any_damage_to_a_real_entry_is_caught(data) -> None:
    raw = encode_entry({"format": "quotefinder-cache/1", "key": "k", "response": {"answers": {"x": 0.5}}})
    position = data.draw(st.integers(0, len(raw) - 1))
    replacement = data.draw(st.integers(0, 255).filter(lambda b: b != raw[position]))
    damaged = raw[:position] + bytes([replacement]) + raw[position + 1:]
    with pytest.raises(CorruptEntry):
        decode_entry(damaged, "fuzz")


def caching_sends(cache: ResponseCache, api: FakeApi, requests, admit=admit_all) -> tuple[list, CachingClient]:
    """Send `requests` through a caching client in front of a real client on a mock transport."""

    async def go() -> list:
        async with ApiClient("https://api.example", KEY, transport=httpx.MockTransport(api.handler)) as client:
            caching = CachingClient(client, cache, admit)
            results = [await caching.send(request) for request in requests]
            return [results, caching]

    results, caching = asyncio.run(go())
    return results, caching


def test_a_caching_client_looks_like_the_client_and_sends_only_what_is_missing(tmp_path: Path) -> None:
    api = FakeApi(load_scenario(TEN_SCENARIO))
    cache = ResponseCache(tmp_path)
    requests = [RECIPE.search_request("How many bones are in the adult human body?"),
                RECIPE.search_request("When was the Rosetta Stone discovered?")]
    first, caching = caching_sends(cache, api, requests)
    assert [type(r) for r in first] == [Received, Received] and len(api.requests) == 2
    assert (caching.counts.sent, caching.counts.from_cache) == (2, 0)
    again, caching = caching_sends(cache, api, [*requests, RECIPE.search_request("Another?")])
    assert again[:2] == first and len(api.requests) == 3  # only the new one was sent
    assert (caching.counts.sent, caching.counts.from_cache) == (1, 2)
    cache.path(requests[0]).write_bytes(b"torn")
    _, caching = caching_sends(cache, api, requests)
    assert (caching.counts.sent, caching.counts.replaced, caching.counts.from_cache) == (1, 1, 1)
    assert cache.get(requests[0]) is not None  # replaced by a whole entry


def test_a_response_the_admission_check_refuses_is_never_saved(tmp_path: Path) -> None:
    def refuse(request, received) -> None:
        raise ContractError("not what the pipeline reads")

    cache = ResponseCache(tmp_path)
    request = RECIPE.search_request("How many bones are in the adult human body?")
    with pytest.raises(ContractError):
        caching_sends(cache, FakeApi(load_scenario(TEN_SCENARIO)), [request], refuse)
    assert cache.get(request) is None and not list(tmp_path.rglob("*.json"))


def test_an_entry_of_a_long_unknown_format_is_refused_in_a_short_message(tmp_path: Path) -> None:
    """The format a damaged entry names is quoted cut short (the fuzz test below found a 5,000-character one
    quoted whole)."""
    entry = decode_entry(DEMO_ENTRY.read_bytes(), DEMO_ENTRY)
    request = ApiRequest(entry["endpoint"], entry["request"], entry["repeat"])
    cache = ResponseCache(tmp_path)
    path = cache.path(request)
    path.parent.mkdir(parents=True)
    path.write_bytes(checksummed(json.dumps({**entry, "format": "x" * 5000}, indent=2)))
    with pytest.raises(CorruptEntry, match="cache format 'x{80}'... \\(5000 characters\\)") as refused:
        cache.get(request)
    assert len(str(refused.value)) < 500


DEMO_ENTRY = sorted((ROOT / "runs" / "ten" / "responses").rglob("*.json"))[0]


def checksummed(text: str) -> bytes:
    """`text` (JSON of an object, indented) as an entry file whose checksum line matches it."""
    body = text.encode("utf-8", "surrogatepass")
    rest = body[2:] if body.startswith(b"{\n") else body
    return b'{"sha256": "' + hashlib.sha256(b"{\n" + rest).hexdigest().encode() + b'",\n' + rest


@pytest.mark.slow
@settings(max_examples=FUZZ_EXAMPLES, deadline=None)
@given(st.data())
def test_fuzz_a_damaged_entry_with_a_matching_checksum_is_read_or_refused_naming_it(tmp_path_factory, data) -> None:
    """A committed entry with values of the wrong type, deleted fields, deep nesting, huge numbers and lone
    surrogates, its checksum line recomputed (as a careful editor would), then perhaps torn or flipped too."""
    entry = decode_entry(DEMO_ENTRY.read_bytes(), DEMO_ENTRY)
    request = ApiRequest(entry["endpoint"], entry["request"], entry["repeat"])
    cache = ResponseCache(tmp_path_factory.mktemp("run"))
    path = cache.path(request)
    path.parent.mkdir(parents=True)
    path.write_bytes(data.draw(damaged_bytes(checksummed(data.draw(damaged_structure(entry))))))
    try:
        cache.get(request)
    except CorruptEntry as error:
        assert str(path) in str(error) and len(str(error)) < 2000


@pytest.mark.parametrize("depth", [1100, 200_000])
def test_a_deeply_nested_entry_is_reported_by_path(tmp_path: Path, depth: int) -> None:
    """Deeper than the reader's limit (1,024): an entry no recording writes, refused like a torn one."""
    cache = ResponseCache(tmp_path)
    cache.put(REQUEST, RECEIVED)
    path = cache.path(REQUEST)
    text = path.read_text().split("\n", 1)[1]
    path.write_bytes(checksummed("{\n" + f'  "trace": {"[" * depth + "]" * depth},\n' + text))
    with pytest.raises(CorruptEntry, match="not valid JSON") as caught:
        cache.get(REQUEST)
    assert str(path) in str(caught.value)


def _as_open_reads(path: str) -> tuple[os.stat_result, bytes]:
    """What `storage.read_whole` stands for: the file opened by `open`, its `fstat`, and `read()` to the end."""
    with open(path, "rb") as handle:
        return os.fstat(handle.fileno()), handle.read()


def _outcome(read, path: str) -> tuple[object, ...]:
    try:
        found, data = read(path)
    except OSError as error:
        return type(error), error.errno, error.strerror
    return found.st_ino, found.st_size, found.st_mtime_ns, data


def test_a_response_file_is_read_as_open_and_read_would_read_it(tmp_path: Path, monkeypatch) -> None:
    """Every store reads its entries with `read_whole`: the same bytes and status as `open` then `read()`, the same
    error for each way a path can fail (the store turns those into "missing" or "cannot be read"), no descriptor
    left open, and a file read to its end whatever its size said."""
    (tmp_path / "empty.json").write_bytes(b"")
    (tmp_path / "small.json").write_bytes(b'{"a": 1}\n')
    (tmp_path / "large.json").write_bytes(bytes(range(256)) * 1000)
    (tmp_path / "folder").mkdir()
    (tmp_path / "loop.json").symlink_to(tmp_path / "loop.json")  # a loop of links: refused to root too
    paths = [str(tmp_path / name) for name in ("empty.json", "small.json", "large.json", "folder", "absent.json",
                                               "small.json/below.json", "loop.json")]
    descriptors = set(os.listdir("/proc/self/fd")) if Path("/proc/self/fd").is_dir() else None
    for path in paths:
        assert _outcome(read_whole, path) == _outcome(_as_open_reads, path), path
    if descriptors is not None:
        assert set(os.listdir("/proc/self/fd")) == descriptors  # every one it opened closed, on errors too
    real_fstat = os.fstat

    def smaller(fd: int) -> os.stat_result:  # a size that says less than the file holds (a file growing, /proc)
        found = real_fstat(fd)
        return os.stat_result((*found[:6], 10, *found[7:]))
    monkeypatch.setattr(os, "fstat", smaller)
    assert read_whole(str(tmp_path / "large.json"))[1] == bytes(range(256)) * 1000


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_an_entry_that_is_a_device_or_a_fifo_is_corrupt_at_once(tmp_path: Path, special: str) -> None:
    """An entry committed as a link to /dev/zero (or a FIFO made in its place): reported by path at once, never read
    without end or waited on."""
    store = open_store(tmp_path)
    request = RECIPE.search_request("How deep is the lake?")
    path = Path(store.where(request))
    path.parent.mkdir(parents=True)
    if special == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to(special)
    with pytest.raises(CorruptEntry, match="not a regular file"):
        store.get(request)
    with pytest.raises(CorruptEntry, match="not a regular file"):
        store.read(request)
    assert store.checksum(request.key) is None
