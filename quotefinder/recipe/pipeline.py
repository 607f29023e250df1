"""The quote finder's request flow for one question, written once for recording and for replay.

`steps` is a generator that yields the requests it needs (a batch whose members do not depend on
each other) and receives their responses, in order; it returns a `Trace`. It does no I/O, so the
recorder drives it over HTTP (`record`, concurrent) and the sweep drives it from the cache
(`replay`, synchronous) through the same code.

The flow is the recipe's, with the values of a pipeline (`config.QuoteFinderPipeline`, the recipe's by
default): search; split every snippet; one rank request per result with at least `min_sentences`
sentences (identical rank requests are sent once); then one compare request per distinct qualified set
that the `Coverage` asks for. Which candidate is quoted at given cutoffs is
`decision.decide`, applied to the trace.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..core.coverage import Coverage
from ..core.perplexity import read_search
from ..core.requests import ApiRequest
from . import contract
from .config import RECIPE, QuoteFinderPipeline
from .decision import Candidate, Cutoffs, Scored, best, qualified, set_key


@dataclass
class Trace:
    """Everything one question's responses say, ready for `decision.decide`.

    `sentence_counts` has, for each search result in order, how many usable sentences it had;
    `candidates` are the ranked results' chosen sentences in result order; `compares` maps each
    recorded qualified set to its compare probabilities in candidate order. Snippets are not kept:
    a trace stays small however long the pages were.
    """

    question: str
    repeat: int
    sentence_counts: list[int]
    candidates: list[Candidate]
    compares: dict[tuple[int, ...], list[float]] = field(default_factory=dict)
    input_tokens: int = 0
    requests: int = 0

    @property
    def result_count(self) -> int:
        return len(self.sentence_counts)

    @cached_property
    def tops(self) -> list[tuple[float, Scored | None]]:
        """For each distinct has_answer value v, ascending: the top candidate of the set qualified at
        v (`decision.best`), with its compare probability; None where that set was not replayed.

        Every HAS_ANSWER_CUTOFF selects one of these sets (or none), so this is the question's whole
        decision over both cutoffs. Computed once, when first asked for.
        """
        found = []
        for value in sorted({c.has_answer for c in self.candidates}):
            chosen = qualified(self.candidates, value)
            answers = self.compares.get(set_key(chosen))
            found.append((value, best(chosen, answers) if answers is not None else None))
        return found


def qualified_sets(coverage: Coverage, candidates: Sequence[Candidate]) -> list[tuple[Candidate, ...]]:
    """The distinct non-empty qualified sets the coverage selects, largest first."""
    return [qualified(candidates, value) for value in coverage.thresholds(c.has_answer for c in candidates)]


def _unique(requests: Iterable[ApiRequest]) -> list[ApiRequest]:
    """Requests with duplicates (same key) dropped, first occurrence kept."""
    seen: dict[str, ApiRequest] = {}
    for request in requests:
        seen.setdefault(request.key, request)
    return list(seen.values())


Steps = Generator[list[ApiRequest], list[Any], Trace]


def steps(question: str, coverage: Coverage, cutoffs: Cutoffs | None = None, repeat: int = 0,
          config: QuoteFinderPipeline | None = None) -> Steps:
    """Yield the question's request batches, receive their responses, return the `Trace`.

    `config` is the pipeline whose requests are sent (its model, search settings, wording and sentence
    limits); None is the recipe's. A result is ranked when it has at least `config.min_sentences`
    sentences, or, without a `config`, `cutoffs.min_sentences` (the recipe's 1 without either).
    """
    min_sentences = config.min_sentences if config is not None else (cutoffs or Cutoffs()).min_sentences
    config = config or RECIPE
    search = config.search_request(question, repeat)
    [search_data] = yield [search]
    results = read_search(search_data)
    split = [config.split(result.snippet) for result in results]
    trace = Trace(question, repeat, [len(s) for s in split], [], requests=1)

    ranked = [n for n, found in enumerate(split, start=1) if len(found) >= min_sentences]
    rank_requests = {
        n: config.rank_request(question, results[n - 1], split[n - 1], repeat,
                               f"the rank request for result {n} ({results[n - 1].url})")
        for n in ranked
    }
    unique = _unique(rank_requests.values())
    if not unique:
        return trace
    answered = yield unique
    ranks = {request.key: contract.read_rank(request, data) for request, data in zip(unique, answered, strict=True)}
    trace.requests += len(unique)
    trace.input_tokens += sum(rank.input_tokens for rank in ranks.values())
    for n, request in rank_requests.items():
        rank = ranks[request.key]
        result = results[n - 1]
        trace.candidates.append(Candidate(
            result=n, title=result.title, url=result.url, date=result.date, sentence_id=rank.sentence_id,
            sentence=split[n - 1][rank.sentence_id - 1], choice_probability=rank.choice_probability,
            confidence=rank.confidence, has_answer=rank.has_answer,
        ))

    sets = qualified_sets(coverage, trace.candidates)
    if not sets:
        return trace
    compare_requests = [
        config.compare_request(question, [c.sentence for c in chosen], repeat,
                               f"the compare request for results {', '.join(str(n) for n in set_key(chosen))}")
        for chosen in sets
    ]
    compared = yield compare_requests
    trace.requests += len(compare_requests)
    for chosen, request, data in zip(sets, compare_requests, compared, strict=True):
        values, tokens = contract.read_compare(request, data)
        trace.compares[set_key(chosen)] = values
        trace.input_tokens += tokens
    return trace
