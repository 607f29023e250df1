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
from collections.abc import Collection, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from ..core import flow
from ..core.errors import ContractError, CorruptEntry, InputError, MissingResponse, QuoteFinderError, RunDirError
from ..core.plugin import Curve, System
from ..core.registry import axis_spec, system
from ..core.requests import ApiRequest
from ..questions import Question, QuestionSet, load_questions
from ..record.rundir import RUN_FILE, RunRecord
from ..record.store import ResponseStore, open_store
from . import parsed
from .apart import Apart, answer, die_with_parent, forking
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


def judged_with(path: Path, cache: Path | None = None,
                kept: tuple[QuestionSet | None, bytes, str] | None = None) -> QuestionSet:
    """The question file at `path`, parsed as it is now (or, given a `cache`, as a sweep parsed the same bytes
    before: `parsed.parsed`; `kept`, what `parsed.kept_questions` found there), with the verdicts beside it
    (`ten.verdicts.yaml` for `ten.yaml`), read now, attached to the questions they judge."""
    questions = load_questions(path) if cache is None else parsed.parsed(path, cache, kept)
    return with_verdicts(questions, load_verdicts(verdicts_path(questions.path)))


PARSE_APART_FROM = 256 * 1024  # bytes of question file (about 2,000 questions: 0.05 s to parse, without the
# collector; the child's start and the pickled answer about half that); smaller files are parsed in this process


class QuestionsInBackground(Apart[QuestionSet]):
    """The judging question file (`judged_with`), parsed in a forked child (`Apart`) while this process reads the
    replay index, when `jobs` allows a second process and the file is large enough to pay for the child; else
    parsed in this process when `result` is called. The same `QuestionSet` either way (the child's is pickled
    back field by field, `Question.__reduce__`), and the same error. With a `cache` (`parsed`) that keeps the
    file's bytes parsed, nothing is parsed: the questions are read from it here."""

    def __init__(self, path: Path, jobs: int, cache: Path | None = None) -> None:
        self.path = path
        kept = parsed.kept_questions(path, cache) if cache is not None else None
        try:
            large = path.stat().st_size >= PARSE_APART_FROM
        except OSError:
            large = False  # said by the parse, in this process
        super().__init__("quotefinder-questions",
                         lambda parent, sender: _parse_apart(parent, path, sender, cache, kept),
                         lambda: judged_with(path, cache, kept),
                         jobs > 1 and large and (kept is None or kept[0] is None))


def _parse_apart(parent: int, path: Path, sender: Connection, cache: Path | None = None,
                 kept: tuple[QuestionSet | None, bytes, str] | None = None) -> None:
    """The child: the file's bytes and text as the parent read them for `kept_questions` (forked with it, so not
    read and hashed again), parsed."""
    answer(parent, sender, lambda: judged_with(path, cache, kept))


Evidence = dict[str, str]  # each kind of evidence replayed ("live", "synthetic") -> the first entry that holds it


Coverage = dict[str, tuple[float, ...]]  # an axis's name -> the values of it the sweep needs responses for


def run_system(record: RunRecord) -> tuple[System, Any]:
    """The system a run was recorded with, and its resolved pipeline."""
    return system(record.config.system), record.config.pipeline


Replay = tuple[Curve | str, tuple[Entry, ...], Evidence]  # one pair: its curve (or why not), entries, evidence


def replay_pairs(run_dir: Path, pairs: Sequence[Pair], coverage: Coverage, chosen: tuple[str, Any, str]
                 ) -> list[Replay]:
    """Each (question, repeat)'s curve, replayed from the cache alone through the system's own request flow
    (`chosen`: the system's name and its pipeline), or why it cannot be replayed; with the entries it read (for
    the replay index: each as `ResponseStore.read` saw it before its bytes were read, so a later change is always
    seen) and their evidence."""
    store = open_store(run_dir, chosen[2])
    under_test, config = system(chosen[0]), chosen[1]
    try:
        return [_replay_one(store, under_test, config, coverage, text, repeat) for text, repeat in pairs]
    finally:
        store.close()


