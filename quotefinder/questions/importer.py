"""Question sets from labelled data: SQuAD 2.0 JSON, JSON Lines or CSV, written as a questions YAML file.

Formats, by the source's extension:

- `.json`: SQuAD 2.0's layout, `data[].paragraphs[].qas[]`, each with `id`, `question`, `is_impossible`
  and `answers[].text`. An impossible question expects no answer; the others expect an answer, and
  their gold answers become `accept` patterns.
- `.jsonl`: one JSON object per line: `question` (required), `id`, `expect` (`answer`, `no-answer`, or
  absent for unlabelled) and `answers` (a list of texts, or one text).
- `.csv`: a header row, then one question per row, with the same columns: `question` (required),
  `id`, `expect`, `answers`. Several answers go in one cell separated by `|` (write `\\|` for a `|`
  inside an answer).

Where `expect` is absent, gold answers make a question answerable and a question with neither is
unlabelled. Each gold answer becomes an `accept` pattern that matches that answer wherever it is
quoted (`accept_pattern`). Questions with the same text are merged (their answers pooled; conflicting
labels leave it unlabelled). Ids come from the source where it has them (without the spaces around
them; a blank one is an error), else from the question's words; `sample` draws N questions stratified
by label, seeded. The file is validated first and written last: its text goes through the loader's own
checks (`parse_questions`) before anything is written, so a source the loader would refuse leaves no file
behind and never replaces one.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import math
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..core.errors import InputError, QuestionFileError
from ..core.storage import SHARED_FILE, write_atomic
from ..core.textsafe import is_unicode
from . import EXPECTS, MAX_QUESTION_CHARS, decode, derive_id, parse_questions

COLUMNS = ("question", "id", "expect", "answers")
SQUAD_ATTRIBUTION = (
    "Source: SQuAD 2.0 (Rajpurkar, Jia and Liang, \"Know What You Don't Know: Unanswerable Questions for\n"
    "SQuAD\", ACL 2018, https://rajpurkar.github.io/SQuAD-explorer/), licensed CC BY-SA 4.0. This file\n"
    "derives from it and is shared under the same license."
)
# A number whose digits a page may group with commas or not: 10,935 and 10935, 2,500,000 and 2500000.
_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{4,}(?:\.\d+)?")


@dataclass
class Imported:
    """One question as the source gave it: where it was, its id, text, label and gold answers."""

    where: str  # "line 7" or "record data[0].paragraphs[1].qas[2]", for messages
    id: str | None
    question: str
    expect: str | None
    answers: list[str] = field(default_factory=list)


@dataclass
class ImportedSet:
    """The questions ready to write, and what the import did to get them."""

    questions: list[Imported]
    source_format: str  # "SQuAD 2.0 JSON", "JSON Lines", "CSV"
    read: int  # questions read from the source
    merged: int = 0  # questions folded into an earlier one with the same text
    conflicts: list[str] = field(default_factory=list)  # merged questions whose labels disagreed
    sampled_from: int | None = None  # questions before sampling

    @property
    def wordless(self) -> int:
        """Gold answers with no letter or digit (a lone '.'): they would match any quote, so they make no
        pattern."""
        return sum(1 for q in self.questions for a in q.answers if not re.search(r"\w", a))

    def counts(self) -> tuple[int, int, int]:
        """(answer, no-answer, unlabelled)."""
        answer = sum(1 for q in self.questions if q.expect == "answer")
        none = sum(1 for q in self.questions if q.expect == "no-answer")
        return answer, none, len(self.questions) - answer - none


def _thousands(number: str) -> str:
    """A pattern for a number with or without its thousands separators: '10,935' -> '10,?935'."""
    whole, _, fraction = number.replace(",", "").partition(".")
    groups: list[str] = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    return ",?".join(groups) + (r"\." + fraction if fraction else "")


def _literal(segment: str) -> str:
    """Text matched literally, any run of whitespace standing for any run of whitespace."""
    return r"\s+".join(re.escape(part) for part in segment.split(" "))


def accept_pattern(answer: str) -> str:
    """A pattern (used case-insensitively) that matches `answer` in a quote: its text escaped literally,
    whitespace flexible, word boundaries where it starts or ends with a word character, and every number
    with or without thousands separators."""
    text = " ".join(answer.split())
    pieces, position = [], 0
    for number in _NUMBER.finditer(text):
        pieces += [_literal(text[position : number.start()]), _thousands(number.group())]
        position = number.end()
    pieces.append(_literal(text[position:]))
    body = "".join(pieces)
    start = r"\b" if re.match(r"\w", text) else ""
    end = r"\b" if re.search(r"\w$", text) else ""
    return f"{start}{body}{end}"


# ---- reading ------------------------------------------------------------------------------------------


def _fail(path: Path, where: str, problem: str) -> QuestionFileError:
    return QuestionFileError(f"{path}, {where}: {problem}")


def _answers_of(path: Path, where: str, value: Any) -> list[str]:
    """Gold answers given as a list of texts (or of {"text": ...}), or one text."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        raise _fail(path, where, "`answers` must be a list of answer texts")
    found = []
    for item in value:
        text = item.get("text") if isinstance(item, dict) else item
        if not isinstance(text, str):
            raise _fail(path, where, f"an answer is {item!r}; give each answer as text (or {{\"text\": ...}})")
        found.append(text)
    return found


