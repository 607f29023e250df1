"""The quote finder as a system (`recipe.system`): its default point and coverage, the requests a recording is
bounded by and expects (the recipe's published figures), and what a refresh compares of each response. Its curve
against its own decision is tests/core/test_plugin.py's."""

from __future__ import annotations

import pytest

from quotefinder.core.perplexity import SEARCH_PATH, search_request
from quotefinder.core.registry import system
from quotefinder.recipe.config import RECIPE
from quotefinder.recipe.system import ANSWER, HAS_ANSWER, QUOTE_FINDER, TOKENS_PER_DECISION, coverage_of, readings


def test_it_is_the_default_system_with_two_cutoff_axes() -> None:
    assert system() is QUOTE_FINDER and QUOTE_FINDER.default is RECIPE
    assert QUOTE_FINDER.axes == (HAS_ANSWER, ANSWER)
    assert QUOTE_FINDER.default_point(RECIPE) == (HAS_ANSWER.default, ANSWER.default)
    assert all(spec.kind == "cutoff" for spec in QUOTE_FINDER.axes)


def test_coverage_is_one_span_and_its_points() -> None:
    coverage = coverage_of({"has_answer": ((0.2, 0.8), 0.5)})
    assert coverage.span == (0.2, 0.8) and coverage.points == (0.5,)
    assert coverage_of({"has_answer": (0.5,)}).span is None
    with pytest.raises(ValueError, match="one HAS_ANSWER_CUTOFF span at a time"):
        coverage_of({"has_answer": ((0.1, 0.2), (0.3, 0.4))})


def test_a_recording_is_bounded_by_a_rank_and_a_compare_per_result() -> None:
    coverage = {"has_answer": ((0.0, 1.0), 0.5)}
    search = [search_request("q", max_results=RECIPE.max_results)]
    assert QUOTE_FINDER.bound(RECIPE, coverage, search, 0, first=True) == 1 + 2 * RECIPE.max_results
    assert QUOTE_FINDER.bound(None, coverage, search, 3, first=False) == 3  # after a compare: what is missing


def test_the_expected_requests_are_the_recipes_published_figures() -> None:
    results = RECIPE.max_results
    requests, tokens, basis = QUOTE_FINDER.expected(RECIPE, {"has_answer": ((0.0, 1.0), 0.5)})
    assert (requests, tokens) == (1 + results + results, TOKENS_PER_DECISION)
    assert "--range has_answer=0:1" in basis and f"{results} compare request(s)" in basis
    requests, _, basis = QUOTE_FINDER.expected(RECIPE, {"has_answer": (0.5,)})
    assert requests == 1 + results + 1 and "over the default HAS_ANSWER_CUTOFF" in basis


def test_a_search_is_compared_by_its_results_and_its_top_one() -> None:
    request = search_request("q", max_results=2)
    data = {"results": [{"title": "a", "url": "https://a.example", "snippet": "A."},
                        {"title": "b", "url": "https://b.example", "snippet": "B.", "date": "2024"}]}
    [reading] = readings(request, data)
    assert request.path == SEARCH_PATH
    assert reading.answer == (("https://a.example", "A."), ("https://b.example", "B.")) and reading.top == (
        "https://a.example")
    assert QUOTE_FINDER.readings(request, data) == [reading]
