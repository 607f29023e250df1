"""The one-shot web answering pipeline as a system under test (`pipelines.System`, `system: one-shot`).

Its fixed steps: the question is the one search query; one Decisions request ranks every hit with a snippet
(a hit without one is not ranked, so never kept); the kept set at a point is the best `max_sources` hits by
relevance (ties in search order) among those whose relevance >= `min_relevance`; one chat completion
summarizes each distinct kept set the recording covers. The decision: nothing kept (no request), or the
answer NO_ANSWER, is the no-answer line; otherwise the answer is quoted, and judged by the accept patterns,
except that a citation [n] that resolves to no kept source makes it wrong (`Quote.broken`).

The curve: `min_relevance` (x) selects the hits whose relevance >= x, which changes only at the distinct
relevance values (the edges, as the quote finder's has_answer values are); within a segment, `max_sources`
(y) keeps the first m of that ranking, which changes at each whole m up to the eligible count (bounds halfway
between whole numbers). Neither axis can only remove quotes (a smaller kept set can produce an answer a larger
one does not), so the plugin says so (`removes_quotes` False) and the certificate tests every cell on its own.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.coverage import Coverage
from ..core.perplexity import PERPLEXITY, SEARCH_PATH, Result, read_search, search_reading, usage_tokens
from ..core.plugin import MISSING, ApiSpec, AxisSpec, Curve, Piece, Quote, Reading, Steps, Unadorned
from ..core.requests import ApiRequest
from . import contract
from .config import DEFAULT, MAX_SOURCES, SYSTEM, OneShotPipeline

MIN_RELEVANCE = AxisSpec("min_relevance", "min_relevance", DEFAULT.min_relevance,
                         "the lowest relevance kept (a hit's relevance >= it)")
MAX_SOURCE_AXIS = AxisSpec("max_sources", "max_sources", float(DEFAULT.max_sources),
                           f"how many of the best kept hits are summarized, 1 to {MAX_SOURCES}",
                           whole=(1, MAX_SOURCES))

# What a default pipeline file (`pipelines show`) says above each key; `name` is every system's.
COMMENTS: dict[tuple[str, ...], str] = {
    ("model",): "the Decisions API model that ranks the hits",
    ("search",): "the Search API request: the question is the one query",
    ("search", "hits_per_query"): "hits per search, 1 to 20",
    ("search", "max_tokens_per_page"): "tokens of page text per hit (its snippet is what is read)",
    ("rank",): "one request for every hit with a snippet: one yes/no question per hit, its relevance",
    ("rank", "instructions"): "{n} becomes the hit's number",
    ("rank", "criteria"): "what yes (true) and no (false) mean",
    ("summarize",): "one chat completion per kept set (POST /chat/completions)",
    ("summarize", "model"): "the chat model",
    ("summarize", "instructions"): "the system message; how to cite, when to say NO_ANSWER and to treat page text as "
                                   "data are always added",
    ("min_relevance",): "the default lowest relevance kept, 0 to 1 (an axis: quotefinder record --range "
                        "min_relevance=...)",
    ("max_sources",): "the default number of kept hits summarized, 1 to 20 (an axis: quotefinder record --range "
                      "max_sources=...)",
}


Kept = tuple[int, ...]  # the hits kept, by their place in the search (1-based), best first


@dataclass
class Trace:
    """One question's hits, their relevance, and the summary of every kept set recorded."""

    question: str
    repeat: int
    results: list[Result] = field(default_factory=list)
    relevance: dict[int, float] = field(default_factory=dict)  # ranked hits only
    summaries: dict[Kept, str] = field(default_factory=dict)
    requests: int = 0
    input_tokens: int = 0
    result_count: int = 0

    def ranking(self) -> list[int]:
        """The ranked hits best first: relevance descending, ties in search order."""
        return sorted(self.relevance, key=lambda n: (-self.relevance[n], n))

    def kept(self, min_relevance: float, max_sources: int) -> Kept:
        """The kept set at a point: the best `max_sources` hits with relevance >= `min_relevance`."""
        return tuple(n for n in self.ranking() if self.relevance[n] >= min_relevance)[:max_sources]


