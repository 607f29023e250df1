"""The request flow for one question, driven from the stand-in's answers without a network."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import page, write_scenario
from quotefinder.core.coverage import Coverage
from quotefinder.core.flow import replay
from quotefinder.core.requests import ApiRequest
from quotefinder.recipe.decision import Candidate, decide, qualified, set_key
from quotefinder.recipe.pipeline import Trace, qualified_sets, steps
from quotefinder.standin import FakeApi, load_scenario

TEXT = "One sentence about the topic here. Another sentence about the topic. A third sentence about the topic."
Q = "What is the answer?"


def run(tmp_path: Path, results: list[dict], coverage: Coverage | None = None,
        **scenario: object) -> tuple[Trace, FakeApi]:
    coverage = coverage or Coverage()
    api = FakeApi(load_scenario(write_scenario(tmp_path / "s.json", {Q: results}, **scenario)))

    def lookup(request: ApiRequest) -> object:
        status, payload = api.respond(request.path, json.dumps(request.body).encode(), "key")
        assert status == 200, payload
        return payload

    return replay(steps(Q, coverage), lookup), api


def compare_states(api: FakeApi) -> list[dict]:
    return [body["state"] for path, body in api.requests if path == "/v1/decisions" and "best" not in body["questions"]]


def test_low_has_answer_keeps_a_result_out_of_the_compare_request(tmp_path: Path) -> None:
    trace, api = run(tmp_path, [page("Good", "https://good.example", TEXT, choice=2, has_answer=0.9, answers=0.9),
                                page("Weak", "https://weak.example", TEXT, has_answer=0.1)],
                     Coverage(span=None, points=(0.3,)))
    assert compare_states(api) == [{"question": Q, "candidates": {"1": "Another sentence about the topic."}}]
    decision = decide(trace.candidates, trace.compares, 0.3, 0.6)
    assert decision.quote is not None and decision.quote.candidate.title == "Good"


def test_top_candidate_below_the_answer_cutoff_is_shown_as_closest(tmp_path: Path) -> None:
    trace, _ = run(tmp_path, [page("Good", "https://good.example", TEXT, has_answer=0.9, answers=0.5),
                              page("Weak", "https://weak.example", TEXT, has_answer=0.8, answers=0.5)])
    decision = decide(trace.candidates, trace.compares, 0.3, 0.6)
    assert decision.quote is None
    assert decision.closest is not None and decision.closest.candidate.result == 1 and decision.closest.answers == 0.5


def test_no_qualified_candidate_sends_no_compare_request(tmp_path: Path) -> None:
    trace, api = run(tmp_path, [page("Good", "https://good.example", TEXT, has_answer=0.1),
                                page("Weak", "https://weak.example", TEXT, has_answer=0.2)],
                     Coverage(span=None, points=(0.3,)))
    assert compare_states(api) == [] and trace.compares == {} and trace.requests == 3
    decision = decide(trace.candidates, trace.compares, 0.3, 0.6)
    assert decision.closest is not None and decision.closest.candidate.result == 2


def test_empty_search_and_results_without_sentences_send_no_rank_request(tmp_path: Path) -> None:
    trace, api = run(tmp_path, [])
    assert trace.candidates == [] and api.count("/v1/decisions") == 0 and trace.result_count == 0
    trace, api = run(tmp_path, [page("Short", "https://short.example", "Too short. ... Also short."),
                                page("Real", "https://real.example", TEXT, has_answer=0.9)])
    assert trace.sentence_counts == [0, 3] and api.count("/v1/decisions", "rank") == 1
    assert [c.result for c in trace.candidates] == [2]


def test_identical_rank_requests_in_one_search_are_sent_once(tmp_path: Path) -> None:
    twin = page("Twin", "https://twin.example", TEXT, has_answer=0.9, answers=0.8)
    trace, api = run(tmp_path, [twin, twin, page("Other", "https://other.example", TEXT, has_answer=0.7)])
    assert api.count("/v1/decisions", "rank") == 2
    assert [c.result for c in trace.candidates] == [1, 2, 3]  # both twins are still candidates


def test_one_compare_request_per_distinct_qualified_set_in_the_range(tmp_path: Path) -> None:
    has_answers = [0.9, 0.5, 0.5, 0.2]
    results = [page(f"P{n}", f"https://p{n}.example", TEXT, has_answer=h) for n, h in enumerate(has_answers, 1)]
    trace, api = run(tmp_path, results)
    assert sorted(trace.compares) == [(1,), (1, 2, 3), (1, 2, 3, 4)] and api.count("/v1/decisions", "compare") == 3
    trace, _ = run(tmp_path, results, Coverage(span=(0.6, 1.0), points=(0.3,)))
    assert sorted(trace.compares) == [(1,), (1, 2, 3)]
    trace, _ = run(tmp_path, results, Coverage(span=(0.95, 1.0), points=()))
    assert trace.compares == {}


def test_compare_responses_differ_between_sets_and_each_set_keeps_its_own(tmp_path: Path) -> None:
    results = [page(f"P{n}", f"https://p{n}.example", TEXT, choice=n, has_answer=h, answers=0.7)
               for n, h in enumerate([0.9, 0.6, 0.4], 1)]
    trace, _ = run(tmp_path, results, jitter=0.05)
    firsts = {key: values[0] for key, values in trace.compares.items()}
    assert len(set(firsts.values())) == 3  # the same candidate scored differently beside different neighbours


PROBABILITY = st.floats(0, 1) | st.sampled_from([0.0, 0.3, 0.5, 1.0])


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(st.lists(PROBABILITY, max_size=6), PROBABILITY, PROBABILITY, st.lists(PROBABILITY, max_size=3))
def test_coverage_finds_exactly_the_sets_its_cutoffs_select(has_answers: list[float], a: float, b: float,
                                                             points: list[float]) -> None:
    lo, hi = min(a, b), max(a, b)
    candidates = [Candidate(n, "", "", None, 1, f"s{n}", 0.5, 0.5, h) for n, h in enumerate(has_answers, 1)]
    found = [set_key(chosen) for chosen in qualified_sets(Coverage((lo, hi), tuple(points)), candidates)]
    # The slow reference: sets change only at has_answer values, so probing the range's ends, the
    # points and every has_answer value inside the range meets every set the coverage can select.
    probes = [lo, hi, *points, *(v for v in has_answers if lo <= v <= hi)]
    expected = {set_key(qualified(candidates, cutoff)) for cutoff in probes} - {()}
    assert len(found) == len(set(found)) and set(found) == expected
    for cutoff in [min(hi, lo + (hi - lo) * k / 50) for k in range(51)]:
        assert set_key(qualified(candidates, cutoff)) in expected | {()}
