"""Label only what matters: which questions need a person before the grid can be judged, and the review
that asks for exactly those.

A question that is quoted nowhere on the grid cannot change which cell is recommended (its label shifts
every cell's score by the same amount) nor the wrong-answer rate at any cell (it is never quoted). With a
production mix (`--answerable-share`) that no longer holds: the labels set every question's weight and
the class each counts in, so every unlabelled question needs its label. A
question needs a label when it is quoted at some cell of the grid and lacks what judging that quote
takes: its `expect`, or, on an answer question without `accept` patterns, a verdict on a quoted
sentence. The review asks for those, most influential first (quoted in the most cells near the
recommendation), and saves each answer at once in the verdicts file, merged into it as it is on disk
(`verdicts.merge_save`): two reviews of one question set at once keep each other's answers, and neither
asks what the other has already answered.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..core.plugin import Quote
from ..core.textsafe import terminal
from ..questions import Outcome, Question, QuestionSet
from .grid import JudgedCurve, Table
from .verdicts import Judgements, load_verdicts, merge_save, verdicts_path, with_verdicts

if TYPE_CHECKING:  # replay attaches verdicts, so it imports `verdicts`; this module only reads runs
    from .replay import Replayed

NEAR = 2  # grid steps around the recommended cell that count as "near" it
FLOORS = (0.3, 0.5, 0.7, 0.9)  # ANSWER_CUTOFF floors the summary prices in labels


@dataclass(frozen=True)
class NeedsLabel:
    """A question quoted somewhere on the grid that judging cannot do without a person."""

    question: Question
    index: int  # its position among the swept questions
    missing_expect: bool  # it has no `expect`
    quotes: tuple[Quote, ...]  # distinct quoted texts without a verdict (answer questions without accept)
    cells: int  # cells of the grid where it is quoted (in some repeat)
    near: int  # ... of them within NEAR grid steps of the recommended cell


class QuotedCells:
    """Where on the grid each question is quoted in some repeat, from the tables' pieces (`Table.positions`)."""

    def __init__(self, tables: Sequence[Table], a: np.ndarray) -> None:
        self.tables, self.a = list(tables), a

    def mask(self, index: int) -> np.ndarray:
        """(H, A) bool: the cells where question `index` is quoted in some repeat."""
        covered = np.zeros((self.tables[0].shape[1], len(self.a)), dtype=bool)
        for table in self.tables:
            bands = table.bands_of(index)
            covered |= table.bins(self.a, table.quoted[bands], bands=bands).sums()[..., 0] > 0
        return covered


def quoted_cells(tables: Sequence[Table], a: np.ndarray) -> QuotedCells:
    return QuotedCells(tables, a)


def _quotes(judged: Sequence[Sequence[JudgedCurve]], index: int, h: np.ndarray, a: np.ndarray) -> list[Quote]:
    """The distinct texts question `index` quotes somewhere on the grid (rows `h`, columns `a`), in the order
    met: in the segments some grid value of the first axis selects, the quoted pieces some grid value of the
    second axis falls in, in every repeat."""
    found: dict[str, Quote] = {}
    for run in judged:
        curve = run[index].curve
        for k in sorted({curve.segment(float(x)) for x in h}):
            bounds = (-np.inf, *curve.bounds[k], np.inf)
            for j, piece in enumerate(curve.pieces[k]):
                if piece.quoted is not None and ((a > bounds[j]) & (a <= bounds[j + 1])).any():
                    found.setdefault(piece.quoted.text, piece.quoted)
    return list(found.values())


def _to_review(question: Question, quotes: Sequence[Quote]) -> list[Quote]:
    """What a person is asked about: each quote, and an answer of several passages passage by passage (its
    passages nobody has judged yet, each a text of its own: `Question.judge_passages` reads their verdicts)."""
    found: dict[str, Quote] = {}
    for quote in quotes:
        parts = [Quote(text, quote.title, quote.url, quote.date) for text in quote.passages
                 if question.expect is None or question.judge(text) is Outcome.UNJUDGED]
        for part in parts if quote.passages else [quote]:
            found.setdefault(part.text, part)
    return list(found.values())


def needs_label(judged: Sequence[Sequence[JudgedCurve]], h: np.ndarray, a: np.ndarray, recommended: tuple[int, int],
                cells: QuotedCells, mixed: bool = False, start: int = 0) -> list[NeedsLabel]:
    """The questions that need a person, most influential first (quoted in the most cells near the
    recommended cell, then in the most cells, then in file order). `cells` is `quoted_cells`; `start` the first
    column of `a` the grid keeps (the others do not count); `mixed` (a production mix) makes every unlabelled
    question need its label, quoted or not."""
    questions = [curve.question for curve in judged[0]]
    a_kept = a[start:]
    if not len(a_kept):
        return [NeedsLabel(q, n, True, (), 0, 0) for n, q in enumerate(questions) if mixed and q.expect is None]
    rh, ra = recommended
    rows = slice(max(0, rh - NEAR), rh + NEAR + 1)
    columns = slice(max(0, ra - NEAR), ra + NEAR + 1)
    found = []
    for index, question in enumerate(questions):
        if question.expect is not None and (question.expect != "answer" or question.accept):
            continue  # judging needs nobody: a label, and patterns or no quote to judge
        mask = cells.mask(index)[:, start:]
        count = int(mask.sum())
        if not count:
            if mixed and question.expect is None:
                found.append(NeedsLabel(question, index, True, (), 0, 0))
            continue
        quotes = _to_review(question, [quote for quote in _quotes(judged, index, h, a_kept)
                                       if question.expect is None or question.judge_quote(quote) is Outcome.UNJUDGED])
        if question.expect is None or quotes:
            near = int(mask[rows, columns].sum())
            found.append(NeedsLabel(question, index, question.expect is None, tuple(quotes), count, near))
    return sorted(found, key=lambda item: (-item.near, -item.cells, item.index))


