"""Recording: run the pipeline for every question, serving what the cache holds and fetching the rest.

A recording is two passes. The first replays every question from the cache alone, which costs
nothing and tells exactly which questions still need requests (so a missing key or `--offline` can be
reported before anything is sent). The second drives only those questions over the network,
concurrently, through a `CachingClient`, so each response is saved (whole, atomically) before the
pipeline reads it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.errors import (
    ApiError,
    AuthError,
    BudgetSpent,
    ContractError,
    CorruptEntry,
    EvidenceMixError,
    MissingResponse,
    RefusedBefore,
    StorageError,
    Unreachable,
)
from ..core.flow import record
from ..core.flow import replay as drive
from ..core.plugin import Piece, Steps, System, Trace
from ..core.registry import system
from ..core.requests import ApiRequest
from ..questions import Question
from .cache import CacheCounts, CachingClient
from .received import Received, Sender, describe
from .refused import Refusals
from .rundir import STOPS, QuestionError, RequestCounts
from .secret import Secret
from .store import ResponseStore

FATAL = (AuthError, EvidenceMixError, StorageError, Unreachable)


@dataclass(frozen=True)
class Summary:
    """What a recording keeps of a finished question: its decision at the run's default point (a
    `pipelines.Piece`) and its counts. The trace itself is dropped, so memory does not grow with the responses
    recorded."""

    decision: Piece
    result_count: int
    requests: int
    input_tokens: int


@dataclass
class QuestionRun:
    """One question (one repeat) of a recording: its summary, or why it has none."""

    question: Question
    repeat: int = 0
    summary: Summary | None = None
    error: str | None = None  # why it has no summary: an execution error, or that the recording stopped first
    missing: str | None = None  # replaying from the cache alone: the first response it lacks
    stopped: str | None = None  # a key of STOPS: the recording stopped before this item was done (nothing failed)

    def failure(self) -> QuestionError | None:
        """Why this question has no summary, as run.json lists it (None when it has one)."""
        if self.summary is not None:
            return None
        return QuestionError(self.question.id, self.repeat, self.error or f"missing {self.missing}",
                             pending=self.stopped is not None)


@dataclass
class Tally(CacheCounts):
    """Request counts for one invocation, shown on the progress bar and saved in run.json: the caching
    client's (sent, from the cache, corrupt entries replaced) plus retries and failed questions."""

    retries: int = 0
    failed: int = 0
    tokens: int = 0  # input tokens of the responses sent for (what they cost)

    def as_counts(self) -> RequestCounts:
        return RequestCounts(sent=self.sent, from_cache=self.from_cache, retries=self.retries, failed=self.failed)


