"""The stand-in server (`standin.server`): what it serves "later" (`later`: noise that is pure noise, a shift,
reordered results and answers that lost their support, each seeded; the scenario it starts from is left as it
was), and that for 100,000-question recordings it keeps no request bodies, remembering each distinct body by its
digest only (how often it was answered, for repeats)."""

from __future__ import annotations

import json
import re

import numpy as np

from conftest import KEY, TEN_SCENARIO, page, write_scenario
from quotefinder.core.perplexity import read_search
from quotefinder.recipe import contract
from quotefinder.recipe.config import RECIPE
from quotefinder.standin import REWRITTEN, FakeApi, Later, later, load_scenario


def values(scenario, name: str) -> np.ndarray:
    return np.array([getattr(page, name) for pages in scenario.questions.values() for page in pages])


def test_noise_is_symmetric_never_clipped_and_leaves_the_original_alone() -> None:
    base = load_scenario(TEN_SCENARIO)
    before = values(base, "has_answer").copy()
    moves = []
    for seed in range(200):
        served = later(base, Later(seed=seed, noise=0.02))
        moved = values(served, "has_answer") - before
        assert np.all(np.abs(moved) <= 0.02 + 1e-9) and np.all(values(served, "has_answer") <= 1.0)
        room = np.minimum(before, 1 - before)
        assert np.all(np.abs(moved) <= room + 1e-9)  # within reach of 0 or 1 it moves less: never clipped
        moves.append(moved)
    assert abs(np.mean(moves)) < 0.001  # unbiased: 200 seeds x pages, uniform noise
    assert np.array_equal(values(base, "has_answer"), before)


def test_a_shift_moves_every_probability_and_reorder_shuffles_a_share_of_questions() -> None:
    base = load_scenario(TEN_SCENARIO)
    shifted = later(base, Later(shift=-0.1))
    assert np.allclose(values(shifted, "answers"), np.clip(values(base, "answers") - 0.1, 0, 1))
    orders = [sum(1 for q in base.questions if [p.url for p in later(base, Later(seed=s, reorder=0.5)).questions[q]]
                  != [p.url for p in base.questions[q]]) for s in range(40)]
    several = sum(1 for pages in base.questions.values() if len(pages) > 1)
    assert 0.3 < np.mean(orders) / several < 0.6  # about half (a shuffle may leave an order as it was)


def test_an_unsupported_answer_no_longer_says_the_figure() -> None:
    base = load_scenario(TEN_SCENARIO)
    served = later(base, Later(unsupported=1.0))
    bones = "How many bones are in the adult human body?"
    best = max(base.questions[bones], key=lambda page: page.answers)
    now = next(page for page in served.questions[bones] if page.url == best.url)
    assert re.search(r"\b206\b", best.snippet) and not re.search(r"\b206\b", now.snippet)
    assert now.answers == best.answers  # the API still rates it as before: its quote is now wrong
    changed = [q for q in base.questions if base.questions[q] and
               [p.snippet for p in served.questions[q]] != [p.snippet for p in base.questions[q]]]
    assert len(changed) == sum(1 for q in base.questions if base.questions[q])


def test_a_page_without_digits_loses_its_answering_sentence(tmp_path) -> None:
    """A best page with no figure in it: its answering sentence is replaced by one that says nothing, and the
    stand-in now picks that sentence (its choice follows it), so its quote is wrong."""
    path = write_scenario(tmp_path / "words.json", {"Who wrote it?": [
        page("Authors", "https://a.example/w", "The book has a long history. It was written by Mary Shelley.",
             choice="Mary Shelley", answers=0.95),
        page("Other", "https://b.example/o", "Nobody knows much.", answers=0.2)]})
    served = later(load_scenario(path), Later(unsupported=1.0))
    best = served.questions["Who wrote it?"][0]
    assert "Mary Shelley" not in best.snippet and REWRITTEN in best.snippet and best.choice == REWRITTEN
    assert served.questions["Who wrote it?"][1].snippet == "Nobody knows much."


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
