"""Request bodies, field for field, and the checks on what the pipeline reads from responses."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quotefinder.core.errors import ContractError
from quotefinder.core.perplexity import Result, read_search
from quotefinder.core.requests import ApiRequest, canonical_json
from quotefinder.recipe import contract
from quotefinder.recipe.config import RECIPE

RESULT = Result("Bones of the body", "https://anatomy.example/bones", "ignored", None)
SENTENCES = ["An adult has 206 bones in all.", "The smallest is the stapes in the ear."]


def test_search_body_is_exactly_the_contract() -> None:
    request = RECIPE.search_request("How many bones?")
    assert (request.path, request.repeat) == ("/search", 0)
    assert request.body == {"query": "How many bones?", "max_results": 5, "max_tokens_per_page": 2048}


def test_rank_body_is_exactly_the_recipe_request() -> None:
    body = contract.rank_request("How many bones?", RESULT, SENTENCES).body
    numbered = {"1": SENTENCES[0], "2": SENTENCES[1]}
    assert body == {
        "model": "pplx-decider-v1.1-27b",
        "state": {"question": "How many bones?",
                  "source": {"title": "Bones of the body", "url": "https://anatomy.example/bones"},
                  "sentences": numbered},
        "questions": {
            "best": {
                "type": "choice",
                "instructions": "Which numbered sentence most directly answers the question? Prefer a sentence "
                                "that states the answer itself over one that only mentions the topic.",
                "criteria": numbered,
            },
            "has_answer": {
                "type": "noul",
                "instructions": "Does at least one of the numbered sentences answer the question?",
                "criteria": {
                    "true": "At least one sentence states the answer or directly implies it, so a reader could "
                            "quote that sentence as the answer.",
                    "false": "The sentences discuss the topic but none states the answer, or answering would "
                             "need outside knowledge.",
                },
            },
        },
    }
    assert list(body) == ["model", "state", "questions"]


def test_compare_body_asks_one_noul_per_candidate_in_order() -> None:
    body = contract.compare_request("q?", ["First candidate.", "Second candidate.", "Third candidate."]).body
    assert body["state"] == {"question": "q?", "candidates": {"1": "First candidate.", "2": "Second candidate.",
                                                             "3": "Third candidate."}}
    assert list(body["questions"]) == ["answers_1", "answers_2", "answers_3"]
    assert body["questions"]["answers_2"] == {
        "type": "noul",
        "instructions": "Does candidate 2 state the answer to the question?",
        "criteria": {
            "true": "The sentence contains the answer itself and can be quoted as the answer without adding anything.",
            "false": "The sentence is about the topic but does not contain the answer, or only hints at it.",
        },
    }


def test_key_is_stable_across_dict_order_and_names_path_repeat_and_body() -> None:
    a = ApiRequest("/search", {"query": "q", "max_results": 5, "max_tokens_per_page": 2048})
    b = ApiRequest("/search", {"max_tokens_per_page": 2048, "max_results": 5, "query": "q"})
    assert a.key == b.key and len(a.key) == 64
    assert ApiRequest("/search", a.body, repeat=1).key != a.key
    assert ApiRequest("/other", a.body).key != a.key
    assert ApiRequest("/search", {**a.body, "query": "Q"}).key != a.key


def rank_response(choice: object = "1", has_answer: object = 0.9, probability: object = 0.8) -> dict:
    return {"answers": {"best": {"choice": choice, "confidence": 0.7, "probabilities": {"1": probability, "2": 0.2}},
                        "has_answer": {"noul": has_answer}}, "usage": {"input_tokens": 321}}


def test_read_rank_takes_the_chosen_sentence_and_has_answer() -> None:
    request = contract.rank_request("q", RESULT, SENTENCES)
    rank = contract.read_rank(request, rank_response("2", 0.25, 0.8))
    assert (rank.sentence_id, rank.has_answer, rank.input_tokens) == (2, 0.25, 321)


@pytest.mark.parametrize(("response", "message"), [
    (rank_response(choice="3"), "not one of the numbered sentences"),
    (rank_response(choice="0"), "not one of the numbered sentences"),
    (rank_response(choice=1), "not one of the numbered sentences"),
    (rank_response(has_answer=1.5), "outside [0, 1]"),
    (rank_response(has_answer=-0.1), "outside [0, 1]"),
    (rank_response(has_answer=math.nan), "outside [0, 1]"),
    (rank_response(has_answer=True), "not a probability"),
    (rank_response(has_answer="0.9"), "not a probability"),
    (rank_response(probability=None), "not a probability"),
    ({"answers": {"best": {}}}, "has no `choice`"),
    ({"answers": {"top": {}, "has_answer": {"noul": 0.5}}}, "has no `best`"),
    ({**rank_response(), "usage": {}}, "has no `input_tokens`"),
    ([], "not a JSON object"),
])
def test_read_rank_rejects_what_breaks_the_contract(response: object, message: str) -> None:
    request = contract.rank_request("q", RESULT, SENTENCES)
    with pytest.raises(ContractError, match=message.replace("[", r"\[").replace("]", r"\]")):
        contract.read_rank(request, response)


@pytest.mark.parametrize("response", [rank_response(choice="9" * 100_000), rank_response(has_answer="x" * 100_000),
                                      rank_response(has_answer=[[0.5] * 30_000])])
def test_a_huge_value_the_contract_check_quotes_is_cut(response: object) -> None:
    """The message lands in run.json and on the terminal: it names the value's start (a text's size too, a
    list's first few items), never all of it."""
    request = contract.rank_request("q", RESULT, SENTENCES)
    with pytest.raises(ContractError) as caught:
        contract.read_rank(request, response)
    message = str(caught.value)
    assert len(message) < 300 and ("characters)" in message or ", ...]" in message)


