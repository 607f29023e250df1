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
import difflib
import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

from ..errors import InputError
from ..textsafe import is_unicode, shown
from . import contract, sentences
from .decision import ANSWER_CUTOFF, HAS_ANSWER_CUTOFF, MIN_SENTENCES, Cutoffs

SYSTEM = "quote-finder"  # the system this pipeline belongs to (a pipeline file's `system:`)
COMPARE_INSTRUCTIONS = contract.COMPARE_INSTRUCTIONS  # `{n}`: the candidate's number
MAX_SEARCH_RESULTS = 20  # the Search API's limit on max_results
MAX_OPTIONS = 255  # the Decisions API's limit on a choice's options: at most this many sentences are numbered
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")  # a pipeline's name also names its default run directory


@dataclass(frozen=True)
class Criteria:
    """What `true` and `false` mean for a yes/no (noul) question, word for word as sent."""

    true: str
    false: str

    def as_json(self) -> dict[str, str]:
        return {"true": self.true, "false": self.false}


@dataclass(frozen=True)
class QuoteFinderPipeline:
    """Every value the quote finder sends or splits with. Frozen and hashable; the defaults are the recipe's.

    `compare_instructions` is a template: each candidate's `{n}` becomes its number (1, 2, ...). Sentences
    are kept when `min_chars <= len <= max_chars`, at most `max_sentences` per snippet; a result is ranked
    when it has at least `min_sentences` of them.
    """

    name: str = "recipe"
    model: str = contract.MODEL
    max_results: int = contract.MAX_RESULTS
    max_tokens_per_page: int = contract.MAX_TOKENS_PER_PAGE
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

    def search_request(self, question: str, repeat: int = 0) -> contract.ApiRequest:
        """`contract.search_request` with this pipeline's search settings."""
        return contract.search_request(question, repeat, max_results=self.max_results,
                                       max_tokens_per_page=self.max_tokens_per_page)

    def rank_request(self, question: str, result: contract.Result, sentences: list[str], repeat: int = 0,
                     label: str = "") -> contract.ApiRequest:
        """`contract.rank_request` with this pipeline's model and wording."""
        return contract.rank_request(question, result, sentences, repeat, label, model=self.model,
                                     instructions=self.rank_instructions,
                                     has_answer_instructions=self.has_answer_instructions,
                                     has_answer_criteria=self.has_answer_criteria.as_json())

    def compare_request(self, question: str, sentences: list[str], repeat: int = 0,
                        label: str = "") -> contract.ApiRequest:
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
_CRITERIA = {"true": "text", "false": "text"}
CRITERIA_SCHEMA = _CRITERIA  # a yes/no question's criteria in a schema: both texts always required
SCHEMA: dict[str, Any] = {
    "name": "name",
    "model": "text",
    "search": {"max_results": "results", "max_tokens_per_page": "positive"},
    "rank": {"instructions": "text", "has_answer": {"instructions": "text", "criteria": _CRITERIA}},
    "compare": {"instructions": "template", "criteria": _CRITERIA},
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
MAX_WHOLE = 2**53 - 1  # a request's whole numbers: larger ones no JSON reader holds exactly, nor orjson writes
_WORDS = {
    "name": "a name of letters, digits, `.`, `_` and `-` (it names the run directory), e.g. terse-criteria",
    "text": "non-empty text",
    "template": "non-empty text",
    "results": f"a whole number from 1 to {MAX_SEARCH_RESULTS} (the Search API's limit)",
    "positive": f"a whole number from 1 to {MAX_WHOLE} (2^53 - 1: the largest every JSON reader holds exactly)",
    "options": f"a whole number from 1 to {MAX_OPTIONS} (the Decisions API's option limit)",
}
Fail = Callable[[tuple[str, ...], str], InputError]


def _dotted(keys: tuple[str, ...]) -> str:
    return ".".join(keys)


def _key(key: Any) -> str:
    """A mapping key as written: YAML reads an unquoted `true:` as a boolean."""
    if isinstance(key, bool):
        return "true" if key else "false"
    return key if isinstance(key, str) else str(key)


def check_value(kind: str, value: Any, keys: tuple[str, ...], fail: Fail) -> Any:
    """`value` checked to be of `kind` (a key of `_WORDS`)."""
    if kind in ("name", "text", "template"):
        ok = isinstance(value, str) and bool(value.strip()) and is_unicode(value)
        if ok and kind == "name":
            ok = NAME.fullmatch(value) is not None
        if not ok:
            quote = "; put it in quotes if YAML reads it as something else" if not isinstance(value, str) else ""
            raise fail(keys, f"`{_dotted(keys)}` is {shown(value)}, not {_WORDS[kind]}{quote}")
        if kind == "template" and "{n}" not in value:
            raise fail(keys, f"`{_dotted(keys)}` must contain `{{n}}`, where each candidate's number goes, e.g. "
                       f"{COMPARE_INSTRUCTIONS!r}")
        return value
    ceiling = {"results": MAX_SEARCH_RESULTS, "options": MAX_OPTIONS}.get(kind, MAX_WHOLE)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= ceiling:
        raise fail(keys, f"`{_dotted(keys)}` is {shown(value)}, not {_WORDS[kind]}")
    return value


def in_file(path: Path | str, lines: Mapping[tuple[str, ...], int] | None) -> Fail:
    """How a pipeline file's problem is said: the file, the line of the key (or of the nearest key above it)."""
    found = lines or {}

    def fail(keys: tuple[str, ...], problem: str) -> InputError:
        line = next((found[keys[:n]] for n in range(len(keys), 0, -1) if keys[:n] in found), None)
        return InputError(f"{path}{f', line {line}' if line else ''}: {problem}")

    return fail


def in_run(keys: tuple[str, ...], problem: str) -> InputError:
    """How a problem of run.json's recorded pipeline is said (the caller names the file)."""
    return InputError(f"`config.pipeline`: {problem}")


def digest_of(system: str, values: Mapping[str, Any]) -> str:
    """A pipeline's digest: SHA-256 of its system's name, a line break, and the canonical JSON of its values
    without `name` (what it sends: a renamed copy has the same digest, any other value changes it)."""
    sent = {k: v for k, v in values.items() if k != "name"}
    return hashlib.sha256(f"{system}\n".encode() + contract.canonical_json(sent)).hexdigest()


class OwnPipeline:
    """What the pipeline of a system other than the quote finder shares (a frozen dataclass that defines
    `system`, `as_json` and `build(data, fail, strict, also)`): its digest, that it is never the recipe, and
    reading it from a pipeline file (`parse`) or from run.json (`from_json`)."""

    system: ClassVar[str]

    def as_json(self) -> dict[str, Any]:
        raise NotImplementedError

    @cached_property
    def digest(self) -> str:
        return digest_of(self.system, self.as_json())

    @property
    def is_recipe(self) -> bool:
        """Never: the recipe is the quote finder's, and a run of this system has a directory of its own."""
        return False

    @classmethod
    def build(cls, data: Any, fail: Fail, strict: bool, also: tuple[str, ...] = ()) -> Any:
        raise NotImplementedError

    @classmethod
    def parse(cls, data: Mapping[Any, Any], path: Path | str, lines: Mapping[tuple[str, ...], int] | None = None,
              also: tuple[str, ...] = ()) -> Any:
        """A pipeline from a pipeline file's mapping, every key optional; `InputError` naming the file and line."""
        return cls.build(data, in_file(path, lines), strict=False, also=also)

    @classmethod
    def from_json(cls, data: Any) -> Any:
        """run.json's recorded copy (`as_json()`), read strictly: every key present, every value checked."""
        return cls.build(data, in_run, strict=True)


Value = Callable[[str, Any, tuple[str, ...], Fail], Any]  # (kind, value, its path, fail) -> the value checked


def check_section(data: Any, schema: dict[str, Any], keys: tuple[str, ...], fail: Fail, strict: bool,
                  also: tuple[str, ...], found: dict[tuple[str, ...], Any], value: Value | None = None) -> None:
    """Check one mapping against its section of a schema (`SCHEMA`, or another system's, whose kinds `value`
    checks; the default is this one's), putting each value into `found` by its path."""
    value = value or check_value
    where = f"`{_dotted(keys)}`" if keys else "the pipeline"
    if not isinstance(data, Mapping):
        raise fail(keys, f"{where} must be a mapping of {', '.join(schema)}")
    named = {_key(k): v for k, v in data.items()}
    for key in named:
        if key not in schema:
            hint = difflib.get_close_matches(key, [*schema, *also] if not keys else list(schema), n=1)
            advice = f"did you mean `{hint[0]}`?" if hint else f"the keys are {', '.join(schema)}"
            inside = f" in {where}" if keys else ""
            raise fail((*keys, key), f"unknown key `{key}`{inside} ({advice})")
    required = strict or schema is _CRITERIA  # criteria always have both texts
    for key, kind in schema.items():
        path = (*keys, key)
        if key not in named:
            if required:
                raise fail(keys, f"{where} has no `{key}`" + ("; criteria need both `true` and `false` text"
                                                                 if schema is _CRITERIA else ""))
            continue
        if isinstance(kind, dict):
            check_section(named[key], kind, path, fail, strict, also, found, value)
        else:
            found[path] = value(kind, named[key], path, fail)


def field_values(found: Mapping[tuple[str, ...], Any], fields: Mapping[tuple[str, ...], str]) -> dict[str, Any]:
    """The checked values (`check_section`'s `found`, by path) as the pipeline's dataclass fields (`fields`: the
    field behind each path), a criteria section's two texts as one `Criteria`."""
    values: dict[str, Any] = {}
    for path, field in fields.items():
        criteria = {k[-1]: v for k, v in found.items() if k[:-1] == path}
        if criteria:
            values[field] = Criteria(**criteria)
        elif path in found:
            values[field] = found[path]
    return values


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
