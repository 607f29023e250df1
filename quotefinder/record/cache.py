"""The response cache: one JSON file per successful API response, keyed by the exact request.

Layout: ``<run>/responses/<key[:2]>/<key>.json``, where the key is `ApiRequest.key` (a version,
the endpoint path, the repeat index and the canonical body; never the base URL, a header or the API
key). A file is written to a temporary name, flushed to disk and renamed, so a crash leaves either
the whole entry or none. Its first line carries the SHA-256 of the rest of the file:

    {"sha256": "<64 hex digits>",
      "format": "quotefinder-cache/1", "key": ..., "endpoint": ..., "repeat": ..., "request": {...},
      "status": 200, "request_id": ..., "elapsed_s": ..., "received_at": ..., "evidence": ...,
      "response": {...}}

so a torn or hand-edited entry is detected by hashing bytes, without re-serialising anything.
Files are created 0600 and directories 0700: responses hold third-party web text. An entry never holds
the API key in any form (`secret.Secret`): the client blanks it from the request id and refuses a body
that echoes it, and `put` checks the bytes once more before writing.

`CachingClient` puts the cache in front of a client with the client's own interface (the
lm-evaluation-harness `CachingLM` pattern): saved responses are served, only missing ones are sent,
and each new one is saved before anyone reads it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ..core.errors import ContractError, CorruptEntry, KeyEchoed, MissingResponse, StorageError
from ..core.requests import ApiRequest
from ..core.storage import private_dir, read_whole, write_private
from ..core.textsafe import shown
from .received import EVIDENCE, Received, Sender, describe
from .secret import Secret

if TYPE_CHECKING:
    from .refused import Refusals
    from .store import Entry, ResponseStore, Stamp

FORMAT = "quotefinder-cache/1"
_HEAD = b'{"sha256": "'
_DIGITS = 64
_HEAD_END = len(_HEAD) + _DIGITS
_SEPARATOR = b'",\n'


def encode_entry(entry: dict[str, Any]) -> bytes:
    """The file bytes for `entry`: the checksum line, then the entry as indented JSON (UTF-8 text)."""
    body = orjson.dumps(entry, option=orjson.OPT_INDENT_2)
    digest = hashlib.sha256(body).hexdigest().encode()
    return _HEAD + digest + _SEPARATOR + body[2:]


def decode_entry(raw: bytes, path: object) -> dict[str, Any]:
    """Check the checksum line and parse; raise `CorruptEntry` for anything else."""
    if not (raw.startswith(_HEAD) and raw[_HEAD_END : _HEAD_END + len(_SEPARATOR)] == _SEPARATOR):
        raise CorruptEntry(path, "no checksum line: torn, edited, or not a cache entry")
    body = b"{\n" + raw[_HEAD_END + len(_SEPARATOR) :]
    if hashlib.sha256(body).hexdigest().encode() != raw[len(_HEAD) : _HEAD_END]:
        raise CorruptEntry(path, "checksum mismatch: the entry was torn or edited")
    try:
        entry = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        raise CorruptEntry(path, f"not valid JSON ({error})") from None
    if not isinstance(entry, dict) or entry.get("format") != FORMAT:
        found = entry.get("format") if isinstance(entry, dict) else None
        raise CorruptEntry(path, f"cache format {shown(found)}, this version reads {FORMAT!r}")
    return entry


def entry_bytes(request: ApiRequest, received: Received, secret: Secret | None = None) -> bytes:
    """The bytes a store saves for `request`'s response (`encode_entry` of the whole exchange). `KeyEchoed` when
    they would hold `secret` in any form, `ContractError` when the response cannot be written as JSON."""
    entry = {
        "format": FORMAT,
        "key": request.key,
        "endpoint": request.path,
        "repeat": request.repeat,
        "request": request.body,
        "status": received.status,
        "request_id": received.request_id,
        "elapsed_s": received.elapsed_s,
        "received_at": received.received_at,
        "evidence": received.evidence,
        "response": received.data,
    }
    try:
        data = encode_entry(entry)
    except TypeError as error:  # nested deeper than orjson writes: the client refuses such responses first
        raise ContractError(f"{describe(request)}: the response cannot be saved ({error})") from None
    if secret is not None and secret.echoed_in(data):  # the client refuses such responses first
        raise KeyEchoed(f"{describe(request)}: the response holds the API key it was sent with, so it was not saved")
    return data


_EXCHANGE = ("response", "status", "request_id", "elapsed_s", "received_at", "evidence")


def _received(entry: dict[str, Any], path: object) -> Received:
    """The exchange an entry saved, as the client returned it."""
    missing = [name for name in _EXCHANGE if name not in entry]
    if missing or entry["evidence"] not in EVIDENCE:
        raise CorruptEntry(path, f"the entry lacks {', '.join(missing) or 'a known evidence'}")
    return Received(data=entry["response"], status=entry["status"], request_id=entry["request_id"],
                    elapsed_s=entry["elapsed_s"], received_at=entry["received_at"], evidence=entry["evidence"])


def checksum_of(raw: bytes) -> str:
    """The SHA-256 on an entry's checksum line (`raw` already checked by `decode_entry`)."""
    return raw[len(_HEAD) : _HEAD_END].decode("ascii")


