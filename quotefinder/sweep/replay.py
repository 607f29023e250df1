"""Loading a recorded run for the sweep: every judged question replayed from the cache alone.

Judgement comes from a question file (by default the one the run recorded), parsed as it is now with its
verdicts, so an edited `accept` pattern applies without any API call; run.json's copy of the questions is
never used for judging. The evidence comes from the responses replayed: each cache entry says whether the
real API or the stand-in sent it, and a run whose entries disagree with each other or with run.json is
refused. Each question is replayed through the pipeline's own request flow for the HAS_ANSWER_CUTOFF values
the sweep needs; a compare response the run does not hold is an error naming the question and the set,
never an approximation.
"""

from __future__ import annotations

import atexit
import dataclasses
import multiprocessing
import os
import signal
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core import flow
from ..core.errors import ContractError, CorruptEntry, InputError, MissingResponse, QuoteFinderError, RunDirError
from ..core.plugin import Curve, System
from ..core.registry import axis_spec, system
from ..core.requests import ApiRequest
from ..questions import Question, QuestionSet, load_questions
from ..record.advice import finish, record_again, record_missing
from ..record.rundir import RUN_FILE, RunRecord
from ..record.store import ResponseStore, open_store
from . import parsed
from .apart import die_with_parent, forking
from .index import Entry, Pair, Record, ReplayIndex, index_dir, index_key, index_path
from .verdicts import load_verdicts, verdicts_path, with_verdicts

SHOW = 10
PARALLEL_FROM = 500  # questions; below this, starting processes costs more than it saves


@dataclass(frozen=True)
class Excluded:
    """A question left out of a sweep (`--allow-incomplete`), and why it could not be replayed."""

    question: Question
    why: str


@dataclass
class Replayed:
    """A run ready to sweep: the judged questions, their curves in every repeat, and what was left out.

    `curves[r][q]` is question `questions[q]`'s curve (`pipelines.Curve`) in repeat r; every repeat holds the
    same questions in the same order (a question missing any repeat is left out, into `excluded`).
    """

    run_dir: Path
    record: RunRecord
    question_set: QuestionSet  # the file judging comes from, with its verdicts
    questions: list[Question]
    curves: list[list[Curve]]
    excluded: list[Excluded] = field(default_factory=list)
    unjudged_in_run: int = 0  # recorded questions the question file does not list

    @property
    def repeats(self) -> int:
        return len(self.curves)


def judging_path(run_dir: Path, record: RunRecord, path: Path | None) -> Path:
    """The question file to judge with: `path`, or the one the run recorded (relative to the run; shown
    relative to where we are). It is parsed every sweep (`judged_with`), even when its SHA-256 is the one
    run.json recorded: run.json's copy of the questions is the run's, and a hand-edited run.json must not change
    what counts as correct."""
    if path is not None:
        return path
    recorded = record.questions_file.path if record.questions_file else ""
    if not recorded:
        raise RunDirError(f"{run_dir}/{RUN_FILE} names no question file; pass --questions FILE")
    found = Path(os.path.relpath(os.path.normpath(Path(run_dir).resolve() / recorded)))
    if not found.exists():
        raise InputError(f"{found}: the question file this run was recorded from is gone; pass --questions FILE")
    return found


def judged_with(path: Path, cache: Path | None = None) -> QuestionSet:
    """The question file at `path`, parsed as it is now (or, given a `cache`, as a sweep parsed the same bytes
    before: `parsed.parsed`), with the verdicts beside it (`ten.verdicts.yaml` for `ten.yaml`), read now, attached to
    the questions they judge."""
    questions = load_questions(path) if cache is None else parsed.parsed(path, cache)
    return with_verdicts(questions, load_verdicts(verdicts_path(questions.path)))


Evidence = dict[str, str]  # each kind of evidence replayed ("live", "synthetic") -> the first entry that holds it


Coverage = dict[str, tuple[float, ...]]  # an axis's name -> the values of it the sweep needs responses for


def run_system(record: RunRecord) -> tuple[System, Any]:
    """The system a run was recorded with, and its resolved pipeline."""
    return system(record.config.system), record.config.pipeline


