"""The one door to a run's saved responses: the `ResponseStore` protocol, and `open_store`, the one place a store
is made, chosen by the run's cache format (run.json's `cache_format`).

A store saves one successful response per request, keyed by `ApiRequest.key`, and gives it back exactly:

    store.get(request)       the saved exchange, or None; `CorruptEntry` for one that cannot be trusted
    store.require(request)   the same, or `MissingResponse` naming the request
    store.put(request, received, secret)   saved whole before it returns (never one holding the key)
    store.entry(key)         the saved entry's stamp (`Stamp`: what git's index trusts of a file: its size,
                             modification and change times, inode and device), or None: what the replay
                             index checks, one cheap look each
    store.read(request)      `require` and the entry read (`Entry`: its key, its checksum, and its stamp
                             taken before its bytes are): what the replay records for the index, so that a
                             change after it is seen next time
    store.checksum(key)      the entry read whole and checked, its checksum; None when it is missing or
                             cannot be trusted: how the index checks an entry its stamp cannot vouch for
    store.where(request)     where the entry is, for messages
    store.keys()             every key it holds
    store.close()

Today's store is one file per response (`cache.FileStore`, format `quotefinder-cache/1`); a store of another
format is added here, and nothing that uses a store changes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from ..core.errors import RunDirError
from ..core.requests import ApiRequest
from .cache import FORMAT as FILE_FORMAT
from .cache import FileStore
from .received import Received
from .secret import Secret

# An entry's stamp, as git's index trusts a file (size, modification and change times in ns, inode, device): a
# change to the entry, even to the same length with its old times put back (`touch -r`: the change time moves), or
# another file put at its path (another inode), changes it.
Stamp = tuple[int, int, int, int, int]
Entry = tuple[str, str, Stamp]  # an entry's key, the SHA-256 its checksum line holds, and its stamp


class ResponseStore(Protocol):
    def get(self, request: ApiRequest) -> Received | None: ...

    def require(self, request: ApiRequest) -> Received: ...

    def put(self, request: ApiRequest, received: Received, secret: Secret | None = None) -> None: ...

    def entry(self, key: str) -> Stamp | None: ...

    def checksum(self, key: str) -> str | None: ...

    def read(self, request: ApiRequest) -> tuple[Received, Entry]: ...

    def where(self, request: ApiRequest) -> str: ...

    def keys(self) -> Iterator[str]: ...

    def close(self) -> None: ...


STORES = {FILE_FORMAT: FileStore}  # cache format -> the store that reads and writes it
DEFAULT_FORMAT = FILE_FORMAT


def open_store(run_dir: Path, cache_format: str | None = None) -> ResponseStore:
    """The store of a run directory, of the format its run.json records (`DEFAULT_FORMAT` for a new run, or one
    whose run.json predates the key); `RunDirError` naming the known formats for any other."""
    chosen = cache_format or DEFAULT_FORMAT
    if chosen not in STORES:
        raise RunDirError(f"{run_dir}: its responses are stored as {chosen!r}, which this version does not read "
                          f"(it reads {', '.join(sorted(STORES))}); use the version that recorded it")
    return STORES[chosen](run_dir)
