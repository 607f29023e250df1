"""Question sets: loading `questions/*.yaml` strictly, and judging a quote against a question.

    questions:
      - id: bones              # optional; derived from the text when absent; unique
        question: How many bones are in the adult human body?
        expect: answer         # answer | no-answer; leave it out for an unlabelled question
        accept: ['\\b206\\b']    # optional regexes (case-insensitive) that a correct quote matches

Every problem is reported with the file, the line and the question, and what to write instead; an
unknown key is an error, so a typo cannot pass silently. `parse_questions` checks text the same way
before it is written (the importer's), and no input, however malformed or deeply nested, raises anything
but `QuestionFileError`. An unlabelled question is recorded and swept
like the others and counted apart (`Outcome.UNLABELLED`); `quotefinder import`
writes question files from labelled data sets (`importer`).
"""

from __future__ import annotations

import bisect
import difflib
import errno
import functools
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..core import boundedyaml
from ..core.errors import QuestionFileError
from ..core.storage import read_file
from ..core.textsafe import is_unicode, shown

MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_QUESTION_CHARS = 2000
EXPECTS = ("answer", "no-answer")
KEYS = ("id", "question", "expect", "accept")
_STR = "tag:yaml.org,2002:str"
_Loader = boundedyaml.BoundedLoader  # named in a kept parse's digest (`sweep.parsed`)


class Outcome(StrEnum):
    """What happened to one question at one pair of cutoffs."""

    CORRECT = "correct"  # a quote matching an accept pattern on an answer question
    WRONG = "wrong"  # a quote on a no-answer question, or one matching no accept pattern
    MISSED = "missed"  # no quote on an answer question
    NO_ANSWER = "no_answer"  # no quote on a no-answer question
    UNJUDGED = "unjudged"  # a quote on an answer question without accept patterns: needs a human
    UNLABELLED = "unlabelled"  # any decision on a question without `expect`: nobody has said what is right

    @property
    def label(self) -> str:
        """The outcome as people read it: 'no-answer' (the value, 'no_answer', names CSV columns)."""
        return self.value.replace("_", "-")


OUTCOMES = tuple(Outcome)
UNKNOWN = (Outcome.UNJUDGED, Outcome.UNLABELLED)  # a quote whose rightness nobody has said yet


def labels_allowed(expect: object, accept: object) -> bool:
    """Whether a question read back from a file this project wrote (run.json's copy, a kept parse) has what a
    question file allows (`Reader.question`): `expect` one of `EXPECTS` or None, `accept` a list of text, and
    patterns only where an answer is expected."""
    return (expect is None or expect in EXPECTS) and isinstance(accept, list) \
        and all(isinstance(pattern, str) for pattern in accept) and (not accept or expect == "answer")


@functools.cache
def compiled(pattern: str) -> re.Pattern[str]:
    """An accept pattern, compiled case-insensitive once per process: run.json's copy of a question and the
    question file's both hold it, and `re`'s own cache keeps only 512 (a 10,000-question set has 28,000)."""
    return re.compile(pattern, re.IGNORECASE)