@dataclass(frozen=True)
class Unreplayable:
    """Why one (question, repeat) cannot be replayed from the store: a response the run does not hold, a torn or
    edited entry, or a response that breaks the API contract; with the evidence of the entries read before."""

    why: str
    evidence: Evidence


Replay = Record | Unreplayable  # one (question, repeat): its curve, evidence and entries (`index.Record`), or why not


def replay(under_test: System, config: Any, store: ResponseStore, pairs: Iterable[Pair], coverage: Coverage,
           seen: Callable[[ApiRequest, Any], None] | None = None) -> dict[Pair, Replay]:
    """The replay: each (question text, repeat) of `pairs` run through the system's own request flow
    (`System.steps`, with `config`, for the axis values in `coverage`) against `store` alone, into its curve
    (`System.curve`). Each comes back as a `Record`: the curve, the evidence of the entries it read (each kind,
    with the first entry that holds it) and those entries as `ResponseStore.read` saw them before their bytes were
    read (so that a later change is always seen); or as `Unreplayable`, saying why. `seen`, when given, is told
    every request read and the data that answered it (the drift compares them with the original's).

    Nothing else is in here: the replay index (`replay_run`, with `index.ReplayIndex`) and the worker processes
    (`Background`) wrap this function, and give what it gives."""
    return {(text, repeat): _replay_one(under_test, config, store, coverage, text, repeat, seen)
            for text, repeat in pairs}


def _replay_one(under_test: System, config: Any, store: ResponseStore, coverage: Coverage, text: str, repeat: int,
                seen: Callable[[ApiRequest, Any], None] | None) -> Replay:
    entries: list[Entry] = []
    evidence: Evidence = {}

    def lookup(request: ApiRequest) -> Any:
        received, entry = store.read(request)
        entries.append(entry)
        evidence.setdefault(received.evidence, store.where(request))
        if seen is not None:
            seen(request, received.data)
        return received.data

    try:
        trace = flow.replay(under_test.steps(text, config, coverage, repeat), lookup)
    except MissingResponse as missing:
        return Unreplayable(f"the run does not hold {missing}" + (f" (repeat {repeat})" if repeat else ""), evidence)
    except (CorruptEntry, ContractError) as error:
        return Unreplayable(str(error), evidence)
    return Record(under_test.curve(trace), evidence, tuple(entries))


def replay_pairs(run_dir: Path, pairs: Sequence[Pair], coverage: Coverage, chosen: tuple[str, Any, str]
                 ) -> dict[Pair, Replay]:
    """`replay` of `pairs` from the run's store (`chosen`: the system's name, its pipeline and the run's cache
    format), opened here and closed after: what a worker process does with its chunk."""
    store = open_store(run_dir, chosen[2])
    try:
        return replay(system(chosen[0]), chosen[1], store, pairs, coverage)
    finally:
        store.close()


def merged_evidence(replays: Iterable[Mapping[str, str]]) -> Evidence:
    """Each kind of evidence among `replays`, with the first entry that holds it."""
    merged: Evidence = {}
    for evidence in replays:
        for kind, path in evidence.items():
            merged.setdefault(kind, path)
    return merged


def derived_evidence(run_dir: Path, record: RunRecord, evidence: Evidence) -> str | None:
    """The run's evidence, from its entries (None when none was read); `RunDirError` naming entries when they
    disagree with each other, or with what run.json says."""
    if len(evidence) > 1:
        kinds = " and ".join(f"{path} is {kind}" for kind, path in sorted(evidence.items()))
        raise RunDirError(f"{run_dir}: its responses disagree about what they are evidence of: {kinds}. Live and "
                          "synthetic responses never mix in one run: an entry was edited, or copied from another "
                          f"run; {record_again()}")
    found = next(iter(evidence), None)
    if found is not None and found != record.evidence:
        raise RunDirError(f"{run_dir}: {RUN_FILE} says its evidence is {record.evidence_word}, but the responses it "
                          f"holds are {found} ({evidence[found]} is one). The evidence is the responses' own: "
                          f"{RUN_FILE} was edited or damaged; {record_again()}")
    return found


_SAVING: dict[Path, multiprocessing.process.BaseProcess] = {}  # index files being written apart, by path