def labels_by_floor(judged: Sequence[Sequence[JudgedCurve]], h: np.ndarray, a: np.ndarray,
                    recommended: tuple[int, int], cells: QuotedCells, mixed: bool = False) -> list[tuple[float, int]]:
    """How many questions would need a label if the grid only held ANSWER_CUTOFF values from each floor."""
    counts = []
    questions = [curve.question for curve in judged[0]]
    for floor in FLOORS:
        kept = a >= floor - 1e-12
        if not kept.any():
            counts.append((floor, sum(1 for q in questions if mixed and q.expect is None)))
            continue
        start = int(np.argmax(kept))
        narrowed = needs_label(judged, h, a, (recommended[0], max(0, recommended[1] - start)), cells, mixed, start)
        counts.append((floor, len(narrowed)))
    return counts


def rejudge(replayed: Replayed) -> Replayed:
    """The same traces judged with the labels and verdicts now on disk (after a review)."""
    question_set = with_verdicts(replayed.question_set, load_verdicts(verdicts_path(replayed.question_set.path)))
    by_text = question_set.by_text()
    return dataclasses.replace(replayed, question_set=question_set,
                               questions=[by_text[q.question] for q in replayed.questions])


def _ask(ask: Callable[[str], str], say: Callable[[str], None], prompt: str, choices: str) -> str:
    """One answer among `choices` (first letters); 'q' when the input ends or Ctrl+C is pressed."""
    while True:
        try:
            answer = ask(prompt)
        except (EOFError, KeyboardInterrupt):  # every answer given so far is already saved
            return "q"
        answer = answer.strip().lower()[:1]
        if answer and answer in choices:
            return answer
        say(f"  please answer {', '.join(choices[:-1])} or {choices[-1]}")


def review(pending: Sequence[NeedsLabel], path: Path, questions: QuestionSet,
           ask: Callable[[str], str] | None = None, say: Callable[[str], None] = print) -> int:
    """Ask for each pending question's label when it has none, and a verdict on each quote it needs one
    for; save each answer at once, merged into the verdicts file as it is then (another review may be
    saving to it too: what it has answered is not asked again, and a different answer to the same quote
    is a `QuestionFileError` naming both). Returns how many answers were saved; 'q' or the end of input
    stops."""
    ask = ask or input  # looked up now, so a test (or a caller) can replace it
    saved = 0
    for n, item in enumerate(pending, start=1):
        question = item.question
        on_disk = load_verdicts(path)  # what another review may have saved meanwhile
        expect = question.expect or on_disk.labels.get(question.question)
        quotes = [quote for quote in item.quotes if (question.question, quote.text) not in on_disk.verdicts]
        if expect is not None and (expect != "answer" or question.accept or not quotes):
            continue  # labelled (here or by another review), and no quote is left that needs a verdict
        say(f"\n[{n}/{len(pending)}] {terminal(question.id)}: {terminal(question.question)}")
        if expect is None:
            for quote in item.quotes[:3]:
                say(f'  quoted on the grid: "{terminal(quote.text)}"')
            answer = _ask(ask, say, "Can the search results answer this question? [a]nswer / [n]o-answer / "
                                    "[s]kip / [q]uit: ", "ansq")
            if answer == "q":
                break
            if answer == "s":
                continue
            expect = "answer" if answer == "a" else "no-answer"
            merge_save(path, Judgements(labels={question.question: expect}), questions)
            saved += 1
        if expect != "answer" or question.accept:
            continue  # a no-answer question's quotes are all wrong; patterns judge the rest
        stop = False
        for quote in quotes:
            if (question.question, quote.text) in load_verdicts(path).verdicts:
                continue  # judged by another review while this one asked something else
            say(f'  "{terminal(quote.text)}"\n  {terminal(quote.source)}')
            answer = _ask(ask, say, "Does this sentence answer the question? [c]orrect / [w]rong / [s]kip / "
                                    "[q]uit: ", "cwsq")
            if answer == "q":
                stop = True
                break
            if answer == "s":
                continue
            verdict = Outcome.CORRECT if answer == "c" else Outcome.WRONG
            merge_save(path, Judgements({(question.question, quote.text): verdict}), questions)
            saved += 1
        if stop:
            break
    say(f"\n{saved} answer(s) saved in {path}.")
    return saved
