"""The one door to a run's saved responses: the `ResponseStore` protocol, and `open_store`, the one place a store
is made, chosen by the run's cache format (run.json's `cache_format`).

A store saves one successful response per request, keyed by `ApiRequest.key`, and gives it back exactly:

    store.get(request)       the saved exchange, or None; `CorruptEntry` for one that cannot be trusted
    store.require(request)   the same, or `MissingResponse` naming the request
    store.put(request, received, secret)   saved whole before it returns (never one holding the key)
    store.entry(key)         the saved entry's identity (its key, how big, when last changed), or None: what
                             the replay index checks, one cheap look each
    store.read(request)      `require` and the identity of the entry read, taken before its bytes are (what
                             the replay records for the index: a change after it is seen next time)
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

Entry = tuple[str, int, int]  # an entry's key, its size, and when it last changed (a store's own clock, e.g. ns)


class ResponseStore(Protocol):
    def get(self, request: ApiRequest) -> Received | None: ...

    def require(self, request: ApiRequest) -> Received: ...

    def put(self, request: ApiRequest, received: Received, secret: Secret | None = None) -> None: ...

    def entry(self, key: str) -> Entry | None: ...

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
