"""What people said that the question file does not: verdicts on quotes and labels of questions, kept
beside the questions.

`questions/ten.yaml` has them in `questions/ten.verdicts.yaml`:

    labels:
      - id: new-question                # for the reader; the key is the question text
        question: Who painted the ceiling?
        expect: answer                  # answer | no-answer
    verdicts:
      - id: bones                       # for the reader; the key is the question text and the quote
        question: How many bones are in the adult human body?
        quote: An adult has 206 bones in all.
        verdict: correct                # correct | wrong

A label gives an unlabelled question its `expect` (a question the file labels keeps its own; a label
that contradicts it is an error). A verdict applies to exactly that sentence of that question, on an
answer question, and overrides the accept patterns: a human judgement is made once and kept.
`sweep.py RUN --review` (see `labelling`) asks for the ones the grid needs and saves each at once.

Every mistake is an error naming the line: two verdicts on one quote or two labels for one question, a
verdict on a question that expects no answer, a question text that is not in the question file (misspelt,
padded). Saving merges (`merge_save`): under a lock on `ten.verdicts.yaml.lock`, the file is read again
and the new answers added, so two reviews at once keep each other's answers; two different answers to
one quote (or labels for one question) are an error naming both.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import fcntl
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from yaml.nodes import Node, ScalarNode, SequenceNode

from ..core.errors import QuestionFileError
from ..core.storage import SHARED_FILE, write_atomic
from ..core.textsafe import hidden, shown
from ..questions import EXPECTS, Outcome, Question, QuestionSet, Reader, compose, load_questions, shorter

VERDICTS = {"correct": Outcome.CORRECT, "wrong": Outcome.WRONG}
Verdicts = dict[tuple[str, str], Outcome]  # (question text, quote) -> verdict
HEADER = ("# Human labels of questions and verdicts on quotes that no accept pattern judges.\n"
          "# Written by `sweep.py RUN --review`; edit freely. A verdict overrides the accept patterns.\n")


@dataclass
class Judgements:
    """A verdicts file: labels by question text, verdicts by (question text, quote), and the line each was
    read from (none for answers not read from a file)."""

    verdicts: Verdicts = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)  # question text -> expect
    verdict_lines: dict[tuple[str, str], int] = field(default_factory=dict, compare=False, repr=False)
    label_lines: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def __bool__(self) -> bool:
        return bool(self.verdicts or self.labels)


class _Dumper(yaml.SafeDumper):
    """A YAML writer that shows invisible characters: a text holding a zero-width, bidirectional or control
    character is written double-quoted with escapes (`"\\u202E"`), which reads back as the same text,
    where a plain scalar would hide the character or let it reorder the line for the person editing."""

    allow_unicode: bool  # set by yaml's Emitter

    def write_double_quoted(self, text: str, split: bool = True) -> None:
        allow = self.allow_unicode
        self.allow_unicode = False  # escape every non-ASCII character of this scalar
        try:
            super().write_double_quoted(text, split)
        finally:
            self.allow_unicode = allow


def _represent_text(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    style = '"' if not text.isprintable() and any(hidden(char) for char in text) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _represent_text)


def verdicts_path(questions: Path) -> Path:
    """`questions/ten.yaml` -> `questions/ten.verdicts.yaml`."""
    return questions.with_name(f"{questions.stem}.verdicts.yaml")


def _items(reader: Reader, fields: dict[str, tuple[Node, Node]], name: str) -> list[Node]:
    """The items of the file's `name:` list; none for an absent or empty one."""
    items = fields[name][1] if name in fields else None
    if items is None or (isinstance(items, ScalarNode) and items.tag == "tag:yaml.org,2002:null"):
        return []
    if not isinstance(items, SequenceNode):
        raise reader.fail(items, f"`{name}:` must be a list, each item starting with `- question:`")
    return items.value


