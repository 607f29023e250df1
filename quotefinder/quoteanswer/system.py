"""The quote-answer API as a system under test (`pipelines.System`, `system: quote-answer`).

It has no probability to cut on: its operating points are configurations, one request per question and
configuration, on two axes: `passages` (how many quotes the answer carries, 1 to 12) and `tier` (how deep the
search behind it goes: instant, deep, deep_reasoning; a categorical axis, held in the plane as its positions
0, 1, 2). The decision at a configuration is its response's: an empty answer, or one with no passages, is the
no-answer line; otherwise the answer is quoted, and judged on its passages (correct when one of them is).

The curve is a table of configurations: segment k of `passages` is the whole number k + 1 (edges halfway
between whole numbers), piece j of `tier` is the tier at position j; a configuration the recording did not
cover is `MISSING`. Neither axis can only take quotes away (fewer passages can still answer, a deeper tier can
find nothing), so a guarantee over several configurations cannot rely on an order along either.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.plugin import MISSING, ApiSpec, AxisSpec, Curve, Piece, Quote, Reading, Steps, Unadorned
from ..core.requests import ApiRequest
from . import contract
from .config import DEFAULT, SYSTEM, QuoteAnswerPipeline
from .contract import Answer

PASSAGES = AxisSpec("passages", "passages", DEFAULT.passages, "quotes the answer carries, 1 to 12",
                    whole=(1, contract.MAX_PASSAGES))
TIER = AxisSpec("tier", "tier", float(contract.TIERS.index(DEFAULT.tier)),
                f"search depth: {', '.join(contract.TIERS)}", choices=contract.TIERS)
API = ApiSpec("the quote-answer API", "QUOTEANSWER_BASE_URL", "QUOTEANSWER_API_KEY", "")

Configuration = tuple[int, int]  # (passages, the tier's position)

# What a default pipeline file (`pipelines show`) says above each key; `name` is every system's.
COMMENTS: dict[tuple[str, ...], str] = {
    ("tier",): "the default tier, one of instant, deep, deep_reasoning (an axis: quotefinder record --range "
               "tier=...)",
    ("passages",): "the default number of quotes, 1 to 12 (an axis: quotefinder record --range passages=...)",
    ("limit",): "how many ranked results the answer may quote from, 1 to 50",
    ("domain",): "only pages from this domain (null: not sent)",
    ("recency",): "day, week, month or year (null: not sent)",
    ("category",): "general, news, science, images, videos or it (null: not sent)",
}


@dataclass
class Trace:
    """Every configuration's answer for one question and repeat."""

    question: str
    repeat: int
    answers: dict[Configuration, Answer] = field(default_factory=dict)
    requests: int = 0
    input_tokens: int = 0  # the API reports answer units, not tokens
    result_count: int = 0

    @property
    def units(self) -> int:
        return sum(answer.units for answer in self.answers.values())


def configurations(config: QuoteAnswerPipeline, coverage: Mapping[str, Sequence[Any]]) -> list[Configuration]:
    """The configurations a coverage asks for, each axis's default when it names none of its values."""
    passages = PASSAGES.covered(coverage.get(PASSAGES.name, ())) or [config.passages]
    tiers = TIER.covered(coverage.get(TIER.name, ())) or [contract.TIERS.index(config.tier)]
    return [(p, t) for p in passages for t in tiers]


def quote_of(answer: Answer) -> Quote | None:
    """The answer as a quote (its passages judged), or None for the no-answer line."""
    if not answer.text.strip() or not answer.passages:
        return None
    first = answer.source(answer.passages[0][0])
    return Quote(answer.text, first.title, first.url, None, passages=tuple(text for _, text in answer.passages))


def _position(value: float, count: int, first: int = 0) -> int:
    """The whole value a point of the plane falls on (halfway between two counts to the lower one), clamped."""
    return min(max(math.ceil(value - 0.5), first), first + count - 1)


class QuoteAnswer(Unadorned):
    """The quote-answer API (`system: quote-answer`); a point is a configuration, passages and tier."""

    name = SYSTEM
    axes = (PASSAGES, TIER)
    default = DEFAULT
    pipeline_type = QuoteAnswerPipeline
    apis: tuple[ApiSpec, ...] = (API,)
    comments: Mapping[tuple[str, ...], str] = COMMENTS
    no_answer_words = "the API found nothing to quote"

    def worst_words(self, config: Any) -> str:
        return "one request per configuration each"

    def default_point(self, config: QuoteAnswerPipeline) -> tuple[float, float]:
        return float(config.passages), float(contract.TIERS.index(config.tier))

    def steps(self, question: str, config: Any, coverage: Mapping[str, Sequence[Any]], repeat: int = 0) -> Steps:
        config = config or DEFAULT
        chosen = configurations(config, coverage)
        requests = [config.request(question, p, contract.TIERS[t], repeat) for p, t in chosen]
        responses = yield requests
        trace = Trace(question, repeat, requests=len(requests))
        for configuration, data in zip(chosen, responses, strict=True):
            trace.answers[configuration] = contract.read_answer(data, configuration[0])
        shown = trace.answers.get((config.passages, contract.TIERS.index(config.tier)))  # the default configuration
        trace.result_count = len(shown.sources) if shown is not None else 0
        return trace

    def check(self, request: ApiRequest, data: Any) -> None:
        contract.read_answer(data, request.body["passages"])

    def input_tokens(self, request: ApiRequest, data: Any) -> int:
        return 0

    def readings(self, request: ApiRequest, data: Any) -> list[Reading]:
        """The answer: its passages with their sources' URLs (no probabilities: the API gives none), and its first
        source as the top one."""
        answer = contract.read_answer(data, request.body["passages"])
        urls = {source.n: source.url for source in answer.sources}
        passages = tuple((urls.get(n, ""), text) for n, text in answer.passages)
        return [Reading("answer", passages, top=answer.sources[0].url if answer.sources else "")]

    def bound(self, config: Any, coverage: Mapping[str, Sequence[Any]], batch: Sequence[ApiRequest], missing: int,
              first: bool) -> int:
        """At most how many requests remain from a batch that lacks `missing` responses: those."""
        return missing

    def expected(self, config: Any, coverage: Mapping[str, Sequence[Any]]) -> tuple[float, float, str]:
        """One request per configuration and no input tokens (the API reports answer units), and why."""
        count = len(configurations(config or DEFAULT, coverage))
        return count, 0.0, f"one answer request per configuration ({count} per question; one answer unit each)"

    def decide(self, trace: Trace, x: float, y: float) -> Piece:
        configuration = (_position(x, PASSAGES.whole[1], 1) if PASSAGES.whole else 0,
                         _position(y, len(contract.TIERS)))
        answer = trace.answers.get(configuration)
        return MISSING if answer is None else Piece(quote_of(answer))

    def curve(self, trace: Trace) -> Curve:
        count = contract.MAX_PASSAGES
        edges = tuple(k + 0.5 for k in range(1, count))
        bounds = tuple(float(j) + 0.5 for j in range(len(contract.TIERS) - 1))
        pieces = tuple(tuple(MISSING if (answer := trace.answers.get((p, t))) is None else Piece(quote_of(answer))
                             for t in range(len(contract.TIERS))) for p in range(1, count + 1))
        return Curve(edges, (bounds,) * count, pieces)


QUOTE_ANSWER = QuoteAnswer()


