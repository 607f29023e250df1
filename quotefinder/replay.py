"""Loading a recorded run for the sweep: every judged question replayed from the cache alone.

Judgement comes from a question file (by default the one the run recorded, read as it is now, so an
edited `accept` pattern applies without any API call); the evidence comes from the run. Each
question is replayed through the pipeline's own request flow for the HAS_ANSWER_CUTOFF values the
sweep needs; a compare response the run does not hold is an error naming the question and the set,
never an approximation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import pipeline
from .cache import ResponseCache
from .contract import ApiRequest
from .decision import MIN_SENTENCES, Cutoffs
from .errors import ContractError, CorruptEntry, InputError, MissingResponse, RunDirError
from .pipeline import Coverage, Trace
from .questions import Question, QuestionSet, load_questions
from .rundir import RUN_FILE, read_run

SHOW = 10


@dataclass
class Replayed:
    """A run ready to sweep: the judged questions with their traces, and what was left out."""

    run_dir: Path
    record: dict[str, Any]
    questions: QuestionSet
    items: list[tuple[Question, Trace]]
    excluded: list[tuple[Question, str]] = field(default_factory=list)  # replay failed (--allow-incomplete)
    unjudged_in_run: int = 0  # recorded questions the question file does not list

    @property
    def synthetic(self) -> bool:
        return self.record.get("evidence") == "synthetic"


def open_run(run_dir: Path) -> dict[str, Any]:
    record = read_run(Path(run_dir))
    if record is None:
        raise RunDirError(f"{run_dir}: no {RUN_FILE} here, so it is not a run; record one with eval.py")
    return record


def judging_questions(run_dir: Path, record: dict[str, Any], path: Path | None) -> QuestionSet:
    """The question file to judge with: `path`, or the one the run recorded (relative to the run)."""
    if path is None:
        recorded = record.get("questions_file", {}).get("path")
        if not recorded:
            raise RunDirError(f"{run_dir}/{RUN_FILE} names no question file; pass --questions FILE")
        path = Path(run_dir) / recorded
        if not path.exists():
            raise InputError(f"{path}: the question file this run was recorded from is gone; pass --questions FILE")
    return load_questions(path)


def _lookup(cache: ResponseCache):
    def lookup(request: ApiRequest) -> Any:
        entry = cache.get(request)
        if entry is None:
            raise MissingResponse(request.label or request.path)
        return entry["response"]

    return lookup


def replay_run(run_dir: Path, has_answer_points: Sequence[float], questions_path: Path | None = None,
               allow_incomplete: bool = False) -> Replayed:
    """Replay every judged question from the run's cache for the given HAS_ANSWER_CUTOFF values.

    Raises `InputError` naming every question the run cannot replay, unless `allow_incomplete`, in which
    case those questions are left out and listed in `excluded`. A run marked incomplete is refused
    unless `allow_incomplete`.
    """
    run_dir = Path(run_dir)
    record = open_run(run_dir)
    if not record.get("complete") and not allow_incomplete:
        raise InputError(
            f"{run_dir}: the run is marked incomplete ({len(record.get('errors', []))} question(s) failed); "
            "finish it with eval.py, or pass --allow-incomplete to sweep the questions that can be replayed"
        )
    questions = judging_questions(run_dir, record, questions_path)
    recorded = {q["question"] for q in record.get("questions", [])}
    strangers = [q for q in questions.questions if q.question not in recorded]
    if strangers:
        names = ", ".join(f"{q.id!r} (line {q.line})" for q in strangers[:SHOW])
        raise InputError(
            f"{questions.path}: {len(strangers)} question(s) are not in the run {run_dir}: {names}. "
            f"Record them with `python eval.py {questions.path} --run {run_dir}`"
        )
    coverage = Coverage(span=None, points=tuple(has_answer_points))
    cutoffs = Cutoffs(min_sentences=record.get("config", {}).get("min_sentences", MIN_SENTENCES))
    lookup = _lookup(ResponseCache(run_dir))
    replayed = Replayed(run_dir, record, questions, [], unjudged_in_run=len(recorded - set(questions.by_text())))
    problems: list[tuple[Question, str]] = []
    for question in questions.questions:
        try:
            trace = pipeline.replay(pipeline.steps(question.question, coverage, cutoffs), lookup)
        except MissingResponse as missing:
            problems.append((question, f"the run does not hold {missing}"))
        except (CorruptEntry, ContractError) as error:
            problems.append((question, str(error)))
        else:
            replayed.items.append((question, trace))
    if problems and not allow_incomplete:
        lines = "\n".join(f"  {q.id}: {why}" for q, why in problems[:SHOW])
        more = f"\n  ... and {len(problems) - SHOW} more" if len(problems) > SHOW else ""
        span = f"{min(has_answer_points):g}:{max(has_answer_points):g}"
        raise InputError(
            f"{run_dir}: {len(problems)} question(s) cannot be replayed on this grid:\n{lines}{more}\n"
            f"Extend the run with `python eval.py {questions.path} --run {run_dir} --has-answer-range {span}`, "
            "or pass --allow-incomplete to leave them out"
        )
    replayed.excluded = problems
    return replayed
