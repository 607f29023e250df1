"""The quote finder's pipeline as data: the recipe's values by default, byte-identical requests with them, a
variant's values in every body it sends, a digest of what is sent, and strict reading with named lines."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest

from conftest import ROOT, page, write_scenario
from quotefinder.core.coverage import Coverage
from quotefinder.core.errors import InputError
from quotefinder.core.flow import replay
from quotefinder.core.perplexity import DECISIONS_PATH, MAX_TOKENS_PER_PAGE, MODEL, Result
from quotefinder.core.requests import ApiRequest, canonical_json
from quotefinder.core.schema import Criteria
from quotefinder.recipe import contract, decision, sentences
from quotefinder.recipe.config import RECIPE, QuoteFinderPipeline
from quotefinder.recipe.decision import Cutoffs
from quotefinder.recipe.pipeline import steps
from quotefinder.record.cache import ResponseCache
from quotefinder.record.rundir import RunRecord
from quotefinder.standin import FakeApi, load_scenario

RESULT = Result("Bones of the body", "https://anatomy.example/bones", "ignored", None)
SENTENCES = ["An adult has 206 bones in all.", "The smallest is the stapes in the ear."]
VARIANT = dataclasses.replace(
    RECIPE, name="terse", model="pplx-decider-v1.2-27b", max_results=3, max_tokens_per_page=1024,
    rank_instructions="Which sentence answers?", has_answer_instructions="Does any sentence answer?",
    has_answer_criteria=Criteria("One does.", "None does."), compare_instructions="Is {n} the answer?",
    compare_criteria=Criteria("Yes, {n} is.", "No."), min_sentences=2, min_chars=10, max_chars=500, max_sentences=9)

# Today's bodies, written out: what every committed run's cache keys were computed from.
RECIPE_RANK = {
    "model": "pplx-decider-v1.1-27b",
    "state": {"question": "How many bones?", "source": {"title": "Bones of the body",
                                                         "url": "https://anatomy.example/bones"},
              "sentences": {"1": SENTENCES[0], "2": SENTENCES[1]}},
    "questions": {
        "best": {"type": "choice",
                 "instructions": "Which numbered sentence most directly answers the question? Prefer a sentence that "
                                 "states the answer itself over one that only mentions the topic.",
                 "criteria": {"1": SENTENCES[0], "2": SENTENCES[1]}},
        "has_answer": {"type": "noul",
                       "instructions": "Does at least one of the numbered sentences answer the question?",
                       "criteria": {"true": "At least one sentence states the answer or directly implies it, so a "
                                            "reader could quote that sentence as the answer.",
                                    "false": "The sentences discuss the topic but none states the answer, or "
                                             "answering would need outside knowledge."}},
    },
}
ANSWERS = {"true": "The sentence contains the answer itself and can be quoted as the answer without adding anything.",
           "false": "The sentence is about the topic but does not contain the answer, or only hints at it."}


def test_the_recipe_is_todays_constants() -> None:
    assert (RECIPE.name, RECIPE.model, RECIPE.max_results, RECIPE.max_tokens_per_page) == (
        "recipe", MODEL, contract.MAX_RESULTS, MAX_TOKENS_PER_PAGE)
    assert RECIPE.rank_instructions == contract.RANK_INSTRUCTIONS
    assert RECIPE.has_answer_instructions == contract.HAS_ANSWER_INSTRUCTIONS
    assert RECIPE.has_answer_criteria.as_json() == contract.HAS_ANSWER_CRITERIA
    assert RECIPE.compare_instructions == "Does candidate {n} state the answer to the question?"
    assert RECIPE.compare_criteria.as_json() == contract.ANSWERS_CRITERIA
    assert RECIPE.min_sentences == decision.MIN_SENTENCES
    assert (RECIPE.min_chars, RECIPE.max_chars, RECIPE.max_sentences) == (
        sentences.MIN_CHARS, sentences.MAX_CHARS, sentences.MAX_SENTENCES)
    assert QuoteFinderPipeline() == RECIPE and hash(RECIPE) == hash(QuoteFinderPipeline())


def test_with_the_recipe_every_body_is_byte_for_byte_todays() -> None:
    search = RECIPE.search_request("How many bones?", 2)
    expected = b'{"max_results":5,"max_tokens_per_page":2048,"query":"How many bones?"}'
    assert canonical_json(search.body) == expected
    assert search.key == RECIPE.search_request("How many bones?", 2).key
    rank = RECIPE.rank_request("How many bones?", RESULT, SENTENCES)
    assert canonical_json(rank.body) == canonical_json(RECIPE_RANK)
    assert rank.body == contract.rank_request("How many bones?", RESULT, SENTENCES).body == RECIPE_RANK
    compare = RECIPE.compare_request("q?", ["First.", "Second."])
    assert compare.body == {"model": "pplx-decider-v1.1-27b",
                            "state": {"question": "q?", "candidates": {"1": "First.", "2": "Second."}},
                            "questions": {f"answers_{n}": {"type": "noul", "criteria": ANSWERS,
                                                           "instructions": f"Does candidate {n} state the answer to "
                                                                           "the question?"} for n in (1, 2)}}
    assert compare.key == contract.compare_request("q?", ["First.", "Second."]).key


@pytest.mark.parametrize("config", [None, RECIPE, dataclasses.replace(RECIPE, name="renamed")])
def test_with_the_recipe_the_committed_runs_cache_keys_are_exactly_the_ones_asked_for(config) -> None:
    """Every request the flow asks of runs/ten, in every repeat, is held, and together they are all it holds."""
    run = ROOT / "runs" / "ten"
    record, cache = RunRecord.require(run), ResponseCache(run)
    asked: set[str] = set()

    def lookup(request: ApiRequest) -> object:
        asked.add(request.key)
        return cache.require(request).data

    for repeat in range(record.repeats):
        for question in record.questions:
            replay(steps(question.question, Coverage(), None, repeat, config=config), lookup)
    assert asked == {path.stem for path in (run / "responses").rglob("*.json")}


def test_a_variants_bodies_carry_its_model_search_settings_and_wording() -> None:
    search = VARIANT.search_request("q?")
    assert search.body == {"query": "q?", "max_results": 3, "max_tokens_per_page": 1024}
    rank = VARIANT.rank_request("q?", RESULT, SENTENCES).body
    assert rank["model"] == "pplx-decider-v1.2-27b"
    assert rank["questions"]["best"]["instructions"] == "Which sentence answers?"
    assert rank["questions"]["has_answer"] == {"type": "noul", "instructions": "Does any sentence answer?",
                                               "criteria": {"true": "One does.", "false": "None does."}}
    compare = VARIANT.compare_request("q?", ["First.", "Second."]).body
    assert compare["model"] == "pplx-decider-v1.2-27b"
    assert [q["instructions"] for q in compare["questions"].values()] == ["Is 1 the answer?", "Is 2 the answer?"]
    # {n} is filled in the instructions only
    assert compare["questions"]["answers_2"]["criteria"] == {"true": "Yes, {n} is.", "false": "No."}
    assert VARIANT.rank_request("q?", RESULT, SENTENCES).key != RECIPE.rank_request("q?", RESULT, SENTENCES).key


def test_the_flow_follows_the_pipeline_splitter_and_min_sentences(tmp_path: Path) -> None:
    text = "Short one here. A sentence that is long enough. Another sentence, long enough too."
    scenario = write_scenario(tmp_path / "s.json", {"Q?": [page("A", "https://a.example", text),
                                                           page("B", "https://b.example", "Only this sentence here.")]})
    config = dataclasses.replace(RECIPE, model="other-model", min_chars=10, max_chars=31, min_sentences=2)
    api = FakeApi(load_scenario(scenario), pipeline=config)

    def lookup(request: ApiRequest) -> object:
        status, payload = api.respond(request.path, json.dumps(request.body).encode(), "key")
        assert status == 200, payload
        return payload

    trace = replay(steps("Q?", Coverage(), Cutoffs(min_sentences=1), config=config), lookup)
    assert trace.sentence_counts == [2, 1]  # 10 to 31 characters: the first two sentences of A
    assert [c.result for c in trace.candidates] == [1]  # the config's min_sentences (2), not the cutoffs' (1)
    assert {body["model"] for path, body in api.requests if path == DECISIONS_PATH} == {"other-model"}
    recipe = replay(steps("Q?", Coverage(), Cutoffs(min_sentences=1)), lookup_for_recipe(scenario))
    assert recipe.sentence_counts == [2, 0]  # the recipe's 25 to 400
    without = replay(steps("Q?", Coverage(), Cutoffs(min_sentences=3)), lookup_for_recipe(scenario))
    assert without.candidates == []  # without a config, Cutoffs.min_sentences still decides


def lookup_for_recipe(scenario: Path):
    api = FakeApi(load_scenario(scenario))
    return lambda request: api.respond(request.path, json.dumps(request.body).encode(), "key")[1]


def test_cutoffs_from_the_config_carry_its_min_sentences() -> None:
    assert VARIANT.cutoffs() == Cutoffs(0.3, 0.6, 2) and RECIPE.cutoffs(0.1, 0.9) == Cutoffs(0.1, 0.9, 1)


def test_the_splitter_takes_the_pipelines_limits() -> None:
    snippet = "Tiny one. This sentence is quite a bit longer. " * 1 + "Third sentence also long enough here."
    assert sentences.split(snippet) == RECIPE.split(snippet)
    assert sentences.split(snippet, min_chars=5, max_chars=20) == ["Tiny one."]
    assert sentences.split(snippet, max_sentences=1) == ["This sentence is quite a bit longer."]


def test_as_json_has_every_value_in_the_pipeline_files_shape() -> None:
    assert RECIPE.as_json() == {
        "name": "recipe", "model": "pplx-decider-v1.1-27b",
        "search": {"max_results": 5, "max_tokens_per_page": 2048},
        "rank": {"instructions": contract.RANK_INSTRUCTIONS,
                 "has_answer": {"instructions": contract.HAS_ANSWER_INSTRUCTIONS,
                                "criteria": contract.HAS_ANSWER_CRITERIA}},
        "compare": {"instructions": "Does candidate {n} state the answer to the question?", "criteria": ANSWERS},
        "min_sentences": 1,
        "sentences": {"min_chars": 25, "max_chars": 400, "max_sentences": 255},
    }
    assert QuoteFinderPipeline.from_json(VARIANT.as_json()) == VARIANT


def test_the_digest_names_what_is_sent_not_what_it_is_called() -> None:
    values = {k: v for k, v in RECIPE.as_json().items() if k != "name"}
    assert RECIPE.digest == hashlib.sha256(b"quote-finder\n" + canonical_json(values)).hexdigest()
    assert dataclasses.replace(RECIPE, name="mine").digest == RECIPE.digest
    assert dataclasses.replace(RECIPE, name="mine").is_recipe and not VARIANT.is_recipe
    for field in dataclasses.fields(QuoteFinderPipeline):
        if field.name == "name":
            continue
        changed = dataclasses.replace(RECIPE, **{field.name: getattr(VARIANT, field.name)})
        assert changed.digest != RECIPE.digest, field.name


def test_parse_takes_what_is_given_and_the_recipe_for_the_rest() -> None:
    parsed = QuoteFinderPipeline.parse({"name": "x", "search": {"max_results": 3},
                                        "compare": {"criteria": {True: "yes", False: "no"}}}, "p.yaml")
    assert parsed == dataclasses.replace(RECIPE, name="x", max_results=3, compare_criteria=Criteria("yes", "no"))
    assert QuoteFinderPipeline.parse({}, "p.yaml") == RECIPE


LINES = {("modle",): 4, ("search",): 2, ("search", "max_result"): 3, ("compare",): 5,
         ("compare", "instructions"): 6, ("sentences",): 7, ("sentences", "min_chars"): 8, ("name",): 1}


@pytest.mark.parametrize(("data", "message"), [
    ({"modle": "m"}, "pipelines/x.yaml, line 4: unknown key `modle` (did you mean `model`?)"),
    ({"search": {"max_result": 3}}, "pipelines/x.yaml, line 3: unknown key `max_result` in `search` (did you mean "
                                    "`max_results`?)"),
    ({"zzz": 1}, "pipelines/x.yaml: unknown key `zzz` (the keys are name, model, search, rank, compare, "
                 "min_sentences, sentences)"),
    ({"search": 5}, "line 2: `search` must be a mapping of max_results, max_tokens_per_page"),
    ({"search": {"max_results": 21}}, "`search.max_results` is 21, not a whole number from 1 to 20"),
    ({"search": {"max_results": 0}}, "not a whole number from 1 to 20"),
    ({"search": {"max_results": True}}, "not a whole number from 1 to 20"),
    ({"search": {"max_tokens_per_page": 2.5}}, "not a whole number from 1 to 9007199254740991"),
    ({"search": {"max_tokens_per_page": 10**30}}, "line 2: `search.max_tokens_per_page` is "
                                                   "1000000000000000000000000000000, not a whole number from 1 to"),
    ({"min_sentences": 0}, "`min_sentences` is 0, not a whole number from 1 to"),
    ({"sentences": {"max_sentences": 256}}, "the Decisions API's option limit"),
    ({"model": ""}, "`model` is '', not non-empty text"),
    ({"model": 12}, "`model` is 12, not non-empty text"),
    ({"name": "a/b"}, "line 1: `name` is 'a/b', not a name of letters"),
    ({"compare": {"instructions": "Is it the answer?"}}, "line 6: `compare.instructions` must contain `{n}`"),
    ({"compare": {"criteria": {"true": "yes"}}}, "`compare.criteria` has no `false`; criteria need both"),
    ({"compare": {"criteria": {"true": "yes", "false": "no", "maybe": "?"}}}, "unknown key `maybe` in "
                                                                              "`compare.criteria`"),
    ({"rank": {"has_answer": {"criteria": {"true": "", "false": "no"}}}}, "`rank.has_answer.criteria.true` is ''"),
    ({"sentences": {"min_chars": 500}}, "line 8: `sentences.min_chars` (500) is more than `sentences.max_chars` (400)"),
    ([1, 2], "the pipeline must be a mapping"),
])
def test_parse_refuses_with_the_file_the_line_and_what_to_write(data: object, message: str) -> None:
    with pytest.raises(InputError) as caught:
        QuoteFinderPipeline.parse(data, "pipelines/x.yaml", LINES)  # type: ignore[arg-type]
    assert message in str(caught.value)


def test_parse_suggests_the_keys_the_file_may_hold_besides() -> None:
    with pytest.raises(InputError, match=r"unknown key `sytem` \(did you mean `system`\?\)"):
        QuoteFinderPipeline.parse({"sytem": "quote-finder"}, "p.yaml", also=("system",))


@pytest.mark.parametrize("edit", [
    lambda d: d.pop("model"),
    lambda d: d["search"].pop("max_results"),
    lambda d: d.update(extra=1),
    lambda d: d["sentences"].update(max_chars=-1),
    lambda d: d.update(rank=[]),
])
def test_from_json_is_strict(edit) -> None:
    data = json.loads(json.dumps(RECIPE.as_json()))
    edit(data)
    with pytest.raises(InputError, match="config.pipeline"):
        QuoteFinderPipeline.from_json(data)
    with pytest.raises(InputError):
        QuoteFinderPipeline.from_json("not a mapping")
