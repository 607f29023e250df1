"""Refusals remembered in the run (`record.refused`): a refused response is not asked for again, its file names
why and how to ask again, the response is kept only when it holds no form of the key, and a torn, edited or
mismatched file counts as no refusal."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from conftest import KEY
from quotefinder.core.errors import RefusedBefore
from quotefinder.core.perplexity import SEARCH_PATH
from quotefinder.core.requests import ApiRequest
from quotefinder.record.cache import decode_entry
from quotefinder.record.received import Received
from quotefinder.record.refused import Refusals
from quotefinder.record.secret import Secret

REQUEST = ApiRequest(SEARCH_PATH, {"query": "How deep?"}, label="the search")


def received(data: object) -> Received:
    return Received(data, 200, "r1", 0.1, "2026-01-01T00:00:00Z", "synthetic")


def test_a_refused_response_is_not_asked_for_again_until_its_file_is_removed(tmp_path: Path) -> None:
    refusals = Refusals(tmp_path)
    refusals.check(REQUEST)  # nothing refused yet
    refusals.put(REQUEST, received({"results": "odd"}), "`results` is not a list", Secret(KEY))
    path = refusals.path(REQUEST)
    assert path == tmp_path / "refused" / REQUEST.key[:2] / f"{REQUEST.key}.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with pytest.raises(RefusedBefore) as caught:
        refusals.check(REQUEST)
    assert str(caught.value) == (f"the search: its response was refused when it was recorded (`results` is not a "
                                 f"list); it is not asked for again: remove {path} to ask again")
    entry = decode_entry(path.read_bytes(), path)
    assert entry["response"] == {"results": "odd"} and entry["request"] == REQUEST.body
    path.unlink()
    refusals.check(REQUEST)  # asked again


def test_a_response_that_echoes_the_key_is_remembered_without_it(tmp_path: Path) -> None:
    refusals = Refusals(tmp_path)
    refusals.put(REQUEST, received({"echo": f"Bearer {KEY}"}), "it carries the key", Secret(KEY))
    raw = refusals.path(REQUEST).read_bytes()
    assert KEY.encode() not in raw and "response" not in decode_entry(raw, "x")
    with pytest.raises(RefusedBefore, match="it carries the key"):
        refusals.check(REQUEST)


@pytest.mark.parametrize("damage", ["torn", "edited", "another request's"])
def test_a_damaged_refusal_counts_as_none(tmp_path: Path, damage: str) -> None:
    refusals = Refusals(tmp_path)
    refusals.put(REQUEST, received({}), "odd", Secret(KEY))
    path = refusals.path(REQUEST)
    raw = path.read_bytes()
    if damage == "torn":
        path.write_bytes(raw[: len(raw) // 2])
    elif damage == "edited":
        path.write_bytes(raw.replace(b"odd", b"odD"))
    else:
        other = ApiRequest(SEARCH_PATH, {"query": "Another?"})
        refusals.put(other, received({}), "odd", Secret(KEY))
        path.write_bytes(refusals.path(other).read_bytes())
    refusals.check(REQUEST)  # no refusal: it is asked again


def test_a_forged_refusal_s_long_reason_is_read_and_kept_as_one_short_line(tmp_path: Path) -> None:
    """A commit can put a refusal file in a run: its reason (200 KB, with escape codes and line breaks) becomes the
    question's error cut to one line; a reason a recording keeps is cut the same way."""
    from quotefinder.record.cache import encode_entry

    refusals = Refusals(tmp_path)
    path = refusals.path(REQUEST)
    path.parent.mkdir(parents=True)
    reason = "\x1b[2J" + "spoofed\n" * 25_000
    path.write_bytes(encode_entry({"format": "quotefinder-cache/1", "key": REQUEST.key, "refused": reason}))
    with pytest.raises(RefusedBefore) as caught:
        refusals.check(REQUEST)
    message = str(caught.value)
    assert len(message) < 1000 and "\n" not in message and "\x1b" not in message and "characters)" in message
    refusals.put(REQUEST, received({"results": "odd"}), reason, Secret(KEY))
    kept = decode_entry(path.read_bytes(), path)["refused"]
    assert len(kept) < 600 and "\n" not in kept and "\x1b" not in kept