def _sources_of(coverage: Mapping[str, Sequence[Any]], config: OneShotPipeline) -> list[int]:
    return MAX_SOURCE_AXIS.covered(coverage.get(MAX_SOURCE_AXIS.name, ())) or [config.max_sources]


def _relevance_of(coverage: Mapping[str, Sequence[Any]], config: OneShotPipeline) -> list[Coverage]:
    """The min_relevance values a coverage holds, as the quote finder's `Coverage`s: one per span (a run that
    grew holds several), and one of its single values."""
    items = list(coverage.get(MIN_RELEVANCE.name, ())) or [config.min_relevance]
    points = tuple(float(item) for item in items if not isinstance(item, tuple))
    return [Coverage(span=None, points=points),
            *(Coverage(span=(float(item[0]), float(item[1]))) for item in items if isinstance(item, tuple))]


def thresholds(trace: Trace, coverage: Mapping[str, Sequence[Any]], config: OneShotPipeline) -> list[float]:
    """The distinct relevance values whose eligible hits some covered min_relevance selects (a value is needed
    when any covered cutoff lies between it and the value below: the union over the spans and the points)."""
    return sorted({value for part in _relevance_of(coverage, config)
                   for value in part.thresholds(trace.relevance.values())})


def needed_sets(trace: Trace, coverage: Mapping[str, Sequence[Any]], config: OneShotPipeline) -> list[Kept]:
    """The distinct non-empty kept sets a coverage asks for: every min_relevance it covers selects the hits at
    or above one distinct relevance value (`Coverage.thresholds`), and every max_sources value keeps the first of
    them."""
    found: dict[Kept, None] = {}
    for threshold in thresholds(trace, coverage, config):
        for m in _sources_of(coverage, config):
            if kept := trace.kept(threshold, m):
                found.setdefault(kept)
    return list(found)


def piece_of(trace: Trace, kept: Kept) -> Piece:
    """What the pipeline does with this kept set: nothing kept or NO_ANSWER is the no-answer line; else the
    answer, broken when it cites a source it was not given."""
    if not kept:
        return Piece(None)
    answer = trace.summaries.get(kept)
    if answer is None:
        return MISSING
    if answer.strip() == contract.NO_ANSWER:
        return Piece(None)
    cited, unknown = contract.citations(answer, len(kept))
    first = trace.results[kept[(cited[0] - 1) if cited and not unknown else 0] - 1]
    broken = (f"cites [{unknown}], but only {len(kept)} source(s) were kept" if unknown else "")
    return Piece(Quote(answer, first.title, first.url, first.date, broken=broken))


