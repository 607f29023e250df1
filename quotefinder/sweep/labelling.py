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

from ..questions import Outcome, Question, QuestionSet
from ..recipe.decision import Scored, cutoffs_passed, values_below
from ..textsafe import terminal
from .grid import Curve, Table
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
    quotes: tuple[Scored, ...]  # distinct quoted sentences without a verdict (answer questions without accept)
    cells: int  # cells of the grid where it is quoted (in some repeat)
    near: int  # ... of them within NEAR grid steps of the recommended cell


def quoted_cells(tables: Sequence[Table], a: np.ndarray) -> np.ndarray:
    """(Q, H): for each question and HAS_ANSWER_CUTOFF of the grid, how many ANSWER_CUTOFF values quote it
    in some repeat (it is quoted at (h, i) exactly when i is below that number)."""
    return np.max([cutoffs_passed(a, table.probability) for table in tables], axis=0)


def _quotes(replayed: Replayed, index: int, h: np.ndarray, floor: float) -> list[Scored]:
    """The distinct top candidates question `index` quotes somewhere on the grid (ANSWER_CUTOFF values from
    `floor`), in the order met: the sets some grid HAS_ANSWER_CUTOFF selects, in every repeat."""
    found: dict[str, Scored] = {}
    question = replayed.questions[index]
    for traces in replayed.traces:
        curve = Curve.of(question, traces[index])
        selected = set(values_below(curve.thresholds, h).tolist())  # the sets the grid's cutoffs select
        for j, top in enumerate(curve.tops):
            if j in selected and top is not None and top.answers is not None and top.answers >= floor:
                found.setdefault(top.candidate.sentence, top)
    return list(found.values())


def needs_label(replayed: Replayed, h: np.ndarray, a: np.ndarray, recommended: tuple[int, int],
                passed: np.ndarray, mixed: bool = False) -> list[NeedsLabel]:
    """The questions that need a person, most influential first (quoted in the most cells near the
    recommended cell, then in the most cells, then in file order). `passed` is `quoted_cells`; `mixed`
    (a production mix) makes every unlabelled question need its label, quoted or not."""
    if not len(a):
        return [NeedsLabel(q, n, True, (), 0, 0) for n, q in enumerate(replayed.questions)
                if mixed and q.expect is None]
    rh, ra = recommended
    rows = slice(max(0, rh - NEAR), rh + NEAR + 1)
    low, high = max(0, ra - NEAR), min(len(a), ra + NEAR + 1)
    found = []
    for index, question in enumerate(replayed.questions):
        cells = int(passed[index].sum())
        if not cells:
            if mixed and question.expect is None:
                found.append(NeedsLabel(question, index, True, (), 0, 0))
            continue
        quotes: list[Scored] = []
        if question.expect is None or (question.expect == "answer" and not question.accept):
            quotes = [top for top in _quotes(replayed, index, h, float(a[0]))
                      if question.expect is None or question.judge(top.candidate.sentence) is Outcome.UNJUDGED]
        if question.expect is None or quotes:
            near = int(np.clip(passed[index, rows], low, high).sum() - low * len(passed[index, rows]))
            found.append(NeedsLabel(question, index, question.expect is None, tuple(quotes), cells, near))
    return sorted(found, key=lambda item: (-item.near, -item.cells, item.index))


def labels_by_floor(replayed: Replayed, h: np.ndarray, a: np.ndarray, recommended: tuple[int, int],
                    passed: np.ndarray, mixed: bool = False) -> list[tuple[float, int]]:
    """How many questions would need a label if the grid only held ANSWER_CUTOFF values from each floor."""
    counts = []
    for floor in FLOORS:
        kept = a >= floor - 1e-12
        if not kept.any():
            counts.append((floor, sum(1 for q in replayed.questions if mixed and q.expect is None)))
            continue
        start = int(np.argmax(kept))
        shifted = np.clip(passed - start, 0, None)  # values below the floor no longer count
        narrowed = needs_label(replayed, h, a[start:], (recommended[0], max(0, recommended[1] - start)), shifted,
                               mixed)
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
        quotes = [top for top in item.quotes if (question.question, top.candidate.sentence) not in on_disk.verdicts]
        if expect is not None and (expect != "answer" or question.accept or not quotes):
            continue  # labelled (here or by another review), and no quote is left that needs a verdict
        say(f"\n[{n}/{len(pending)}] {terminal(question.id)}: {terminal(question.question)}")
        if expect is None:
            for top in item.quotes[:3]:
                say(f'  quoted on the grid: "{terminal(top.candidate.sentence)}"')
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
        for top in quotes:
            c = top.candidate
            if (question.question, c.sentence) in load_verdicts(path).verdicts:
                continue  # judged by another review while this one asked something else
            say(f'  "{terminal(c.sentence)}"\n  {terminal(c.source)}')
            answer = _ask(ask, say, "Does this sentence answer the question? [c]orrect / [w]rong / [s]kip / "
                                    "[q]uit: ", "cwsq")
            if answer == "q":
                stop = True
                break
            if answer == "s":
                continue
            verdict = Outcome.CORRECT if answer == "c" else Outcome.WRONG
            merge_save(path, Judgements({(question.question, c.sentence): verdict}), questions)
            saved += 1
        if stop:
            break
    say(f"\n{saved} answer(s) saved in {path}.")
    return saved