def _expect_of(path: Path, where: str, value: Any) -> str | None:
    if value is None or value == "":
        return None
    if value not in EXPECTS:
        raise _fail(path, where, f"`expect` is {value!r}; write `answer` or `no-answer`, or leave it empty "
                                 "for an unlabelled question")
    return str(value)


def _id_of(path: Path, where: str, value: Any) -> str | None:
    """The source's id without the spaces around it (the loader strips them too, so ids differing only there
    are the same id); None when there is none. A blank one is an error: it looks like an id and is none."""
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise _fail(path, where, f"`id` is {value!r}; give it as text")
    qid = str(value).strip()
    if not qid:
        raise _fail(path, where, "`id` is blank; give the question a real id or leave `id` out")
    return qid


def _record(path: Path, where: str, fields: dict[str, Any]) -> Imported:
    """One question from a JSON Lines object or a CSV row."""
    question = fields.get("question")
    if not isinstance(question, str) or not question.strip():
        raise _fail(path, where, "has no `question` text")
    qid = _id_of(path, where, fields.get("id"))
    expect = _expect_of(path, where, fields.get("expect"))
    answers = _answers_of(path, where, fields.get("answers"))
    if expect is None and answers:
        expect = "answer"  # gold answers say the question has one
    return Imported(where, qid, question, expect, answers)


