"""The quote finder's pipeline as data: every value its requests and its splitter use, the recipe's by default.

    name: recipe                       # shown in every report; not part of what is sent
    model: pplx-decider-v1.1-27b
    search: {max_results: 5, max_tokens_per_page: 2048}
    rank:
      instructions: "..."
      has_answer: {instructions: "...", criteria: {"true": "...", "false": "..."}}
    compare: {instructions: "Does candidate {n} state the answer to the question?", criteria: {...}}
    min_sentences: 1
    sentences: {min_chars: 25, max_chars: 400, max_sentences: 255}

`QuoteFinderPipeline` holds those values (`RECIPE` is the recipe's); `as_json` gives them in that shape,
`digest` names what is sent (two pipelines that send the same requests have the same digest, whatever they
are called), `parse` builds one from a pipeline file's mapping (every key optional, errors naming the file
and the line), and `from_json` reads run.json's recorded copy back (every key required).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from ..core import perplexity
from ..core.requests import ApiRequest
from ..core.schema import CRITERIA_SCHEMA, Criteria, Fail, check_section, digest_of, field_values, in_file, in_run
from . import contract, sentences
from .decision import ANSWER_CUTOFF, HAS_ANSWER_CUTOFF, MIN_SENTENCES, Cutoffs

SYSTEM = "quote-finder"  # the system this pipeline belongs to (a pipeline file's `system:`)
COMPARE_INSTRUCTIONS = contract.COMPARE_INSTRUCTIONS  # `{n}`: the candidate's number


@dataclass(frozen=True)
class QuoteFinderPipeline:
    """Every value the quote finder sends or splits with. Frozen and hashable; the defaults are the recipe's.

    `compare_instructions` is a template: each candidate's `{n}` becomes its number (1, 2, ...). Sentences
    are kept when `min_chars <= len <= max_chars`, at most `max_sentences` per snippet; a result is ranked
    when it has at least `min_sentences` of them.
    """

    name: str = "recipe"
    model: str = perplexity.MODEL
    max_results: int = contract.MAX_RESULTS
    max_tokens_per_page: int = perplexity.MAX_TOKENS_PER_PAGE
    rank_instructions: str = contract.RANK_INSTRUCTIONS
    has_answer_instructions: str = contract.HAS_ANSWER_INSTRUCTIONS
    has_answer_criteria: Criteria = Criteria(**contract.HAS_ANSWER_CRITERIA)
    compare_instructions: str = COMPARE_INSTRUCTIONS
    compare_criteria: Criteria = Criteria(**contract.ANSWERS_CRITERIA)
    min_sentences: int = MIN_SENTENCES
    min_chars: int = sentences.MIN_CHARS
    max_chars: int = sentences.MAX_CHARS
    max_sentences: int = sentences.MAX_SENTENCES

    # ---- what it says -----------------------------------------------------------------------------

    def as_json(self) -> dict[str, Any]:
        """Every value, resolved, nested as a pipeline file writes them (`name` included)."""
        return {
            "name": self.name,
            "model": self.model,
            "search": {"max_results": self.max_results, "max_tokens_per_page": self.max_tokens_per_page},
            "rank": {
                "instructions": self.rank_instructions,
                "has_answer": {"instructions": self.has_answer_instructions,
                               "criteria": self.has_answer_criteria.as_json()},
            },
            "compare": {"instructions": self.compare_instructions, "criteria": self.compare_criteria.as_json()},
            "min_sentences": self.min_sentences,
            "sentences": {"min_chars": self.min_chars, "max_chars": self.max_chars,
                          "max_sentences": self.max_sentences},
        }

    @cached_property
    def digest(self) -> str:
        """`digest_of` the quote finder and `as_json()`: what the pipeline sends, so a renamed copy has the same
        digest and any other value changes it."""
        return digest_of(SYSTEM, self.as_json())

    @property
    def is_recipe(self) -> bool:
        """Whether it sends exactly the recipe's requests (whatever it is called)."""
        return self.digest == RECIPE.digest

    def cutoffs(self, has_answer: float = HAS_ANSWER_CUTOFF, answer: float = ANSWER_CUTOFF) -> Cutoffs:
        """`Cutoffs` at these cutoffs with this pipeline's `min_sentences`."""
        return Cutoffs(has_answer, answer, self.min_sentences)

    def split(self, snippet: str) -> list[str]:
        """`sentences.split` with this pipeline's limits."""
        return sentences.split(snippet, self.min_chars, self.max_chars, self.max_sentences)

    def search_request(self, question: str, repeat: int = 0) -> ApiRequest:
        """`perplexity.search_request` with this pipeline's search settings."""
        return perplexity.search_request(question, repeat, max_results=self.max_results,
                                       max_tokens_per_page=self.max_tokens_per_page)

    def rank_request(self, question: str, result: perplexity.Result, sentences: list[str], repeat: int = 0,
                     label: str = "") -> ApiRequest:
        """`contract.rank_request` with this pipeline's model and wording."""
        return contract.rank_request(question, result, sentences, repeat, label, model=self.model,
                                     instructions=self.rank_instructions,
                                     has_answer_instructions=self.has_answer_instructions,
                                     has_answer_criteria=self.has_answer_criteria.as_json())

    def compare_request(self, question: str, sentences: list[str], repeat: int = 0,
                        label: str = "") -> ApiRequest:
        """`contract.compare_request` with this pipeline's model and wording."""
        return contract.compare_request(question, sentences, repeat, label, model=self.model,
                                        instructions=self.compare_instructions,
                                        criteria=self.compare_criteria.as_json())

    # ---- reading ----------------------------------------------------------------------------------

    @classmethod
    def parse(cls, data: Mapping[Any, Any], path: Path | str, lines: Mapping[tuple[str, ...], int] | None = None,
              also: tuple[str, ...] = ()) -> QuoteFinderPipeline:
        """A pipeline from a pipeline file's mapping: every key optional (the recipe's value when absent).

        `lines` maps each key's path (``("search", "max_results")``) to its 1-based line, for messages;
        `also` names other top-level keys the file may hold (offered by the did-you-mean). `InputError`,
        naming `path` and the line, for an unknown key (with a did-you-mean), a value of the wrong type, or
        values that contradict each other.
        """
        return _build(data, in_file(path, lines), strict=False, also=also)

    @classmethod
    def from_json(cls, data: Any) -> QuoteFinderPipeline:
        """The pipeline run.json recorded (`as_json()`), read strictly: every key present, none unknown, every
        value checked. `InputError` saying which key is wrong; the caller names the file."""

        return _build(data, in_run, strict=True)


