"""A request's identity and the checks a reader makes: canonical JSON is json.dumps' sorted, compact spelling; the
key covers the version, path, repeat and body and nothing else; citations and probabilities are read or refused
with the field's path."""

from __future__ import annotations

import json
import random

import pytest

from quotefinder.core.errors import ContractError
from quotefinder.core.requests import (
    ApiRequest,
    canonical_json,
    cited,
    cited_shown,
    field_of,
    probability,
)


def random_json(rng: random.Random, depth: int = 0):
    kind = rng.randrange(7 if depth < 3 else 5)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.randint(-10**12, 10**12)
    if kind in (2, 3, 4):
        return "".join(rng.choice("aé€\"\\\n\t😀</>&'") for _ in range(rng.randrange(8)))
    if kind == 5:
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {f"k{rng.randrange(20)}é": random_json(rng, depth + 1)
            for _ in range(rng.randrange(4))}


def test_canonical_json_is_json_dumps_sorted_and_compact() -> None:
    rng = random.Random(3)
    for _ in range(500):
        value = random_json(rng)
        assert canonical_json(value) == json.dumps(value, sort_keys=True, separators=(",", ":"),
                                                   ensure_ascii=False).encode()


def test_the_key_is_the_request_and_never_its_label() -> None:
    request = ApiRequest("/search", {"b": 1, "a": [1, 2]}, repeat=0)
    assert request.key == ApiRequest("/search", {"a": [1, 2], "b": 1}, label="words").key  # key order, label: same
    others = {ApiRequest("/search", {"b": 1, "a": [1, 2]}, repeat=1).key,
              ApiRequest("/rank", {"b": 1, "a": [1, 2]}).key, ApiRequest("/search", {"b": 2, "a": [1, 2]}).key}
    assert request.key not in others and len(others) == 3
    assert len(request.key) == 64 and int(request.key, 16) >= 0


def test_citations_are_bounded_numbers() -> None:
    assert cited("7") == 7 and cited("0007") == 7 and cited("0") == 0 and cited("9999") == 9999
    assert cited("10000") is None and cited("9" * 5000) is None
    assert cited_shown("123") == "123" and cited_shown("1" * 40) == "11111111... (40 digits)"


def test_fields_and_probabilities_are_read_or_refused_with_their_path() -> None:
    assert field_of({"a": 1}, "a", "the search response") == 1
    with pytest.raises(ContractError, match="the search response has no `b`"):
        field_of({"a": 1}, "b", "the search response")
    with pytest.raises(ContractError, match="result 2 is not a JSON object"):
        field_of([1], "a", "result 2")
    assert probability(1, "p") == 1.0 and probability(0.25, "p") == 0.25
    for value, words in [(True, "not a probability"), ("0.5", "not a probability"), (1.5, r"outside \[0, 1\]"),
                         (float("nan"), r"outside \[0, 1\]"), (-0.0001, r"outside \[0, 1\]")]:
        with pytest.raises(ContractError, match=f"^choice 1 is .*{words}"):
            probability(value, "choice 1")
