"""Loading a recorded run for the sweep: every judged question replayed from the cache alone.

Judgement comes from a question file (by default the one the run recorded, read as it is now, so an
edited `accept` pattern applies without any API call); the evidence comes from the run. Each
question is replayed through the pipeline's own request flow for the HAS_ANSWER_CUTOFF values the
sweep needs; a compare response the run does not hold is an error naming the question and the set,
never an approximation.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ContractError, CorruptEntry, InputError, MissingResponse, RunDirError
from ..questions import Question, QuestionSet, load_questions
from ..recipe import pipeline
from ..recipe.contract import ApiRequest
from ..recipe.decision import Cutoffs
from ..recipe.pipeline import Coverage, Trace
from ..record.cache import ResponseCache
from ..record.rundir import RUN_FILE, RunRecord
from .verdicts import load_verdicts, verdicts_path, with_verdicts

SHOW = 10
PARALLEL_FROM = 500  # questions; below this, starting processes costs more than it saves


Pair = tuple[str, int]  # a question's text and a repeat index


@dataclass(frozen=True)
class Excluded:
    """A question left out of a sweep (`--allow-incomplete`), and why it could not be replayed."""

    question: Question
    why: str


@dataclass
class Replayed:
    """A run ready to sweep: the judged questions, their traces in every repeat, and what was left out.

    `traces[r][q]` is question `questions[q]` in repeat r; every repeat holds the same questions in the
    same order (a question missing any repeat is left out, into `excluded`).
    """

    run_dir: Path
    record: RunRecord
    question_set: QuestionSet  # the file judging comes from, with its verdicts
    questions: list[Question]
    traces: list[list[Trace]]
    excluded: list[Excluded] = field(default_factory=list)
    unjudged_in_run: int = 0  # recorded questions the question file does not list

    @property
    def repeats(self) -> int:
        return len(self.traces)


def judging_questions(run_dir: Path, record: RunRecord, path: Path | None) -> QuestionSet:
    """The question file to judge with: `path`, or the one the run recorded (relative to the run).

    When the file's bytes are the ones the run recorded (same SHA-256), its questions are the ones
    run.json already holds, parsed and checked when they were recorded; a 10,000-question YAML file
    then costs a hash instead of a parse. Any edit makes it parse the file again. The verdicts beside
    the file (`ten.verdicts.yaml` for `ten.yaml`) are attached to the questions they judge.
    """
    if path is None:
        recorded = record.questions_file.path if record.questions_file else ""
        if not recorded:
            raise RunDirError(f"{run_dir}/{RUN_FILE} names no question file; pass --questions FILE")
        # recorded relative to the resolved run directory; shown relative to where we are
        path = Path(os.path.relpath(os.path.normpath(Path(run_dir).resolve() / recorded)))
        if not path.exists():
            raise InputError(f"{path}: the question file this run was recorded from is gone; pass --questions FILE")
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        digest = None  # load_questions says what is wrong with it
    recorded_digest = record.questions_file.sha256 if record.questions_file else None
    if digest is not None and digest == recorded_digest:
        questions = QuestionSet(path, digest, record.questions)
    else:
        questions = load_questions(path)
    return with_verdicts(questions, load_verdicts(verdicts_path(questions.path)))


def replay_pairs(run_dir: Path, pairs: Sequence[Pair], points: Sequence[float], min_sentences: int
                 ) -> list[Trace | str]:
    """Each (question, repeat)'s trace from the cache alone, or why it cannot be replayed."""
    cache = ResponseCache(run_dir)

    def lookup(request: ApiRequest) -> Any:
        return cache.require(request).data

    coverage, cutoffs = Coverage(span=None, points=tuple(points)), Cutoffs(min_sentences=min_sentences)
    traces: list[Trace | str] = []
    for text, repeat in pairs:
        try:
            traces.append(pipeline.replay(pipeline.steps(text, coverage, cutoffs, repeat), lookup))
        except MissingResponse as missing:
            traces.append(f"the run does not hold {missing}" + (f" (repeat {repeat})" if repeat else ""))
        except (CorruptEntry, ContractError) as error:
            traces.append(str(error))
    return traces


def _replay_chunk(job: tuple[Path, Sequence[Pair], Sequence[float], int]) -> list[Trace | str]:
    return replay_pairs(*job)


