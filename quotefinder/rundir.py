"""A run directory: `run.json` (what was recorded, how, and whether it is complete) beside the cache.

`run.json` is rewritten atomically, and only when something changed, so a rerun that sends nothing
leaves a committed run byte-identical.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import __version__
from .cache import FORMAT as CACHE_FORMAT
from .cache import private_dir, write_private
from .errors import RunDirError, StorageError

RUN_FORMAT = "quotefinder-run/1"
PIPELINE_VERSION = 1  # bump when a request body or the decision rule changes
RUN_FILE = "run.json"
_VOLATILE = ("started_at", "finished_at", "requests")


def read_run(run_dir: Path) -> dict[str, Any] | None:
    """The run record, or None for a directory that does not exist or is empty (a new run)."""
    run_dir = Path(run_dir)
    path = run_dir / RUN_FILE
    if not path.exists():
        if run_dir.exists() and not run_dir.is_dir():
            raise RunDirError(f"{run_dir}: is a file, not a run directory")
        if run_dir.exists() and any(run_dir.iterdir()):
            raise RunDirError(f"{run_dir}: has files but no {RUN_FILE}, so it is not a run; choose another --run DIR")
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise RunDirError(
            f"{path}: cannot be read as a run record ({error}); restore it from version control"
        ) from None
    if not isinstance(record, dict) or record.get("format") != RUN_FORMAT:
        found = record.get("format") if isinstance(record, dict) else None
        raise RunDirError(f"{path}: run format {found!r}; this version reads {RUN_FORMAT!r}")
    problem = _shape_problem(record)
    if problem:
        raise RunDirError(f"{path}: {problem}; restore it from version control or record into a new --run DIR")
    if record.get("cache_format") != CACHE_FORMAT:
        raise RunDirError(
            f"{path}: responses were saved in cache format {record.get('cache_format')!r}, this version reads "
            f"{CACHE_FORMAT!r}; record into a new --run DIR or use the version that wrote it"
        )
    return record


def _shape_problem(record: dict[str, Any]) -> str:
    """What is wrong with the fields other code reads ('' if nothing)."""
    questions = record.get("questions", [])
    if not isinstance(questions, list) or not all(
            isinstance(q, dict) and isinstance(q.get("question"), str) for q in questions):
        return "`questions` is not a list of recorded questions"
    config = record.get("config", {})
    if not isinstance(config, dict) or not isinstance(record.get("questions_file", {}), dict):
        return "`config` and `questions_file` must be objects"
    for key in ("has_answer_cutoff", "answer_cutoff", "min_sentences", "repeats"):
        if key in config and (isinstance(config[key], bool) or not isinstance(config[key], int | float)):
            return f"`config.{key}` is {config[key]!r}, not a number"
    if record.get("evidence") not in (None, "live", "synthetic"):
        return f"`evidence` is {record.get('evidence')!r}, not live or synthetic"
    if not isinstance(record.get("complete", False), bool) or not isinstance(record.get("errors", []), list):
        return "`complete` must be true or false and `errors` a list"
    return ""


def write_run(run_dir: Path, record: dict[str, Any], previous: dict[str, Any] | None) -> bool:
    """Write `record` unless it equals `previous` apart from times and request counts; True if written."""
    if previous is not None and _stable(previous) == _stable(record):
        return False
    record = {"format": RUN_FORMAT, "code_version": __version__, "pipeline_version": PIPELINE_VERSION,
              "cache_format": CACHE_FORMAT, **record}
    text = json.dumps(record, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    try:
        private_dir(Path(run_dir))
        write_private(Path(run_dir) / RUN_FILE, text.encode())
    except OSError as error:
        raise StorageError(f"{run_dir}: cannot write {RUN_FILE} ({error.strerror or error}); the previous one, "
                           "if any, is unchanged. Free some space or fix the permissions, then rerun") from None
    return True


def _stable(record: dict[str, Any]) -> dict[str, Any]:
    keep = {k: v for k, v in record.items() if k not in _VOLATILE}
    for key in ("format", "code_version", "pipeline_version", "cache_format"):
        keep.pop(key, None)
    return keep


def remove_temporaries(run_dir: Path) -> int:
    """Delete temporary files a killed writer left behind (`.NAME.PID.tmp`); call only under `locked`.

    They were never renamed into place, so nothing ever read them; this only tidies up.
    """
    removed = 0
    for path in Path(run_dir).rglob(".*.tmp"):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed += 1
    return removed


@contextlib.contextmanager
def locked(run_dir: Path) -> Iterator[None]:
    """Hold an exclusive lock on the run so two recordings cannot interleave their run.json."""
    run_dir = Path(run_dir)
    try:
        private_dir(run_dir)
        fd = os.open(run_dir, os.O_RDONLY)  # the directory itself: no lock file to clutter the run
    except OSError as error:
        raise RunDirError(f"{run_dir}: cannot create or open the run directory ({error.strerror or error})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunDirError(f"{run_dir}: another eval.py is recording into this run; wait for it to finish") from None
        yield
    finally:
        os.close(fd)