class Recorder:
    """Records one question set into one run directory's cache, through a system's own request flow."""

    def __init__(self, cache: ResponseStore, coverage: Mapping[str, Sequence[Any]], evidence: str | None = None,
                 pipeline: Any = None, under_test: System | None = None,
                 default: tuple[float, float] | None = None, refused: Refusals | None = None) -> None:
        """`coverage` maps each recorded axis to the values (and (lo, hi) spans) to record, `pipeline` is what is
        sent (None: the system's default), `under_test` the system (None: the default system), `default` the point
        whose decisions a recording shows (the system's for `pipeline`), and `refused` where responses refused as
        breaking the contract are remembered, so that a rerun does not send them."""
        under_test = under_test or system()
        pipeline = pipeline if pipeline is not None else under_test.default
        self.cache = cache
        self.refused = refused
        self.coverage = coverage
        self.pipeline = pipeline
        self.system = under_test
        self.default = default if default is not None else under_test.default_point(pipeline)
        self.evidence = evidence  # the run's evidence, once known; responses of the other kind are refused
        self.tally = Tally()
        self.budget_spent = False  # --max-requests stopped the recording

    def _flow(self, item: QuestionRun) -> Steps:
        return self.system.steps(item.question.question, self.pipeline, self.coverage, item.repeat)

    def _summarise(self, trace: Trace) -> Summary:
        return Summary(self.system.decide(trace, *self.default), trace.result_count, trace.requests,
                       trace.input_tokens)

    def _note_evidence(self, evidence: str) -> None:
        if self.evidence is None:
            self.evidence = evidence
        elif evidence != self.evidence:
            raise EvidenceMixError(
                f"this run holds {self.evidence} responses but the server sent a {evidence} one; live and "
                "synthetic evidence never mix: record into a new directory with --run DIR"
            )

    # ---- pass 1: the cache alone ----------------------------------------------------------------

    def replay(self, item: QuestionRun) -> QuestionRun:
        """Fill `item` from the cache alone: a summary, or what is missing, or why it cannot be used."""

        served = 0

        def lookup(request: ApiRequest) -> Any:
            nonlocal served
            try:
                saved = self.cache.require(request)
            except MissingResponse:
                if self.refused is not None:
                    self.refused.check(request)
                raise
            self._note_evidence(saved.evidence)
            served += 1
            return saved.data

        try:
            item.summary = self._summarise(drive(self._flow(item), lookup))
            self.tally.from_cache += served  # a question still missing something counts them in pass 2
        except MissingResponse as missing:
            item.missing = str(missing)
        except CorruptEntry as error:
            item.missing = f"a usable entry ({error})"
        except RefusedBefore as error:
            item.error = str(error)
        except ContractError as error:
            item.error = f"a saved response breaks the API contract: {error}"
        return item

    def stopped_short(self, items: Iterable[QuestionRun], stop: str) -> None:
        """After a recording that `stop` (a key of STOPS) cut short: each item left without a summary or an
        error is replayed from the cache again (it may have received part of its responses meanwhile) and
        says, in `error`, that it is not recorded yet, or only partly, and why."""
        for item in items:
            if item.summary is not None or item.error is not None:
                continue
            item.missing = None
            self.replay(item)
            if item.summary is not None or item.error is not None:
                continue  # everything it needed had arrived after all; or a saved response is unusable
            _, searched = self.bound(item)
            item.stopped = stop
            item.error = (f"partly recorded ({STOPS[stop]}): missing {item.missing}" if searched
                          else f"not recorded yet ({STOPS[stop]})")

    # ---- pass 2: the network --------------------------------------------------------------------

    def _admit(self, request: ApiRequest, received: Received) -> None:
        """What a new response must pass before it is saved: the run's evidence, and the API contract."""
        self._note_evidence(received.evidence)
        try:
            self.system.check(request, received.data)
        except (ValueError, ArithmeticError, LookupError, TypeError, RecursionError) as error:  # a reader's slip
            raise ContractError(f"{describe(request)}: the response cannot be read ({type(error).__name__})") from None
        self.tally.tokens += self.system.input_tokens(request, received.data)

    def bound(self, item: QuestionRun) -> tuple[int, bool]:
        """At most how many requests recording `item` can still send, and whether any of its first stage (the
        quote finder's search) is saved: what the cache lacks at the first stage it cannot answer, plus the worst case
        of the stages after it (the system's `bound`)."""
        flow = self._flow(item)
        first = True
        try:
            batch = next(flow)
            while True:
                saved = []
                for request in batch:
                    try:
                        saved.append(self.cache.get(request))
                    except CorruptEntry:
                        saved.append(None)
                missing = sum(1 for entry in saved if entry is None)
                if missing:
                    worst = self.system.bound(self.pipeline, self.coverage, batch, missing, first)
                    return worst, not first or missing < len(batch)
                batch = flow.send([entry.data for entry in saved if entry is not None])
                first = False
        except StopIteration:
            return 0, True
        except ContractError:
            return 0, True  # a saved response breaks the contract: recording cannot get past it either

    async def record(
        self,
        items: Iterable[QuestionRun],
        client: Sender,
        concurrency: int,
        on_done: Callable[[QuestionRun], None] = lambda item: None,
        secret: Secret | None = None,
    ) -> None:
        """Record `items` concurrently (at most `concurrency` questions at once).

        A question whose requests fail gets `error` and the others go on; a refused key, an API that
        cannot be reached, mixed evidence or a full disk stops everything. Finished items keep their results even
        if this is cancelled. `secret` (the key the client sends) is blanked from every error and kept out of every
        entry.
        """
        secret = secret or Secret()
        pending = iter(items)  # shared by the workers: each takes the next question when it is free
        caching = CachingClient(client, self.cache, self._admit, self.tally, secret, self.refused)
        self.budget_spent = False

        async def fetch(request: ApiRequest) -> Any:
            return (await caching.send(request)).data

        async def worker() -> None:
            for item in pending:  # an item cut short by Ctrl+C keeps saying what it is missing
                try:
                    trace = await record(self._flow(item), fetch)
                    item.summary, item.error, item.missing = self._summarise(trace), None, None
                except BudgetSpent:
                    # What was in flight finished and is saved; this question keeps saying what it lacks,
                    # and this worker takes no more questions, like an interrupt.
                    self.budget_spent = True
                    return
                except FATAL:
                    raise
                except (ApiError, ContractError) as error:
                    self.tally.failed += 1
                    item.error, item.missing = secret.redact(str(error)), None  # a contract error may quote it
                on_done(item)

        # A fixed set of workers, not a task per question: memory stays flat however many questions.
        workers = [asyncio.create_task(worker()) for _ in range(concurrency)]
        try:
            await asyncio.gather(*workers)
        finally:
            for task in workers:
                task.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