@dataclass(frozen=True)
class Question:
    """One labelled question. `line` is where it starts in its file."""

    id: str
    question: str
    expect: str | None  # "answer", "no-answer", or None: unlabelled
    accept: tuple[str, ...] = ()
    line: int = 0
    verdicts: Mapping[str, Outcome] = field(default_factory=dict, compare=False, repr=False)  # a human's, by quote
    patterns: tuple[re.Pattern[str], ...] = field(default=(), init=False, compare=False, repr=False)
    _memo: dict[str, Outcome] = field(default_factory=dict, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        """Compile the accept patterns once (case-insensitive); `re.error` for an invalid one."""
        object.__setattr__(self, "patterns", tuple(compiled(p) for p in self.accept))

    def settled(self) -> tuple[Outcome, Outcome] | None:
        """The outcome of the no-answer line and of any quote, when the question's label alone decides them (a
        question without `expect`; a no-answer question, where every quote is wrong, broken or not); None on an
        answer question, whose quotes are judged one by one (`judge_quote`)."""
        if self.expect is None:
            return Outcome.UNLABELLED, Outcome.UNLABELLED
        if self.expect == "no-answer":
            return Outcome.NO_ANSWER, Outcome.WRONG
        return None

    def judge(self, quote: str | None) -> Outcome:
        """The outcome of quoting `quote` (None: the no-answer line) for this question.

        On an answer question a human verdict on that exact sentence decides; then the accept
        patterns; with neither, the quote is unjudged. Any quote on a no-answer question is wrong. A
        question without a label is unlabelled, quoted or not.
        """
        if self.expect is None:
            return Outcome.UNLABELLED
        if quote is None:
            return Outcome.MISSED if self.expect == "answer" else Outcome.NO_ANSWER
        if self.expect == "no-answer":
            return Outcome.WRONG
        if quote in self.verdicts:
            return self.verdicts[quote]
        if not self.accept:
            return Outcome.UNJUDGED
        verdict = self._memo.get(quote)
        if verdict is None:  # a sweep judges the same few sentences many times; the regexes run once each
            matched = any(pattern.search(quote) for pattern in self.patterns)
            verdict = self._memo[quote] = Outcome.CORRECT if matched else Outcome.WRONG
        return verdict

    def judge_quote(self, quote: Any) -> Outcome:
        """The outcome of a `pipelines.Quote` (None: the no-answer line): one of several passages
        (`Quote.passages`) is judged on them (`judge_passages`), any other on its text (`judge`); a broken one
        (`Quote.broken`: it cites a source it was not given) is wrong on any labelled question."""
        if quote is not None and quote.broken and self.expect is not None:
            return Outcome.WRONG
        if quote is not None and quote.passages:
            return self.judge_passages(quote.text, quote.passages)
        return self.judge(quote.text if quote is not None else None)

    def judge_passages(self, whole: str, passages: Sequence[str]) -> Outcome:
        """The outcome of quoting an answer made of several verbatim `passages` (`whole`: the answer as shown).
        A human verdict on the whole answer decides; otherwise it is correct when one passage is (by its own
        verdict or a pattern), unjudged when a passage nobody has judged remains, and wrong when every passage
        is wrong. A no-answer or unlabelled question judges it as `judge` would."""
        if self.expect != "answer" or whole in self.verdicts:
            return self.judge(whole)
        outcomes = {self.judge(text) for text in passages}
        for outcome in (Outcome.CORRECT, Outcome.UNJUDGED):
            if outcome in outcomes:
                return outcome
        return Outcome.WRONG

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled as its fields (for a sweep's background parse): unpickling compiles the accept patterns
        through `compiled`'s cache, where pickled `re.Pattern`s would each be compiled again."""
        return (type(self), (self.id, self.question, self.expect, self.accept, self.line, dict(self.verdicts)))

    def as_record(self) -> dict[str, object]:
        return {"id": self.id, "question": self.question, "expect": self.expect, "accept": list(self.accept)}


@dataclass(frozen=True)
class QuestionSet:
    """A loaded question file: its path, the SHA-256 of its bytes, and its questions in file order."""

    path: Path
    sha256: str
    questions: tuple[Question, ...]

    def by_text(self) -> dict[str, Question]:
        return {q.question: q for q in self.questions}


def derive_id(text: str) -> str:
    """A readable id from a question's words: 'How deep is it?' -> 'how-deep-is-it'."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    slug = ""
    for word in words:
        if len(slug) + len(word) + 1 > 48:
            break
        slug = f"{slug}-{word}" if slug else word
    return slug or hashlib.sha256(text.encode()).hexdigest()[:12]


class Reader:
    """Walks composed YAML nodes so every error can name its file and line (questions and verdicts)."""

    def __init__(self, path: Path, origins: Sequence[str] | None = None) -> None:
        """`origins`, when given, names where each question of the list came from ("line 7" of a source the
        text was made from, say): errors then name the origin instead of a line of `path`."""
        self.path = path
        self.origins = origins
        self._starts: list[int] = []  # the line (0-based) each question starts on, once `questions` has them

    def where(self, node: Node) -> str:
        """'line 7': where `node` is, or the origin of the question holding it."""
        if self.origins is not None and self._starts:
            index = bisect.bisect_right(self._starts, node.start_mark.line) - 1
            if 0 <= index < len(self.origins):
                return self.origins[index]
        return f"line {node.start_mark.line + 1}"

    def fail(self, node: Node | None, problem: str) -> QuestionFileError:
        where = f"{self.path}, {self.where(node)}" if node is not None else str(self.path)
        return QuestionFileError(f"{where}: {problem}")

    def text(self, node: Node, what: str) -> str:
        if not isinstance(node, ScalarNode) or node.tag != _STR:
            raise self.fail(node, f"{what} must be text; put it in quotes if YAML reads it as something else")
        return node.value

    def mapping(self, node: Node, what: str, allowed: tuple[str, ...]) -> dict[str, tuple[Node, Node]]:
        if not isinstance(node, MappingNode):
            raise self.fail(node, f"{what} must be a mapping of {', '.join(allowed)}")
        found: dict[str, tuple[Node, Node]] = {}
        for key_node, value_node in node.value:
            key = self.text(key_node, "a key")
            if key not in allowed:
                hint = difflib.get_close_matches(key, allowed, n=1)
                advice = f"did you mean `{hint[0]}`?" if hint else f"the keys are {', '.join(allowed)}"
                raise self.fail(key_node, f"unknown key `{key}` in {what}; {advice}")
            if key in found:
                raise self.fail(key_node, f"`{key}` appears twice in {what}")
            found[key] = (key_node, value_node)
        return found

    def question(self, node: Node, number: int) -> Question:
        fields = self.mapping(node, f"question {number}", KEYS)
        if "question" not in fields:
            raise self.fail(node, f"question {number} has no `question:` text")
        text = self.text(fields["question"][1], f"question {number}'s `question`").strip()
        if not text:
            raise self.fail(fields["question"][1], f"question {number}'s `question` is empty")
        if not is_unicode(text):
            raise self.fail(fields["question"][1], f"question {number} holds an escape that is not valid Unicode")
        if len(text) > MAX_QUESTION_CHARS:
            raise self.fail(fields["question"][1], f"question {number} is {len(text):,} characters long; a search "
                            f"query of more than {MAX_QUESTION_CHARS:,} is surely a pasting accident")
        label = f"question {number} ({shown(text)})"
        qid = self.text(fields["id"][1], f"{label}'s `id`").strip() if "id" in fields else derive_id(text)
        if not qid:
            raise self.fail(fields["id"][1], f"{label} has an empty `id`")
        if not is_unicode(qid):
            raise self.fail(fields["id"][1], f"{label}'s `id` holds an escape that is not valid Unicode")
        expect = None  # unlabelled until somebody says
        if "expect" in fields:
            expect = self.text(fields["expect"][1], f"{label}'s `expect`")
            if expect not in EXPECTS:
                raise self.fail(fields["expect"][1], f"{label} has `expect: {shorter(expect)}`; write `answer` or "
                                "`no-answer`, or leave `expect` out for an unlabelled question")
        accept = self.patterns(fields["accept"][1], label) if "accept" in fields else ()
        if accept and expect == "no-answer":
            raise self.fail(fields["accept"][1], f"{label} expects no answer, so `accept` patterns can never apply")
        if accept and expect is None:
            raise self.fail(fields["accept"][1], f"{label} has `accept` patterns but no `expect:`; write "
                            "`expect: answer`")
        try:
            return Question(qid, text, expect, accept, node.start_mark.line + 1)
        except (re.error, OverflowError, RecursionError):  # also a huge repeat count, groups nested thousands deep
            for item, pattern in zip(fields["accept"][1].value, accept, strict=True):
                why = _invalid(pattern)
                if why:
                    raise self.fail(item, f"{label} has an invalid regex {shorter(pattern)!r}: {why}") from None
            raise

    def questions(self, items: SequenceNode) -> list[Question]:
        """Every question of the list, checked one by one and then for ids and texts used twice."""
        self._starts = [node.start_mark.line for node in items.value]
        loaded = [self.question(node, n) for n, node in enumerate(items.value, start=1)]
        for attribute in ("id", "question"):
            first: dict[str, int] = {}
            for index, q in enumerate(loaded):
                value = getattr(q, attribute)
                if value in first:
                    raise self.fail(items.value[index], f"duplicate {attribute} {shown(value)}, first used on "
                                    f"{self.where(items.value[first[value]])}; every {attribute} must be unique")
                first[value] = index
        return loaded

    def patterns(self, node: Node, label: str) -> tuple[str, ...]:
        """The `accept` list as text; `Question` compiles it, and `question` reports a bad regex."""
        if not isinstance(node, SequenceNode):
            raise self.fail(node, f"{label}'s `accept` must be a list of regexes, e.g. accept: ['\\b206\\b']")
        return tuple(self.text(item, f"an `accept` pattern of {label}") for item in node.value)


def _invalid(pattern: str) -> str:
    """Why `pattern` does not compile ('' when it does)."""
    try:
        re.compile(pattern, re.IGNORECASE)
    except (re.error, OverflowError) as error:
        return str(error)
    except RecursionError:
        return "groups nested too deeply"
    return ""


def shorter(text: str, at_most: int = 80) -> str:
    return text if len(text) <= at_most else text[:at_most] + "..."


def decode(path: Path) -> tuple[bytes, str]:
    """A text file's bytes and its UTF-8 text; `QuestionFileError` naming the file (and line) otherwise."""
    try:
        raw = read_file(path, MAX_FILE_BYTES)
    except FileNotFoundError:
        raise QuestionFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise QuestionFileError(f"{path}: is a directory, not a questions file") from None
    except OSError as error:
        if error.errno == errno.EFBIG:
            raise QuestionFileError(f"{path}: larger than {MAX_FILE_BYTES // 2**20} MiB; split the question set"
                                    ) from None
        raise QuestionFileError(f"{path}: cannot be read ({error.strerror})") from None
    try:
        return raw, raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise QuestionFileError(f"{path}, line {line}: not UTF-8 text; save the file as UTF-8") from None


def compose(path: Path) -> tuple[bytes, Node | None]:
    """The file's bytes and its YAML node tree (None when empty); `QuestionFileError` otherwise."""
    raw, text = decode(path)
    return raw, compose_text(text, path)


def compose_text(text: str, path: Path) -> Node | None:
    """YAML text's node tree (None when empty); `QuestionFileError` naming `path` and the line otherwise, also
    for what would take unbounded effort (`boundedyaml.compose`: explicit tags, aliases beyond a budget, huge
    numbers, deep nesting)."""
    return boundedyaml.compose(text, path, QuestionFileError)


def top_list(reader: Reader, root: Node, name: str, example: str) -> SequenceNode:
    """The file's one top-level key `name`, a non-empty list."""
    fields = reader.mapping(root, "the file", (name,))
    if name not in fields:
        raise reader.fail(root, f"has no `{name}:` list")
    items = fields[name][1]
    if not isinstance(items, SequenceNode):
        raise reader.fail(items, f"`{name}:` must be a list, each item starting with `- {example}:`")
    if not items.value:
        raise reader.fail(items, f"`{name}:` is empty")
    return items


def load_questions(path: Path | str) -> QuestionSet:
    """Read and check a questions file; `QuestionFileError` names the line and the fix."""
    path = Path(path)
    raw, text = decode(path)
    return parse_questions(text, path, raw)


def parse_questions(text: str, path: Path, raw: bytes | None = None, origins: Sequence[str] | None = None
                    ) -> QuestionSet:
    """Check a questions file's text exactly as `load_questions` checks the file (`raw`, its bytes, for the
    SHA-256; else the text's UTF-8). `origins` names where each question came from, for errors about text
    not yet written (the importer's)."""
    root = compose_text(text, path)
    if root is None:
        raise QuestionFileError(f"{path}: is empty; it needs a `questions:` list (see questions/ten.yaml)")
    reader = Reader(path, origins)
    items = top_list(reader, root, "questions", "question")
    loaded = reader.questions(items)
    digest = hashlib.sha256(raw if raw is not None else text.encode()).hexdigest()
    return QuestionSet(path, digest, tuple(loaded))