def test_read_compare_needs_every_answer_under_its_name() -> None:
    request = contract.compare_request("q", ["One candidate.", "Another one."])
    good = {"answers": {"answers_1": {"noul": 0.2}, "answers_2": {"noul": 0.9}}, "usage": {"input_tokens": 5}}
    assert contract.read_compare(request, good) == ([0.2, 0.9], 5)
    renamed = {"answers": {"answer_1": {"noul": 0.2}, "answer_2": {"noul": 0.9}}, "usage": {"input_tokens": 5}}
    with pytest.raises(ContractError, match="has no `answers_1`"):
        contract.read_compare(request, renamed)


def test_read_search_keeps_four_fields_and_allows_missing_or_null_dates() -> None:
    data = {"id": "x", "results": [
        {"title": "A", "url": "https://a.example", "snippet": "Text.", "date": "2024-02-26", "last_updated": "x"},
        {"title": "B", "url": "https://b.example", "snippet": "More.", "date": None},
        {"title": "C", "url": "https://c.example", "snippet": "Even more."},
    ]}
    assert read_search(data) == [
        Result("A", "https://a.example", "Text.", "2024-02-26"),
        Result("B", "https://b.example", "More.", None),
        Result("C", "https://c.example", "Even more.", None),
    ]


@pytest.mark.parametrize(("item", "message"), [
    ({"title": "A", "snippet": "s"}, "search result 1 has no `url`"),
    ({"title": "A", "url": "", "snippet": "s"}, "empty `url`"),
    ({"title": 3, "url": "u", "snippet": "s"}, "`title` that is not text"),
    ({"title": "A", "url": "u", "snippet": "s", "date": 2024}, "`date` that is not text"),
])
def test_read_search_rejects_broken_results(item: dict, message: str) -> None:
    with pytest.raises(ContractError, match=message.replace("`", ".")):
        read_search({"results": [item]})


BODY_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(BODY_VALUES)
def test_canonical_json_is_the_standard_librarys_sorted_compact_utf8(value: object) -> None:
    try:
        expected = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    except UnicodeEncodeError:  # a lone surrogate: not valid text, refused before it can become a request
        return
    assert canonical_json(value) == expected


def test_text_that_is_not_valid_unicode_breaks_the_contract() -> None:
    with pytest.raises(ContractError, match="lone surrogate"):
        read_search({"results": [{"title": "A", "url": "https://a.example", "snippet": "bad \udc00 text"}]})