def _replay_one(store: ResponseStore, under_test: System, config: Any, coverage: Coverage, text: str,
                repeat: int) -> Replay:
    entries: list[Entry] = []
    evidence: Evidence = {}

    def lookup(request: ApiRequest) -> Any:
        received, entry = store.read(request)  # (the entry as it was before its bytes were read)
        entries.append(entry)
        evidence.setdefault(received.evidence, store.where(request))
        return received.data

    try:
        trace = flow.replay(under_test.steps(text, config, coverage, repeat), lookup)
        return under_test.curve(trace), tuple(entries), evidence
    except MissingResponse as missing:
        return f"the run does not hold {missing}" + (f" (repeat {repeat})" if repeat else ""), (), evidence
    except (CorruptEntry, ContractError) as error:
        return str(error), (), evidence


def merged_evidence(replays: Iterable[Evidence]) -> Evidence:
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
                          "run; record again into a new directory with `eval.py --run DIR`")
    found = next(iter(evidence), None)
    if found is not None and found != record.evidence:
        raise RunDirError(f"{run_dir}: {RUN_FILE} says its evidence is {record.evidence_word}, but the responses it "
                          f"holds are {found} ({evidence[found]} is one). The evidence is the responses' own: "
                          f"{RUN_FILE} was edited or damaged; record again into a new directory with "
                          "`eval.py --run DIR`")
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


def _replay_chunk(job: tuple[Path, Sequence[Pair], Coverage, tuple[str, Any, str]]) -> list[Replay]:
    return replay_pairs(*job)