RECIPE = QuoteFinderPipeline()

# ---- checking a mapping ---------------------------------------------------------------------------------

# Each section's keys, in file order: a nested dict is a section, a string the kind of its value.
SCHEMA: dict[str, Any] = {
    "name": "name",
    "model": "text",
    "search": {"max_results": "results", "max_tokens_per_page": "positive"},
    "rank": {"instructions": "text", "has_answer": {"instructions": "text", "criteria": CRITERIA_SCHEMA}},
    "compare": {"instructions": "template", "criteria": CRITERIA_SCHEMA},
    "min_sentences": "positive",
    "sentences": {"min_chars": "positive", "max_chars": "positive", "max_sentences": "options"},
}
# The dataclass field behind each value's path (criteria: the field and which of its two texts).
FIELDS: dict[tuple[str, ...], str] = {
    ("name",): "name",
    ("model",): "model",
    ("search", "max_results"): "max_results",
    ("search", "max_tokens_per_page"): "max_tokens_per_page",
    ("rank", "instructions"): "rank_instructions",
    ("rank", "has_answer", "instructions"): "has_answer_instructions",
    ("rank", "has_answer", "criteria"): "has_answer_criteria",
    ("compare", "instructions"): "compare_instructions",
    ("compare", "criteria"): "compare_criteria",
    ("min_sentences",): "min_sentences",
    ("sentences", "min_chars"): "min_chars",
    ("sentences", "max_chars"): "max_chars",
    ("sentences", "max_sentences"): "max_sentences",
}
def _build(data: Any, fail: Fail, strict: bool, also: tuple[str, ...] = ()) -> QuoteFinderPipeline:
    """The pipeline `data` describes, checked (see `QuoteFinderPipeline.parse` and `from_json`)."""
    found: dict[tuple[str, ...], Any] = {}
    check_section(data, SCHEMA, (), fail, strict, also, found)
    pipeline = dataclasses.replace(RECIPE, **field_values(found, FIELDS))
    if pipeline.min_chars > pipeline.max_chars:
        keys = ("sentences", "max_chars") if ("sentences", "max_chars") in found else ("sentences", "min_chars")
        raise fail(keys, f"`sentences.min_chars` ({pipeline.min_chars}) is more than `sentences.max_chars` "
                   f"({pipeline.max_chars}); no sentence could be kept")
    return pipeline
