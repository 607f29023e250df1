"""The quote-answer pipeline: the request body is the API's contract (optional fields sent only when set, a
question too long refused, never cut), and its pipeline file names its system and every error its line."""

from __future__ import annotations

import re

import pytest

from quotefinder.core.errors import ContractError
from quotefinder.core.pipelinefile import default_file, parse_pipeline_text
from quotefinder.quoteanswer.config import DEFAULT, QuoteAnswerPipeline


def test_the_request_body_is_the_api_contract_and_optional_fields_are_sent_only_when_set() -> None:
    request = DEFAULT.request("How deep is the Mariana Trench?", 3, "deep", repeat=1)
    assert request.path == "/api/answer" and request.repeat == 1
    assert request.body == {"query": "How deep is the Mariana Trench?", "tier": "deep", "limit": 10, "passages": 3,
                            "format": "json"}
    narrowed = QuoteAnswerPipeline(domain="example.org", recency="week", category="science", limit=20)
    assert narrowed.request("q", 5, "instant").body == {"query": "q", "tier": "instant", "limit": 20, "passages": 5,
                                                        "format": "json", "domain": "example.org",
                                                        "recency": "week", "category": "science"}


def test_a_question_longer_than_the_api_takes_is_an_error_never_cut_short() -> None:
    assert DEFAULT.request("x" * 512, 5, "instant").body["query"] == "x" * 512
    with pytest.raises(ContractError, match="513 characters long; the quote-answer API takes at most 512"):
        DEFAULT.request("x" * 513, 5, "instant")


def test_the_pipeline_file_names_its_system_and_every_error_its_line(tmp_path) -> None:
    system, pipeline = parse_pipeline_text(default_file("quote-answer"), tmp_path / "qa.yaml")
    assert (system, pipeline) == ("quote-answer", DEFAULT)
    system, pipeline = parse_pipeline_text("system: quote-answer\ntier: deep\npassages: 8\n", tmp_path / "deep.yaml")
    assert pipeline == QuoteAnswerPipeline(name="deep", tier="deep", passages=8)  # a variant is named by its file
    for text, message in [("tier: fast\n", "line 2: `tier` is 'fast', not one of instant, deep, deep_reasoning"),
                          ("passages: 13\n", "line 2: `passages` is 13, not a whole number from 1 to 12"),
                          ("pasages: 3\n", "line 2: unknown key `pasages` (did you mean `passages`?)"),
                          ("domain: a b\n", "line 2: `domain` is 'a b', not a domain name")]:
        with pytest.raises(Exception, match=re.escape(message)):
            parse_pipeline_text("system: quote-answer\n" + text, tmp_path / "bad.yaml")
