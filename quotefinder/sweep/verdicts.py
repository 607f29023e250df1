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
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from yaml.nodes import Node, ScalarNode, SequenceNode

from ..errors import QuestionFileError
from ..questions import EXPECTS, Outcome, QuestionSet, Reader, compose
from ..storage import SHARED_FILE, write_atomic
from ..textsafe import hidden

VERDICTS = {"correct": Outcome.CORRECT, "wrong": Outcome.WRONG}
Verdicts = dict[tuple[str, str], Outcome]  # (question text, quote) -> verdict
HEADER = ("# Human labels of questions and verdicts on quotes that no accept pattern judges.\n"
          "# Written by `sweep.py RUN --review`; edit freely. A verdict overrides the accept patterns.\n")


@dataclass
class Judgements:
    """A verdicts file: labels by question text, verdicts by (question text, quote)."""

    verdicts: Verdicts = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)  # question text -> expect

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
    """The labels and verdicts in `path` (none when it does not exist); `QuestionFileError` names the line."""
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
            raise reader.fail(entry["verdict"][1], f"verdict {n} says `{verdict}`; write `correct` or `wrong`")
        found.verdicts[(question, quote)] = VERDICTS[verdict]
    for n, node in enumerate(_items(reader, fields, "labels"), start=1):
        entry = reader.mapping(node, f"label {n}", ("id", "question", "expect"))
        missing = [key for key in ("question", "expect") if key not in entry]
        if missing:
            raise reader.fail(node, f"label {n} has no `{missing[0]}:`")
        expect = reader.text(entry["expect"][1], f"label {n}'s `expect`")
        if expect not in EXPECTS:
            raise reader.fail(entry["expect"][1], f"label {n} says `expect: {expect}`; write `answer` or `no-answer`")
        found.labels[reader.text(entry["question"][1], f"label {n}'s `question`")] = expect
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


def with_verdicts(questions: QuestionSet, judgements: Judgements) -> QuestionSet:
    """The question set with each question's label (when it has none) and verdicts attached. A label that
    contradicts the question file is an error naming both."""
    if not judgements:
        return questions
    by_question: dict[str, dict[str, Outcome]] = {}
    for (text, quote), outcome in judgements.verdicts.items():
        by_question.setdefault(text, {})[quote] = outcome
    attached = []
    for q in questions.questions:
        label = judgements.labels.get(q.question)
        if label is not None and q.expect is not None and label != q.expect:
            raise QuestionFileError(
                f"{verdicts_path(questions.path)}: labels {q.id!r} `{label}` but {questions.path} (line {q.line}) says "
                f"`{q.expect}`; remove one of the two")
        if label is not None and q.expect is None:
            q = dataclasses.replace(q, expect=label)
        if q.question in by_question:
            q = dataclasses.replace(q, verdicts=by_question[q.question])
        attached.append(q)
    return dataclasses.replace(questions, questions=tuple(attached))