class Background:
    """Replays a run's recorded questions in worker processes while the caller does other work.

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
        self.pending: Iterator[list[Replay]] | None = None
        self.recorded: list[Sequence[Pair]] = []
        if jobs > 1 and len(recorded) >= PARALLEL_FROM:
            method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
            size = -(-len(recorded) // (jobs * 16))  # many small chunks: no worker idles at the end
            self.recorded = [recorded[i : i + size] for i in range(0, len(recorded), size)]
            try:
                with forking():  # the workers start as the chunks are submitted
                    self.pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method),
                                                    initializer=die_with_parent, initargs=(os.getpid(),))
                    self.pending = self.pool.map(_replay_chunk, [(run_dir, chunk, coverage, chosen)
                                                                 for chunk in self.recorded])
            except BaseException:  # a Ctrl+C held back while they started: no `with` will close the pool
                self.close()
                raise

    def replays(self, pairs: Sequence[Pair]) -> dict[Pair, Replay]:
        """What replaying gave: each of `pairs` (in serial), or every recorded pair (the workers')."""
        run_dir, coverage, chosen = self.job
        if self.pending is None:
            return dict(zip(pairs, replay_pairs(run_dir, pairs, coverage, chosen), strict=True))
        done: dict[Pair, Replay] = {}
        try:
            for chunk, replays in zip(self.recorded, self.pending, strict=True):
                done.update(zip(chunk, replays, strict=True))
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

    With `use_index`, the pairs whose entries are unchanged since the replay index (`sweep.index`) recorded them
    come from it, and the others are replayed and added to it; the result is the same either way.

    `only` (question texts) narrows the judged questions to those; a refresh run (`eval.py --refresh`) is narrowed
    to the sample it recorded, since the question file also lists the questions not sampled.
    """
    run_dir = Path(run_dir)
    record = record or RunRecord.require(run_dir)  # the caller's, when it has read it already
    if not record.complete and not allow_incomplete:
        raise InputError(
            f"{run_dir}: the run is marked incomplete: {record.incompleteness}; "
            "finish it with eval.py, or pass --allow-incomplete to sweep the questions that can be replayed"
        )
    recorded = record.texts
    repeats = range(record.repeats)
    pairs = [(text, r) for text in recorded for r in repeats]
    under_test, config = run_system(record)
    chosen = (under_test.name, config, record.cache_format)
    derived = index_dir(run_dir) if use_index else None
    use_index = derived is not None  # (none through a link: everything is replayed)
    with QuestionsInBackground(judging_path(run_dir, record, questions_path), jobs, derived) as parsing:
        key = index_key(under_test, record.config.pipeline_digest, coverage)
        written = index_path(run_dir, key)
        if written is not None:
            index_written(written)  # one still being written apart by an earlier replay
        index = ReplayIndex.open(run_dir, key, record.cache_format, apart=jobs > 1) if use_index else None
        indexed = {}
        if index is not None:
            try:
                store = open_store(run_dir, record.cache_format)
                try:
                    indexed = index.usable(pairs, store)
                finally:
                    store.close()
            finally:
                index.close()  # its check apart, when `usable` was never reached
        with Background(run_dir, [p for p in pairs if p not in indexed], coverage, chosen, jobs) as background:
            question_set = parsing.result()  # parsed while the index was read, or while the workers replay
            known = set(recorded)
            narrowed = set(only) if only is not None else known if record.refresh is not None else None
            if narrowed is not None:
                question_set = dataclasses.replace(
                    question_set, questions=tuple(q for q in question_set.questions if q.question in narrowed))
            strangers = [q for q in question_set.questions if q.question not in known]
            if strangers:
                names = ", ".join(f"{q.id!r} (line {q.line})" for q in strangers[:SHOW])
                raise InputError(
                    f"{question_set.path}: {len(strangers)} question(s) are not in the run {run_dir}: {names}. "
                    f"Record them with `python eval.py {question_set.path} --run {run_dir}`"
                )
            judged = [(q.question, r) for q in question_set.questions for r in repeats]
            fresh = background.replays([pair for pair in judged if pair not in indexed])
    found: dict[Pair, Replay] = {pair: (r.curve, (), dict(r.evidence)) for pair, r in indexed.items()}  # (their
    # entries stay in the index)
    found.update(fresh)
    if index is not None:
        index.update({pair: Record(curve, dict(evidence), entries) for pair, (curve, entries, evidence)
                      in fresh.items() if isinstance(curve, Curve)}, keep=pairs)
        save_index(index, apart=jobs > 1 and len(fresh) >= PARALLEL_FROM)
    curves = [found[pair][0] for pair in judged]
    evidence = merged_evidence(found[pair][2] for pair in judged)
    record = dataclasses.replace(record, evidence=derived_evidence(run_dir, record, evidence))
    replayed = Replayed(run_dir, record, question_set, [], [[] for _ in repeats],
                        unjudged_in_run=len(known - set(question_set.by_text())))
    # what eval.py said of the question repeats it had not recorded when it stopped: "not recorded yet (...)"
    texts = {q.id: q.question for q in record.questions}
    pending = {(texts.get(e.id), e.repeat): e.error for e in record.errors if e.pending}
    for n, question in enumerate(question_set.questions):
        observed = curves[n * len(repeats) : (n + 1) * len(repeats)]
        replayable = [curve for curve in observed if isinstance(curve, Curve)]
        if len(replayable) < len(observed):
            r, why = next((r, why) for r, why in enumerate(observed) if isinstance(why, str))
            if (question.question, r) in pending:
                why = pending[question.question, r] + (f" (repeat {r})" if r else "")
            replayed.excluded.append(Excluded(question, why))
            continue
        replayed.questions.append(question)
        for run, curve in zip(replayed.curves, replayable, strict=True):
            run.append(curve)
    problems = replayed.excluded
    if problems and not allow_incomplete:
        lines = "\n".join(f"  {p.question.id}: {p.why}" for p in problems[:SHOW])
        more = f"\n  ... and {len(problems) - SHOW} more" if len(problems) > SHOW else ""
        ranges = " ".join(range_flag(under_test, name, values) for name, values in sorted(coverage.items()) if values)
        raise InputError(
            f"{run_dir}: {len(problems)} question(s) cannot be replayed on this grid:\n{lines}{more}\n"
            f"Extend the run with `python eval.py {question_set.path} --run {run_dir} {ranges}`, "
            "or pass --allow-incomplete to leave them out"
        )
    return replayed