def _json(path: Path, text: str, where: str | None = None, invalid: str = "not valid JSON") -> Any:
    """Parsed JSON; `QuestionFileError` naming `where` (a JSON Lines line; else the decoder's line, or just the
    file) for invalid JSON, for JSON nested too deeply to parse (the decoder's RecursionError) and for a
    number too long to convert."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise QuestionFileError(f"{path}, {where or f'line {error.lineno}'}: {invalid} ({error.msg})") from None
    except RecursionError:
        problem = "lists or objects nested too deeply to read (a question needs a few levels)"
    except ValueError as error:  # "Exceeds the limit (4300 digits) for integer string conversion: ..."
        problem = f"holds a number too long to read ({str(error).split(':')[0]})"
    raise QuestionFileError(f"{path}, {where}: {problem}" if where else f"{path}: {problem}")


def _squad(path: Path, text: str) -> Iterator[Imported]:
    data = _json(path, text)
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise QuestionFileError(f"{path}: not SQuAD 2.0's layout (no `data` list); a .json source must be "
                                "SQuAD 2.0 JSON, or use .jsonl or .csv with one question per line or row")
    for a, article in enumerate(data["data"]):
        paragraphs = article.get("paragraphs") if isinstance(article, dict) else None
        if not isinstance(paragraphs, list):
            raise _fail(path, f"record data[{a}]", "has no `paragraphs` list")
        for p, paragraph in enumerate(paragraphs):
            qas = paragraph.get("qas") if isinstance(paragraph, dict) else None
            if not isinstance(qas, list):
                raise _fail(path, f"record data[{a}].paragraphs[{p}]", "has no `qas` list")
            for q, qa in enumerate(qas):
                where = f"record data[{a}].paragraphs[{p}].qas[{q}]"
                if not isinstance(qa, dict) or not isinstance(qa.get("question"), str):
                    raise _fail(path, where, "has no `question` text")
                impossible = qa.get("is_impossible", False)
                if not isinstance(impossible, bool):
                    raise _fail(path, where, f"`is_impossible` is {impossible!r}, not true or false")
                answers = [] if impossible else _answers_of(path, where, qa.get("answers"))
                qid = qa.get("id")
                qid = _id_of(path, where, qid) if isinstance(qid, str | int) and not isinstance(qid, bool) else None
                yield Imported(where, qid, qa["question"], "no-answer" if impossible else "answer", answers)


def _jsonl(path: Path, text: str) -> Iterator[Imported]:
    # Lines end at \n only: str.splitlines would also split at U+2028 or U+0085, which a JSON string may hold.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        fields = _json(path, line, f"line {number}", "not a JSON object")
        if not isinstance(fields, dict):
            raise _fail(path, f"line {number}", "must be a JSON object with a `question`")
        unknown = sorted(set(fields) - set(COLUMNS))
        if unknown:
            raise _fail(path, f"line {number}", _unknown_words(unknown[0]))
        yield _record(path, f"line {number}", fields)


def _unknown_words(name: str) -> str:
    hint = difflib.get_close_matches(name.lower(), COLUMNS, n=1)
    advice = f"did you mean `{hint[0]}`?" if hint else f"the fields are {', '.join(COLUMNS)}"
    return f"unknown field `{name}`; {advice}"


def _split_answers(cell: str) -> list[str]:
    """'a | b \\| c' -> ['a', 'b | c']: answers separated by |, a literal | written \\|."""
    parts, current, escaped = [], "", False
    for char in cell:
        if escaped:
            current += char if char == "|" else "\\" + char
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "|":
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current + ("\\" if escaped else ""))
    return [part.strip() for part in parts if part.strip()]


def _csv(path: Path, text: str) -> Iterator[Imported]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as error:  # a header cell larger than csv's field limit, say
        raise _fail(path, "line 1", f"not valid CSV ({error})") from None
    names = [name.strip().lower() for name in header]
    for name in names:
        if name not in COLUMNS:
            raise _fail(path, "line 1", f"{_unknown_words(name)} (the header names the columns)")
    if "question" not in names:
        raise _fail(path, "line 1", "the header has no `question` column")
    try:
        for row in reader:
            where = f"line {reader.line_num}"
            if not any(cell.strip() for cell in row):
                continue
            if len(row) > len(names):
                raise _fail(path, where, f"has {len(row)} cells but the header names {len(names)} columns; "
                                         "quote a cell that holds a comma")
            fields: dict[str, Any] = dict(zip(names, (cell.strip() for cell in row), strict=False))
            fields["answers"] = _split_answers(fields.get("answers", ""))
            yield _record(path, where, fields)
    except csv.Error as error:
        raise _fail(path, f"line {reader.line_num}", f"not valid CSV ({error})") from None


READERS = {".json": ("SQuAD 2.0 JSON", _squad), ".jsonl": ("JSON Lines", _jsonl), ".csv": ("CSV", _csv)}


def read_source(path: Path | str) -> ImportedSet:
    """Every question of a source file, checked, with duplicates merged (see the module docstring)."""
    path = Path(path)
    kind = READERS.get(path.suffix.lower())
    if kind is None:
        raise QuestionFileError(f"{path}: unknown format {path.suffix or '(no extension)'!r}; give a .json "
                                "(SQuAD 2.0), .jsonl or .csv file")
    _, text = decode(path)
    name, reader = kind
    found = list(reader(path, text))
    if not found:
        raise QuestionFileError(f"{path}: holds no questions")
    for item in found:
        _check_text(path, item)
    return _merged(found, name, path)


def _check_text(path: Path, item: Imported) -> None:
    item.question = " ".join(item.question.split())
    if not item.question:
        raise _fail(path, item.where, "has no `question` text")
    texts = [item.question, *item.answers, *([item.id] if item.id else [])]
    if not all(is_unicode(text) for text in texts):
        raise _fail(path, item.where, "holds text that is not valid Unicode (a lone surrogate)")
    if len(item.question) > MAX_QUESTION_CHARS:
        raise _fail(path, item.where, f"the question is {len(item.question):,} characters long; a question file "
                                      f"allows {MAX_QUESTION_CHARS:,}")


def _merged(found: list[Imported], name: str, path: Path) -> ImportedSet:
    """Questions with the same text become one: answers pooled, the first id kept, the label kept when
    every copy that has one agrees; labels that disagree leave the question unlabelled (nobody can say
    which label the search results will deserve)."""
    by_text: dict[str, Imported] = {}
    labels: dict[str, set[str]] = {}
    result = ImportedSet([], name, len(found))
    ids: dict[str, Imported] = {}
    for item in found:
        first = by_text.get(item.question)
        if item.expect is not None:
            labels.setdefault(item.question, set()).add(item.expect)
        if first is None:
            if item.id is not None and item.id in ids:
                raise _fail(path, item.where, f"id {item.id!r} was already used ({ids[item.id].where}) for another "
                                              "question; ids must be unique")
            if item.id is not None:
                ids[item.id] = item
            by_text[item.question] = item
            result.questions.append(item)
            continue
        result.merged += 1
        first.answers += [a for a in item.answers if a not in first.answers]
    for question in result.questions:
        seen = labels.get(question.question, set())
        question.expect = next(iter(seen)) if len(seen) == 1 else None
        if len(seen) > 1:
            result.conflicts.append(question.id or question.question)
    return result


# ---- choosing and writing --------------------------------------------------------------------------------


def sample(found: ImportedSet, size: int, seed: int = 0) -> ImportedSet:
    """`size` questions drawn without replacement, stratified by label (answer, no-answer, unlabelled; each
    label's share kept, rounded by largest remainder), seeded; in source order. All of them when `size` is
    at least how many there are."""
    questions = found.questions
    if size >= len(questions):
        return found
    rng = random.Random(seed)
    strata: dict[str, list[int]] = {}
    for index, question in enumerate(questions):
        strata.setdefault(str(question.expect), []).append(index)
    labels = sorted(strata)
    exact = {label: size * len(strata[label]) / len(questions) for label in labels}
    quota = {label: math.floor(exact[label]) for label in labels}
    for label in sorted(labels, key=lambda label: (quota[label] - exact[label], label))[: size - sum(quota.values())]:
        quota[label] += 1
    chosen = sorted(i for label in labels for i in rng.sample(strata[label], quota[label]))
    return ImportedSet([questions[i] for i in chosen], found.source_format, found.read, found.merged,
                       found.conflicts, len(questions))


def _ids(questions: Sequence[Imported]) -> list[str]:
    """Each question's id: the source's, or one derived from its words, made unique with -2, -3, ..."""
    taken = {q.id for q in questions if q.id is not None}
    found = []
    for question in questions:
        if question.id is not None:
            found.append(question.id)
            continue
        base = derive_id(question.question)
        candidate, n = base, 1
        while candidate in taken:
            n += 1
            candidate = f"{base}-{n}"
        taken.add(candidate)
        found.append(candidate)
    return found


def to_yaml(found: ImportedSet, source: Path, command: str) -> str:
    """The questions YAML file's text, with a header saying where it came from."""
    answer, none, unlabelled = found.counts()
    header = [f"Imported by `{command}`",
              f"from {source.name} ({found.source_format}): {len(found.questions)} questions, {answer} answer, "
              f"{none} no-answer, {unlabelled} unlabelled.",
              "`accept` patterns were made from the gold answers: each matches its answer literally (any case,",
              "any spacing, numbers with or without thousands separators). Edit them freely: judging needs",
              "no API call."]
    if found.source_format == "SQuAD 2.0 JSON":
        header += ["", *SQUAD_ATTRIBUTION.splitlines()]
    entries = []
    for qid, question in zip(_ids(found.questions), found.questions, strict=True):
        entry: dict[str, Any] = {"id": qid, "question": question.question}
        if question.expect is not None:
            entry["expect"] = question.expect
        patterns = list(dict.fromkeys(accept_pattern(a) for a in question.answers if re.search(r"\w", a)))
        if patterns and question.expect == "answer":
            entry["accept"] = patterns
        entries.append(entry)
    body = yaml.safe_dump({"questions": entries}, allow_unicode=True, sort_keys=False, width=1000)
    return "".join(f"# {line}".rstrip() + "\n" for line in header) + body


def import_questions(source: Path, out: Path, size: int | None = None, seed: int = 0, force: bool = False,
                     command: str = "quotefinder import") -> ImportedSet:
    """Read `source`, sample `size` of its questions, and write the question file `out`, never over an
    existing file unless `force`. Validated first, written last: the text about to be written is checked by
    the loader's own `parse_questions` (any refusal names the source's record), and only then written,
    atomically, so a refused source leaves no file and an existing one untouched. `InputError` when `size`
    is more than the source holds: a sample the user cannot get is refused, not quietly replaced by every
    question."""

    if out.exists() and not force:
        raise QuestionFileError(f"{out}: already exists; choose another --out, or pass --force to replace it")
    if out.suffix.lower() not in (".yaml", ".yml"):
        raise QuestionFileError(f"{out}: a question file is YAML; name it .yaml")
    found = read_source(source)
    if size is not None and size > len(found.questions):
        merged = f" ({found.read} read, {found.merged} merged into one of the same text)" if found.merged else ""
        raise InputError(f"{source}: --sample {size} asks for more questions than the source holds: "
                         f"{len(found.questions)}{merged}. Give --sample {len(found.questions)} or fewer, or leave "
                         "--sample out to import every question")
    if size is not None:
        found = sample(found, size, seed)
    text = to_yaml(found, source, command)
    parse_questions(text, source, origins=[question.where for question in found.questions])
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(out, text.encode(), SHARED_FILE)
    except OSError as error:
        raise QuestionFileError(f"{out}: cannot be written ({error.strerror or error})") from None
    return found