def load_verdicts(path: Path) -> Judgements:
    """The labels and verdicts in `path` (none when it does not exist); `QuestionFileError` names the line,
    also of a second verdict on one quote or a second label for one question (and the first's)."""
    found = Judgements()
    if not path.exists():
        return found
    _, root = compose(path)
    if root is None:
        return found
    reader = Reader(path)
    fields = reader.mapping(root, "the file", ("labels", "verdicts"))
    for n, node in enumerate(_items(reader, fields, "verdicts"), start=1):
        entry = reader.mapping(node, f"verdict {n}", ("id", "question", "quote", "verdict"))
        missing = [key for key in ("question", "quote", "verdict") if key not in entry]
        if missing:
            raise reader.fail(node, f"verdict {n} has no `{missing[0]}:`")
        question = reader.text(entry["question"][1], f"verdict {n}'s `question`")
        quote = reader.text(entry["quote"][1], f"verdict {n}'s `quote`")
        verdict = reader.text(entry["verdict"][1], f"verdict {n}'s `verdict`")
        if verdict not in VERDICTS:
            raise reader.fail(entry["verdict"][1], f"verdict {n} says `{shorter(verdict)}`; write `correct` or `wrong`")
        key = (question, quote)
        if key in found.verdicts:
            raise reader.fail(node, f"a second verdict on the quote {shown(quote)} of {shown(question)} (`{verdict}`; "
                              f"line {found.verdict_lines[key]} says `{found.verdicts[key].value}`); keep one of "
                              "the two")
        found.verdicts[key] = VERDICTS[verdict]
        found.verdict_lines[key] = node.start_mark.line + 1
    for n, node in enumerate(_items(reader, fields, "labels"), start=1):
        entry = reader.mapping(node, f"label {n}", ("id", "question", "expect"))
        missing = [key for key in ("question", "expect") if key not in entry]
        if missing:
            raise reader.fail(node, f"label {n} has no `{missing[0]}:`")
        expect = reader.text(entry["expect"][1], f"label {n}'s `expect`")
        if expect not in EXPECTS:
            raise reader.fail(entry["expect"][1], f"label {n} says `expect: {shorter(expect)}`; write `answer` or "
                              "`no-answer`")
        question = reader.text(entry["question"][1], f"label {n}'s `question`")
        if question in found.labels:
            raise reader.fail(node, f"a second label for {shown(question)} (`{expect}`; line "
                              f"{found.label_lines[question]} says `{found.labels[question]}`); keep one of the two")
        found.labels[question] = expect
        found.label_lines[question] = node.start_mark.line + 1
    return found


