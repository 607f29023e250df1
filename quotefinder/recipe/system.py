"""The quote finder as a system under test (`pipelines.System`): the recipe's pipeline, its two cutoffs, its
decision at a point (`decision.decide`) and its curve.

The curve follows from the rule. HAS_ANSWER_CUTOFF h matters only through the qualified set it selects
(the candidates with has_answer >= h), which changes only at the question's distinct has_answer values
t_1 < ... < t_m: every h <= t_1 selects the set qualified at t_1, every h in (t_k, t_k+1] the set at t_k+1,
and every h above t_m nothing. So the edges are those values. In the segment of a set, its top candidate
(`decision.best`) is quoted exactly when its compare probability p >= ANSWER_CUTOFF: one bound, p, with the
quote below it and the no-answer line (showing that top) above. Where nothing qualifies, the no-answer line
shows the closest candidate (`decision.closest`). A set the recording did not cover is `MISSING`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.coverage import Coverage
from ..core.perplexity import SEARCH_PATH, read_search
from ..core.plugin import MISSING, ApiSpec, AxisSpec, Curve, Legacy, Piece, Quote, Reading, Steps
from ..core.requests import ApiRequest
from . import contract, pipeline
from .config import RECIPE, QuoteFinderPipeline
from .decision import (
    ANSWER_CUTOFF,
    ANSWER_WORDS,
    HAS_ANSWER_CUTOFF,
    HAS_ANSWER_WORDS,
    Candidate,
    Cutoffs,
    Scored,
    closest,
    decide,
)
from .pipeline import Trace

HAS_ANSWER = AxisSpec("has_answer", "HAS_ANSWER_CUTOFF", HAS_ANSWER_CUTOFF, HAS_ANSWER_WORDS, "--has-answer",
                      column="has_answer_cutoff")
PERPLEXITY = ApiSpec("the Perplexity API", "PERPLEXITY_BASE_URL", "PERPLEXITY_API_KEY", "https://api.perplexity.ai")
TOKENS_PER_DECISION = 678  # the recipe's median input tokens per Decisions request, in its ten-question run
ANSWER = AxisSpec("answer", "ANSWER_CUTOFF", ANSWER_CUTOFF, ANSWER_WORDS, "--answer", removes_quotes=True,
                  recorded=False, column="answer_cutoff")
AXES_HELP = (
    "the two cutoffs:\n"
    f"  HAS_ANSWER_CUTOFF (default {HAS_ANSWER_CUTOFF:g})  {HAS_ANSWER_WORDS}: the results that pass it form the\n"
    "                        qualified set, whose top sentences are compared in one more request\n"
    f"  ANSWER_CUTOFF (default {ANSWER_CUTOFF:g})      {ANSWER_WORDS}; otherwise the answer is\n"
    "                        'no result answers'\n"
    "  a probability exactly on a cutoff passes it\n"
)

# run.json's config as runs have always held it: the pipeline's flat values, the default cutoffs (the axes' columns)
# and the HAS_ANSWER_CUTOFF range whose compare responses the run holds.
LEGACY = Legacy(keys=("model", "max_results", "max_tokens_per_page", "has_answer_cutoff", "answer_cutoff",
                      "min_sentences", "has_answer_range"),
                flat=("model", "max_results", "max_tokens_per_page", "min_sentences"),
                point=("has_answer_cutoff", "answer_cutoff"), span="has_answer_range")


# What a default pipeline file (`pipelines show`) says above each key; `name` is every system's.
COMMENTS: dict[tuple[str, ...], str] = {
    ("model",): "the Decisions API model",
    ("search",): "the Search API request",
    ("search", "max_results"): "results per search, 1 to 20",
    ("search", "max_tokens_per_page"): "tokens of page text per result",
    ("rank",): "one request per result: which numbered sentence answers, and does any",
    ("rank", "instructions"): "the choice question over the result's numbered sentences",
    ("rank", "has_answer"): "the yes/no question in the same request; HAS_ANSWER_CUTOFF applies to it",
    ("rank", "has_answer", "criteria"): "what yes (true) and no (false) mean",
    ("compare",): "one request per qualified set: one yes/no question per candidate",
    ("compare", "instructions"): "{n} becomes the candidate's number",
    ("compare", "criteria"): "what yes (true) and no (false) mean; ANSWER_CUTOFF applies to it",
    ("min_sentences",): "a result is ranked when it has at least this many sentences",
    ("sentences",): "how a snippet is split",
    ("sentences", "min_chars"): "shorter pieces (headings, labels) are dropped",
    ("sentences", "max_chars"): "longer pieces are dropped",
    ("sentences", "max_sentences"): "at most this many per result (the choice option limit is 255)",
}


def quote_of(scored: Scored | Candidate) -> Quote:
    """A candidate as a quote: its sentence and source, with its compare probability (`answers`) when it was
    compared, else its has_answer."""
    c = scored if isinstance(scored, Candidate) else scored.candidate
    answers = None if isinstance(scored, Candidate) else scored.answers
    if answers is None:
        return Quote(c.sentence, c.title, c.url, c.date, c.has_answer, "has_answer")
    return Quote(c.sentence, c.title, c.url, c.date, answers, "answers")


def coverage_of(coverage: Mapping[str, Sequence[Any]]) -> Coverage:
    """The recipe's `Coverage` from the values a recording must cover on HAS_ANSWER_CUTOFF: at most one span
    (lo, hi) and any single points."""
    return _coverage(tuple(coverage.get(HAS_ANSWER.name, ())))


@functools.lru_cache(maxsize=8)
def _coverage(items: tuple[Any, ...]) -> Coverage:
    """`coverage_of` for one tuple of values, built once: a replay asks it for every question with the same ones
    (frozen, so sharing it is safe)."""
    spans = [item for item in items if isinstance(item, tuple)]
    if len(spans) > 1:
        raise ValueError("the quote finder covers one HAS_ANSWER_CUTOFF span at a time")
    points = tuple(float(item) for item in items if not isinstance(item, tuple))
    return Coverage(span=(float(spans[0][0]), float(spans[0][1])) if spans else None, points=points)


SEARCH_STAGE, RANK_STAGE, COMPARE_STAGE = "search results", "sentence chosen", "compare"


def search_reading(data: Any) -> Reading:
    """A search's results as a refresh compares them: each result's URL and text in order, and the top one."""
    results = read_search(data)
    return Reading(SEARCH_STAGE, tuple((r.url, r.snippet) for r in results), top=results[0].url if results else "")


def readings(request: ApiRequest, data: Any) -> list[Reading]:
    if request.path == SEARCH_PATH:
        return [search_reading(data)]
    if contract.is_rank(request):
        rank = contract.read_rank(request, data)
        return [Reading(RANK_STAGE, rank.sentence_id, (rank.has_answer,), "has_answer")]
    values, _ = contract.read_compare(request, data)
    preferred = max(range(len(values)), key=lambda n: (values[n], -n))  # the first of the highest, as `best` ties
    return [Reading(COMPARE_STAGE, preferred + 1, tuple(values), "answers")]


class QuoteFinder:
    """The recipe's quote finder (`system: quote-finder`)."""

    name = "quote-finder"
    axes = (HAS_ANSWER, ANSWER)
    default = RECIPE
    pipeline_type = QuoteFinderPipeline
    quote_score = "answers"
    apis: tuple[ApiSpec, ...] = (PERPLEXITY,)
    settings = "cutoffs"
    comments: Mapping[tuple[str, ...], str] = COMMENTS
    default_words = "the recipe's"
    legacy: Legacy | None = LEGACY
    default_grid: str | None = "0:1:0.05"
    no_answer_words = ""  # its no-answer line names its results itself
    help_text = AXES_HELP

    def default_point(self, config: Any) -> tuple[float, float]:
        return HAS_ANSWER.default, ANSWER.default

    def worst_words(self, config: Any) -> str:
        results = config.max_results
        return f"one not yet searched needs at most 1 search, {results} rank and {results} compare requests"

    def described(self, config: Any) -> str:
        return f"model {config.model}, {config.max_results} search results"

    def check(self, request: ApiRequest, data: Any) -> None:
        contract.check(request, data)

    def input_tokens(self, request: ApiRequest, data: Any) -> int:
        return contract.input_tokens(request, data)

    def bound(self, config: Any, coverage: Mapping[str, Sequence[Any]], batch: Sequence[ApiRequest], missing: int,
              first: bool) -> int:
        """After a search: a rank per result and a compare per distinct qualified set, at most one per result;
        after a rank: a compare per ranked result; after a compare: nothing."""
        if first:
            return 1 + 2 * (config or RECIPE).max_results
        return missing + (len(batch) if contract.is_rank(batch[0]) else 0)

    def expected(self, config: Any, coverage: Mapping[str, Sequence[Any]]) -> tuple[float, float, str]:
        """The recipe's published figures: every search returned max_results results, each with usable
        sentences, and a median of 678 input tokens per Decisions request (its ten-question run)."""
        results = (config or RECIPE).max_results
        span = coverage_of(coverage).span
        compares = results if span is not None and span[0] < span[1] else 1
        shown = f"--range has_answer={span[0]:g}:{span[1]:g}" if span is not None else "the default HAS_ANSWER_CUTOFF"
        basis = (f"the recipe's published figures: {results} results per search with usable sentences, "
                 f"{compares} compare request(s) per question over {shown}, "
                 f"{TOKENS_PER_DECISION} input tokens per Decisions request (its median)")
        return 1 + results + compares, TOKENS_PER_DECISION, basis

    def steps(self, question: str, config: Any, coverage: Mapping[str, Sequence[Any]], repeat: int = 0) -> Steps:
        cutoffs = Cutoffs(min_sentences=getattr(config, "min_sentences", Cutoffs().min_sentences))
        kwargs = {} if config is None else {"config": config}
        return pipeline.steps(question, coverage_of(coverage), cutoffs, repeat, **kwargs)

    def readings(self, request: ApiRequest, data: Any) -> list[Reading]:
        """The search's results (URL and text, in order; its top result), a rank's sentence chosen with its
        has_answer, a compare's preferred candidate with every candidate's probability."""
        return readings(request, data)

    def decide(self, trace: Trace, x: float, y: float) -> Piece:
        """`decision.decide` at (HAS_ANSWER_CUTOFF x, ANSWER_CUTOFF y), as a piece: the rule itself."""
        made = decide(trace.candidates, trace.compares, x, y)
        if made.quote is not None:
            return Piece(quote_of(made.quote))
        return Piece(None, quote_of(made.closest) if made.closest is not None else None)

    def curve(self, trace: Trace) -> Curve:
        edges: list[float] = []
        bounds: list[tuple[float, ...]] = []
        pieces: list[tuple[Piece, ...]] = []
        for value, top in trace.tops:
            edges.append(value)
            if top is None or top.answers is None:
                bounds.append(())
                pieces.append((MISSING,))
            else:
                shown = quote_of(top)
                bounds.append((top.answers,))
                pieces.append((Piece(shown), Piece(None, shown)))
        nearest = quote_of(closest(trace.candidates)) if trace.candidates else None
        bounds.append(())
        pieces.append((Piece(None, nearest),))
        return Curve(tuple(edges), tuple(bounds), tuple(pieces))


QUOTE_FINDER = QuoteFinder()
