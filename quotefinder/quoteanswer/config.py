"""The quote-answer system's pipeline as data: what every request sends, the default configuration first.

    system: quote-answer
    name: quote-answer        # shown in every report; names the default run directory
    tier: instant             # instant, deep or deep_reasoning: the default tier (an axis)
    passages: 5               # 1 to 12: how many quotes the answer carries by default (an axis)
    limit: 10                 # 1 to 50: how many ranked results it may quote from
    domain: null              # optional: only pages from this domain
    recency: null             # optional: day, week, month or year
    category: null            # optional: general, news, science, images, videos or it

`domain`, `recency` and `category` are sent only when set. `tier` and `passages` are the axes' defaults: a
recording covers the configurations `--range passages=...` and `--range tier=...` name, the default always.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from ..core.requests import ApiRequest
from ..core.schema import Fail, OwnPipeline, check_section, check_value, whole_number
from ..core.textsafe import shown
from . import contract

SYSTEM = "quote-answer"


@dataclass(frozen=True)
class QuoteAnswerPipeline(OwnPipeline):
    """Every value a quote-answer request sends; frozen and hashable, the API's defaults by default."""

    system: ClassVar[str] = SYSTEM

    name: str = SYSTEM
    tier: str = "instant"
    passages: int = 5
    limit: int = 10
    domain: str | None = None
    recency: str | None = None
    category: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "tier": self.tier, "passages": self.passages, "limit": self.limit,
                "domain": self.domain, "recency": self.recency, "category": self.category}

    def request(self, question: str, passages: int, tier: str, repeat: int = 0) -> ApiRequest:
        """The request for one configuration; `ContractError` for a question longer than the API takes."""
        return contract.answer_request(question, tier, self.limit, passages, repeat, domain=self.domain,
                                       recency=self.recency, category=self.category)

    @classmethod
    def build(cls, data: Any, fail: Fail, strict: bool, also: tuple[str, ...] = ()) -> QuoteAnswerPipeline:
        return _build(data, fail, strict, also)


DEFAULT = QuoteAnswerPipeline()

SCHEMA: dict[str, Any] = {"name": "name", "tier": "tier", "passages": "passages", "limit": "limit",
                          "domain": "domain", "recency": "recency", "category": "category"}
_CHOICES = {"tier": contract.TIERS, "recency": contract.RECENCIES, "category": contract.CATEGORIES}
_CEILINGS = {"passages": contract.MAX_PASSAGES, "limit": contract.MAX_LIMIT}


def _value(kind: str, value: Any, keys: tuple[str, ...], fail: Fail) -> Any:
    if kind == "name":
        return check_value(kind, value, keys, fail)
    if value is None and kind in ("domain", "recency", "category"):
        return None  # not set: not sent
    if kind in _CEILINGS:
        return whole_number(value, keys, fail, _CEILINGS[kind])
    if kind in _CHOICES:
        if value not in _CHOICES[kind]:
            raise fail(keys, f"`{kind}` is {shown(value)}, not one of {', '.join(_CHOICES[kind])}")
        return value
    text = check_value("text", value, keys, fail)  # domain
    if any(c.isspace() for c in text) or "/" in text:
        raise fail(keys, f"`domain` is {shown(value)}, not a domain name such as example.org")
    return text


def _build(data: Any, fail: Fail, strict: bool, also: tuple[str, ...] = ()) -> QuoteAnswerPipeline:
    found: dict[tuple[str, ...], Any] = {}
    check_section(data, SCHEMA, (), fail, strict, also, found, _value)
    return dataclasses.replace(DEFAULT, **{keys[0]: value for keys, value in found.items()})