def save_index(index: ReplayIndex, apart: bool) -> None:
    """Write the replay index (`ReplayIndex.save`); with `apart`, in a forked child, so that the analysis and the
    report go on beside it on the other core (a first sweep of 10,000 questions spends 0.3 s writing it). The
    child writes the file atomically as the sweep would; `index_written` waits for it (sweep.py does before it
    returns, the interpreter before it exits, and a later replay of the same index before it opens it), or, on a
    Ctrl+C, stops it (its temporary file removed). The sweep does not depend on it: the index is derived, and one
    not written (the child stopped, killed with the sweep, or failed) is rebuilt next time."""
    path = index.path
    if not index.changed or path is None:
        return
    if apart and "fork" in multiprocessing.get_all_start_methods():
        child = multiprocessing.get_context("fork").Process(target=_save_apart, args=(os.getpid(), index),
                                                            name="quotefinder-index", daemon=True)
        try:
            with forking():
                child.start()
            _SAVING[path] = child
            return
        except OSError:
            pass  # no process to be had (fork refused): written here
    index.save()


def _save_apart(parent: int, index: ReplayIndex) -> None:
    """The child: a SIGTERM (`index_written` stopping it) ends the write as a Ctrl+C would, so that the temporary
    file is removed; anything that goes wrong ends it quietly (the index is derived; the sweep says nothing).
    (`cli.sigterm_as_interrupt` does the same for the command lines, a layer above this one.)"""
    die_with_parent(parent)
    signal.signal(signal.SIGTERM, _interrupted)
    try:
        index.save()
    except (Exception, KeyboardInterrupt):
        os._exit(1)


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def index_written(path: Path | None = None, stop: bool = False) -> None:
    """Wait for the index files being written apart (`save_index`), or only the one at `path`; with `stop` (or on
    a Ctrl+C while waiting), stop them instead."""
    for at in [at for at in _SAVING if path is None or at == path]:
        child = _SAVING.pop(at)
        try:
            if not stop:
                child.join()
        finally:
            if child.is_alive():
                child.terminate()
                child.join()


atexit.register(index_written)  # (before multiprocessing's own exit handler, which would stop them)


def _replay_chunk(job: tuple[Path, Sequence[Pair], Coverage, tuple[str, Any, str]]) -> dict[Pair, Replay]:
    return replay_pairs(*job)


class Background:
    """`replay` in worker processes, while the caller does other work (a wrapper: the same replays as
    `replay_pairs` in this process).

    Loading is reading and parsing files, which one Python process does on one core; with `jobs`
    processes it starts at once, and `replays(pairs)` collects it: each worker hands back curves, never traces.
    With one job, or a run too small to be worth starting processes for, nothing happens until `replays`,
    which then replays just the pairs asked for, in this process. The workers end with this process, however
    it ends (`die_with_parent`).
    """

    def __init__(self, run_dir: Path, recorded: Sequence[Pair], coverage: Coverage, chosen: tuple[str, Any, str],
                 jobs: int) -> None:
        self.job = (run_dir, coverage, chosen)
        self.pool: ProcessPoolExecutor | None = None
        self.pending: Iterator[dict[Pair, Replay]] | None = None
        if jobs > 1 and len(recorded) >= PARALLEL_FROM:
            method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
            size = -(-len(recorded) // (jobs * 16))  # many small chunks: no worker idles at the end
            chunks = [recorded[i : i + size] for i in range(0, len(recorded), size)]
            try:
                with forking():  # the workers start as the chunks are submitted
                    self.pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method),
                                                    initializer=die_with_parent, initargs=(os.getpid(),))
                    self.pending = self.pool.map(_replay_chunk, [(run_dir, chunk, coverage, chosen)
                                                                 for chunk in chunks])
            except BaseException:  # a Ctrl+C held back while they started: no `with` will close the pool
                self.close()
                raise

    def replays(self, pairs: Sequence[Pair]) -> dict[Pair, Replay]:
        """What replaying gave: each of `pairs` (in serial), or every recorded pair (the workers')."""
        run_dir, coverage, chosen = self.job
        if self.pending is None:
            return replay_pairs(run_dir, pairs, coverage, chosen)
        done: dict[Pair, Replay] = {}
        try:
            for replays in self.pending:
                done.update(replays)
        except BrokenProcessPool:
            raise QuoteFinderError(f"{run_dir}: a process loading the run ended abruptly (killed, or out of memory); "
                                   "sweep again, or with --jobs 1 to load it in this process") from None
        return done

    def __enter__(self) -> Background:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the workers: the chunk each is loading is finished, the others are dropped."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None