class Background:
    """Replays a run's recorded questions in worker processes while the caller does other work.

    Loading is reading and parsing files, which one Python process does on one core; with `jobs`
    processes it starts at once, and `traces(pairs)` collects it. With one job, or a run too small
    to be worth starting processes for, nothing happens until `traces`, which then replays just the
    pairs asked for, in this process.
    """

    def __init__(self, run_dir: Path, recorded: Sequence[Pair], points: Sequence[float], min_sentences: int,
                 jobs: int) -> None:
        self.job = (run_dir, points, min_sentences)
        self.pool: ProcessPoolExecutor | None = None
        self.pending: Iterator[list[Trace | str]] | None = None
        self.recorded: list[Sequence[Pair]] = []
        if jobs > 1 and len(recorded) >= PARALLEL_FROM:
            method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
            self.pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method))
            size = -(-len(recorded) // (jobs * 16))  # many small chunks: no worker idles at the end
            self.recorded = [recorded[i : i + size] for i in range(0, len(recorded), size)]
            self.pending = self.pool.map(_replay_chunk, [(run_dir, chunk, points, min_sentences)
                                                         for chunk in self.recorded])

    def traces(self, pairs: Sequence[Pair]) -> list[Trace | str]:
        """Each pair's trace, or why it cannot be replayed, in the order given."""
        run_dir, points, min_sentences = self.job
        if self.pending is None:
            return replay_pairs(run_dir, pairs, points, min_sentences)
        done: dict[Pair, Trace | str] = {}
        for chunk, traces in zip(self.recorded, self.pending, strict=True):
            done.update(zip(chunk, traces, strict=True))
        return [done[pair] for pair in pairs]

    def __enter__(self) -> Background:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


def replay_run(run_dir: Path, has_answer_points: Sequence[float], questions_path: Path | None = None,
               allow_incomplete: bool = False, jobs: int = 1, record: RunRecord | None = None) -> Replayed:
    """Replay every judged question from the run's cache for the given HAS_ANSWER_CUTOFF values.

    Raises `InputError` naming the questions the run cannot replay (the first few, and how many), unless
    `allow_incomplete`, in which case they are left out and listed in `excluded`. A run marked incomplete is refused
    unless `allow_incomplete`.
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
    with Background(run_dir, pairs, has_answer_points, record.config.min_sentences, jobs) as background:
        question_set = judging_questions(run_dir, record, questions_path)  # while the workers replay
        known = set(recorded)
        strangers = [q for q in question_set.questions if q.question not in known]
        if strangers:
            names = ", ".join(f"{q.id!r} (line {q.line})" for q in strangers[:SHOW])
            raise InputError(
                f"{question_set.path}: {len(strangers)} question(s) are not in the run {run_dir}: {names}. "
                f"Record them with `python eval.py {question_set.path} --run {run_dir}`"
            )
        traces = background.traces([(q.question, r) for q in question_set.questions for r in repeats])
    replayed = Replayed(run_dir, record, question_set, [], [[] for _ in repeats],
                        unjudged_in_run=len(known - set(question_set.by_text())))
    # what eval.py said of the question repeats it had not recorded when it stopped: "not recorded yet (...)"
    texts = {q.id: q.question for q in record.questions}
    pending = {(texts.get(e.id), e.repeat): e.error for e in record.errors if e.pending}
    for n, question in enumerate(question_set.questions):
        observed = traces[n * len(repeats) : (n + 1) * len(repeats)]
        replayable = [trace for trace in observed if isinstance(trace, Trace)]
        if len(replayable) < len(observed):
            r, why = next((r, why) for r, why in enumerate(observed) if isinstance(why, str))
            if (question.question, r) in pending:
                why = pending[question.question, r] + (f" (repeat {r})" if r else "")
            replayed.excluded.append(Excluded(question, why))
            continue
        replayed.questions.append(question)
        for run, trace in zip(replayed.traces, replayable, strict=True):
            run.append(trace)
    problems = replayed.excluded
    if problems and not allow_incomplete:
        lines = "\n".join(f"  {p.question.id}: {p.why}" for p in problems[:SHOW])
        more = f"\n  ... and {len(problems) - SHOW} more" if len(problems) > SHOW else ""
        span = f"{min(has_answer_points):g}:{max(has_answer_points):g}"
        raise InputError(
            f"{run_dir}: {len(problems)} question(s) cannot be replayed on this grid:\n{lines}{more}\n"
            f"Extend the run with `python eval.py {question_set.path} --run {run_dir} --has-answer-range {span}`, "
            "or pass --allow-incomplete to leave them out"
        )
    return replayed
