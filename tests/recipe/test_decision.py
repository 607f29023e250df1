"""The decision rule: `>=` on both cutoffs, the recipe's sort and tie-breaks, the closest candidate."""

from __future__ import annotations

import numpy as np
import pytest

from quotefinder.recipe.decision import Candidate, best, decide, passes, qualified, set_key


def cand(result: int, has_answer: float, sentence: str | None = None) -> Candidate:
    return Candidate(result, f"Page {result}", f"https://p{result}.example", None, 1,
                     sentence or f"Sentence from result {result}.", 0.9, 0.9, has_answer)


def test_a_value_exactly_on_a_cutoff_passes_it() -> None:
    assert passes(0.3, 0.3) and not passes(0.29999999999999993, 0.3)
    assert passes(np.array([0.2, 0.3, 0.4]), 0.3).tolist() == [False, True, True]


def test_qualified_keeps_result_order_and_uses_greater_or_equal() -> None:
    candidates = [cand(1, 0.3), cand(2, 0.9), cand(4, 0.1), cand(5, 0.31)]
    assert set_key(qualified(candidates, 0.3)) == (1, 2, 5)
    assert set_key(qualified(candidates, 0.31)) == (2, 5)
    assert qualified(candidates, 0.95) == ()


def test_best_sorts_by_answers_then_has_answer_then_earlier_result() -> None:
    a, b, c = cand(1, 0.99), cand(2, 0.999), cand(3, 0.999)
    assert best([a, b, c], [0.998, 0.998, 0.998]).candidate is b  # tie on answers: higher has_answer
    assert best([b, c], [0.5, 0.5]).candidate is b  # tie on both: the earlier result
    assert best([a, b], [0.99742, 0.99716]).candidate is a  # unrounded: 0.997 vs 0.997 is not a tie


def test_decide_quotes_the_top_candidate_only_at_or_above_the_answer_cutoff() -> None:
    candidates = [cand(1, 0.9), cand(2, 0.8)]
    compares = {(1, 2): [0.6, 0.4]}
    quoted = decide(candidates, compares, 0.3, 0.6)
    assert quoted.quote is not None and quoted.quote.candidate.result == 1 and quoted.closest is None
    below = decide(candidates, compares, 0.3, 0.61)
    assert below.quote is None and below.closest is not None and below.closest.answers == 0.6


def test_without_qualified_candidates_the_closest_is_the_highest_has_answer_earliest_first() -> None:
    candidates = [cand(1, 0.1), cand(2, 0.2), cand(3, 0.2)]
    decision = decide(candidates, {}, 0.3, 0.6)
    assert decision.quote is None and decision.qualified == ()
    assert decision.closest is not None and decision.closest.candidate.result == 2 and decision.closest.answers is None


def test_no_candidates_means_no_quote_and_no_closest() -> None:
    assert decide([], {}, 0.0, 0.0).closest is None


def test_a_missing_compare_response_is_an_error_not_a_guess() -> None:
    with pytest.raises(KeyError):
        decide([cand(1, 0.9), cand(2, 0.4)], {(1,): [0.9]}, 0.3, 0.6)