class OneShot(Unadorned):
    """The one-shot web answering pipeline (`system: one-shot`)."""

    name = SYSTEM
    axes = (MIN_RELEVANCE, MAX_SOURCE_AXIS)
    default = DEFAULT
    pipeline_type = OneShotPipeline
    apis: tuple[ApiSpec, ...] = (PERPLEXITY,)  # the same base URL and key as the quote finder
    comments: Mapping[tuple[str, ...], str] = COMMENTS
    no_answer_words = "no hit reached min_relevance (nothing was summarized), or the summary said NO_ANSWER"

    def worst_words(self, config: Any) -> str:
        return "one not yet searched needs a search, a rank and a summary per kept set it can need"

    def default_point(self, config: OneShotPipeline) -> tuple[float, float]:
        return config.min_relevance, float(config.max_sources)

    def steps(self, question: str, config: Any, coverage: Mapping[str, Sequence[Any]], repeat: int = 0) -> Steps:
        config = config or DEFAULT
        [found] = yield [config.search_request(question, repeat)]
        trace = Trace(question, repeat, read_search(found), requests=1)
        trace.result_count = len(trace.results)
        hits = [(n, result) for n, result in enumerate(trace.results, start=1) if result.snippet.strip()]
        if not hits:
            return trace
        request = config.rank_request(question, hits, repeat)
        [ranked] = yield [request]
        trace.relevance = contract.read_rank(request, ranked)
        trace.requests += 1
        trace.input_tokens += usage_tokens(ranked)
        sets = needed_sets(trace, coverage, config)
        if not sets:
            return trace
        requests = [config.summary_request(question, [trace.results[n - 1] for n in kept], repeat) for kept in sets]
        answers = yield requests
        for kept, data in zip(sets, answers, strict=True):
            trace.summaries[kept] = contract.read_summary(data)
            trace.input_tokens += contract.summary_tokens(data)
        trace.requests += len(requests)
        return trace

    def check(self, request: ApiRequest, data: Any) -> None:
        if request.path == contract.CHAT_PATH:
            contract.read_summary(data)
        elif request.path == SEARCH_PATH:
            read_search(data)
        else:
            contract.read_rank(request, data)
            usage_tokens(data)

    def readings(self, request: ApiRequest, data: Any) -> list[Reading]:
        """The search's results (as the quote finder's), the rank's order of the hits with each one's relevance,
        and a summary's text."""
        if request.path == contract.CHAT_PATH:
            return [Reading("summary", contract.read_summary(data))]
        if request.path == SEARCH_PATH:
            return [search_reading(data)]
        relevance = contract.read_rank(request, data)
        order = tuple(sorted(relevance, key=lambda n: (-relevance[n], n)))
        return [Reading("relevance ranking", order, tuple(relevance[n] for n in sorted(relevance)), "relevant_n")]

    def input_tokens(self, request: ApiRequest, data: Any) -> int:
        if request.path == contract.CHAT_PATH:
            return contract.summary_tokens(data)
        return 0 if request.path == SEARCH_PATH else usage_tokens(data)

    def bound(self, config: Any, coverage: Mapping[str, Sequence[Any]], batch: Sequence[ApiRequest], missing: int,
              first: bool) -> int:
        """After the search: the rank and, at the worst, a summary per kept set the coverage can need (a
        relevance value per hit, or per single min_relevance covered, times the max_sources values); after the rank:
        those summaries; after the summaries: those missing."""
        worst = self._most_sets(config or DEFAULT, coverage)
        if first:
            return 2 + worst
        return missing + (worst if batch[0].path != contract.CHAT_PATH else 0)

    def _most_sets(self, config: OneShotPipeline, coverage: Mapping[str, Sequence[Any]]) -> int:
        parts = _relevance_of(coverage, config)
        spanned = any(part.span is not None for part in parts)
        return len(_sources_of(coverage, config)) * (config.hits_per_query if spanned else len(parts[0].points))

    def expected(self, config: Any, coverage: Mapping[str, Sequence[Any]]) -> tuple[float, float, str]:
        sets = self._most_sets(config or DEFAULT, coverage)
        return (2 + sets, 0.0, f"a search, a rank and the most summaries the coverage can need, {sets} per question "
                               "(one per distinct kept set: fewer when hits share a relevance); input tokens are "
                               "known once recorded")

    def decide(self, trace: Trace, x: float, y: float) -> Piece:
        return piece_of(trace, trace.kept(x, max(1, math.ceil(y - 0.5))))

    def curve(self, trace: Trace) -> Curve:
        values = sorted(set(trace.relevance.values()))
        edges, bounds, pieces = [], [], []
        for value in values:  # segment: min_relevance in (previous, value] keeps the hits at or above value
            eligible = trace.kept(value, len(trace.relevance))
            edges.append(value)
            bounds.append(tuple(m + 0.5 for m in range(1, len(eligible))))
            pieces.append(tuple(piece_of(trace, eligible[:m]) for m in range(1, len(eligible) + 1)))
        bounds.append(())
        pieces.append((Piece(None),))  # above every relevance: nothing kept, nothing asked
        return Curve(tuple(edges), tuple(bounds), tuple(pieces))


ONE_SHOT = OneShot()


