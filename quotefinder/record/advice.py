"""The words an error uses when it advises a recording: a recording sends paid API requests, and recording a
question file into a run of another file would replace that run's questions (refused without `--force`), so the
advice says so, offers `--estimate` (which sends nothing) first, and prefers a new run directory over another
run's. Every command it suggests is the verb's (`quotefinder record`, `quotefinder refresh`)."""

from __future__ import annotations

import os
from pathlib import Path

from ..questions import QuestionSet
from .rundir import RunRecord

ESTIMATE = "--estimate sends nothing and says how many requests it would send and what they cost"
SPENDS = "a recording sends paid API requests"


def recorded_from(run_dir: Path, record: RunRecord) -> Path | None:
    """The question file the run was recorded from, relative to where we are (None when run.json names none)."""
    recorded = record.questions_file.path if record.questions_file else ""
    if not recorded:
        return None
    return Path(os.path.relpath(os.path.normpath(Path(run_dir).resolve() / recorded)))


def _same(a: Path, b: Path) -> bool:
    return Path(a).resolve() == Path(b).resolve()


def record_missing(questions_path: Path, run_dir: Path, record: RunRecord, missing: int, worst: str = "",
                   extra: str = "") -> str:
    """How to record `missing` question(s) of `questions_path` that the run at `run_dir` lacks: into a new run
    when the run was recorded from another file (recording there would replace its questions), else into the
    run itself; either way `--estimate` first. `worst` is the system's at-most per question
    (`System.worst_words`), `extra` the options the command needs besides (`--range ...`)."""
    own = recorded_from(run_dir, record)
    options = f" {extra}" if extra else ""
    cost = f"{SPENDS} ({missing} question(s) x {record.repeats} repeat(s)" + (f"; {worst})" if worst else ")")
    if own is None or _same(own, questions_path):
        command = f"quotefinder record {questions_path} --run {run_dir}{options}"
        return (f"Recording them into {run_dir} adds them to the run, and {cost}: see first what it would send "
                f"with `{command} --estimate` ({ESTIMATE}), then run it without --estimate")
    command = f"quotefinder record {questions_path} --run {new_run(questions_path, run_dir)}{options}"
    return (f"{run_dir} is a run of {own} ({len(record.questions)} question(s)): recording {questions_path} "
            f"into it would replace its questions, and {cost}. To record them, use a new run directory, and see "
            f"first what it would send with `{command} --estimate` ({ESTIMATE}), then run it without --estimate; "
            f"to judge {run_dir} alone, leave out --questions")


def new_run(questions_path: Path, run_dir: Path) -> Path:
    """A run directory of its own for `questions_path`, not `run_dir` (which holds another file's questions)."""
    from .session import default_run_dir  # on an error's path only: the sweep never loads the HTTP client

    target = default_run_dir(questions_path)
    if _same(target, run_dir) or target.exists():
        target = Path(run_dir).parent / f"{Path(questions_path).stem}-new"
    return target


def other_file(questions: QuestionSet, run_dir: Path, record: RunRecord, changes: str) -> str:
    """Why recording `questions` into the run at `run_dir` is refused when the run was recorded from another file
    and that file leaves out questions the run holds (it would replace them; `changes` says how, in words), and
    what to do instead: '' for the run's own file, a file that keeps every question the run holds (it extends the
    run), or a run.json that names no file."""
    own, questions_path = recorded_from(run_dir, record), questions.path
    kept = questions.by_text()
    if own is None or _same(own, questions_path) or all(q.question in kept for q in record.questions):
        return ""
    command = f"quotefinder record {questions_path} --run {new_run(questions_path, run_dir)}"
    return (f"{run_dir} is a run of {own} ({len(record.questions)} question(s)); recording {questions_path} into "
            f"it would replace its questions ({changes}), and {SPENDS}. Record it into a run of its own: see first "
            f"what it would send with `{command} --estimate` ({ESTIMATE}), then run it without --estimate; or, to "
            f"replace the run's questions, add --force")


def finish(command: str) -> str:
    """How to finish or resume a recording with `command` (a `quotefinder` command line): --estimate first."""
    return (f"`{command} --estimate` first says what finishing it would send ({SPENDS}; --estimate sends "
            "nothing), then the same without --estimate records it")


def record_again() -> str:
    """How to record a run again from scratch, into a new directory: every request is sent again."""
    return ("record again into a new directory with `quotefinder record QUESTIONS --run NEW_DIR --estimate` first "
            f"(every request is sent again, and {SPENDS}; {ESTIMATE}), then without --estimate")
