"""Pipeline values checked against a schema (`core.schema`): each kind's words in the error, the file and the
line of the key (or the nearest key above it), unknown keys with a suggestion, criteria always in pairs, and a
pipeline's digest over what it sends (not its name)."""

from __future__ import annotations

import re

import pytest

from quotefinder.core.errors import InputError
from quotefinder.core.schema import (
    CRITERIA_SCHEMA,
    MAX_WHOLE,
    Criteria,
    check_section,
    check_value,
    digest_of,
    field_values,
    in_file,
    in_run,
)

SCHEMA = {"name": "name", "model": "text", "max_results": "results", "rank": {"instructions": "template",
                                                                               "criteria": CRITERIA_SCHEMA}}
LINES = {("name",): 2, ("rank",): 5, ("rank", "instructions"): 6}


def check(data, strict: bool = False) -> dict:
    found: dict = {}
    check_section(data, SCHEMA, (), in_file("p.yaml", LINES), strict, ("system",), found)
    return found


@pytest.mark.parametrize(("kind", "value", "words"), [
    ("name", "a b", "not a name of letters, digits"),
    ("name", "x" * 65, "not a name of letters"),
    ("text", "  ", "not non-empty text"),
    ("text", 3, "not non-empty text; put it in quotes if YAML reads it as something else"),
    ("template", "no number", "must contain `{n}`"),
    ("results", 21, "not a whole number from 1 to 20 (the Search API's limit)"),
    ("results", True, "not a whole number from 1 to 20"),
    ("positive", MAX_WHOLE + 1, "not a whole number from 1 to 9007199254740991"),
    ("options", 0, "not a whole number from 1 to 255"),
])
def test_each_kind_is_refused_in_its_own_words(kind: str, value, words: str) -> None:
    with pytest.raises(InputError, match=f"^`config.pipeline`: `a.b` .*{re.escape(words)}"):
        check_value(kind, value, ("a", "b"), in_run)
    assert check_value(kind, {"name": "terse-criteria", "text": "x", "template": "item {n}", "results": 20,
                              "positive": MAX_WHOLE, "options": 255}[kind], ("a",), in_run) is not None


def test_a_problem_names_the_file_and_the_line_of_its_key_or_the_nearest_above() -> None:
    with pytest.raises(InputError, match=r"^p.yaml, line 2: `name` is 'a b'"):
        check({"name": "a b"})
    with pytest.raises(InputError, match=r"^p.yaml, line 5: `rank.criteria.true` is 3"):
        check({"rank": {"criteria": {"true": 3, "false": "no"}}})  # no line of its own: the section's
    with pytest.raises(InputError, match=r"^p.yaml: `model` is ''"):
        check({"model": ""})  # no line known


def test_unknown_keys_get_a_suggestion_and_criteria_come_in_pairs() -> None:
    with pytest.raises(InputError, match=r"unknown key `modle` \(did you mean `model`\?\)"):
        check({"modle": "x"})
    with pytest.raises(InputError, match=r"unknown key `zzz` \(the keys are name, model, max_results, rank\)"):
        check({"zzz": 1})
    with pytest.raises(InputError, match="criteria need both `true` and `false` text"):
        check({"rank": {"criteria": {"true": "yes"}}})
    with pytest.raises(InputError, match="the pipeline has no `name`"):
        check({"model": "m"}, strict=True)  # run.json's copy: every key


def test_values_become_fields_and_yamls_true_key_is_read_as_written() -> None:
    found = check({"name": "mine", "rank": {"criteria": {True: "yes", False: "no"}}})
    fields = field_values(found, {("name",): "name", ("rank", "criteria"): "criteria", ("model",): "model"})
    assert fields == {"name": "mine", "criteria": Criteria("yes", "no")}


def test_the_digest_is_over_what_is_sent_not_the_name() -> None:
    assert digest_of("quote-finder", {"name": "a", "model": "m"}) == digest_of("quote-finder", {"model": "m",
                                                                                                "name": "b"})
    assert digest_of("quote-finder", {"model": "m"}) != digest_of("one-shot", {"model": "m"})
    assert digest_of("quote-finder", {"model": "m"}) != digest_of("quote-finder", {"model": "n"})
