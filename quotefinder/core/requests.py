"""What every system's requests are and how a response is read: one POST (`ApiRequest`), its identity (the key
of the response cache) over canonical JSON, and the checks a reader makes of a response's fields, each raising
`ContractError` with the field's path, so that a malformed response is never cached and never becomes a silent
"missed" in a table.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import orjson

from .errors import ContractError
from .textsafe import shown

KEY_VERSION = "quotefinder-request/1"


def canonical_json(value: Any) -> bytes:
    """One spelling per JSON value: keys sorted, no whitespace, UTF-8, nothing escaped that need not be.

    For what request bodies hold (text, integers, booleans, null, lists, objects) these are exactly
    the bytes of ``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    .encode()`` (a test holds the two together), produced by orjson because a replay computes one
    for each of ~100,000 requests.
    """
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


@dataclass(frozen=True, eq=False)
class ApiRequest:
    """One POST: the endpoint path, the JSON body exactly as sent, and the repeat index."""

    path: str
    body: dict[str, Any]
    repeat: int = 0
    label: str = ""  # words for messages; not part of the identity

    @cached_property
    def key(self) -> str:
        """The request's identity: SHA-256 over a version, the path, the repeat and the canonical body.

        The base URL, headers and the API key are not part of it, so a proxy or the stand-in
        replays the same entries and a key never reaches the cache.
        """
        head = f"{KEY_VERSION}\n{self.path}\n{self.repeat}\n".encode()
        return hashlib.sha256(head + canonical_json(self.body)).hexdigest()


CITED_DIGITS = 4  # a cited number of more digits (leading zeros aside) names no source any answer has


def cited(digits: str) -> int | None:
    """The number a citation's digits write (`[n]` in answer text), or None when it has more than CITED_DIGITS:
    page or model text never becomes an unbounded integer."""
    kept = digits.lstrip("0")
    return int(kept or "0") if len(kept) <= CITED_DIGITS else None


def cited_shown(digits: str) -> str:
    """A citation's digits as a message quotes them: whole, or the first few and how many there are."""
    return digits if len(digits) <= 12 else f"{digits[:8]}... ({len(digits)} digits)"


def field_of(data: Any, name: str, where: str) -> Any:
    if not isinstance(data, dict):
        raise ContractError(f"{where} is not a JSON object")
    if name not in data:
        raise ContractError(f"{where} has no `{name}`")
    return data[name]


def probability(value: Any, where: str) -> float:
    """A probability: a finite number in [0, 1]. Booleans are not numbers here."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ContractError(f"{where} is {shown(value)}, not a probability")
    value = float(value)
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        raise ContractError(f"{where} is {shown(value)}, outside [0, 1]")
    return value
