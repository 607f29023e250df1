"""The Perplexity API's shared part: the search request's body, the usage read from a response, and a search
response read in order or refused with the result and field named."""

from __future__ import annotations

import pytest

from quotefinder.core.errors import ContractError
from quotefinder.core.perplexity import (
    SEARCH_PATH,
    SEARCH_STAGE,
    Result,
    read_search,
    search_reading,
    search_request,
    usage_tokens,
)


def result(**changes: object) -> dict:
    return {"title": "Trench", "url": "https://a.example", "snippet": "It is 10,984 m deep.", "date": None, **changes}


def test_the_search_request_says_the_question_and_the_limits() -> None:
    request = search_request("How deep?", 2, max_results=5)
    assert (request.path, request.repeat, request.label) == (SEARCH_PATH, 2, "the search")
    assert request.body == {"query": "How deep?", "max_results": 5, "max_tokens_per_page": 2048}


def test_a_search_response_is_read_in_order_and_compared_by_url_and_text() -> None:
    data = {"results": [result(), result(url="https://b.example", snippet="Other", date="2024-01-01")]}
    assert read_search(data) == [Result("Trench", "https://a.example", "It is 10,984 m deep.", None),
                                 Result("Trench", "https://b.example", "Other", "2024-01-01")]
    reading = search_reading(data)
    assert reading.stage == SEARCH_STAGE and reading.top == "https://a.example"
    assert search_reading({"results": []}).top == ""


@pytest.mark.parametrize(("data", "problem"), [
    ({}, "the search response has no `results`"),
    ({"results": {}}, "`results` is not a list"),
    ({"results": [result(title=3)]}, "search result 1 has a `title` that is not text"),
    ({"results": [result(), result(url="")]}, "search result 2 has an empty `url`"),
    ({"results": [result(snippet="\ud800")]}, "search result 1 has a `snippet` that is not valid Unicode"),
    ({"results": [result(date=2024)]}, "search result 1 has a `date` that is not text"),
    ({"results": ["text"]}, "search result 1 is not a JSON object"),
])
def test_a_search_response_that_breaks_the_contract_is_refused(data: dict, problem: str) -> None:
    with pytest.raises(ContractError, match=problem):
        read_search(data)


def test_usage_is_a_count_of_input_tokens() -> None:
    assert usage_tokens({"usage": {"input_tokens": 12}}) == 12
    for tokens in (-1, 1.5, True, "12"):
        with pytest.raises(ContractError, match="`usage.input_tokens` is .*, not a count"):
            usage_tokens({"usage": {"input_tokens": tokens}})
    with pytest.raises(ContractError, match="the response has no `usage`"):
        usage_tokens({})
