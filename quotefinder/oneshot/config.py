"""The one-shot pipeline as data: every value its requests send, its defaults first.

    system: one-shot
    name: one-shot
    model: pplx-decider-v1.1-27b          # the Decisions API model that ranks the hits
    search: {hits_per_query: 8, max_tokens_per_page: 2048}
    rank: {instructions: "... hit {n} ...", criteria: {"true": "...", "false": "..."}}
    summarize: {model: sonar, instructions: "..."}
    min_relevance: 0.5                    # the axes' defaults: the lowest relevance kept ...
    max_sources: 5                        # ... and how many of the best kept hits are summarized

The question is the single search query (the seed's plan step is skipped when the caller passes queries),
each kept hit's own snippet is read (its `use_search_content`), and nothing is scraped.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from ..core import perplexity
from ..core.perplexity import MAX_SEARCH_RESULTS, MAX_TOKENS_PER_PAGE, MODEL, Result
from ..core.requests import ApiRequest
from ..core.schema import (
    CRITERIA_SCHEMA,
    Criteria,
    Fail,
    OwnPipeline,
    check_section,
    check_value,
    field_values,
    whole_number,
)
from ..core.textsafe import shown
from . import contract

SYSTEM = "one-shot"
MAX_SOURCES = MAX_SEARCH_RESULTS  # at most every hit a search returns
RANK_INSTRUCTIONS = "Could hit {n} help answer the question, judging only by its title, URL and description?"
RANK_CRITERIA = Criteria(
    true="The hit is about what the question asks, so its page is likely to state or support the answer.",
    false="The hit is off the topic, or only mentions words of the question without being about it.")
SUMMARY_INSTRUCTIONS = "Answer the question from the numbered sources only, briefly."  # then `contract.ANSWER_FORM`


@dataclass(frozen=True)
class OneShotPipeline(OwnPipeline):
    """Every value a one-shot recording sends; frozen and hashable."""

    system: ClassVar[str] = SYSTEM

    name: str = SYSTEM
    model: str = MODEL
    hits_per_query: int = 8
    max_tokens_per_page: int = MAX_TOKENS_PER_PAGE
    rank_instructions: str = RANK_INSTRUCTIONS
    rank_criteria: Criteria = RANK_CRITERIA
    summary_model: str = "sonar"
    summary_instructions: str = SUMMARY_INSTRUCTIONS
    min_relevance: float = 0.5
    max_sources: int = 5

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "model": self.model,
                "search": {"hits_per_query": self.hits_per_query, "max_tokens_per_page": self.max_tokens_per_page},
                "rank": {"instructions": self.rank_instructions, "criteria": self.rank_criteria.as_json()},
                "summarize": {"model": self.summary_model, "instructions": self.summary_instructions},
                "min_relevance": self.min_relevance, "max_sources": self.max_sources}

    def search_request(self, question: str, repeat: int = 0) -> ApiRequest:
        return perplexity.search_request(question, repeat, max_results=self.hits_per_query,
                                                    max_tokens_per_page=self.max_tokens_per_page)

    def rank_request(self, question: str, hits: list[tuple[int, Result]], repeat: int = 0) -> ApiRequest:
        return contract.rank_request(question, hits, repeat, model=self.model, instructions=self.rank_instructions,
                                     criteria=self.rank_criteria.as_json())

    def summary_request(self, question: str, kept: list[Result], repeat: int = 0) -> ApiRequest:
        return contract.summary_request(question, kept, repeat, model=self.summary_model,
                                        instructions=self.summary_instructions)

    @classmethod
    def build(cls, data: Any, fail: Fail, strict: bool, also: tuple[str, ...] = ()) -> OneShotPipeline:
        return _build(data, fail, strict, also)


DEFAULT = OneShotPipeline()

SCHEMA: dict[str, Any] = {
    "name": "name",
    "model": "text",
    "search": {"hits_per_query": "results", "max_tokens_per_page": "positive"},
    "rank": {"instructions": "template", "criteria": CRITERIA_SCHEMA},
    "summarize": {"model": "text", "instructions": "text"},
    "min_relevance": "probability",
    "max_sources": "sources",
}
FIELDS = {("name",): "name", ("model",): "model", ("search", "hits_per_query"): "hits_per_query",
          ("search", "max_tokens_per_page"): "max_tokens_per_page", ("rank", "instructions"): "rank_instructions",
          ("rank", "criteria"): "rank_criteria", ("summarize", "model"): "summary_model",
          ("summarize", "instructions"): "summary_instructions", ("min_relevance",): "min_relevance",
          ("max_sources",): "max_sources"}


def _value(kind: str, value: Any, keys: tuple[str, ...], fail: Fail) -> Any:
    where = ".".join(keys)
    if kind == "probability":
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise fail(keys, f"`{where}` is {shown(value)}, not a number from 0 to 1")
        return float(value)
    if kind == "sources":
        return whole_number(value, keys, fail, MAX_SOURCES)
    return check_value(kind, value, keys, fail)


def _build(data: Any, fail: Fail, strict: bool, also: tuple[str, ...] = ()) -> OneShotPipeline:
    found: dict[tuple[str, ...], Any] = {}
    check_section(data, SCHEMA, (), fail, strict, also, found, _value)
    return dataclasses.replace(DEFAULT, **field_values(found, FIELDS))
