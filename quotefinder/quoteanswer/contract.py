"""The quote-answer API's contract: the request body it is sent, and what is read from its response.

    POST {QUOTEANSWER_BASE_URL}/api/answer
    {"query": Q, "tier": T, "limit": L, "passages": P, "format": "json"}   (+ "domain", "recency", "category"
                                                                            when the pipeline sets them)

The reader checks everything the decision reads and raises `ContractError` otherwise, so that a response that
breaks it is never cached: `answer`, `sources[]` (`n`, `title`, `url`), `passages[]` (`source`, `text`),
`considered`, `pages_read`, `usage`, `message`; no more passages than the request asked for, every passage's
`source` is the `n` of a source, every passage is a span of `answer` (in order), and every `[n]` marker in
`answer` outside them resolves to a source (read bounded: a marker of more than `recipe.contract.CITED_DIGITS`
digits resolves to none, and is never made an integer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..core.errors import ContractError
from ..core.requests import ApiRequest, cited, cited_shown, field_of
from ..core.textsafe import is_unicode, shown

ANSWER_PATH = "/api/answer"
MAX_QUERY = 512  # characters: a longer question is an error of that question, never cut
TIERS = ("instant", "deep", "deep_reasoning")
RECENCIES = ("day", "week", "month", "year")
CATEGORIES = ("general", "news", "science", "images", "videos", "it")
MAX_LIMIT = 50  # the API clamps `limit` to 50 and `passages` to 12: larger values are refused here, not clamped
MAX_PASSAGES = 12
MARKER = re.compile(r"\[(\d+)\]")


@dataclass(frozen=True)
class Source:
    n: int
    title: str
    url: str


@dataclass(frozen=True)
class Answer:
    """What one response says: the answer text (empty: nothing to quote), its sources and passages in score
    order, how many passages were available (`considered`), the pages read, and the answer units charged."""

    text: str
    sources: tuple[Source, ...]
    passages: tuple[tuple[int, str], ...]  # (source n, the exact span quoted)
    considered: int
    pages_read: int
    units: int

    def source(self, n: int) -> Source:
        return next(s for s in self.sources if s.n == n)


def answer_request(question: str, tier: str, limit: int, passages: int, repeat: int = 0, *,
                   domain: str | None = None, recency: str | None = None, category: str | None = None
                   ) -> ApiRequest:
    """The request for one configuration (`passages`, `tier`); `ContractError` for a question longer than the
    API takes, which is never cut short."""
    if len(question) > MAX_QUERY:
        raise ContractError(f"the question is {len(question)} characters long; the quote-answer API takes at most "
                            f"{MAX_QUERY} (it is never cut short: shorten it in the question file)")
    body: dict[str, Any] = {"query": question, "tier": tier, "limit": limit, "passages": passages, "format": "json"}
    for name, value in (("domain", domain), ("recency", recency), ("category", category)):
        if value is not None:
            body[name] = value
    return ApiRequest(ANSWER_PATH, body, repeat, f"the answer request at passages {passages}, tier {tier}")


def _count(data: Any, name: str, where: str) -> int:
    value = field_of(data, name, where)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ContractError(f"`{name}` in {where} is {shown(value)}, not a count")
    return value


def _text(data: Any, name: str, where: str) -> str:
    value = field_of(data, name, where)
    if not isinstance(value, str):
        raise ContractError(f"{where} has a `{name}` that is not text")
    if not is_unicode(value):
        raise ContractError(f"{where} has a `{name}` that is not valid Unicode (a lone surrogate)")
    return value


def _list(data: Any, name: str) -> list[Any]:
    value = field_of(data, name, "the answer response")
    if not isinstance(value, list):
        raise ContractError(f"the answer response's `{name}` is not a list")
    return value


def _quoted_at(text: str, quoted: str, start: int, markers: list[tuple[int, int, str]]) -> int:
    """Where `quoted` first occurs in `text` from `start` without cutting through a marker (a passage "9" is not
    the 9 of a "[9]"; a passage may hold a whole "[3]" of its page); -1 when it does not."""
    at = text.find(quoted, start)
    while at >= 0 and any(begin < at + len(quoted) and at < end and not (at <= begin and end <= at + len(quoted))
                          for begin, end, _ in markers):
        at = text.find(quoted, at + 1)
    return at


def read_answer(data: Any, asked: int | None = None) -> Answer:
    """An answer response read and checked (see the module docstring); `asked`, the `passages` the request asked
    for, when known: a response carrying more is refused."""
    text = _text(data, "answer", "the answer response")
    sources: list[Source] = []
    for k, item in enumerate(_list(data, "sources"), start=1):
        where = f"source {k}"
        n = _count(item, "n", where)
        if n < 1 or any(s.n == n for s in sources):
            raise ContractError(f"{where} has `n` {n}: a source's number is at least 1 and its own")
        sources.append(Source(n, _text(item, "title", where), _text(item, "url", where)))
    numbers = {s.n for s in sources}
    passages = []
    for k, item in enumerate(_list(data, "passages"), start=1):
        where = f"passage {k}"
        source = _count(item, "source", where)
        if source not in numbers:
            raise ContractError(f"{where} quotes source {source}, which `sources` does not list")
        passages.append((source, _text(item, "text", where)))
    if asked is not None and len(passages) > asked:
        raise ContractError(f"the answer carries {len(passages)} passages where {asked} were asked for")
    markers = [(m.start(), m.end(), m.group(1)) for m in MARKER.finditer(text)]
    spans, start = [], 0  # where each passage is quoted: a "[3]" of a page's own inside one is not a marker
    for k, (_, quoted) in enumerate(passages, start=1):
        at = _quoted_at(text, quoted, start, markers) if quoted else -1
        if at < 0:
            raise ContractError(f"passage {k} is {'empty' if not quoted else 'not in the answer'}: every passage is "
                                "a span the answer quotes verbatim, in the order of `passages`")
        spans.append((at, at + len(quoted)))
        start = at + len(quoted)
    for begin, end, digits in markers:
        if cited(digits) not in numbers and not any(lo <= begin and end <= hi for lo, hi in spans):
            raise ContractError(f"the answer cites [{cited_shown(digits)}], which resolves to no source")
    pages = field_of(data, "pages_read", "the answer response")
    if isinstance(pages, list) and all(isinstance(page, str) for page in pages):
        pages_read = len(pages)
    else:
        pages_read = _count(data, "pages_read", "the answer response")
    message = data.get("message")
    if message is not None and not isinstance(message, str):
        raise ContractError("the answer response has a `message` that is not text")
    units = _count(field_of(data, "usage", "the answer response"), "answers", "`usage`")
    return Answer(text, tuple(sources), tuple(passages), _count(data, "considered", "the answer response"),
                  pages_read, units)
