"""The API contract: the request bodies the pipeline sends and what it reads from the responses.

Plain data in, plain data out; no HTTP here (that is `client.py`). By default the bodies are the recipe's,
field for field and word for word, because the probabilities a sweep tunes against only mean
something for these exact prompts; a pipeline file (`config.QuoteFinderPipeline`) passes its own model,
search settings and wording through the builders' keywords, and the cache key follows the bodies.
Readers check everything the pipeline reads and raise `ContractError` otherwise, so that a malformed
response is never cached and never becomes a silent "missed" in a table.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import orjson

from ..errors import ContractError
from ..textsafe import is_unicode

KEY_VERSION = "quotefinder-request/1"
SEARCH_PATH = "/search"
DECISIONS_PATH = "/v1/decisions"
MODEL = "pplx-decider-v1.1-27b"
MAX_RESULTS = 5
MAX_TOKENS_PER_PAGE = 2048

RANK_INSTRUCTIONS = (
    "Which numbered sentence most directly answers the question? "
    "Prefer a sentence that states the answer itself over one that only mentions the topic."
)
HAS_ANSWER_INSTRUCTIONS = "Does at least one of the numbered sentences answer the question?"
HAS_ANSWER_CRITERIA = {
    "true": "At least one sentence states the answer or directly implies it, "
    "so a reader could quote that sentence as the answer.",
    "false": "The sentences discuss the topic but none states the answer, "
    "or answering would need outside knowledge.",
}
COMPARE_INSTRUCTIONS = "Does candidate {n} state the answer to the question?"  # `{n}`: the candidate's number
ANSWERS_CRITERIA = {
    "true": "The sentence contains the answer itself and can be quoted as the answer without adding anything.",
    "false": "The sentence is about the topic but does not contain the answer, or only hints at it.",
}


def canonical_json(value: Any) -> bytes:
    """One spelling per JSON value: keys sorted, no whitespace, UTF-8, nothing escaped that need not be.

    For what request bodies hold (text, integers, booleans, null, lists, objects) these are exactly
    the bytes of ``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    .encode()`` (a test holds the two together), produced by orjson because a replay computes one
    for each of ~100,000 requests.
    """
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


@dataclass(frozen=True, eq=False)
class ApiRequest:
    """One POST: the endpoint path, the JSON body exactly as sent, and the repeat index."""

    path: str
    body: dict[str, Any]
    repeat: int = 0
    label: str = ""  # words for messages; not part of the identity

    @cached_property
    def key(self) -> str:
        """The request's identity: SHA-256 over a version, the path, the repeat and the canonical body.

        The base URL, headers and the API key are not part of it, so a proxy or the stand-in
        replays the same entries and a key never reaches the cache.
        """
        head = f"{KEY_VERSION}\n{self.path}\n{self.repeat}\n".encode()
        return hashlib.sha256(head + canonical_json(self.body)).hexdigest()


@dataclass(frozen=True)
class Result:
    """One search result. The snippet is the only text a quote may come from."""

    title: str
    url: str
    snippet: str
    date: str | None


@dataclass(frozen=True)
class Rank:
    """What the pipeline reads from one rank response."""

    sentence_id: int
    choice_probability: float
    confidence: float
    has_answer: float
    input_tokens: int


# ---- Requests ---------------------------------------------------------------------------------


def search_request(question: str, repeat: int = 0, *, max_results: int = MAX_RESULTS,
                   max_tokens_per_page: int = MAX_TOKENS_PER_PAGE) -> ApiRequest:
    """The Search API request: the question, `max_results` results (the recipe's five), `max_tokens_per_page`
    tokens of text per page (the recipe's 2,048)."""
    body = {"query": question, "max_results": max_results, "max_tokens_per_page": max_tokens_per_page}
    return ApiRequest(SEARCH_PATH, body, repeat, "the search")


def numbered(sentences: Sequence[str]) -> dict[str, str]:
    """Sentences keyed "1", "2", ... in page order: the choice options."""
    return {str(n): text for n, text in enumerate(sentences, start=1)}


def rank_request(
    question: str, result: Result, sentences: Sequence[str], repeat: int = 0, label: str = "", *,
    model: str = MODEL, instructions: str = RANK_INSTRUCTIONS,
    has_answer_instructions: str = HAS_ANSWER_INSTRUCTIONS,
    has_answer_criteria: Mapping[str, str] = HAS_ANSWER_CRITERIA,
) -> ApiRequest:
    """One result's request: which numbered sentence answers (`best`), and does any (`has_answer`). The
    keywords default to the recipe's model and wording (`config.QuoteFinderPipeline` passes its own)."""
    options = numbered(sentences)
    state = {"question": question, "source": {"title": result.title, "url": result.url}, "sentences": options}
    questions = {
        "best": {"type": "choice", "instructions": instructions, "criteria": options},
        "has_answer": {"type": "noul", "instructions": has_answer_instructions,
                       "criteria": dict(has_answer_criteria)},
    }
    return ApiRequest(DECISIONS_PATH, {"model": model, "state": state, "questions": questions}, repeat, label)


def compare_request(
    question: str, sentences: Sequence[str], repeat: int = 0, label: str = "", *, model: str = MODEL,
    instructions: str = COMPARE_INSTRUCTIONS, criteria: Mapping[str, str] = ANSWERS_CRITERIA,
) -> ApiRequest:
    """The candidates side by side, one yes/no `answers_n` per candidate, in the given order. `instructions`
    is a template: `{n}` becomes the candidate's number."""
    state = {"question": question, "candidates": numbered(sentences)}
    questions = {
        f"answers_{n}": {
            "type": "noul",
            "instructions": instructions.replace("{n}", str(n)),
            "criteria": dict(criteria),
        }
        for n in range(1, len(sentences) + 1)
    }
    return ApiRequest(DECISIONS_PATH, {"model": model, "state": state, "questions": questions}, repeat, label)


def is_rank(request: ApiRequest) -> bool:
    """Whether a Decisions request is a rank request (it asks `best`) rather than a compare."""
    return request.path == DECISIONS_PATH and "best" in request.body["questions"]


# ---- Responses ----------------------------------------------------------------------------------


SHOWN_AT_MOST = 80  # characters of a server's value quoted in a contract error (it lands in run.json and on screen)


def shown(value: Any) -> str:
    """A server's value as an error message quotes it: its repr, cut at `SHOWN_AT_MOST` characters (a 100 KB
    `choice` must not become a 100 KB line in run.json and the terminal)."""
    text = repr(value)
    return text if len(text) <= SHOWN_AT_MOST else f"{text[:SHOWN_AT_MOST]}... ({len(text)} characters)"


CITED_DIGITS = 4  # a cited number of more digits (leading zeros aside) names no source any answer has


def cited(digits: str) -> int | None:
    """The number a citation's digits write (`[n]` in answer text), or None when it has more than CITED_DIGITS:
    page or model text never becomes an unbounded integer."""
    kept = digits.lstrip("0")
    return int(kept or "0") if len(kept) <= CITED_DIGITS else None


def cited_shown(digits: str) -> str:
    """A citation's digits as a message quotes them: whole, or the first few and how many there are."""
    return digits if len(digits) <= 12 else f"{digits[:8]}... ({len(digits)} digits)"


def field_of(data: Any, name: str, where: str) -> Any:
    if not isinstance(data, dict):
        raise ContractError(f"{where} is not a JSON object")
    if name not in data:
        raise ContractError(f"{where} has no `{name}`")
    return data[name]


def _probability(value: Any, where: str) -> float:
    """A probability: a finite number in [0, 1]. Booleans are not numbers here."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ContractError(f"{where} is {shown(value)}, not a probability")
    value = float(value)
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        raise ContractError(f"{where} is {shown(value)}, outside [0, 1]")
    return value


def _input_tokens(data: Any) -> int:
    tokens = field_of(field_of(data, "usage", "the response"), "input_tokens", "`usage`")
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        raise ContractError(f"`usage.input_tokens` is {shown(tokens)}, not a count")
    return tokens


def read_search(data: Any) -> list[Result]:
    """The results of a search response, in order. `date` may be missing or null."""
    items = field_of(data, "results", "the search response")
    if not isinstance(items, list):
        raise ContractError("the search response's `results` is not a list")
    results = []
    for n, item in enumerate(items, start=1):
        where = f"search result {n}"
        fields = {}
        for name in ("title", "url", "snippet"):
            value = field_of(item, name, where)
            if not isinstance(value, str):
                raise ContractError(f"{where} has a `{name}` that is not text")
            if not is_unicode(value):
                raise ContractError(f"{where} has a `{name}` that is not valid Unicode (a lone surrogate)")
            fields[name] = value
        if not fields["url"]:
            raise ContractError(f"{where} has an empty `url`")
        date = item.get("date")
        if date is not None and not isinstance(date, str):
            raise ContractError(f"{where} has a `date` that is not text")
        results.append(Result(fields["title"], fields["url"], fields["snippet"], date))
    return results


def read_rank(request: ApiRequest, data: Any) -> Rank:
    """The chosen sentence, its probability and confidence, and has_answer, from a rank response."""
    answers = field_of(data, "answers", "the rank response")
    best = field_of(answers, "best", "`answers`")
    choice = field_of(best, "choice", "`answers.best`")
    options = request.body["questions"]["best"]["criteria"]
    if not isinstance(choice, str) or choice not in options:
        raise ContractError(f"`answers.best.choice` is {shown(choice)}, not one of the numbered sentences "
                            f"1-{len(options)}")
    probabilities = field_of(best, "probabilities", "`answers.best`")
    choice_probability = _probability(field_of(probabilities, choice, "`answers.best.probabilities`"),
                                      f"`answers.best.probabilities[{shown(choice)}]`")
    confidence = field_of(best, "confidence", "`answers.best`")
    if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not math.isfinite(confidence):
        raise ContractError(f"`answers.best.confidence` is {shown(confidence)}, not a number")
    has_answer = _probability(field_of(field_of(answers, "has_answer", "`answers`"), "noul", "`answers.has_answer`"),
                              "`answers.has_answer.noul`")
    return Rank(int(choice), choice_probability, float(confidence), has_answer, _input_tokens(data))


def read_compare(request: ApiRequest, data: Any) -> tuple[list[float], int]:
    """Each candidate's `answers_n` probability, in candidate order, and the input tokens."""
    answers = field_of(data, "answers", "the compare response")
    names = list(request.body["questions"])
    values = [_probability(field_of(field_of(answers, name, "`answers`"), "noul", f"`answers.{name}`"),
                           f"`answers.{name}.noul`") for name in names]
    return values, _input_tokens(data)


def input_tokens(request: ApiRequest, data: Any) -> int:
    """The input tokens a response reports (0 for a search, which reports none); the response must have
    passed `check`."""
    return 0 if request.path == SEARCH_PATH else _input_tokens(data)


def check(request: ApiRequest, data: Any) -> None:
    """Raise `ContractError` unless `data` holds everything the pipeline will read for `request`."""
    if request.path == SEARCH_PATH:
        read_search(data)
    elif is_rank(request):
        read_rank(request, data)
    else:
        read_compare(request, data)
