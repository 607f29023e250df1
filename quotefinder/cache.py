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
Files are created 0600 and directories 0700: responses hold third-party web text.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from .contract import ApiRequest
from .errors import CorruptEntry

FORMAT = "quotefinder-cache/1"
_HEAD = b'{"sha256": "'
_DIGITS = 64
_HEAD_END = len(_HEAD) + _DIGITS
_SEPARATOR = b'",\n'


@dataclass(frozen=True)
class Received:
    """One successful HTTP exchange, as the client saw it."""

    data: Any
    status: int
    request_id: str
    elapsed_s: float
    received_at: str
    evidence: str  # "live" or "synthetic"


def private_dir(path: Path) -> None:
    """Create `path` and its missing parents as 0700 directories."""
    missing = []
    while not path.exists():
        missing.append(path)
        path = path.parent
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):
            directory.mkdir(mode=0o700)


def write_private(path: Path, data: bytes) -> None:
    """`write_atomic` for files only their owner may read (0600)."""
    write_atomic(path, data, 0o600)


def write_atomic(path: Path, data: bytes, mode: int) -> None:
    """Write `data` to `path` atomically: a temporary file, fsync, rename, fsync the directory.

    On any failure (a full disk, say) the temporary file is removed and `path` is untouched.
    """
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


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
        raise CorruptEntry(path, f"cache format {found!r}, this version reads {FORMAT!r}")
    return entry


class ResponseCache:
    """Saved responses of one run directory. Lookups are by `ApiRequest.key`; nothing is listed."""

    def __init__(self, run_dir: Path) -> None:
        self.root = Path(run_dir) / "responses"
        self._prefix = os.path.join(self.root, "")

    def path(self, request: ApiRequest) -> Path:
        return Path(self._location(request.key))

    def _location(self, key: str) -> str:
        return f"{self._prefix}{key[:2]}/{key}.json"  # a string: replay looks up ~100,000 of these

    def get(self, request: ApiRequest) -> dict[str, Any] | None:
        """The saved entry for `request`, None when there is none; `CorruptEntry` if it cannot be trusted."""
        path = self._location(request.key)
        try:
            with open(path, "rb") as handle:
                raw = handle.read()
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as error:
            raise CorruptEntry(path, f"cannot be read ({error.strerror or error})") from None
        entry = decode_entry(raw, path)
        if entry.get("key") != request.key or "response" not in entry:
            raise CorruptEntry(path, "the entry does not belong to this request")
        return entry

    def put(self, request: ApiRequest, received: Received) -> dict[str, Any]:
        """Save a successful response; it is on disk, whole, when this returns."""
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
        path = self.path(request)
        private_dir(path.parent)
        write_private(path, encode_entry(entry))
        return entry
