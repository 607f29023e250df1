"""A question file parsed once per content: its questions kept beside the replay index, for the sweeps after.

    <the user's cache>/runs/<run>/replay-index/<digest>.questions   (`index.index_dir`)

Kept in the user's cache, never in the run directory, where a commit could put a rewritten parse that changes
the judging while the question file stays as it is.

Parsing a question file costs more than anything else a repeated sweep does (YAML, every line and key checked:
0.5 s for 10,000 questions, 6 s for 100,000), and a team sweeps the same file again and again. So a sweep that
parses one keeps what it found, keyed to the SHA-256 of the file's bytes and to the code that parsed it
(`parser_digest`); a later sweep of the same bytes with the same code reads that instead. Derived, never
evidence: deleting it changes nothing but time, and anything else about the file (an edit, however small) is
another digest, parsed afresh. Like the index, it is read as data (JSON under a checksum line, never pickled
objects); one that is torn, edited, or not of this format and code is ignored and replaced, and a run directory
the sweep may not write simply gets none. The verdicts beside a question file are not kept: they are read every
sweep (`replay.judged_with`).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from pathlib import Path

import orjson
import yaml

from .. import questions as questions_module
from ..core import textsafe
from ..core.errors import QuestionFileError
from ..core.storage import private_dir, read_private, remove_stale_temporaries, write_private
from ..questions import Question, QuestionSet, decode, labels_allowed, parse_questions

PARSED_FORMAT = "quotefinder-parsed-questions/1"
SUFFIX = ".questions"
KEEP = 4  # question files kept per run: the run's own, and a few others judged with --questions


def parser_digest() -> str:
    """SHA-256 over the source of the question parser (and of the text checks it makes, and of this module) and
    the version and loader of the YAML library: questions parsed (or kept) by other code are not this code's."""
    digest = hashlib.sha256(f"{yaml.__version__} {questions_module._Loader.__name__}\0".encode())  # YAML's own
    for path in (Path(questions_module.__file__ or ""), Path(textsafe.__file__ or ""), Path(__file__)):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def kept_path(cache: Path, digest: str) -> Path:
    return cache / f"{digest[:32]}{SUFFIX}"


def kept_questions(path: Path, cache: Path) -> tuple[QuestionSet | None, bytes, str] | None:
    """The question file at `path` as a sweep parsed it before (kept in `cache`), with the file's bytes and text;
    (None, bytes, text) when nothing usable is kept for those bytes; None when the file cannot be read as text
    (the parse says why)."""
    try:
        raw, text = decode(path)
    except QuestionFileError:  # said by the parse, with the file and line
        return None
    digest = hashlib.sha256(raw).hexdigest()
    try:
        kept = read_private(kept_path(cache, digest))
    except OSError:
        return None, raw, text
    return _read(kept, digest, path), raw, text


def _read(kept: bytes, digest: str, path: Path) -> QuestionSet | None:
    checksum, _, body = kept.partition(b"\n")
    if hashlib.sha256(body).hexdigest().encode() != checksum:
        return None
    try:
        data = orjson.loads(body)
        if not isinstance(data, dict) or (data.get("format"), data.get("sha256"), data.get("code")) != (
                PARSED_FORMAT, digest, parser_digest()):
            return None
        found = []
        for id_, text, expect, accept, line in data["questions"]:
            if not (isinstance(id_, str) and isinstance(text, str) and labels_allowed(expect, accept)
                    and type(line) is int):
                return None
            found.append(Question(id_, text, expect, tuple(accept), line))
    except (ValueError, TypeError, KeyError, AttributeError, re.error, RecursionError, OverflowError):
        return None
    if len({q.id for q in found}) != len(found) or len({q.question for q in found}) != len(found):
        return None  # what the parser refuses is not taken from a kept file either
    return QuestionSet(path, digest, tuple(found))


def parsed(path: Path, cache: Path, read: tuple[QuestionSet | None, bytes, str] | None = None) -> QuestionSet:
    """The question file at `path`: as kept in `cache` for its bytes (`kept_questions`, or `read`, its answer
    already had), else parsed (`questions.parse_questions`, every error naming the file and line) and kept there
    for the next sweep."""
    found = read if read is not None else kept_questions(path, cache)
    if found is None:
        return questions_module.load_questions(path)  # the file cannot be read: its error, said as ever
    kept, raw, text = found
    if kept is not None:
        return kept
    loaded = parse_questions(text, path, raw)
    _keep(cache, loaded)
    return loaded


def _keep(cache: Path, loaded: QuestionSet) -> None:
    body = orjson.dumps({"format": PARSED_FORMAT, "sha256": loaded.sha256, "code": parser_digest(),
                         "questions": [[q.id, q.question, q.expect, list(q.accept), q.line] for q in loaded.questions]})
    target = kept_path(cache, loaded.sha256)
    with contextlib.suppress(OSError):
        private_dir(cache)
        write_private(target, hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
        older = sorted(cache.glob(f"*{SUFFIX}"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for stale in older[KEEP:]:
            stale.unlink()
        remove_stale_temporaries(cache)
