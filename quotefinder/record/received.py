"""What a response is, apart from how it was fetched: a received exchange, what recording needs of a sender, what a
response is evidence of, and a request in words. No network here, so that reading a run (the cache, the store,
run.json: what every sweep does) never loads the HTTP client (`client`: httpx, and asyncio beside it, about 40 ms
of a sweep's start)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ..core.perplexity import SEARCH_PATH
from ..core.requests import ApiRequest

EVIDENCE = ("live", "synthetic")  # what a response is evidence of: the real API, or the stand-in


@dataclass(frozen=True)
class Received:
    """One successful exchange: the parsed JSON body and what the client saw of it."""

    data: Any
    status: int
    request_id: str
    elapsed_s: float
    received_at: str
    evidence: str  # "live" or "synthetic"


class Sender(Protocol):
    """What recording needs of a client: send one request, get its response or an `ApiError`.

    `ApiClient` is one; `cache.CachingClient` wraps one and is one too.
    """

    async def send(self, request: ApiRequest) -> Received: ...


def describe(request: ApiRequest) -> str:
    """The request in words, for a message: its label, or what kind of request it is."""
    if request.label:
        return request.label
    return "the search" if request.path == SEARCH_PATH else f"a request to {request.path}"