def range_flag(under_test: System, name: str, values: Sequence[float]) -> str:
    """The `eval.py` option that records `values` of an axis: `--range NAME=LO:HI` (a categorical axis's values
    by name: `--range tier=instant,deep`), or the older flag that names it (the quote finder's
    `--has-answer-range LO:HI`)."""
    spec = axis_spec(under_test, name)
    if spec.choices:
        return f"--range {name}={','.join(spec.shown(v) for v in sorted(set(values)))}"
    span = f"{spec.shown(min(values))}:{spec.shown(max(values))}"
    return f"{spec.flag}-range {span}" if spec.flag else f"--range {name}={span}"


def replay_run(run_dir: Path, coverage: Coverage, questions_path: Path | None = None,
               allow_incomplete: bool = False, jobs: int = 1, record: RunRecord | None = None,
               use_index: bool = True, only: Collection[str] | None = None) -> Replayed:
    """Replay every judged question from the run's cache, through the system it was recorded with, for the
    values of its recorded axes in `coverage` (the quote finder's: {"has_answer": HAS_ANSWER_CUTOFF values}).

    Raises `InputError` naming the questions the run cannot replay (the first few, and how many), unless
    `allow_incomplete`, in which case they are left out and listed in `excluded`. A run marked incomplete is refused
    unless `allow_incomplete`. The record returned carries the evidence of the entries replayed
    (`derived_evidence`), never run.json's word alone.

    The replays are `replay`'s, wrapped: with `use_index`, the pairs whose entries are unchanged since the replay
    index (`sweep.index`) recorded them come from it, and the others are replayed and added to it; with `jobs`
    above 1, they are replayed in worker processes (`Background`) while the question file is parsed here. The result
    is the same either way.

    `only` (question texts) narrows the judged questions to those; a refresh run (`eval.py --refresh`) is narrowed
    to the sample it recorded, since the question file also lists the questions not sampled.
    """
    run_dir = Path(run_dir)
    record = record or RunRecord.require(run_dir)  # the caller's, when it has read it already
    if not record.complete and not allow_incomplete:
        raise InputError(
            f"{run_dir}: the run is marked incomplete: {record.incompleteness}; "
            "finish it: " + finish(f"python eval.py {judging_path(run_dir, record, questions_path)} --run {run_dir}")
            + "; or pass --allow-incomplete to sweep the questions that can be replayed"
        )
    repeats = range(record.repeats)
    pairs = [(text, r) for text in record.texts for r in repeats]
    under_test, config = run_system(record)
    derived = index_dir(run_dir) if use_index else None  # (none through a link: everything is replayed)
    judging = judging_path(run_dir, record, questions_path)
    key = index_key(under_test, record.config.pipeline_digest, coverage)
    index = _open_index(run_dir, key, record.cache_format, jobs) if derived is not None else None
    indexed = _usable(index, run_dir, record.cache_format, pairs) if index is not None else {}
    with Background(run_dir, [p for p in pairs if p not in indexed], coverage,
                    (under_test.name, config, record.cache_format), jobs) as background:
        question_set = _judged(judged_with(judging, derived), run_dir, record, only)  # while the workers replay
        judged = [(q.question, r) for q in question_set.questions for r in repeats]
        fresh = background.replays([pair for pair in judged if pair not in indexed])
    if index is not None:
        index.update({pair: found for pair, found in fresh.items() if isinstance(found, Record)}, keep=pairs)
        save_index(index, apart=jobs > 1 and len(fresh) >= PARALLEL_FROM)
    found: dict[Pair, Replay] = {**indexed, **fresh}
    replays = [found[pair] for pair in judged]
    record = dataclasses.replace(record, evidence=derived_evidence(run_dir, record,
                                                                   merged_evidence(r.evidence for r in replays)))
    replayed = _sorted_out(run_dir, record, question_set, replays)
    if replayed.excluded and not allow_incomplete:
        raise _cannot_replay(run_dir, record, question_set, replayed.excluded, coverage)
    return replayed


