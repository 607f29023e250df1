"""What is read from the one-shot pipeline's responses: citations as written (lists and ranges, bounded), a
citation outside the kept sources is broken, and a rank or summary response that breaks what is read is refused."""

from __future__ import annotations

import pytest

from quotefinder.core.errors import ContractError
from quotefinder.core.perplexity import Result
from quotefinder.oneshot import contract
from quotefinder.oneshot.config import DEFAULT
from quotefinder.oneshot.system import ONE_SHOT, Trace


def test_citations_are_read_as_written_lists_and_ranges_included() -> None:
    assert contract.citations("a [1] b [2, 4] c [3-5] d", 5) == ([1, 2, 4, 3, 4, 5], "")
    assert contract.citations("a [001] b [4-2]", 5) == ([1, 4, 2], "")  # leading zeros; a range written backwards
    assert contract.citations("a [1] b [1-3]", 2) == ([1], "3")  # a range is expanded only within the sources
    assert contract.citations("a [1-99999999999]", 5) == ([], "99999999999")
    assert contract.citations(f"a [{'9' * 5000}]", 5) == ([], "99999999... (5000 digits)")
    trace = Trace("q", 0, [Result("t", f"u{n}", "s", None) for n in range(1, 4)], relevance={1: 0.9, 2: 0.8, 3: 0.7})
    trace.summaries[(1, 2)] = "It is deep [1-3]"
    assert "cites [3]" in ONE_SHOT.decide(trace, 0.8, 2).quoted.broken  # the range reaches a source not kept
    trace.summaries[(1, 2)] = "It is deep [1, 2]"
    assert ONE_SHOT.decide(trace, 0.8, 2).quoted.broken == ""


def test_what_is_read_is_checked_and_a_response_that_breaks_it_is_refused() -> None:
    rank = DEFAULT.rank_request("q", [(1, Result("t", "u", "s", None))])
    assert contract.read_rank(rank, {"answers": {"relevant_1": {"noul": 0.4}}}) == {1: 0.4}
    with pytest.raises(ContractError, match="not a probability"):
        contract.read_rank(rank, {"answers": {"relevant_1": {"noul": 1.5}}})
    with pytest.raises(ContractError, match="has no `relevant_1`"):
        contract.read_rank(rank, {"answers": {}})
    assert contract.read_summary({"choices": [{"message": {"content": "x [1]"}}]}) == "x [1]"
    for broken, words in [({"choices": []}, "not a non-empty list"),
                          ({"choices": [{"message": {"content": None}}]}, "not text"), ({}, "has no `choices`")]:
        with pytest.raises(ContractError, match=words):
            contract.read_summary(broken)