def stamp(found: os.stat_result) -> Stamp:
    """A file's stamp (`store.Stamp`) from its status."""
    return found.st_size, found.st_mtime_ns, found.st_ctime_ns, found.st_ino, found.st_dev


def read_entry(raw: bytes, request: ApiRequest, where: object) -> Received:
    """The exchange a store's saved bytes hold for `request`: checked (`decode_entry`), and its own; `CorruptEntry`
    naming `where` otherwise. Every store reads its entries through this."""
    entry = decode_entry(raw, where)
    if entry.get("key") != request.key:
        raise CorruptEntry(where, "the entry does not belong to this request")
    return _received(entry, where)


def missing(request: ApiRequest) -> MissingResponse:
    """What a store raises for a request it holds no response to: the request named."""
    return MissingResponse(request.label or f"a request to {request.path}")


def required(saved: Received | None, request: ApiRequest) -> Received:
    """`saved`, or `MissingResponse` naming the request when a store holds none: every store's `require`."""
    if saved is None:
        raise missing(request)
    return saved


class FileStore:
    """Saved responses of one run directory, one file each (the `store.ResponseStore` of format `FORMAT`).
    Lookups are by `ApiRequest.key`."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        self.root = self.run_dir / "responses"
        self._prefix = os.path.join(self.root, "")

    def path(self, request: ApiRequest) -> Path:
        return Path(self._location(request.key))

    def where(self, request: ApiRequest) -> str:
        return self._location(request.key)

    def entry(self, key: str) -> Stamp | None:
        """The stamp of `key`'s entry file (`store.Stamp`, one `stat`, as `read` opens it); None when the run holds
        none."""
        try:
            found = os.stat(self._location(key))
        except (FileNotFoundError, NotADirectoryError):
            return None
        return stamp(found)

    def checksum(self, key: str) -> str | None:
        """The SHA-256 the entry of `key` holds on its checksum line, the entry read whole and checked against it
        (`decode_entry`); None when there is none, or it cannot be trusted (a replay then reads it and says why)."""
        path = self._location(key)
        try:
            raw = read_whole(path)[1]
            decode_entry(raw, path)
        except (OSError, CorruptEntry):
            return None
        return checksum_of(raw)

    def keys(self) -> Iterator[str]:
        """Every key the store holds (the name of every entry file), in no particular order."""
        for folder in sorted(self.root.glob("??")):
            for path in folder.glob("*.json"):
                yield path.stem

    def close(self) -> None:
        """Nothing to release: every entry is a file, closed as soon as it is read or written."""

    def _location(self, key: str) -> str:
        return f"{self._prefix}{key[:2]}/{key}.json"  # a string: replay looks up ~100,000 of these

    def get(self, request: ApiRequest) -> Received | None:
        """The saved response to `request`, None when there is none; `CorruptEntry` if it cannot be trusted."""
        path = self._location(request.key)
        try:
            raw = read_whole(path)[1]
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as error:
            raise CorruptEntry(path, f"cannot be read ({error.strerror or error})") from None
        return read_entry(raw, request, path)

    def require(self, request: ApiRequest) -> Received:
        """The saved response to `request`; `MissingResponse` naming the request when there is none."""
        return required(self.get(request), request)

    def read(self, request: ApiRequest) -> tuple[Received, Entry]:
        """`require`, with the entry read (`store.Entry`): its key, its checksum, and its stamp from the open file
        (`fstat`) before its bytes are read, one look at the path fewer than `entry` then `require`, and the same
        errors: where `entry`'s `stat` would fail (a loop of links, a folder it may not search: a problem of the
        run's directory) its `OSError`, else `require`'s."""
        path = self._location(request.key)
        try:
            found, raw = read_whole(path)
        except (FileNotFoundError, NotADirectoryError):
            raise missing(request) from None
        except OSError as error:
            if self.entry(request.key) is None:  # (`stat` raises what it raised before `require` was reached)
                raise missing(request) from None
            raise CorruptEntry(path, f"cannot be read ({error.strerror or error})") from None
        return read_entry(raw, request, path), (request.key, checksum_of(raw), stamp(found))

    def put(self, request: ApiRequest, received: Received, secret: Secret | None = None) -> None:
        """Save a successful response; it is on disk, whole, when this returns. `StorageError` when the
        disk refuses (full, read-only): every response saved before stays valid. Nothing is written when the
        entry would hold `secret` in any form (`KeyEchoed`) or cannot be written as JSON (`ContractError`)."""
        data = entry_bytes(request, received, secret)
        path = self.path(request)
        try:
            private_dir(path.parent)
            write_private(path, data)
        except OSError as error:
            raise StorageError(
                f"cannot save a response under {self.root} ({error.strerror or error}); "
                "free some space or fix the permissions, then rerun: nothing already saved is lost"
            ) from None


@dataclass
class CacheCounts:
    """What a `CachingClient` did: responses served from the cache, sent for, and corrupt entries replaced."""

    from_cache: int = 0
    sent: int = 0
    replaced: int = 0


def admit_all(request: ApiRequest, received: Received) -> None:
    """The default admission check: every response is saved."""


class CachingClient:
    """Looks like the client it wraps (`send(request) -> Received`), with the run's cache in front.

    A request whose response is saved is answered from the cache; any other is sent, shown to
    `admit` (which raises to keep a response out: the recorder checks the evidence and the API
    contract there), saved whole, and only then returned. A corrupt entry counts as missing and is
    replaced. With `refused`, a response refused as breaking the contract is remembered there, and a
    request refused before is not sent again (`RefusedBefore`).
    """

    def __init__(self, client: Sender, cache: ResponseStore,
                 admit: Callable[[ApiRequest, Received], None] = admit_all, counts: CacheCounts | None = None,
                 secret: Secret | None = None, refused: Refusals | None = None) -> None:
        self.client = client
        self.refused = refused
        self.cache = cache
        self.admit = admit
        self.counts = counts if counts is not None else CacheCounts()
        self.secret = secret  # an entry holding the key in any form is never written

    async def send(self, request: ApiRequest) -> Received:
        try:
            saved = self.cache.get(request)
        except CorruptEntry:
            self.counts.replaced += 1
            saved = None
        if saved is not None:
            self.counts.from_cache += 1
            return saved
        if self.refused is not None:
            self.refused.check(request)
        received = await self.client.send(request)
        try:
            self.admit(request, received)
            self.cache.put(request, received, self.secret)
        except ContractError as error:
            if self.refused is not None:
                secret = self.secret or Secret()
                self.refused.put(request, received, secret.redact(str(error)), secret)
            raise
        self.counts.sent += 1
        return received


ResponseCache = FileStore  # the name the recorder and the tests have always used for the file store

