"""Human verdicts on quotes that no accept pattern judges, kept beside the questions, and the review
that asks for them.

`questions/ten.yaml` has its verdicts in `questions/ten.verdicts.yaml`:

    verdicts:
      - id: bones                       # for the reader; the key is the question text and the quote
        question: How many bones are in the adult human body?
        quote: An adult has 206 bones in all.
        verdict: correct                # correct | wrong

A verdict applies to exactly that sentence of that question, on an answer question, and overrides
the accept patterns: a human judgement is made once and kept. `sweep.py RUN --review` walks the
unjudged quotes that appear anywhere on the grid and saves each answer at once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import yaml
from yaml.nodes import Node, ScalarNode, SequenceNode

from ..errors import QuestionFileError
from ..questions import Outcome, Question, QuestionSet, Reader, compose
from ..recipe.decision import Scored, passes
from ..record.storage import SHARED_FILE, write_atomic
from ..textsafe import terminal

if TYPE_CHECKING:  # replay attaches verdicts, so it imports this module, not the other way round
    from .replay import Replayed

VERDICTS = {"correct": Outcome.CORRECT, "wrong": Outcome.WRONG}
Verdicts = dict[tuple[str, str], Outcome]  # (question text, quote) -> verdict
HEADER = ("# Human verdicts on quotes that no accept pattern judges (question text + exact quote).\n"
          "# Written by `sweep.py RUN --review`; edit freely. A verdict overrides the accept patterns.\n")


def verdicts_path(questions: Path) -> Path:
    """`questions/ten.yaml` -> `questions/ten.verdicts.yaml`."""
    return questions.with_name(f"{questions.stem}.verdicts.yaml")


def load_verdicts(path: Path) -> Verdicts:
    """The verdicts in `path` ({} when it does not exist); `QuestionFileError` names the line."""
    if not path.exists():
        return {}
    _, root = compose(path)
    if root is None:
        return {}
    reader = Reader(path)
    found: Verdicts = {}
    for n, node in enumerate(top_list_or_empty(reader, root), start=1):
        fields = reader.mapping(node, f"verdict {n}", ("id", "question", "quote", "verdict"))
        missing = [key for key in ("question", "quote", "verdict") if key not in fields]
        if missing:
            raise reader.fail(node, f"verdict {n} has no `{missing[0]}:`")
        question = reader.text(fields["question"][1], f"verdict {n}'s `question`")
        quote = reader.text(fields["quote"][1], f"verdict {n}'s `quote`")
        verdict = reader.text(fields["verdict"][1], f"verdict {n}'s `verdict`")
        if verdict not in VERDICTS:
            raise reader.fail(fields["verdict"][1], f"verdict {n} says `{verdict}`; write `correct` or `wrong`")
        found[(question, quote)] = VERDICTS[verdict]
    return found


def top_list_or_empty(reader: Reader, root: Node) -> list[Node]:
    """The items of the file's `verdicts:` list; none for an absent or empty one."""
    fields = reader.mapping(root, "the file", ("verdicts",))
    items = fields["verdicts"][1] if "verdicts" in fields else None
    if items is None or (isinstance(items, ScalarNode) and items.tag == "tag:yaml.org,2002:null"):
        return []
    if not isinstance(items, SequenceNode):
        raise reader.fail(items, "`verdicts:` must be a list, each item starting with `- question:`")
    return items.value


def save_verdicts(path: Path, verdicts: Verdicts, questions: QuestionSet) -> None:
    """Write every verdict, sorted, atomically (a reviewer's answers are never half-saved)."""
    ids = {q.question: q.id for q in questions.questions}
    entries = [{"id": ids.get(text, ""), "question": text, "quote": quote, "verdict": outcome.value}
               for (text, quote), outcome in sorted(verdicts.items())]
    body = yaml.safe_dump({"verdicts": entries}, allow_unicode=True, sort_keys=False, width=1000)
    write_atomic(path, (HEADER + body).encode(), SHARED_FILE)


def with_verdicts(questions: QuestionSet, verdicts: Verdicts) -> QuestionSet:
    """The question set with each question's verdicts attached (questions without any are reused)."""
    if not verdicts:
        return questions
    by_question: dict[str, dict[str, Outcome]] = {}
    for (text, quote), outcome in verdicts.items():
        by_question.setdefault(text, {})[quote] = outcome
    return dataclasses.replace(questions, questions=tuple(
        dataclasses.replace(q, verdicts=by_question[q.question]) if q.question in by_question else q
        for q in questions.questions
    ))


@dataclass(frozen=True)
class Unjudged:
    """A quote nobody has judged: a question's top candidate, quoted at some cell of a grid."""

    question: Question
    quote: Scored


def unjudged_on_grid(replayed: Replayed, answer_cutoffs: Sequence[float]) -> list[Unjudged]:
    """Every (question, top candidate) quoted at some cell of the grid and judged by nobody yet, once each.

    A top candidate is quoted somewhere exactly when its compare probability passes the lowest
    ANSWER_CUTOFF; the HAS_ANSWER_CUTOFF values the run was replayed for are the ones its sets cover.
    """
    lowest = min(answer_cutoffs)
    found, seen = [], set()
    for traces in replayed.traces:
        for question, trace in zip(replayed.questions, traces, strict=True):
            for _, top in trace.tops:
                if top is None or top.answers is None or not passes(top.answers, lowest):
                    continue  # not quoted anywhere on the grid
                if (question.question, top.candidate.sentence) in seen:
                    continue
                seen.add((question.question, top.candidate.sentence))
                if question.judge(top.candidate.sentence) is Outcome.UNJUDGED:
                    found.append(Unjudged(question, top))
    return found


def rejudge(replayed: Replayed) -> Replayed:
    """The same traces judged with the verdicts now on disk (after a review)."""
    question_set = with_verdicts(replayed.question_set, load_verdicts(verdicts_path(replayed.question_set.path)))
    by_text = question_set.by_text()
    return dataclasses.replace(replayed, question_set=question_set,
                               questions=[by_text[q.question] for q in replayed.questions])


def review(pending: Iterable[Unjudged], path: Path, questions: QuestionSet,
           ask: Callable[[str], str] | None = None, say: Callable[[str], None] = print) -> int:
    """Ask correct / wrong / skip for each (question, quote) in `pending`; save each answer at once.

    Returns how many verdicts were saved. 'q' or the end of input stops the review.
    """
    ask = ask or input  # looked up now, so a test (or a caller) can replace it
    queue = list(pending)
    verdicts = load_verdicts(path)
    saved = 0
    for n, item in enumerate(queue, start=1):
        question, c = item.question, item.quote.candidate
        say(f"\n[{n}/{len(queue)}] {terminal(question.id)}: {terminal(question.question)}")
        say(f'  "{terminal(c.sentence)}"\n  {terminal(c.source)}')
        while True:
            try:
                answer = ask("Does this sentence answer the question? [c]orrect / [w]rong / [s]kip / [q]uit: ")
            except (EOFError, KeyboardInterrupt):  # every answer given so far is already saved
                answer = "q"
            answer = answer.strip().lower()[:1]
            if answer in ("c", "w", "s", "q"):
                break
            say("  please answer c, w, s or q")
        if answer == "q":
            break
        if answer == "s":
            continue
        verdicts[(question.question, c.sentence)] = Outcome.CORRECT if answer == "c" else Outcome.WRONG
        try:
            save_verdicts(path, verdicts, questions)
        except OSError as error:
            raise QuestionFileError(f"{path}: cannot save the verdict ({error.strerror or error})") from None
        saved += 1
    say(f"\n{saved} verdict(s) saved in {path}.")
    return saved
