"""Pipeline files: read with the file and the line named in every error, the committed variant, a partial file
and a variant without a name (`python -m quotefinder.pipelines show` is tests/pipelines/test_pipelines.py's)."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT
from quotefinder.core.errors import InputError
from quotefinder.core.pipelinefile import load_pipeline_file
from quotefinder.core.schema import Criteria
from quotefinder.recipe.config import RECIPE


def write(tmp_path: Path, text: str, name: str = "x.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_the_committed_variant_is_another_model_wording_and_three_results() -> None:
    system, pipeline = load_pipeline_file(ROOT / "pipelines" / "terse-criteria.yaml")
    assert system == "quote-finder" and pipeline.name == "terse-criteria"
    assert pipeline.model != RECIPE.model and pipeline.max_results == 3
    assert pipeline.has_answer_criteria != RECIPE.has_answer_criteria
    assert pipeline.compare_criteria != RECIPE.compare_criteria
    assert pipeline.rank_instructions != RECIPE.rank_instructions and "{n}" in pipeline.compare_instructions
    assert (pipeline.max_tokens_per_page, pipeline.min_sentences, pipeline.max_chars) == (2048, 1, 400)


def test_a_partial_file_keeps_the_recipes_values_for_the_rest(tmp_path: Path) -> None:
    path = write(tmp_path, """\
        name: mine
        compare:
          criteria: {true: It does., false: It does not.}   # unquoted: YAML reads booleans
        """)
    assert load_pipeline_file(path) == ("quote-finder", dataclasses.replace(
        RECIPE, name="mine", compare_criteria=Criteria("It does.", "It does not.")))
    assert load_pipeline_file(write(tmp_path, "", "empty.yaml")) == ("quote-finder", RECIPE)
    assert load_pipeline_file(write(tmp_path, "# only a comment\n", "c.yaml")) == ("quote-finder", RECIPE)


@pytest.mark.parametrize(("text", "message"), [
    ("name: x\nsearch:\n  max_results: 3\nmodle: m\n", "x.yaml, line 4: unknown key `modle` (did you mean `model`?)"),
    ("search:\n  max_result: 3\n", "x.yaml, line 2: unknown key `max_result` in `search` (did you mean "
                                   "`max_results`?)"),
    ("sytem: quote-finder\n", "x.yaml, line 1: unknown key `sytem` (did you mean `system`?)"),
    ("system: rag-reader\n", "x.yaml, line 1: unknown system `rag-reader`; the systems are: quote-finder, "
                              "quote-answer, one-shot"),
    ("system: [1]\n", "x.yaml, line 1: unknown system `[1]`"),
    ("name: x\nsearch: {max_results: 30}\n", "x.yaml, line 2: `search.max_results` is 30, not a whole number"),
    ("system: quote-answer\npassages: 13\n", "x.yaml, line 2: `passages` is 13, not a whole number from 1 to 12"),
    ("system: quote-answer\nlimit: true\n", "x.yaml, line 2: `limit` is True, not a whole number from 1 to"),
    ("system: one-shot\nmax_sources: 0\n", "x.yaml, line 2: `max_sources` is 0, not a whole number from 1 to 20"),
    ("compare:\n  instructions: Is it right?\n", "x.yaml, line 2: `compare.instructions` must contain `{n}`"),
    ("model: a\nmodel: b\n", "x.yaml, line 2: `model` appears twice (first on line 1)"),
    ("- a\n- b\n", "x.yaml, line 1: a pipeline file is a mapping of keys such as system, name, model"),
    ("name: [unclosed\n", "x.yaml, line 2: not valid YAML"),
    ("model: 2024-01-01\n", "x.yaml, line 1: `model` is datetime.date(2024, 1, 1), not non-empty text"),
    ("rank:\n  has_answer:\n    criteria: {\"true\": A sentence does.}\n", "x.yaml, line 3: "
                                                                         "`rank.has_answer.criteria` has no `false`"),
    ("compare:\n  criteria: {\"true\": yes, \"false\": no}\n", "x.yaml, line 2: `compare.criteria.true` is True, "
                                                             "not non-empty text; put it in quotes"),
])
def test_a_bad_file_is_refused_naming_the_file_and_the_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        load_pipeline_file(write(tmp_path, text))
    assert message in str(caught.value), str(caught.value)


def test_an_unreadable_file_is_refused_without_a_traceback(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such pipeline file"):
        load_pipeline_file(tmp_path / "missing.yaml")
    with pytest.raises(InputError, match="is a directory"):
        load_pipeline_file(tmp_path)
    (tmp_path / "latin1.yaml").write_bytes(b"name: x\nmodel: caf\xe9\n")
    with pytest.raises(InputError, match=r"latin1.yaml, line 2: not UTF-8"):
        load_pipeline_file(tmp_path / "latin1.yaml")
    (tmp_path / "deep.yaml").write_text("a: " + "[" * 5000 + "]" * 5000 + "\n")
    # our depth check, or PyYAML's own (6.0.4 and later refuse deep nesting while parsing): both name the line
    with pytest.raises(InputError, match=r"deep.yaml, line 1: (lists or mappings nested more than|not valid YAML "
                                         r"\(exceeded maximum nesting depth\))"):
        load_pipeline_file(tmp_path / "deep.yaml")


def test_a_variant_without_a_name_is_named_by_its_file_never_recipe(tmp_path) -> None:
    """Two unnamed variants must not both read "pipeline recipe" in a comparison: the file's stem names one; a
    file that only restates the recipe's values is still the recipe."""
    from quotefinder.core.pipelinefile import load_pipeline_file

    path = tmp_path / "newer model.yaml"
    path.write_text("model: pplx-decider-v2\n")
    assert load_pipeline_file(path)[1].name == "newer-model"
    same = tmp_path / "same.yaml"
    same.write_text("search: {max_results: 5}\n")
    assert load_pipeline_file(same)[1].name == "recipe"
