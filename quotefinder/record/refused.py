"""Responses refused before they were cached (they break the API contract, or cannot be read), remembered so that a
rerun does not pay for them again.

Layout: ``<run>/refused/<key[:2]>/<key>.json``, one file per refused request, written as a cache entry is (the
checksum line of `cache.encode_entry`, atomic, 0600) under the `refused` field, with why it was refused and, when
it can be written without the API key, the response itself (for a person to read; it is never read as a response).
A rerun finds the refusal and makes it the error of its question again without sending anything; removing the
file (or the whole `refused` folder) asks again. A torn or edited file counts as no refusal. A reason is kept, and
read back, as one line of at most `REASON_AT_MOST` characters (`textsafe.line`): a refusal file is written by a
recording, but a commit can put a forged one in a run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.errors import CorruptEntry, RefusedBefore
from ..core.requests import ApiRequest
from ..core.storage import private_dir, read_whole, write_private
from ..core.textsafe import line
from .cache import FORMAT, decode_entry, encode_entry
from .received import Received, describe
from .secret import Secret

REASON_AT_MOST = 500


class Refusals:
    """The refusals of one run directory, by request."""

    def __init__(self, run_dir: Path) -> None:
        self.root = Path(run_dir) / "refused"

    def path(self, request: ApiRequest) -> Path:
        return self.root / request.key[:2] / f"{request.key}.json"

    def check(self, request: ApiRequest) -> None:
        """`RefusedBefore` naming the request, why and the file, when its response was refused before."""
        path = self.path(request)
        try:
            entry = decode_entry(read_whole(str(path))[1], path)
        except (OSError, CorruptEntry):
            return
        if entry.get("key") == request.key and isinstance(reason := entry.get("refused"), str):
            raise RefusedBefore(f"{describe(request)}: its response was refused when it was recorded "
                                f"({line(reason, REASON_AT_MOST)}); "
                                f"it is not asked for again: remove {path} to ask again")

    def put(self, request: ApiRequest, received: Received, reason: str, secret: Secret) -> None:
        """Remember that `received` was refused for `reason` (already free of the key); with the response when it
        can be written and holds no form of the key. A disk that refuses the write only means it is asked again."""
        entry: dict[str, Any] = {"format": FORMAT, "key": request.key, "endpoint": request.path,
                                 "repeat": request.repeat, "request": request.body,
                                 "refused": line(reason, REASON_AT_MOST),
                                 "received_at": received.received_at, "evidence": received.evidence}
        data = encode_entry(entry)
        try:
            whole = encode_entry({**entry, "response": received.data})
            data = data if secret.echoed_in(whole) else whole
        except TypeError:  # nested deeper than a cache entry can hold: the reason alone
            pass
        try:
            private_dir(self.root / request.key[:2])
            write_private(self.path(request), data)
        except OSError:
            pass
