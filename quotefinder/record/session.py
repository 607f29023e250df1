"""One recording of a question set into a run directory: what `eval.py` does, without the command line.

    recording = Recording.open(questions_path, run_dir, options)   # the cache alone: nothing is sent
    why = recording.refusal(offline, key)                          # '' when the missing part may be sent
    recording.run(base_url, key)                                    # send what is missing, save run.json

`open` replays every question (and repeat) from the cache, so it knows exactly what is still missing
before anything is sent. `run` takes the run's lock, marks the run incomplete on disk, records the
missing part concurrently (Ctrl+C or SIGTERM stop it, keeping every response received), and writes
run.json again, only if something changed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from ..core.errors import QuoteFinderError, RunDirError, StorageError
from ..core.plugin import ApiSpec, System
from ..core.registry import DEFAULT_SYSTEM
from ..core.registry import system as find_system
from ..core.storage import remove_temporaries
from ..core.textsafe import terminal
from ..questions import QuestionSet, load_questions
from .advice import finish, other_file
from .client import ApiClient, RateLimiter, RequestBudget, RetryPolicy, TransientError, check_base_url
from .recorder import QuestionRun, Recorder
from .refused import Refusals
from .rundir import QuestionsFile, Refresh, RunConfig, RunRecord, covered_items, locked
from .secret import Secret, key_problem
from .store import open_store

SHOW_MISSING = 20


@dataclass(frozen=True)
class RecordOptions:
    """How to record: which compare requests, how many repeats, and how hard to push the API."""

    span: tuple[float, float] = (0.0, 1.0)  # the first axis's span to record, for a system with `legacy` keys
    repeats: int | None = None  # None: as many as the run holds (1 for a new run)
    concurrency: int = 8
    rate: float = 10.0
    timeout_s: float = 30.0
    retries: int = 4
    backoff_s: float = 1.0
    max_requests: int | None = None  # stop, as an interrupt would, after sending this many (retries included)
    pipeline: Any = None  # None: the run's own recorded pipeline, or its system's default (new run)
    system: str = DEFAULT_SYSTEM  # the system `pipeline` belongs to
    ranges: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)  # a system without `legacy` keys: each
    # recorded axis's values (and a cutoff's (lo, hi) span) to record
    replace_questions: bool = False  # record a question file into a run of another file's questions (`--force`)


@dataclass(frozen=True)
class Estimate:
    """What recording the missing part would send: a bound, an expectation, and where it comes from."""

    pending: int  # question repeats with something missing
    at_most: int  # requests, worst case
    expected: float  # requests, expected
    tokens: float  # input tokens, expected
    basis: str  # where the expectation comes from, in words


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def recording_coverage(under_test: System, options: RecordOptions, default: tuple[float, float],
                       previous: RunRecord | None) -> dict[str, tuple[Any, ...]]:
    """What a recording covers on each recorded axis: for a system whose runs keep one span (`System.legacy`: the
    quote finder's HAS_ANSWER_CUTOFF range), that span and the default; else the values given (`options.ranges`),
    those the run was recording before (so that a rerun resumes them, and a run only ever grows) and its
    default."""
    if under_test.legacy is not None:
        return {under_test.axes[0].name: (options.span, default[0])}
    held = previous.config.covered if previous is not None else {}
    return {spec.name: covered_items([*options.ranges.get(spec.name, ()), *held.get(spec.name, ()), default[n]])
            for n, spec in enumerate(under_test.axes) if spec.recorded}


def default_run_dir(questions_path: Path, pipeline: Any = None) -> Path:
    """Where a recording goes without --run: runs/<questions file stem>, or, for a pipeline that does not send
    the recipe's requests, runs/<stem>-<pipeline name>, so that a variant never lands in the recipe's run."""
    stem = Path(questions_path).stem
    if pipeline is None or pipeline.is_recipe:
        return Path("runs") / stem
    return Path("runs") / f"{stem}-{pipeline.name}"


def run_pipeline(run_dir: Path, previous: RunRecord | None, system: str, given: Any, questions_path: Path) -> Any:
    """The pipeline to record with: `given` (a --pipeline file's), else the run's own, else the system's default.
    `RunDirError` when the run was recorded with another system or another pipeline (another digest: other
    requests): its cache holds that pipeline's responses, and one run holds one pipeline."""
    if previous is None:
        return given or find_system(system).default
    held = previous.config.pipeline
    if given is None:
        return held
    if previous.config.system != system or held.digest != given.digest:
        return_to = default_run_dir(questions_path, given)
        raise RunDirError(
            f"{run_dir}: was recorded with the {previous.config.system} pipeline `{held.name}` (digest "
            f"{held.digest[:12]}), not `{given.name}` ({system}, digest {given.digest[:12]}); a run holds one "
            f"pipeline's responses: record into its own --run DIR"
            + (f" (without --run, {return_to})" if return_to != Path(run_dir) else ""))
    return given


@dataclass
class Recording:
    """One invocation on one run directory: the question set, the items still missing, run.json."""

    questions: QuestionSet
    run_dir: Path
    previous: RunRecord | None  # run.json as this invocation found it
    options: RecordOptions
    recorder: Recorder
    items: list[QuestionRun]
    started: str = field(default_factory=_now)
    host: str = ""
    finished: bool = True  # False when Ctrl+C or SIGTERM cut the recording short
    stopped: str | None = None  # a key of STOPS: what cut the recording short, if anything did
    refresh: Refresh | None = None  # the run this one refreshes (`eval.py --refresh`), as run.json says it
    written: RunRecord | None = field(default=None, init=False)  # what run.json holds now
    written_sent: int = field(default=0, init=False)  # responses this invocation had sent when it was written
    secret: Secret = field(default_factory=Secret, init=False, repr=False)  # the key `run` sends, never written

    def __post_init__(self) -> None:
        self.written = self.previous

    @classmethod
    def open(cls, questions_path: Path, run_dir: Path | None, options: RecordOptions,
             notify: Callable[[str], None] = lambda text: print(text, file=sys.stderr),
             questions: QuestionSet | None = None, refresh: Refresh | None = None) -> Recording:
        """Load the questions and the run, and replay everything from the cache alone. `notify` hears
        what the user should know first (an edited question set, repeats kept). The run directory defaults to
        `default_run_dir`; the pipeline is `run_pipeline`'s (`RunDirError` for a run of another pipeline).
        `questions` given (a refresh's sample) are recorded instead of the whole file; `refresh` is what run.json
        says of the run refreshed."""
        questions = questions or load_questions(questions_path)
        run_dir = run_dir or default_run_dir(questions.path, options.pipeline)
        previous = RunRecord.load(run_dir)
        if previous is not None and previous.refresh is not None and refresh is None:
            was = previous.refresh
            raise RunDirError(f"{run_dir}: is a refresh of {was.origin(run_dir)} (a sample of {was.sample}); resume "
                              "it: " + finish(f"quotefinder refresh {was.origin(run_dir)} --sample {was.sample} "
                                              f"--seed {was.seed} --run {run_dir}")
                              + "; or record the question file into another --run DIR")
        pipeline = run_pipeline(run_dir, previous, options.system, options.pipeline, questions.path)
        if previous is not None and (changes := previous.question_changes(questions)):
            if refresh is None and (refusal := other_file(questions, Path(run_dir), previous, changes)):
                if not options.replace_questions:
                    raise RunDirError(refusal)
                notify(f"{run_dir} is a run of another question file: recording {questions.path} into it replaces "
                       "its questions (--force); the responses to the questions kept are reused.")
            notify(f"The question set changed since {run_dir} was recorded: {changes}. "
                   "Identical requests are reused.")
        name = options.system if options.pipeline is not None or previous is None else previous.config.system
        under_test = find_system(name)
        default = under_test.default_point(pipeline)
        store = open_store(run_dir, previous.cache_format if previous else None)  # the run's own format
        recorder = Recorder(store, recording_coverage(under_test, options, default, previous),
                            previous.evidence if previous else None, pipeline, under_test, default,
                            Refusals(run_dir))
        held = previous.repeats if previous else 1
        repeats = max(options.repeats or held, held)
        if options.repeats and options.repeats < held:
            notify(f"{run_dir} holds {held} repeats; all of them are kept and checked.")
        # repeat by repeat, so that a repeat's requests reach the API after the first repeat's
        items = [recorder.replay(QuestionRun(q, r)) for r in range(repeats) for q in questions.questions]
        return cls(questions, Path(run_dir), previous, options, recorder, items, refresh=refresh)

    @property
    def pending(self) -> list[QuestionRun]:
        """The items the cache cannot answer yet."""
        return [item for item in self.items if item.missing is not None]

    @property
    def system(self) -> System:
        return self.recorder.system

    @property
    def api(self) -> ApiSpec:
        """The API its requests go to (every system so far speaks to one)."""
        return self.system.apis[0]

    @property
    def pipeline(self) -> Any:
        """The pipeline this recording sends (and run.json records)."""
        return self.recorder.pipeline

    def refusal(self, offline: bool, key: str) -> str:
        """Why the missing responses cannot be fetched now ('' when they can, or nothing is missing)."""
        pending = self.pending
        if not pending:
            return ""
        if offline:
            if self.previous is None:
                return f"{self.run_dir}: nothing is recorded there yet; run without --offline to record it"
            lines = [f"--offline: {len(pending)} question(s) need responses that {self.run_dir} does not hold:"]
            lines += [f"  {terminal(item.question.id)}{f' (repeat {item.repeat})' if item.repeat else ''}: "
                      f"missing {item.missing}" for item in pending[:SHOW_MISSING]]
            if len(pending) > SHOW_MISSING:
                lines.append(f"  ... and {len(pending) - SHOW_MISSING} more")
            return "\n".join(lines)
        variable = self.api.key_variable
        if not key:
            return (f"{len(pending)} question(s) need API requests that {self.run_dir} does not hold, and "
                    f"{variable} is not set. Set it (export {variable}=...) and rerun; nothing was sent.")
        return key_problem(key, variable)

    def run(self, base_url: str, key: str, transport: httpx.AsyncBaseTransport | None = None,
            on_done: Callable[[QuestionRun], None] = lambda item: None) -> RunRecord:
        """Record what is missing (nothing when the cache answers everything) and save run.json; return it.

        A refused key, mixed evidence or a full disk stops the recording: run.json is saved first, then
        the error is raised (a failure to save then is raised from it). No form of `key` reaches run.json, an
        entry or an error raised.
        """
        self.secret = Secret(key)
        pending = self.pending
        fatal: QuoteFinderError | None = None
        with locked(self.run_dir):
            remove_temporaries(self.run_dir)  # a killed writer's, even when nothing is left to record
            if pending:
                self.host = check_base_url(base_url, self.api.base_variable).host
                self.finished = False
                self.save()  # complete: false on disk before the first request
                try:
                    self.finished = asyncio.run(self._record(pending, base_url, key, transport, on_done))
                except QuoteFinderError as error:  # the key was refused, evidence would mix, or the disk is full
                    fatal = self.secret.redacted(error)
                if fatal is not None or not self.finished:
                    self.stopped = ("error" if fatal is not None else
                                    "max-requests" if self.recorder.budget_spent else "interrupt")
                    self.recorder.stopped_short(pending, self.stopped)
            try:
                record = self.save()
            except StorageError as error:
                raise self.secret.redacted(error) from fatal
        if fatal is not None:
            raise fatal
        return record

    def estimate(self) -> Estimate:
        """What recording the missing part would send, from the cache alone (nothing is sent).

        The bound adds, per question repeat, what the cache lacks at the first stage it cannot answer and
        the worst case after it. The expectation uses this run's own finished questions (mean requests and
        input tokens per question repeat) when it holds some, else the system's own (`System.expected`).
        """
        pending = self.pending
        bounds = [self.recorder.bound(item) for item in pending]
        done = [item.summary for item in self.items if item.summary is not None]
        if done:
            requests = sum(s.requests for s in done) / len(done)
            decisions = sum(s.requests - 1 for s in done)
            per_decision = sum(s.input_tokens for s in done) / decisions if decisions else 0.0
            basis = f"this run's own {len(done)} recorded question repeat(s)"
        else:
            requests, per_decision, basis = self.system.expected(self.pipeline, self.recorder.coverage)
        # A question not started costs what a question costs; one part-recorded, at most its own bound.
        expected = sum(min(bound, requests) if searched else requests for bound, searched in bounds)
        searches = sum(1 for _, searched in bounds if not searched)
        return Estimate(len(pending), sum(bound for bound, _ in bounds), expected,
                        (expected - searches) * per_decision, basis)

    def build_record(self) -> RunRecord:
        """The run.json this invocation leaves."""
        items, tally = self.items, self.recorder.tally
        errors = tuple(dataclasses.replace(failure, error=self.secret.redact(failure.error))
                       for item in items if (failure := item.failure()) is not None)
        before = self.previous.config if self.previous else RunConfig()
        complete = bool(self.previous and self.previous.complete)
        relative = os.path.relpath(self.questions.path.resolve(), self.run_dir.resolve())
        record = RunRecord(
            evidence=self.recorder.evidence,
            complete=self.finished and not errors,
            questions_file=QuestionsFile(relative, self.questions.sha256),
            questions=self.questions.questions,
            config=self._config(before, complete),
            started_at=self.started,
            finished_at=_now(),
            requests=tally.as_counts(),
            responses=sum(i.summary.requests for i in items if i.summary),
            input_tokens=sum(i.summary.input_tokens for i in items if i.summary),
            errors=errors,
            stopped=self.stopped,
            refresh=self.refresh,
        )
        if self.previous is not None and tally.sent == 0:
            record = record.with_times_of(self.previous)
        return record

    def _config(self, before: RunConfig, complete: bool) -> RunConfig:
        """run.json's config: for a system with `legacy` keys, the default point and the first axis's recorded span;
        else the values of each recorded axis this recording covers (`recording_coverage`)."""
        repeats = max((item.repeat for item in self.items), default=0) + 1
        host = self.host or before.base_url_host
        if self.system.legacy is not None:
            return RunConfig(base_url_host=host, point=self.recorder.default,
                             span=before.joined_range(self.options.span, complete), repeats=repeats,
                             system=self.system.name, pipeline=self.pipeline)
        covered = tuple((name, tuple(values)) for name, values in sorted(self.recorder.coverage.items()))
        return RunConfig(base_url_host=host, repeats=repeats, system=self.system.name, pipeline=self.pipeline,
                         ranges=covered)

    def save(self) -> RunRecord:
        """Write run.json if anything changed since the last write, counting the responses sent since (its
        request counts must describe this invocation once it has sent something); return what it holds."""
        record = self.build_record()
        sent = self.recorder.tally.sent
        if record.save(self.run_dir, self.written if sent == self.written_sent else None):
            self.written, self.written_sent = record, sent
        return record

    async def _record(self, pending: list[QuestionRun], base_url: str, key: str,
                      transport: httpx.AsyncBaseTransport | None, on_done: Callable[[QuestionRun], None]) -> bool:
        """Record `pending`; return False if Ctrl+C or SIGTERM stopped it (finished questions are kept)."""
        options, tally = self.options, self.recorder.tally

        def on_retry(error: TransientError) -> None:
            tally.retries += 1

        async with ApiClient(base_url, key, api=self.api, transport=transport, timeout_s=options.timeout_s,
                             retry=RetryPolicy(retries=options.retries, base_s=options.backoff_s),
                             limiter=RateLimiter(options.rate), on_retry=on_retry,
                             budget=RequestBudget(options.max_requests)) as client:
            loop = asyncio.get_running_loop()
            work = asyncio.create_task(self.recorder.record(pending, client, options.concurrency, on_done,
                                                            self.secret))
            handled = threading.current_thread() is threading.main_thread()  # signals reach the main thread only
            for sig in (signal.SIGINT, signal.SIGTERM) if handled else ():
                loop.add_signal_handler(sig, work.cancel)
            try:
                await work
                return not self.recorder.budget_spent
            except asyncio.CancelledError:
                return False
            finally:
                for sig in (signal.SIGINT, signal.SIGTERM) if handled else ():
                    loop.remove_signal_handler(sig)
