"""The Perplexity APIs two systems call (the quote finder and the one-shot pipeline): where they are, what a
search request says, and what a search and a Decisions response's usage hold. The quote finder's rank and compare
requests are its own (`recipe.contract`); the one-shot pipeline's rank request is its own (`oneshot.contract`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .errors import ContractError
from .plugin import ApiSpec, Reading
from .requests import ApiRequest, field_of
from .textsafe import is_unicode, shown

PERPLEXITY = ApiSpec("the Perplexity API", "PERPLEXITY_BASE_URL", "PERPLEXITY_API_KEY", "https://api.perplexity.ai")
SEARCH_PATH = "/search"
DECISIONS_PATH = "/v1/decisions"
MODEL = "pplx-decider-v1.1-27b"
MAX_TOKENS_PER_PAGE = 2048
MAX_SEARCH_RESULTS = 20  # the Search API's limit on max_results
MAX_OPTIONS = 255  # the Decisions API's limit on a choice's options


@dataclass(frozen=True)
class Result:
    """One search result. The snippet is the only text a quote may come from."""

    title: str
    url: str
    snippet: str
    date: str | None


def search_request(question: str, repeat: int = 0, *, max_results: int,
                   max_tokens_per_page: int = MAX_TOKENS_PER_PAGE) -> ApiRequest:
    """The Search API request: the question, `max_results` results (the recipe's five), `max_tokens_per_page`
    tokens of text per page (the recipe's 2,048)."""
    body = {"query": question, "max_results": max_results, "max_tokens_per_page": max_tokens_per_page}
    return ApiRequest(SEARCH_PATH, body, repeat, "the search")


def usage_tokens(data: Any) -> int:
    tokens = field_of(field_of(data, "usage", "the response"), "input_tokens", "`usage`")
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        raise ContractError(f"`usage.input_tokens` is {shown(tokens)}, not a count")
    return tokens


def read_search(data: Any) -> list[Result]:
    """The results of a search response, in order. `date` may be missing or null."""
    items = field_of(data, "results", "the search response")
    if not isinstance(items, list):
        raise ContractError("the search response's `results` is not a list")
    results = []
    for n, item in enumerate(items, start=1):
        where = f"search result {n}"
        fields = {}
        for name in ("title", "url", "snippet"):
            value = field_of(item, name, where)
            if not isinstance(value, str):
                raise ContractError(f"{where} has a `{name}` that is not text")
            if not is_unicode(value):
                raise ContractError(f"{where} has a `{name}` that is not valid Unicode (a lone surrogate)")
            fields[name] = value
        if not fields["url"]:
            raise ContractError(f"{where} has an empty `url`")
        date = item.get("date")
        if date is not None and not isinstance(date, str):
            raise ContractError(f"{where} has a `date` that is not text")
        results.append(Result(fields["title"], fields["url"], fields["snippet"], date))
    return results




SEARCH_STAGE = "search results"


def search_reading(data: Any) -> Reading:
    """A search's results as a refresh compares them: each result's URL and text in order, and the top one."""
    results = read_search(data)
    return Reading(SEARCH_STAGE, tuple((r.url, r.snippet) for r in results), top=results[0].url if results else "")
