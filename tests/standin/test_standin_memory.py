"""The command-line stand-in serves 100,000-question recordings: it keeps no request bodies, and remembers each
distinct body by its digest only (how often it was answered, for repeats), never the body itself."""

from __future__ import annotations

import json

from conftest import KEY, TEN_SCENARIO
from quotefinder.core.perplexity import read_search
from quotefinder.recipe import contract
from quotefinder.recipe.config import RECIPE
from quotefinder.standin import FakeApi, load_scenario


def test_a_server_that_keeps_no_log_holds_only_digests() -> None:
    api = FakeApi(load_scenario(TEN_SCENARIO), log=False)
    search = RECIPE.search_request("How many bones are in the adult human body?")
    for _ in range(3):
        status, _ = api.respond(search.path, json.dumps(search.body).encode(), KEY)
        assert status == 200
    assert api.requests == []
    results = api.search(search.body)["results"]
    rank = contract.rank_request(search.body["query"], read_search({"results": results})[0],
                                 ["The adult human skeleton has 206 bones in all of its parts."])
    for _ in range(2):
        assert api.respond(rank.path, json.dumps(rank.body).encode(), KEY)[0] == 200
    assert list(api._seen.values()) == [2] and all(len(key) == 32 for key in api._seen)
