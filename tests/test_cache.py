"""The response cache: exact-request keys, whole entries on disk, private files, integrity checks."""

from __future__ import annotations

import contextlib
import json
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quotefinder import contract
from quotefinder.cache import Received, ResponseCache, decode_entry, encode_entry
from quotefinder.errors import CorruptEntry

REQUEST = contract.search_request("How deep is the Mariana Trench?")
RECEIVED = Received({"results": [{"title": "Tranché", "url": "https://x.example", "snippet": "Deep — very."}]},
                    200, "req-1", 0.25, "2026-11-29T10:00:00.000000Z", "synthetic")


def test_an_entry_keeps_the_request_response_and_exchange(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    cache.put(REQUEST, RECEIVED)
    entry = cache.get(REQUEST)
    assert entry is not None
    assert entry["request"] == REQUEST.body and entry["response"] == RECEIVED.data
    assert (entry["endpoint"], entry["repeat"], entry["status"], entry["request_id"]) == ("/search", 0, 200, "req-1")
    assert (entry["elapsed_s"], entry["received_at"], entry["evidence"]) == (0.25, RECEIVED.received_at, "synthetic")
    assert cache.get(contract.search_request("another question")) is None


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
    other = contract.search_request("something else")
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
