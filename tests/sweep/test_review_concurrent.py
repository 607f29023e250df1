"""Two `--review` sessions on one question set: each answer is merged into the verdicts file as it is on disk
(under a lock), so neither session loses the other's, and two different answers to one quote are an error
naming both."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from conftest import write_questions
from quotefinder.core.errors import QuestionFileError
from quotefinder.core.plugin import Quote
from quotefinder.questions import Outcome, load_questions
from quotefinder.sweep.labelling import NeedsLabel, review
from quotefinder.sweep.verdicts import load_verdicts, verdicts_path

QUESTIONS = """\
questions:
  - {id: bridge, question: When did the bridge open?, expect: answer}
  - {id: colour, question: What colour is the bridge?, expect: answer}
  - {id: ghost, question: Who haunts the bridge?}
"""
OPENED = "The bridge was opened to traffic in the spring of 1937."
PAINTED = "It is painted a colour called International Orange."


def quoted(sentence: str) -> Quote:
    return Quote(sentence, "Bridge", "https://bridge.example", None, 0.8, "answers")


@pytest.fixture
def questions(tmp_path: Path):
    return load_questions(write_questions(tmp_path / "q.yaml", QUESTIONS))


def pending(questions, *which: tuple[str, str | None]) -> list[NeedsLabel]:
    """What a review would ask: (question id, quoted sentence or None for the label)."""
    by_id = {q.id: (n, q) for n, q in enumerate(questions.questions)}
    found = []
    for qid, sentence in which:
        n, q = by_id[qid]
        found.append(NeedsLabel(q, n, q.expect is None, (quoted(sentence),) if sentence else (), 5, 1))
    return found


class Session:
    """A review in a thread of its own whose answers the test hands over one at a time, so two sessions can
    be interleaved exactly: both have read the file before either saves."""

    def __init__(self, items: list[NeedsLabel], path: Path, questions) -> None:
        self.asked: list[str] = []
        self.said: list[str] = []
        self._answers: list[str] = []
        self._waiting = threading.Condition()
        self.error: BaseException | None = None
        self.saved: int | None = None
        self.thread = threading.Thread(target=self._run, args=(items, path, questions), daemon=True)

    def _ask(self, prompt: str) -> str:
        with self._waiting:
            self.asked.append(prompt)
            self._waiting.notify_all()
            self._waiting.wait_for(lambda: self._answers, timeout=30)
            return self._answers.pop(0)

    def _run(self, items, path, questions) -> None:
        try:
            self.saved = review(items, path, questions, ask=self._ask, say=self.said.append)
        except BaseException as error:  # noqa: BLE001 - handed to the test
            self.error = error

    def start(self) -> Session:
        self.thread.start()
        return self

    def wait_for_question(self, count: int) -> None:
        with self._waiting:
            assert self._waiting.wait_for(lambda: len(self.asked) >= count, timeout=30), self.said

    def answer(self, text: str) -> None:
        with self._waiting:
            self._answers.append(text)
            self._waiting.notify_all()

    def finish(self) -> None:
        self.thread.join(timeout=30)
        assert not self.thread.is_alive()


def interleaved(first: Session, second: Session, answers: tuple[str, str]) -> None:
    """Both sessions are asked their one question (each has read the file), then the first answers and ends,
    then the second answers."""
    first.start().wait_for_question(1)
    second.start().wait_for_question(1)
    first.answer(answers[0])
    first.finish()
    second.answer(answers[1])
    second.finish()


def test_two_reviews_at_once_keep_both_sets_of_answers(tmp_path: Path, questions) -> None:
    path = verdicts_path(questions.path)
    one = Session(pending(questions, ("bridge", OPENED), ("ghost", None)), path, questions)
    two = Session(pending(questions, ("colour", PAINTED)), path, questions)
    one.start().wait_for_question(1)
    two.start().wait_for_question(1)
    one.answer("c")  # saved while the second session waits with the file as it was before
    one.wait_for_question(2)
    two.answer("w")
    two.finish()
    one.answer("n")
    one.finish()
    assert (one.error, two.error) == (None, None) and (one.saved, two.saved) == (2, 1)
    saved = load_verdicts(path)
    assert saved.verdicts == {("When did the bridge open?", OPENED): Outcome.CORRECT,
                              ("What colour is the bridge?", PAINTED): Outcome.WRONG}
    assert saved.labels == {"Who haunts the bridge?": "no-answer"}


def test_a_review_started_after_another_saved_does_not_ask_again(tmp_path: Path, questions) -> None:
    path = verdicts_path(questions.path)
    answers = iter(["c"])
    assert review(pending(questions, ("bridge", OPENED)), path, questions, ask=lambda _: next(answers),
                  say=lambda _: None) == 1
    asked: list[str] = []

    def wrong(prompt: str) -> str:
        asked.append(prompt)
        return "w"

    assert review(pending(questions, ("bridge", OPENED), ("colour", PAINTED)), path, questions, ask=wrong,
                  say=lambda _: None) == 1
    assert len(asked) == 1  # only the colour quote: the bridge quote was answered by the other review
    assert len(load_verdicts(path).verdicts) == 2


def test_two_reviews_giving_different_verdicts_on_one_quote_is_an_error_naming_both(tmp_path: Path,
                                                                                  questions) -> None:
    path = verdicts_path(questions.path)
    one = Session(pending(questions, ("bridge", OPENED)), path, questions)
    two = Session(pending(questions, ("bridge", OPENED)), path, questions)
    interleaved(one, two, ("c", "w"))
    assert one.error is None and isinstance(two.error, QuestionFileError)
    message = str(two.error)
    assert message.startswith(f"{path}: ") and "`correct`" in message and "`wrong`" in message, message
    assert OPENED in message and "When did the bridge open?" in message
    assert load_verdicts(path).verdicts == {("When did the bridge open?", OPENED): Outcome.CORRECT}


def test_two_reviews_giving_different_labels_to_one_question_is_an_error_naming_both(tmp_path: Path,
                                                                                   questions) -> None:
    path = verdicts_path(questions.path)
    one = Session(pending(questions, ("ghost", None)), path, questions)
    two = Session(pending(questions, ("ghost", None)), path, questions)
    interleaved(one, two, ("a", "n"))
    assert one.error is None and isinstance(two.error, QuestionFileError)
    message = str(two.error)
    assert "`answer`" in message and "`no-answer`" in message and "Who haunts the bridge?" in message, message
    assert load_verdicts(path).labels == {"Who haunts the bridge?": "answer"}


def test_the_same_answer_from_both_reviews_is_no_conflict(tmp_path: Path, questions) -> None:
    path = verdicts_path(questions.path)
    one = Session(pending(questions, ("bridge", OPENED)), path, questions)
    two = Session(pending(questions, ("bridge", OPENED)), path, questions)
    interleaved(one, two, ("w", "w"))
    assert (one.error, two.error) == (None, None)
    assert load_verdicts(path).verdicts == {("When did the bridge open?", OPENED): Outcome.WRONG}
