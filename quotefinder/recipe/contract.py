"""The API contract: the request bodies the pipeline sends and what it reads from the responses.

Plain data in, plain data out; no HTTP here (that is `client.py`). By default the bodies are the recipe's,
field for field and word for word, because the probabilities a sweep tunes against only mean
something for these exact prompts; a pipeline file (`config.QuoteFinderPipeline`) passes its own model,
search settings and wording through the builders' keywords, and the cache key follows the bodies.
Readers check everything the pipeline reads and raise `ContractError` otherwise, so that a malformed
response is never cached and never becomes a silent "missed" in a table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.errors import ContractError
from ..core.perplexity import DECISIONS_PATH, MODEL, SEARCH_PATH, Result, read_search, usage_tokens
from ..core.requests import ApiRequest, field_of, probability
from ..core.textsafe import shown

MAX_RESULTS = 5

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


@dataclass(frozen=True)
class Rank:
    """What the pipeline reads from one rank response."""

    sentence_id: int
    choice_probability: float
    confidence: float
    has_answer: float
    input_tokens: int


# ---- Requests ---------------------------------------------------------------------------------


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
    choice_probability = probability(field_of(probabilities, choice, "`answers.best.probabilities`"),
                                      f"`answers.best.probabilities[{shown(choice)}]`")
    confidence = field_of(best, "confidence", "`answers.best`")
    if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not math.isfinite(confidence):
        raise ContractError(f"`answers.best.confidence` is {shown(confidence)}, not a number")
    has_answer = probability(field_of(field_of(answers, "has_answer", "`answers`"), "noul", "`answers.has_answer`"),
                              "`answers.has_answer.noul`")
    return Rank(int(choice), choice_probability, float(confidence), has_answer, usage_tokens(data))


def read_compare(request: ApiRequest, data: Any) -> tuple[list[float], int]:
    """Each candidate's `answers_n` probability, in candidate order, and the input tokens."""
    answers = field_of(data, "answers", "the compare response")
    names = list(request.body["questions"])
    values = [probability(field_of(field_of(answers, name, "`answers`"), "noul", f"`answers.{name}`"),
                           f"`answers.{name}.noul`") for name in names]
    return values, usage_tokens(data)


def input_tokens(request: ApiRequest, data: Any) -> int:
    """The input tokens a response reports (0 for a search, which reports none); the response must have
    passed `check`."""
    return 0 if request.path == SEARCH_PATH else usage_tokens(data)


def check(request: ApiRequest, data: Any) -> None:
    """Raise `ContractError` unless `data` holds everything the pipeline will read for `request`."""
    if request.path == SEARCH_PATH:
        read_search(data)
    elif is_rank(request):
        read_rank(request, data)
    else:
        read_compare(request, data)