def save_verdicts(path: Path, judgements: Judgements, questions: QuestionSet) -> None:
    """Write every label and verdict, sorted, atomically (a reviewer's answers are never half-saved)."""
    ids = {q.question: q.id for q in questions.questions}
    document: dict[str, list[dict[str, str]]] = {}
    if judgements.labels:
        document["labels"] = [{"id": ids.get(text, ""), "question": text, "expect": expect}
                              for text, expect in sorted(judgements.labels.items())]
    document["verdicts"] = [{"id": ids.get(text, ""), "question": text, "quote": quote, "verdict": outcome.value}
                            for (text, quote), outcome in sorted(judgements.verdicts.items())]
    body = yaml.dump(document, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=1000)
    try:
        write_atomic(path, (HEADER + body).encode(), SHARED_FILE)
    except OSError as error:
        raise QuestionFileError(f"{path}: cannot save the review ({error.strerror or error})") from None


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on the verdicts file `path` (on `NAME.lock` beside it: the file itself is
    replaced by each save), waiting for another review's save to finish."""
    lock = path.with_name(f"{path.name}.lock")
    try:
        # a link at the lock's name (a commit can plant one) is refused (ELOOP), never followed
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, SHARED_FILE)
    except OSError as error:
        raise QuestionFileError(f"{path}: cannot save the review ({error.strerror or error}: {lock})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def merge_save(path: Path, new: Judgements, questions: QuestionSet) -> Judgements:
    """Add `new` to the verdicts file as it is on disk now, under its lock, and return what the file then
    holds. Another review may have saved since this one read the file: its answers are kept, and a different
    answer to the same quote, or a different label for the same question, is a `QuestionFileError` naming
    both answers and the file (nothing of `new` is saved then)."""
    with _locked(path):
        merged = load_verdicts(path)
        for key, outcome in new.verdicts.items():
            saved = merged.verdicts.get(key)
            if saved is not None and saved is not outcome:
                raise QuestionFileError(
                    f"{path}: another review saved `{saved.value}` for the quote {shown(key[1])} of {shown(key[0])} "
                    f"(line {merged.verdict_lines[key]}), and this one answers `{outcome.value}`; decide which is "
                    "right, edit the file, and run --review again")
            label = merged.labels.get(key[0])
            if label == "no-answer":
                raise QuestionFileError(
                    f"{path}: another review labelled {shown(key[0])} `no-answer` (line {merged.label_lines[key[0]]}), "
                    f"and this one judges its quote {shown(key[1])} `{outcome.value}`; decide which is right, edit the "
                    "file, and run --review again")
        for text, expect in new.labels.items():
            label = merged.labels.get(text)
            if label is not None and label != expect:
                raise QuestionFileError(
                    f"{path}: another review labelled {shown(text)} `{label}` (line {merged.label_lines[text]}), and "
                    f"this one answers `{expect}`; decide which is right, edit the file, and run --review again")
        merged.verdicts.update(new.verdicts)
        merged.labels.update(new.labels)
        save_verdicts(path, merged, questions)
    return merged


def _line_of(questions: QuestionSet, question: Question) -> int:
    """The line of the question file `question` starts on (its own `line`, or the file's when it has none:
    a question set rebuilt from a run record), 0 when the file no longer holds it."""
    if question.line:
        return question.line
    try:
        reloaded = load_questions(questions.path).by_text().get(question.question)
    except QuestionFileError:
        return 0
    return reloaded.line if reloaded is not None else 0


def _cited(questions: QuestionSet, question: Question) -> str:
    line = _line_of(questions, question)
    return f"{questions.path}, line {line}" if line else str(questions.path)


def _unknown(path: Path, line: int | None, text: str, questions: QuestionSet) -> QuestionFileError:
    hint = difflib.get_close_matches(text, list(questions.by_text()), n=1)
    advice = f"; did you mean {shown(hint[0])}?" if hint else "; correct the text or remove the entry"
    where = f"{path}, line {line}" if line else str(path)
    return QuestionFileError(f"{where}: {shown(text)} is not a question of {questions.path}{advice}")


def with_verdicts(questions: QuestionSet, judgements: Judgements) -> QuestionSet:
    """The question set with each question's label (when it has none) and verdicts attached. An error names
    the verdicts file's line (and the question file's) for a label that contradicts the question file, a
    verdict on a question that expects no answer, and a label or verdict whose question text the question
    file does not hold."""
    if not judgements:
        return questions
    path = verdicts_path(questions.path)
    by_text = questions.by_text()
    for text in judgements.labels:
        if text not in by_text:
            raise _unknown(path, judgements.label_lines.get(text), text, questions)
    by_question: dict[str, dict[str, Outcome]] = {}
    for (text, quote), outcome in judgements.verdicts.items():
        if text not in by_text:
            raise _unknown(path, judgements.verdict_lines.get((text, quote)), text, questions)
        by_question.setdefault(text, {})[quote] = outcome
    attached = []
    for q in questions.questions:
        label = judgements.labels.get(q.question)
        if label is not None and q.expect is not None and label != q.expect:
            line = judgements.label_lines.get(q.question)
            raise QuestionFileError(
                f"{path}{f', line {line}' if line else ''}: labels {shown(q.id)} `{label}` but {_cited(questions, q)} "
                f"says `{q.expect}`; remove one of the two")
        if label is not None and q.expect is None:
            q = dataclasses.replace(q, expect=label)
        if q.question in by_question:
            if q.expect == "no-answer":
                quote = next(iter(by_question[q.question]))
                line = judgements.verdict_lines.get((q.question, quote))
                label_line = judgements.label_lines.get(q.question)
                said = f"labelled so on line {label_line}" if label is not None and label_line else _cited(questions, q)
                raise QuestionFileError(
                    f"{path}{f', line {line}' if line else ''}: a verdict on a quote of {shown(q.question)}, which "
                    f"expects no answer ({said}): every quote on it is wrong; remove the verdict, or label the "
                    "question `answer` if it has one")
            q = dataclasses.replace(q, verdicts=by_question[q.question])
        attached.append(q)
    return dataclasses.replace(questions, questions=tuple(attached))