def _open_index(run_dir: Path, key: str, cache_format: str | None, jobs: int) -> ReplayIndex:
    written = index_path(run_dir, key)
    if written is not None:
        index_written(written)  # one still being written apart by an earlier replay
    return ReplayIndex.open(run_dir, key, cache_format, apart=jobs > 1)


def _usable(index: ReplayIndex, run_dir: Path, cache_format: str | None, pairs: Sequence[Pair]
            ) -> dict[Pair, Record]:
    """The index's records of `pairs` whose entries are unchanged (`ReplayIndex.usable`)."""
    try:
        store = open_store(run_dir, cache_format)
        try:
            return index.usable(pairs, store)
        finally:
            store.close()
    finally:
        index.close()  # its check apart, when `usable` was never reached


def _worst(record: RunRecord) -> str:
    """At most how many requests one question needs, in the system's words (`System.worst_words`)."""
    under_test, config = run_system(record)
    return under_test.worst_words(config)


def _judged(question_set: QuestionSet, run_dir: Path, record: RunRecord, only: Collection[str] | None
            ) -> QuestionSet:
    """The questions to judge: the file's, narrowed to `only` (or to a refresh's sample); `InputError` for a
    question the run did not record."""
    known = set(record.texts)
    narrowed = set(only) if only is not None else known if record.refresh is not None else None
    if narrowed is not None:
        question_set = dataclasses.replace(
            question_set, questions=tuple(q for q in question_set.questions if q.question in narrowed))
    strangers = [q for q in question_set.questions if q.question not in known]
    if strangers:
        names = ", ".join(f"{q.id!r} (line {q.line})" for q in strangers[:SHOW])
        raise InputError(
            f"{question_set.path}: {len(strangers)} question(s) are not in the run {run_dir}: {names}. "
            + record_missing(question_set.path, run_dir, record, len(strangers), _worst(record))
        )
    return question_set


def _sorted_out(run_dir: Path, record: RunRecord, question_set: QuestionSet, replays: Sequence[Replay]) -> Replayed:
    """The judged questions with their curves in every repeat (`replays`: each question's repeats in turn), and
    those left out with why: the first repeat that could not be replayed, in eval.py's words when it stopped
    before recording it ("not recorded yet (...)")."""
    repeats = record.repeats
    replayed = Replayed(run_dir, record, question_set, [], [[] for _ in range(repeats)],
                        unjudged_in_run=len(set(record.texts) - set(question_set.by_text())))
    texts = {q.id: q.question for q in record.questions}
    pending = {(texts.get(e.id), e.repeat): e.error for e in record.errors if e.pending}
    for n, question in enumerate(question_set.questions):
        observed = replays[n * repeats : (n + 1) * repeats]
        failed = next(((r, found) for r, found in enumerate(observed) if isinstance(found, Unreplayable)), None)
        if failed is not None:
            r, why = failed[0], failed[1].why
            if (question.question, r) in pending:
                why = pending[question.question, r] + (f" (repeat {r})" if r else "")
            replayed.excluded.append(Excluded(question, why))
            continue
        replayed.questions.append(question)
        for run, found in zip(replayed.curves, observed, strict=True):
            assert isinstance(found, Record)
            run.append(found.curve)
    return replayed


def _cannot_replay(run_dir: Path, record: RunRecord, question_set: QuestionSet, problems: Sequence[Excluded],
                   coverage: Coverage) -> InputError:
    under_test = system(record.config.system)
    lines = "\n".join(f"  {p.question.id}: {p.why}" for p in problems[:SHOW])
    more = f"\n  ... and {len(problems) - SHOW} more" if len(problems) > SHOW else ""
    ranges = " ".join(range_flag(under_test, name, values) for name, values in sorted(coverage.items()) if values)
    return InputError(
        f"{run_dir}: {len(problems)} question(s) cannot be replayed on this grid:\n{lines}{more}\n"
        + record_missing(question_set.path, run_dir, record, len(problems), _worst(record), ranges)
        + "; or pass --allow-incomplete to leave them out"
    )
